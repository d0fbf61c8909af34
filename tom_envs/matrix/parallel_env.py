"""Two learners repeat a matrix game: a PettingZoo ``ParallelEnv`` (AEC view via ``env()``)."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import logger, spaces
from pettingzoo import ParallelEnv

from tom_envs.aec import Seats
from tom_envs.errors import InvalidAction, call_order_error, check_options
from tom_envs.matrix.config import CustomGame, build_game, check_env_args
from tom_envs.matrix.games import MatrixGame
from tom_envs.matrix.text import render_history
from tom_envs.tom import ToMSpec

ROW, COL = "player_0", "player_1"


class MatrixGameParallelEnv(Seats, ParallelEnv):
    """A repeated two-player matrix game between two learning agents.

    ``player_0`` picks a row of the payoff table every round, ``player_1`` a column, at the same
    time. There is no scripted partner and no randomness in the dynamics: the episode is the
    stage game repeated ``horizon`` times. ``parallel_env(**kwargs)`` makes this env,
    ``env(**kwargs)`` (or ``tom_envs.make_aec(id)``) its AEC view through PettingZoo's
    ``parallel_to_aec``.

    ## Action Space
    ``player_0``: ``Discrete(n_a)``, the row (RPS: 0 Rock, 1 Paper, 2 Scissors; IBS: 0 Fight,
    1 Ballet; IPD: 0 Cooperate, 1 Defect). ``player_1``: ``Discrete(n_b)``, the column. Python
    ints, numpy integers and 0-d integer arrays are accepted; anything else, or a missing
    agent's action, raises :class:`~tom_envs.errors.InvalidAction`.

    ## Observation Space
    With the defaults, ``Discrete(n_a * n_b + 1)`` for both agents: the last joint action seen
    from the agent's own seat, own action first -- ``a * n_b + b`` for ``player_0`` (the same
    code as the single-agent env, see ``game.joint_code``) and ``b * n_a + a`` for ``player_1``
    -- or the start symbol ``n_a * n_b`` before the first round. The code is an ``np.int64``
    scalar (the space's dtype, as PettingZoo's ``api_test`` requires), not a python int. With
    ``history=k > 1`` it is ``MultiDiscrete([n_a * n_b + 1] * k)`` (an int64 array): the last k
    codes, newest first, padded with the start symbol.

    ## Rewards
    ``player_0`` gets ``payoffs[a][b][0]``, ``player_1`` gets ``payoffs[a][b][1]``. RPS: win
    +1, tie 0, loss -1. IBS: (Fight, Fight) 10 / 7, (Ballet, Ballet) 7 / 10, otherwise 0. IPD:
    (C, C) 8 / 8, (C, D) 0 / 10, (D, C) 10 / 0, (D, D) 5 / 5.

    ## Episode End
    Both agents terminate after ``horizon`` rounds (default 100); they are never truncated by
    the env. After the last round ``agents`` is empty. Stepping after the end raises
    :class:`~tom_envs.errors.EpisodeEnded`; stepping before the first reset raises
    :class:`~tom_envs.errors.ResetNeeded`.

    ## Arguments
    * ``game``: ``"RPS"``, ``"IBS"``, ``"IPD"``, a :class:`MatrixGame`, or a dict of its fields.
      Alternatively ``payoffs=`` and ``action_labels=`` (plus optional ``name=``,
      ``partner_action_labels=`` for the column player) define a custom game
      (``tom/MatrixGame-Parallel-v0``).
    * ``horizon``: number of rounds T (default 100).
    * ``history``: number of past joint actions in each observation (default 1).
    * ``render_mode``: ``"ansi"`` (``render()`` returns the history as text) or ``"human"``
      (prints it after every round).

    ## Info
    ``reset``: ``{}`` for each agent. ``step``: ``{"other_action": ...}``, the other agent's
    action this round. ``reset(seed=...)`` reseeds ``np_random`` (unused by the dynamics, kept
    for wrappers and seeding tests); without a seed the generator is kept.

    ## ToM contract (:mod:`tom_envs.tom`)
    Each seat may predict the other's action: ``tom_spec`` has one target per seat, named by the
    seat whose action it is (``player_0``: ``Discrete(n_a)``, ``player_1``: ``Discrete(n_b)``),
    and no single ``predictor`` (both seats predict; a scorer per seat predicts the other seat's
    target). ``tom_truth()``: both actions of the round just played. ``tom_outcome()``: each
    seat's return so far (``return_player_0``, ``return_player_1``).

    ## Version History
    * v0: initial version (the games of seed 004, two learning seats).
    """

    metadata = {"name": "tom_matrix_parallel_v0", "render_modes": ["ansi", "human"], "is_parallelizable": True}

    def __init__(
        self,
        game: "str | MatrixGame | dict | None" = None,
        *,
        payoffs: Any = None,
        action_labels: Any = None,
        partner_action_labels: Any = None,
        name: str | None = None,
        horizon: int = 100,
        history: int = 1,
        render_mode: str | None = None,
    ) -> None:
        self.game: MatrixGame = build_game(game, CustomGame(payoffs, action_labels, partner_action_labels, name))
        check_env_args(horizon, history, render_mode, self.metadata["render_modes"])
        self.horizon = int(horizon)
        self.history_length = int(history)
        self.render_mode = render_mode
        self.possible_agents = [ROW, COL]
        self.agents: list[str] = []

        n_a, n_b = self.game.n_actions, self.game.n_partner_actions
        self._n_a, self._n_b = n_a, n_b
        self._start = n_a * n_b
        self._scalar_obs = self.history_length == 1
        if self._scalar_obs:
            obs_spaces = {agent: spaces.Discrete(self._start + 1) for agent in self.possible_agents}
        else:
            obs_spaces = {
                agent: spaces.MultiDiscrete([self._start + 1] * self.history_length) for agent in self.possible_agents
            }
        self.observation_spaces = obs_spaces
        self.action_spaces = {ROW: spaces.Discrete(n_a), COL: spaces.Discrete(n_b)}
        # the information rule's public part: the joint actions played
        self.tom_public = ("obs", *(f"obs[{i}]" for i in range(self.history_length)))
        self.tom_spec = ToMSpec(
            targets={ROW: spaces.Discrete(n_a), COL: spaces.Discrete(n_b)}, outcome=(f"return_{ROW}", f"return_{COL}")
        )
        # per joint action j = a * n_b + b: (row code, column code, row reward, column reward).
        # Codes are np.int64 scalars (immutable, so shared safely): PettingZoo's api_test asserts
        # that an observation's dtype equals the space's, which a python int does not have.
        code = np.int64
        self._table = [
            (code(a * n_b + b), code(b * n_a + a), float(self.game.payoffs[a][b][0]), float(self.game.payoffs[a][b][1]))
            for a in range(n_a)
            for b in range(n_b)
        ]
        self._start_code = code(self._start)
        self._col_code = [row[1] for row in self._table] + [self._start_code]  # joint code -> column code

        # episode state; _t >= _T means "no episode running" (before the first reset: _T == 0)
        self._t = 0
        self._T = 0
        self._joint: list[int] = []
        self._human = render_mode == "human"

    # ------------------------------------------------------------------ API
    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict[str, Any], dict[str, dict]]:
        if options is not None:
            check_options(options, None, "MatrixGameParallelEnv")  # a dict; PettingZoo passes keys it reads none of
        self.reseed(seed)
        self.agents = self.possible_agents[:]
        self._t, self._T = 0, self.horizon
        self._joint = [0] * self.horizon  # joint-action codes a * n_b + b; the first _t are played
        return self._observations(), {ROW: {}, COL: {}}

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        t = self._t
        if t >= self._T:
            raise self._not_running()
        try:
            a, b = actions[ROW], actions[COL]
        except (KeyError, TypeError):
            raise self._missing(actions) from None
        if type(a) is not int or not 0 <= a < self._n_a:
            a = self._coerce(a, ROW)
        if type(b) is not int or not 0 <= b < self._n_b:
            b = self._coerce(b, COL)
        if len(actions) != 2:
            raise self._missing(actions)
        j = a * self._n_b + b
        c0, c1, r0, r1 = self._table[j]
        self._joint[t] = j
        self._t = t = t + 1
        done = t == self._T
        if done:
            self.agents = []
        obs = {ROW: c0, COL: c1} if self._scalar_obs else self._observations()
        if self._human:
            self.render()
        return (
            obs,
            {ROW: r0, COL: r1},
            {ROW: done, COL: done},
            {ROW: False, COL: False},
            {ROW: {"other_action": b}, COL: {"other_action": a}},
        )

    def render(self) -> str | None:
        if self.render_mode is None:
            logger.warn("render() was called without a render_mode; pass render_mode='ansi' or 'human' to make().")
            return None
        text = render_history(self.game, self.history)
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def close(self) -> None:
        pass

    # ------------------------------------------------------------------ ToM contract
    def tom_truth(self) -> dict[str, int]:
        """Both seats' actions in the round just played (empty before the first round)."""
        if not self._t:
            return {}
        a, b = divmod(self._joint[self._t - 1], self._n_b)
        return {ROW: a, COL: b}

    def tom_outcome(self) -> dict[str, float]:
        """Each seat's summed reward so far."""
        played = [self._table[j] for j in self._joint[: self._t]]
        return {f"return_{ROW}": float(sum(r[2] for r in played)), f"return_{COL}": float(sum(r[3] for r in played))}

    # ------------------------------------------------------------------ ground truth (read-only)
    @property
    def round(self) -> int:
        """Number of rounds played in the current episode."""
        return self._t

    @property
    def history(self) -> list[tuple[int, int]]:
        """Joint actions (row, column) of the rounds played so far."""
        n_b = self._n_b
        return [divmod(j, n_b) for j in self._joint[: self._t]]

    # ------------------------------------------------------------------ helpers
    def _observations(self) -> dict[str, Any]:
        t = self._t
        if self._scalar_obs:
            if not t:
                return {ROW: self._start_code, COL: self._start_code}
            c0, c1, _, _ = self._table[self._joint[t - 1]]
            return {ROW: c0, COL: c1}
        k = self.history_length
        last = self._joint[max(0, t - k) : t][::-1]
        row = last + [self._start] * (k - len(last))
        col = [self._col_code[j] for j in row]
        return {ROW: np.array(row, dtype=np.int64), COL: np.array(col, dtype=np.int64)}

    def _not_running(self) -> Exception:
        return call_order_error(
            self._T != 0,
            f"step() was called after the episode ended (all {self.horizon} rounds "
            "were played); call env.reset() to start a new episode.",
        )

    def _missing(self, actions: Any) -> InvalidAction:
        if not isinstance(actions, dict):
            return InvalidAction(
                f"step() takes a dict of actions keyed by agent, {{{ROW!r}: a, {COL!r}: b}}; got {actions!r}."
            )
        missing = [agent for agent in self.possible_agents if agent not in actions]
        if missing:
            return InvalidAction(
                f"no action for {', '.join(map(repr, missing))}: both agents act every round; pass "
                f"{{{ROW!r}: 0..{self._n_a - 1}, {COL!r}: 0..{self._n_b - 1}}}."
            )
        unknown = [key for key in actions if key not in self.possible_agents]
        return InvalidAction(f"actions for unknown agents {unknown!r}; the agents are {self.possible_agents}.")

    def _coerce(self, action: Any, agent: str) -> int:
        """Numpy integers and 0-d integer arrays (what RL libraries pass); anything else raises."""
        n = self._n_a if agent == ROW else self._n_b
        if (
            isinstance(action, (np.integer, np.ndarray))
            and np.ndim(action) == 0
            and np.issubdtype(np.asarray(action).dtype, np.integer)
        ):
            value = int(action)
            if 0 <= value < n:
                return value
        labels = self.game.action_labels if agent == ROW else self.game.partner_action_labels
        raise InvalidAction(
            f"action {action!r} of {agent} is not in its action space Discrete({n}); pass an integer in "
            f"0..{n - 1} ({', '.join(f'{i}={l}' for i, l in enumerate(labels))})."
        )


def parallel_env(**kwargs: Any) -> MatrixGameParallelEnv:
    """The parallel env (PettingZoo module convention)."""
    return MatrixGameParallelEnv(**kwargs)


def env(**kwargs: Any):
    """The AEC view of the parallel env, through PettingZoo's ``parallel_to_aec``."""
    from pettingzoo.utils.conversions import parallel_to_aec

    return parallel_to_aec(MatrixGameParallelEnv(**kwargs))
