"""The hidden-role family's one declaration (:class:`tom_envs.family.Family`), registered in this
package's ``pyproject.toml`` under the entry-point group ``tom_envs.families``."""

from __future__ import annotations

from tom_envs.family import Family

FAMILY = Family(
    name="hidden_role",
    command="hidden-role",
    envs="hidden_role.envs",
    benchmark="hidden_role.benchmark",
    report_section="hidden_role.report:section",
    probe={"episodes": 80},  # short episodes, one truth each (the last vote): more of them
)
