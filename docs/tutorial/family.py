"""Step 5 of the tutorial: the family's one declaration (:class:`tom_envs.family.Family`), found through the
entry point in ``pyproject.toml`` (group ``tom_envs.families``)."""

from __future__ import annotations

from tom_envs.family import Family

FAMILY = Family(
    name="false_belief",
    command="false-belief",
    envs="false_belief.envs",
    benchmark="false_belief.benchmark",
    probe={"episodes": 120},  # the information-rule checker's settings for its ids
)
