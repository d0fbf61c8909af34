"""The tabular agent of seed 004 §2.2: RMax exploration with the last joint action as state,
and a frequency-count model of the partner as its literal theory of mind."""

from __future__ import annotations

from typing import Any

import numpy as np

from policies.base import BasePolicy, joint_code
from tom_envs.errors import TomEnvsError
from tom_envs.matrix.games import MatrixGame, get_game


class InvalidTabularParameter(TomEnvsError, ValueError):
    """A hyper-parameter of the tabular agent or its count model outside its range."""


#: How :class:`PartnerCountModel` breaks ties between equally frequent actions (unseen states included).
PREDICTION_TIES = ("lowest", "random")


class PartnerCountModel(BasePolicy):
    """Literal ToM by counting: predicts the partner's most frequent action in the current state
    (the last joint action), learned within the episode.

    It is the tabular agent's ToM model (004 §2.2) and, on its own, an auxiliary predictor for
    agents that do not model the partner (e.g. SB3 policies). It makes predictions only; asking
    it to act raises.

    Ties, including every state not visited yet, go to the lowest action index by default (an
    argmax over the counts), the convention the recorder uses for predicted distributions. That is
    what seed 004's tabular rows show: against its deterministic tit-for-tat partners the published
    ToM % has a confidence interval of 0.0 (IPD 98.0 ± 0.0, RPS 93.0 ± 0.0), which a drawn default
    cannot give, and against single-action partners the published intervals (± 0.3-0.4) are the
    spread between partners that a fixed default gives (it is always right about one partner and
    wrong in every new state about the others), about twice what a drawn default gives.
    ``ties="random"`` draws among the tied actions with the policy's seeded generator instead.

    Args:
        game: the game (name or :class:`MatrixGame`); only its action counts are used.
        ties: ``"lowest"`` (default) or ``"random"`` (:data:`PREDICTION_TIES`).
    """

    makes_predictions = True

    def __init__(self, game: "str | MatrixGame", ties: str = "lowest") -> None:
        super().__init__()
        if ties not in PREDICTION_TIES:
            raise InvalidTabularParameter(f"ties must be one of {', '.join(PREDICTION_TIES)}, got {ties!r}")
        self.ties = ties
        g = get_game(game)
        self._built_for = (g.name, g.n_actions, g.n_partner_actions)  # action counts only, no payoffs
        self.n_b = g.n_partner_actions
        self.n_s = g.n_actions * g.n_partner_actions + 1
        self.name = "count_model"
        self._counts = np.zeros((self.n_s, self.n_b), dtype=np.int64)
        self._state = self.n_s - 1

    def check_env(self, description: Any) -> None:
        from policies.matrix.scripted import check_game

        check_game(self._built_for, description, "the partner count model")

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.clear(self.rng)

    def clear(self, rng: np.random.Generator) -> None:
        """Forget every count and break ties with ``rng`` from now on (a new episode)."""
        self.rng = rng
        self._counts = np.zeros((self.n_s, self.n_b), dtype=np.int64)
        self._state = self.n_s - 1

    def predict(self, observation: Any, info: dict) -> int:
        s = joint_code(observation)
        counts = self._counts[s].astype(np.float64)
        best = np.flatnonzero(counts >= counts.max())
        return int(best[0]) if len(best) == 1 or self.ties == "lowest" else int(self.rng.choice(best))

    def act(self, observation: Any, info: dict) -> Any:
        raise TypeError("PartnerCountModel only predicts; pair it with an acting policy")

    def observe(self, observation: Any, reward: float, terminated: bool, truncated: bool, info: dict) -> None:
        s2 = joint_code(observation)
        self._counts[self._state, s2 % self.n_b] += 1
        self._state = s2


class TabularRMaxPolicy(BasePolicy):
    """RMax (Brafman & Tennenholtz, 2002) over the state "last joint action", learned from
    scratch within each episode.

    What it knows: the number of actions of both players, the horizon T, and an upper bound
    ``r_max`` on its reward (RMax's one assumption). It does not know the payoff table or the
    partner: rewards and the partner's moves are learned from experience.

    Model: for every (state, action) pair it counts visits, sums rewards and counts next states.
    A pair is *known* after ``m`` visits; known pairs use the empirical mean reward and
    next-state frequencies, unknown pairs are optimistic: they promise ``r_max`` in every
    remaining round (RMax's fictitious maximal-reward state). Each round the agent plans by
    backward induction over the rounds left in the episode (finite-horizon RMax, so no discount
    factor is needed) and plays the greedy action; ties are broken by a seeded draw. Plans are
    recomputed only when the model changes.

    Hyper-parameters, chosen on principle rather than tuned:

    * ``m = 1`` (known-ness threshold): one visit reveals the reward and successor of a pair
      exactly when the partner is deterministic, as all of 004's partners are. Raise it for
      stochastic partners (RMax's PAC analysis asks for more samples there).
    * planning horizon = the rounds left in the episode (T is known), which replaces a discount.

    Literal ToM: a frequency count of the partner's action in the same state
    (:class:`PartnerCountModel`); ``predict`` returns the most frequent action, ties (including
    never-visited states) by the lowest index, or by a seeded draw with
    ``prediction_ties="random"``. Action ties are always drawn.

    Args:
        game: the game (name or :class:`MatrixGame`); only its action counts are used, plus the
            reward bound when ``r_max`` is not given.
        horizon: rounds per episode (T).
        r_max: upper bound on one round's reward; defaults to the game's largest focal payoff.
        m: known-ness threshold (visits before a pair is trusted).
        prediction_ties: how the count model breaks ties (:data:`PREDICTION_TIES`).
    """

    makes_predictions = True

    def __init__(
        self,
        game: "str | MatrixGame",
        horizon: int = 100,
        r_max: float | None = None,
        m: int = 1,
        prediction_ties: str = "lowest",
    ) -> None:
        super().__init__()
        g = get_game(game)
        if horizon < 1 or m < 1:
            raise InvalidTabularParameter(f"horizon and m must be positive, got horizon={horizon}, m={m}")
        self._built_for = (g.name, g.n_actions, g.n_partner_actions)  # action counts only, no payoffs
        self.n_a, self.n_b = g.n_actions, g.n_partner_actions
        self.n_s = self.n_a * self.n_b + 1  # joint actions plus the start state
        self.horizon = int(horizon)
        self.r_max = float(g.focal_payoffs.max() if r_max is None else r_max)
        self.m = int(m)
        self.name = "tabular"
        self._tom = PartnerCountModel(g, prediction_ties)  # keeps only the action counts, not the game
        self._new_episode()

    @property
    def hyperparameters(self) -> dict[str, Any]:
        params: dict[str, Any] = {"horizon": self.horizon, "r_max": self.r_max, "m": self.m}
        if self._tom.ties != "lowest":  # the default stays out of the cell keys, as before the option existed
            params["prediction_ties"] = self._tom.ties
        return params

    # ------------------------------------------------------------------ episode state
    def _new_episode(self) -> None:
        S, A = self.n_s, self.n_a
        self._visits = np.zeros((S, A), dtype=np.int64)
        self._reward_sum = np.zeros((S, A))
        self._next_counts = np.zeros((S, A, S))
        self._tom.clear(self.rng)  # one seeded generator for every tie the agent breaks
        self._t = 0
        self._state = S - 1  # start
        self._last_action: int | None = None
        self._plan: np.ndarray | None = None  # Q[h, s, a] for h = rounds left, valid from _plan_t
        self._plan_t = 0

    def check_env(self, description: Any) -> None:
        """The env (its :class:`~tom_envs.description.EnvDescription`) plays this game over this many rounds (the
        plan is for ``horizon`` rounds)."""
        from policies.base import PolicyMismatch
        from policies.matrix.scripted import check_game

        check_game(self._built_for, description, "the tabular agent")
        rounds = description.horizon
        if isinstance(rounds, int) and rounds != self.horizon:
            raise PolicyMismatch(
                f"the tabular agent plans for {self.horizon} rounds, but this env's episodes last "
                f"{rounds}: build it with horizon={rounds}"
            )

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._new_episode()

    # ------------------------------------------------------------------ acting
    def act(self, observation: Any, info: dict) -> int:
        s = self._sync_state(observation)
        left = self.horizon - self._t
        if left <= 0:
            raise RuntimeError(f"the tabular agent was asked to act after its horizon of {self.horizon} rounds")
        q = self._q(left)[s]
        a = self._tie_break(q)
        self._last_action = a
        return a

    def predict(self, observation: Any, info: dict) -> int:
        self._sync_state(observation)
        return self._tom.predict(observation, info)

    def observe(self, observation: Any, reward: float, terminated: bool, truncated: bool, info: dict) -> None:
        if self._last_action is None:
            return
        s, a = self._state, self._last_action
        s2 = joint_code(observation)
        self._tom.observe(observation, reward, terminated, truncated, info)
        was_known = self._visits[s, a] >= self.m
        self._visits[s, a] += 1
        self._reward_sum[s, a] += float(reward)
        self._next_counts[s, a, s2] += 1
        if not was_known or self.m > 1:  # a newly known pair, or statistics of a known one moved
            if self._visits[s, a] >= self.m:
                self._plan = None
        self._state, self._last_action = s2, None
        self._t += 1

    # ------------------------------------------------------------------ planning
    def _q(self, left: int) -> np.ndarray:
        """Q-values with ``left`` rounds to go (recomputed only after the model changed)."""
        if self._plan is None:
            self._plan, self._plan_t = self._backward_induction(self.horizon - self._t), self._t
        return self._plan[left]

    def _backward_induction(self, rounds: int) -> np.ndarray:
        known = self._visits >= self.m
        n = np.maximum(self._visits, 1)[:, :, None]
        mean_r = self._reward_sum / n[:, :, 0]
        P = self._next_counts / n
        Q = np.zeros((rounds + 1, self.n_s, self.n_a))
        V = np.zeros(self.n_s)
        for h in range(1, rounds + 1):
            q = np.where(known, mean_r + P @ V, self.r_max * h)
            Q[h] = q
            V = q.max(axis=1)
        return Q

    def _tie_break(self, values: np.ndarray) -> int:
        best = np.flatnonzero(values >= values.max() - 1e-9)
        return int(best[0]) if len(best) == 1 else int(self.rng.choice(best))

    def _sync_state(self, observation: Any) -> int:
        s = joint_code(observation)
        if s != self._state:
            raise RuntimeError(
                "the tabular agent's state is out of step with the observation: call observe(...) after every "
                "env.step (the evaluation runner does)"
            )
        return s
