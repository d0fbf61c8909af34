"""A language-model reader for live persuasion v3 (issue 39): the same three fields as the scripted
:class:`~tom_envs.persuasion.reader_v3.ReaderV3` (kind, principle, concern), asked of a model.

:class:`LLMReaderV3` works on any backend through the one caller (:class:`policies.llm.caller.Caller`):
one prompt per line (:data:`READER_V3_PROMPT`, the spec's definitions in brief), a reply parsed by
:func:`parse_reading_v3`, an unusable reply re-asked up to ``max_resamples`` times, then the explicit
fallback (``"raise"``, or ``"random"``: the line reads as nothing, counted in ``stats["fallbacks"]``).
It is optional: the env's default reader is the scripted one; score either with
:func:`~tom_envs.persuasion.reader_v3.score_reader`.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from policies.llm.caller import Ask
from policies.llm.errors import ReplyError
from tom_envs.persuasion.principles import PRINCIPLES
from policies.persuasion.llm import GreedyReader
from tom_envs.persuasion.reader_v3 import CONCERNS_V3, KINDS, ReadingV3, check_read_arguments

READER_V3_PROMPT = """Read one line a persuader says to a persuadee.
Kind: pitch (the line gives exactly one persuasion principle as its reason), nothing (no principle: small \
talk, questions, plain requests, nonsense, or a principle that is negated or denied), stuffed (two or more \
different principles), hostile (insults, belittles, mocks, threatens or coerces the persuadee, in any words, \
sarcasm included; hostile wins over everything else).
Principles: reciprocity (a favour done or offered in return), scarcity (limited amount or time), consensus \
(what others do), authority (experts, studies, credentials), commitment (the persuadee's own earlier words, \
values or first step), liking (praise, friendship, shared identity).
Concern the line addresses: cost, timing, fit, doubt, effort, or none (none for hostile lines).
{goal}Line: {line}
Answer in exactly this format:
Kind: pitch | nothing | stuffed | hostile
Principle: reciprocity | scarcity | consensus | authority | commitment | liking | none
Concern: cost | timing | fit | doubt | effort | none"""

_FIELD = re.compile(r"^\s*\**\s*(kind|principle|concern)\s*\**\s*:\s*(.*)$", re.IGNORECASE)


def _first_word(value: str) -> str:
    found = re.findall(r"[a-z]+", value.lower())
    return found[0] if found else ""


def parse_reading_v3(text: str) -> ReadingV3:
    """A :class:`ReadingV3` from a reply in :data:`READER_V3_PROMPT`'s format.

    A pitch needs its principle; any other kind ignores the principle named. A hostile line's
    concern is dropped (the spec: hostile lines address no concern).

    Raises:
        ReplyError: no known kind, or a pitch without a known principle, or an unknown concern.
    """
    fields: dict[str, str] = {}
    for raw in text.splitlines():
        m = _FIELD.match(raw)
        if m:
            fields.setdefault(m.group(1).lower(), _first_word(m.group(2)))
    kind = fields.get("kind", "")
    if kind not in KINDS:
        raise ReplyError(f"name the kind on a 'Kind:' line: one of {', '.join(KINDS)}")
    principle = fields.get("principle", "none")
    if kind == "pitch" and principle not in PRINCIPLES:
        raise ReplyError(f"a pitch names its principle on a 'Principle:' line: one of {', '.join(PRINCIPLES)}")
    concern = fields.get("concern", "none") or "none"
    if concern not in (*CONCERNS_V3, "none"):
        raise ReplyError(f"name the concern on a 'Concern:' line: one of {', '.join(CONCERNS_V3)} or none")
    return ReadingV3(
        kind, principle if kind == "pitch" else None, None if concern == "none" or kind == "hostile" else concern
    )


class LLMReaderV3(GreedyReader):
    """Reads a persuader's line with a language model into a :class:`ReadingV3` (a
    :class:`~policies.persuasion.llm.GreedyReader`: its arguments; replies of three short lines, at most
    32 tokens by default)."""

    name = "llm-v3"
    defaults: ClassVar[dict[str, Any]] = {**GreedyReader.defaults, "max_tokens": 32}

    def read(self, utterance: str, goal: str | None = None) -> ReadingV3:
        """The model's reading of one line (an empty line reads as nothing without asking).

        Raises:
            ReaderV3Error: ``utterance`` (or ``goal``) is not a str.
            ResampleLimitReached: with ``fallback="raise"``, no usable reply within the re-asks.
        """
        check_read_arguments(utterance, goal)
        if not utterance.strip():
            return ReadingV3("nothing")
        goal_line = f"The persuader wants the persuadee to {goal.strip()}.\n" if goal and goal.strip() else ""
        prompt = READER_V3_PROMPT.format(goal=goal_line, line=utterance.strip())
        ask = Ask(prompt, parse_reading_v3, lambda rng: ReadingV3("nothing"))
        return self.caller.ask("read-v3", [ask])[0].value


__all__ = ["LLMReaderV3", "READER_V3_PROMPT", "parse_reading_v3"]
