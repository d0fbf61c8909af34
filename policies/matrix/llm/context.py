"""Plan a matrix-game LLM run's context before running it: the longest prompt a strategy needs.

004's protocol plays T = 100 rounds and every prompt carries the whole history, so the prompt of
round T is the longest of an episode. Running out of context at round 87 after hours of work loses
the cell; :func:`plan_context` counts, before anything runs, the tokens the longest request of a
strategy needs at round T (for one game, label set, history window and generation cap), with the
model's own tokenizer, and :func:`check_context` raises :class:`ContextTooLong` at once, naming the
numbers and the settings that fix it (a larger ``max_model_len``, a history window K that fits, a
smaller generation cap).

How the count is made: the strategy's own code builds the prompts of the last rounds of an episode
(the real templates, :class:`~policies.matrix.llm.text.GameText`) through a :class:`PlanningRunner`
that answers instead of a model. Every history line shows the joint action whose line is longest
in tokens, predictions and choices name the longest label, and text a model writes into later
prompts (plans, insights, reflections, S2A summaries) is a filler as long as its generation cap.
A scored request needs its prompt plus the longest label plus the one token the engine generates;
a generated request needs its chat-rendered prompt plus its generation cap. So the figure is an
upper bound of what the run can ask for (re-asks send the same prompt again).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from policies.llm.caller import user
from policies.llm.errors import InvalidPolicyConfig
from policies.matrix.llm.text import GameText
from policies.llm.scoring import render_chat
from policies.llm.slots import Slot
from policies.matrix.llm.strategies import MAX_TOKENS, MatrixStrategy, build_strategy
from tom_envs.matrix.games import MatrixGame, get_game

#: Rounds of an episode's end simulated by the planner: enough for Reflexion's largest memory (3)
#: to fill with reflections before the last round.
PLANNED_ROUNDS = 4


class ContextTooLong(InvalidPolicyConfig):
    """The longest prompt of a planned run does not fit the model's context (``max_model_len``)."""


@dataclass(frozen=True)
class ContextNeed:
    """What the longest request of one strategy on one game needs.

    Attributes:
        strategy, game, label_set, horizon, history_window: what was planned.
        stage: the prompting stage of the longest request (``act``, ``predict``, ``reflect``, ...).
        round: the round it is made in.
        prompt_tokens: its prompt (a scored request: prompt and label).
        generated_tokens: what the engine may generate for it (the generation cap; 1 for scoring).
    """

    strategy: str
    game: str
    label_set: str
    horizon: int
    history_window: int | None
    stage: str
    round: int
    prompt_tokens: int
    generated_tokens: int

    @property
    def tokens(self) -> int:
        """Prompt and generated tokens together: what ``max_model_len`` must hold."""
        return self.prompt_tokens + self.generated_tokens

    def describe(self) -> str:
        window = "" if self.history_window is None else f", history window {self.history_window}"
        return (
            f"{self.strategy} on {self.game} (label set {self.label_set}, T={self.horizon}{window}): stage "
            f"{self.stage!r} of round {self.round} needs {self.prompt_tokens} prompt + {self.generated_tokens} "
            f"generated = {self.tokens} tokens"
        )


class PlanningRunner:
    """Stands in for :class:`~policies.matrix.llm.strategies.StageRunner`: counts each request's tokens
    instead of asking a model, and answers so that later prompts are as long as they can get."""

    def __init__(self, tokenizer: Any, text: GameText, max_tokens: int | None) -> None:
        self.tokenizer, self.game_text, self.max_tokens = tokenizer, text, max_tokens
        self.needs: list[tuple[str, int, int, int]] = []  # (stage, round, prompt tokens, generated tokens)
        self._fillers: dict[int, str] = {}
        self._label_sizes: dict[str, int] = {}  # tokens of " " + label
        self.longest_partner_label = self._longest(text.partner_labels)

    def tokens(self, kind: str) -> int:
        return self.max_tokens if self.max_tokens is not None else MAX_TOKENS[kind]

    def count(self, text: str, special: bool = True) -> int:
        return len(self.tokenizer.encode(text, add_special_tokens=special))

    def _longest(self, labels: Sequence[str]) -> int:
        """The index of the label with the most tokens after a space (the first such)."""
        for label in labels:
            if label not in self._label_sizes:
                self._label_sizes[label] = self.count(" " + label, special=False)
        return int(np.argmax([self._label_sizes[label] for label in labels]))

    def _chat_tokens(self, content: str) -> int:
        return self.count(render_chat(self.tokenizer, user(content)), special=False)

    def filler(self, n: int) -> str:
        """A text of at least ``n`` tokens (what a model may write within a cap of ``n``)."""
        if n not in self._fillers:
            lo, hi = 1, max(1, n)  # the fewest words with at least n tokens (a word is at least one token)
            while lo < hi:
                mid = (lo + hi) // 2
                if self.count(" ".join(["x"] * mid), special=False) >= n:
                    hi = mid
                else:
                    lo = mid + 1
            self._fillers[n] = " ".join(["x"] * lo)
        return self._fillers[n]

    # -- the StageRunner interface
    def score(self, slots: Sequence[Slot], stage: str, prompts: Sequence[str], labels: Sequence[str]) -> list:
        pick = self._longest(labels)
        for slot, prompt in zip(slots, prompts):
            self.needs.append((stage, slot.t + 1, self.count(prompt + " " + labels[pick]), 1))
        return [np.eye(len(labels))[pick] for _ in slots]

    def choose(
        self, slots: Sequence[Slot], stage: str, contents: Sequence[str], labels: Sequence[str], kind: str
    ) -> list[tuple[int, str | None]]:
        cap = self.tokens(kind)
        pick = self._longest(labels)
        for slot, content in zip(slots, contents):
            self.needs.append((stage, slot.t + 1, self._chat_tokens(content), cap))
        # a reply as long as the cap, all of it in the plan (Plans + Insights shows plan and insights again)
        reply = f"Plan: {self.filler(cap)}\nInsights: \nAnswer: {labels[pick]}"
        return [(pick, reply) for _ in slots]

    def text(self, slots: Sequence[Slot], stage: str, contents: Sequence[str], kind: str) -> list[str]:
        cap = self.tokens(kind)
        for slot, content in zip(slots, contents):
            self.needs.append((stage, slot.t + 1, self._chat_tokens(content), cap))
        return [f"Plan: {self.filler(cap)}" for _ in slots]


def _longest_joint_action(text: GameText, tokenizer: Any) -> tuple[int, int]:
    """The (focal, partner) pair whose history line (with a two-digit round number) is longest in tokens."""
    pairs = [(a, b) for a in range(text.game.n_actions) for b in range(text.game.n_partner_actions)]
    probe = Slot(rng=np.random.default_rng(0))

    def size(pair: tuple[int, int]) -> int:
        probe.history = [pair] * 12  # lines of rounds 1-12: one- and two-digit numbers
        return len(tokenizer.encode(text.context(probe), add_special_tokens=False))

    return max(pairs, key=size)


def plan_context(
    strategy: str | MatrixStrategy,
    game: str | MatrixGame,
    tokenizer: Any,
    *,
    label_set: str = "neutral",
    horizon: int = 100,
    history_window: int | None = None,
    max_tokens: int | None = None,
) -> ContextNeed:
    """The longest request ``strategy`` makes in an episode of ``horizon`` rounds of ``game``.

    Args:
        strategy: a strategy name (:data:`~policies.matrix.llm.strategies.STRATEGIES`) or object.
        game: the game.
        tokenizer: the model's Hugging Face tokenizer (``backend.tokenizer``).
        label_set, horizon, history_window, max_tokens: as :class:`~policies.matrix.llm.policy.LLMMatrixPolicy`.

    Returns:
        The :class:`ContextNeed` of the request with the most tokens (prompt and generation).
    """
    strat = build_strategy(strategy) if isinstance(strategy, str) else strategy
    g = get_game(game)
    text = GameText(g, horizon, label_set, history_window)
    run = PlanningRunner(tokenizer, text, max_tokens)
    pair = _longest_joint_action(text, tokenizer)
    first = max(1, horizon - PLANNED_ROUNDS + 1)
    slot = Slot(
        rng=np.random.default_rng(0),
        history=[pair] * (first - 1),
        info={"partner_next_action": run.longest_partner_label},
    )
    for _ in range(first, horizon + 1):
        slot.open_round(strat.name)
        if strat.makes_predictions:
            strat.predict(run, text, [slot])  # type: ignore[arg-type]
        strat.act(run, text, [slot])  # type: ignore[arg-type]
        slot.history.append(pair)
        slot.cache = {}
        if slot.t < horizon:
            strat.after_round(run, text, [slot])  # type: ignore[arg-type]
    stage, round_no, prompt, generated = max(run.needs, key=lambda n: n[2] + n[3])
    return ContextNeed(strat.name, g.name, label_set, horizon, history_window, stage, round_no, prompt, generated)


def largest_window(
    strategy: str,
    game: str | MatrixGame,
    tokenizer: Any,
    limit: int,
    *,
    label_set: str = "neutral",
    horizon: int = 100,
    max_tokens: int | None = None,
) -> int | None:
    """The largest history window K whose longest request fits ``limit`` tokens (None: not even K = 1)."""

    def fits(k: int) -> bool:
        return (
            plan_context(
                strategy, game, tokenizer, label_set=label_set, horizon=horizon, history_window=k, max_tokens=max_tokens
            ).tokens
            <= limit
        )

    lo, hi = 0, max(1, horizon - 1)
    if fits(hi):
        return hi
    while lo + 1 < hi:  # fits(lo) holds (or lo == 0), fits(hi) does not
        mid = (lo + hi) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid
    return lo or None


def check_context(
    strategies: Sequence[str],
    games: Sequence[str | MatrixGame],
    tokenizer: Any,
    max_model_len: int,
    *,
    label_set: str = "neutral",
    horizon: int = 100,
    history_window: int | None = None,
    max_tokens: int | None = None,
) -> list[ContextNeed]:
    """Plan every (strategy, game) of a run; raise :class:`ContextTooLong` if any needs more than
    ``max_model_len`` tokens, naming each one's figures and the settings that fix them.

    Returns:
        The plan of every (strategy, game), in order, when all fit.
    """
    needs = [
        plan_context(
            s, g, tokenizer, label_set=label_set, horizon=horizon, history_window=history_window, max_tokens=max_tokens
        )
        for g in games
        for s in strategies
    ]
    over = [n for n in needs if n.tokens > max_model_len]
    if not over:
        return needs
    fixes = [f"--max-model-len {max(n.tokens for n in over)} (if the model's position embeddings reach that far)"]
    windows = [
        largest_window(
            n.strategy, n.game, tokenizer, max_model_len, label_set=label_set, horizon=horizon, max_tokens=max_tokens
        )
        for n in over
    ]
    if all(w is not None for w in windows):
        fixes.append(
            f"--history-window {min(windows)} (the prompt shows only the latest rounds; "  # type: ignore[type-var]
            "recorded in the results)"
        )
    if any(n.generated_tokens > 1 for n in over):
        fixes.append("a smaller --max-tokens (the generation cap counts against the context)")
    fixes.append("a shorter --horizon or a shorter --label-set")
    lines = "\n".join(f"  - {n.describe()}" for n in over)
    raise ContextTooLong(
        f"{len(over)} of {len(needs)} planned cells need more context than max_model_len={max_model_len}:\n{lines}\n"
        f"Nothing was run. Fix with one of: " + "; ".join(fixes) + "."
    )


__all__ = [
    "PLANNED_ROUNDS",
    "ContextNeed",
    "ContextTooLong",
    "PlanningRunner",
    "check_context",
    "largest_window",
    "plan_context",
]
