"""How the persuadee of live persuasion v2 reads a line: as a person would, not as a bag of keywords.

v1's :class:`~tom_envs.persuasion.reader.ScriptedReader` counts cue phrases, so ``"asdf qwerty
everyone zzz"`` read as consensus, ``"I hate you; experts are liars."`` as authority and a line naming
all six principles as one of them. :class:`ReaderV2` reads in this order (the first that applies):

1. **hostile** (:data:`~tom_envs.persuasion.mind_v2.HOSTILE`): an insult or contempt for the
   persuadee ("idiot", "I hate you", "shut up", "liars", ...), whatever else the line says;
2. **nothing** (``NOTHING``): empty, or *nonsense*: fewer than :data:`MIN_WORDS` words, no function
   word (bare keywords are not a sentence), or at least :data:`GIBBERISH_SHARE` of the words not
   pronounceable (no vowel, a run of five consonants, a letter three times in a row, a keyboard row);
3. cue phrases (v1's :data:`~tom_envs.persuasion.reader.CUES`, the goal's words removed first) that
   are **not negated** (a "not", "no", "never", "n't", "nobody", "without", ... among the three words
   before the cue in the same clause: "I'm not an expert" is no appeal to authority);
4. **stuffed** (:data:`~tom_envs.persuasion.mind_v2.STUFFED`): cues of three or more principles, or one
   cue phrase three or more times (a pitch, not an argument);
5. the principle with the most cues (ties: the one the line leads with); none: ``NOTHING``.

The persuadee reacts to hostile and stuffed lines with reactance and lost trust
(:mod:`tom_envs.persuasion.mind_v2`). The LLM reader (``policies.persuasion.llm.LLMReader``) stays
available for v2 (it returns a principle or nothing).
"""

from __future__ import annotations

import re

from tom_envs.persuasion.mind import NOTHING
from tom_envs.persuasion.mind_v2 import HOSTILE, STUFFED
from tom_envs.persuasion.principles import PRINCIPLES
from tom_envs.persuasion.reader import CUE_PATTERNS

INSULTS: tuple[str, ...] = (
    r"idiots?", r"stupid", r"dumb", r"morons?", r"fools?", r"foolish", r"pathetic", r"losers?", r"liars?", r"lying",
    r"hate (?:you|people like you)", r"shut up", r"screw you", r"get lost", r"useless", r"worthless", r"clueless",
    r"what'?s wrong with you", r"are you (?:deaf|blind|thick)", r"brainless", r"cowards?", r"lazy", r"selfish",
    r"ignorant", r"grow up", r"nobody cares", r"you people", r"shame on you", r"disgrace(?:ful)?", r"jerks?")
_INSULT = re.compile(r"\b(?:" + "|".join(f"(?:{c})" for c in INSULTS) + r")\b", re.IGNORECASE)
NEGATORS = frozenset({"not", "no", "never", "nobody", "none", "nothing", "neither", "nor", "without", "hardly",
                      "cannot"})
FUNCTION_WORDS = frozenset({
    "i", "you", "we", "they", "he", "she", "it", "me", "us", "them", "my", "your", "our", "their", "the", "a", "an",
    "to", "of", "and", "or", "but", "so", "if", "is", "are", "was", "be", "will", "would", "can", "could", "should",
    "do", "does", "did", "have", "has", "this", "that", "these", "for", "with", "in", "on", "at", "it's", "you'll",
    "you're", "i'll", "i'm", "we're", "let's", "just", "what", "how", "why", "who", "there", "here", "all", "one"})
KEYBOARD_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
MIN_WORDS = 3
GIBBERISH_SHARE = 0.25
STUFFED_PRINCIPLES = 3
STUFFED_REPEATS = 3
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")
_CLAUSE_END = re.compile(r"[.;:!?,\n]")


def _gibberish(word: str) -> bool:
    if len(word) <= 2:
        return False
    if not re.search(r"[aeiouy]", word) or re.search(r"[^aeiouy']{5}", word) or re.search(r"(.)\1\1", word):
        return True
    return len(word) >= 4 and any(word in row for row in KEYBOARD_ROWS)


def is_nonsense(utterance: str) -> bool:
    """Too short, no function word, or too many unpronounceable words (see the module docstring)."""
    words = _WORD.findall(utterance.lower())
    if len(words) < MIN_WORDS or not any(w in FUNCTION_WORDS for w in words):
        return True
    return sum(_gibberish(w) for w in words) >= GIBBERISH_SHARE * len(words)


def _negated(text: str, start: int) -> bool:
    clause = _CLAUSE_END.split(text[:start])[-1]
    before = _WORD.findall(clause.lower())[-3:]
    return any(w in NEGATORS or w.endswith("n't") for w in before)


class ReaderV2:
    """The v2 scripted reader (see the module docstring): ``read(utterance, goal) -> int`` in 0..8."""

    name = "scripted-v2"

    def read(self, utterance: str, goal: str = "") -> int:
        if not isinstance(utterance, str) or not utterance.strip():
            return NOTHING
        if _INSULT.search(utterance):
            return HOSTILE
        if is_nonsense(utterance):
            return NOTHING
        if goal:  # the request itself is no strategy
            utterance = re.sub(re.escape(goal), " ", utterance, flags=re.IGNORECASE)
        matches = [[m for m in CUE_PATTERNS[p].finditer(utterance) if not _negated(utterance, m.start())]
                   for p in PRINCIPLES]
        counts = [len(m) for m in matches]
        said = [m.group(0).lower() for ms in matches for m in ms]
        if sum(c > 0 for c in counts) >= STUFFED_PRINCIPLES or any(said.count(w) >= STUFFED_REPEATS for w in said):
            return STUFFED
        best = max(counts)
        if best == 0:
            return NOTHING
        tied = [i for i, m in enumerate(matches) if len(m) == best]
        return min(tied, key=lambda i: matches[i][0].start())


__all__ = ["INSULTS", "ReaderV2", "is_nonsense"]
