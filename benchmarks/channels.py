"""What the runner hands a policy besides the env's observations, rewards and infos, each closed as a side channel
(docs/architecture.md, "Information rule", the runner's channels):

* the task check (``check_env``): the env's frozen :class:`~tom_envs.description.EnvDescription`, never the env;
* the seed: the run's policy stream (:mod:`benchmarks.policy_seeds`), never the env's seed or a fixed function
  of it;
* the step info: without the ToM recorder's records (:func:`for_policy`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from benchmarks import policy_seeds
from benchmarks.errors import RunnerError

PolicySeed = Callable[[int], int]


def check_fit(policy: Any, envs: Sequence[Any]) -> None:
    """A policy built for another task (``check_env``: another game or horizon) fails before the episode. It gets
    the env's frozen description (:func:`tom_envs.description.describe`), never the env: through ``unwrapped`` a
    policy would read the drawn persona, partner or answers."""
    from tom_envs.description import describe

    check = getattr(policy, "check_env", None)
    if check is not None:
        for env in envs:
            check(describe(env))


def episode_policy_seed(seed: int, policy_seed: PolicySeed | None) -> int | None:
    """The seed a policy gets for the episode seeded ``seed``: ``policy_seed(seed)`` when the caller gives a
    function, else the run's policy stream (:func:`benchmarks.policy_seeds.policy_seed`).

    Raises:
        RunnerError: ``seed`` is neither a whole number nor None (an unseeded episode).
    """
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
        raise RunnerError(f"an episode's seed is a whole number (or None for an unseeded episode), got {seed!r}")
    return policy_seeds.policy_seed(seed) if policy_seed is None else policy_seed(seed)


def seat_seed(seed: int, index: int) -> int:
    """The seed of the ``index``-th distinct policy of an AEC episode whose first policy's seed is ``seed``
    (independent streams; used when a caller gives its own ``policy_seed``)."""
    return int(np.random.SeedSequence([seed, index]).generate_state(1)[0])


def for_policy(info: dict, recorder: Any) -> dict:
    """``info`` as the policy gets it: without the recorder's records, which a last step carries for
    direct users of the wrapper (the scorer stays out of band, even across episodes: a policy that
    plays the same dialogue again must not have been handed its scored answers)."""
    if recorder is None or recorder.key not in info:
        return info
    return {k: v for k, v in info.items() if k != recorder.key}
