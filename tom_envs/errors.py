"""Named errors raised by tom-envs.

Every error says what was wrong and how to fix the call. They subclass the closest
built-in (or Gymnasium) error, so ``except ValueError`` style handling keeps working.
"""

from __future__ import annotations

from collections.abc import Sequence

from gymnasium import error as gym_error


class TomEnvsError(Exception):
    """Base class of every error raised by tom-envs."""


class ResetNeeded(TomEnvsError, gym_error.ResetNeeded):
    """``step`` was called before the first ``reset``."""


class EpisodeEnded(TomEnvsError, gym_error.ResetNeeded):
    """``step`` was called after the episode had already ended."""


def call_order_error(started: bool, episode_over: str, call: str = "step", reset: str = "env.reset") -> Exception:
    """The error of a ``call`` that may not happen now, the one call-order rule of every tom-envs env:
    before the first reset a :class:`ResetNeeded` saying to call ``reset``, after the episode's end an
    :class:`EpisodeEnded` with ``episode_over`` (the env's own sentence: what ended it, what to call).
    Returned, not raised, so that a hot loop tests its own flag and only builds the error when it fails."""
    if not started:
        return ResetNeeded(f"{call}() was called before reset(); call {reset}(seed=...) first.")
    return EpisodeEnded(episode_over)


def check_running(started: bool, over: bool, episode_over: str, call: str = "step", reset: str = "env.reset") -> None:
    """Raise :func:`call_order_error` unless the env is started and its episode not over."""
    if not started or over:
        raise call_order_error(started, episode_over, call, reset)


class InvalidAction(TomEnvsError, gym_error.InvalidAction, ValueError):
    """The action is not an element of the action space."""


class InvalidGame(TomEnvsError, ValueError):
    """A payoff table, action labels or other game definition is malformed."""


class UnsupportedRenderMode(TomEnvsError, ValueError, TypeError):
    """The requested render mode is not offered by the env.

    Also a ``TypeError`` on purpose: stable-baselines3's ``make_vec_env`` first tries
    ``render_mode="rgb_array"`` and falls back to no render mode on ``TypeError``.
    """


def check_render_mode(render_mode: object, modes: "Sequence[str]") -> None:
    """Raise :class:`UnsupportedRenderMode` unless ``render_mode`` is None or one of ``modes`` (the env's
    ``metadata["render_modes"]``)."""
    if render_mode is not None and render_mode not in modes:
        offered = ", ".join(repr(m) for m in modes)
        raise UnsupportedRenderMode(f"render_mode must be {offered} or None, got {render_mode!r}")


class UnknownPartner(TomEnvsError, KeyError):
    """A partner name or query does not match any known partner."""

    def __str__(self) -> str:  # KeyError would otherwise print the message in quotes
        return str(self.args[0]) if self.args else ""


class InvalidPartner(TomEnvsError, ValueError):
    """A partner object or partner distribution cannot be used for this game."""


class DatasetError(TomEnvsError, ValueError):
    """A dataset file is malformed; the message names the file and the record or row."""


class OracleUnavailable(TomEnvsError, RuntimeError):
    """The partner is a black box (no automaton), so exact regret cannot be computed."""


class UnknownEnvironment(TomEnvsError, KeyError):
    """An id is not in the tom-envs registry."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class InvalidFlag(TomEnvsError, TypeError):
    """A boolean option (an ``expose_*`` / oracle flag) was given something other than a bool.

    ``expose_state="false"`` is a truthy string: it would switch the oracle information on. Flags
    take ``True`` or ``False`` only.
    """


def require_bool(name: str, value: object) -> bool:
    """``value`` as a bool, or :class:`InvalidFlag` naming ``name`` when it is not one.

    Accepts ``True``/``False`` (and numpy's bool). Anything else -- a string such as ``"false"``,
    ``0``/``1``, None -- is an error rather than a truth test, because a truthy string would silently
    switch an oracle flag on.
    """
    import numpy as np

    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise InvalidFlag(
        f"{name} takes True or False, got {value!r} ({type(value).__name__}); pass a Python bool "
        f"(e.g. {name}=False), not a string or a number"
    )


class InvalidSize(TomEnvsError, ValueError):
    """A size (a horizon, a number of episodes, a history length) is not a whole number in its range."""


def require_count(name: str, value: object, high: int, low: int = 1) -> int:
    """``value`` as an int in ``low..high``, or :class:`InvalidSize` naming ``name`` and the range.

    The upper bound keeps a typo (``horizon=10**9``) from turning into a ``MemoryError`` deep inside
    an allocation, or into a run that never ends: it is said at once, with the bound.
    """
    import numpy as np

    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
        raise InvalidSize(f"{name} must be a whole number in {low:,}..{high:,}, got {value!r}")
    return int(value)


class ContradictoryKwargs(TomEnvsError, ValueError):
    """A keyword argument contradicts the id it is made with (``gymnasium.make("tom/RPS-v0", game="IPD")``):
    the message names the id to make instead."""


class InvalidOptions(TomEnvsError, ValueError):
    """``reset(options=...)`` was given something other than a dict, or a key the env does not read."""


def check_options(options: object, known: "tuple[str, ...] | frozenset[str] | None", owner: str) -> dict:
    """``options`` of a ``reset`` as a dict (None: empty), or :class:`InvalidOptions` when it is not
    a mapping or holds a key outside ``known`` (a misspelt key would otherwise be ignored silently).
    ``known=None`` accepts any key (PettingZoo's API test passes options an env does not read)."""
    from collections.abc import Mapping

    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise InvalidOptions(f"{owner}.reset(options=...) takes a dict, got {type(options).__name__} {options!r}")
    unknown = [] if known is None else sorted(str(k) for k in options if k not in known)
    if unknown:
        raise InvalidOptions(
            f"{owner}.reset got unknown options {unknown}; it reads {', '.join(sorted(known)) if known else 'none'}"
        )
    return dict(options)


def json_object(text: str, where: str, error: type[Exception], fix: str) -> dict:
    """``text`` read as a JSON object, or ``error`` naming ``where``: text that is not JSON (with the line,
    column and reason) or a JSON value other than an object, each followed by ``fix`` (what to write)."""
    import json

    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(f"{where}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); {fix}") from None
    if not isinstance(data, dict):
        raise error(f"{where}: a JSON {type(data).__name__}, not an object; {fix}")
    return data


class DependencyNotInstalled(TomEnvsError, gym_error.DependencyNotInstalled, ImportError):
    """An optional dependency is missing; the message names the extra to install."""


def import_optional(module: str, extra: str, purpose: str):
    """Import ``module`` lazily, or raise :class:`DependencyNotInstalled` with an install hint.

    Args:
        module: dotted module name, e.g. ``"axelrod"``.
        extra: the tom-envs extra that provides it, e.g. ``"axelrod"``.
        purpose: what the caller needs it for, used in the message.
    """
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise DependencyNotInstalled(
            f"{purpose} needs the optional package '{module.split('.')[0]}', which is not installed "
            f"({exc}). Install it with: pip install 'tom-envs[{extra}]'"
        ) from exc
