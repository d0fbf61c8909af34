"""Constructor arguments shared by the single-agent and the parallel matrix envs."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from tom_envs.errors import InvalidGame, check_render_mode, require_count
from tom_envs.matrix.games import MatrixGame, get_game


#: The longest episode a matrix env plays (the oracle's tables grow with it; 004 plays 100 rounds).
MAX_HORIZON = 100_000


def check_env_args(horizon: Any, history: Any, render_mode: Any, render_modes: list[str]) -> None:
    """Validation shared by the single-agent and the parallel matrix envs (:class:`InvalidSize`, a
    ``ValueError``, for a horizon or history outside ``1..MAX_HORIZON``)."""
    for arg, value in (("horizon", horizon), ("history", history)):
        require_count(arg, value, MAX_HORIZON)
    check_render_mode(render_mode, render_modes)


@dataclass(frozen=True)
class CustomGame:
    """The keywords that define a custom game instead of ``game=`` (``tom/MatrixGame-v0``):
    ``payoffs`` (rows: focal actions, cells: (focal, partner) rewards), ``action_labels`` and the
    optional ``partner_action_labels`` and ``name``."""

    payoffs: Any = None
    action_labels: Any = None
    partner_action_labels: Any = None
    name: str | None = None

    @classmethod
    def from_kwargs(cls, owner: str, kwargs: dict[str, Any]) -> "CustomGame":
        """The custom-game keywords an env was given (``**kwargs``); any other keyword is a
        ``TypeError`` as Python raises it for an unknown argument of ``owner``."""
        known = {f.name for f in fields(cls)}
        for key in kwargs:
            if key not in known:
                raise TypeError(f"{owner}() got an unexpected keyword argument {key!r}")
        return cls(**kwargs)

    @property
    def given(self) -> bool:
        return self.payoffs is not None or self.action_labels is not None


def build_game(game: Any, custom: CustomGame = CustomGame()) -> MatrixGame:
    """The game of an env: a built-in one by name, or a custom one from payoffs and labels."""
    if custom.given:
        if game is not None:
            raise InvalidGame("pass either game= or payoffs=/action_labels=, not both")
        if custom.payoffs is None or custom.action_labels is None:
            raise InvalidGame("a custom matrix game needs both payoffs= and action_labels=")
        spec = {"name": custom.name or "MatrixGame", "payoffs": custom.payoffs, "action_labels": custom.action_labels}
        if custom.partner_action_labels is not None:
            spec["partner_action_labels"] = custom.partner_action_labels
        return MatrixGame(**spec)
    if game is None:
        raise InvalidGame(
            "no game given: tom/MatrixGame-v0 needs payoffs= (rows: focal actions, cells: (focal, partner) "
            "rewards) and action_labels=, e.g. gymnasium.make('tom/MatrixGame-v0', payoffs=[[3, 0], [5, 1]], "
            "action_labels=['C', 'D'])"
        )
    return get_game(game)
