"""What the learned v3 reader sees of a line: hashed word and character n-grams plus the scripted reader's
evidence (stacking), as one sparse vector (docs/reader_v3.md).

Three blocks, each scaled on its own:

* word n-grams (1 to ``word_n`` words, lower case, ``?`` and ``!`` kept as words), hashed by CRC-32 into
  ``buckets`` slots, binary, scaled to unit length;
* character n-grams (``char_min`` to ``char_max`` characters of each word padded by spaces, so suffixes and
  prefixes of words no list holds still count), hashed into the same slots, binary, unit length;
* the scripted :class:`~tom_envs.persuasion.reader_v3.ReaderV3`'s evidence, one named slot each after the
  hashed ones (:data:`SCRIPTED`): its hostility frame's kind, the principles whose frames counted, those dropped
  as negated or as word salad, its concern and its kind, each ``scripted_scale`` when present; and how many words
  of each family of :mod:`~tom_envs.persuasion.reader_v3_lexicon` the line holds (``lex:<family>``, scaled by
  ``lexicon_scale``), so a line in unseen words still shares evidence with the lines the weights learned from.

The same text and settings always give the same vector (CRC-32 is fixed, nothing is salted), so the weights
trained on it (:mod:`benchmarks.persuasion.reader_v3_train`) read the same at run time.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import asdict, dataclass
from typing import Any

from tom_envs.persuasion.principles import PRINCIPLES
from tom_envs.persuasion.reader_v3_cues import CONCERN_CUES
from tom_envs.persuasion.reader_v3_lexicon import LEXICON_NAMES, lexicon_counts

_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)*|[?!]")
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u2014": " - ", "\u2013": " - "})
_HOSTILE_KINDS = ("insult", "contempt", "sarcasm", "threat", "coercion", "other")

#: the named slots of the scripted reader's evidence, in order after the hashed slots
SCRIPTED: tuple[str, ...] = (
    *(f"hostile:{k}" for k in _HOSTILE_KINDS),
    *(f"counted:{p}" for p in PRINCIPLES),
    *(f"negated:{p}" for p in PRINCIPLES),
    "salad",
    *(f"concern:{c}" for c in CONCERN_CUES),
    "kind:nothing",
    "kind:pitch",
    "kind:stuffed",
    *LEXICON_NAMES,
)


@dataclass(frozen=True)
class FeatureSettings:
    """How a line becomes a vector; stored beside the weights so training and reading agree."""

    buckets: int = 1 << 16
    word_n: int = 2
    char_min: int = 2
    char_max: int = 5
    scripted_scale: float = 1.0
    #: the weight of the word-list counts (:mod:`~tom_envs.persuasion.reader_v3_lexicon`): ``lexicon_scale *
    #: min(count, 3) / 3`` per family; 0 leaves them out
    lexicon_scale: float = 0.0

    @property
    def size(self) -> int:
        """The vector's length: the hashed slots, then the scripted ones."""
        return self.buckets + len(SCRIPTED)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def tokens(text: str) -> list[str]:
    """The words of a line, lower case (curly quotes and dashes made plain)."""
    return _TOKEN.findall(text.translate(_QUOTES).lower())


def _hashed(grams: set[str], prefix: str, buckets: int) -> dict[int, float]:
    """Binary hashed features of a block, scaled to unit length (colliding grams add up first)."""
    out: dict[int, float] = {}
    for gram in sorted(grams):
        slot = zlib.crc32(f"{prefix}{gram}".encode()) % buckets
        out[slot] = out.get(slot, 0.0) + 1.0
    norm = sum(v * v for v in out.values()) ** 0.5
    return {k: v / norm for k, v in out.items()} if norm else {}


def _scripted_names(evidence: dict[str, Any]) -> set[str]:
    names = set()
    if evidence["hostile"]:
        kind = evidence["hostile"].split(":", 1)[0].strip()
        names.add(f"hostile:{kind if kind in _HOSTILE_KINDS else 'other'}")
    counted = {p for p, _ in evidence["counted"]}
    names |= {f"counted:{p}" for p in counted}
    for p, _, why in evidence["dropped"]:
        names.add("salad" if why.startswith("word salad") else f"negated:{p}")
    if evidence["concern"]:
        names.add(f"concern:{evidence['concern']}")
    names.add("kind:" + ("nothing" if not counted else "pitch" if len(counted) == 1 else "stuffed"))
    return names


def featurise(text: str, evidence: dict[str, Any], settings: FeatureSettings) -> dict[int, float]:
    """The sparse vector ``{slot: value}`` of ``text``, given the scripted reader's ``explain`` of it."""
    words = tokens(text)
    word_grams = {" ".join(words[i : i + n]) for n in range(1, settings.word_n + 1) for i in range(len(words) - n + 1)}
    char_grams = set()
    for w in words:
        padded = f" {w} "
        for n in range(settings.char_min, settings.char_max + 1):
            char_grams |= {padded[i : i + n] for i in range(len(padded) - n + 1)}
    vector = _hashed(word_grams, "w:", settings.buckets)
    for slot, value in _hashed(char_grams, "c:", settings.buckets).items():
        vector[slot] = vector.get(slot, 0.0) + value
    for name in _scripted_names(evidence):
        vector[settings.buckets + SCRIPTED.index(name)] = settings.scripted_scale
    if settings.lexicon_scale:
        for name, count in lexicon_counts(text).items():
            vector[settings.buckets + SCRIPTED.index(name)] = settings.lexicon_scale * min(count, 3) / 3
    return vector


__all__ = ["FeatureSettings", "SCRIPTED", "featurise", "tokens"]
