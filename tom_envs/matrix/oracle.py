"""Exact optimal T-step responses to automaton partners, and the ToM metrics of seed 004.

The optimal response is computed by backward induction over (round, partner state)::

    V[T, s] = 0
    Q[t, s, a] = sum_b P[s, b] * (R[a, b] + V[t+1, next[s, a, b]])
    V[t, s] = max_a Q[t, s, a]          pi[t, s] = lowest argmax

Because the partner's state is a function of the public history, ``pi`` is a policy the focal
agent could actually follow. For stochastic partners the values are expectations.
Definitions (docs/architecture.md, from 004 §2.1):

* ΔFunctional = sum_t (r*_t - r_t) with r*_t the (expected) reward of the optimal response at
  round t -- see :attr:`OracleSolution.optimal_rewards`.
* ΔToM = sum_t c(b̂_t, b_t), the cost of acting on the prediction b̂_t when the partner plays b_t,
  under one of three responses: ``stage`` (:attr:`MatrixGame.stage_regret`), ``reciprocal``
  (:attr:`MatrixGame.reciprocal_regret`) and ``action_value`` (:func:`action_value_costs`, from the
  values computed here).
* ToM % = share of rounds with b̂_t = b_t.
* Relevance of a partner distribution: E_{π', π''}[ΔFunctional(π'*, π'')/T] -- :func:`relevance`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from tom_envs.errors import OracleUnavailable
from tom_envs.matrix.automaton import Automaton
from tom_envs.matrix.games import MatrixGame

_TIE_TOL = 1e-9


@dataclass(frozen=True, eq=False)
class OracleSolution:
    """The optimal T-step response to one automaton partner.

    Attributes:
        horizon: number of rounds T.
        values: ``V[t, s]``, optimal expected return from round t in state s; shape (T+1, S).
        policy: ``pi[t, s]``, the optimal focal action (lowest index among ties); shape (T, S).
        optimal_rewards: expected reward of the optimal response at each round, starting from
            the partner's initial state; shape (T,). Sums to :attr:`optimal_return`.
        initial_state: the partner automaton's initial state.
        automaton: the partner automaton the solution responds to (to track its state).
    """

    horizon: int
    values: np.ndarray
    policy: np.ndarray
    optimal_rewards: np.ndarray
    initial_state: int
    automaton: Automaton

    @property
    def optimal_return(self) -> float:
        """Expected return of the optimal response over the whole episode."""
        return float(self.values[0, self.initial_state])

    def __repr__(self) -> str:
        return f"OracleSolution(horizon={self.horizon}, optimal_return={self.optimal_return:g}, states={self.values.shape[1]})"

    def action(self, t: int, state: int) -> int:
        """Optimal focal action at round ``t`` when the partner is in ``state``."""
        return int(self.policy[t, state])


def _first_argmax(Q: np.ndarray) -> np.ndarray:
    """Lowest index among near-maximal entries along the last axis."""
    best = Q.max(axis=-1, keepdims=True)
    return np.argmax(Q >= best - _TIE_TOL, axis=-1)


def solve(game: MatrixGame, automaton: Automaton, horizon: int) -> OracleSolution:
    """Optimal T-step response of the focal agent to ``automaton`` in ``game``.

    Solutions are cached per (game, automaton, horizon): partners are drawn from small
    populations, so an environment pays for each solution once.
    """
    if horizon < 1:
        raise ValueError(f"horizon must be a positive number of rounds, got {horizon}")
    key = (game.key, automaton.key, horizon)
    sol = _CACHE.get(key)
    if sol is None:
        if len(_CACHE) >= 4096:
            _CACHE.clear()
        sol = _CACHE[key] = _backward_induction(game, automaton, horizon)
    return sol


_CACHE: dict[tuple, OracleSolution] = {}


def clear_cache() -> None:
    """Forget every solved oracle (they are solved again on demand; e.g. to time :func:`solve`)."""
    _CACHE.clear()


def _backward_induction(game: MatrixGame, aut: Automaton, T: int) -> OracleSolution:
    R = game.focal_payoffs  # (n_a, n_b)
    P = aut.policy  # (S, n_b)
    N = aut.transition  # (S, n_a, n_b)
    S, n_a = aut.n_states, game.n_actions
    V = np.zeros((T + 1, S))
    Q = np.empty((T, S, n_a))
    idx = np.arange(S)
    det = aut.deterministic_actions
    deterministic = all(b >= 0 for b in det)
    if deterministic:
        b_of = np.array(det)
        ER = R[:, b_of].T  # (S, n_a): reward of a against the state's action
        Ndet = N[idx, :, b_of]  # (S, n_a)
        for t in range(T - 1, -1, -1):
            q = Q[t]
            np.add(ER, V[t + 1][Ndet], out=q)
            q.max(axis=1, out=V[t])
    else:
        ER = P @ R.T  # (S, n_a): expected immediate reward
        P3 = P[:, None, :]
        for t in range(T - 1, -1, -1):
            q = Q[t]
            np.add(ER, (V[t + 1][N] * P3).sum(axis=2), out=q)
            q.max(axis=1, out=V[t])
    pi = _first_argmax(Q)
    # forward pass: expected reward of the optimal response at each round
    rewards = np.empty(T)
    if deterministic:
        s = aut.initial_state
        for t in range(T):
            a = pi[t, s]
            rewards[t] = ER[s, a]
            s = Ndet[s, a]
    else:
        d = np.zeros(S)
        d[aut.initial_state] = 1.0
        for t in range(T):
            a = pi[t]
            rewards[t] = d @ ER[idx, a]
            nd = np.zeros(S)
            np.add.at(nd, N[idx, a, :].ravel(), (d[:, None] * P).ravel())
            d = nd
    for arr in (V, pi, rewards):
        arr.flags.writeable = False
    return OracleSolution(T, V, pi, rewards, aut.initial_state, aut)


def action_value_costs(game: MatrixGame, solution: OracleSolution) -> np.ndarray:
    """ΔToM's ``action_value`` costs ``C[t, s, b_hat, b]`` against the partner automaton of ``solution``.

    With the oracle's values V (:attr:`OracleSolution.values`) and the automaton's transitions N,
    the exact value of playing a at round t (0-based) in partner state s when the partner plays b is
    ``Q_t(s, a | b) = R(a, b) + V[t+1, N(s, a, b)]`` (the reward now, then the optimal response). An
    agent that trusts the prediction b_hat plays ``m_t(s, b_hat) = argmax_a Q_t(s, a | b_hat)``
    (lowest index on ties), and the cost of that prediction when the partner plays b is::

        C[t, s, b_hat, b] = max_a Q_t(s, a | b) - Q_t(s, m_t(s, b_hat) | b)   (>= 0, 0 when b_hat = b)

    It equals :attr:`MatrixGame.stage_regret` in the last round and against memoryless partners
    (one state), where the future does not depend on the round's actions. Shape (T, S, n_b, n_b),
    read-only; cached per (game, automaton, horizon) like :func:`solve`.
    """
    key = (game.key, solution.automaton.key, solution.horizon)
    costs = _COSTS.get(key)
    if costs is None:
        if len(_COSTS) >= 4096:
            _COSTS.clear()
        R = game.focal_payoffs  # (n_a, n_b)
        N = solution.automaton.transition  # (S, n_a, n_b)
        Q = R[None, None] + solution.values[1:][:, N]  # (T, S, n_a, n_b)
        best = Q.max(axis=2)  # (T, S, n_b): the value of the best action against each b
        m = _first_argmax(np.moveaxis(Q, 2, 3))  # (T, S, n_b): the action trusted for each b_hat
        chosen = np.take_along_axis(Q, m[:, :, :, None], axis=2)  # (T, S, b_hat, n_b)
        costs = _COSTS[key] = np.maximum(best[:, :, None, :] - chosen, 0.0)
        costs.flags.writeable = False
    return costs


_COSTS: dict[tuple, np.ndarray] = {}


def expected_return(
    game: MatrixGame, policy_automaton: Automaton, solution: OracleSolution, partner: Automaton
) -> float:
    """Expected return of the optimal response to ``policy_automaton`` when it actually meets ``partner``.

    The focal agent follows ``solution`` (optimal against ``policy_automaton``), tracking the
    believed partner's state on the observed joint actions; the true partner is ``partner``.
    Computed exactly by propagating the distribution over (believed state, true state).
    """
    R = game.focal_payoffs
    S1, S2 = policy_automaton.n_states, partner.n_states
    d = np.zeros((S1, S2))
    d[policy_automaton.initial_state, partner.initial_state] = 1.0
    total = 0.0
    N1, N2, P2 = policy_automaton.transition, partner.transition, partner.policy
    for t in range(solution.horizon):
        a_of = solution.policy[t]  # (S1,)
        nd = np.zeros_like(d)
        for s1 in range(S1):
            a = a_of[s1]
            row = d[s1]
            if not row.any():
                continue
            for s2 in np.flatnonzero(row):
                for b in np.flatnonzero(P2[s2]):
                    p = row[s2] * P2[s2, b]
                    total += p * R[a, b]
                    nd[N1[s1, a, b], N2[s2, a, b]] += p
        d = nd
    return float(total)


def relevance(
    game: MatrixGame, partners: Sequence, weights: Sequence[float] | None = None, horizon: int = 100
) -> float:
    """004's relevance of a partner distribution: E_{π',π''}[ΔFunctional(π'*, π'')/T].

    ``partners`` are automaton partners (or :class:`Automaton` objects); both draws are
    independent with probabilities ``weights`` (uniform by default). RPS against the three
    single-action partners gives exactly 1.0.
    """
    auts = [p if isinstance(p, Automaton) else p.automaton() for p in partners]
    if any(a is None for a in auts):
        raise OracleUnavailable("relevance needs automaton partners (exact optimal responses)")
    w = np.ones(len(auts)) if weights is None else np.asarray(weights, dtype=np.float64)
    w = w / w.sum()
    sols = [solve(game, a, horizon) for a in auts]
    total = 0.0
    for i, (a1, s1) in enumerate(zip(auts, sols)):
        for j, (a2, s2) in enumerate(zip(auts, sols)):
            regret = s2.optimal_return - expected_return(game, a1, s1, a2)
            total += w[i] * w[j] * regret / horizon
    return float(total)
