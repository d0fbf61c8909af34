"""Any observation as one flat float vector, for RL libraries that take a ``Box`` (stable-baselines3).

:class:`VectorizeObservation` turns an env's observation space -- whatever it is -- into a flat
``Box(float32)``, one block per leaf of the space, in the space's own order (a ``Dict``'s sorted
keys, a ``Tuple``'s positions):

* ``Box``: its values, flattened (its bounds kept);
* ``Discrete`` / ``MultiDiscrete``: one-hot (one block of ``n`` per component);
* ``MultiBinary``: its 0/1 values;
* ``Text``: a **hashing bag of words**: the lower-cased words (``[a-z0-9']+``) and the bigrams of
  consecutive words, each hashed with CRC-32 (:func:`zlib.crc32`, stable across processes and
  machines) into one of ``buckets`` signed buckets (the sign from the hash's next bit, so
  collisions cancel out on average, as in Weinberger et al.'s feature hashing), then L2-normalised
  (an empty text is all zeros). Deterministic: the same text always gives the same vector.

Where the observation is a ``Dict`` with an ``action_mask`` entry (the QA envs), the mask is kept
as its 0/1 values at :attr:`VectorizeObservation.mask_slice` of the vector, and
:meth:`~VectorizeObservation.action_masks` returns the current mask, as sb3-contrib's
``MaskablePPO`` asks of an env (``get_action_masks`` through a ``VecEnv``'s ``env_method``).

The wrapper reads only the observation it is handed, so it adds nothing to what a policy learns
(the information rule, docs/architecture.md). docs/rl.md shows it in use.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from tom_envs.errors import TomEnvsError

_WORD = re.compile(r"[a-z0-9']+")
MASK_KEY = "action_mask"


class UnsupportedSpace(TomEnvsError, TypeError):
    """An observation space the vectorizer has no rule for."""


@lru_cache(maxsize=8192)
def _hashed(text: str, buckets: int) -> np.ndarray:
    words = _WORD.findall(text.lower())
    vec = np.zeros(buckets, dtype=np.float32)
    for feature in (*words, *(f"{a} {b}" for a, b in zip(words, words[1:]))):
        h = zlib.crc32(feature.encode("utf-8"))
        vec[h % buckets] += 1.0 if (h // buckets) % 2 == 0 else -1.0
    norm = float(np.sqrt(np.dot(vec, vec)))
    if norm > 0:
        vec /= norm
    vec.setflags(write=False)
    return vec


def hash_text(text: str, buckets: int = 256) -> np.ndarray:
    """The hashing bag of words of ``text`` (words and bigrams, signed CRC-32 buckets, L2-normalised)."""
    return _hashed(str(text), int(buckets))


class _Leaf:
    """One leaf of the space: where it sits in the observation, how it becomes floats."""

    def __init__(self, path: tuple[Any, ...], space: spaces.Space, buckets: int, raw: bool) -> None:
        self.path = path
        self.space = space
        self.buckets = buckets
        if isinstance(space, spaces.Box):
            self.kind, self.size = "raw", int(np.prod(space.shape))
            self.low, self.high = space.low.reshape(-1).astype(np.float64), space.high.reshape(-1).astype(np.float64)
        elif raw or isinstance(space, spaces.MultiBinary):  # an action mask: its 0/1 values, not one-hot
            self.kind, self.size = "raw", int(np.prod(space.shape))
            self.low, self.high = np.zeros(self.size), np.ones(self.size)
        elif isinstance(space, spaces.Discrete):
            self.kind, self.size = "onehot", int(space.n)
            self.low, self.high = np.zeros(self.size), np.ones(self.size)
        elif isinstance(space, spaces.MultiDiscrete):
            self.nvec = np.asarray(space.nvec).reshape(-1).astype(np.int64)
            self.offsets = np.concatenate([[0], np.cumsum(self.nvec)[:-1]])
            self.kind, self.size = "multi", int(self.nvec.sum())
            self.low, self.high = np.zeros(self.size), np.ones(self.size)
        elif isinstance(space, spaces.Text):
            self.kind, self.size = "text", buckets
            self.low, self.high = -np.ones(self.size), np.ones(self.size)
        else:
            raise UnsupportedSpace(
                f"VectorizeObservation has no rule for {type(space).__name__} at "
                f"{'/'.join(map(str, path)) or 'the top level'}; it takes Box, Discrete, "
                "MultiDiscrete, MultiBinary, Text, Dict and Tuple spaces"
            )

    def write(self, value: Any, out: np.ndarray) -> None:
        if self.kind == "raw":
            out[:] = np.asarray(value, dtype=np.float32).reshape(-1)
        elif self.kind == "onehot":
            out[:] = 0.0
            out[int(value) - int(self.space.start)] = 1.0
        elif self.kind == "multi":
            out[:] = 0.0
            out[self.offsets + (np.asarray(value).reshape(-1) - np.asarray(self.space.start).reshape(-1))] = 1.0
        else:
            out[:] = _hashed(str(value), self.buckets)


def _leaves(space: spaces.Space, path: tuple[Any, ...], buckets: int, skip: frozenset[str]) -> list[_Leaf]:
    if isinstance(space, spaces.Dict):
        return [
            leaf
            for key, sub in space.spaces.items()
            if key not in skip
            for leaf in _leaves(sub, (*path, key), buckets, skip)
        ]
    if isinstance(space, spaces.Tuple):
        return [leaf for i, sub in enumerate(space.spaces) for leaf in _leaves(sub, (*path, i), buckets, skip)]
    return [_Leaf(path, space, buckets, raw=path[-1:] == (MASK_KEY,))]


class Vectorizer:
    """The flattening of one observation space (the rules are in this module's docstring).

    Args:
        space: the observation space (``Box``, ``Discrete``, ``MultiDiscrete``, ``MultiBinary``,
            ``Text``, ``Dict`` and ``Tuple`` of them).
        buckets: the number of hashing buckets of each ``Text`` entry.
        skip: top-level ``Dict`` keys left out.

    Attributes:
        space: the flat ``Box(float32)`` it makes.
        layout: ``(path, kind, start, stop)`` of each block of the vector (``kind``: raw, onehot,
            multi, text).
        mask_slice: where the observation's ``action_mask`` sits in the vector, or None.
    """

    def __init__(self, space: spaces.Space, buckets: int = 256, skip: Sequence[str] = ()) -> None:
        if isinstance(buckets, bool) or not isinstance(buckets, int) or buckets < 1:
            raise TomEnvsError(f"buckets must be an integer >= 1, got {buckets!r}")
        keys = set(space.spaces) if isinstance(space, spaces.Dict) else set()
        unknown = sorted(set(skip) - keys)
        if unknown:
            raise TomEnvsError(f"skip names {unknown}, which the observation does not have (its keys: {sorted(keys)})")
        self.source = space
        self._leaves = _leaves(space, (), buckets, frozenset(skip))
        starts = np.cumsum([0] + [leaf.size for leaf in self._leaves])
        self._slices = [slice(int(a), int(b)) for a, b in zip(starts[:-1], starts[1:])]
        self.layout = [(leaf.path, leaf.kind, s.start, s.stop) for leaf, s in zip(self._leaves, self._slices)]
        self.mask_slice = next((s for leaf, s in zip(self._leaves, self._slices) if leaf.path == (MASK_KEY,)), None)
        low = np.concatenate([leaf.low for leaf in self._leaves]).astype(np.float32)
        high = np.concatenate([leaf.high for leaf in self._leaves]).astype(np.float32)
        self.space = spaces.Box(low, high, dtype=np.float32)
        self.buckets = buckets
        self._eye = np.eye(self.space.shape[0], dtype=np.float32) if isinstance(space, spaces.Discrete) else None

    def __call__(self, observation: Any) -> np.ndarray:
        """One observation as a vector."""
        out = np.empty(self.space.shape, dtype=np.float32)
        for leaf, where in zip(self._leaves, self._slices):
            value = observation
            for key in leaf.path:
                value = value[key]
            leaf.write(value, out[where])
        return out

    def batch(self, observations: Any) -> np.ndarray:
        """A batch of observations (a vector env's) as a ``(n, size)`` array, the same rows as
        :meth:`__call__` gives (one table lookup for a top-level ``Discrete``)."""
        if self._eye is not None:
            return self._eye[np.asarray(observations) - int(self.source.start)]
        if isinstance(self.source, spaces.Box):
            return np.asarray(observations, dtype=np.float32).reshape(len(observations), -1)
        if isinstance(observations, dict):  # a vector env's dict of batched entries
            n = len(next(iter(observations.values())))
            rows = [{k: v[i] for k, v in observations.items()} for i in range(n)]
        else:
            rows = list(observations)
        return np.stack([self(row) for row in rows])


class VectorizeObservation(gym.ObservationWrapper, gym.utils.RecordConstructorArgs):
    """Makes any observation a flat ``Box(float32)`` vector (the rules are in this module's docstring).

    Args:
        env: a Gymnasium env with any observation space made of ``Box``, ``Discrete``,
            ``MultiDiscrete``, ``MultiBinary``, ``Text``, ``Dict`` and ``Tuple``.
        buckets: the number of hashing buckets of each ``Text`` entry (default 256).
        skip: top-level ``Dict`` keys left out (e.g. ``("text",)``, the QA envs' whole prompt,
            which repeats their ``context``, ``question`` and ``choices`` entries).

    Attributes:
        vectorizer: the :class:`Vectorizer` (its ``layout``: each block of the vector).
        mask_slice: where the observation's ``action_mask`` sits in the vector, or None.

    Raises:
        UnsupportedSpace: a space it has no rule for (named with its path).
        TomEnvsError: ``buckets`` below 1, or a ``skip`` key the observation does not have.
    """

    def __init__(self, env: gym.Env, buckets: int = 256, skip: Sequence[str] = ()) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, buckets=buckets, skip=tuple(skip))
        gym.ObservationWrapper.__init__(self, env)
        self.vectorizer = Vectorizer(env.observation_space, buckets, skip)
        self.observation_space = self.vectorizer.space
        self.mask_slice = self.vectorizer.mask_slice
        self.layout = self.vectorizer.layout
        self._mask: np.ndarray | None = None

    def observation(self, observation: Any) -> np.ndarray:
        out = self.vectorizer(observation)
        if self.mask_slice is not None:
            self._mask = out[self.mask_slice] > 0.5
        return out

    def action_masks(self) -> np.ndarray:
        """The current observation's ``action_mask`` as booleans (sb3-contrib's ``MaskablePPO``).

        Raises:
            TomEnvsError: the observation has no ``action_mask``, or no observation was made yet.
        """
        if self.mask_slice is None:
            raise TomEnvsError(
                f"{self.env.unwrapped.spec.id if self.env.unwrapped.spec else 'this env'}'s "
                "observation has no action_mask; train a maskable algorithm only on envs that have one"
            )
        if self._mask is None:
            raise TomEnvsError("action_masks() before reset(): reset the env first")
        return self._mask.copy()

    @property
    def has_action_mask(self) -> bool:
        """Whether the observation carries an ``action_mask``."""
        return self.mask_slice is not None


__all__ = ["UnsupportedSpace", "VectorizeObservation", "Vectorizer", "hash_text"]
