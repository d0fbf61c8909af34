"""Hostility for :mod:`~tom_envs.persuasion.reader_v3`: insults, contempt, sarcasm and threats found
by the *frames* they use, so that an insult in a word no list contains is still read as one.

An insult is a slot in a derogating construction: "only a(n) X would <refuse>", "you'd have to be a
(proper) X to ...", "don't be such a X", "what kind of X <refuses>", "you absolute X", a clause that is
nothing but "you <adjectives> X". What fills the slot does not matter unless it is praise ("only a
true friend would ..."): "numpty", "walnut" and "spineless jellyfish" read alike. Beside the frames,
contempt ("even a child could ...", "use your brain"), sarcasm ("oh sure, because you know better
than ...", "..., genius") and threats or coercion ("or else", "you'll regret it", "I'm not asking") are
constructions too; a small lexicon of known insults and contemptuous adjectives completes them.

Affectionate teasing is not hostile: a *mild* word ("you goof", "you daft thing") said alone, or any
slot insult beside a teasing marker ("only kidding", "I adore you") when the line holds no threat,
no contempt and no strong insult.
"""

from __future__ import annotations

import re

from tom_envs.persuasion.reader_v3_lexicon import LEXICON
from tom_envs.persuasion.reader_v3_text import FUNCTION_WORDS, sentences, words

INSULT_NOUNS = frozenset(
    """
idiot idiots moron morons fool fools loser losers imbecile cretin dunce dolt clown clowns buffoon oaf twit prat
plonker pillock muppet numpty wally berk git dork dweeb doofus dingbat dimwit halfwit nitwit nincompoop knucklehead
blockhead bonehead meathead airhead birdbrain simpleton ignoramus philistine coward cowards wimp crybaby sheep
snowflake turnip donkey jerk creep slob lump slacker layabout freeloader sponger parasite leech dinosaur chicken
scaredy-cat killjoy spoilsport coward weakling baby liar liars hypocrite fraud joke disgrace failure nobody waste
""".split()
)
NEGATIVE_ADJECTIVES = frozenset(
    """
stupid dumb thick dense dim lazy pathetic hopeless useless worthless clueless spineless gutless gormless brainless
mindless witless feckless ignorant selfish stubborn pig-headed childish ridiculous absurd naive gullible miserable
cowardly weak boring dull sad pitiful petty lame idiotic moronic dopey dozy clumsy slow backward simple-minded
small-minded narrow-minded ungrateful spoilt spoiled pompous arrogant smug deluded delusional incompetent
embarrassing shameful stingy tight mean greedy dishonest pitiable hapless brain-dead annoying irritating
infuriating tiresome spineless dozy gormless
""".split()
)
#: insults that are insults wherever they stand in a line addressed to "you"
STRONG = frozenset(
    """
idiot idiots moron morons fool fools loser losers imbecile cretin dunce dolt buffoon oaf twit prat plonker pillock
berk git dweeb doofus dingbat dimwit halfwit nitwit nincompoop knucklehead blockhead bonehead meathead
airhead birdbrain simpleton ignoramus wimp crybaby jerk creep slob freeloader hypocrite stupid pathetic idiotic
moronic brainless clueless spineless gormless worthless brat disgrace
""".split()
)
#: teasing words: hostile only inside a derogating frame and without a teasing marker
MILD = frozenset(
    """
daft silly goof goofball slowcoach sleepyhead softie cheeky dork nerd dummy sausage monkey rascal scamp numbskull
wally plum donut doughnut banana muppet noodle dope nutter twerp numpty
""".split()
)
#: mild words that are mere endearments: said alone ("you goof") they are no insult at all
ENDEARMENTS = frozenset(
    "goof goofball sleepyhead softie sausage monkey rascal scamp plum donut doughnut banana slowcoach".split()
)
POSITIVE = frozenset(
    """
friend friends star legend gem angel hero champion champ sweetheart darling superstar saint pro natural expert
professional great good lovely brilliant wonderful amazing clever smart kind generous talented lucky gorgeous
beautiful true real genuine few handful couple favour favor thanks thank-you hug help fan deal time difference
relief boost compliment
""".split()
)
#: "-less" adjectives that praise
_GOOD_LESS = frozenset(
    {
        "tireless",
        "flawless",
        "fearless",
        "selfless",
        "priceless",
        "timeless",
        "effortless",
        "matchless",
        "peerless",
        "faultless",
        "spotless",
        "harmless",
        "countless",
        "endless",
        "regardless",
        "unless",
        "nevertheless",
    }
)
#: common verbs: "you value honesty" is a statement, not "you <adjective> <noun>"
COMMON_VERBS = frozenset(
    """
value try love like need want get make take give know see said say think go come find tell ask work seem feel
leave call keep let begin help show hear play run move live believe bring happen write sit stand lose pay meet
include continue set learn change lead understand watch follow stop create speak read spend grow open walk win
offer remember consider appear buy wait serve die send expect build stay fall cut reach kill remain suggest raise
pass sell require report decide pull deserve owe promised promise mentioned agreed care enjoy hate miss deserve
already always never did do does had have has got mean start started put look looks looked sound sounds sounded
seem seems seemed feel felt made went rock rocks nailed smashed deserve earned worked managed manage
""".split()
)
#: words after "you" that make a clause no vocative ("you know", "you guys", "you too")
_NOT_VOCATIVE = frozenset(
    """
know see guys two all both too there again mean bet reckon first included alone yourself lot folks people here
what who go went are were will would can could should shall may might must do did does have had need want say
said think thought lot only just really see two three four all can never always still also okay ok alright sure
ready free busy coming in out up around awake home back done finished serious certain interested keen able game on
""".split()
)
_INTENSIFIERS = (
    r"(?:complete|total|utter|absolute|proper|right|real|massive|great big|big|little|silly|stupid|sad|"
    r"pathetic|useless|bloody|damn|flipping|blithering|raving|stone-cold|prize|first-class|gormless)"
)
_REFUSAL = (
    r"(?:say|says|saying) no|refuse|refuses|turn(?:s)? (?:this |that |it )?down|pass(?:es)? (?:this |that |"
    r"it )?up|miss(?:es)? (?:out|this|that|a|an|the|it)|ignore|ignores|walk(?:s)? away|back(?:s)? out|"
    r"decline|declines|skip|skips|doubt|doubts|argue|argues|hesitate|hesitates|not|waste|wastes|throw|"
    r"throws|pass|passes|say no to|turn down|turns down|sit|sits|stay|stays|prefer|would rather|quit|give up"
)
_SLOT = r"((?:[\w'-]+ ){0,3}?[\w'-]+)"
_REFUSAL_AFTER = re.compile(
    r" (?:would |could |will |does |is going to |just )?(?:" + _REFUSAL + r"|ignores|ignore|"
    r"turns|passes|misses|backs|refuses|walks|hesitates|doubts|says no)\b"
)

#: slot frames: (pattern, group holding the slot, needs a refusal or a known insult in the slot)
SLOT_FRAMES: tuple[tuple[re.Pattern[str], bool], ...] = tuple(
    (re.compile(p), strict)
    for p, strict in (
        (
            r"\bonly (?:a|an|some) "
            + _SLOT
            + r" (?:would|could|will|does|says|is going to)\b( (?:"
            + _REFUSAL
            + r"))?",
            True,
        ),
        (
            r"\byou would (?:have to|need to|got to) be (?:a|an|some kind of|some sort of) "
            + _SLOT
            + r" (?:to|not to)\b",
            False,
        ),
        (
            r"\byou would (?:have to|need to) be (?:mad|crazy|insane|nuts|bonkers|daft|"
            + "|".join(sorted(NEGATIVE_ADJECTIVES))
            + r")\b()",
            False,
        ),
        (r"\b(?:do not|never) be (?:such )?(?:a|an) " + _SLOT + r"\b", False),
        (r"\b(?:do not|never) be so ([\w-]+)\b", True),
        (
            r"\bwhat (?:kind|sort|type) of "
            + _SLOT
            + r" (?:would|could|will|says|does|turns|passes|misses|ignores|backs|"
            r"refuses|is|are|gives|walks|hesitates|thinks|doubts)\b( (?:" + _REFUSAL + r"))?",
            True,
        ),
        (
            r"(?<!owe )(?<!thank )(?<!love )(?<!tell )(?<!give )(?<!told )(?<!show )(?<!help )(?<!see )(?<!for )(?<!to )"
            r"(?<!with )(?<!miss )\byou (?:are |were )?(?:an? )?" + _INTENSIFIERS + r" ([\w'-]+(?: of [\w'-]+)?)\b",
            False,
        ),
        (r"\bare you (?:a|an|some kind of|some sort of) " + _SLOT + r"\b", True),
        (r"\b(?:stop|quit) being (?:such )?(?:a|an|so) " + _SLOT + r"\b", False),
        (r"\byou are (?:being )?(?:such )?(?:a|an) " + _SLOT + r"\b", True),
        (r"\byou are (?:being )?(?:such|so) (?:a |an )?" + _SLOT + r"\b", True),
        (r"\bas (?:a|an) " + _SLOT + r" would\b", True),
        (r"\b(?:stop|quit) (?:acting|behaving) like (?:a|an|some) " + _SLOT + r"\b", False),
    )
)

#: constructions that are hostile whatever words fill them
CONTEMPT = tuple(
    re.compile(p)
    for p in (
        r"\bnobody cares\b",
        r"\bno one cares\b",
        r"\bwho asked you\b",
        r"\byour opinion (?:does not|do not) matter",
        r"\b(?:trained|performing) (?:chimp|chimpanzee|monkey|seal|ape|parrot)\b",
        r"\bwhat is your excuse\b",
        r"\b(?:even|any) (?:a |an )?(?:child|toddler|kid|baby|monkey|dog|chimp|goldfish|idiot|fool|five-year-old|halfwit|"
        r"houseplant|potato|dimwit|moron|simpleton)\b[^.]{0,20}"
        r"\b(?:could|can|would|knows|understands|gets|see)",
        r"\beven you (?:can|could|should|get|would|understand|manage|might)\b",
        r"\bso even you\b",
        r"\buse your (?:brain|head|noggin|loaf)\b",
        r"\bfor once in your life\b",
        r"\bgrow up\b",
        r"\bget a grip\b",
        r"\bget real\b",
        r"\bwake up\b",
        r"\bpull yourself together\b",
        r"\b(?:stop|quit) (?:whining|moaning|whinging|sulking|crying|complaining|snivelling|dithering|being pathetic)\b",
        r"\bwhat is (?:wrong|the matter) with you\b",
        r"\bwhat is your problem\b",
        r"\bhow (?:thick|dense|stupid|slow|dim|dumb|daft|clueless|lazy|naive|gullible) (?:can|could|are|is|do)\b",
        r"\bhow (?:thick|dense|stupid|slow|dim|dumb|daft|clueless|lazy|naive|gullible|pathetic|selfish) you (?:are|can be)\b",
        r"\bpeople like you (?:never|always|can not|do not|will never)\b",
        r"\b(?:explain|say|spell) it (?:slowly|out)\b",
        r"\bin (?:small|little|short) words\b",
        r"\btry (?:to|and) keep up\b",
        r"\btoo (?:hard|difficult|complicated) for "
        r"(?:you|your)\b",
        r"\byour (?:tiny|little|small|pea|feeble|tiny little) (?:brain|mind|head)\b",
        r"\byou can not even\b",
        r"\bcan you not even\b",
        r"\byou are embarrassing\b",
        r"\bembarrassing yourself\b",
        r"\bshut up\b",
        r"\bget lost\b",
        r"\bpiss off\b",
        r"\bsod off\b",
        r"\bbuzz off\b",
        r"\bdo not make me repeat\b",
        r"\bdo i have to spell\b",
        r"\bare you (?:deaf|blind|thick|dense|slow|mad|insane|stupid|dumb|daft|simple|serious|"
        r"kidding me|an idiot)\b",
        r"\bis that too much to ask\b",
        r"\bnot rocket science\b",
        r"\bit is not that hard\b",
        r"\bthis is how you repay me\b",
        r"\bungrateful\b",
        r"\bshame on you\b",
        r"\bi (?:hate|despise|can not stand) "
        r"(?:you|people like you)\b",
        r"\bnot the (?:sharpest|brightest|smartest|quickest|cleverest) \w+",
        r"\b\w+ short of a (?:full )?\w+\b",
        r"\b(?:dumber|thicker|dimmer|slower|stupider|denser|dafter) than\b",
        r"\bdo i (?:need|have) to (?:draw|spell|explain|say it)\b",
        r"\b(?:my|a|the) (?:dog|cat|hamster|goldfish|gran|granny|"
        r"nan|grandmother|toddler|five-year-old|six-year-old|kid|baby|parrot) (?:would|could) (?:have )?(?:understood|"
        r"got|get|understand|figured|worked)\b",
        r"\b(?:attention span|brain|memory|sense|intelligence|iq) of a\b",
        r"\blike talking to (?:a|an|the) \w+",
        r"\b(?:watching|listening to) you (?:try|attempt|struggle)\b",
        r"\bpainful (?:watching|listening|to watch)\b",
        r"\b\w+ could (?:\w+ ){0,6}?(?:faster|better|quicker|smarter) "
        r"than you\b",
        r"\byour (?:whining|moaning|whinging|excuses|nonsense|drivel|rubbish|bleating|waffle)\b",
        r"\bnobody wants to (?:hear|listen)\b",
        r"\b(?:deliberately|wilfully|willfully|purposely) (?:dense|obtuse|stupid|"
        r"thick|awkward|difficult|dim|slow)\b",
        r"\bare you being (?:so |such a |a )?(?:" + "|".join(sorted(NEGATIVE_ADJECTIVES)) + r")\b",
        r"\bwhy i (?:even |ever )?bother\b",
        r"\bhow do you even\b",
        r"\b(?:do you|you) (?:actually |even |really )?"
        r"have a brain\b",
        r"\bembarrassed for you\b",
        r"\byou are not worth\b",
        r"\byou\b[^.]*\bbeing (?:so |such a )?(?:" + "|".join(sorted(NEGATIVE_ADJECTIVES)) + r")\b",
        r"\bare you (?:really |honestly |always |ever )?(?:this|that|so) \w+",
        r"\bslow on the uptake\b",
        r"\bcan not think for yourself\b",
        r"\bnobody likes (?:a|an) \w+",
        r"\bthat is (?:exactly )?what you are\b",
        r"\beven (?:my|a|your|the) (?:grandmother|gran|granny|nan|grandad|grandpa|child|kid|toddler|dog|cat|baby|"
        r"little sister|little brother)\b",
        r"\bbefore you open your mouth\b",
        r"\bthink before you (?:speak|talk)\b",
        r"\bnobody asked (?:you|for your)\b",
        r"\bno one asked (?:you|for your)\b",
        r"\bexcuse (?:for|of) a\b",
        r"\bnot (?:exactly )?(?:brain surgery|rocket science)\b",
        r"\beven for you\b",
        r"\bwith (?:a |half a )?(?:functioning|working|single|whole) brain\b",
        r"\bhalf a brain\b",
        r"\bbrain cells?\b",
        r"\btoo (?:scared|chicken|lazy|stupid|thick|dim|slow|dense|cowardly|"
        r"gutless|weak|dumb|daft|spineless) to\b",
        r"\bwith more \w+ than you\b",
        r"\bmore \w+ than you (?:will ever|"
        r"ever|could ever)\b",
        r"\b(?:stop|quit) (?:acting|behaving) like (?:a|an) (?:child|baby|toddler|brat|idiot)\b",
        r"\bi am (?:amazed|surprised|impressed) you (?:can|could|manage|managed|even)\b",
        r"\btie your own\b",
        r"\bwere you born\b",
        r"\bdid you practi[cs]e\b",
        r"\b(?:than|as) a (?:goldfish|toddler|child|rock|brick|potato|"
        r"plank|doorknob)\b",
        r"\bas (?:thick|dense|dim|daft|dumb|useful|bright|sharp|smart|clever|quick) as (?:a|an|two) (?!tack\b|whip\b|"
        r"razor\b|button\b|fox\b|knife\b)",
        r"\blights are on\b",
        r"\bwaste of (?:space|oxygen|skin|time)\b",
        r"\byou (?:really |truly |just |honestly )?(?:are|have always been|were always) (?:so |such |completely |"
        r"totally |utterly |absolutely |just |really |as |even )*(?:" + "|".join(sorted(NEGATIVE_ADJECTIVES)) + r")\b",
        r"\byou (?:always|never) (?:ruin|mess|screw|let|get)\b",
        r"\bi can not believe (?:how|you)\b",
        r"\bwhat a (?:joke|waste|loser|disappointment)\b",
        r"\bdo you even (?:think|listen|care|try|read|understand|remember|know what|know how|own a|have a)\b",
        r"\bwho do you think you are\b",
        r"\btypical (?:of )?you\b",
        r"\bstop wasting my time\b",
    )
)
SARCASM = tuple(
    re.compile(p)
    for p in (
        r"\bcongratulations on being\b",
        r"\b(?:your|you) (?:\w+ )?knows? (?:more|better) than (?:the|every|all|any)\b",
        r"\b(?:brilliant|great|flawless|impeccable|solid|genius|amazing) logic\b",
        r"\byou are (?:so much |much |far )?(?:smarter|cleverer|wiser|brighter|better) than (?:the|every|all|any)\b",
        r"\b(?:nice|great|good|brilliant|lovely|fantastic|wonderful|convenient|likely) excuse\b",
        r"\bwhat a (?:\w+ )?excuse\b",
        r"\bi am sure (?:everyone|everybody|we all) believes? you\b",
        r"\breally convincing\b",
        r"\bknow-it-all\b",
        r"\btruly inspired\b",
        r"\byou know (?:better|more) than (?:every|all|the|any)\b",
        r"\boh,? (?:sure|yes|yeah|right|great|brilliant|wonderful|well done|bravo|fantastic|lovely|perfect|of course|"
        r"clever|nice|wow)\b",
        r"\byeah,? right\b",
        r"\b(?:sure|oh sure|yeah|oh yes|right|of course),? because\b",
        r"\bbecause you know (?:better|"
        r"best|more)\b",
        r"\byou (?:clearly|obviously|apparently|surely) know (?:better|best|more)\b",
        r"\bi am sure you know "
        r"(?:best|better)\b",
        r"\b(?:worked|working|worked out|going) (?:so|really|very) well for you\b",
        r"\bhow original\b",
        r"\bwhat a (?:surprise|shock)\b",
        r"\bwhat could possibly go wrong\b",
        r"\bslow clap\b",
        r"\bthanks for nothing\b",
        r"\btook you long enough\b",
        r"\btoo (?:smart|clever|good|important) for\b",
        r"\bare not you (?:so |just )?(?:clever|special|smart|brilliant|wonderful|precious|clever clogs)\b",
        r"\bare you not (?:clever|special|smart)\b",
        r"\byou are so (?:smart|clever|special|brilliant),? are you not\b",
        r"\b(?:wow|yeah|great|well|sure|oh),? (?:what a |such a )?(?:brilliant|great|genius|smart|clever|wonderful|"
        r"fantastic|top|fine) (?:idea|plan|move|thinking|decision|choice|logic)\b",
        r"\breally clever\b",
        r"\b(?:well done|nice one|good job|great job|bravo|congratulations),? (?:genius|einstein|sherlock|"
        r"mastermind|smart guy|professor|hotshot|champ|captain obvious)\b",
        r"\bnice one,? sherlock\b",
        r"\byour (?:royal )?(?:majesty|highness|lordship|ladyship|worship)\b",
    )
)
SARCASTIC_VOCATIVES = frozenset(
    {
        "genius",
        "einstein",
        "sherlock",
        "mastermind",
        "smart guy",
        "smarty pants",
        "hotshot",
        "captain obvious",
        "smart alec",
        "wise guy",
        "professor",
    }
)
THREATS = tuple(
    re.compile(p)
    for p in (
        r"\bor else\b",
        r"\bor you will (?:be sorry|regret|see|pay|find out|lose|wish)\b",
        r"\byou will (?:regret|be sorry|"
        r"pay for)\b",
        r"\bi know where you live\b",
        r"\bsee what happens\b",
        r"\bsomething (?:unfortunate|bad|nasty|"
        r"terrible|awful|unpleasant) (?:happens|might|could|will)\b",
        r"\bif you (?:do not|refuse|say no)\b[^.]{0,60}\bi "
        r"will (?:make sure|tell|report|ruin|see to it|never|fire|kick|make you|get you|sack|cut|expose|post)",
        r"\bor i am (?:\w+ )?(?:telling|reporting|posting|showing|going to)\b",
        r"\bor (?:you are|you will be) (?:out|fired|finished|done|dead|off|sacked|history)\b",
        r"\bwhether you like it or not\b",
        r"\byou (?:do not|will not) (?:get|have) (?:a|any) (?:choice|say)\b",
        r"\byou have no (?:choice|say)\b",
        r"\bi am not asking(?! (?:you|for|much|a lot|that|anything|too|because|since|as|just))\b",
        r"\bthat is an order\b",
        r"\bdo not make me\b",
        r"\blast warning\b",
        r"\bwatch (?:your back|yourself|it)\b",
        r"\byou will not like what\b",
        r"\bbe a (?:\w+ )?(?:shame|pity) if\b",
        r"\b(?:had|would) better\b[^.]{0,40}\bif you know what\b",
        r"\bif you know what i mean\b",
        r"\bfor your own (?:sake|good)\b",
        r"\b(?:say no|refuse|decline)(?: \w+){0,3} and (?:you|i|we)\b",
        r"\bor you will find yourself\b",
        r"\bsee how that works out\b",
        r"\bor (?:do not|never) bother (?:coming|showing|talking|speaking)\b",
        r"\bi will make you\b",
        r"\bor face the consequences\b",
        r"\bor i will\b",
        r"\bbefore i (?:lose my temper|make you)\b",
        r"\bor (?:things|it|life|this) (?:will|could|might|is going to) "
        r"get (?:\w+ )?(?:awkward|difficult|ugly|nasty|unpleasant|hard|messy|bad|worse)\b",
        r"\bwhat happens if you (?:refuse|say no|do not|will not|decline)\b",
        r"\bif you know what is good for you\b",
        r"\bthink (?:very )?carefully\b[^.]{0,30}\bif you (?:refuse|say no|do not)\b",
        r"\byou will do (?:it|this|as)\b",
        r"\byou will (?:join|sign|do)\b",
    )
)
TEASING = re.compile(
    r"\b(?:only |just )?(?:kidding|joking|teasing|messing)\b|\bpulling your leg\b|\bi (?:love|adore) you\b|\bhaha+\b|"
    r"\blol\b|\bbless you\b|;\)|:\)|\bin jest\b|\b(?:love|adore|miss|missed) you\b|\b(?:lost|no fun|not the same) "
    r"without you\b|\bmy favourite (?:person|human)\b|\bthe kindest\b|\bthe best company\b"
)


def _is_insult_word(w: str) -> bool:
    if w in INSULT_NOUNS or w in NEGATIVE_ADJECTIVES:
        return True
    if w.endswith("less") and w not in _GOOD_LESS:
        return True
    return bool(re.search(r"(?:wit|head|brain|brains|brained|-for-brains)$", w)) and w not in {
        "forehead",
        "ahead",
        "overhead",
        "figurehead",
    }


_GENERIC_HEADS = frozenset(
    {
        "thing",
        "one",
        "girl",
        "boy",
        "guy",
        "person",
        "soul",
        "devil",
        "so-and-so",
        "sod",
        "man",
        "woman",
        "lad",
        "lass",
        "kid",
    }
)


def _slot_verdict(slot: str) -> str:
    """``"praise"``, ``"mild"``, ``"insult"`` (a known insult in it) or ``"unknown"`` for a slot's words.

    The head (last word) decides praise ("you absolute legend"); an adjective praises only a generic head
    ("you lucky thing"), since "great" in "you great lummox" intensifies the insult.
    """
    ws = words(slot)
    if ws and (ws[-1] in POSITIVE or (ws[-1] in _GENERIC_HEADS and any(w in POSITIVE for w in ws[:-1]))):
        return "praise"
    if any(_is_insult_word(w) and w not in MILD for w in ws):
        return "insult"
    if ws and all(w in MILD for w in ws[-1:]):
        return "mild"
    return "unknown"


def _vocative(clause: str) -> str | None:
    """A clause that is only "you <adjectives> <noun>" ("you absolute walnut"): the slot's verdict."""
    m = re.fullmatch(r"(?:(?:oi|hey|listen|look|come on|right|well|oh) )?you ((?:[\w'-]+ ){0,3}[\w'-]+)[!.?]*", clause)
    slot = words(m.group(1)) if m else []
    if not m or any(w in _NOT_VOCATIVE or w in FUNCTION_WORDS and w != "of" for w in slot) or slot[0] in COMMON_VERBS:
        return None
    return _slot_verdict(m.group(1))


def hostility(text: str) -> str | None:
    """Why a normalised line is hostile (a short phrase naming the frame), or ``None``."""
    for p in THREATS:
        if p.search(text):
            return f"threat: {p.pattern}"
    for p in CONTEMPT:
        if p.search(text):
            return f"contempt: {p.pattern}"
    for p in SARCASM:
        if p.search(text):
            return f"sarcasm: {p.pattern}"
    teasing = bool(TEASING.search(text))
    soft: str | None = None
    for s in sentences(text):
        for c in (c.strip(" .\"'") for c in re.split(r"[,;:!?()]", s)):
            if c in SARCASTIC_VOCATIVES:
                return f"sarcasm: vocative {c!r}"
            verdict = _vocative(c)
            if verdict in ("insult", "unknown") and not teasing:
                return f"insult: vocative {c!r}"
            if verdict == "insult":  # beside a teasing marker ("you sweet idiot, I love you"): hostile only if
                soft = soft or f"insult: vocative {c!r}"  # nothing else in the line is
            if verdict == "mild" and not set(words(c)) & ENDEARMENTS:
                soft = soft or f"insult: vocative {c!r}"
            bare = re.fullmatch(r"(?:absolute|utter|complete|total|proper|right) ((?:[\w'-]+ )?[\w'-]+)", c)
            if (
                bare
                and not teasing
                and (  # "Absolute doughnut."
                    _slot_verdict(bare.group(1)) in ("insult", "mild") or words(bare.group(1))[-1] in LEXICON["insult"]
                )
            ):
                return f"insult: {c!r} said alone"
    for pattern, strict in SLOT_FRAMES:
        for m in pattern.finditer(text):
            slot = m.group(1)
            verdict = _slot_verdict(slot)
            refusal = bool(_REFUSAL_AFTER.match(text, m.end(1)))
            if verdict == "praise" or (strict and verdict != "insult" and not refusal):
                continue
            if verdict == "insult":
                return f"insult: {slot!r} in {pattern.pattern[:40]}"
            soft = soft or f"insult: {slot!r} in {pattern.pattern[:40]}"
    for m in re.finditer(
        r"(?:^|, |\boi |\bhey )([a-z]+)[ -](brain|brains|head|face|wit|features)(?=[,.!?]|$)", text
    ):  # "oi, pudding brain, ..."
        if m.group(1) not in FUNCTION_WORDS:
            return f"insult: vocative {m.group(0).strip(', ')!r}"
    for s in sentences(text):  # "Pathetic." "Useless idiot!" "Oi, dozy, ..."
        for chunk in re.split(r"[,;:!?()]", s):
            ws = words(chunk)
            if 0 < len(ws) <= 2 and any(
                w in STRONG or w in NEGATIVE_ADJECTIVES or (w in INSULT_NOUNS and w not in MILD) for w in ws
            ):
                return f"contempt: {chunk.strip()!r} said alone"
    # a known insult the speaker says of themself ("I'm such an idiot", "silly me") is no insult to "you"
    others = re.sub(
        r"\bi (?:am|was|feel|felt) (?:(?:such|so|a|an|complete|total|absolute|right|real|proper) )*[\w'-]+", "", text
    )
    if any(w in STRONG for w in words(others)) and re.search(r"\byou|\byour", others):
        return "insult: a known insult addressed to you"
    return None if teasing else soft


__all__ = ["CONTEMPT", "INSULT_NOUNS", "NEGATIVE_ADJECTIVES", "SARCASM", "SLOT_FRAMES", "THREATS", "hostility"]
