"""Exact references of live persuasion v1, by dynamic programming over :class:`~tom_envs.persuasion.mind.MindModel`.

With a turn budget ``T`` and success = the persuadee agreeing (reward 1, the episode ends):

* **oracle** (persona and hidden state known, the reply noise irrelevant): finite-horizon DP over
  the states, ``V[T, s] = 0``, ``Q[t, s, a] = succ[a, s] + sum_s2 P[a, s, s2] V[t+1, s2]``,
  ``V[t, s] = max_a Q[t, s, a]`` over the six principles (:func:`oracle_table`); its success
  probability is ``initial @ V[0]``.
* **best open-loop plan** (persona unknown, the replies ignored): the best of the ``6**T`` fixed
  sequences of principles, each valued exactly by pushing the prior through the transitions
  (:func:`open_loop`).
* **Bayes-optimal fair persuader** (persona unknown, dialogue observed): the POMDP solved exactly
  by expectimax over the beliefs reachable from the prior -- the opening reply, then for each
  principle and each reply the posterior -- ``V(b, t) = max_a [b . succ[a] + sum_o P(o | b, a)
  V(b_ao, t+1)]`` (:class:`BayesPlanner`). Beliefs are memoised (keyed at 1e-11), and the last two
  turns are closed forms, so horizons up to 5 take seconds.

Value of tracking = Bayes-optimal fair - best open-loop; value of information = oracle -
Bayes-optimal fair (:func:`references`). The tests check all three against brute force over every
deterministic plan on small instances.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np

from tom_envs.errors import TomEnvsError
from tom_envs.persuasion.mind import N_OBS, MindModel
from tom_envs.persuasion.principles import PRINCIPLES, InvalidPersona

N_P = len(PRINCIPLES)
TIE_TOL = 1e-12
_KEY_DECIMALS = 11


def _check_horizon(horizon: int) -> int:
    if isinstance(horizon, bool) or not isinstance(horizon, (int, np.integer)) or horizon < 1:
        raise InvalidPersona(f"the turn budget is a positive integer, got {horizon!r}")
    return int(horizon)


class UnsupportedHorizon(TomEnvsError, ValueError):
    """A turn budget past what live persuasion plans for (v1: 1..:data:`V1_MAX_HORIZON`; v2: 1..10)."""


#: The longest turn budget v1 plans for (exact planning: ~2 s per family at 4, ~30 s at 5, ~2 minutes
#: and 1 GB at 6, growing exponentially; v2 bounds its references instead and goes to 10).
V1_MAX_HORIZON = 5


def check_horizon_v1(horizon: int) -> int:
    """``horizon`` if v1's exact planning supports it, else a named error (never a hang)."""
    horizon = _check_horizon(horizon)
    if horizon > V1_MAX_HORIZON:
        raise UnsupportedHorizon(
            f"live persuasion v1 plans exactly, which takes about 30 s per family at a turn "
            f"budget of {V1_MAX_HORIZON} and minutes to hours past it; got {horizon}. Pass "
            f"horizon <= {V1_MAX_HORIZON}, or use tom/Persuasion-v2 (turn budgets up to 10)"
        )
    return horizon


def lowest_best(q: np.ndarray) -> int:
    """The lowest index within :data:`TIE_TOL` of the maximum."""
    return int(np.flatnonzero(q >= q.max() - TIE_TOL)[0])


@dataclass(frozen=True, eq=False)
class OracleTable:
    """``values[t, s]`` (shape (T+1, S)) and ``q_values[t, s, a]`` (shape (T, S, 7), a = 6 NOTHING)."""

    horizon: int
    values: np.ndarray
    q_values: np.ndarray

    def action(self, t: int, s: int) -> int:
        return lowest_best(self.q_values[t, s, :N_P])

    def gap(self, t: int, s: int, strategy: int) -> float:
        return float(self.values[t, s] - self.q_values[t, s, strategy])


def oracle_table(model: MindModel, horizon: int) -> OracleTable:
    """Finite-horizon DP over the hidden states (persona and state known)."""
    T = _check_horizon(horizon)
    P, succ = model.transitions, model.success
    V = np.zeros((T + 1, model.n_states))
    Q = np.zeros((T, model.n_states, P.shape[0]))
    for t in range(T - 1, -1, -1):
        Q[t] = (succ + P @ V[t + 1]).T
        V[t] = Q[t, :, :N_P].max(axis=1)
    for arr in (V, Q):
        arr.flags.writeable = False
    return OracleTable(T, V, Q)


def plan_value(model: MindModel, plan: tuple[int, ...], start: np.ndarray | None = None) -> float:
    """Success probability of the fixed sequence ``plan`` from ``start`` (default the prior)."""
    m = np.array(model.initial if start is None else start)
    total = 0.0
    for a in plan:
        total += float(m @ model.success[a])
        m = m @ model.transitions[a]
    return total


def open_loop(model: MindModel, horizon: int) -> tuple[float, tuple[int, ...]]:
    """The best fixed plan of principles and its success probability (lowest plan on ties)."""
    T = _check_horizon(horizon)
    best: list[Any] = [-1.0, ()]

    def rec(m: np.ndarray, t: int, acc: float, plan: tuple[int, ...]) -> None:
        if t == T:
            if acc > best[0] + TIE_TOL:
                best[:] = [acc, plan]
            return
        for a in range(N_P):
            rec(m @ model.transitions[a], t + 1, acc + float(m @ model.success[a]), plan + (a,))

    rec(np.array(model.initial), 0, 0.0, ())
    return float(best[0]), tuple(best[1])


class Planner:
    """What a fair persuader's planner answers, given its ``q_values(belief, t)`` over every strategy (a
    subclass computes them): the value, the best principle and the gap of a strategy at a belief.

    Attributes:
        model: the family's model.
        horizon: the turn budget T.
    """

    model: MindModel
    horizon: int

    def q_values(self, belief: np.ndarray, t: int) -> np.ndarray:
        """``Q(b, t, a)`` for every strategy (each planner computes its own)."""
        raise NotImplementedError(f"{type(self).__name__} must define q_values(belief, t)")

    def value(self, belief: np.ndarray, t: int) -> float:
        """``V(b, t)``: the best success probability from turn ``t`` (0 at the budget)."""
        if t >= self.horizon:
            return 0.0
        return float(self.q_values(belief, t)[:N_P].max())

    def action(self, belief: np.ndarray, t: int) -> int:
        """The best principle (lowest on ties)."""
        return lowest_best(self.q_values(belief, t)[:N_P])

    def gap(self, belief: np.ndarray, t: int, strategy: int) -> float:
        """V - Q of ``strategy`` at this belief: the success probability it gives away."""
        q = self.q_values(belief, t)
        return float(q[:N_P].max() - q[strategy])

    def initial_value(self) -> float:
        """The value before the opening reply."""
        return self.over_openings(lambda b: self.value(b, 0))

    def over_openings(self, f: Any) -> float:
        """``f(belief)`` averaged over the opening replies (the belief after each)."""
        joint = self.model.initial[:, None] * self.model.opening
        po = joint.sum(axis=0)
        return float(sum(po[o] * f(joint[:, o] / po[o]) for o in np.flatnonzero(po > 1e-14)))


class BayesPlanner(Planner):
    """The Bayes-optimal fair persuader's values: exact expectimax over beliefs (memoised).

    Args:
        model: the family's model.
        horizon: the turn budget T.
    """

    def __init__(self, model: MindModel, horizon: int) -> None:
        self.model = model
        self.horizon = _check_horizon(horizon)
        self._memo: dict[tuple[int, bytes], np.ndarray] = {}
        self._succ = np.asarray(model.success)  # (7, S)
        self._flat = model.kernel.reshape(model.kernel.shape[0], model.n_states, model.n_states * N_OBS)

    def q_values(self, belief: np.ndarray, t: int) -> np.ndarray:
        """``Q(b, t, a)`` for the six principles and NOTHING (shape (7,)): success probability
        from turn ``t`` (0-based) when ``a`` is played now and the best after."""
        if not 0 <= t < self.horizon:
            raise InvalidPersona(f"turn {t} is outside the budget 0..{self.horizon - 1}")
        key = (t, np.round(belief, _KEY_DECIMALS).tobytes())
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        now = self._succ @ belief  # (7,)
        if t == self.horizon - 1:
            q = now
        else:
            S = self.model.n_states
            joints = (belief @ self._flat).reshape(-1, S, N_OBS)  # (7, S2, O): unnormalised posteriors
            q = now.copy()
            if t == self.horizon - 2:  # the last turn's value is linear in the (unnormalised) belief
                for a in range(joints.shape[0]):
                    q[a] += float((self._succ[:N_P] @ joints[a]).max(axis=0).sum())
            else:
                for a in range(joints.shape[0]):
                    po = joints[a].sum(axis=0)
                    for o in np.flatnonzero(po > 1e-14):
                        q[a] += po[o] * self.value(joints[a][:, o] / po[o], t + 1)
        q.flags.writeable = False
        self._memo[key] = q
        return q


@dataclass(frozen=True)
class References:
    """Exact success probabilities of one family at one horizon."""

    family: str
    horizon: int
    oracle: float
    bayes: float
    open_loop: float
    plan: tuple[int, ...]
    random: float

    @property
    def value_of_tracking(self) -> float:
        return self.bayes - self.open_loop

    @property
    def value_of_information(self) -> float:
        return self.oracle - self.bayes

    def as_dict(self) -> dict[str, Any]:
        return {
            "family": self.family,
            "horizon": self.horizon,
            "oracle": self.oracle,
            "bayes": self.bayes,
            "open_loop": self.open_loop,
            "open_loop_plan": [PRINCIPLES[a] for a in self.plan],
            "random": self.random,
            "value_of_tracking": self.value_of_tracking,
            "value_of_information": self.value_of_information,
        }


def random_value(model: MindModel, horizon: int) -> float:
    """Success probability of the uniformly random persuader (exact: the mean transition)."""
    T = _check_horizon(horizon)
    P = model.transitions[:N_P].mean(axis=0)
    succ = model.success[:N_P].mean(axis=0)
    m, total = np.array(model.initial), 0.0
    for _ in range(T):
        total += float(m @ succ)
        m = m @ P
    return total


_PLANNERS: dict[tuple[int, int], BayesPlanner] = {}
_TABLES: dict[tuple[int, int], OracleTable] = {}
_REFS: dict[tuple[int, int], References] = {}


def cached(store: dict, model: MindModel, horizon: int, build: Any) -> Any:
    """``store``'s entry for (model, horizon), built by ``build(model, horizon)`` on first use."""
    key = (id(model), int(horizon))
    if key not in store:
        store[key] = build(model, horizon)
    return store[key]


def oracle_for(model: MindModel, horizon: int) -> OracleTable:
    """The (cached) oracle table of a model and horizon."""
    return cached(_TABLES, model, horizon, oracle_table)


def planner_for(model: MindModel, horizon: int) -> BayesPlanner:
    """The (cached, memo shared) planner of a model and horizon (1..:data:`V1_MAX_HORIZON`)."""
    return cached(_PLANNERS, model, check_horizon_v1(horizon), BayesPlanner)


def references(model: MindModel, horizon: int) -> References:
    """Oracle, Bayes-optimal fair, best open-loop and random success probabilities (cached;
    horizons 1..:data:`V1_MAX_HORIZON`)."""
    return cached(_REFS, model, check_horizon_v1(horizon), _references)


def _references(model: MindModel, horizon: int) -> References:
    table = oracle_for(model, horizon)
    ol, plan = open_loop(model, horizon)
    return References(
        model.family.name,
        int(horizon),
        float(model.initial @ table.values[0]),
        planner_for(model, horizon).initial_value(),
        ol,
        plan,
        random_value(model, horizon),
    )


def all_plans(horizon: int) -> itertools.product:
    """Every fixed plan of principles (for brute-force checks)."""
    return itertools.product(range(N_P), repeat=horizon)
