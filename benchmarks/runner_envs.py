"""The envs the runner plays, made from the registry and wrapped in the ToM recorder.

:func:`make_env` makes a registered id (Gymnasium ids through ``gymnasium.make``, PettingZoo ids as AEC
envs) and wraps it in :class:`~wrappers.ToMRecorder` / :class:`~wrappers.AECToMRecorder`;
:func:`env_id_for` finds the id of a family and kind (no ``-v0`` literals in the benchmarks);
:func:`recorder_of` finds the recorder in a wrapper chain. Envs come from the registry, never from a class.
"""

from __future__ import annotations

from typing import Any

import tom_envs
from benchmarks.errors import RunnerError


def env_id_for(family: str, kind: str = "gymnasium", **kwargs: Any) -> str:
    """The registered id of ``family`` and ``kind`` whose default kwargs include ``kwargs`` (the newest
    version when several match), e.g. ``env_id_for(family, game="RPS")`` for a family whose ids take a ``game``."""
    matches = [
        rec.id
        for rec in tom_envs.REGISTRY.values()
        if rec.family == family and rec.kind == kind and all(rec.kwargs.get(k) == v for k, v in kwargs.items())
    ]
    if not matches:
        raise RunnerError(
            f"no registered {kind} env of family {family!r} with {kwargs}; registered: "
            f"{', '.join(tom_envs.ids(family=family)) or 'none'}"
        )
    return max(matches, key=_version)


def _version(env_id: str) -> int:
    tail = env_id.rsplit("-v", 1)[-1]
    return int(tail) if tail.isdigit() else -1


def make_env(env_id: str, record: bool | None = None, **kwargs: Any) -> Any:
    """A registered env: Gymnasium ids through ``gymnasium.make``, PettingZoo ids as AEC envs
    (``tom_envs.make_aec``), wrapped in the ToM recorder.

    Args:
        env_id: a registered id.
        record: True: wrap in the recorder (an env without the ToM contract is an error); None
            (default): wrap when the env keeps the contract (an AEC env: when it names a predictor);
            False: never.
        kwargs: constructor arguments.
    """
    from tom_envs.tom import ToMContractError, tom_spec_of

    rec = tom_envs.registration.record(env_id)
    env = tom_envs.make(env_id, **kwargs) if rec.kind == "gymnasium" else tom_envs.make_aec(env_id, **kwargs)
    if record is False:
        return env
    try:
        spec = tom_spec_of(env)
    except ToMContractError:
        if record:
            raise
        return env
    import wrappers

    if rec.kind == "gymnasium":
        return wrappers.ToMRecorder(env)
    aec_recorder = getattr(wrappers, "AECToMRecorder", None)
    if aec_recorder is None or spec.predictor is None:
        if record:
            raise RunnerError(f"{env_id} has no predictor seat to record (ToMSpec.predictor is None)")
        return env
    return aec_recorder(env)


def recorder_of(env: Any) -> Any:
    """The ToM recorder in ``env``'s wrapper chain, or None."""
    import wrappers

    kinds = tuple(k for k in (getattr(wrappers, "ToMRecorder", None), getattr(wrappers, "AECToMRecorder", None)) if k)
    while env is not None:
        if isinstance(env, kinds):
            return env
        env = getattr(env, "env", None)
    return None
