"""Scripted agents for the persuasion family (seed 001).

Live persuasion v1 (``tom/Persuasion-v1`` and the persuader seat of ``tom/Persuasion-TwoSeat-v1``):
:class:`MindRandomPersuader`, :class:`OpenLoopPersuader` (the family's best fixed plan),
:class:`TrackingPersuader` (exact posterior, greedy rule), :class:`BayesPersuader` (the exact
Bayes-optimal fair persuader) and :class:`MindOraclePersuader` (sees the state); they predict the
persuadee's ``desire``, ``belief`` and ``intention``. :class:`SimulatedMindPersuadee` fills the
persuadee seat of the v1 two-seat env. The v0 agents (:class:`RandomPersuader`,
:class:`BanditPersuader`, :class:`OraclePersuader`, :class:`FixedPrinciplePersuader`,
:class:`SimulatedPersuadee`) play the legacy v0 envs (``tom_envs.persuasion.live.PersuasionEnv``,
no longer registered, and ``tom/Persuasion-TwoSeat-v0``). :class:`RandomAnswerer` answers
``tom/PersuasiveToM-v1`` questions.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from policies.base import BasePolicy
from tom_envs.errors import InvalidAction
from tom_envs.persuasion.personas import NEUTRAL, NO, NONE, PRINCIPLES, UNMOVED, YES, resolve_personas
from tom_envs.persuasion.persuadee import Persuadee
from tom_envs.persuasion.replies import AGREEING, ANNOYED, CURIOUS, DEFLECTING, DISMISSIVE, HEDGING, SILENT

N_PRINCIPLES = len(PRINCIPLES)
#: How promising each reply tone is (the bandit's reward) and the desire/attitude it most suggests.
CUE_VALUE = {SILENT: 0.0, ANNOYED: 0.0, DISMISSIVE: 0.1, DEFLECTING: 0.3, HEDGING: 0.5, CURIOUS: 0.8, AGREEING: 1.0}
CUE_GUESS = {SILENT: (NO, UNMOVED), ANNOYED: (NO, 0), DISMISSIVE: (NO, UNMOVED), DEFLECTING: (NEUTRAL, 0),
             HEDGING: (NEUTRAL, UNMOVED), CURIOUS: (NEUTRAL, 2), AGREEING: (YES, 2)}


class RandomPersuader(BasePolicy):
    """A uniformly random principle each turn; uniformly random desire/attitude guesses."""

    makes_predictions = True

    def act(self, observation: Any, info: dict) -> int:
        return int(self.rng.integers(N_PRINCIPLES))

    def predict(self, observation: Any, info: dict) -> dict[str, int]:
        return {"desire": int(self.rng.integers(3)), "attitude": int(self.rng.integers(3))}


class FixedPrinciplePersuader(BasePolicy):
    """Always the same principle; makes no prediction."""

    def __init__(self, principle: int | str) -> None:
        super().__init__()
        if isinstance(principle, str):
            if principle not in PRINCIPLES:
                raise InvalidAction(f"unknown principle {principle!r}; choose from {', '.join(PRINCIPLES)}")
            principle = PRINCIPLES.index(principle)
        if isinstance(principle, bool) or not isinstance(principle, (int, np.integer)) or not 0 <= principle < N_PRINCIPLES:
            raise InvalidAction(f"a principle is an index in 0..{N_PRINCIPLES - 1} or a name, got {principle!r}")
        self.principle = int(principle)

    def act(self, observation: Any, info: dict) -> int:
        return self.principle


class BanditPersuader(BasePolicy):
    """UCB1 over the principles, rewarded by how promising the next reply sounds.

    Within an episode it learns which principles this persuadee answers warmly (reply tones are
    scored by :data:`CUE_VALUE`); it predicts the desire and attitude the last reply's tone most
    suggests -- a simple literal-ToM reading of the observation.

    Args:
        exploration: the UCB bonus weight.
    """

    makes_predictions = True

    def __init__(self, exploration: float = 0.5) -> None:
        super().__init__()
        self.exploration = float(exploration)
        self._clear()

    def _clear(self) -> None:
        self.counts = np.zeros(N_PRINCIPLES)
        self.totals = np.zeros(N_PRINCIPLES)
        self._last: int | None = None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._clear()

    def act(self, observation: Any, info: dict) -> int:
        untried = np.flatnonzero(self.counts == 0)
        if untried.size:
            choice = int(self.rng.choice(untried))
        else:
            n = self.counts.sum()
            ucb = self.totals / self.counts + self.exploration * np.sqrt(2 * math.log(n) / self.counts)
            choice = int(np.argmax(ucb))
        self._last = choice
        return choice

    def observe(self, observation: Any, reward: float, terminated: bool, truncated: bool, info: dict) -> None:
        if self._last is not None:
            self.counts[self._last] += 1
            self.totals[self._last] += CUE_VALUE[int(np.asarray(observation)[0])]

    def predict(self, observation: Any, info: dict) -> dict[str, int]:
        desire, attitude = CUE_GUESS[int(np.asarray(observation)[0])]
        return {"desire": desire, "attitude": attitude}


class OraclePersuader(BasePolicy):
    """The optimal persuader: reads the persona's oracle and the true desire from ``info``.

    Zero regret by construction (it is the benchmark's upper bound, not a fair agent); its
    predictions are the true state, so literal ToM is 100 %. It needs an env made with
    :attr:`env_kwargs` (``PersuasionEnv(expose_state=True)``), whose infos carry the hidden state.
    """

    makes_predictions = True
    #: what the env must be made with for this policy (the oracle reads the hidden state)
    env_kwargs = {"expose_state": True}

    def __init__(self) -> None:
        super().__init__()
        self._oracle = None

    def act(self, observation: Any, info: dict) -> int:
        if "oracle" in info:
            self._oracle = info["oracle"]
        state = _exposed_state(info)
        if self._oracle is None:
            raise InvalidAction("OraclePersuader needs the info of reset first: it carries the persona's oracle")
        return self._oracle.action(info["turn"], state["desire"], info["previous_principle"])

    def predict(self, observation: Any, info: dict) -> dict[str, int]:
        return _exposed_state(info)


def _exposed_state(info: dict) -> dict[str, int]:
    if "persuadee" not in info:
        raise InvalidAction("OraclePersuader reads the hidden state: make the env with PersuasionEnv(expose_state=True) "
                            "(OraclePersuader.env_kwargs); by default the env keeps the persuadee's state hidden")
    return dict(info["persuadee"])


class RandomAnswerer(BasePolicy):
    """Answers a QA question with a uniformly random shown option (001's Random Guess row)."""

    def act(self, observation: Any, info: dict) -> int:
        return int(self.rng.integers(int(observation["n_choices"])))


class SimulatedPersuadee(BasePolicy):
    """Fills the persuadee seat of ``PersuasionAECEnv`` with a persona's stochastic dynamics.

    Its stance is the desire of a :class:`~tom_envs.persuasion.persuadee.Persuadee` -- the
    persuadee of ``PersuasionEnv``, the same dynamics -- moved by the principle in the
    observation. The persona is drawn at each reset from ``personas`` (default: the six
    archetypes).
    """

    def __init__(self, personas: Any = None) -> None:
        super().__init__()
        self.distribution = resolve_personas(personas)
        self.persuadee: Persuadee | None = None

    @property
    def persona(self) -> Any:
        """The persona drawn at the last reset (None before the first)."""
        return None if self.persuadee is None else self.persuadee.persona

    @property
    def desire(self) -> int:
        """The current desire (the stance it states); no before the first reset."""
        return NO if self.persuadee is None else self.persuadee.desire

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.persuadee = Persuadee(self.distribution.draw(self.rng), self.rng)

    def act(self, observation: Any, info: dict) -> int:
        if self.persuadee is None:
            self.reset(None)
        principle, previous = int(observation[0]), int(observation[1])
        if principle != NONE:
            self.persuadee.hear(principle, self.rng, previous=previous)  # type: ignore[union-attr]
        return self.desire


PERSUADERS = {"random": RandomPersuader, "bandit": BanditPersuader, "oracle": OraclePersuader}



# ---------------------------------------------------------------------- live persuasion v1 (hidden BDI state)
class _MindPolicy(BasePolicy):
    """Shared bookkeeping of the v1 persuaders: the family's model from the observation, and the exact
    posterior over the persuadee's hidden state given the dialogue (opening reply, each strategy the
    persuadee read and its reply) -- the filter every fair tracker uses.

    The observation is ``PersuasionMindEnv``'s: (tone, topic, heard, family index, turns left); the
    family names come from ``info["family"]`` at reset and the budget from ``info["horizon"]``.
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

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._clear()

    def _sync(self, observation: Any, info: dict) -> int:
        """Bring the belief up to the current turn; returns the turn (0-based)."""
        from tom_envs.persuasion.mind import model_for, obs_index
        from tom_envs.persuasion.scenarios import family_named

        obs = np.asarray(observation)
        turn = int(info["turn"])
        if self.model is None or turn == 0 and self._turn != 0:
            self.model = model_for(family_named(info["family"]))
            self.horizon = int(info["horizon"])
            self.belief = self.model.open_belief(obs_index(int(obs[0]), int(obs[1])))
            self._turn = 0
        elif turn == self._turn + 1:
            self.belief = self.model.update(self.belief, int(obs[2]), obs_index(int(obs[0]), int(obs[1])))
            self._turn = turn
        elif turn != self._turn:
            raise InvalidAction(f"{type(self).__name__} missed a turn (at turn {self._turn}, shown turn {turn}); "
                                "hand it every observation of the episode")
        return turn

    def marginal(self, target: str) -> np.ndarray:
        from tom_envs.persuasion.mind import distribution

        return distribution(self.belief, self.model, target)

    def predict(self, observation: Any, info: dict) -> dict[str, int]:
        """The most probable desire, belief and intention under the posterior."""
        self._sync(observation, info)
        return {t: int(np.argmax(self.marginal(t))) for t in ("desire", "belief", "intention")}


class MindRandomPersuader(_MindPolicy):
    """A uniformly random principle each turn; uniformly random desire (no/considering), belief and intention."""

    def act(self, observation: Any, info: dict) -> int:
        return int(self.rng.integers(N_PRINCIPLES))

    def predict(self, observation: Any, info: dict) -> dict[str, int]:
        return {"desire": int(self.rng.integers(2)), "belief": int(self.rng.integers(2)),
                "intention": int(self.rng.integers(5))}


class OpenLoopPersuader(_MindPolicy):
    """The best fixed plan of principles for the family (exact, :func:`tom_envs.persuasion.planning.open_loop`),
    played whatever the persuadee says; it predicts the prior's most probable state (no tracking)."""

    def act(self, observation: Any, info: dict) -> int:
        from tom_envs.persuasion.planning import references

        turn = self._sync(observation, info)
        return references(self.model, self.horizon).plan[turn]

    def predict(self, observation: Any, info: dict) -> dict[str, int]:
        from tom_envs.persuasion.mind import distribution

        self._sync(observation, info)
        return {t: int(np.argmax(distribution(self.model.initial, self.model, t))) for t in ("desire", "belief", "intention")}


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
    (:class:`tom_envs.persuasion.planning.BayesPlanner`); zero expected regret by construction."""

    def act(self, observation: Any, info: dict) -> int:
        from tom_envs.persuasion.planning import planner_for

        turn = self._sync(observation, info)
        return planner_for(self.model, self.horizon).action(self.belief, turn)


class MindOraclePersuader(BasePolicy):
    """Knows the persona and sees the hidden state (``PersuasionMindEnv(expose_state=True)``): plays the
    state-DP optimum and predicts the truth. The value-of-information ceiling, not a fair agent."""

    makes_predictions = True
    env_kwargs = {"expose_state": True}

    def act(self, observation: Any, info: dict) -> int:
        from tom_envs.persuasion.mind import model_for
        from tom_envs.persuasion.planning import oracle_for
        from tom_envs.persuasion.scenarios import family_named

        if "state_index" not in info:
            raise InvalidAction("MindOraclePersuader reads the hidden state: make the env with expose_state=True "
                                "(MindOraclePersuader.env_kwargs)")
        table = oracle_for(model_for(family_named(info["family"])), int(info["horizon"]))
        return table.action(int(info["turn"]), int(info["state_index"]))

    def predict(self, observation: Any, info: dict) -> dict[str, int]:
        if "state" not in info:
            raise InvalidAction("MindOraclePersuader needs expose_state=True")
        return {k: int(info["state"][k]) for k in ("desire", "belief", "intention")}


MIND_PERSUADERS = {"random": MindRandomPersuader, "open-loop": OpenLoopPersuader, "tracking": TrackingPersuader,
                   "bayes": BayesPersuader, "oracle": MindOraclePersuader}



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


__all__ = ["BanditPersuader", "BayesPersuader", "FixedPrinciplePersuader", "MIND_PERSUADERS", "MindOraclePersuader",
           "MindRandomPersuader", "OpenLoopPersuader", "OraclePersuader", "PERSUADERS", "RandomAnswerer",
           "RandomPersuader", "SimulatedMindPersuadee", "SimulatedPersuadee", "TrackingPersuader"]
