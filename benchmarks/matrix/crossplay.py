"""The matrix games' crossplay population (``tom-envs crossplay``, :mod:`benchmarks.crossplay`; docs/crossplay.md).

On ``tom/IPD-Parallel-v0``, ``tom/RPS-Parallel-v0`` and ``tom/IBS-Parallel-v0`` every agent can sit in either
seat; the seat it sits in decides the game it is built for (``player_1`` sees its own action first, so its
agents are built for ``game.transposed()``):

* **scripted** partners of :mod:`tom_envs.matrix.partners` (:data:`SCRIPTED`, five per game) as seat
  policies (:class:`policies.matrix.scripted.PartnerPolicy`); they make no predictions;
* **tabular**: the RMax agent of seed 004 (:class:`policies.matrix.tabular.TabularRMaxPolicy`), which learns
  within each episode and predicts with its partner count model;
* **ppo**: one PPO learner per seat, trained by ``tom-envs rl``'s code (:mod:`benchmarks.rl_train`) on the seat
  of the parallel id against the RL task's train-split partners (:data:`benchmarks.matrix.rl.TASK`), a
  small budget (``--learner-steps``), kept under ``--out/crossplay/learners`` (a rerun loads it); it acts
  greedily and makes no predictions;
* **llm**: with ``--model``, one LLM policy (:func:`policies.matrix.llm.make_llm_policy`, ``--strategy``;
  Social QA by default, which predicts the other seat before acting; with ``--decode score``, LM prompting,
  ``lm``, which scores every action label and then the other seat's labels as its prediction).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from benchmarks.crossplay import Agent, CrossplayError, CrossplayTask, Population
from tom_envs.matrix.games import MatrixGame

#: The scripted agents of each game's population (names of :func:`tom_envs.matrix.partners.partner_names`).
SCRIPTED = {
    "IPD": ("always_defect", "tit_for_tat", "grim_trigger", "win_stay_lose_shift", "uniform_random"),
    "RPS": ("always_rock", "copy_last", "best_response_to_last", "cyclic", "uniform_random"),
    "IBS": ("always_fight", "tit_for_tat", "best_response_to_last", "win_stay_lose_shift", "uniform_random"),
}
ENV_IDS = ("tom/IPD-Parallel-v0", "tom/RPS-Parallel-v0", "tom/IBS-Parallel-v0")
SEATS = ("player_0", "player_1")
#: The learner's training seed (one learner per seat).
LEARNER_SEED = 0


def _game(env_id: str) -> MatrixGame:
    import tom_envs
    from tom_envs.matrix.games import get_game

    return get_game(tom_envs.REGISTRY[env_id].kwargs["game"])


def seat_game(game: MatrixGame, seat: str) -> MatrixGame:
    """The game as ``seat`` sees it (its own actions are the rows)."""
    return game if seat == SEATS[0] else game.transposed()


# ---------------------------------------------------------------------- builders (module level: picklable)
def _scripted(game: MatrixGame, name: str, seat: str) -> Any:
    from policies.matrix.scripted import PartnerPolicy

    return PartnerPolicy(name, seat_game(game, seat))


def _tabular(game: MatrixGame, horizon: int, seat: str) -> Any:
    from policies.matrix.tabular import TabularRMaxPolicy

    return TabularRMaxPolicy(seat_game(game, seat), horizon=horizon)


class VectorSeat:
    """An SB3 policy on the raw seat observation: turns it into the vector the model was trained on."""

    makes_predictions = False

    def __init__(self, inner: Any, space: Any) -> None:
        from wrappers.vectorize import Vectorizer

        self.inner, self.vector = inner, Vectorizer(space)

    def reset(self, seed: int | None = None) -> None:
        self.inner.reset(seed)

    def act(self, observation: Any, info: dict) -> int:
        return int(self.inner.act(self.vector(observation), info))


@functools.lru_cache(maxsize=16)
def _load(path: str) -> Any:
    from stable_baselines3 import PPO

    return PPO.load(path, device="cpu")


def _learner(paths: tuple[tuple[str, str], ...], env_id: str, seat: str) -> Any:
    import tom_envs
    from policies.sb3 import SB3Policy

    par = tom_envs.make(env_id)
    return VectorSeat(SB3Policy(_load(dict(paths)[seat]), name="ppo"), par.observation_space(seat))


def _llm(spec: Any, game: MatrixGame, horizon: int, seat: str) -> Any:
    from policies.matrix.llm import make_llm_policy

    return make_llm_policy(spec.strategy, spec.backend, seat_game(game, seat), **_llm_options(spec, horizon))


def _llm_options(spec: Any, horizon: int) -> dict[str, Any]:
    return {"horizon": horizon, **spec.caller_settings()}


# ---------------------------------------------------------------------- the population
def learner(env_id: str, pop: Population) -> Agent:
    """The PPO learner: one model per seat, trained (or loaded) now."""
    from benchmarks.matrix.rl import TASK as RL_TASK
    from benchmarks.rl_train import Training, train

    paths, keys = [], {}
    for seat in SEATS:
        training = Training(
            env_id,
            "ppo",
            pop.learner_steps,
            LEARNER_SEED,
            pop.learner_envs,
            {"seat": seat},
            dict(RL_TASK.hyper.get("ppo", {})),
        )
        train(RL_TASK, training, Path(pop.out) / "learners", pop.log)
        paths.append((seat, str(training.path(Path(pop.out) / "learners"))))
        keys[seat] = training.key
    return Agent(
        "ppo",
        "learner",
        {"algo": "ppo", "steps": pop.learner_steps, "models": keys},
        functools.partial(_learner, tuple(paths), env_id),
    )


def population(env_id: str, pop: Population) -> list[Agent]:
    """The agents of ``env_id``: :data:`SCRIPTED`, tabular, the PPO learner and, with an LLM spec, the LLM."""
    game = _game(env_id)
    agents = [
        Agent(name, "scripted", {"partner": name}, functools.partial(_scripted, game, name))
        for name in SCRIPTED[game.name]
    ]
    agents.append(Agent("tabular", "tabular", {"horizon": pop.horizon}, functools.partial(_tabular, game, pop.horizon)))
    if pop.learner_steps:
        agents.append(learner(env_id, pop))
    if pop.llm is not None:
        from policies.matrix.llm import make_llm_policy

        probe = make_llm_policy(pop.llm.strategy, pop.llm.backend, game, **_llm_options(pop.llm, pop.horizon))
        if pop.llm.decode == "score" and probe.strategy.generates:
            raise CrossplayError(
                f"--decode score chooses by log-probability, but the matrix strategy {pop.llm.strategy!r} "
                "generates replies; give --strategy lm (or leave --strategy out), or --decode generate"
            )
        agents.append(
            Agent(
                f"llm_{pop.llm.strategy}",
                "llm",
                {**pop.llm.identity, **probe.result_params},  # the strategy says how it decides
                functools.partial(_llm, pop.llm, game, pop.horizon),
            )
        )
    return agents


TASK = CrossplayTask(
    env_ids=ENV_IDS,
    population=population,
    horizon=100,
    notes=("returns are each seat's summed payoff over the horizon; a match is won by the higher return",),
)
