"""How the simulated persuadee of live persuasion reads the persuader's words (v1's reader and v2's).

The persuadee reacts to the strategy it *hears*, not to a label the persuader attaches: an
utterance is mapped to one of 001's six principles (Table 3 / Appendix D) or to
:data:`~tom_envs.persuasion.mind.NOTHING` when it carries none (small talk, off-topic text,
an empty line). A reader is any object with ``read(utterance: str, goal: str) -> int`` (a strategy
index of its version, :attr:`tom_envs.persuasion.versions.MindVersion.heard`); an LLM reader that asks
a language model on any backend is ``policies.persuasion.llm.LLMReader``.

**v1** (:class:`ScriptedReader`) counts cue phrases drawn from 001's definitions of the principles
(favours and gifts; rarity and deadlines; what others do; experts and evidence; small first steps and
consistency; praise and common ground).

**v2** (:class:`ReaderV2`) reads as a person would, not as a bag of keywords: v1's reader reads
``"asdf qwerty everyone zzz"`` as consensus, ``"I hate you; experts are liars."`` as authority and a line
naming all six principles as one of them. :class:`ReaderV2` reads in this order (the first that applies):

1. **hostile** (:data:`~tom_envs.persuasion.mind_v2.HOSTILE`): an insult or contempt for the
   persuadee ("idiot", "I hate you", "shut up", "liars", ...), whatever else the line says;
2. **nothing** (``NOTHING``): empty, or *nonsense*: fewer than :data:`MIN_WORDS` words, no function
   word (bare keywords are not a sentence), or at least :data:`GIBBERISH_SHARE` of the words not
   pronounceable (no vowel, a run of five consonants, a letter three times in a row, a keyboard row);
3. cue phrases (v1's :data:`CUES`, the goal's words removed first) that are **not negated** (a "not",
   "no", "never", "n't", "nobody", "without", ... among the three words before the cue in the same
   clause: "I'm not an expert" is no appeal to authority);
4. **stuffed** (:data:`~tom_envs.persuasion.mind_v2.STUFFED`): cues of three or more principles, or one
   cue phrase three or more times (a pitch, not an argument);
5. the principle with the most cues (ties: the one the line leads with); none: ``NOTHING``.

The persuadee reacts to hostile and stuffed lines with reactance and lost trust
(:mod:`tom_envs.persuasion.mind_v2`).
"""

from __future__ import annotations

import re
from typing import Protocol, runtime_checkable

from tom_envs.errors import TomEnvsError
from tom_envs.persuasion.mind import NOTHING
from tom_envs.persuasion.mind_v2 import HOSTILE, STUFFED
from tom_envs.persuasion.principles import PRINCIPLES

#: Cue phrases per principle (regular expressions, matched case-insensitively on word boundaries).
CUES: dict[str, tuple[str, ...]] = {
    "reciprocity": (
        r"favou?r",
        r"in return",
        r"return the",
        r"i'?ll (?:pay|cover|buy|treat|give|help|drive|owe)",
        r"on me",
        r"free",
        r"discount",
        r"gift",
        r"for you",
        r"i owe",
        r"pay for",
        r"i'?ll cover",
        r"cost(?:s)? you nothing",
        r"refund",
        r"bonus",
        r"what'?s in it for you",
        r"you'?ll get",
        r"benefit",
        r"save (?:you )?(?:money|time)",
        r"cheaper",
        r"worth your money",
    ),
    "scarcity": (
        r"last (?:chance|few|spots?|places?)",
        r"only (?:a few|\w+ (?:spots?|places?|left|days?))",
        r"running out",
        r"limited",
        r"rare",
        r"deadline",
        r"closes?",
        r"ends? (?:soon|on|this|next)",
        r"before it'?s (?:gone|too late)",
        r"won'?t (?:last|come again|be (?:around|available))",
        r"one-?(?:off|time)",
        r"now or never",
        r"while (?:it|they|you) (?:can|last)",
        r"hurry",
        r"(?:this|next) week only",
        r"almost (?:gone|full|sold out)",
        r"sold out",
        r"unique",
        r"urgent",
        r"right now",
    ),
    "consensus": (
        r"everyone",
        r"everybody",
        r"most (?:people|of (?:us|our|them|the))",
        r"lots of (?:people|us)",
        r"(?:other|many) people",
        r"others (?:are|have|do|did)",
        r"all (?:my|our|of)",
        r"friends (?:are|have|do)",
        r"colleagues (?:are|have|do)",
        r"neighbou?rs (?:are|have|do)",
        r"popular",
        r"reviews?",
        r"\d+ (?:people|of|members|families|customers)",
        r"you'?d be in good company",
        r"join(?:ed)? (?:by|them)",
        r"the whole (?:team|office|street|group)",
        r"like you (?:have|did|are)",
    ),
    "authority": (
        r"experts?",
        r"doctors?",
        r"research",
        r"stud(?:y|ies)",
        r"scientists?",
        r"professional",
        r"evidence",
        r"proven",
        r"data shows?",
        r"statistics",
        r"recommend(?:s|ed)? by",
        r"certified",
        r"according to",
        r"specialists?",
        r"official",
        r"guidelines?",
        r"qualified",
        r"trained",
        r"years of experience",
        r"dentists?",
        r"pharmacists?",
        r"coach(?:es)?",
        r"institutes?",
    ),
    "commitment": (
        r"(?:small|first|tiny|one) step",
        r"just (?:once|one|try|for)",
        r"try it once",
        r"no commitment",
        r"you can (?:stop|quit|cancel|leave|decide)",
        r"you said",
        r"you told me",
        r"you always said",
        r"you mentioned",
        r"consistent",
        r"keep your word",
        r"promised?",
        r"start small",
        r"only once",
        r"one (?:session|shift|class|time|evening|month|week)",
        r"trial",
        r"give it a go",
        r"you'?ve (?:already|always)",
        r"stick (?:to|with)",
        r"reversible",
    ),
    "liking": (
        r"you'?re (?:great|wonderful|so|such|amazing|kind|brilliant|fun)",
        r"i (?:really )?(?:like|admire|enjoy)",
        r"we both",
        r"you and i",
        r"just like (?:me|us)",
        r"common",
        r"same (?:taste|things|interests)",
        r"friends? like you",
        r"great company",
        r"mean a lot to me",
        r"i appreciate",
        r"i value",
        r"thank you for",
        r"i trust you",
        r"no pressure",
        r"i understand",
        r"i hear you",
        r"fair enough",
        r"i respect",
        r"you deserve",
    ),
}

CUE_PATTERNS: dict[str, re.Pattern[str]] = {
    name: re.compile(r"\b(?:" + "|".join(f"(?:{c})" for c in cues) + r")\b", re.IGNORECASE)
    for name, cues in CUES.items()
}


class ReaderError(TomEnvsError, ValueError):
    """A reader returned something that is not a strategy index of its version (v1: 0-6, v2: 0-8)."""


@runtime_checkable
class Reader(Protocol):
    """Maps an utterance to the strategy it carries (a principle index, or ``NOTHING``)."""

    def read(self, utterance: str, goal: str) -> int: ...


class ScriptedReader:
    """Cue-phrase reading: the principle with the most cue matches (on a tie, the one whose first cue
    comes first in the line); ``NOTHING`` when no cue matches.

    The goal's own words are removed first: mentioning the goal alone ("you should join the
    group") is a request without a strategy and reads as ``NOTHING``.
    """

    name = "scripted"

    def read(self, utterance: str, goal: str = "") -> int:
        if not isinstance(utterance, str) or not utterance.strip():
            return NOTHING
        if goal:  # the request itself is no strategy ("one shift", "the study group")
            utterance = re.sub(re.escape(goal), " ", utterance, flags=re.IGNORECASE)
        matches = [list(CUE_PATTERNS[p].finditer(utterance)) for p in PRINCIPLES]
        best = max(len(m) for m in matches)
        if best == 0:
            return NOTHING
        tied = [i for i, m in enumerate(matches) if len(m) == best]
        return min(tied, key=lambda i: matches[i][0].start())  # a tie: the principle the line leads with


INSULTS: tuple[str, ...] = (
    r"idiots?",
    r"stupid",
    r"dumb",
    r"morons?",
    r"fools?",
    r"foolish",
    r"pathetic",
    r"losers?",
    r"liars?",
    r"lying",
    r"hate (?:you|people like you)",
    r"shut up",
    r"screw you",
    r"get lost",
    r"useless",
    r"worthless",
    r"clueless",
    r"what'?s wrong with you",
    r"are you (?:deaf|blind|thick)",
    r"brainless",
    r"cowards?",
    r"lazy",
    r"selfish",
    r"ignorant",
    r"grow up",
    r"nobody cares",
    r"you people",
    r"shame on you",
    r"disgrace(?:ful)?",
    r"jerks?",
)
_INSULT = re.compile(r"\b(?:" + "|".join(f"(?:{c})" for c in INSULTS) + r")\b", re.IGNORECASE)
NEGATORS = frozenset(
    {"not", "no", "never", "nobody", "none", "nothing", "neither", "nor", "without", "hardly", "cannot"}
)
FUNCTION_WORDS = frozenset(
    {
        "i",
        "you",
        "we",
        "they",
        "he",
        "she",
        "it",
        "me",
        "us",
        "them",
        "my",
        "your",
        "our",
        "their",
        "the",
        "a",
        "an",
        "to",
        "of",
        "and",
        "or",
        "but",
        "so",
        "if",
        "is",
        "are",
        "was",
        "be",
        "will",
        "would",
        "can",
        "could",
        "should",
        "do",
        "does",
        "did",
        "have",
        "has",
        "this",
        "that",
        "these",
        "for",
        "with",
        "in",
        "on",
        "at",
        "it's",
        "you'll",
        "you're",
        "i'll",
        "i'm",
        "we're",
        "let's",
        "just",
        "what",
        "how",
        "why",
        "who",
        "there",
        "here",
        "all",
        "one",
    }
)
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
        matches = [
            [m for m in CUE_PATTERNS[p].finditer(utterance) if not _negated(utterance, m.start())] for p in PRINCIPLES
        ]
        counts = [len(m) for m in matches]
        said = [m.group(0).lower() for ms in matches for m in ms]
        if sum(c > 0 for c in counts) >= STUFFED_PRINCIPLES or any(said.count(w) >= STUFFED_REPEATS for w in said):
            return STUFFED
        best = max(counts)
        if best == 0:
            return NOTHING
        tied = [i for i, m in enumerate(matches) if len(m) == best]
        return min(tied, key=lambda i: matches[i][0].start())


__all__ = ["CUES", "CUE_PATTERNS", "INSULTS", "Reader", "ReaderError", "ReaderV2", "ScriptedReader", "is_nonsense"]
