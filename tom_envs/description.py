"""What a policy may know about the env it is asked to play: a frozen, picklable description, never the env.

The runner checks that a policy fits its task before every episode (``policy.check_env(description)``,
docs/architecture.md, "Information rule"). Handing the env object itself over would be a side channel: through
``env.unwrapped`` a policy reads the drawn persona, the partner, the answers. So the runner hands over an
:class:`EnvDescription` instead: the registered id, the keyword arguments it was made with (the public
configuration a user typed), copies of the spaces the policy acts in, the horizon and the agents. It holds no
reference to the env, no generator and nothing drawn at reset.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tom_envs.errors import TomEnvsError

#: Attributes that lead from a wrapper to what it wraps (Gymnasium, PettingZoo and this suite's wrappers).
_INNER = ("env", "aec_env", "par_env", "aec")


class NotAnEnv(TomEnvsError, TypeError):
    """:func:`describe` was given something that is neither a Gymnasium nor a PettingZoo env."""


@dataclass(frozen=True)
class EnvDescription:
    """The public description of an env, as a policy's ``check_env`` gets it.

    Attributes:
        id: the registered id (``"tom/RPS-v0"``), None for an env made without the registry.
        kind: ``"gymnasium"`` or ``"aec"``.
        kwargs: the keyword arguments the env was made with, registry defaults included, as
            :func:`public_value` hands them over: plain data copied, an object by its declared public view
            (``tom_public_view()``) or else by its type's name only (``"<Scenario>"`` has none of its parties'
            preferences).
        observation_space, action_space: the policy's spaces (Gymnasium: the outermost wrapper's; AEC: a mapping
            agent → space). Copies, reseeded with a fixed seed: they share no generator with the env.
        horizon: the configured episode length (a ``horizon`` argument or attribute, else the spec's
            ``max_episode_steps``); None when the env has none.
        agents: the AEC env's ``possible_agents`` (empty for Gymnasium envs).
    """

    id: str | None
    kind: str
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    observation_space: Any = None
    action_space: Any = None
    horizon: int | None = None
    agents: tuple[str, ...] = ()


def describe(env: Any) -> EnvDescription:
    """The :class:`EnvDescription` of ``env`` (a Gymnasium env or a PettingZoo AEC env, wrapped or not).

    Raises:
        NotAnEnv: ``env`` has neither a Gymnasium ``reset``/``step`` pair nor PettingZoo's ``possible_agents``.
    """
    if not callable(getattr(env, "reset", None)) or not callable(getattr(env, "step", None)):
        raise NotAnEnv(f"describe() takes a Gymnasium or PettingZoo env, got {type(env).__name__}")
    chain = _chain(env)
    env_id, kwargs, spec_steps = _identity(chain)
    horizon = kwargs.get("horizon")
    if not _is_int(horizon):
        horizon = next((h for h in (getattr(e, "horizon", None) for e in chain) if _is_int(h)), spec_steps)
    agents = getattr(env, "possible_agents", None)
    if agents is not None:
        agents = tuple(agents)
        return EnvDescription(
            env_id,
            "aec",
            kwargs,
            {a: _copy(env.observation_space(a)) for a in agents},
            {a: _copy(env.action_space(a)) for a in agents},
            horizon,
            agents,
        )
    return EnvDescription(env_id, "gymnasium", kwargs, _copy(env.observation_space), _copy(env.action_space), horizon)


def _chain(env: Any) -> list[Any]:
    """``env`` and everything it wraps, outermost first (each object once)."""
    out: list[Any] = []
    while env is not None and all(env is not e for e in out):
        out.append(env)
        env = next((getattr(env, a) for a in _INNER if getattr(env, a, None) is not None), None)
    return out


def _identity(chain: list[Any]) -> tuple[str | None, dict[str, Any], int | None]:
    """The id and kwargs the innermost env was made with (Gymnasium: its spec; PettingZoo ids: the stamp
    :func:`tom_envs.make` leaves), and the spec's ``max_episode_steps``."""
    for e in reversed(chain):
        spec = getattr(e, "spec", None)
        if spec is not None and getattr(spec, "id", None):
            return spec.id, _copy_kwargs(spec.kwargs or {}), getattr(spec, "max_episode_steps", None)
        stamp = getattr(e, "tom_made", None)
        if isinstance(stamp, tuple) and len(stamp) == 2:
            return stamp[0], _copy_kwargs(stamp[1]), None
    return None, {}, None


def _copy_kwargs(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """Each keyword argument as a policy may read it (:func:`public_value`)."""
    return {k: public_value(v) for k, v in kwargs.items()}


def public_value(value: Any) -> Any:
    """``value`` as a description hands it over: plain data (text, numbers, paths, arrays, and lists, tuples and
    mappings of them) copied; an object that declares what of it is public (``tom_public_view()``, e.g. a
    negotiation :class:`~tom_envs.negotiation.scenario.Scenario`: its topics and options, never a party's
    preferences) by that view; any other object by its type's name only (``"<LLMReader>"``). An object passed
    as a keyword argument may carry what the env keeps hidden (a scenario's preferences, a partner's
    automaton), so nothing of it is handed over unless it says what is public."""
    if isinstance(value, (str, bytes, int, float, bool, type(None), np.generic, os.PathLike)):
        return copy.copy(value)
    if isinstance(value, np.ndarray) and value.dtype != object:
        return value.copy()
    if isinstance(value, Mapping):
        return {public_value(k): public_value(v) for k, v in value.items()}
    if type(value) in (list, tuple):
        return type(value)(public_value(v) for v in value)
    view = getattr(value, "tom_public_view", None)
    if callable(view) and not isinstance(value, type):
        return copy.deepcopy(view())  # what the object declares public, as it declares it
    return f"<{type(value).__name__}>"


def _copy(space: Any) -> Any:
    """A copy of ``space`` sharing no generator with the env's (reseeded with 0, so sampling it is deterministic
    and says nothing about the env's draws)."""
    out = copy.deepcopy(space)
    seed = getattr(out, "seed", None)
    if callable(seed):
        seed(0)
    return out


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)
