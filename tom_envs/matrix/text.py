"""Text rendering of a repeated matrix game for language models.

Rendering is kept apart from the dynamics: the environment's ``render()`` and the
text-observation wrapper both call :func:`render_state`. Actions are named with one of seed
004's label sets (:data:`tom_envs.matrix.games.LABEL_SETS`). RPS-like games with negative
payoffs are described as scores (+1/0/-1), the others as points won, as in 004 Appendix C.1.
The wording is ours.
"""

from __future__ import annotations

import string
from typing import Sequence

from gymnasium import spaces

from tom_envs.matrix.games import MatrixGame


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def uses_scores(game: MatrixGame) -> bool:
    """True when some payoff is negative, so rewards are described as scores (+1/0/-1)."""
    return any(v < 0 for row in game.payoffs for cell in row for v in cell)


def describe_reward(game: MatrixGame, value: float, who: str = "you", past: bool = False) -> str:
    """'you win 10 points' / 'you receive a score of +1' (or 'won' / 'received' when ``past``)."""
    s = "" if who == "you" or past else "s"
    if uses_scores(game):
        sign = "+" if value > 0 else ""
        return f"{who} {'received' if past else 'receive' + s} a score of {sign}{_num(value)}"
    return f"{who} {'won' if past else 'win' + s} {_num(value)} point{'s' if value != 1 else ''}"


def render_rules(game: MatrixGame, horizon: int, label_set: str = "canonical") -> str:
    """The rules: actions and the full payoff table, in words."""
    mine = game.labels(label_set, "focal")
    theirs = game.labels(label_set, "partner")
    lines = [
        f"You are playing a game with another player that repeats for {horizon} rounds.",
        f"In each round you choose one action from: {', '.join(mine)}.",
        f"At the same time the other player chooses one action from: {', '.join(theirs)}.",
        "The outcome of a round depends on both choices:",
    ]
    for a, row in enumerate(game.payoffs):
        for b, (r_me, r_them) in enumerate(row):
            lines.append(
                f"- If you choose {mine[a]} and the other player chooses {theirs[b]}, "
                f"{describe_reward(game, r_me)} and {describe_reward(game, r_them, 'the other player')}."
            )
    return "\n".join(lines)


def render_history(
    game: MatrixGame, history: Sequence[tuple[int, int]], label_set: str = "canonical", first_round: int = 1
) -> str:
    """One line per past round: both actions and both rewards (``first_round``: the number of the
    first round in ``history``, for a window onto the latest rounds)."""
    if not history:
        return "No rounds have been played yet."
    mine = game.labels(label_set, "focal")
    theirs = game.labels(label_set, "partner")
    lines = []
    for t, (a, b) in enumerate(history, start=first_round):
        r_me, r_them = game.payoffs[a][b]
        lines.append(
            f"Round {t}: you chose {mine[a]} and the other player chose {theirs[b]}; "
            f"{describe_reward(game, r_me, past=True)} and {describe_reward(game, r_them, 'the other player', past=True)}."
        )
    return "\n".join(lines)


def render_state(
    game: MatrixGame,
    history: Sequence[tuple[int, int]],
    horizon: int,
    label_set: str = "canonical",
    partner_next_action: int | None = None,
) -> str:
    """Rules, history and the current round ("round 5 of 100") as one text block."""
    parts = [render_rules(game, horizon, label_set), "", "History:", render_history(game, history, label_set), ""]
    t = len(history)
    if t >= horizon:
        parts.append(f"The game is over: all {horizon} rounds have been played.")
    else:
        parts.append(f"This is round {t + 1} of {horizon}.")
        if partner_next_action is not None:
            label = game.labels(label_set, "partner")[partner_next_action]
            parts.append(f"The other player will choose {label} in this round.")
    return "\n".join(parts)


def text_space(game: MatrixGame, horizon: int, label_set: str) -> spaces.Text:
    """The ``Text`` space of :func:`render_state` for ``game`` over ``horizon`` rounds: printable
    characters and the labels' own, up to the longest state text (the longest history line in
    every round, plus the rules and some slack)."""
    labels = set("".join(game.labels(label_set, "focal") + game.labels(label_set, "partner")))
    charset = frozenset(string.printable) | labels
    worst = max(
        ((a, b) for a in range(game.n_actions) for b in range(game.n_partner_actions)),
        key=lambda ab: len(render_history(game, [ab], label_set)),
    )
    longest = (
        len(render_rules(game, horizon, label_set))
        + horizon * (len(render_history(game, [worst], label_set)) + len(str(horizon)) + 2)
        + 200
    )
    return spaces.Text(max_length=longest, min_length=1, charset=charset)
