"""Nash equilibria of small bimatrix stage games by support enumeration.

Used to build the mixed-Nash partner. Support enumeration (Lemke & Howson's textbook
companion; as in nashpy) is exact for nondegenerate games and fine for the tiny games here.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

_TOL = 1e-9


def _indifferent_mix(M: np.ndarray) -> "tuple[np.ndarray, float] | None":
    """Solve ``M @ y = v 1, sum(y) = 1`` for (y, v); None when singular."""
    k = M.shape[0]
    A = np.zeros((k + 1, k + 1))
    A[:k, :k] = M
    A[:k, k] = -1.0
    A[k, :k] = 1.0
    rhs = np.zeros(k + 1)
    rhs[k] = 1.0
    try:
        sol = np.linalg.solve(A, rhs)
    except np.linalg.LinAlgError:
        return None
    return sol[:k], float(sol[k])


def support_enumeration(A: np.ndarray, B: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """All equilibria (x, y) found by enumerating equal-size supports.

    Args:
        A: row player's payoffs, shape (n, m).
        B: column player's payoffs, shape (n, m).

    Returns:
        A list of (row mix, column mix) pairs, smallest supports first.
    """
    n, m = A.shape
    found: list[tuple[np.ndarray, np.ndarray]] = []
    for k in range(1, min(n, m) + 1):
        for I in combinations(range(n), k):
            for J in combinations(range(m), k):
                ry = _indifferent_mix(A[np.ix_(I, J)])  # column mix makes rows in I indifferent
                rx = _indifferent_mix(B[np.ix_(I, J)].T)  # row mix makes columns in J indifferent
                if ry is None or rx is None:
                    continue
                (yJ, v), (xI, u) = ry, rx
                if (yJ < -_TOL).any() or (xI < -_TOL).any():
                    continue
                y = np.zeros(m)
                y[list(J)] = np.clip(yJ, 0, None)
                x = np.zeros(n)
                x[list(I)] = np.clip(xI, 0, None)
                if (A @ y > v + _TOL).any() or (x @ B > u + _TOL).any():
                    continue
                if not any(np.allclose(x, fx) and np.allclose(y, fy) for fx, fy in found):
                    found.append((x / x.sum(), y / y.sum()))
    return found


def most_mixed_equilibrium(A: np.ndarray, B: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The equilibrium with the largest support (the first such one found)."""
    eqs = support_enumeration(A, B)
    if not eqs:  # cannot happen for nondegenerate games; degenerate ones still have a pure/mixed one
        raise ValueError("support enumeration found no equilibrium (degenerate game)")
    return max(eqs, key=lambda e: np.count_nonzero(e[0] > _TOL) + np.count_nonzero(e[1] > _TOL))
