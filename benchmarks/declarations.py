"""The task declarations families name in their :class:`tom_envs.family.Family` (``rl``, ``crossplay``,
``selfplay``: ``"module:attribute"`` targets), loaded and checked to be of the kind the field holds. The
commands that run them (``tom-envs rl``, ``crossplay``, ``selfplay``) find their tasks here and name no family."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def declared(field: str, kind: type, spelled: str, broken: dict[str, str] | None = None) -> list[tuple[str, Any]]:
    """``(family name, declaration)`` of every target in the families' ``field``, in the families' order.

    Args:
        field: the :class:`tom_envs.family.Family` field naming the targets (``"rl"``, ``"crossplay"``, ...).
        kind: the class every declaration must be an instance of.
        spelled: how an error names ``kind`` (where users import it from, e.g. ``benchmarks.rl.RLTask``).
        broken: if given, a target that does not import is noted here (target -> error) and left out, so one
            family's broken module does not stop another's; without it the error is raised.

    Raises:
        tom_envs.family.FamilyError: a target names something that is not a ``kind``.
    """
    from tom_envs.family import FamilyError, families, load_object

    out = []
    for fam in families():
        for target in getattr(fam, field):
            try:
                found = load_object(target)
            except Exception as exc:  # noqa: BLE001 - a family module that fails to load, for any reason
                if broken is None:
                    raise
                broken[target] = f"{type(exc).__name__}: {exc}"
                continue
            if not isinstance(found, kind):
                raise FamilyError(f"family {fam.name!r}: {target} is a {type(found).__name__}, not a {spelled}")
            out.append((fam.name, found))
    return out


def by_env_id(declarations: Iterable[tuple[str, Any]]) -> dict[str, tuple[str, Any]]:
    """Every id some declaration's ``env_ids`` holds -> ``(family name, declaration)``; the first declaration of
    an id wins."""
    found: dict[str, tuple[str, Any]] = {}
    for name, task in declarations:
        for env_id in task.env_ids:
            found.setdefault(env_id, (name, task))
    return found
