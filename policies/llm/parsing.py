"""Reading model replies: answer lines, sections, JSON objects and 1-5 scores.

A parser returns a valid value or raises :class:`~policies.llm.errors.ReplyError` saying what was
wrong (the caller re-asks); nothing here maps an unusable reply to a default.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from policies.llm.caller import Ask, Owner
from policies.llm.errors import ReplyError

_ANSWER_RE = re.compile(r"answer\s*(?:is)?\s*[:=\-]?\s*[\*\"'`\[(<]*\s*([A-Za-z][A-Za-z0-9_]*)", re.IGNORECASE)


def parse_answer(reply: str, labels: Sequence[str]) -> int | None:
    """The index of the label named on the reply's last ``Answer: <label>`` line, or None.

    The match is case-insensitive on the whole word; anything else (no answer line, a word that is
    not a label) is a failed parse, never a default. ``The answer is X`` counts as an answer line.
    """
    found = _ANSWER_RE.findall(reply)
    if not found:
        return None
    word = found[-1].lower()
    lowered = [label.lower() for label in labels]
    return lowered.index(word) if word in lowered else None


# A reply that is only an option letter: "A", "A.", "A. Yes", "(A)", "**A**", "A) ...", "A: ..." on its first
# line (a letter followed by a word, "A person ...", is not one).
_LEADING_LETTER = re.compile(
    r"^[\s\*\"'`(\[<]*([A-Z])(?:[\*\"'`)\]>]*)(?=$|[\s]*[\n.,:;!?\-\u2013]|[\*\"'`)\]>])", re.MULTILINE
)


def parse_letter(reply: str, labels: Sequence[str]) -> int | None:
    """The index of the option letter a reply gives, or None.

    Accepted: an answer line (``The answer is A``, ``Answer: (B)``; the last one counts, as in
    :func:`parse_answer`) or, failing that, a first line that is just the letter, possibly marked up
    or followed by punctuation and the option's text: ``A``, ``A.``, ``A. Yes``, ``(A)``, ``**A**``,
    ``A)``. A letter followed by a word (``A person ...``) is not an answer. Letters outside
    ``labels`` are failed parses.
    """
    index = parse_answer(reply, labels)
    if index is not None:
        return index
    first = next((line for line in reply.splitlines() if line.strip()), "")
    match = _LEADING_LETTER.match(first)
    if match is None:
        return None
    return list(labels).index(match.group(1)) if match.group(1) in labels else None


#: The release's answer letters (evaluation/evaluate.py accepts A-F whatever the number of options).
AUTHORS_LETTERS = "ABCDEF"
_AUTHORS_PUNCTUATION = '"*:.-,'


def parse_authors_letter(reply: str) -> str | None:
    """The PersuasiveToM release's zero-shot answer rule: the text before the first punctuation
    mark (``" * : . - ,``), stripped, first line; an answer only if it is one of A-F, else None (the
    release then samples again). ``"A. Yes"`` -> A; ``"(A)"``, ``"**A**"``, ``"The answer is A"`` -> None.
    """
    text = reply
    for mark in _AUTHORS_PUNCTUATION:
        text = text.replace(mark, ".")
    letter = text.split(".")[0].strip().split("\n")[0]
    return letter if letter in tuple(AUTHORS_LETTERS) else None


def parse_authors_cot_letter(reply: str, options: Sequence[str]) -> str | None:
    """The release's chain-of-thought answer rule: the first word after ``The answer is`` (or ``the
    answer is``) with ``" * : . - ,`` removed; without that phrase, the first word of the whole
    reply when it mentions one of the lettered ``options`` lines (``"A. text"``). An answer only if
    it is one of A-F, else None."""

    def first_word(text: str) -> str:
        for mark in _AUTHORS_PUNCTUATION:
            text = text.replace(mark, "")
        return text.strip().split(" ")[0]

    word = reply
    for phrase in ("The answer is", "the answer is"):
        if phrase in reply:
            word = first_word(reply.split(phrase)[1])
            break
    else:
        if any(option.lower() in reply.lower() for option in options):
            word = first_word(reply)
    return word if word in tuple(AUTHORS_LETTERS) else None


def choice_ask(prompt: str, labels: Sequence[str], owner: Owner | None = None) -> Ask:
    """An ask whose reply must name one of ``labels`` on an answer line; the fallback is a uniformly
    random index."""
    labels = list(labels)

    def parse(reply: str) -> int:
        index = parse_answer(reply, labels)
        if index is None:
            raise ReplyError(f"no 'Answer: <choice>' line naming one of {', '.join(labels)}")
        return index

    def random(rng: np.random.Generator) -> int:
        return int(rng.integers(len(labels)))

    return Ask(prompt, parse, random, owner)


def extract_section(reply: str, name: str) -> str:
    """The text after ``<name>:`` up to the next ``Word:`` header line (stripped), or ""."""
    match = re.search(rf"{name}\s*:\s*(.*?)(?=\n\s*[A-Z][A-Za-z ]{{0,20}}:|\Z)", reply, re.IGNORECASE | re.DOTALL)
    return match.group(1).strip() if match else ""


def extract_json(text: str) -> dict:
    """The last top-level JSON object in ``text`` (code fences allowed); :class:`ReplyError` if none."""
    decoder = json.JSONDecoder()
    found = None
    pos = text.find("{")
    while pos >= 0:
        try:
            obj, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError:
            pos = text.find("{", pos + 1)
            continue
        found = obj  # a top-level object; skip what it contains
        pos = text.find("{", end)
    if found is None:
        raise ReplyError("no JSON object found")
    return found


def score_1_5(value: Any, what: str) -> int:
    """``value`` as an integer score from 1 to 5; :class:`ReplyError` naming ``what`` otherwise."""
    if isinstance(value, bool):
        raise ReplyError(f"{what} must be an integer 1-5")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ReplyError(f"{what} must be an integer 1-5, got {value!r}") from None
    if x != int(x) or not 1 <= x <= 5:
        raise ReplyError(f"{what} must be an integer 1-5, got {value!r}")
    return int(x)


def rating_1_5(reply: str) -> float:
    """The number under ``"rating"`` in a reply's JSON object, from 1.0 to 5.0 (else :class:`ReplyError`)."""
    value = extract_json(reply).get("rating")
    if isinstance(value, bool):
        raise ReplyError("'rating' must be a number from 1.0 to 5.0")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ReplyError(f"'rating' must be a number from 1.0 to 5.0, got {value!r}") from None
    if not 1.0 <= x <= 5.0:
        raise ReplyError(f"'rating' must be from 1.0 to 5.0, got {x}")
    return x


__all__ = [
    "AUTHORS_LETTERS",
    "choice_ask",
    "extract_json",
    "extract_section",
    "parse_answer",
    "parse_authors_cot_letter",
    "parse_authors_letter",
    "parse_letter",
    "rating_1_5",
    "score_1_5",
]
