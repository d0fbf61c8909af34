"""hidden_role: a fifth tom-envs family living outside the package, found through the entry-point group.

A third-party family, laid out as docs/architecture.md's "How to add a family" describes, one module
per layer:

* :mod:`hidden_role.env` -- the environment (``tom_envs`` layer): :class:`~hidden_role.env.HiddenRoleEnv`;
* :mod:`hidden_role.envs` -- its registration (``tom_envs.register``), imported by ``import tom_envs``;
* :mod:`hidden_role.agents` -- its scripted seats and its LLM seat (``policies`` layer);
* :mod:`hidden_role.benchmark` -- its benchmark declaration (``benchmarks`` layer): ``tom-envs hidden-role``;
* :mod:`hidden_role.report` -- its report section (``benchmarks`` layer);
* :mod:`hidden_role.family` -- the one :class:`tom_envs.family.Family` declaration naming all of them,
  registered in ``pyproject.toml`` under ``[project.entry-points."tom_envs.families"]``.
"""
