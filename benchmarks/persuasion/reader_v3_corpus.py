"""The training set of the learned v3 reader, composed from hand-written atoms (issue 39).

The atoms (:mod:`~benchmarks.persuasion.reader_v3_atoms_pitch`,
:mod:`~benchmarks.persuasion.reader_v3_atoms_other`) were written from the labelling spec alone (docs/reader_v3.md),
never from the frozen evaluation set. :func:`build_corpus` composes them with a seeded generator into lines of every
kind the spec names: whole pitches and pitches framed by a request, a question or a concern; stuffing of two or three
principles (and keyword lists); negations and denials (alone, and beside another principle that still counts);
hostility (whole lines, insult frames whose slot any noun fills, hostility beside principle words); teasing that is
not hostile; word salad with and without cue words; small talk, requests and concerns. The same seed gives the same
lines in the same order. ``python -m benchmarks.persuasion.reader_v3_corpus`` writes
``tests/data/persuasion/reader_v3_train.jsonl``.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from pathlib import Path

from benchmarks.persuasion import reader_v3_atoms_more as more
from benchmarks.persuasion import reader_v3_atoms_other as other
from benchmarks.persuasion.reader_v3_atoms_pitch import CLAUSES, PITCHES
from tom_envs.persuasion.principles import PRINCIPLES

TRAIN_PATH = Path(__file__).resolve().parents[2] / "tests" / "data" / "persuasion" / "reader_v3_train.jsonl"
SEED = 39

#: bare keywords of each principle, for keyword-list stuffing ("Expert-approved, popular, limited!")
KEYWORDS: dict[str, tuple[str, ...]] = {
    "reciprocity": ("a free gift in return", "a favour returned", "something back for you", "a thank-you present"),
    "scarcity": ("limited places", "last chance", "almost sold out", "rare", "ends Friday", "few left"),
    "consensus": ("popular", "loved by thousands", "everyone's favourite", "what everybody's doing", "bestselling"),
    "authority": ("expert-approved", "doctor-recommended", "clinically proven", "backed by scientists"),
    "commitment": ("just like you promised", "true to your word", "what you said you wanted", "your next step"),
    "liking": ("for a lovely person like you", "between friends", "because I adore you", "made for a star like you"),
}
_PREFIXES = ("", "", "Honestly, ", "Look, ", "You know, ", "Well, ", "To be fair, ", "Seriously, ")
_JOINS = ("{a}, and {b}.", "{A}. {B}.", "{A}; plus, {b}.", "{A}, and besides, {b}.", "{A} and {b}!", "{A}. Also, {b}.")
_SARCASM = (
    "Oh sure, ignore that {c}, genius.",
    "Yeah, because you know better, right? {C}.",
    "{C}, but I suppose that's too hard for you to grasp.",
    "Wow, {c} and you still can't decide, impressive.",
    "{C}. Even you can understand that, surely.",
    "{C}, so stop being pathetic and {q}.",
    "{C}, or do I need to draw you a picture?",
    "{C}; do it or you'll be sorry.",
    "{C}, so sign, or else.",
    "Try to keep up: {c}.",
)


def _block(text: str) -> list[tuple[str | None, str]]:
    """``<concern> | <text>`` lines as (concern or None, text)."""
    out = []
    for raw in text.strip().splitlines():
        concern, line = (part.strip() for part in raw.split("|", 1))
        out.append((None if concern == "-" else concern, line))
    return out


def _words(text: str) -> list[str]:
    return [w.strip() for w in text.strip().splitlines() if w.strip()]


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _row(text: str, kind: str, principle: str | None, concern: str | None, note: str) -> dict:
    text = re.sub(r"\b([Aa]) (?=[aeiou])", r"\1n ", text)  # "a absolute" -> "an absolute"
    return {"text": text, "kind": kind, "principle": principle, "concern": concern, "note": note}


def _fill(template: str, **slots: str) -> str:
    """Fill ``{x}`` and the capitalised ``{X}`` of every slot."""
    return template.format(**slots, **{k.upper(): _cap(v) for k, v in slots.items()})


class _Composer:
    """Draws atoms with one seeded generator and writes labelled rows."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.clauses = {p: _block(CLAUSES[p]) for p in PRINCIPLES}
        self.pitches = {p: _block(PITCHES[p]) for p in PRINCIPLES}
        self.requests = _words(other.REQUESTS)
        self.tails = _block(other.CONCERN_TAILS)
        self.rows: list[dict] = []

    def add(self, *args) -> None:
        self.rows.append(_row(*args))

    def clause(self, principle: str) -> tuple[str | None, str]:
        return self.rng.choice(self.clauses[principle])

    def pitch_lines(self) -> None:
        for p in PRINCIPLES:
            for concern, line in self.pitches[p]:
                self.add(line, "pitch", p, concern, "plain")
                prefix = self.rng.choice(_PREFIXES[2:])
                self.add(prefix + line[0].lower() + line[1:], "pitch", p, concern, "plain")
                q = self.rng.choice(self.requests)
                framed = self.rng.choice((f"{line[:-1]}, so {q}.", f"{_cap(q)}. {line}", f"Why not {q}? {line}"))
                self.add(framed, "pitch", p, concern, "indirect")
                if concern is None:
                    tc, tail = self.rng.choice(self.tails)
                    self.add(f"{line[:-1]}, {tail}.", "pitch", p, tc, "concern")

    def clause_lines(self) -> None:
        frames = (
            "{C}.",
            "{C}, so {q}.",
            "{Q}: {c}.",
            "Did you know {c}?",
            "Isn't it worth remembering that {c}?",
            "{C} - will you {q}?",
            "Just so you know, {c}.",
            "{C}, you know.",
        )
        for p in PRINCIPLES:
            for concern, c in self.clauses[p]:
                for frame in self.rng.sample(frames, 3):
                    self.add(_fill(frame, c=c, q=self.rng.choice(self.requests)), "pitch", p, concern, "clause")
                tc, tail = self.rng.choice(self.tails)
                self.add(_fill("{C}, {t}.", c=c, t=tail), "pitch", p, concern or tc, "concern")

    def stuffed_lines(self, n: int) -> None:
        for i in range(n):
            k = 3 if i % 4 == 0 else 2
            chosen = self.rng.sample(PRINCIPLES, k)
            parts = [self.clause(p) for p in chosen]
            concern = next((c for c, _ in parts if c), None)
            texts = [t for _, t in parts]
            if k == 3:
                text = f"{_cap(texts[0])}, {texts[1]}, and {texts[2]}."
            else:
                text = _fill(self.rng.choice(_JOINS), a=texts[0], b=texts[1])
            self.add(text, "stuffed", None, concern, "stuffing")
        for i in range(n // 4):
            chosen = self.rng.sample(PRINCIPLES, 2 + i % 2)
            words = [self.rng.choice(KEYWORDS[p]) for p in chosen]
            self.add(_cap(", ".join(words[:-1]) + " and " + words[-1]) + "!", "stuffed", None, None, "stuffing")
        for i in range(n // 3):
            a, b = self.rng.sample(PRINCIPLES, 2)
            (ca, la), (cb, lb) = self.rng.choice(self.pitches[a]), self.rng.choice(self.pitches[b])
            self.add(f"{la} {lb}", "stuffed", None, ca or cb, "stuffing")

    def nothing_lines(self) -> None:
        for concern, line in _block(other.NOTHING):
            self.add(line, "nothing", None, concern, "plain")
        asks = (
            "I think you should {q}.",
            "Would you {q}?",
            "Please {q}.",
            "Can I talk you into it? {Q}.",
            "I'd love it if you'd {q}.",
            "How about you {q}?",
            "{Q}, go on.",
            "I really want you to {q}.",
        )
        for q in self.requests:
            for ask in self.rng.sample(asks, 3):
                self.add(_fill(ask, q=q), "nothing", None, None, "goal")
            tc, tail = self.rng.choice(self.tails)
            self.add(_fill("{Q}, {t}.", q=q, t=tail), "nothing", None, tc, "concern")

    def negated_lines(self) -> None:
        for concern, line in _block(other.NEGATED):
            self.add(line, "nothing", None, concern, "negation")
        denials = _words(other.DENIALS)
        for p in PRINCIPLES:
            for concern, c in self.clauses[p]:
                self.add(_fill(self.rng.choice(denials), c=c), "nothing", None, concern, "negation")
                other_p = self.rng.choice([x for x in PRINCIPLES if x != p])
                oc, o = self.clause(other_p)
                denial = self.rng.choice(denials).rstrip(".").replace(", to be fair", "")
                self.add(_fill(denial, c=c) + f", but {o}.", "pitch", other_p, concern or oc, "negation")

    def hostile_lines(self) -> None:
        hostile = _words(other.HOSTILE)
        nouns, adjs = _words(other.INSULT_NOUNS), _words(other.INSULT_ADJECTIVES)
        refusals = _words(other.REFUSALS)
        for line in hostile:
            self.add(line, "hostile", None, None, "insult")
        frames = _words(other.HOSTILE_FRAMES)
        for i in range(len(nouns) * 6):
            frame = frames[i % len(frames)]
            slots = {
                "n": self.rng.choice(nouns),
                "a": self.rng.choice(adjs),
                "r": self.rng.choice(refusals),
                "q": self.rng.choice(self.requests),
            }
            line = _fill(frame, **slots)
            if i % 2:  # hostility beside principle words: still hostile
                _, c = self.clause(self.rng.choice(PRINCIPLES))
                line = self.rng.choice((f"{line[:-1]}, {c}.", f"{_cap(c)}, {line[0].lower()}{line[1:]}"))
            self.add(line, "hostile", None, None, "insult-unlisted")
        for i in range(len(hostile) * 2):
            line = hostile[i % len(hostile)]
            _, c = self.clause(self.rng.choice(PRINCIPLES))
            self.add(self.rng.choice((f"{_cap(c)}. {line}", f"{line} {_cap(c)}.")), "hostile", None, None, "contempt")
        for i in range(120):
            _, c = self.clause(PRINCIPLES[i % len(PRINCIPLES)])
            line = _fill(_SARCASM[i % len(_SARCASM)], c=c, q=self.rng.choice(self.requests))
            self.add(line, "hostile", None, None, "sarcasm")

    def tease_lines(self) -> None:
        for concern, line in _block(other.TEASE):
            self.add(line, "nothing", None, concern, "tease")
        for line in _words(other.TEASE_LIKING):
            self.add(line, "pitch", "liking", None, "tease")
        adjs = ("absolute", "total", "utter", "complete", "proper", "little")
        for noun in _words(other.PRAISE_NOUNS):
            q = self.rng.choice(self.requests)
            self.add(f"You {self.rng.choice(adjs)} {noun}, will you {q}?", "pitch", "liking", None, "tease")
            self.add(f"Only a real {noun} would help like you do.", "pitch", "liking", None, "tease")

    def salad_lines(self, n: int) -> None:
        syllables = ("bl", "fr", "gl", "zin", "pl", "sn", "qu", "dr", "vor", "sk", "m", "t", "fl", "gr", "y")
        vowels = ("a", "e", "i", "o", "u", "oo", "ee")
        made_up = [  # pseudo-words no list holds, so no single one is learned as "nonsense"
            "".join(self.rng.choice(syllables) + self.rng.choice(vowels) for _ in range(self.rng.randint(1, 2)))
            + self.rng.choice(("b", "p", "nk", "rf", "le", "zz", ""))
            for _ in range(300)
        ]
        gibberish = _words(other.GIBBERISH) + made_up
        everyday = "purple sofa tomorrow quickly elephant under seven window jam later spoon happily".split()
        for i in range(n):
            p = PRINCIPLES[i % len(PRINCIPLES)]
            concern, c = self.clause(p)
            words = c.split()
            if i % 3 == 0:  # the clause's words shuffled
                self.rng.shuffle(words)
                mixed = words
            elif i % 3 == 1:  # cue words in gibberish
                mixed = self.rng.sample(gibberish, 3) + self.rng.sample(words, min(2, len(words)))
                self.rng.shuffle(mixed)
            else:  # everyday words in no order, sometimes with a cue word
                mixed = self.rng.sample(everyday, 4) + ([self.rng.choice(words)] if i % 2 else [])
                self.rng.shuffle(mixed)
            self.add(_cap(" ".join(mixed)) + ".", "nothing", None, None, "nonsense")

    def more_lines(self) -> None:
        """The second round (:mod:`~benchmarks.persuasion.reader_v3_atoms_more`): pitches in new wordings, alone,
        after a prefix and around a request; new hostile lines alone and beside principle clauses; new hostile
        frames filled with insults, clauses, requests and threats; hard negatives; stuffing and ``nothing``."""
        for p in PRINCIPLES:
            for concern, line in _block(more.PITCHES_MORE[p]):
                self.add(line, "pitch", p, concern, "more")
                prefix = self.rng.choice(_PREFIXES[2:])
                self.add(prefix + line[0].lower() + line[1:], "pitch", p, concern, "more")
                q = self.rng.choice(self.requests)
                framed = self.rng.choice((f"{_cap(q)}? {line}", f"{line} {_cap(q)}!", f"{line} So {q}?"))
                self.add(framed, "pitch", p, concern, "more; indirect")
        for p in PRINCIPLES:
            for concern, line in _block(more.PITCHES_INDIRECT[p]):
                self.add(line, "pitch", p, concern, "more; indirect")
                tc, tail = self.rng.choice(self.tails)
                self.add(f"{line[:-1]}, {tail}.", "pitch", p, concern or tc, "more; concern")
        pool = [
            (p, c, t) for p in PRINCIPLES for c, t in _block(more.PITCHES_MORE[p]) + _block(more.PITCHES_INDIRECT[p])
        ]
        for i in range(240):  # two or three whole pitches of different principles in one line
            (pa, ca, a), (pb, cb, b) = self.rng.sample(pool, 2)
            if pa == pb:
                continue
            line = self.rng.choice(
                (f"{a} {b}", f"{a[:-1]}, and {b[0].lower()}{b[1:]}", f"{a} Plus, {b[0].lower()}{b[1:]}")
            )
            if i % 3 == 0:
                pc, cc, c = self.rng.choice([x for x in pool if x[0] not in (pa, pb)])
                line = f"{line} {c}"
            self.add(line, "stuffed", None, ca or cb, "stuffing")
        for line in _words(more.NOT_HOSTILE_SELF):
            self.add(line, "nothing", None, None, "tease")
        for line in _words(more.NOT_HOSTILE_YOU):
            self.add(line, "nothing", None, None, "plain")
            self.add(self.rng.choice(_PREFIXES[2:]) + line[0].lower() + line[1:], "nothing", None, None, "plain")
        for line in _words(more.NONSENSE_MORE):
            self.add(line, "nothing", None, None, "nonsense")
        for concern, line in _block(more.NOTHING_MORE):
            self.add(line, "nothing", None, concern, "more")
            self.add(self.rng.choice(_PREFIXES[2:]) + line[0].lower() + line[1:], "nothing", None, concern, "more")
        for concern, line in _block(more.STUFFED_MORE):
            self.add(line, "stuffed", None, concern, "stuffing")
        hostile = _words(more.HOSTILE_MORE)
        for line in hostile:
            self.add(line, "hostile", None, None, "insult-unlisted")
            _, c = self.clause(self.rng.choice(PRINCIPLES))
            self.add(self.rng.choice((f"{_cap(c)}. {line}", f"{line} {_cap(c)}.")), "hostile", None, None, "contempt")
            self.add(self.rng.choice(_PREFIXES[2:]) + line[0].lower() + line[1:], "hostile", None, None, "contempt")
        nouns = _words(other.INSULT_NOUNS) + _words(more.INSULT_NOUNS_MORE)
        adjs = _words(other.INSULT_ADJECTIVES) + _words(more.INSULT_ADJECTIVES_MORE)
        threats = _words(more.THREAT_TAILS)
        frames = _words(more.HOSTILE_FRAMES_MORE)
        for i in range(len(frames) * 16):
            slots = {
                "n": self.rng.choice(nouns),
                "a": self.rng.choice(adjs),
                "c": self.clause(self.rng.choice(PRINCIPLES))[1],
                "q": self.rng.choice(self.requests),
                "t": self.rng.choice(threats),
            }
            self.add(_fill(frames[i % len(frames)], **slots), "hostile", None, None, "insult-unlisted")
        for raw in _words(more.NOT_HOSTILE_MORE):
            label, concern, line = (part.strip() for part in raw.split("|", 2))
            concern = None if concern == "-" else concern
            kind, principle = ("nothing", None) if label == "nothing" else (label, concern)
            if label == "pitch":
                kind, principle, concern = "pitch", concern, None
            self.add(line, kind, principle, concern, "tease")
            q = self.rng.choice(self.requests)
            self.add(f"{line} Anyway, {q}?", kind, principle, concern, "tease")


def build_corpus(seed: int = SEED) -> list[dict]:
    """The training rows (the spec's JSON Lines objects), the same for the same seed.

    A text composed twice keeps its first labelling only when both agree; a text with two different labellings is
    dropped (both can't be right).
    """
    comp = _Composer(seed)
    comp.pitch_lines()
    comp.clause_lines()
    comp.stuffed_lines(240)
    comp.nothing_lines()
    comp.negated_lines()
    comp.hostile_lines()
    comp.tease_lines()
    comp.salad_lines(240)
    comp.more_lines()
    labels: dict[str, tuple] = {}
    for row in comp.rows:
        key = (row["kind"], row["principle"], row["concern"])
        labels[row["text"]] = key if labels.get(row["text"], key) == key else ("conflict",)
    out, seen = [], set()
    for row in comp.rows:
        if labels[row["text"]] != ("conflict",) and row["text"] not in seen:
            seen.add(row["text"])
            out.append(row)
    return out


def write_corpus(path: str | Path = TRAIN_PATH, seed: int = SEED) -> int:
    """Write :func:`build_corpus` as JSON Lines to ``path``; returns the number of lines."""
    rows = build_corpus(seed)
    Path(path).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return len(rows)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(TRAIN_PATH), help="where to write the JSON Lines training set")
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args(argv)
    print(f"{write_corpus(args.out, args.seed)} lines -> {args.out}")


if __name__ == "__main__":
    main()
