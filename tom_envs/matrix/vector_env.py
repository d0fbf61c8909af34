"""A numpy-vectorized repeated matrix game: N focal agents against N automaton partners.

``gymnasium.make_vec("tom/IPD-v0", num_envs=N, vectorization_mode="vector_entry_point")``.
Partners are state arrays over one table that concatenates every partner automaton of the
distribution; a step is a handful of ``take`` lookups over N-length arrays. Randomness uses the
counter-based streams of :mod:`tom_envs.matrix.rng`, so with seeds ``seed + i`` the vector env
reproduces N single envs exactly (tested), autoreset included.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from tom_envs.errors import InvalidAction, InvalidPartner, TomEnvsError, call_order_error, check_options
from tom_envs.matrix.env import RESET_OPTIONS, MatrixGameEnv
from tom_envs.matrix.oracle import solve
from tom_envs.matrix.rng import PARTNER_DRAW, episode_base_np, key_from, uniform_np


class NotVectorizable(TomEnvsError, ValueError):
    """A partner has no automaton (e.g. an Axelrod strategy), so it cannot run in the vector env."""


class MatrixGameVectorEnv(VectorEnv):
    """N copies of :class:`~tom_envs.matrix.env.MatrixGameEnv`, stepped in numpy lockstep.

    Takes the single env's arguments (``game``/``payoffs``, ``partners``, ``horizon``,
    ``history``, ``include_round``, ``expose_partner_action``, ``expose_partner``) plus ``num_envs`` and
    ``autoreset_mode`` (``AutoresetMode.NEXT_STEP``, Gymnasium's default, or ``SAME_STEP``).
    All sub-envs share the horizon, so they end and reset together.

    Observations, rewards, terminations and the partner's actions equal those of N single envs
    reset with seeds ``seed + i`` (and, after each episode, reset without a seed). Infos follow
    Gymnasium's vector convention (a dict of arrays with ``_key`` masks): at reset ``partner``
    (names), ``partner_index`` and ``optimal_return`` (only with ``expose_partner=True``);
    each step ``partner_action`` (and ``partner_next_action`` when exposed). The oracle solutions are ``oracles[partner_index]``
    and :meth:`optimal_rewards` gives the per-round oracle rewards of the current partners.

    Partners must be automata: a black box (e.g. an Axelrod strategy) raises
    :class:`NotVectorizable`; use ``gymnasium.make_vec(..., vectorization_mode="sync")`` for those.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int = 1,
        game: Any = None,
        *,
        autoreset_mode: "AutoresetMode | str" = AutoresetMode.NEXT_STEP,
        render_mode: str | None = None,
        **kwargs: Any,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if render_mode is not None:
            raise ValueError(
                "the vectorized matrix env does not render; use the single env (render_mode='ansi') instead"
            )
        self._proto = proto = MatrixGameEnv(game, **kwargs)  # validation, spaces and partner tables
        self.autoreset_mode = AutoresetMode(autoreset_mode)
        self.metadata = {**self.metadata, "autoreset_mode": self.autoreset_mode}
        self.num_envs = int(num_envs)
        self.render_mode = None
        self.game = proto.game
        self.horizon = proto.horizon
        self.partner_distribution = dist = proto.partner_distribution
        self.single_observation_space = proto.observation_space
        self.single_action_space = proto.action_space
        self.observation_space = batch_space(proto.observation_space, self.num_envs)
        self.action_space = batch_space(proto.action_space, self.num_envs)

        for p in dist.partners:
            if p.automaton() is None:
                raise NotVectorizable(
                    f"partner {p.name!r} is a black box without an automaton and cannot be vectorized; use "
                    "gymnasium.make_vec(id, num_envs, vectorization_mode='sync') (a SyncVectorEnv of single envs) instead"
                )
        self._build_tables()
        self._partner_names = np.array(dist.names, dtype=object)
        self.oracles = [solve(self.game, p.automaton(), self.horizon) for p in dist.partners]
        self._optimal_return = np.array([o.optimal_return for o in self.oracles])
        self._optimal_rewards = np.stack([o.optimal_rewards for o in self.oracles])
        self._keys: np.ndarray | None = None
        self._episode = 0
        self._t = 0
        self._running = False
        self._needs_reset = False

    # ------------------------------------------------------------------ tables
    def _build_tables(self) -> None:
        """One table over the states of all partners; ``gs = global_state * n_a``."""
        game = self.game
        n_a, n_b = game.n_actions, game.n_partner_actions
        auts = [p.automaton() for p in self.partner_distribution.partners]
        offsets = np.cumsum([0] + [a.n_states for a in auts])
        self._start_gs = np.array([(offsets[i] + a.initial_state) * n_a for i, a in enumerate(auts)], dtype=np.int64)
        policy = np.concatenate([a.policy for a in auts])  # (G, n_b)
        det = np.array([b for a in auts for b in a.deterministic_actions], dtype=np.int64)  # (G,)
        nxt = np.concatenate([a.transition + off for a, off in zip(auts, offsets[:-1])])  # (G, n_a, n_b), global
        G = len(det)
        self._all_deterministic = bool((det >= 0).all())
        a_idx = np.tile(np.arange(n_a), G)
        g_idx = np.repeat(np.arange(G), n_a)
        self._det_b = det[g_idx]  # by idx = gs + a
        b_det = np.where(det >= 0, det, 0)[g_idx]
        self._code_det = a_idx * n_b + b_det
        self._next_det = nxt[g_idx, a_idx, b_det] * n_a
        self._next_full = (nxt * n_a).reshape(-1)  # by (gs + a) * n_b + b
        # Deterministic partners step on one lookup: the state is kept as code << S | gs (the last joint
        # action code above the partner-state index), so that one table indexed by state + action gives
        # the next state, whose high bits are the code the observation shows (no other lookup needed).
        self._S = int(G * n_a).bit_length()
        n_codes = n_a * n_b + 1
        self._step_det = np.zeros(n_codes << self._S, dtype=np.int64)
        for code in range(n_codes):  # every code may precede every (gs + a)
            base = code << self._S
            self._step_det[base : base + G * n_a] = (self._code_det << self._S) | self._next_det
        self._b_bits = n_b - 1 if n_b & (n_b - 1) == 0 else None
        cdf = np.cumsum(policy, axis=1)
        cdf[:, -1] = 1.0
        self._cdf = cdf
        self._reward_of_code = game.focal_payoffs.reshape(-1).astype(np.float64)
        self._b_of_code = np.tile(np.arange(n_b), n_a).astype(np.min_scalar_type(n_b))  # small: less memory traffic
        self._start_code = n_a * n_b
        self._n_a, self._n_b = n_a, n_b
        self._scalar_obs = self._proto.scalar_observation

    # ------------------------------------------------------------------ API
    def reset(self, *, seed: "int | Sequence[int] | None" = None, options: dict | None = None) -> tuple[Any, dict]:
        if options and isinstance(options, dict) and "reset_mask" in options:
            raise TomEnvsError("partial resets are not supported: the sub-envs run in lockstep and reset together")
        options = check_options(options, RESET_OPTIONS, "MatrixGameVectorEnv")
        if seed is not None:
            seeds = [seed + i for i in range(self.num_envs)] if isinstance(seed, (int, np.integer)) else list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"got {len(seeds)} seeds for {self.num_envs} envs")
            self._keys = np.array([key_from(np.random.default_rng(s)) for s in seeds], dtype=np.uint64)
            self._episode = 0
        elif self._keys is None:
            rng = np.random.default_rng()
            self._keys = np.array([key_from(rng) for _ in range(self.num_envs)], dtype=np.uint64)
            self._episode = 0
        else:
            self._episode += 1
        return self._reset_all(options.get("partner"))

    def _reset_all(self, forced: str | None = None) -> tuple[Any, dict]:
        self._bases = episode_base_np(self._keys, self._episode)
        dist = self.partner_distribution
        if forced is None and len(dist) == 1:
            self._pidx = np.zeros(self.num_envs, dtype=np.int64)
        elif forced is None:
            self._pidx = np.searchsorted(dist.cdf, uniform_np(self._bases, PARTNER_DRAW), side="right")
        elif forced in dist.names:
            self._pidx = np.full(self.num_envs, dist.names.index(forced))
        else:
            raise InvalidPartner(
                f"options['partner']={forced!r} is not in this env's partners: {', '.join(dist.names)}"
            )
        self._gs = self._start_gs.take(self._pidx)
        self._state: np.ndarray | None = None  # code << S | gs while deterministic steps run (then _gs is None)
        self._idx = np.empty(self.num_envs, dtype=np.int64)
        self._t = 0
        self._running, self._needs_reset = True, False
        k = self._proto.history_length
        self._hist = None if self._scalar_obs else np.full((self.num_envs, k), self._start_code, dtype=np.int64)
        self._pending_b: np.ndarray | None = None
        info = (
            self._mask(
                {
                    "partner": self._partner_names.take(self._pidx),
                    "partner_index": self._pidx.copy(),
                    "optimal_return": self._optimal_return.take(self._pidx),
                }
            )
            if self._proto.expose_partner
            else {}
        )
        if self._proto.expose_partner_action:
            info.update(self._mask({"partner_next_action": self._upcoming()}))
        obs = np.full(self.num_envs, self._start_code, dtype=np.int64) if self._scalar_obs else self._observation()
        return obs, info

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict]:
        if not self._running:
            raise call_order_error(
                self._keys is not None,
                "the episodes ended and autoreset is disabled; call envs.reset() first.",
                reset="envs.reset",
            )
        if self._needs_reset:  # NEXT_STEP autoreset: this call only starts the next episodes
            self._episode += 1
            obs, info = self._reset_all()
            zeros = np.zeros(self.num_envs, dtype=bool)
            return obs, np.zeros(self.num_envs), zeros, zeros.copy(), info
        a = self._actions(actions)
        # Deterministic partners: one lookup (the packed state, see _build_tables) and a shift give the
        # code; the returned arrays are fresh, the index sum goes to a preallocated buffer.
        if self._all_deterministic and self._pending_b is None:
            if self._state is None:  # every code's rows are alike: the code bits may start at 0
                self._state, self._gs = self._gs, None
            self._state = self._step_det.take(np.add(self._state, a, out=self._idx))
            code = np.right_shift(self._state, self._S)
            if self._b_bits is None:
                b = self._b_of_code.take(code)
            else:
                b = np.bitwise_and(
                    code, self._b_bits, out=np.empty(self.num_envs, self._b_of_code.dtype), casting="unsafe"
                )
        else:
            idx = np.add(self._current_gs(), a, out=self._idx)
            b = self._partner_now(idx)
            code = a * self._n_b + b
            self._gs = self._next_full.take(idx * self._n_b + b)
        reward = self._reward_of_code.take(code)
        self._t = t = self._t + 1
        done = t == self.horizon
        if self._hist is not None:
            self._hist[:, 1:] = self._hist[:, :-1]
            self._hist[:, 0] = code
        obs = code if self._scalar_obs else self._observation()
        info = self._mask({"partner_action": b})
        if self._proto.expose_partner_action and not done:
            info.update(self._mask({"partner_next_action": self._upcoming()}))
        terminated = np.full(self.num_envs, done)
        truncated = np.zeros(self.num_envs, dtype=bool)
        if done:
            if self.autoreset_mode == AutoresetMode.SAME_STEP:
                final_obs, final_info = obs, info
                self._episode += 1
                obs, info = self._reset_all()
                info.update(
                    {
                        "final_obs": final_obs,
                        "_final_obs": np.ones(self.num_envs, dtype=bool),
                        "final_info": final_info,
                        "_final_info": np.ones(self.num_envs, dtype=bool),
                    }
                )
            elif self.autoreset_mode == AutoresetMode.NEXT_STEP:
                self._needs_reset = True
            else:  # DISABLED: the caller resets
                self._running = False
        return obs, reward, terminated, truncated, info

    def optimal_rewards(self) -> np.ndarray:
        """The oracle's expected reward per round for each sub-env's current partner, (N, T)."""
        return self._optimal_rewards.take(self._pidx, axis=0)

    def close_extras(self, **kwargs: Any) -> None:
        pass

    # ------------------------------------------------------------------ helpers
    def _partner_now(self, idx: np.ndarray) -> np.ndarray:
        """This round's partner actions (the looked-ahead ones when the env exposes them)."""
        if self._pending_b is not None:
            b, self._pending_b = self._pending_b, None
            return b
        return self._draw(idx)

    def _draw(self, idx: np.ndarray) -> np.ndarray:
        b = self._det_b.take(idx)
        stochastic = b < 0
        if stochastic.any():
            g = idx[stochastic] // self._n_a
            u = uniform_np(self._bases[stochastic], 1 + self._t)
            b[stochastic] = (u[:, None] >= self._cdf[g]).sum(axis=1)
        return b

    def _current_gs(self) -> np.ndarray:
        """The partners' global states times n_a (leaving the packed form of deterministic steps)."""
        if self._gs is None:
            self._gs, self._state = np.bitwise_and(self._state, (1 << self._S) - 1), None
        return self._gs

    def _upcoming(self) -> np.ndarray:
        self._pending_b = self._draw(self._current_gs())
        return self._pending_b.copy()

    def _observation(self) -> np.ndarray:
        """The MultiDiscrete observation (history and/or round); the scalar form is the code itself."""
        obs = self._hist.copy()
        if self._proto.include_round:
            obs = np.concatenate([obs, np.full((self.num_envs, 1), self._t, dtype=np.int64)], axis=1)
        return obs

    def _actions(self, actions: Any) -> np.ndarray:
        a = np.asarray(actions)
        if a.dtype != np.int64:
            if a.dtype.kind not in "iu":
                raise InvalidAction(f"actions must be integers in 0..{self._n_a - 1}, got an array of {a.dtype}")
            a = a.astype(np.int64)
        if a.shape != (self.num_envs,):
            raise InvalidAction(f"expected {self.num_envs} actions (one per sub-env), got shape {a.shape}")
        if self.num_envs and a.view(np.uint64).max() >= self._n_a:  # one pass: negatives wrap to huge
            bad = np.flatnonzero((a < 0) | (a >= self._n_a))
            raise InvalidAction(
                f"actions of sub-envs {bad[:5].tolist()} are outside Discrete({self._n_a}): {a[bad[:5]].tolist()}; pass "
                f"integers in 0..{self._n_a - 1}"
            )
        return a

    def _mask(self, info: dict[str, Any]) -> dict[str, Any]:
        out = dict(info)
        for key in info:
            out["_" + key] = np.ones(self.num_envs, dtype=bool)
        return out

    def __repr__(self) -> str:
        return f"MatrixGameVectorEnv({self.game.name}, num_envs={self.num_envs})"
