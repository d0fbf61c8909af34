"""The matrix-game family (seed 004) as a plugin (:class:`tom_envs.family.Family`)."""

from __future__ import annotations

from tom_envs.family import Family

FAMILY = Family(
    name="matrix",
    benchmark="benchmarks.matrix",
    report_section="benchmarks.report.sections:matrix",
    order=10,
)
