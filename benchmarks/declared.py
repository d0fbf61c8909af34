"""A family's declared objects (``Family.commands``, ``Family.crossplay``, ``Family.selfplay``, ...): each
``"module:attribute"`` target loaded and checked to be of the kind the field declares (:func:`declared`)."""

from __future__ import annotations

from typing import Any, TypeVar

T = TypeVar("T")


def declared(fam: Any, field: str, kind: type[T]) -> list[T]:
    """The objects ``fam`` names in its ``field``, in order, each loaded now.

    Raises:
        tom_envs.family.FamilyError: a target that is not a ``kind``, naming the family, the target and the class
            it should be.
    """
    from tom_envs.family import FamilyError, load_object

    found = []
    for target in getattr(fam, field):
        obj = load_object(target)
        if not isinstance(obj, kind):
            raise FamilyError(
                f"family {fam.name!r}: {target} is a {type(obj).__name__}, not a {kind.__module__}.{kind.__qualname__}"
            )
        found.append(obj)
    return found
