"""Word lists the learned v3 reader sees as features (issue 39, docs/reader_v3.md): broad families of words that
carry a principle or hostility, so that a line in words its training set lacks still shares a feature with the
lines it learned from ("an actual archaeologist", "the orthodontist reckons" share ``lex:authority`` with "experts
recommend"). A word list gives evidence, not a reading: the reading head weighs it beside the n-grams, so "the
doctor's waiting room is cold" is not authority for holding "doctor".

:func:`lexicon_counts` counts the words of each family (``lex:<family>``) a line holds; a family's word matches a whole
word or, for the stems in :data:`STEMS`, a word's start.
"""

from __future__ import annotations

import re

LEXICON: dict[str, frozenset[str]] = {
    name: frozenset(words.split())
    for name, words in {
        "authority": """
doctor doctors dr gp gps nurse nurses surgeon surgeons consultant consultants physio physios physiotherapist
dentist dentists orthodontist hygienist pharmacist vet vets expert experts specialist specialists scientist scientists
researcher researchers professor professors study studies research evidence proven clinically guidance guidelines
official officially nhs who cdc accredited certified approved endorsed endorses endorse recommend recommends
recommended recommendation advice advises advised prescribed qualified trained chartered registered licensed
engineer engineers architect accountant accountants lawyer solicitor judge inspector inspectors authority
authorities institute association society college council ministry department lead head director chief chef chefs
coach coaches trainer trainers instructor instructors guidebook archaeologist historian economist nutritionist
dietitian psychologist therapist paramedic pilot captain officer officers panel jury award award-winning
seal audited auditors regulator regulators standards insists reckons rated olympians olympic phd degree
""",
        "consensus": """
everyone everybody everyone's everybody's all most majority thousands millions hundreds loads lots plenty
popular popularity bestseller bestselling best-selling favourite favorite trend trending rage crowd crowds queue
queues packed busy reviews review rated stars five-star others other neighbours neighbors colleagues friends
mates classmates folks people residents regulars members households families users buyers customers parents
fans signed joined joining switched already whole practically nearly almost half percent per cent
""",
        "scarcity": """
only last final few handful limited limit scarce scarcity rare rarely rarity once left remaining remain gone
going fast running out sold sell selling stock deadline closes close closing ends ending expires expiry
until till before tonight midnight tomorrow today hurry quick quickly soon now never again one-off exclusive
capped cap spots spot places place seats seat slots slot tickets ticket waiting ballot intake edition
discontinued vanishing disappearing dust hen's teeth full fills filling
""",
        "reciprocity": """
favour favor favours favors owe owes owed return returned returning back repay repaid payback even exchange
swap trade treat shout gift gifts free freebie thank thanks thank-you helped help helping lent lend borrowed
covered cover drove drive babysat babysit sat fixed fix cooked cook gave give given did done sorted mine
deal quid pro quo fair's fair's chipped kindness sponsored sponsor paid pay split
""",
        "commitment": """
promised promise promises pledged pledge pledges said told agreed agree committed commitment word
yourself yours your resolution goal goals plan plans started start halfway already booked signed
registered deposit streak habit always believed believe believe values value consistent keep kept
remember remind reminded rsvp'd rsvped wrote idea own earlier before last
""",
        "liking": """
love loved lovely adore adored like liked friend friends friendship mate mates pal buddy bestie together
both fellow same us we kind kindest warm warmest sweet sweetest generous brilliant wonderful amazing
great best fantastic talented gifted natural star gem legend angel hero favourite funny funniest clever
smart sharp savvy thoughtful caring patient patience saint admire admired miss missed company fun
laugh smile cheer heart proud trust value beautiful gorgeous
""",
        "insult": """
idiot moron fool loser imbecile cretin dunce dolt clown buffoon oaf twit prat plonker pillock muppet numpty
wally berk git dork dweeb doofus dingbat dimwit halfwit nitwit nincompoop knucklehead blockhead bonehead
meathead airhead birdbrain simpleton ignoramus coward wimp crybaby jerk creep slob slug sloth leech parasite
freeloader sponger layabout slacker waste disgrace embarrassment joke failure pathetic pitiful useless
hopeless worthless clueless spineless gutless gormless brainless mindless witless feckless stupid dumb thick
dense dim lazy idiotic moronic dopey dozy sad weak dumbo numbskull fathead goon melt weapon drip goblin
fossil div dipstick dingus tosspot dunderhead muttonhead lardbucket chimp monkey donkey potato plank
turnip cabbage walnut lump twerp nutter dope dummy nobody bottle chickened chicken whining whinging
snivelling moaning excuse excuses brat toddler baby child goldfish
""",
        "threat": """
else sorry regret regrets warned warning threat consequences pay punish suffer ruin tell telling
report fired sacked sack kick expose lose losing shame pity happens careful luck hell consequences
""",
    }.items()
}
#: stems that match a word's start (so "reckoned", "recommending", "scientific", "insulting" still count)
STEMS: dict[str, tuple[str, ...]] = {
    "authority": ("recommend", "scien", "clinic", "medic", "doctor", "expert", "special", "profess", "research"),
    "consensus": ("everyone", "everybody", "popular", "million", "thousand"),
    "scarcity": ("limit", "scarc", "exclusiv", "disappear", "vanish"),
    "reciprocity": ("favo", "repa", "recipro"),
    "commitment": ("promis", "pledg", "commit", "resolut"),
    "liking": ("adore", "admir", "friend", "lovel"),
    "insult": ("stupid", "idiot", "pathet", "useless", "brain", "-brain", "-head", "-wit"),
    "threat": ("threat", "regret", "conseq"),
}
_WORD = re.compile(r"[a-z0-9]+(?:['-][a-z0-9]+)*")
#: the feature names, in order
LEXICON_NAMES: tuple[str, ...] = tuple(f"lex:{name}" for name in LEXICON)


def _matches(word: str, name: str) -> bool:
    stems = STEMS.get(name, ())
    return word in LEXICON[name] or word.startswith(stems) or any(s in word for s in stems if s.startswith("-"))


def lexicon_counts(text: str) -> dict[str, int]:
    """How many words of ``text`` (any case) each family holds, as ``{"lex:<family>": count}`` (families with none
    left out)."""
    words = _WORD.findall(text.lower().replace("\u2019", "'"))
    counts = {f"lex:{name}": sum(_matches(w, name) for w in words) for name in LEXICON}
    return {k: v for k, v in counts.items() if v}


__all__ = ["LEXICON", "LEXICON_NAMES", "STEMS", "lexicon_counts"]
