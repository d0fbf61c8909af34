"""Step 4 of the tutorial: the benchmark declaration (the ``benchmarks`` layer). ``tom-envs false-belief``
comes from it: the shared options (``--episodes --seed --out --format --policy --env --lockstep``), the
runner, the ToM recorder and resumable results files are the generic path every family gets::

    tom-envs false-belief --policy tracker,reality,random --episodes 50
"""

from __future__ import annotations

from typing import Any

from benchmarks.family import Benchmark, EnvCell, register


def _tracker(cell: EnvCell) -> Any:
    from false_belief.agents import BeliefTracker

    return BeliefTracker()


def _reality(cell: EnvCell) -> Any:
    from false_belief.agents import Reality

    return Reality()


def _random(cell: EnvCell) -> Any:
    from false_belief.agents import RandomBox

    return RandomBox()


BENCHMARK = register(
    Benchmark(
        name="false-belief",
        family="false_belief",
        help="Sally-Anne false belief: where will Sally look (belief tracker, reality floor, random)",
        description=__doc__,
        policies={"tracker": _tracker, "reality": _reality, "random": _random},
        metrics=("return", "tom_accuracy", "accuracy", "false_belief_turns"),
        episodes=20,
    )
)
