"""Trivial answerers for PersuasiveToM's questions: the floor the published data allows.

They read nothing but the question and its options as shown (no info, no answers), so what they
score measures the data, not any theory of mind:

* :class:`AlwaysFirst` answers the first option shown. In the published order (the benchmark's
  ``--protocol authors``) it scores 50.8 % on desire_ee (Yes is first and right in 1,250 of 2,459),
  24.1 % / 24.8 % on intent_ee / behavior_qa and 50.0 % on judge_qa; with shuffled options, chance.
* :class:`LongestOrKeyword` answers a Yes/No question No when the question contains the word "not"
  and Yes otherwise (99.7 % on judge_qa, whose questions ask "is this strategy (not) effective"),
  and any other question with its longest option (41.9 % on intent_ee, whose 112 truncated,
  repeated distractors are short).
"""

from __future__ import annotations

import re
from typing import Any

from policies.base import BasePolicy

_NOT = re.compile(r"\bnot\b", re.IGNORECASE)


def _shown(observation: Any) -> list[str]:
    return [str(c) for c in list(observation["choices"])[: int(observation["n_choices"])]]


class AlwaysFirst(BasePolicy):
    """Answers the first option shown (a first-option bias, the floor of the published order)."""

    name = "always-first"

    def act(self, observation: Any, info: dict) -> int:
        return 0


class LongestOrKeyword(BasePolicy):
    """Yes/No questions by the word "not" in the question (No if present); others by the longest
    option (the first of equal lengths)."""

    name = "longest-or-keyword"

    def act(self, observation: Any, info: dict) -> int:
        shown = _shown(observation)
        lowered = [c.strip().lower() for c in shown]
        if sorted(lowered) == ["no", "yes"]:
            return lowered.index("no" if _NOT.search(str(observation["question"])) else "yes")
        return max(range(len(shown)), key=lambda i: (len(shown[i]), -i))


__all__ = ["AlwaysFirst", "LongestOrKeyword"]
