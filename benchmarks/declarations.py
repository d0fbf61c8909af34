"""The task declarations families name in their :class:`tom_envs.family.Family` (``rl``, ``crossplay``,
``selfplay``; ``commands`` too: ``"module:attribute"`` targets), loaded and checked to be of the kind the field holds. The
commands that run them (``tom-envs rl``, ``crossplay``, ``selfplay``) find their tasks here and name no family."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar

T = TypeVar("T")


def of_family(fam: Any, field: str, kind: type[T], spelled: str | None = None) -> list[T]:
    """The objects one family names in its ``field``, in order, each loaded now (``tom-envs`` reads the
    ``commands`` of each family so).

    Raises:
        tom_envs.family.FamilyError: a target that is not a ``kind``, naming the family, the target and the class
            it should be (``spelled``, or the class's module path).
    """
    from tom_envs.family import load_object

    return [_checked(fam, target, load_object(target), kind, spelled) for target in getattr(fam, field)]


def _checked(fam: Any, target: str, found: Any, kind: type, spelled: str | None) -> Any:
    from tom_envs.family import FamilyError

    if not isinstance(found, kind):
        spelled = spelled or f"{kind.__module__}.{kind.__qualname__}"
        raise FamilyError(f"family {fam.name!r}: {target} is a {type(found).__name__}, not a {spelled}")
    return found


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
    from tom_envs.family import families, load_object

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
            out.append((fam.name, _checked(fam, target, found, kind, spelled)))
    return out


def by_env_id(declarations: Iterable[tuple[str, Any]]) -> dict[str, tuple[str, Any]]:
    """Every id some declaration's ``env_ids`` holds -> ``(family name, declaration)``; the first declaration of
    an id wins."""
    found: dict[str, tuple[str, Any]] = {}
    for name, task in declarations:
        for env_id in task.env_ids:
            found.setdefault(env_id, (name, task))
    return found
