"""Scripted agents for the persuasion family (seed 001).

Live persuasion v1 (``tom/Persuasion-v1`` and the persuader seat of ``tom/Persuasion-TwoSeat-v1``):
:class:`MindRandomPersuader`, :class:`OpenLoopPersuader` (the family's best fixed plan),
:class:`TrackingPersuader` (exact posterior, greedy rule), :class:`BayesPersuader` (the exact
Bayes-optimal fair persuader) and :class:`MindOraclePersuader` (sees the state); they predict the
persuadee's ``desire``, ``belief`` and ``intention``. :class:`SimulatedMindPersuadee` fills the
persuadee seat of the v1 two-seat env. :class:`RandomAnswerer` answers ``tom/PersuasiveToM-v1``
questions.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from policies.base import BasePolicy
from tom_envs.errors import InvalidAction
from tom_envs.persuasion.principles import PRINCIPLES, InvalidPersona

N_PRINCIPLES = len(PRINCIPLES)


class RandomAnswerer(BasePolicy):
    """Answers a QA question with a uniformly random shown option (001's Random Guess row)."""

    def act(self, observation: Any, info: dict) -> int:
        return int(self.rng.integers(int(observation["n_choices"])))


class _MindPolicy(BasePolicy):
    """Shared bookkeeping of the v1 persuaders: the family's model from the observation, and the exact
    posterior over the persuadee's hidden state given the dialogue (opening reply, each strategy the
    persuadee read and its reply) -- the filter every fair tracker uses.

    The observation is ``PersuasionMindEnv``'s: (tone, topic, heard, family index, turns left); the
    family names come from ``info["family"]`` at reset and the budget from ``info["horizon"]``.
    A reply the model gives probability 0 (a persuadee that is none of the model's personas: an LLM in
    the persuadee seat of the two-seat env) is counted in ``ruled_out`` and leaves the belief as if it had
    not been heard (:meth:`_unseen`), where the filter would otherwise have nothing to condition on.
    """

    makes_predictions = True

    def __init__(self) -> None:
        super().__init__()
        self._clear()

    def _clear(self) -> None:
        self.model: Any = None
        self.belief: np.ndarray | None = None
        self.horizon = 0
        self._turn = -1
        self.version = 1
        self.ruled_out = 0

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._clear()

    def _sync(self, observation: Any, info: dict) -> int:
        """Bring the belief up to the current turn; returns the turn (0-based)."""
        from tom_envs.persuasion.mind import obs_index

        obs = np.asarray(observation)
        turn = int(info["turn"])
        if self.model is None or turn == 0 and self._turn != 0:
            self.model = _model(info)
            self.version = int(info.get("version", 1))
            self.horizon = int(info["horizon"])
            self.ruled_out = 0
            try:
                self.belief = self.model.open_belief(obs_index(int(obs[0]), int(obs[1])))
            except InvalidPersona:  # a persuadee off the model (an LLM, a person): the opening tells nothing
                self.belief = self._unseen(None, None)
            self._turn = 0
        elif turn == self._turn + 1:
            try:
                self.belief = self.model.update(self.belief, int(obs[2]), obs_index(int(obs[0]), int(obs[1])))
            except InvalidPersona:  # a reply the model rules out: the belief moves as if it had not been heard
                self.belief = self._unseen(self.belief, int(obs[2]))
            self._turn = turn
        elif turn != self._turn:
            raise InvalidAction(
                f"{type(self).__name__} missed a turn (at turn {self._turn}, shown turn {turn}); "
                "hand it every observation of the episode"
            )
        return turn

    def _unseen(self, belief: np.ndarray | None, strategy: int | None) -> np.ndarray:
        """The belief after a reply the model gives probability 0 (counted in ``ruled_out``): the prior at the
        opening, else the prediction of the next state without the reply (the prior if even that is empty)."""
        self.ruled_out += 1
        if belief is not None:
            nxt = np.asarray(self.model.joint(belief, strategy)).sum(axis=1)
            if nxt.sum() > 0:
                return nxt / nxt.sum()
        prior = np.asarray(self.model.initial, dtype=float)
        return prior / prior.sum()

    def marginal(self, target: str) -> np.ndarray:
        from tom_envs.persuasion.mind import distribution

        return distribution(self.belief, self.model, target)

    def predict(self, observation: Any, info: dict) -> dict[str, int]:
        """The most probable desire, belief and intention under the posterior."""
        self._sync(observation, info)
        return {t: int(np.argmax(self.marginal(t))) for t in ("desire", "belief", "intention")}


def _model(info: dict) -> Any:
    """The compiled model of the episode's family, of the version ``info["version"]`` names (1 when absent:
    ``tom/Persuasion-v1``'s infos carry none)."""
    from tom_envs.persuasion.versions import version_for

    version = version_for(info.get("version", 1))
    return version.model(version.family_named(info["family"]))


def _references(model: Any, horizon: int, version: int) -> Any:
    from tom_envs.persuasion.versions import version_for

    return version_for(version).references(model, horizon)


def _planner(model: Any, horizon: int, version: int) -> Any:
    from tom_envs.persuasion.versions import version_for

    return version_for(version).planner(model, horizon)


class MindRandomPersuader(_MindPolicy):
    """A uniformly random principle each turn; uniformly random desire (no/considering), belief and intention."""

    def act(self, observation: Any, info: dict) -> int:
        return int(self.rng.integers(N_PRINCIPLES))

    def predict(self, observation: Any, info: dict) -> dict[str, int]:
        return {
            "desire": int(self.rng.integers(2)),
            "belief": int(self.rng.integers(2)),
            "intention": int(self.rng.integers(5)),
        }


class OpenLoopPersuader(_MindPolicy):
    """The best fixed plan of principles for the family (exact, :func:`tom_envs.persuasion.planning.open_loop`),
    played whatever the persuadee says; it predicts the prior's most probable state (no tracking)."""

    def act(self, observation: Any, info: dict) -> int:
        turn = self._sync(observation, info)
        return _references(self.model, self.horizon, self.version).plan[turn]

    def predict(self, observation: Any, info: dict) -> dict[str, int]:
        from tom_envs.persuasion.mind import distribution

        self._sync(observation, info)
        return {
            t: int(np.argmax(distribution(self.model.initial, self.model, t)))
            for t in ("desire", "belief", "intention")
        }


class TrackingPersuader(_MindPolicy):
    """A scripted belief tracker: the exact posterior over the hidden state, then a one-line rule --
    liking when the persuadee is more likely wary than trusting, else the principle that answers
    its most probable concern. Not optimal (no lookahead), but it reads the dialogue.

    Args:
        wary_threshold: the posterior probability of ``wary`` above which it builds trust first.
    """

    def __init__(self, wary_threshold: float = 0.5) -> None:
        super().__init__()
        self.wary_threshold = float(wary_threshold)

    def act(self, observation: Any, info: dict) -> int:
        from tom_envs.persuasion.mind import LIKING, WARY

        self._sync(observation, info)
        if self.marginal("belief")[WARY] > self.wary_threshold:
            return LIKING
        return int(np.argmax(self.marginal("intention")))  # concern c is answered by principle c


class BayesPersuader(_MindPolicy):
    """The Bayes-optimal fair persuader: the exact posterior and the exact expectimax plan over it
    (v1: :class:`tom_envs.persuasion.planning.BayesPlanner`; zero expected regret by construction), or on v2
    the lookahead over the point-based lower bound (:class:`tom_envs.persuasion.planning_v2.PointPlanner`:
    it achieves at least ``bayes_success``, within ``bayes_upper - bayes_success`` of the optimum)."""

    def act(self, observation: Any, info: dict) -> int:
        turn = self._sync(observation, info)
        return _planner(self.model, self.horizon, self.version).action(self.belief, turn)


class MindOraclePersuader(BasePolicy):
    """Knows the persona and sees the hidden state (``PersuasionMindEnv(expose_state=True)``): plays the
    state-DP optimum and predicts the truth. The value-of-information ceiling, not a fair agent."""

    makes_predictions = True
    env_kwargs = {"expose_state": True}

    def act(self, observation: Any, info: dict) -> int:
        from tom_envs.persuasion.planning import oracle_for

        if "state_index" not in info:
            raise InvalidAction(
                "MindOraclePersuader reads the hidden state: make the env with expose_state=True "
                "(MindOraclePersuader.env_kwargs)"
            )
        table = oracle_for(_model(info), int(info["horizon"]))
        return table.action(int(info["turn"]), int(info["state_index"]))

    def predict(self, observation: Any, info: dict) -> dict[str, int]:
        if "state" not in info:
            raise InvalidAction("MindOraclePersuader needs expose_state=True")
        return {k: int(info["state"][k]) for k in ("desire", "belief", "intention")}


class EchoPersuader(MindRandomPersuader):
    """Model-free "echo" (issue 27): liking after a cold reply; else the principle that answers the
    concern the persuadee voiced last; else commitment. It reads only the last reply (no model, no
    memory); predictions are random (it keeps no state)."""

    def act(self, observation: Any, info: dict) -> int:
        from tom_envs.persuasion.mind import COLD, LIKING

        obs = np.asarray(observation)
        tone, topic = int(obs[0]), int(obs[1])
        if tone == COLD:
            return LIKING
        return topic - 1 if topic else 4  # concern c is answered by principle c; 4 commitment


class EchoMemoryPersuader(MindRandomPersuader):
    """Model-free "echo with memory": liking after a cold reply; else the principle answering the concern
    voiced most often so far (ties: the latest), skipping a principle that just drew no warmth twice in a row;
    else the family-free default commitment. Counts words, keeps no model of the persuadee."""

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._counts = np.zeros(5)
        self._last: list[int] = []

    def act(self, observation: Any, info: dict) -> int:
        from tom_envs.persuasion.mind import COLD, LIKING, WARM

        obs = np.asarray(observation)
        tone, topic = int(obs[0]), int(obs[1])
        if int(info["turn"]) == 0:
            self._counts, self._last = np.zeros(5), []
        if tone == WARM:
            self._counts[:] = 0  # an argument landed: that concern is settled, listen afresh
        if topic:
            self._counts[topic - 1] += 1 + 0.01 * int(info["turn"])
        if tone == COLD:
            choice = LIKING
        elif self._counts.max() > 0:
            order = np.argsort(-self._counts, kind="stable")
            stale = len(self._last) >= 2 and self._last[-1] == self._last[-2] and tone != WARM
            choice = int(order[1] if stale and self._counts[order[1]] > 0 else order[0])
        else:
            choice = 4
        self._last.append(choice)
        return choice


MIND_PERSUADERS = {
    "random": MindRandomPersuader,
    "echo": EchoPersuader,
    "echo-memory": EchoMemoryPersuader,
    "open-loop": OpenLoopPersuader,
    "tracking": TrackingPersuader,
    "bayes": BayesPersuader,
    "oracle": MindOraclePersuader,
}


class SimulatedMindPersuadee(BasePolicy):
    """Fills the persuadee seat of ``tom/Persuasion-TwoSeat-v1``: it replies as its mind does (the
    env's ``FAITHFUL`` reply, drawn by the persona's dynamics), and predicts that the persuader's next
    line answers the concern it voiced last (else repeats the strategy it heard last)."""

    makes_predictions = True

    def act(self, observation: Any, info: dict) -> int:
        from tom_envs.persuasion.mind_two_seat import FAITHFUL

        return FAITHFUL

    def predict(self, observation: Any, info: dict) -> dict[str, int]:
        obs = np.asarray(observation)
        topic, heard = int(obs[1]), int(obs[2])
        return {"strategy": topic - 1 if topic else (heard if heard <= N_PRINCIPLES else 0)}


__all__ = [
    "BayesPersuader",
    "EchoMemoryPersuader",
    "EchoPersuader",
    "MIND_PERSUADERS",
    "MindOraclePersuader",
    "MindRandomPersuader",
    "OpenLoopPersuader",
    "RandomAnswerer",
    "SimulatedMindPersuadee",
    "TrackingPersuader",
]
