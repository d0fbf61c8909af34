"""Episode slots: one episode's state inside a batched LLM policy, and the owner of its decisions.

A :class:`Slot` is the :class:`~policies.llm.caller.Owner` of every decision made for its episode:
sampling seeds and fallbacks come from its generator, its counters (``stats``) add up over the
episode, and each round's log (``log``) keeps the exact prompts, replies, parse failures, fallbacks
and batch sizes. The log's keys are published in result files (the runner stores them per step).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from policies.llm.base import ChatRequest, Generation, Messages
from policies.llm.caller import SEED_BOUND, new_counters


@dataclass
class Slot:
    """One episode's state inside an LLM policy (matrix games, QA envs).

    Attributes:
        rng: the slot's generator; sampling seeds and fallback actions are drawn from it.
        history: (focal, partner) joint actions played so far (matrix games).
        rewards: the focal rewards received so far.
        info: the env info of the latest reset/step (Oracle strategies read it).
        done: the episode has ended.
        memory: text carried across rounds (plans, insights, reflections).
        cache: decisions of the current round (prediction, action, summaries), cleared by observe.
        log: the current round's log (see :meth:`open_round`).
        stats: counters over the episode (:data:`~policies.llm.caller.COUNTERS`).
    """

    rng: np.random.Generator
    history: list[tuple[int, int]] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)
    info: dict = field(default_factory=dict)
    done: bool = False
    memory: dict[str, Any] = field(default_factory=dict)
    cache: dict[str, Any] = field(default_factory=dict)
    log: dict[str, Any] = field(default_factory=dict)
    stats: dict[str, int] = field(default_factory=new_counters)

    @property
    def totals(self) -> dict[str, int]:
        """Old name of :attr:`stats`."""
        return self.stats

    @property
    def t(self) -> int:
        """Rounds played so far (the coming round is ``t + 1``)."""
        return len(self.history)

    @property
    def where(self) -> str:
        """Locates a decision in error messages."""
        return f" of round {self.log.get('round')}"

    def next_seed(self) -> int:
        """A fresh sampling seed from the slot's generator."""
        return int(self.rng.integers(0, SEED_BOUND))

    def open_round(self, strategy: str, round_no: int | None = None) -> None:
        """Start the log of the coming round (default ``t + 1``) unless it is already open."""
        round_no = self.t + 1 if round_no is None else round_no
        if self.log.get("round") != round_no:
            self.log = {
                "round": round_no, "strategy": strategy, "stages": [], "prompts": [], "replies": [],
                "parse_failures": 0, "fallback": False, "decisions_per_call": [], "prompt_tokens": 0,
                "completion_tokens": 0, "action": None, "prediction": None,
            }  # fmt: skip

    # -- the Owner protocol: what the caller reports lands in the round's log
    def on_begin(self, stage: str, kind: str) -> None:
        entry: dict[str, Any] = {"stage": stage, "kind": kind, "attempts": []}
        if kind == "generate":
            entry["fallback"] = False
        self.log["stages"].append(entry)

    def on_call(self, stage: str, size: int) -> None:
        self.log["decisions_per_call"].append(size)

    def on_attempt(
        self, stage: str, attempt: int, request: ChatRequest, reply: Generation, value: Any, error: str | None
    ) -> None:
        entry = self.log["stages"][-1]
        self.log["prompts"].append(request.messages)
        self.log["replies"].append(reply.text)
        self.log["prompt_tokens"] += reply.prompt_tokens
        self.log["completion_tokens"] += reply.completion_tokens
        parsed = value if entry["kind"] == "generate" and error is None else None
        attempt_log = {"messages": request.messages, "seed": request.seed, "reply": reply.text, "parsed": parsed}
        entry["attempts"].append(attempt_log)
        if error is not None:
            self.log["parse_failures"] += 1

    def on_fallback(self, stage: str, value: Any) -> None:
        entry = self.log["stages"][-1]
        entry["fallback"] = True
        entry["fallback_action"] = value
        self.log["fallback"] = True

    def on_score(
        self, stage: str, prompt: str | Messages, continuations: list[str], logprobs: list[float], probs: list[float]
    ) -> None:
        self.log["prompts"].append(prompt)
        self.log["stages"].append(
            {
                "stage": stage,
                "kind": "score",
                "prompt": prompt,
                "continuations": continuations,
                "logprobs": logprobs,
                "probs": probs,
            }
        )


def open_slots(seed: int, resets: int, seeds: list[int | None] | tuple) -> list[Slot]:
    """One slot per episode seed; a slot's generator is seeded by (policy seed, episode seed), or,
    for an unseeded episode, by (policy seed, reset count, position)."""
    return [
        Slot(rng=np.random.default_rng([seed, s] if s is not None else [seed, resets, i, 2**31]))
        for i, s in enumerate(seeds)
    ]


__all__ = ["Slot", "open_slots"]
