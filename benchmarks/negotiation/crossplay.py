"""Negotiation's crossplay population: mediators x parties (``tom-envs crossplay``, :mod:`benchmarks.crossplay`;
docs/crossplay.md).

On ``tom/Negotiation-v1`` (its default case, hopkins_hmo: 3 parties, 5 topics; ``--horizon``: the turn budget,
30 by default, at least 20) the two seats differ: the mediator seat (``mediator_0``) and the parties (every
party of the case, one agent for all of them). Every mediator meets every party agent:

* **mediators**: the scripted mediators of :data:`policies.negotiation.scripted.MEDIATORS` (``none`` never
  intervenes, ``blind``, ``generic``, ``social``; only ``social`` predicts the parties' stances); **ppo**, the
  mediator trained by ``tom-envs rl``'s code (:mod:`benchmarks.rl_train`, the task
  :data:`benchmarks.negotiation.rl.TASK` on this id's ``train`` split, ``--learner-steps``; kept under
  ``--out/crossplay/learners``), which picks a move of :data:`benchmarks.negotiation.rl_moves.MOVES` from the
  features of its own observations (:class:`MovesMediator`, as it trained) and predicts nothing; and, with
  ``--model``, **llm_social** (:class:`policies.negotiation.llm.LLMMediator`, the ``social`` variant, which
  predicts the stances; with ``--decode score`` it chooses its predictions and moves by log-probability);
* **parties**: the env's scripted parties in each conflict mode (``parties_<mode>``: accommodating, avoiding,
  general, competing); they make no prediction of the mediator. LLM parties (``tom-envs negotiation
  --parties llm``) are not in the population: their team reads the whole text env, which the PPO mediator's
  numeric observation rules out in one episode, and every match would need a second LLM episode (below).

An episode's record (:class:`NegotiationPairCell`): the returns (the mediator's reward, the consensus gain over the
episode; the parties' mean reward, their gain in acceptability of the group's plurality attitudes), literal ToM
(the mediator's % of stance cells predicted right, ``wrappers.AECToMRecorder``; None for the parties), the env's
002 metrics, and the match ``scores``: the mediator's consensus gain against the gain the same parties reach on
the same seed with a mediator that never intervenes (the ``none`` mediator, played beside it) -- a mediator wins
a match by adding consensus, the parties win it when the mediator's moves cost consensus, and ``none`` ties.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from benchmarks.crossplay import Agent, CrossplayTask, PairCell, Population, joining, seat_learner
from benchmarks.runner import EpisodeResult

ENV_IDS = ("tom/Negotiation-v1",)
MEDIATOR, PARTIES = "mediator_0", "parties"
SEATS = (MEDIATOR, PARTIES)
#: The scripted mediators (names of ``policies.negotiation.scripted.MEDIATORS``).
SCRIPTED = ("none", "blind", "generic", "social")
#: The party agents: the env's scripted parties in each conflict mode.
MODES = ("accommodating", "avoiding", "general", "competing")
LEARNER_SEED = 0
#: The LLM mediator's variant (``benchmarks.negotiation.cells.LLM_MEDIATORS``).
LLM_VARIANT = "llm-social"


class NegotiationPairCell(PairCell):
    """A mediator (row) with a party agent (column) on the AEC env, played by :func:`benchmarks.runner.play_aec`
    (the mediator's stance predictions scored by the ToM recorder the runner wraps the env in)."""

    def make_env(self) -> dict[str, Any]:
        return {}  # one env per conflict mode and text form, built on first use (:meth:`_env`)

    def _env(self, envs: dict[str, Any], text: bool) -> Any:
        from benchmarks.runner_envs import make_env
        from wrappers import AECTextObservation

        mode = self.col.identity["conflict_mode"]
        if (mode, text) not in envs:
            env = make_env(self.env_id, conflict_mode=mode, turn_budget=self.horizon)
            envs[(mode, text)] = AECTextObservation(env) if text else env
        return envs[(mode, text)]

    def play(self, envs: Any, policy: Any, seed: int) -> EpisodeResult:
        from benchmarks.negotiation.cells import episode_record
        from benchmarks.runner_aec import play_aec
        from policies.negotiation.scripted import make_mediator

        make_mediator_for, _ = policy
        env = self._env(envs, text=self.row.kind == "llm")
        mediator = make_mediator_for(env.unwrapped)
        episode = episode_record(env, play_aec(env, mediator, seed))
        base = env.unwrapped
        parties = float(np.mean(np.asarray(base._stakes()) - np.asarray(base._start_stakes)))
        gain = float(base.tracker.history[-1] - base.tracker.history[0])  # the mediator's reward, unrounded
        if self.row.name == "none":
            par = gain
        else:
            quiet = self._env(envs, text=False)
            play_aec(quiet, make_mediator("none"), seed)
            par = float(quiet.unwrapped.tracker.history[-1] - quiet.unwrapped.tracker.history[0])
        tom = episode.get("tom_accuracy")
        summary = {
            "returns": [gain, parties],
            "tom": [None if tom is None else 100.0 * float(tom), None],
            "scores": [gain, par],
            "rounds": int(base.turn),
            "no_mediator_gain": par,
            "outcome": {
                k: episode.get(k)
                for k in (
                    "cc",
                    "tle",
                    "rl",
                    "me_mean",
                    "mi_mean",
                    "interventions",
                    "success_rate",
                    "deals",
                    "tom_predictions",
                )
            },
        }
        stats = getattr(mediator, "stats", None)  # an LLM mediator's counters (built fresh for the episode)
        return EpisodeResult(
            seed, summary, {}, steps=[], policy_stats={MEDIATOR: dict(stats)} if isinstance(stats, dict) else None
        )

    def check(self, record: dict) -> None:
        ep = record["episode"]
        if len(ep["returns"]) != 2 or len(ep["tom"]) != 2 or len(ep["scores"]) != 2:
            raise ValueError("a seated crossplay record holds two returns, two ToM figures and two match scores")


# ---------------------------------------------------------------------- builders (module level: picklable)
def _scripted(name: str, seat: str) -> Any:
    from policies.negotiation.scripted import make_mediator

    return lambda base: make_mediator(name)


def _parties(mode: str, seat: str) -> dict[str, str]:
    return {"conflict_mode": mode}  # the env's own scripted parties play the party seats


class MovesMediator:
    """The PPO mediator on the raw mediator observation: the features and aimed moves it trained with
    (:class:`benchmarks.negotiation.rl.CaseMix`), from its own observations and the case's public sizes."""

    makes_predictions = False

    def __init__(self, inner: Any, n: int, m: int, s_max: int) -> None:
        from benchmarks.negotiation.rl import N_FEATURES
        from benchmarks.negotiation.rl_moves import N_MOVE_FEATURES
        from gymnasium import spaces
        from wrappers.vectorize import Vectorizer

        self.inner, self.case = inner, (n, m, s_max)
        self.vector = Vectorizer(spaces.Box(0.0, 1.0, (N_FEATURES + N_MOVE_FEATURES,), np.float32))
        self.moves: Any = None

    def reset(self, seed: int | None = None) -> None:
        from benchmarks.negotiation.rl_moves import Moves

        self.inner.reset(seed)
        self.moves = Moves(*self.case)

    def predict(self, observation: Any, info: dict) -> None:
        return None

    def act(self, observation: Any, info: dict) -> Any:
        from benchmarks.negotiation.rl import mediator_features
        from benchmarks.negotiation.rl_moves import MOVES

        self.moves.see(observation)
        features = np.concatenate([mediator_features(np.asarray(observation), *self.case), self.moves.features()])
        code = int(self.inner.act(self.vector(features.astype(np.float32)), info))
        move = None if code == 0 else self.moves.move(MOVES[code - 1])
        if move is None:
            return 0  # a pass, or a move with nothing to aim at (as CaseMix plays it)
        self.moves.intervened()  # every aimed move is an intervention (a strategy dict)
        return move


def _learner_for(path: str, base: Any) -> Any:
    from benchmarks.crossplay import load_ppo
    from policies.sb3 import SB3Policy

    return MovesMediator(SB3Policy(load_ppo(path), name="ppo"), base.n, base.m, base.s_max)


def _learner(path: str, seat: str) -> Any:
    return functools.partial(_learner_for, path)


def _llm_for(spec: Any, base: Any) -> Any:
    from benchmarks.negotiation.parts import llm_mediator_factory

    make = llm_mediator_factory(spec.backend, **spec.caller_settings(), decode=spec.decode)
    return make(LLM_VARIANT, base.scenario)


def _llm(spec: Any, seat: str) -> Any:
    return functools.partial(_llm_for, spec)


# ---------------------------------------------------------------------- the population
def learner(env_id: str, pop: Population) -> Agent:
    """The PPO mediator, trained (or loaded) now on the mediator task's ``train`` split of ``env_id``."""
    from benchmarks.negotiation.rl import TASK as RL_TASK

    return seat_learner(env_id, pop, RL_TASK, _learner, MEDIATOR, LEARNER_SEED)


def _llm_agent(spec: Any) -> Agent:
    return Agent("llm_social", "llm", spec.agent_identity(variant=LLM_VARIANT), functools.partial(_llm, spec), MEDIATOR)


def population(env_id: str, pop: Population) -> list[Agent]:
    """The mediators (:data:`SCRIPTED`, the PPO learner, the LLM) and the party agents (:data:`MODES`)."""
    agents = [
        Agent(name, "scripted", {"mediator": name}, functools.partial(_scripted, name), MEDIATOR) for name in SCRIPTED
    ]
    agents += joining(pop, functools.partial(learner, env_id, pop), _llm_agent)
    agents += [
        Agent(f"parties_{mode}", "scripted", {"conflict_mode": mode}, functools.partial(_parties, mode), PARTIES)
        for mode in MODES
    ]
    return agents


TASK = CrossplayTask(
    env_ids=ENV_IDS,
    population=population,
    seats=SEATS,
    outcome="consensus_gain",
    horizon=30,
    cell=NegotiationPairCell,
    strategy=False,
    horizons=(20, None, "turns (the turn budget)"),
    notes=(
        "mediators in the first seat, the case's parties (one agent) in the second; a match is won by the "
        "mediator when its consensus gain beats the parties' gain with a mediator that never intervenes",
    ),
)
