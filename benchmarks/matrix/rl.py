"""The matrix games' RL tasks (``tom-envs rl --env tom/IPD-v0``; docs/rl.md): agents train against
one partner population and are tested against held-out partners, next to the tabular agent
(generalisation to new partners, as Melting Pot evaluates it).

* train split: 004's partners, ``single_action,tit_for_tat`` (one population, drawn per episode);
* test split: every deterministic reactive and cyclic partner of the game that the train split
  does not hold (IPD: suspicious tit-for-tat, best response to last, win-stay-lose-shift, grim
  trigger, alternating), so regret is exact.

:data:`TASK` trains on every matrix id: the single-agent ids (the native vector env), and one seat
(``--seat player_0``, the default, or ``player_1``) of the two-learner parallel ids
(:class:`PartnerSeat`): the other seat is played by the same split's partners, built for the game
as the trained seat sees it (``game.transposed()`` for ``player_1``), drawn per episode exactly as
the single-agent env draws them, so ``player_0`` of ``tom/IPD-Parallel-v0`` is ``tom/IPD-v0``
seen through the parallel env (same observations, rewards and regret for the same seeds and actions).
The custom-game ids (``tom/MatrixGame-v0``, ``tom/MatrixGame-Parallel-v0``) take their game from
``--env-kwargs`` (``payoffs``, ``action_labels``).
"""

from __future__ import annotations

from typing import Any, Sequence

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode

import tom_envs
from benchmarks.rl import RLTask, Row
from benchmarks.rl_eval import reference_rows
from benchmarks.runner_envs import env_id_for
from tom_envs.errors import TomEnvsError
from tom_envs.matrix.games import MatrixGame
from tom_envs.matrix.oracle import OracleSolution, solve
from tom_envs.matrix.partners import PartnerDistribution, resolve_partners
from tom_envs.matrix.rng import PARTNER_DRAW, episode_base, key_from, round_uniforms, uniform
from tom_envs.tom import ToMSpec
from wrappers.parallel_seat import ParallelSeat

HORIZON = 100
TRAIN_PARTNERS = "single_action,tit_for_tat"
#: The populations the held-out partners are drawn from (less the training partners).
HELD_OUT_FROM = "reactive,cyclic"
#: The keyword arguments of the games' envs that the tasks set themselves (not ``--env-kwargs``).
TASK_KWARGS = ("partners", "horizon")
SEATS = ("player_0", "player_1")
#: The custom-game ids: what ``--env-kwargs`` must hold for them.
CUSTOM = {"tom/MatrixGame-v0": ("payoffs", "action_labels"), "tom/MatrixGame-Parallel-v0": ("payoffs", "action_labels")}


def _games(kind: str = "gymnasium") -> tuple[str, ...]:
    """The built-in ids of ``kind``: one per built-in game (``tom/<Game>-v0`` or ``-Parallel-v0``) and the
    custom-game id (its game in the env kwargs)."""
    return tuple(
        r.id
        for r in tom_envs.REGISTRY.values()
        if r.family == "matrix"
        and r.kind == kind
        and r.builtin
        and (
            r.id in CUSTOM
            or (isinstance(r.kwargs.get("game"), str) and r.id == env_id_for("matrix", kind, game=r.kwargs["game"]))
        )
    )


_SPLITS: dict[tuple, str] = {}


def _split_names(game: MatrixGame, split: str) -> str:
    """The ``partners=`` argument of ``split`` for ``game`` (the game as the trained seat sees it)."""
    if split == "train":
        return TRAIN_PARTNERS
    if split != "test":
        raise TomEnvsError(f"the matrix games' splits are train and test, got {split!r}")
    if (game.key, split) not in _SPLITS:
        train = set(resolve_partners(game, TRAIN_PARTNERS).names)
        held_out = [n for n in resolve_partners(game, HELD_OUT_FROM).names if n not in train]
        _SPLITS[game.key, split] = ",".join(dict.fromkeys(held_out))
    return _SPLITS[game.key, split]


def split_partners(env_id: str, split: str, **env_kwargs: Any) -> str:
    """The ``partners=`` argument of ``split`` for the game of ``env_id`` (made with ``env_kwargs``)."""
    return _split_names(_game_of(env_id, env_kwargs), split)


def _game_of(env_id: str, env_kwargs: dict[str, Any]) -> MatrixGame:
    """The game of ``env_id`` made with ``env_kwargs`` (a custom game's ``payoffs``, ``action_labels``, ...)."""
    from tom_envs.matrix.config import CustomGame, build_game

    custom = CustomGame(*(env_kwargs.get(k) for k in ("payoffs", "action_labels", "partner_action_labels", "name")))
    return build_game(tom_envs.REGISTRY[env_id].kwargs.get("game"), custom)


def _parallel(env_id: str) -> bool:
    return tom_envs.REGISTRY[env_id].kind == "parallel"


def make_env(env_id: str, split: str, seat: str = "player_0", **env_kwargs: Any) -> Any:
    """The game against the split's partners (one drawn per episode), ``HORIZON`` rounds: a single-agent
    id as it is, a parallel id's ``seat`` as a :class:`PartnerSeat` (``seat`` is for parallel ids only)."""
    if _parallel(env_id):
        return PartnerSeat(env_id, split, seat, **env_kwargs)
    return gym.make(env_id, partners=split_partners(env_id, split, **env_kwargs), horizon=HORIZON, **env_kwargs)


def make_vec_env(env_id: str, split: str, n_envs: int, **env_kwargs: Any) -> Any:
    """The native numpy vector env of the split (every partner is an automaton); None for a parallel
    id's seat (SB3's DummyVecEnv over :class:`PartnerSeat` envs trains it)."""
    if _parallel(env_id):
        return None
    return gym.make_vec(
        env_id,
        num_envs=n_envs,
        vectorization_mode="vector_entry_point",
        partners=split_partners(env_id, split, **env_kwargs),
        horizon=HORIZON,
        autoreset_mode=AutoresetMode.SAME_STEP,
        **env_kwargs,
    )


def references(env_id: str, split: str, seeds: Sequence[int], **kwargs: Any) -> list[Row]:
    """The tabular agent (RMax with its own partner count model) on the same split and episode seeds
    (on a parallel id, on the seat: the game as the seat sees it)."""
    from policies.matrix.tabular import TabularRMaxPolicy

    env_kwargs = {k: v for k, v in kwargs.items() if k != "seat"}
    game = _game_of(env_id, env_kwargs)
    if kwargs.get("seat", SEATS[0]) != SEATS[0]:
        game = game.transposed()
    return reference_rows(
        TASK,
        env_id,
        split,
        seeds,
        {"tabular": (lambda: TabularRMaxPolicy(game, horizon=HORIZON), "own count model")},
        "matrix",
        kwargs or None,
    )


# ---------------------------------------------------------------------- one seat of the parallel games
class SplitPartner:
    """The other seat of :class:`PartnerSeat`: plays the automaton of the partner drawn for the episode.

    It reads only its own seat's view: the last joint action in its observation (its own action
    first, as the parallel env codes it), and its own state. ``reset(seed)`` starts the drawn
    partner's automaton over (the draw itself is the seat env's, :meth:`PartnerSeat.reset`).
    """

    def __init__(self, n_trained: int) -> None:
        self.n_trained = n_trained  # actions of the trained seat (the low digit of this seat's code)
        self.automaton: Any = None
        self.uniforms: list[float] = []
        self.state = 0
        self.t = 0
        self.own = -1

    def start(self, automaton: Any, uniforms: list[float]) -> None:
        self.automaton, self.uniforms = automaton, uniforms

    def reset(self, seed: int | None = None) -> None:
        self.state, self.t, self.own = int(self.automaton.initial_state), 0, -1

    def act(self, observation: Any, info: dict) -> int:
        aut = self.automaton
        if self.t:  # the trained seat's last action, from this seat's newest code own * n_trained + other
            code = int(np.asarray(observation).reshape(-1)[0])
            self.state = int(aut.transition[self.state, code % self.n_trained, self.own])
        det = aut.deterministic_actions[self.state]
        self.own = det if det >= 0 else aut.sample(self.state, self.uniforms[self.t])
        self.t += 1
        return self.own


class PartnerSeat(ParallelSeat):
    """``seat`` of a parallel matrix-game id against the split's partner population.

    The partners are built for the game as the seat sees it (rows: the seat's actions; for
    ``player_1`` that is ``game.transposed()``) and drawn per episode with the single-agent env's
    random stream (:mod:`tom_envs.matrix.rng`: ``reset(seed=s)`` draws the partner
    ``tom/<Game>-v0`` draws for ``s``). The ToM contract is :class:`~wrappers.ParallelSeat`'s (the
    target: the other seat's action) with the single-agent env's outcome added: ``return`` (the seat's),
    ``optimal_return`` (the exact optimal response to the drawn partner over the rounds played) and
    ``regret`` (their difference).
    """

    def __init__(self, env_id: str, split: str, seat: str, **env_kwargs: Any) -> None:
        if seat not in SEATS:
            raise TomEnvsError(f"the parallel matrix games' seats are {', '.join(SEATS)}, got {seat!r}")
        par = tom_envs.make(env_id, horizon=HORIZON, **env_kwargs)
        self.game = par.game if seat == SEATS[0] else par.game.transposed()
        self.partners: PartnerDistribution = resolve_partners(self.game, _split_names(self.game, split))
        if any(p.automaton() is None for p in self.partners.partners):
            raise TomEnvsError("PartnerSeat plays automaton partners only")
        self.partner = SplitPartner(self.game.n_actions)
        other = SEATS[1] if seat == SEATS[0] else SEATS[0]
        super().__init__(par, seat, {other: self.partner})
        self._oracles: dict[int, OracleSolution] = {}
        self._oracle: OracleSolution | None = None
        self._key: int | None = None
        self._episode = 0
        self._spec = ToMSpec(
            targets=dict(self._spec.targets), predictor=seat, outcome=("return", "optimal_return", "regret")
        )

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict]:
        gym.Env.reset(self, seed=seed)
        if seed is not None or self._key is None:
            self._key, self._episode = key_from(self.np_random), 0
        else:
            self._episode += 1
        base = episode_base(self._key, self._episode)
        idx = self.partners.index_for(uniform(base, PARTNER_DRAW))
        aut = self.partners.partners[idx].automaton()
        self.partner.start(aut, [] if aut.is_deterministic else round_uniforms(base, HORIZON))
        if idx not in self._oracles:
            self._oracles[idx] = solve(self.game, aut, HORIZON)
        self._oracle = self._oracles[idx]
        return super().reset(seed=seed, options=options)

    def tom_outcome(self) -> dict[str, Any]:
        t = self.par.round
        ret = float(self.par.tom_outcome()[f"return_{self.seat}"])
        optimal = float(self._oracle.optimal_rewards[:t].sum()) if self._oracle is not None else None
        return {"return": ret, "optimal_return": optimal, "regret": None if optimal is None else optimal - ret}


#: The stable-baselines3 settings of the games' learners (``tom-envs rl``'s and ``tom-envs selfplay``'s).
HYPER = {
    "ppo": {"n_steps": 256, "batch_size": 256},
    "recurrent_ppo": {
        "n_steps": 128,
        "batch_size": 512,
        "n_epochs": 5,
        "policy_kwargs": {"lstm_hidden_size": 32, "net_arch": [32]},
    },
}

TASK = RLTask(
    env_ids=_games() + _games("parallel"),
    make_env=make_env,
    make_vec_env=make_vec_env,
    outcome="regret",
    higher_is_better=False,
    splits={
        "train": f"partners {TRAIN_PARTNERS} (004's)",
        "test": f"held-out partners: the game's {HELD_OUT_FROM} partners not in the train split",
    },
    steps=100_000,
    algo_steps={"recurrent_ppo": 30_000},
    horizon=HORIZON,
    hyper=HYPER,
    references=references,
    notes=(
        "regret = ΔFunctional over the 100 rounds (divide by 100 for 004's ΔFunctional/T)",
        "the observation is the last joint action (one-hot): a feed-forward agent is memory-1",
    ),
    seat=SEATS[0],
    seats=SEATS,
    env_kwargs=True,
    task_kwargs=TASK_KWARGS,
    needs_kwargs=CUSTOM,
)
