"""How the simulated persuadee of live persuasion v1 reads the persuader's words.

The persuadee reacts to the strategy it *hears*, not to a label the persuader attaches: an
utterance is mapped to one of 001's six principles (Table 3 / Appendix D) or to
:data:`~tom_envs.persuasion.mind.NOTHING` when it carries none (small talk, off-topic text,
an empty line). :class:`ScriptedReader` does this with cue phrases drawn from 001's definitions
of the principles (favours and gifts; rarity and deadlines; what others do; experts and
evidence; small first steps and consistency; praise and common ground). A reader is any object
with ``read(utterance: str, goal: str) -> int`` (a principle index or ``NOTHING``); an LLM
reader that asks a language model on any backend is ``policies.persuasion.llm.LLMReader``.
"""

from __future__ import annotations

import re
from typing import Protocol, runtime_checkable

import numpy as np

from tom_envs.errors import TomEnvsError
from tom_envs.persuasion.mind import NOTHING
from tom_envs.persuasion.principles import PRINCIPLES

#: Cue phrases per principle (regular expressions, matched case-insensitively on word boundaries).
CUES: dict[str, tuple[str, ...]] = {
    "reciprocity": (r"favou?r", r"in return", r"return the", r"i'?ll (?:pay|cover|buy|treat|give|help|drive|owe)",
                    r"on me", r"free", r"discount", r"gift", r"for you", r"i owe", r"pay for", r"i'?ll cover",
                    r"cost(?:s)? you nothing", r"refund", r"bonus", r"what'?s in it for you", r"you'?ll get",
                    r"benefit", r"save (?:you )?(?:money|time)", r"cheaper", r"worth your money"),
    "scarcity": (r"last (?:chance|few|spots?|places?)", r"only (?:a few|\w+ (?:spots?|places?|left|days?))",
                 r"running out", r"limited", r"rare", r"deadline", r"closes?", r"ends? (?:soon|on|this|next)",
                 r"before it'?s (?:gone|too late)", r"won'?t (?:last|come again|be (?:around|available))",
                 r"one-?(?:off|time)", r"now or never", r"while (?:it|they|you) (?:can|last)", r"hurry",
                 r"(?:this|next) week only", r"almost (?:gone|full|sold out)", r"sold out", r"unique", r"urgent",
                 r"right now"),
    "consensus": (r"everyone", r"everybody", r"most (?:people|of (?:us|our|them|the))", r"lots of (?:people|us)",
                  r"(?:other|many) people", r"others (?:are|have|do|did)", r"all (?:my|our|of)", r"friends (?:are|have|do)",
                  r"colleagues (?:are|have|do)", r"neighbou?rs (?:are|have|do)", r"popular", r"reviews?",
                  r"\d+ (?:people|of|members|families|customers)", r"you'?d be in good company", r"join(?:ed)? (?:by|them)",
                  r"the whole (?:team|office|street|group)", r"like you (?:have|did|are)"),
    "authority": (r"experts?", r"doctors?", r"research", r"stud(?:y|ies)", r"scientists?", r"professional",
                  r"evidence", r"proven", r"data shows?", r"statistics", r"recommend(?:s|ed)? by", r"certified",
                  r"according to", r"specialists?", r"official", r"guidelines?", r"qualified", r"trained",
                  r"years of experience", r"dentists?", r"pharmacists?", r"coach(?:es)?", r"institutes?"),
    "commitment": (r"(?:small|first|tiny|one) step", r"just (?:once|one|try|for)", r"try it once", r"no commitment",
                   r"you can (?:stop|quit|cancel|leave|decide)", r"you said", r"you told me", r"you always said",
                   r"you mentioned", r"consistent", r"keep your word", r"promised?", r"start small", r"only once",
                   r"one (?:session|shift|class|time|evening|month|week)", r"trial", r"give it a go",
                   r"you'?ve (?:already|always)", r"stick (?:to|with)", r"reversible"),
    "liking": (r"you'?re (?:great|wonderful|so|such|amazing|kind|brilliant|fun)", r"i (?:really )?(?:like|admire|enjoy)",
               r"we both", r"you and i", r"just like (?:me|us)", r"common", r"same (?:taste|things|interests)",
               r"friends? like you", r"great company", r"mean a lot to me", r"i appreciate", r"i value",
               r"thank you for", r"i trust you", r"no pressure", r"i understand", r"i hear you", r"fair enough",
               r"i respect", r"you deserve"),
}

CUE_PATTERNS: dict[str, re.Pattern[str]] = {
    name: re.compile(r"\b(?:" + "|".join(f"(?:{c})" for c in cues) + r")\b", re.IGNORECASE)
    for name, cues in CUES.items()}


class ReaderError(TomEnvsError, ValueError):
    """A reader returned something that is not a strategy index (0-5, or 6 for nothing)."""


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


def check_reading(value: object, reader: object = None) -> int:
    """A reader's output as an int in 0..6.

    Raises:
        ReaderError: anything else, naming the reader and what came back.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or not 0 <= value <= NOTHING:
        raise ReaderError(f"the reader {type(reader).__name__} returned {value!r}; a reader returns a principle index "
                          f"0..{NOTHING - 1} or NOTHING ({NOTHING})")
    return int(value)
