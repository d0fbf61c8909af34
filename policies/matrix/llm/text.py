"""The words of a matrix-game prompt: rules, payoffs, history and questions for one game and label set.

Matrix-specific text for the matrix strategies (:mod:`policies.matrix.llm.strategies`); the templates are
data in :mod:`policies.matrix.llm.prompts`, the rules and history renderers in :mod:`tom_envs.matrix.text`.
"""

from __future__ import annotations

from typing import Any

from policies.matrix.llm import prompts as P
from policies.llm.slots import Slot
from tom_envs.matrix.games import MatrixGame
from tom_envs.matrix.text import render_history, render_rules


class GameText:
    """Renders the parts of a prompt for one game, horizon and label set.

    ``history_window`` K (None: the whole history) shows only the latest K rounds, under a line
    saying how many earlier rounds are hidden, so the prompt stops growing after round K + 1 (for
    models whose context cannot hold T rounds; a named choice recorded with the results).
    """

    def __init__(self, game: MatrixGame, horizon: int, label_set: str, history_window: int | None = None) -> None:
        self.game = game
        self.horizon = horizon
        self.label_set = label_set
        self.history_window = history_window
        self.labels = game.labels(label_set, "focal")
        self.partner_labels = game.labels(label_set, "partner")
        self.rules = render_rules(game, horizon, label_set)
        self.rules_no_payoffs = P.RULES_NO_PAYOFFS.format(
            T=horizon, labels=", ".join(self.labels), partner_labels=", ".join(self.partner_labels)
        )

    def context(self, slot: Slot, *, history: bool = True, payoffs: bool = True) -> str:
        """Rules (with or without payoffs) and, unless left out, the history of play."""
        rules = self.rules if payoffs else self.rules_no_payoffs
        if not history:
            return rules
        shown, hidden = slot.history, 0
        if self.history_window is not None and len(shown) > self.history_window:
            hidden = len(shown) - self.history_window
            shown = shown[hidden:]
        if payoffs:
            past = render_history(self.game, shown, self.label_set, first_round=hidden + 1)
        else:
            lines = [
                P.HISTORY_LINE_NO_REWARDS.format(i=i, mine=self.labels[a], theirs=self.partner_labels[b])
                for i, (a, b) in enumerate(shown, start=hidden + 1)
            ]
            past = "\n".join(lines) or P.NO_HISTORY_YET
        if hidden:
            past = P.HISTORY_WINDOW_NOTE.format(k=self.history_window, hidden=hidden) + "\n" + past
        return P.CONTEXT.format(rules=rules, history=past)

    def fields(self, slot: Slot, **extra: Any) -> dict[str, Any]:
        """The common template fields for the coming round."""
        t = slot.t + 1
        base = {"t": t, "T": self.horizon, "round": P.ROUND.format(t=t, T=self.horizon), "context": self.context(slot)}
        return {**base, **extra}

    def answer_format(self, role: str) -> str:
        labels = self.labels if role == "act" else self.partner_labels
        return P.ANSWER_FORMAT.format(options=", ".join(labels))

    def question(self, role: str, slot: Slot) -> str:
        return (P.ACT_QUESTION if role == "act" else P.TOM_QUESTION).format(t=slot.t + 1)


def cot_examples(text: GameText) -> str:
    """The three worked examples for the game, in the chosen label set."""
    game = text.game
    names = {f"a{i}": label for i, label in enumerate(text.labels)}
    if game.name in P.COT_EXAMPLES and len(text.labels) == len(game.action_labels):
        examples = P.COT_EXAMPLES[game.name]
        filled = [{k: v.format(**names) for k, v in ex.items()} for ex in examples]
    else:  # another game: best responses to partners that repeat one action
        filled = []
        for i in range(3):
            b = i % game.n_partner_actions
            a = game.focal_best_responses[b]
            f = {"b": text.partner_labels[b], "a": text.labels[a], "k": 3 + i, "t": 4 + i}
            filled.append({k: v.format(**f) for k, v in P.GENERIC_EXAMPLE.items()})
    return "\n\n".join(P.COT_EXAMPLE.format(i=i + 1, **ex) for i, ex in enumerate(filled))


__all__ = ["GameText", "cot_examples"]
