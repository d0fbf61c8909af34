"""The matrix games' RL task (``tom-envs rl --env tom/IPD-v0``; docs/rl.md): agents train against
one partner population and are tested against held-out partners, next to the tabular agent
(generalisation to new partners, as Melting Pot evaluates it).

* train split: 004's partners, ``single_action,tit_for_tat`` (one population, drawn per episode);
* test split: every deterministic reactive and cyclic partner of the game that the train split
  does not hold (IPD: suspicious tit-for-tat, best response to last, win-stay-lose-shift, grim
  trigger, alternating), so regret is exact.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Sequence

import gymnasium as gym
from gymnasium.vector import AutoresetMode

import tom_envs
from benchmarks.rl import RLTask, Row
from benchmarks.rl_eval import reference_rows
from benchmarks.runner import env_id_for
from tom_envs.errors import TomEnvsError
from tom_envs.matrix.partners import resolve_partners

HORIZON = 100
TRAIN_PARTNERS = "single_action,tit_for_tat"
#: The populations the held-out partners are drawn from (less the training partners).
HELD_OUT_FROM = "reactive,cyclic"


def _games() -> dict[str, str]:
    """Built-in single-agent game id -> its game name."""
    return {r.id: r.kwargs["game"] for r in tom_envs.REGISTRY.values() if r.family == "matrix"
            and r.kind == "gymnasium" and r.builtin and isinstance(r.kwargs.get("game"), str)
            and r.id == env_id_for("matrix", game=r.kwargs["game"])}


@lru_cache(maxsize=None)
def split_partners(env_id: str, split: str) -> str:
    """The ``partners=`` argument of ``split`` for the game of ``env_id``."""
    game = _games()[env_id]
    if split == "train":
        return TRAIN_PARTNERS
    if split != "test":
        raise TomEnvsError(f"the matrix games' splits are train and test, got {split!r}")
    train = set(resolve_partners(game, TRAIN_PARTNERS).names)
    held_out = [n for n in resolve_partners(game, HELD_OUT_FROM).names if n not in train]
    return ",".join(dict.fromkeys(held_out))


def make_env(env_id: str, split: str) -> Any:
    """The game against the split's partners (one drawn per episode), ``HORIZON`` rounds."""
    return gym.make(env_id, partners=split_partners(env_id, split), horizon=HORIZON)


def make_vec_env(env_id: str, split: str, n_envs: int) -> Any:
    """The native numpy vector env of the split (every partner is an automaton)."""
    return gym.make_vec(env_id, num_envs=n_envs, vectorization_mode="vector_entry_point",
                        partners=split_partners(env_id, split), horizon=HORIZON,
                        autoreset_mode=AutoresetMode.SAME_STEP)


def references(env_id: str, split: str, seeds: Sequence[int]) -> list[Row]:
    """The tabular agent (RMax with its own partner count model) on the same split and episode seeds."""
    from policies.matrix.tabular import TabularRMaxPolicy

    game = _games()[env_id]
    return reference_rows(TASK, env_id, split, seeds,
                          {"tabular": (lambda: TabularRMaxPolicy(game, horizon=HORIZON), "own count model")}, "matrix")


TASK = RLTask(
    env_ids=tuple(_games()),
    make_env=make_env,
    make_vec_env=make_vec_env,
    outcome="regret",
    higher_is_better=False,
    splits={"train": f"partners {TRAIN_PARTNERS} (004's)",
            "test": f"held-out partners: the game's {HELD_OUT_FROM} partners not in the train split"},
    steps=100_000,
    algo_steps={"recurrent_ppo": 30_000},
    horizon=HORIZON,
    hyper={"ppo": {"n_steps": 256, "batch_size": 256},
           "recurrent_ppo": {"n_steps": 128, "batch_size": 512, "n_epochs": 5,
                             "policy_kwargs": {"lstm_hidden_size": 32, "net_arch": [32]}}},
    references=references,
    notes=("regret = ΔFunctional over the 100 rounds (divide by 100 for 004's ΔFunctional/T)",
           "the observation is the last joint action (one-hot): a feed-forward agent is memory-1"),
    unsupported={"tom/MatrixGame-v0": "a custom game needs its payoffs (payoffs=...), which tom-envs rl does not "
                 "take; train on it directly: wrappers.VectorizeObservation(gymnasium.make('tom/MatrixGame-v0', "
                 "payoffs=...)) with any SB3 algorithm (docs/rl.md)"},
)
