"""The matrix-game family (seed 004) as a plugin (:class:`tom_envs.family.Family`)."""

from __future__ import annotations

from tom_envs.family import Family

FAMILY = Family.standard(
    "matrix",
    order=10,
    rl=("benchmarks.matrix.rl:TASK",),
    crossplay=("benchmarks.matrix.crossplay:TASK",),
    selfplay=("benchmarks.matrix.selfplay:TASK",),
    commands=tuple(f"benchmarks.matrix.commands:{name}" for name in ("DEMO", "PERF")),
)
