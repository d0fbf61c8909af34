"""Finite automata describing scripted partners, so the oracle can reason about them.

An automaton has states ``s``; in each state the partner draws its action from
``policy[s]`` and, after the joint action ``(a, b)`` (focal ``a``, partner ``b``), moves
to ``transition[s, a, b]``. Transitions are deterministic given the joint action, so the
partner's state is always a known function of the public history -- which is what makes
exact backward induction over (round, state) possible.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tom_envs.errors import InvalidPartner


@dataclass(frozen=True, eq=False)
class Automaton:
    """A partner given as a finite automaton.

    Attributes:
        policy: float array (n_states, n_b); row ``s`` is the action distribution in state ``s``.
        transition: int array (n_states, n_a, n_b); next state after joint action (a, b).
        initial_state: state at round 0.
        state_names: optional names for documentation and debugging.
    """

    policy: np.ndarray
    transition: np.ndarray
    initial_state: int = 0
    state_names: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        policy = np.array(self.policy, dtype=np.float64)
        transition = np.array(self.transition, dtype=np.int64)
        if policy.ndim != 2 or transition.ndim != 3 or transition.shape[0] != policy.shape[0]:
            raise InvalidPartner(
                "automaton needs policy of shape (n_states, n_b) and transition of shape "
                f"(n_states, n_a, n_b); got {policy.shape} and {transition.shape}"
            )
        if transition.shape[2] != policy.shape[1]:
            raise InvalidPartner(
                f"policy has {policy.shape[1]} partner actions but transition has {transition.shape[2]}"
            )
        if (policy < 0).any() or not np.allclose(policy.sum(axis=1), 1.0):
            raise InvalidPartner("every row of an automaton's policy must be a probability distribution")
        n = policy.shape[0]
        if (transition < 0).any() or (transition >= n).any():
            raise InvalidPartner(f"automaton transitions must name states in range({n})")
        if not 0 <= self.initial_state < n:
            raise InvalidPartner(f"initial_state {self.initial_state} is not in range({n})")
        policy.flags.writeable = False
        transition.flags.writeable = False
        object.__setattr__(self, "policy", policy)
        object.__setattr__(self, "transition", transition)
        cdf = np.cumsum(policy, axis=1)
        cdf[:, -1] = 1.0
        cdf.flags.writeable = False
        object.__setattr__(self, "cdf", cdf)

    @property
    def n_states(self) -> int:
        return self.policy.shape[0]

    @property
    def n_focal_actions(self) -> int:
        return self.transition.shape[1]

    @property
    def n_partner_actions(self) -> int:
        return self.policy.shape[1]

    @property
    def deterministic_actions(self) -> tuple[int, ...]:
        """Per state: the action played with probability 1, or -1 where the state is stochastic."""
        out = []
        for row in self.policy:
            nz = np.flatnonzero(row > 0)
            out.append(int(nz[0]) if len(nz) == 1 else -1)
        return tuple(out)

    @property
    def is_deterministic(self) -> bool:
        return all(b >= 0 for b in self.deterministic_actions)

    @property
    def key(self) -> tuple:
        """Hashable identity (used to cache oracle solutions)."""
        return (
            self.policy.tobytes(),
            self.policy.shape,
            self.transition.tobytes(),
            self.transition.shape,
            self.initial_state,
        )

    def sample(self, state: int, u: float) -> int:
        """The action drawn in ``state`` by inverse-CDF sampling with the uniform number ``u``."""
        return int(np.searchsorted(self.cdf[state], u, side="right"))

    # ------------------------------------------------------------------ builders
    @classmethod
    def constant(cls, n_a: int, dist: "np.ndarray | list[float]") -> "Automaton":
        """A memoryless partner that draws every action from ``dist``."""
        dist = np.asarray(dist, dtype=np.float64)[None, :]
        return cls(dist, np.zeros((1, n_a, dist.shape[1]), dtype=np.int64), 0, ("only",))

    @classmethod
    def reactive(cls, n_a: int, n_b: int, first: int, response: "list[int]") -> "Automaton":
        """Plays ``first`` in round 0, then ``response[a]`` where ``a`` is the focal's last action."""
        n = 1 + n_a
        policy = np.zeros((n, n_b))
        policy[0, first] = 1.0
        for a in range(n_a):
            policy[1 + a, response[a]] = 1.0
        transition = np.empty((n, n_a, n_b), dtype=np.int64)
        transition[:] = (1 + np.arange(n_a))[None, :, None]
        return cls(policy, transition, 0, ("start",) + tuple(f"after_focal_{a}" for a in range(n_a)))

    @classmethod
    def cycle(cls, n_a: int, n_b: int, order: "list[int]") -> "Automaton":
        """Plays ``order[0], order[1], ...`` cyclically, ignoring the focal agent."""
        k = len(order)
        policy = np.zeros((k, n_b))
        policy[np.arange(k), order] = 1.0
        transition = np.empty((k, n_a, n_b), dtype=np.int64)
        transition[:] = ((np.arange(k) + 1) % k)[:, None, None]
        return cls(policy, transition, 0, tuple(f"step_{i}" for i in range(k)))
