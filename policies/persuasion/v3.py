"""The reference persuaders of live persuasion v3 (``tom/Persuasion-v3``), each the policy behind one exact
reference of :mod:`tom_envs.persuasion.planning_v3`:

* :class:`BayesPersuaderV3`: the Bayes-optimal fair persuader (exact expectimax over the replies' counts);
  predicts the posterior's likelier source and stake.
* :class:`MemorylessPersuaderV3`: the exact best memory-less persuader -- its act depends on the last reply
  and the turn alone, so it keeps no state between turns; predicts from the last reply only.
* :class:`EchoPersuaderV3`: listens to the last turn, then pitches what the last reply said.
* :class:`OpenLoopPersuaderV3`: the best plan that ignores every reply.
* :class:`OraclePersuaderV3`: sees the traits (``expose_state=True``): the ceiling, not a fair agent.
* :class:`RandomPersuaderV3`: uniform over the five acts every turn; uniform guesses of the traits.

:data:`V3_PERSUADERS` names them as ``tom-envs persuasion --env live --live-env tom/Persuasion-v3`` does.

All read the family and the turn budget from the env's info (``family``, ``horizon``, ``turn``) and the
reply from ``observation[0]``; they plan with the built-in v3 families, or with ``families`` (name ->
:class:`~tom_envs.persuasion.mind_v3.FamilyV3`, e.g. a split's families with its personas only).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from policies.base import BasePolicy
from tom_envs.errors import InvalidAction


class _V3Policy(BasePolicy):
    """Finds the episode's family: ``families[info["family"]]`` when given, else the built-in one."""

    def __init__(self, families: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        self.families = dict(families or {})

    def _model_and_horizon(self, info: dict) -> tuple[Any, int]:
        from tom_envs.persuasion.mind_v3 import family_v3_named, model_v3_for

        name = info["family"]
        family = self.families[name] if name in self.families else family_v3_named(name)
        return model_v3_for(family), int(info["horizon"])


def _marginals(model: Any, belief: np.ndarray) -> dict[str, int]:
    """The likelier source and stake under an (unnormalised) belief over the model's types."""
    out = {}
    for k, target in ((1, "source"), (2, "stake")):
        mass = [belief[[i for i, t in enumerate(model.types) if t[k] == v]].sum() for v in (0, 1)]
        out[target] = int(np.argmax(mass))
    return out


class BayesPersuaderV3(_V3Policy):
    """The exact Bayes-optimal fair persuader of v3 (zero expected regret by construction)."""

    makes_predictions = True

    def __init__(self, families: Mapping[str, Any] | None = None) -> None:
        super().__init__(families)
        self._counts: list[int] = []
        self._turn = -1

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._counts, self._turn = [], -1

    def _sync(self, observation: Any, info: dict) -> tuple[Any, int]:
        from tom_envs.persuasion.mind_v3 import N_CUES
        from tom_envs.persuasion.planning_v3 import bayes_table

        model, horizon = self._model_and_horizon(info)
        turn, reply = int(info["turn"]), int(np.asarray(observation)[0])
        if turn == 0 and self._turn != 0:
            self._counts, self._turn = [0] * N_CUES, 0
            self._counts[reply] += 1
        elif turn == self._turn + 1:
            self._counts[reply] += 1
            self._turn = turn
        elif turn != self._turn:
            raise InvalidAction(
                f"{type(self).__name__} missed a turn (at turn {self._turn}, shown turn {turn}); hand "
                "it every observation of the episode"
            )
        return bayes_table(model, horizon), turn

    def act(self, observation: Any, info: dict) -> int:
        table, turn = self._sync(observation, info)
        return table.act(turn, tuple(self._counts))

    def predict(self, observation: Any, info: dict) -> dict[str, int]:
        table, turn = self._sync(observation, info)
        return _marginals(table.model, table.belief(turn, tuple(self._counts)))


class MemorylessPersuaderV3(_V3Policy):
    """The exact best memory-less persuader: ``table[turn][last reply]`` (:func:`memoryless_table`). It keeps
    nothing between calls; its predictions use the last reply alone."""

    makes_predictions = True

    def act(self, observation: Any, info: dict) -> int:
        from tom_envs.persuasion.planning_v3 import memoryless_table

        model, horizon = self._model_and_horizon(info)
        return memoryless_table(model, horizon).act(int(info["turn"]), int(np.asarray(observation)[0]))

    def predict(self, observation: Any, info: dict) -> dict[str, int]:
        model, _ = self._model_and_horizon(info)
        reply = int(np.asarray(observation)[0])
        return _marginals(model, model.prior * model.cue[:, reply] if reply < model.cue.shape[1] else model.prior)


class EchoPersuaderV3(MemorylessPersuaderV3):
    """Listens until the last turn, then pitches the last reply's value for the trait it spoke of and the prior's
    likelier value for the other (:func:`~tom_envs.persuasion.planning_v3.echo_acts`)."""

    def act(self, observation: Any, info: dict) -> int:
        from tom_envs.persuasion.planning_v3 import echo_acts

        model, horizon = self._model_and_horizon(info)
        return echo_acts(model, horizon)[int(info["turn"])][int(np.asarray(observation)[0])]


class OpenLoopPersuaderV3(_V3Policy):
    """The best open-loop plan (found by enumerating every plan): the replies are never read."""

    def act(self, observation: Any, info: dict) -> int:
        from tom_envs.persuasion.planning_v3 import open_loop_table

        model, horizon = self._model_and_horizon(info)
        return open_loop_table(model, horizon)[1][int(info["turn"])]


class OraclePersuaderV3(BasePolicy):
    """Sees the traits (``expose_state=True``): pitches the persuadee's own pitch at once; predicts the truth."""

    makes_predictions = True
    env_kwargs = {"expose_state": True}

    def _state(self, info: dict) -> tuple[int, int]:
        if "source" not in info:
            raise InvalidAction(
                "OraclePersuaderV3 reads the traits: make the env with expose_state=True (OraclePersuaderV3.env_kwargs)"
            )
        return int(info["source"]), int(info["stake"])

    def act(self, observation: Any, info: dict) -> int:
        from tom_envs.persuasion.mind_v3 import pitch_action

        return pitch_action(*self._state(info))

    def predict(self, observation: Any, info: dict) -> dict[str, int]:
        source, stake = self._state(info)
        return {"source": source, "stake": stake}


class RandomPersuaderV3(BasePolicy):
    """Uniform over the five acts every turn (its exact success is :func:`~tom_envs.persuasion.planning_v3.random_value`);
    predicts each trait by a fair coin (its policy seed, never the env's)."""

    makes_predictions = True

    def act(self, observation: Any, info: dict) -> int:
        from tom_envs.persuasion.mind_v3 import N_ACTIONS_V3

        return int(self.rng.integers(N_ACTIONS_V3))

    def predict(self, observation: Any, info: dict) -> dict[str, int]:
        return {"source": int(self.rng.integers(2)), "stake": int(self.rng.integers(2))}


#: The v3 reference persuaders by name, in the order the live table shows them (each has an exact value:
#: :class:`~tom_envs.persuasion.planning_v3.ReferencesV3`'s field of the same name, ``open-loop`` -> ``open_loop``).
V3_PERSUADERS: dict[str, type[BasePolicy]] = {
    "random": RandomPersuaderV3,
    "open-loop": OpenLoopPersuaderV3,
    "echo": EchoPersuaderV3,
    "memoryless": MemorylessPersuaderV3,
    "bayes": BayesPersuaderV3,
    "oracle": OraclePersuaderV3,
}

__all__ = [
    "V3_PERSUADERS",
    "BayesPersuaderV3",
    "EchoPersuaderV3",
    "MemorylessPersuaderV3",
    "OpenLoopPersuaderV3",
    "OraclePersuaderV3",
    "RandomPersuaderV3",
]
