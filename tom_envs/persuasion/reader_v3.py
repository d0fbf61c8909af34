"""How the persuadee of live persuasion v3 reads a line: a small semantic parser, not a word list
(issue 39, the spec in ``docs/reader_v3.md``).

:class:`ReaderV3` turns one line into a :class:`ReadingV3` (``kind``, ``principle``, ``concern``):

1. **hostile** first, whatever else the line says: insults found by the *frames* of derogation
   ("only a(n) X would say no", "you'd have to be a proper X", "don't be such a X", "what kind of X
   ...", a clause that is only "you <adjectives> X"), contempt ("even a child could ...", "use your
   brain"), sarcasm ("oh sure, because you know better than ...", "..., genius") and threats or
   coercion ("or else", "you'll regret it", "I'm not asking") -- so an insult no list contains is
   still one (:mod:`~tom_envs.persuasion.reader_v3_hostile`). Affectionate teasing is not.
2. the line is normalised and split into sentences and clauses
   (:mod:`~tom_envs.persuasion.reader_v3_text`); each principle's frames
   (:mod:`~tom_envs.persuasion.reader_v3_frames`: an expert *who recommends*, others *who do*, a limited
   amount or time, a favour done or offered, the persuadee's *own* earlier words, warmth towards the
   persuadee) are matched; a match counts unless it is **negated or denied** in its clause ("I'm not
   saying experts recommend it", "no study has ...") or sits in **word salad** (a clause with a
   gibberish token, "the the", "the recommend", five content words with no function word).
3. **nothing** (no principle), **pitch** (exactly one) or **stuffed** (two or more different ones).
4. the **concern**: the earliest concern cue in the line (``None`` for hostile lines and for lines
   that address none).

The goal's own words (``goal``) are no reason: they are masked before the frames are matched.
:func:`load_labelled` reads a labelled set (JSON Lines, the spec's format) and :func:`score_reader`
scores any reader on one: per-class precision, recall and F1 and confusion matrices for the nine
reading classes and the six concern classes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from tom_envs.errors import DatasetError, TomEnvsError, json_object
from tom_envs.persuasion.principles import PRINCIPLES
from tom_envs.persuasion.reader_v3_cues import CONCERN_CUES, DEADLINE, FRAGMENT_KEYWORDS, FRAGMENT_WORDS
from tom_envs.persuasion.reader_v3_frames import FRAMES
from tom_envs.persuasion.reader_v3_hostile import hostility
from tom_envs.persuasion.reader_v3_text import ill_formed, negated, normalise, sentences

KINDS: tuple[str, ...] = ("pitch", "nothing", "stuffed", "hostile")
CONCERNS_V3: tuple[str, ...] = ("cost", "timing", "fit", "doubt", "effort")
#: the nine reading classes: a pitch is scored by its principle, any other line by its kind
READING_CLASSES: tuple[str, ...] = (*PRINCIPLES, "nothing", "stuffed", "hostile")
CONCERN_CLASSES: tuple[str, ...] = (*CONCERNS_V3, "none")
_BOUNDARY = re.compile(r"[,;:!?()]|\s(?:but|and|so|yet|or)\s")
_CHUNK = re.compile(r"[^,;:!?()]+")
_ORG_VERBS = (
    "advises|recommends|recommended|says|said|warns|suggests|urges|backs|endorses|approves|approved|"
    "confirms|found|finds|reports|guidance|advice|supports"
)


class ReaderV3Error(TomEnvsError, TypeError):
    """A reader was handed something that is not a line of text (or a goal that is not text)."""


class LabelledSetError(DatasetError):
    """A labelled reader set is malformed; the message names the file, the line and the fix."""


@dataclass(frozen=True)
class ReadingV3:
    """What a line does: ``kind`` (:data:`KINDS`), ``principle`` (a pitch's one principle, else ``None``)
    and ``concern`` (:data:`CONCERNS_V3` or ``None``; always ``None`` for a hostile line)."""

    kind: str
    principle: str | None = None
    concern: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")
        if (self.kind == "pitch") != (self.principle is not None) or (
            self.principle is not None and self.principle not in PRINCIPLES
        ):
            raise ValueError(
                f"a pitch names one principle of {PRINCIPLES} and no other kind names one; got "
                f"kind={self.kind!r}, principle={self.principle!r}"
            )
        if self.concern is not None and (self.concern not in CONCERNS_V3 or self.kind == "hostile"):
            raise ValueError(f"concern must be None or one of {CONCERNS_V3} (None for hostile), got {self.concern!r}")

    @property
    def label(self) -> str:
        """The reading class (:data:`READING_CLASSES`): the principle of a pitch, else the kind."""
        return self.principle if self.principle is not None else self.kind


class Reader(Protocol):
    def read(self, utterance: str, goal: str | None = None) -> ReadingV3: ...


def check_read_arguments(utterance: object, goal: object) -> None:
    """What every v3 reader's ``read(utterance, goal)`` takes: a str line and a str goal or None.

    Raises:
        ReaderV3Error: either is something else, saying what to pass.
    """
    if not isinstance(utterance, str):
        raise ReaderV3Error(
            f"read() takes the line as a str, got {type(utterance).__name__}; pass the "
            "utterance text (e.g. action['utterance'])."
        )
    if goal is not None and not isinstance(goal, str):
        raise ReaderV3Error(f"goal must be a str or None, got {type(goal).__name__}; pass the goal's text.")


def _clause_before(sentence: str, start: int) -> str:
    """The part of the cue's clause that comes before it."""
    cuts = [m.end() for m in _BOUNDARY.finditer(sentence, 0, start)]
    return sentence[cuts[-1] if cuts else 0 : start]


def _salad(sentence: str, start: int, end: int, acronyms: frozenset[str]) -> str | None:
    """Why the clauses under ``sentence[start:end]`` are word salad, or ``None``."""
    for chunk in _CHUNK.finditer(sentence):
        if chunk.start() < end and chunk.end() > start:
            why = ill_formed(chunk.group(0), acronyms)
            if why:
                return why
    return None


class ReaderV3:
    """The v3 scripted reader (see the module docstring): ``read(utterance, goal) -> ReadingV3``.

    Deterministic and pure: the same line and goal always read the same.
    """

    name = "scripted-v3"

    def explain(self, utterance: str, goal: str | None = None) -> dict[str, Any]:
        """The evidence behind :meth:`read`: the hostile frame, the principle frames that counted, and
        the ones dropped (negated, denied or in word salad), with the text each matched."""
        check_read_arguments(utterance, goal)
        text = normalise(utterance)
        acronyms = frozenset(w.lower() for w in re.findall(r"\b[A-Z]{2,5}s?\b", utterance))
        out: dict[str, Any] = {"text": text, "hostile": hostility(text) if text else None, "counted": [], "dropped": []}
        if goal and goal.strip():  # the request itself is no reason
            text = re.sub(re.escape(normalise(goal)), "it", text)
        for sentence in sentences(text):
            for frame in FRAMES:
                for m in frame.pattern.finditer(sentence):
                    before = _clause_before(sentence, m.start())
                    clause = before + m.group(0)
                    hit = (frame.principle, m.group(0))
                    after = sentence[m.end() : m.end() + 7]  # "the experts have| not weighed in"
                    if negated(clause, len(before), len(clause), inside=frame.inside) or (
                        frame.inside and re.match(r" (?:not|never)\b", after)
                    ):
                        out["dropped"].append((*hit, "negated"))
                    elif why := _salad(sentence, m.start(), m.end(), acronyms):
                        out["dropped"].append((*hit, f"word salad: {why}"))
                    else:
                        out["counted"].append(hit)
            for a in acronyms:  # an organisation by its initials: "The RSPB advises ..."
                m = re.search(rf"\b{a}\b (?:\w+ )?(?:{_ORG_VERBS})\b", sentence)
                if m and not negated(sentence, m.start(), m.end()):
                    out["counted"].append(("authority", m.group(0)))
            for chunk in _CHUNK.finditer(sentence):  # "Expert, popular, rare, free."
                frag = re.sub(
                    r"^(?:and |or |plus |also |so |but )?(?:it is |they are |this is |that is )?",
                    "",
                    chunk.group(0).strip(" .\"'"),
                )
                if frag in FRAGMENT_KEYWORDS and len(frag.split()) <= FRAGMENT_WORDS:
                    out["counted"].append((FRAGMENT_KEYWORDS[frag], frag))
        found = [(m.start(), c) for c, p in CONCERN_CUES.items() for m in [p.search(text)] if m]
        timing = [f for f in found if f[1] == "timing"]
        if timing and DEADLINE.search(text):
            found = timing
        salad = all(ill_formed(chunk.group(0), acronyms) for s in sentences(text) for chunk in _CHUNK.finditer(s))
        out["concern"] = min(found)[1] if found and not salad else None
        return out

    def read(self, utterance: str, goal: str | None = None) -> ReadingV3:
        """The reading of one line (the persuadee hears ``goal``'s own words as no reason).

        Raises:
            ReaderV3Error: ``utterance`` (or ``goal``) is not a str.
        """
        ev = self.explain(utterance, goal)
        if ev["hostile"]:
            return ReadingV3("hostile")
        principles = sorted({p for p, _ in ev["counted"]}, key=PRINCIPLES.index)
        if not principles:
            return ReadingV3("nothing", None, ev["concern"])
        if len(principles) == 1:
            return ReadingV3("pitch", principles[0], ev["concern"])
        return ReadingV3("stuffed", None, ev["concern"])


# ------------------------------------------------------------------------------------------- labelled sets


@dataclass(frozen=True)
class LabelledLine:
    """One line of a labelled set: the text and its gold reading (``note``: the phenomenon it tests)."""

    text: str
    reading: ReadingV3
    note: str = ""


_FIX = (
    'write one JSON object per line: {"text": "...", "kind": "pitch|nothing|stuffed|hostile", '
    '"principle": "<principle>"|null, "concern": "<concern>"|null, "note": "..."}'
)


def _parse_line(raw: str, where: str) -> LabelledLine:
    obj = json_object(raw, where, LabelledSetError, _FIX)
    missing = [k for k in ("text", "kind", "principle", "concern") if k not in obj]
    if missing:
        raise LabelledSetError(f"{where}: missing {', '.join(missing)}; {_FIX}")
    if not isinstance(obj["text"], str) or not obj["text"].strip():
        raise LabelledSetError(f"{where}: 'text' must be a non-empty string; {_FIX}")
    try:
        reading = ReadingV3(obj["kind"], obj["principle"], obj["concern"])
    except ValueError as e:
        raise LabelledSetError(f"{where}: {e}; fix the labels ({_FIX})") from None
    note = obj.get("note", "")
    return LabelledLine(obj["text"], reading, note if isinstance(note, str) else str(note))


def load_labelled(path: str | Path) -> list[LabelledLine]:
    """A labelled set in the spec's JSON Lines format (blank lines skipped).

    Raises:
        LabelledSetError: the file is missing or empty, or a line is not a well-labelled object (the
            message names the line number and the fix).
    """
    path = Path(path)
    if not path.is_file():
        raise LabelledSetError(f"{path}: no such file; pass the path of a .jsonl labelled set.")
    lines = [
        _parse_line(raw, f"{path}, line {n}")
        for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if raw.strip()
    ]
    if not lines:
        raise LabelledSetError(f"{path}: no labelled lines; {_FIX}")
    return lines


def _per_class(pairs: list[tuple[str, str]], classes: tuple[str, ...]) -> tuple[dict, dict]:
    confusion = {g: {p: 0 for p in classes} for g in classes}
    for gold, pred in pairs:
        confusion[gold][pred] += 1
    scores = {}
    for c in classes:
        tp = confusion[c][c]
        n_pred = sum(confusion[g][c] for g in classes)
        n_gold = sum(confusion[c].values())
        precision = tp / n_pred if n_pred else None
        recall = tp / n_gold if n_gold else None
        f1 = (
            2 * precision * recall / (precision + recall)
            if precision and recall
            else (0.0 if precision is not None and recall is not None else None)
        )
        scores[c] = {"precision": precision, "recall": recall, "f1": f1, "support": n_gold, "predicted": n_pred}
    return scores, confusion


def score_reader(reader: Reader, items: Iterable[LabelledLine]) -> dict[str, Any]:
    """Score a reader on labelled lines.

    Returns ``{"n", "reading": {class: {precision, recall, f1, support, predicted}}, "concern": {...},
    "reading_confusion": {gold: {predicted: count}}, "concern_confusion": {...}, "reading_accuracy",
    "concern_accuracy", "hostile_read_as_pitch"}``. Reading classes are :data:`READING_CLASSES`
    (a pitch by its principle), concern classes :data:`CONCERN_CLASSES`. A precision (recall) is ``None``
    where nothing was predicted as (labelled with) that class: undefined, not zero.
    """
    items = list(items)
    readings = [reader.read(item.text) for item in items]
    rp = [(item.reading.label, r.label) for item, r in zip(items, readings)]
    cp = [(item.reading.concern or "none", r.concern or "none") for item, r in zip(items, readings)]
    reading, reading_conf = _per_class(rp, READING_CLASSES)
    concern, concern_conf = _per_class(cp, CONCERN_CLASSES)
    n = len(items)
    return {
        "n": n,
        "reading": reading,
        "concern": concern,
        "reading_confusion": reading_conf,
        "concern_confusion": concern_conf,
        "reading_accuracy": sum(g == p for g, p in rp) / n if n else None,
        "concern_accuracy": sum(g == p for g, p in cp) / n if n else None,
        "hostile_read_as_pitch": [
            item.text for item, r in zip(items, readings) if item.reading.kind == "hostile" and r.kind == "pitch"
        ],
    }


__all__ = [
    "CONCERNS_V3",
    "CONCERN_CLASSES",
    "KINDS",
    "LabelledLine",
    "LabelledSetError",
    "READING_CLASSES",
    "ReaderV3",
    "ReaderV3Error",
    "ReadingV3",
    "check_read_arguments",
    "load_labelled",
    "score_reader",
]
