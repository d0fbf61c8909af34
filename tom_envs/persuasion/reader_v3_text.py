"""The text layer of :mod:`~tom_envs.persuasion.reader_v3`: normalising a line, splitting it into
sentences and clauses, the scope of a negation, and whether a clause is well formed at all.

Everything here works on the *normalised* text (:func:`normalise`): lower case, straight quotes,
contractions spelled out ("you'd" -> "you would", "don't" -> "do not", "everyone's" -> "everyone is"),
so that the frames of :mod:`~tom_envs.persuasion.reader_v3_frames` and
:mod:`~tom_envs.persuasion.reader_v3_hostile` need one spelling of each construction.
"""

from __future__ import annotations

import re

_QUOTES = str.maketrans(
    {"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u2014": ", ", "\u2013": ", ", "\u2026": "..."}
)
#: "'s" read as "is" after these words (elsewhere it is a possessive)
_IS_AFTER = (
    "it",
    "that",
    "there",
    "here",
    "he",
    "she",
    "what",
    "who",
    "everyone",
    "everybody",
    "nobody",
    "someone",
    "somebody",
    "no one",
    "everything",
    "where",
    "how",
    "this",
    "one",
    "today",
    "tomorrow",
    "tonight",
)
_CONTRACTIONS = (
    (r"\bcan't\b", "can not"),
    (r"\bcannot\b", "can not"),
    (r"\bwon't\b", "will not"),
    (r"\bshan't\b", "shall not"),
    (r"\bain't\b", "is not"),
    (r"\blet's\b", "let us"),
    (r"\bi'm\b", "i am"),
    (r"n't\b", " not"),
    (r"'re\b", " are"),
    (r"'ve\b", " have"),
    (r"'ll\b", " will"),
    (r"'d\b", " would"),
    (r"\b(" + "|".join(_IS_AFTER) + r")'s\b", r"\1 is"),
)
_CONTRACTION_RES = tuple((re.compile(p), r) for p, r in _CONTRACTIONS)
_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+|\n+")
#: clause boundaries inside a sentence: punctuation and the coordinating conjunctions
_CLAUSE_SPLIT = re.compile(r"\s*[,;:!?()]\s*|\s*\.\s+|\s+(?:but|and|so|yet|though|although|because|or)\s+")
WORD = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")

FUNCTION_WORDS = frozenset(
    """
i you we they he she it me us them my your our their his her its the a an this that these those some any every
each all no to of and or but so if is are was were be been being am will would can could should shall may might must
do does did have has had for with in on at by from as than then there here what how why who which when where just
not about up out into over after before very really only also too more most much many few one two three four five
six seven eight nine ten per each twenty thirty forty fifty hundred thousand million always never already ever still now
first last next ago like than because please yes everyone everybody someone something everything anyone
""".split()
)
DETERMINERS = frozenset({"the", "a", "an", "my", "your", "our", "their", "every"})
PREPOSITIONS = frozenset({"of", "to", "in", "on", "at", "by", "from", "with", "for", "into", "over", "about"})
AUXILIARIES = frozenset(
    {
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "am",
        "will",
        "would",
        "can",
        "could",
        "should",
        "shall",
        "may",
        "might",
        "must",
        "do",
        "does",
        "did",
        "have",
        "has",
        "had",
    }
)
PRONOUNS = frozenset({"i", "you", "we", "they", "he", "she", "it", "me", "us", "them"})
#: words that are only verbs: one after a determiner is a sentence gone wrong ("the recommend")
VERB_ONLY = frozenset(
    {
        "recommend",
        "recommends",
        "agree",
        "agrees",
        "advise",
        "advises",
        "prescribe",
        "suggest",
        "suggests",
        "endorse",
        "approve",
        "join",
        "joined",
        "say",
        "says",
        "said",
        "think",
        "thinks",
        "go",
        "goes",
        "went",
        "come",
        "came",
        "take",
        "took",
        "give",
        "gave",
        "get",
        "got",
        "swear",
    }
)
#: repetition that is English ("really really", "very very")
_REPEATABLE = frozenset({"really", "very", "so", "much", "far", "ha", "no", "yes", "please", "go", "more", "now"})
KEYBOARD_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
#: interjections that are words though they have no vowel
_NO_VOWEL_WORDS = frozenset(
    {
        "hmm",
        "mm",
        "shh",
        "psst",
        "tv",
        "gp",
        "gps",
        "nhs",
        "bbc",
        "cv",
        "dr",
        "st",
        "mr",
        "mrs",
        "ms",
        "pr",
        "hr",
        "fyi",
    }
)
#: a run this long of content words with no function word between them is no clause ("favour spots left expert")
MAX_CONTENT_RUN = 5
#: a clause this long with no function word and no verb is no clause ("blix fromp deadline zug")
MIN_SALAD_WORDS = 4


_ABBREVIATIONS = re.compile(r"\b(dr|mr|mrs|ms|prof|st|vs|etc|approx|no)\.(?=\s)")


def normalise(text: str) -> str:
    """Lower case, straight quotes, dashes as commas, contractions spelled out, abbreviations without their
    full stop ("dr. patel" -> "dr patel", so that it does not end a sentence), spaces collapsed."""
    out = _ABBREVIATIONS.sub(r"\1", text.translate(_QUOTES).lower())
    for pattern, repl in _CONTRACTION_RES:
        out = pattern.sub(repl, out)
    return re.sub(r"[ \t]+", " ", out).strip()


def sentences(text: str) -> list[str]:
    """The sentences of a normalised line (split after ``. ! ? ; :``), empty ones dropped."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def clauses(sentence: str) -> list[str]:
    """The clauses of one sentence: split at punctuation and at coordinating conjunctions."""
    return [c.strip(" .\"'") for c in _CLAUSE_SPLIT.split(sentence) if c and c.strip(" .\"'")]


def words(text: str) -> list[str]:
    """The words of a normalised text (hyphenated and apostrophe words kept whole)."""
    return WORD.findall(text)


def gibberish(word: str) -> bool:
    """A token no English speaker would write: no vowel, five consonants in a row, a letter three times
    in a row, or four or more letters straight off one keyboard row ("asdf")."""
    if len(word) <= 2 or word in _NO_VOWEL_WORDS or not word.isalpha():
        return False
    if not re.search(r"[aeiouy]", word) or re.search(r"[^aeiouy]{5}", word) or re.search(r"(.)\1\1", word):
        return True
    return len(word) >= 4 and any(word in row for row in KEYBOARD_ROWS)


def _verbish(word: str) -> bool:
    return word in VERB_ONLY or word.endswith(("ed", "ing")) or (len(word) > 3 and word.endswith("s"))


def ill_formed(clause: str, acronyms: frozenset[str] = frozenset()) -> str | None:
    """Why a clause is word salad, or ``None`` when it reads as a clause.

    Salad: :data:`MIN_SALAD_WORDS` words with no function word and no verb, a gibberish token, a content word said twice in a row, a determiner followed by what cannot
    follow one (another determiner, a preposition, an auxiliary, a pronoun, a verb-only word), or a run
    of :data:`MAX_CONTENT_RUN` content words with no function word between them. ``acronyms`` (lower
    case; written in capitals in the line: "CPR", "NHS") are words, not gibberish.
    """
    ws = words(clause)
    if len(ws) >= MIN_SALAD_WORDS and not any(w in FUNCTION_WORDS or _verbish(w) for w in ws):
        return f"{len(ws)} words and neither a function word nor a verb"
    if len(ws) >= 2 and ws[-1] in DETERMINERS:
        return f"ends on {ws[-1]!r}"
    run = 0
    for i, w in enumerate(ws):
        if gibberish(w) and w not in acronyms:
            return f"gibberish token {w!r}"
        nxt = ws[i + 1] if i + 1 < len(ws) else None
        if nxt == w and w not in _REPEATABLE:
            return f"{w!r} twice in a row"
        if (
            w in DETERMINERS
            and nxt is not None
            and (nxt in DETERMINERS or nxt in PREPOSITIONS or nxt in AUXILIARIES or nxt in PRONOUNS or nxt in VERB_ONLY)
        ):
            return f"{w!r} before {nxt!r}"
        run = 0 if w in FUNCTION_WORDS or w in VERB_ONLY or w.endswith("ed") else run + 1
        if run >= MAX_CONTENT_RUN:
            return f"{MAX_CONTENT_RUN} content words with no function word"
    return None


#: a statement *about* a claim that withdraws it: "I'm not saying ...", "it's not like ...", "forget ..."
META_DENIAL = re.compile(
    r"\b(?:(?:not|never|nobody is|no one is|nobody|no one)\s+(?:\w+\s+)?"
    r"(?:saying|claiming|suggesting|pretending|pretend|say|claim|suggest|going to (?:say|tell|claim|pretend|"
    r"argue|suggest)|trying to|telling you|arguing|here to)"
    r"|will not (?:say|pretend|claim|tell|argue|suggest)|(?:do not|never) \w+ (?:\w+ )?(?:just |only )?because|not like|not that|not because|not about|not as if|not as though|"
    r"forget (?:about )?(?:what|that|the)|never mind|ignore (?:what|the)|who cares (?:what|about|if)|"
    r"does not matter (?:what|that|if)|doesn't matter|regardless of (?:what|whether)|no matter (?:what|how many)|"
    r"leave aside|set aside|do not listen to|do not worry about what)\b"
)
#: a negator whose scope reaches a cue right after it ("no study", "not many people", "doctors do not")
NEGATORS = frozenset(
    {"not", "no", "never", "nobody", "none", "nothing", "neither", "nor", "without", "hardly", "barely", "scarcely"}
)
#: verbs that flip a negation back ("do not miss the last chance" still appeals to it)
_DOUBLE_NEGATIVE = frozenset(
    {"miss", "lose", "waste", "forget", "ignore", "overlook", "let", "pass", "skip", "wait", "delay", "regret"}
)
NEGATION_WINDOW = 3


def negated(clause: str, start: int, end: int, inside: bool = True) -> bool:
    """Whether the cue at ``clause[start:end]`` is negated or denied in its clause.

    Denied: a meta-denial (:data:`META_DENIAL`) anywhere before it in the clause. Negated: a negator
    among the :data:`NEGATION_WINDOW` words before the cue or inside it, unless the word right after the
    negator flips it back ("do not miss out on the last chance"). ``inside=False`` for cues whose own
    words negate ("not offered again", "now or never"): only the words before them count.
    """
    before = clause[:start]
    if META_DENIAL.search(clause[:end] if inside else before):
        return True
    all_before = words(before)
    ws = all_before + (words(clause[start:end]) if inside else [])
    for i in range(max(0, len(all_before) - NEGATION_WINDOW), len(ws)):
        w = ws[i]
        if w == "without" and i > 0 and ws[i - 1] in ("lost", "nothing", "nowhere"):  # "lost without a friend"
            continue
        if w in NEGATORS and not (i + 1 < len(ws) and ws[i + 1] in _DOUBLE_NEGATIVE):
            return True
    return False


__all__ = ["META_DENIAL", "clauses", "gibberish", "ill_formed", "negated", "normalise", "sentences", "words"]
