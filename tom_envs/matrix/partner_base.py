"""The partner base class and classifier queries, shared by built-in and Axelrod partners.

Its own module so that :mod:`tom_envs.matrix.partners` (which wraps ``"axelrod:<name>"`` partners on demand)
and :mod:`tom_envs.matrix.axelrod_partner` (which subclasses :class:`Partner`) do not import each other.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tom_envs.matrix.automaton import Automaton
from tom_envs.matrix.games import MatrixGame


class Partner:
    """Base class of every partner.

    Subclasses set :attr:`name` and :attr:`classifier` and implement the runtime protocol.
    A partner instance carries runtime state; environments copy the partner objects they are
    given, so one instance can be passed to several environments.
    """

    name: str = "partner"
    classifier: dict[str, Any] = {}

    def __init__(self, game: MatrixGame) -> None:
        self.game = game

    def automaton(self) -> Automaton | None:
        """The exact automaton, or None for a black-box partner (no exact regret then)."""
        return None

    def reset(self, rng: np.random.Generator, horizon: int) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def next_action(self) -> int:  # pragma: no cover - interface
        raise NotImplementedError

    def observe(self, focal_action: int, partner_action: int) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} for {self.game.name}>"


def classifier_matches(value: Any, wanted: Any) -> bool:
    """Whether a classifier entry matches a query value (a set contains it; a callable accepts it)."""
    if callable(wanted):
        return bool(wanted(value))
    if isinstance(value, (set, frozenset)):
        return wanted in value
    return value == wanted
