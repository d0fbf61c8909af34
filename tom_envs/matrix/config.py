"""Constructor arguments shared by the single-agent and the parallel matrix envs."""

from __future__ import annotations

from typing import Any

import numpy as np

from tom_envs.errors import InvalidGame, UnsupportedRenderMode
from tom_envs.matrix.games import MatrixGame, get_game


def check_env_args(horizon: Any, history: Any, render_mode: Any, render_modes: list[str]) -> None:
    """Validation shared by the single-agent and the parallel matrix envs."""
    for arg, value in (("horizon", horizon), ("history", history)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{arg} must be a positive integer, got {value!r}")
    if render_mode is not None and render_mode not in render_modes:
        raise UnsupportedRenderMode(f"render_mode must be one of {render_modes} or None, got {render_mode!r}")


def build_game(game: Any, payoffs: Any, action_labels: Any, partner_action_labels: Any, name: str | None) -> MatrixGame:
    """The game of an env: a built-in one by name, or a custom one from payoffs and labels."""
    if payoffs is not None or action_labels is not None:
        if game is not None:
            raise InvalidGame("pass either game= or payoffs=/action_labels=, not both")
        if payoffs is None or action_labels is None:
            raise InvalidGame("a custom matrix game needs both payoffs= and action_labels=")
        fields = {"name": name or "MatrixGame", "payoffs": payoffs, "action_labels": action_labels}
        if partner_action_labels is not None:
            fields["partner_action_labels"] = partner_action_labels
        return MatrixGame(**fields)
    if game is None:
        raise InvalidGame(
            "no game given: tom/MatrixGame-v0 needs payoffs= (rows: focal actions, cells: (focal, partner) "
            "rewards) and action_labels=, e.g. gymnasium.make('tom/MatrixGame-v0', payoffs=[[3, 0], [5, 1]], "
            "action_labels=['C', 'D'])"
        )
    return get_game(game)
