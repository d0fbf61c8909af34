"""Text of live persuasion v2: the persuadee's replies say less, and less plainly, than v1's.

A voiced concern (the topic the dynamics drew: the real concern, a misleading front, or none;
:mod:`tom_envs.persuasion.mind_v2`) is written half the time with v1's plain sentences and half the
time with an *indirect* one that names no keyword of the concern ("Money has been tight since the
move." for cost); tone sentences are v1's. A persuadee that walks away says so. Persuader lines are
v1's (:mod:`tom_envs.persuasion.mind_text`); each reads as its own principle under
:class:`~tom_envs.persuasion.reader_v2.ReaderV2` (tested).
"""

from __future__ import annotations

import numpy as np

from tom_envs.persuasion.mind import CONCERNS
from tom_envs.persuasion.mind_text import CONCERN_LINES, TONE_LINES

#: Indirect sentences per concern (they allude to it without its plain words).
INDIRECT_LINES: dict[str, tuple[str, ...]] = {
    "cost": ("Money has been tight since the move.", "I've had a lot of expenses this month.",
             "My bank balance would not thank me.", "I'd have to give something else up."),
    "timing": ("Next month would suit me better.", "Let me get through this week first.",
               "It'll still be around in the spring, won't it?", "I'll look at it once things calm down."),
    "fit": ("My friends would laugh at me.", "I'm not really that sort of person.",
            "I'd be the odd one out there.", "Nobody in my circle would get it."),
    "doubt": ("I've heard that sort of thing before.", "Sounds nice on paper.",
              "I'll believe it when I see it.", "Hmm, people say a lot of things."),
    "effort": ("I've got enough on my plate.", "What if I regret it halfway through?",
               "Once I'm in, I'm stuck.", "I'd rather not bite off more than I can chew."),
}

LEAVE_LINES: tuple[str, ...] = ("I think we're done here. Goodbye.", "I've heard enough, sorry. I'm going.",
                                "Let's leave it. I have to go.", "No. I'm not discussing this any more.")


def reply_line_v2(tone: int, topic: int, rng: np.random.Generator) -> str:
    """The v2 reply of ``tone`` voicing ``topic - 1`` (0: none): three draws from ``rng``."""
    lines = TONE_LINES[tone]
    text = lines[int(rng.integers(len(lines)))]
    k, plain = int(rng.integers(4)), bool(rng.integers(2))
    if not topic:
        return text
    concern = CONCERNS[topic - 1]
    voiced = CONCERN_LINES[concern] if plain else INDIRECT_LINES[concern]
    return f"{text} {voiced[k % len(voiced)]}"


def leave_line(rng: np.random.Generator) -> str:
    return LEAVE_LINES[int(rng.integers(len(LEAVE_LINES)))]


__all__ = ["INDIRECT_LINES", "LEAVE_LINES", "leave_line", "reply_line_v2"]
