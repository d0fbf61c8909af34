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

from policies.llm.base import Backend
from policies.llm.caller import Ask, Caller
from policies.llm.errors import ReplyError
from tom_envs.persuasion.principles import PRINCIPLES
from tom_envs.persuasion.reader_v3 import CONCERNS_V3, KINDS, ReaderV3Error, ReadingV3

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


class LLMReaderV3:
    """Reads a persuader's line with a language model into a :class:`ReadingV3`.

    Args:
        backend: any :class:`~policies.llm.base.Backend`.
        max_resamples: re-asks of an unusable reply; then ``fallback``: ``"raise"`` or ``"random"`` (the
            line reads as nothing; counted).
        seed: seeds the caller (sampling seeds of re-asks), so a run repeats.
        max_tokens: the reply cap (three short lines).
    """

    name = "llm-v3"

    def __init__(
        self, backend: Backend, *, max_resamples: int = 3, fallback: str = "raise", seed: int = 0, max_tokens: int = 32
    ) -> None:
        self.caller = Caller(
            backend, max_resamples=max_resamples, fallback=fallback, temperature=0.0, max_tokens=max_tokens, seed=seed
        )

    @property
    def stats(self) -> dict[str, int]:
        """The caller's counters (requests, parse failures, fallbacks, ...)."""
        return self.caller.stats

    def read(self, utterance: str, goal: str | None = None) -> ReadingV3:
        """The model's reading of one line (an empty line reads as nothing without asking).

        Raises:
            ReaderV3Error: ``utterance`` (or ``goal``) is not a str.
            ResampleLimitReached: with ``fallback="raise"``, no usable reply within the re-asks.
        """
        if not isinstance(utterance, str):
            raise ReaderV3Error(
                f"read() takes the line as a str, got {type(utterance).__name__}; pass the "
                "utterance text (e.g. action['utterance'])."
            )
        if goal is not None and not isinstance(goal, str):
            raise ReaderV3Error(f"goal must be a str or None, got {type(goal).__name__}; pass the goal's text.")
        if not utterance.strip():
            return ReadingV3("nothing")
        goal_line = f"The persuader wants the persuadee to {goal.strip()}.\n" if goal and goal.strip() else ""
        prompt = READER_V3_PROMPT.format(goal=goal_line, line=utterance.strip())
        ask = Ask(prompt, parse_reading_v3, lambda rng: ReadingV3("nothing"))
        return self.caller.ask("read-v3", [ask])[0].value


__all__ = ["LLMReaderV3", "READER_V3_PROMPT", "parse_reading_v3"]
