"""The one Policy protocol every agent implements (docs/architecture.md, "One Policy protocol").

An evaluation loop for one episode looks like::

    policy.reset(seed)
    obs, info = env.reset(seed=seed)
    while True:
        prediction = policy.predict(obs, info)   # optional: literal ToM, before acting
        action = policy.act(obs, info)
        obs, reward, terminated, truncated, info = env.step(action)
        policy.observe(obs, reward, terminated, truncated, info)
        if terminated or truncated: break

``info`` passed to ``act``/``predict`` is the one returned by the last ``reset``/``step``.
The batched forms run many episodes in lockstep: ``reset_batch(seeds)`` opens one slot per
episode, and ``act_batch``/``predict_batch``/``observe_batch`` take one entry per slot, or, with
``slots=[i, ...]``, one entry for each listed slot (the episodes whose turn it is: in an AEC env the
seats of different episodes come up at different times). The default implementation keeps an
independent copy of the policy per slot and loops; LLM policies override them so that one backend
call serves every live episode.
"""

from __future__ import annotations

import copy
from typing import Any, Protocol, Sequence, runtime_checkable

import numpy as np

from tom_envs.errors import TomEnvsError


@runtime_checkable
class Policy(Protocol):
    """What the evaluation runner needs from an agent."""

    def reset(self, seed: int | None = None) -> None:
        """Start a new episode; all randomness must come from ``seed``."""

    def act(self, observation: Any, info: dict) -> Any:
        """The action for the current round."""


class BasePolicy:
    """Convenience base class: seeding, a no-op ``observe``, and looping batched forms.

    Subclasses implement :meth:`act` and, if they model the other agent, :meth:`predict`
    (return None when no prediction is made). Set ``makes_predictions = True`` then.
    """

    makes_predictions: bool = False

    def __init__(self) -> None:
        self.rng = np.random.default_rng()
        self._slots: list[BasePolicy] = []

    # ------------------------------------------------------------------ single episode
    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: Any, info: dict) -> Any:  # pragma: no cover - interface
        raise NotImplementedError

    def predict(self, observation: Any, info: dict) -> Any:
        """Literal-ToM prediction for the coming step, in the env's ToM targets (``tom_spec``,
        :mod:`tom_envs.tom`), as :meth:`wrappers.ToMRecorder.record_prediction` takes it: for a
        single target its value (matrix games: the partner's action index, or a probability
        vector over its actions; QA envs: the answer), otherwise ``{target: value}``; None if the
        policy makes none."""
        return None

    def observe(self, observation: Any, reward: float, terminated: bool, truncated: bool, info: dict) -> None:
        """Feedback after a step (learning agents use it; scripted ones ignore it)."""

    def check_env(self, description: Any) -> None:
        """Raise :class:`PolicyMismatch` if the policy was built for another task than the env's (another
        game, another horizon); the runner calls it before every episode with the env's frozen, picklable
        :class:`tom_envs.description.EnvDescription` (id, kwargs, spaces, horizon, agents), never with the env
        itself (docs/architecture.md, "Information rule"). Default: fits any env."""

    # ------------------------------------------------------------------ batched (lockstep) forms
    def reset_batch(self, seeds: Sequence[int | None]) -> None:
        """Open one independent slot per episode."""
        template = copy.copy(self)
        template._slots = []
        self._slots = []
        for seed in seeds:
            slot = copy.deepcopy(template)
            slot.reset(seed)
            self._slots.append(slot)

    def act_batch(
        self, observations: Sequence[Any], infos: Sequence[dict], slots: Sequence[int] | None = None
    ) -> list[Any]:
        self._own_batch("act_batch", "act")
        return [s.act(o, i) for s, o, i in zip(self._check_batch(observations, slots), observations, infos)]

    def predict_batch(
        self, observations: Sequence[Any], infos: Sequence[dict], slots: Sequence[int] | None = None
    ) -> list[Any]:
        if self._own_batch("predict_batch", "predict"):
            return [None] * len(observations)
        return [s.predict(o, i) for s, o, i in zip(self._check_batch(observations, slots), observations, infos)]

    def observe_batch(
        self, observations, rewards, terminateds, truncateds, infos, slots: Sequence[int] | None = None
    ) -> None:
        if self._own_batch("observe_batch", "observe"):
            return
        for s, *args in zip(
            self._check_batch(observations, slots), observations, rewards, terminateds, truncateds, infos
        ):
            s.observe(*args)

    def _own_batch(self, batched: str, single: str) -> bool:
        """Whether a subclass that keeps its own batch state (it overrides :meth:`reset_batch`, which then opens
        none of the default per-episode copies) leaves the default ``batched`` form with nothing to do: True when it
        does not override ``single`` either (no prediction; no feedback to take). A ``single`` it does override has
        no per-episode copy to run on: a :class:`BatchSlotError` that says what to implement."""
        if self._slots or type(self).reset_batch is BasePolicy.reset_batch:
            return False
        if getattr(type(self), single) is getattr(BasePolicy, single, None):
            return True
        raise BatchSlotError(
            f"{type(self).__name__} overrides reset_batch (its own batch state), so the default {batched} has no "
            f"per-episode copies to run {single} on; implement {batched} too, or call super().reset_batch(seeds) "
            "in reset_batch to open them"
        )

    def _check_batch(self, observations: Sequence[Any], slots: Sequence[int] | None = None) -> list[Any]:
        """The slots the entries belong to: all of them in order, or those listed in ``slots``."""
        return select_slots(self._slots, len(observations), slots)


def select_slots(opened: Sequence[Any], n: int, slots: Sequence[int] | None) -> list[Any]:
    """The slots ``n`` batch entries belong to (all ``opened`` ones, or those indexed by ``slots``).

    Raises:
        BatchSlotError: the entries do not match the slots opened by ``reset_batch``.
    """
    if slots is None:
        if n != len(opened):
            raise BatchSlotError(
                f"got {n} observations for {len(opened)} episode slots; call "
                "reset_batch(seeds) with one seed per episode first, or pass slots=[...]"
            )
        return list(opened)
    picked = list(slots)
    if (
        len(picked) != n
        or len(set(picked)) != n
        or any(isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < len(opened) for i in picked)
    ):
        raise BatchSlotError(
            f"slots={picked!r} must give one distinct index in 0..{len(opened) - 1} for each of the "
            f"{n} observations (the episodes opened by reset_batch)"
        )
    return [opened[i] for i in picked]


class PolicyMismatch(TomEnvsError, ValueError):
    """A policy was built for another task than the env it is asked to play (another game, another
    horizon): the message says what to build it with."""


class BatchSlotError(TomEnvsError, ValueError):
    """Batched policy calls whose entries do not match the episode slots opened by ``reset_batch``."""


def joint_code(observation: Any) -> int:
    """The last joint-action code ``a * n_b + b`` in a matrix-game observation (the start symbol
    ``n_a * n_b`` before the first round). Works for the scalar and the ``history=k`` forms."""
    return int(observation) if np.ndim(observation) == 0 else int(np.asarray(observation)[0])
