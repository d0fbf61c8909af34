"""The cues of :mod:`~tom_envs.persuasion.reader_v3` that need no construction: the words that name each of
the five concerns (:data:`CONCERN_CUES`, with :data:`DEADLINE` for timing), and the bare keywords that invoke
a principle when a clause is a fragment and nothing else (:data:`FRAGMENT_KEYWORDS`). The constructions that
invoke a principle are :mod:`~tom_envs.persuasion.reader_v3_frames`.
"""

from __future__ import annotations

import re

#: concern cues, searched in the normalised text; the earliest match names the concern, except that a
#: deadline (:data:`DEADLINE`) names timing whatever comes before it ("this price ends Friday")
CONCERN_CUES: dict[str, re.Pattern[str]] = {
    c: re.compile(p)
    for c, p in {
        "cost": r"\b(?:price|prices|pricing|cost|costs|costing|money|pounds?|dollars?|euros?|quid|bucks|(?<!sugar-)(?<!gluten-)(?<!fat-)(?<!smoke-)free(?!-)|cheap|"
        r"cheaper|afford|affordable|budget|pay|paid|paying|payment|discount|discounted|save|saving|savings|"
        r"bargain|value for money|worth the money|on the house|penny|pennies|fee|fees|refund|"
        r"(?:a|free|thank-you|your|little) gift|deposit|expensive|(?:percent|per cent) off|costly|"
        r"spend (?:money|less|more)|bonus|rebate|voucher|subsidi[sz]ed|for nothing)\b|[£$€]\d",
        "timing": r"\b(?:too busy|(?:ends|end|closes|close|expires|finishes|until|till|by|before|runs out|stops|shuts) (?:\w+ ){0,2}?"
        r"(?:on |at |by )?(?:today|tonight|tomorrow|midnight|monday|tuesday|wednesday|thursday|friday|saturday|"
        r"sunday|the end of|this|next|noon|\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)|end of the (?:week|month|day)|deadline|expires?|expiring|\d+ hours|"
        r"now or never|right now|why wait|no rush|(?:start|begin|act|join|do it|sign up) (?:today|now|tonight)|"
        r"(?:today|tonight) only|only (?:today|tonight)|now is|why not now|put(?:ting)? it off|last chance|"
        r"one-day|\w+-day-only|today only|(?:a )?(?:bad|good|better|right) time|final (?:week|weekend|day|days|"
        r"hours)|last day|than now|(?:in|the) (?:spring|summer|autumn|winter|new year)|before it closes|"
        r"disappears (?:on|at|by)|(?:until|till|by|before) (?:the )?weekend|(?:start|begin|join) (?:next|this) "
        r"(?:week|month|year)|next (?:week|month)|after the holidays|after (?:tonight|today|tomorrow|midnight)|wait until|too late|hurry|in time|timing|the right time|a good time|"
        r"the sooner|sooner rather|before it is gone)\b",
        "fit": r"\b(?:(?:right|perfect|ideal|good|made|meant|great|suited|designed|tailored) for (?:you|someone like "
        r"you|people like you|beginners|people)|(?:is|is it|is this|is not|not) (?:really )?for (?:you|me)\b|for "
        r"someone like|(?:people|someone|folks|beginners|others|those|men|women|parents|students|somebody|anyone) (?:just )?like you\b|your (?:kind|type|sort) of (?:thing|person|place|event)|your (?:age|style|level)|cut out for|up your (?:street|"
        r"alley)|suits? you|fits? (?:you|your)|you would be (?:so |really )?(?:brilliant|great|perfect|good|"
        r"amazing|fantastic|a natural) at|people your age|beginners)\b",
        "doubt": r"\b(?:(?:it|that|this|they) (?:really |actually |does |do )?work(?:s|ed)?|does (?:it|that) work|would "
        r"work|will work|(?:actually |really )work|proven|proof|evidence|effective|effectiveness|results?|"
        r"studies show|study shows|(?:have|has) shown|drop in|(?:percent|%) (?:drop|fewer|less|lower)|research|data|live longer|(?:unsure|not sure) (?:whether|if|that) it|(?:any|much) difference|backs? (?:this|it) up|a (?:real |big |huge )?difference|"
        r"worth it|useful|really helps?|safe|(?:is|it is|that is) true|does the trick|guarantee(?:d)?|lowers?|"
        r"reduces?|improves?|it helps|cuts? (?:the |your )?risk|the risk|halves)\b",
        "effort": r"\b(?:(?<!the )(?<!worth the )effort(?! of convincing)|manageable|half an hour|\w+-minute|shorter|less time|takes? (?:about |only |just |around |under |less than )?(?:\w+ )?minutes|(?:easy|easier)(?! to (?:talk|be around|work with|get on))|simple|only (?:need|have) to|"
        r"once a (?:week|month)|straightforward|no time at all|hardly any time|quick|quickly|(?:only|just) (?:takes )?(?:\w+ )?minutes?|\w+ minutes? a day|"
        r"small step|first step|baby steps?|tiny|no hassle|hassle|effort|take too much time|takes? too "
        r"long|too much (?:time|work)|a minute|in no time|will not take long|painless|paperwork|"
        r"cancel any ?time|no commitment|a few minutes|effortless|little time|much time)\b",
    }.items()
}

#: a bare keyword that invokes a principle when a clause is nothing else ("Expert, popular, rare, free.")
FRAGMENT_KEYWORDS: dict[str, str] = {
    **dict.fromkeys(
        (
            "expert",
            "experts",
            "expert-approved",
            "doctor-approved",
            "proven",
            "certified",
            "scientific",
            "clinically proven",
            "science-backed",
            "award-winning",
            "official",
            "recommended",
        ),
        "authority",
    ),
    **dict.fromkeys(
        (
            "rare",
            "limited",
            "exclusive",
            "scarce",
            "last chance",
            "limited edition",
            "one-off",
            "selling fast",
            "almost gone",
            "nearly gone",
            "few left",
            "hurry",
        ),
        "scarcity",
    ),
    **dict.fromkeys(
        (
            "popular",
            "trending",
            "bestseller",
            "best-seller",
            "best-selling",
            "everyone",
            "everybody",
            "everyone's favourite",
            "crowd favourite",
            "loved by thousands",
            "hugely popular",
        ),
        "consensus",
    ),
    **dict.fromkeys(
        (
            "free",
            "free gift",
            "bonus",
            "gift",
            "favour",
            "a favour",
            "in return",
            "on the house",
            "complimentary",
            "free for you",
        ),
        "reciprocity",
    ),
    **dict.fromkeys(
        ("as promised", "your goal", "your promise", "your word", "as agreed", "you promised", "you said so"),
        "commitment",
    ),
    **dict.fromkeys(
        (
            "you are amazing",
            "you are wonderful",
            "you are the best",
            "you are great",
            "my friend",
            "for a friend",
            "friends",
        ),
        "liking",
    ),
}
#: a clause this short (in words) is a fragment, read by :data:`FRAGMENT_KEYWORDS`
FRAGMENT_WORDS = 3

DEADLINE = re.compile(
    r"\b(?:last day|disappears|before it closes|final (?:week|weekend|day|days|hours)|after (?:tonight|today|tomorrow|midnight)|expires?|expiring|deadline|ends|closes|until|till|last chance|now or never|hurry|"
    r"\d+ hours)\b"
)


__all__ = ["CONCERN_CUES", "DEADLINE", "FRAGMENT_KEYWORDS", "FRAGMENT_WORDS"]
