"""References of live persuasion v2 at every supported horizon (1..:data:`MAX_HORIZON`), fast at reset.

v1's exact expectimax (:mod:`tom_envs.persuasion.planning`) grows exponentially with the horizon
(v2's nine strategies: ~15 s per family already at T = 4). v2 replaces it with **bounds whose gap
is stated**, computed in seconds per family at T = 10:

* **Bayes-optimal fair persuader** (persona unknown, dialogue observed): a point-based value
  iteration (:class:`PointPlanner`): belief points per turn, collected by simulating the model from
  the prior (a fixed seed, so it is deterministic), and exact backups over them; every alpha vector
  is the value of a conditional plan, so ``max_alpha alpha . b`` is a *lower bound* on the optimal
  value at ``b``. The v2 Bayes persuader plays the one-step lookahead on these vectors, which
  achieves at least the lower bound at every belief (the vectors come from backups of the next
  turn's vectors); ``bayes`` is that guaranteed value. The *upper bound* ``bayes_upper`` is a
  two-turn expectimax over the fast informed bound (Hauskrecht 2000: the next strategy may depend
  on the current state and the reply, never more). The Bayes value lies in ``[bayes, bayes_upper]``.
* **oracle**: exact (finite-horizon DP over the hidden states, v1's :func:`~tom_envs.persuasion.planning.oracle_table`).
* **best open-loop plan**: exact (every ``6**T`` plan, enumerated level by level) up to
  :data:`OPEN_LOOP_EXACT`; beyond, a beam search over plans (``open_loop``: the exact value of the
  plan found, a lower bound) and ``open_loop_upper``: the informed bound with a single reply (the
  next strategy may depend on the current state), min the Bayes upper bound.
* random: exact.

Past :data:`MAX_HORIZON` the env and these functions raise :class:`UnsupportedHorizon`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tom_envs.persuasion.mind import LIKING, N_OBS, WARY, MindModel
from tom_envs.persuasion.planning import (
    Planner,
    References,
    TIE_TOL,
    UnsupportedHorizon,
    cached,
    lowest_best,
    oracle_for,
    random_value,
)
from tom_envs.persuasion.principles import PRINCIPLES, InvalidPersona

N_P = len(PRINCIPLES)
MAX_HORIZON = 10
OPEN_LOOP_EXACT = 6
BEAM = 3000
POINTS = 160  # belief points per turn and collection pass
TRAJECTORIES = 400


def check_horizon_v2(horizon: Any) -> int:
    if isinstance(horizon, bool) or not isinstance(horizon, (int, np.integer)) or horizon < 1:
        raise InvalidPersona(f"the turn budget is a positive integer, got {horizon!r}")
    if horizon > MAX_HORIZON:
        raise UnsupportedHorizon(
            f"live persuasion v2 plans for turn budgets 1..{MAX_HORIZON}, got {horizon}: its "
            f"references (bounds in seconds per family) stop there; pass horizon <= {MAX_HORIZON}"
        )
    return int(horizon)


class PointPlanner(Planner):
    """Point-based lower bound (and the persuader that achieves it) plus the informed upper bound.

    Args:
        model: the family's model (v1 or v2 interface).
        horizon: the turn budget, 1..:data:`MAX_HORIZON`.
        points: belief points kept per turn and pass.
        seed: the seed of the point collection (deterministic).
    """

    def __init__(self, model: MindModel, horizon: int, points: int = POINTS, seed: int = 0) -> None:
        self.model = model
        self.horizon = check_horizon_v2(horizon)
        self.points = int(points)
        K = np.asarray(model.kernel)
        self.n_actions = K.shape[0]
        self._succ = np.asarray(model.success)
        self._flat = K.reshape(self.n_actions, model.n_states, model.n_states * N_OBS)
        self._K = K
        n = model.n_personas  # the persona never changes: the kernel is block-diagonal by persona
        blk = model.n_states // n
        self._Kb = np.stack([K[:, p * blk : (p + 1) * blk, p * blk : (p + 1) * blk] for p in range(n)], axis=1)
        self._blk = blk
        self._fib = self._informed_bound()
        rng = np.random.default_rng(seed)
        pts = self._collect(rng, None)
        self.alphas = self._backup_all(pts)
        pts = [np.vstack([p, q]) for p, q in zip(pts, self._collect(rng, self.alphas))]
        self.alphas = self._backup_all(pts)
        self._W = [None] * (self.horizon + 1)

    # ------------------------------------------------------------------ lower bound
    def _through(self, alphas: np.ndarray, actions: int | None = None) -> np.ndarray:
        """``W[a, o, m, s] = sum_s2 K[a, s, s2, o] alphas[m, s2]`` (the next turn's vectors seen from now),
        for the first ``actions`` strategies (default all)."""
        Kb = self._Kb[:actions]
        A, n, blk = Kb.shape[0], Kb.shape[1], self._blk
        W = np.einsum("apsqo,mpq->aomps", Kb, alphas.reshape(len(alphas), n, blk), optimize=True)
        return np.ascontiguousarray(W.reshape(A, N_OBS, len(alphas), n * blk))

    def _backup_all(self, pts: list[np.ndarray]) -> list[np.ndarray]:
        T, S = self.horizon, self.model.n_states
        alphas: list[np.ndarray] = [np.zeros((0, S))] * T + [np.zeros((1, S))]
        for t in range(T - 1, -1, -1):
            W = self._through(alphas[t + 1], N_P)  # (6, O, m, S)
            B = pts[t]
            best_val, best_alpha = np.full(len(B), -np.inf), np.zeros((len(B), S))
            for a in range(N_P):
                m = W.shape[2]
                sc = (B @ W[a].reshape(N_OBS * m, S).T).reshape(len(B), N_OBS, m)
                pick = sc.argmax(axis=2)  # (n, O)
                alpha = self._succ[a] + W[a][np.arange(N_OBS)[None, :], pick].sum(axis=1)  # (n, S)
                val = np.einsum("ns,ns->n", B, alpha)
                better = val > best_val + TIE_TOL
                best_val[better], best_alpha[better] = val[better], alpha[better]
            alphas[t] = np.unique(np.round(best_alpha, 12), axis=0)
        return alphas

    def q_values(self, belief: np.ndarray, t: int) -> np.ndarray:
        """Lower-bound ``Q(b, t, a)`` for every strategy: the success probability of ``a`` now and the
        next turn's vectors after (shape (n_strategies,))."""
        if not 0 <= t < self.horizon:
            raise InvalidPersona(f"turn {t} is outside the budget 0..{self.horizon - 1}")
        if self._W[t + 1] is None:
            self._W[t + 1] = self._through(self.alphas[t + 1])
        W = self._W[t + 1]  # (A, O, m, S)
        A, O, m, S = W.shape
        sc = (W.reshape(-1, S) @ belief).reshape(A, O, m)
        return self._succ @ belief + sc.max(axis=2).sum(axis=1)

    def gap(self, belief: np.ndarray, t: int, strategy: int) -> float:
        """V - Q of ``strategy`` on the lower bound, at least 0 (``initial_value`` is the lower bound before the
        opening reply: the lookahead persuader achieves at least this)."""
        return max(super().gap(belief, t, strategy), 0.0)

    # ------------------------------------------------------------------ upper bound
    def _informed_bound(self) -> list[np.ndarray]:
        """``QF[t][s, a]`` for the six principles: the fast informed bound."""
        S = self.model.n_states
        QF = [np.zeros((S, N_P)) for _ in range(self.horizon + 1)]
        for t in range(self.horizon - 1, -1, -1):
            nxt = np.einsum("asqo,qb->asob", self._K[:N_P], QF[t + 1], optimize=True).max(axis=3).sum(axis=2)
            QF[t] = (self._succ[:N_P] + nxt).T
        return QF

    def upper(self, belief: np.ndarray, t: int, depth: int = 2) -> float:
        """An upper bound on the Bayes-optimal value at ``belief`` (unnormalised beliefs scale it)."""
        if t >= self.horizon:
            return 0.0
        if depth == 0:
            return float((belief @ self._fib[t]).max())
        best = 0.0
        for a in range(N_P):
            J = (belief @ self._flat[a]).reshape(self.model.n_states, N_OBS)
            val = float(self._succ[a] @ belief)
            for o in np.flatnonzero(J.sum(axis=0) > 1e-14):
                val += self.upper(J[:, o], t + 1, depth - 1)
            best = max(best, val)
        return best

    def initial_upper(self) -> float:
        return self.over_openings(lambda b: self.upper(b, 0))

    # ------------------------------------------------------------------ belief points
    def _collect(self, rng: np.random.Generator, alphas: list[np.ndarray] | None) -> list[np.ndarray]:
        """Beliefs reached per turn by :data:`TRAJECTORIES` simulated dialogues played in lockstep (30 % random
        principles; else a tracking rule, or with ``alphas`` their lookahead persuader), thinned to ``points``
        per turn."""
        m, T = self.model, self.horizon
        seen: list[list[np.ndarray]] = [[] for _ in range(T)]
        joint = m.initial[:, None] * m.opening
        po = joint.sum(axis=0)
        seen[0] += [joint[:, o] / po[o] for o in np.flatnonzero(po > 1e-14)]
        if alphas is not None:
            self.alphas, self._W = alphas, [None] * (T + 1)
        live = []
        for _ in range(TRAJECTORIES):
            s, reply = m.sample_initial(rng)
            live.append((s, m.open_belief(reply)))
        for t in range(T):
            if not live:
                break
            B = np.array([b for _, b in live])
            seen[t] += list(B)
            if alphas is not None:
                if self._W[t + 1] is None:
                    self._W[t + 1] = self._through(self.alphas[t + 1])
                W = self._W[t + 1][:N_P]
                sc = (W.reshape(-1, W.shape[-1]) @ B.T).reshape(N_P, N_OBS, -1, len(B))
                q = (B @ self._succ[:N_P].T).T + sc.max(axis=2).sum(axis=1)  # (6, n)
                chosen = [lowest_best(q[:, i]) for i in range(len(B))]
            else:
                wary = B @ self.model.marginals["belief"][:, WARY]
                concern = (B @ self.model.marginals["intention"]).argmax(axis=1)
                chosen = [LIKING if w > 0.5 else int(c) for w, c in zip(wary, concern)]
            nxt = []
            for (s, b), a in zip(live, chosen):
                if rng.random() < 0.3:
                    a = int(rng.integers(N_P))
                agreed, s2, o = m.sample_step(s, a, rng)
                if not agreed and s2 is not None and t < T - 1:
                    nxt.append((int(s2), m.update(b, a, int(o))))
            live = nxt
        out = []
        for t in range(T):
            B = np.unique(np.round(np.array(seen[t]), 9), axis=0)
            if len(B) > self.points:
                B = B[np.sort(rng.choice(len(B), size=self.points, replace=False))]
            out.append(B)
        return out


# ---------------------------------------------------------------------- open loop
def open_loop_v2(model: MindModel, horizon: int) -> tuple[float, tuple[int, ...], bool]:
    """(value, plan, exact): every plan up to :data:`OPEN_LOOP_EXACT` turns, a beam of :data:`BEAM` beyond
    (then the value is that plan's exact value, a lower bound on the best)."""
    T = check_horizon_v2(horizon)
    P, succ = model.transitions[:N_P], model.success[:N_P]
    dists = np.array(model.initial)[None, :]
    acc = np.zeros(1)
    plans = np.zeros((1, 0), dtype=np.int64)
    exact = T <= OPEN_LOOP_EXACT
    for _ in range(T):
        acc = (acc[:, None] + dists @ succ.T).ravel()  # (n * 6)
        dists = np.einsum("ns,asq->naq", dists, P).reshape(-1, model.n_states)
        plans = np.hstack([np.repeat(plans, N_P, axis=0), np.tile(np.arange(N_P), len(plans))[:, None]])
        if not exact and len(acc) > BEAM:
            keep = np.sort(np.argsort(-acc, kind="stable")[:BEAM])
            acc, dists, plans = acc[keep], dists[keep], plans[keep]
    k = int(np.flatnonzero(acc >= acc.max() - TIE_TOL)[0])
    return float(acc[k]), tuple(int(a) for a in plans[k]), exact


def open_loop_upper(model: MindModel, horizon: int) -> float:
    """An upper bound on every fixed plan's value: the informed bound with one (empty) reply."""
    T = check_horizon_v2(horizon)
    P, succ = model.transitions[:N_P], model.success[:N_P]
    Q = np.zeros((model.n_states, N_P))
    for _ in range(T):
        Q = (succ + np.einsum("asq,qb->asb", P, Q).max(axis=2)).T
    return float((model.initial @ Q).max())


@dataclass(frozen=True)
class ReferencesV2(References):
    """v2's references of one family at one horizon: v1's (:class:`~tom_envs.persuasion.planning.References`:
    success probabilities, the gaps between them), ``bayes`` a lower bound and ``open_loop`` exact or a lower
    bound, plus the upper bounds ``bayes_upper`` and ``open_loop_upper`` and whether ``open_loop`` is exact."""

    bayes_upper: float
    open_loop_upper: float
    open_loop_exact: bool

    def as_dict(self) -> dict[str, Any]:
        v1 = super().as_dict()
        keys = (
            "family",
            "horizon",
            "oracle",
            "bayes",
            "bayes_upper",
            "bayes_error",
            "open_loop",
            "open_loop_upper",
            "open_loop_exact",
            "open_loop_plan",
            "random",
            "value_of_tracking",
            "value_of_information",
        )
        more = {
            "bayes_upper": self.bayes_upper,
            "bayes_error": self.bayes_upper - self.bayes,
            "open_loop_upper": self.open_loop_upper,
            "open_loop_exact": self.open_loop_exact,
        }
        return {k: more[k] if k in more else v1[k] for k in keys}


_PLANNERS: dict[tuple[int, int], PointPlanner] = {}
_REFS: dict[tuple[int, int], ReferencesV2] = {}


def point_planner_for(model: MindModel, horizon: int) -> PointPlanner:
    """The (cached) point-based planner of a model and horizon."""
    return cached(_PLANNERS, model, check_horizon_v2(horizon), PointPlanner)


def references_v2(model: MindModel, horizon: int) -> ReferencesV2:
    """Oracle (exact), Bayes (bounds), best open-loop (exact or beam + bound), random (exact); cached."""
    return cached(_REFS, model, check_horizon_v2(horizon), _references_v2)


def _references_v2(model: MindModel, horizon: int) -> ReferencesV2:
    planner = point_planner_for(model, horizon)
    ol, plan, exact = open_loop_v2(model, horizon)
    upper = planner.initial_upper()
    return ReferencesV2(
        family=model.family.name,
        horizon=int(horizon),
        oracle=float(model.initial @ oracle_for(model, horizon).values[0]),
        bayes=planner.initial_value(),
        bayes_upper=upper,
        open_loop=ol,
        open_loop_upper=ol if exact else min(open_loop_upper(model, horizon), upper),
        open_loop_exact=exact,
        plan=plan,
        random=random_value(model, horizon),
    )


__all__ = [
    "MAX_HORIZON",
    "PointPlanner",
    "ReferencesV2",
    "UnsupportedHorizon",
    "check_horizon_v2",
    "open_loop_upper",
    "open_loop_v2",
    "point_planner_for",
    "references_v2",
]
