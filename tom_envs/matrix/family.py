"""The matrix-game family (seed 004) as a plugin (:class:`tom_envs.family.Family`)."""

from __future__ import annotations

from tom_envs.family import Family

FAMILY = Family(
    name="matrix",
    envs="tom_envs.matrix.ids",
    benchmark="benchmarks.matrix.benchmark",
    report_section="benchmarks.matrix.report:matrix",
    commands=("benchmarks.matrix.commands:DEMO", "benchmarks.matrix.commands:PERF", "benchmarks.matrix.commands:RL"),
    order=10,
)
