"""The matrix games' self-play (``tom-envs selfplay --env tom/IPD-Parallel-v0``; docs/selfplay.md).

Both seats of the Parallel ids learn: each seat is a :class:`wrappers.ParallelSeat` of the parallel env
(``HORIZON`` rounds) whose other seat is played by the policy the shared code gives it (the other
learner's frozen snapshot, or the frozen population). The frozen population is the crossplay
population's scripted agents and the tabular agent of :mod:`benchmarks.matrix.crossplay`, built for
the seat they sit in (no learner and no LLM in it).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Callable

from benchmarks.matrix.rl import HYPER
from benchmarks.selfplay import SelfplayTask

HORIZON = 100
ENV_IDS = ("tom/IPD-Parallel-v0", "tom/RPS-Parallel-v0", "tom/IBS-Parallel-v0")


def make_env(env_id: str, seat: str, opponent: Any) -> Any:
    """``seat`` of the parallel id (``HORIZON`` rounds), the other seat played by ``opponent``."""
    import tom_envs
    from wrappers.parallel_seat import ParallelSeat

    par = tom_envs.make(env_id, horizon=HORIZON)
    other = next(a for a in par.possible_agents if a != seat)
    return ParallelSeat(par, seat, {other: opponent})


def seat_space(env_id: str, seat: str) -> Any:
    """The observation space of ``seat`` (the code of the last joint action, own action first)."""
    import tom_envs

    return tom_envs.make(env_id, horizon=HORIZON).observation_space(seat)


@functools.lru_cache(maxsize=8)
def _agents(env_id: str) -> tuple[Any, ...]:
    from benchmarks.crossplay import Population
    from benchmarks.matrix.crossplay import population as crossplay_population

    return tuple(crossplay_population(env_id, Population(horizon=HORIZON, out=Path("."), learner_steps=0)))


def population(env_id: str, seat: str) -> list[tuple[str, Callable[[], Any]]]:
    """The crossplay population's scripted agents and the tabular agent, each built for ``seat``."""
    return [(a.name, functools.partial(a.build, seat)) for a in _agents(env_id) if a.kind in ("scripted", "tabular")]


TASK = SelfplayTask(
    env_ids=ENV_IDS,
    make_env=make_env,
    seat_space=seat_space,
    population=population,
    # 5 seeds of this budget: about 8 min of CPU on 2 cores (docs/selfplay.md "Measured")
    steps=5_000,
    rounds=5,
    episodes=10,
    probe_episodes=10,
    n_envs=4,
    hyper=HYPER,
    notes=(
        "return: the seat's summed payoff over the 100 rounds",
        "the observation is the last joint action (one-hot): a feed-forward learner is memory-1",
    ),
)
