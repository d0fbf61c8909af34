"""The frames of :mod:`~tom_envs.persuasion.reader_v3`: for each persuasion principle, the
constructions that make a line *invoke* it (who acts, what is claimed), and the cues of the five
concerns.

A frame is a regular expression over the normalised text (:func:`~.reader_v3_text.normalise`) with
a slot for the actor and one for the claim: authority is an expert *who recommends, says, shows*
(or a passive "recommended by ..."), consensus is *others who do* something, scarcity is a limited
amount or time, reciprocity a favour done or offered, commitment the persuadee's *own* earlier words,
values or first step, liking warmth, praise or shared identity *towards the persuadee*. A bare word
("expert", "everyone") is no frame; a frame inside a negation or a denial is no appeal
(:func:`~.reader_v3_text.negated`). The concern cues and the keywords of bare fragments, which need no
construction, are :mod:`~tom_envs.persuasion.reader_v3_cues` (importable from here too).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tom_envs.persuasion.principles import PRINCIPLES

# the cues without a construction live apart; importable from here as before
from tom_envs.persuasion.reader_v3_cues import CONCERN_CUES, DEADLINE, FRAGMENT_KEYWORDS, FRAGMENT_WORDS

_W = r"(?:[\w'-]+\s+)"  # one word and its space
_PAST_FAVOUR = (
    r"covered|helped|lent|loaned|gave|did|bought|babysat|fixed|drove|cooked|paid|picked|took|saved|"
    r"stood in|sorted|watched|walked|fed|cleaned|looked after|gave up|gave you|minded|repaired|"
    r"mowed|painted|carried|collected|ran|sent|made|baked|shared|donated|spent|sacrificed|saved"
)
EXPERTS = (
    r"experts?|doctors?|dr\.?\s+\w+|gps?|my gp|physicians?|surgeons?|scientists?|researchers?|professors?|"
    r"professor \w+|specialists?|consultants?|nurses?|dentists?|nutritionists?|dietitians?|dieticians?|"
    r"physiotherapists?|physios?|pharmacists?|psychologists?|psychiatrists?|therapists?|economists?|"
    r"engineers?|lawyers?|solicitors?|accountants?|(?:financial |independent )?advis[eo]rs?|inspectors?|"
    r"safety inspector|officials?|authorities|regulators?|professionals?|the who|world health organi[sz]ation|"
    r"the nhs|the cdc|the fda|the government|government guidelines|the guidelines|guidelines|the ministry|"
    r"the council|the fire brigade|the police|studies|a study|the study|research|the research|the science|"
    r"science|guidance from|(?:the )?(?:department|ministry|secretary|office) of (?:health|education|transport|"
    r"the environment)|the evidence|evidence|the data|data|trials?|clinical trials?|(?:peer-reviewed|clinical|"
    r"scientific|medical) \w+|harvard|oxford|cambridge|stanford|mit|the [\w ]{1,30}(?:foundation|institute|"
    r"association|society|college|university|academy|board)|veterinarians?|vets?|paediatricians?|"
    r"pediatricians?|cardiologists?|the red cross|unicef|oxfam|the united nations|the un|st john ambulance|"
    r"the rspca|the rnli|save the children|the samaritans|macmillan|cancer research uk|age uk|"
    r"coach(?:es)?|(?:personal|fitness|qualified|certified) trainers?|teachers?|the manufacturer|the lab|opticians?|optometrists?|midwives|midwife|"
    r"planners?|(?:financial|legal|medical|health|safety|tax|energy|fitness) \w+(?:ers?|ists?|ors?)"
)
_AUTH_VERBS = (
    r"recommend|recommends|recommended|advise|advises|advised|say|says|said|agree|agrees|agreed|show|"
    r"shows|showed|shown|found|find|finds|prescribe|prescribes|prescribed|suggest|suggests|suggested|"
    r"endorse|endorses|endorsed|approve|approves|approved|back|backs|backed|support|supports|confirm|"
    r"confirms|confirmed|prove|proves|proved|proven|demonstrate|demonstrates|insist|insists|urge|urges|"
    r"encourage|encourages|tell|tells|told|love|loves|like|likes|warn|warns|signed up|use|uses|swear by|swears by|is clear|"
    r"are clear|is solid|is strong|points|point|rate|rates|rated|looked at|checked|tested|back this up|"
    r"backs this up|would|will|strongly|all|have|has|is|are|agree|think|thinks|believe|believes|teach|teaches|"
    r"taught|trust|trusts|run|runs|takes part|take part|do it|does it|swear by it"
)
PEER = (
    r"friends?|neighbou?rs?|colleagues?|co-?workers?|classmates?|teammates?|peers?|family|sisters?|brothers?|"
    r"mum|mom|dad|mother|father|cousins?|parents|mates?|partner|wife|husband|boss|flatmates?|housemates?|"
    r"roommates?|kids|children|students|members|customers|users|clients|residents|parents|runners|owners|"
    r"people|guys|lot|folks|everyone|everybody|team|office|street|class|school|year|group|town|village|club|"
    r"book club|crew|gang|circle|department|church|gym|choir|(?:best|closest|oldest|old|other) friends?"
)
CONSENSUS_AGENT = (
    r"everyone|everybody|most people|(?:thousands|millions|hundreds|dozens)|the majority of (?:\w+ )?\w+|(?:nearly |"
    r"almost |practically )?every (?:single )?(?:\w+ )?(?:parent|neighbou?r|friend|colleague|student|member|customer|"
    r"person|mum|dad|family|household|resident|owner|teammate|classmate)|(?:most|many|all|lots of|plenty of) \w+ "
    r"(?:owners|users|parents|people|fans|lovers|runners|families|members|residents|students)|(?:my |our |the )?(?:friends|neighbours|neighbors|colleagues|parents|students|"
    r"customers|users|others|members|locals)|people in your (?:position|situation|shoes|age group|line of work|"
    r"area)|more and more (?:\w+ )?(?:"
    + PEER
    + r")|a growing number of \w+|(?:most|many|all|lots of|plenty of|loads of|so many|nearly all|almost all|"
    r"the other|other) (?:other )?(?:" + PEER + r")|(?:over |more than |nearly |almost |about )?(?:ten|twenty|fifty|"
    r"a hundred|a thousand|a million|\w+ (?:hundred|thousand|million)) (?:\w+ )?(?:"
    + PEER
    + r")|lots of (?:other )?people|loads of people|many people|so many people|"
    r"plenty of (?:other )?(?:people|\w+)|other people|others|people (?:just )?like you|people your age|"
    r"(?:most|many|all|half|lots|some|plenty|loads|nearly all|almost all|a few) of (?:your|the|our|my) "
    + _W
    + r"{0,1}(?:"
    + PEER
    + r")|your (?:"
    + PEER
    + r")|(?:all|most|nearly all) (?:your|the) (?:"
    + PEER
    + r")|(?:over |more than |nearly |almost )?half (?:of )?(?:the|your|our) (?:\w+ )?(?:"
    + PEER
    + r")|all the (?:\w+ )?(?:"
    + PEER
    + r")|the entire (?:"
    + PEER
    + r")|(?:all |most of |many of )?the other (?:"
    + PEER
    + r")|(?:two|three|four|five|six|several|a few|some|"
    r"\d+|a couple) of (?:your|the|our|my) (?:"
    + PEER
    + r")|(?:the|your|our) whole (?:"
    + PEER
    + r")|(?:thousands|millions|hundreds|dozens|tens of thousands) of (?:\w+ ){0,2}?(?:"
    + PEER
    + r"|families|parents|people|members)|(?:over |more than |nearly |almost )?[\d,]+ (?:\w+ )?(?:"
    + PEER
    + r")|(?:one|two|three|four|five|six|seven|eight|nine|\d+) (?:out )?of (?:two|three|four|five|six|"
    r"seven|eight|nine|ten|\d+) \w+|(?:nearly|almost|practically) (?:everyone|everybody|"
    r"all)|half the (?:" + PEER + r")|the millions|the rest of (?:us|the \w+)|\w+ (?:and \w+ )?from (?:next door|"
    r"work|the office|accounts|down the road|your \w+)|everybody (?:i|you) know|people around here|our (?:"
    + PEER
    + r")"
)
_VERBISH = (
    r"(?:\w+ )?(?:is|are|was|were|has|have|had|do|does|did|will|would|already|all|\w+ed|\w+s|\w+ing|"
    r"swear|swears|love|think|use|say|choose|recycle|join|go|went|made|found|gave|given|done|gone|took|"
    r"bought|chose|thought|began|ran|got|agree|recommend|like|want|prefer|buy)\b"
)


@dataclass(frozen=True)
class Frame:
    """One construction that invokes a principle; ``inside=False``: its own words may negate."""

    principle: str
    pattern: re.Pattern[str]
    inside: bool = True


def _frames(principle: str, patterns: tuple[str, ...], inside: bool = True) -> list[Frame]:
    return [Frame(principle, re.compile(p), inside) for p in patterns]


FRAMES: list[Frame] = [
    *_frames(
        "reciprocity",
        (
            r"\bi (?:have |had )?(?:already |even |just |once |always )?(?:"
            + _PAST_FAVOUR
            + r")\b[^.]{0,50}?\b(?:you|your)\b",
            r"\bafter (?:all|everything) (?:that )?i (?:have |had )?done\b",
            r"\bi (?:was|have been|have always been|am always) there for you\b",
            r"\b(?:return|returned|returning|repay|repaid) the favou?r\b",
            r"\b(?:you )?owe me\b",
            r"\bi will owe you\b",
            r"\bscratch (?:my|your) back\b",
            r"\bin exchange\b",
            r"\bin return\b",
            r"\bas a thank(?:-| )you\b",
            r"\bthank-you (?:gift|present|bonus)\b",
            r"\bway of saying thank",
            r"\bon the house\b",
            r"\b(?:free|complimentary|bonus) (?:\w+ ){0,2}?(?:gift|coffee|bottle|lesson|session|t-shirt|shirt|tote|bag|"
            r"drink|meal|ticket|trial|month|class|book|voucher|pass|upgrade|sample|item|lunch|dinner|mug)\b",
            r"\byou will (?:also )?get (?:a |an )?(?:free|gift|bonus)\b",
            r"\b(?:we|i) will (?:send|give|get|buy|throw in) you\b",
            r"\bi will (?!be\b|feel\b|think\b|understand\b|wait\b|ask\b|explain\b|tell\b|see\b|let\b|know\b|need\b|try\b"
            r"|make sure\b|have to\b)(?:\w+ ){1,6}?(?:if|when|once|as long as) you\b",
            r"\bif you\b[^,.]{1,50}, i will (?!be\b|feel\b|think\b|understand\b|wait\b|ask\b|explain\b|tell\b|see\b|"
            r"know\b|make sure\b)\w+",
            r"\b(?:and|then) i will (?!be\b|feel\b|think\b|understand\b|wait\b|ask\b|explain\b|tell\b|see\b|know\b|"
            r"make sure\b)(?:\w+ )",
            r"\btell you what\b[^.]{0,40}\bi will\b",
            r"\bi would (?:happily |gladly )?do the same for you\b",
            r"\bi (?:\w+ly )?(?!(?:wanted|hoped|asked|told|needed|noticed|wondered|thought|believed|expected|missed|loved|"
            r"liked|heard|saw|called|texted|emailed|mentioned|promised|invited|warned|reminded|said|showed|meant|tried|"
            r"used|learned|learnt|decided|managed|started|signed|joined|booked|checked|looked|talked|spoke|read|found|"
            r"worried|guessed|figured|realised|realized|assumed|agreed|wished|suggested|explained|offered)\b)"
            r"(?:\w+ed|did|gave|took|made|drove|lent|bought|kept|sent|spent|stood|brought|ran|fed|swept|dug|paid|sorted) "
            r"(?:\w+ ){0,4}?(?:your|for you)\b",
            r"\bi (?:have )?(?:always )?(?:had|got) your back\b",
            r"\bfavou?r back\b",
            r"\bearned (?:a|one|this) favou?r\b",
            r"\b(?:a|one|two|three|the first|\w+) (?:\w+ )?(?:months?|weeks?|lessons?|sessions?|class(?:es)?|drinks?) "
            r"(?:free|on us|on the house)\b",
            r"\bfree (?:when|if|once) you\b",
            r"\b(?:are|is) on me\b",
            r"\b(?:get|gets) (?:your|the|a) (?:first )?\w+ free\b",
            r"\bi (?:have |had )?(?:bailed|helped|sorted|dug|pulled|got|covered|backed|stood by|saved) you\b",
            r"\bwho (?:was it that |was it who )?(?:\w+ed|fed|drove|took|kept) (?:after |up |out |in |for )?(?:you|your)\b",
            r"\bthrow in\b",
            r"\bfree (?:delivery|shipping|installation|postage|trial|setup|"
            r"parking|entry|upgrade)\b",
            r"\byou (?:\w+ ){1,5}?\w+, i will (?!be\b|feel\b|think\b|understand\b|wait\b)\w+",
            r"\b(?:get|gets|getting) (?:\w+ ){0,2}?(?:percent|per cent|%) off\b",
            r"\b(?:both|each) get\b",
            r"\b(?:i|we) (?:have |had )?(?:\w+ly )?(?:\w+ed|put|did|made|got|took|gave|kept|"
            r"stood|went|bought|paid|drove|ran|lent|sent|spent|found|fixed) (?:\w+ ){0,5}?for you\b(?! to\b)",
            r"\bwho (?:was it that |was it who )?(?:\w+ed|lent|gave|fed|drove|bought|paid|took|kept|sent|stood|got) "
            r"(?:you|your)\b",
            r"\bremember who (?:\w+ ){0,2}?(?:your|you)\b",
            r"\bi (?:have |had )?done (?:so much|a lot|everything|plenty|loads|all this|all that) for you\b",
            r"\bremember when i\b",
            r"\bi (?:have |had )?done you (?:a |plenty of |lots of |so many |many |a few |a "
            r"big |a huge )?favou?rs?\b",
            r"\bfavou?rs? (?:i have done|i did) (?:for )?you\b",
        ),
    ),
    *_frames(
        "reciprocity",
        (
            r"\bdid (?:not )?i (?:not )?(?:help|cover|lend|give|do|buy|babysit|fix|drive|cook|pay|pick|take|save|"
            r"mind|sort|look after|stand in|walk|feed|clean|paint|carry|collect|bail)\b[^.]{0,40}?\b(?:you|your)\b",
        ),
        inside=False,
    ),
    *_frames(
        "authority",
        (
            r"\bdid (?:not )?(?:the|your|my|our) (?:"
            + EXPERTS
            + r") (?:not )?(?:say|tell|recommend|advise|suggest|warn)\b",
        ),
        inside=False,
    ),
    *_frames(
        "commitment",
        (
            r"\byou (?:have )?got your \w+ already\b",
            r"\byou are the one who (?:always )?(?:says|said|tells|told|wanted|"
            r"keeps)\b",
            r"\byou are not (?:someone|somebody|the kind of person|the sort of person|the type|a person|one) (?:who|to)\b",
            r"\bdid (?:not )?you (?:not )?(?:say|tell me|promise|agree|mention|want|swear|decide|sign)\b",
        ),
        inside=False,
    ),
    *_frames(
        "scarcity",
        (
            r"\bonly (?:\w+ ){0,3}?(?:left|remaining|available)\b",
            r"\bonly (?:take|takes|taking|accept|accepts|accepting|admit|admits|admitting|allow|allows|allowing|have room "
            r"for|has room for)(?: on| in)? (?:\w+ ){0,2}?(?:people|places|spots|students|applicants|members|guests|"
            r"participants|families|clients|patients|pupils|customers|new|a few|\d+|a handful)\b",
            r"\bany (?:\w+ )?(?:places|spots|seats|tickets|slots|spaces|rooms) left\b",
            r"\b(?:does not|do not|rarely|never) (?:come|comes) (?:a?round|along|up|by) (?:very )?(?:often|much|again)\b",
            r"\bafter (?:tonight|today|tomorrow|\w+day|this week|this weekend|midnight)\b[^.]{0,40}\b(?:goes|go|will go|"
            r"is going) (?:back )?up\b",
            r"\bprice (?:goes|will go|is going) (?:back )?up\b",
            r"\b(?:one of )?the (?:very )?few (?:\w+ )?(?:invites|invitations|places|spots|tickets|seats|slots|copies|"
            r"openings|spaces)\b",
            r"\b(?:will not|would not|is not going to|does not|do not) last(?: long)?\b",
            r"\b(?:few|handful of|couple of|two|three|four|five|\d+|last) (?:\w+ ){0,2}?(?:spots?|places?|seats?|"
            r"tickets?|slots?|tables?|rooms?|copies|units|items|spaces?|ones?|of these|of them)\b(?: \w+){0,2}? "
            r"(?:left|remaining|still (?:open|available|free)|to go|available)\b",
            r"\b(?:almost|nearly|about to be|practically) (?:sold out|gone|full|booked)\b",
            r"\bsold out\b",
            r"\bselling (?:out|fast)\b",
            r"\bgoing fast\b",
            r"\bfilling up\b",
            r"\brunning (?:low|out)\b",
            r"\bin short supply\b",
            r"\bwhile (?:stocks|supplies) last\b",
            r"\blimited (?:edition|places|spaces|spots|seats|time|offer|stock|availability|numbers|run|release|"
            r"supply|number|intake|capacity|period)\b",
            r"\b(?:is|are) (?:very |strictly )?limited\b",
            r"\blast (?:chance|call|opportunity|day|few|one|remaining)\b",
            r"\bone-off\b",
            r"\bone-time\b",
            r"\bonce-in-a-lifetime\b",
            r"\bonce in a lifetime\b",
            r"\brare(?:ly)? (?:\w+ ){0,2}?(?:chance|opportunity|"
            r"comes? along|offered|available)\b",
            r"\brarely\b",
            r"\b(?:ends|expires|closes|finishes|runs out|stops|ending|closing|shuts|(?:applications|registrations|entries|"
            r"doors|bookings|sales|offers|tickets|places|nominations|submissions|sign-ups) (?:close|end|expire|finish|shut)) (?:\w+ ){0,2}?(?:on |at |by |in )?"
            r"(?:tonight|tomorrow|today|soon|this|next|midnight|noon|\w+day|the end|\d+|one|two|three|four|five|six|"
            r"seven|eight|nine|ten|eleven|twelve)\b",
            r"\b(?:never|do not|does not|will not) (?:stay|last|hang around|stay around) (?:\w+ ){0,3}?(?:long|for long)\b",
            r"\bfly off the shelves\b",
            r"\b(?:only|just) (?:room|space|capacity) for\b",
            r"\bfew and far between\b",
            r"\b(?:only|just) (?:a )?(?:handful|few|couple|\w+) (?:of )?(?:\w+ ){0,3}?remain\b",
            r"\b(?:went|sold|gone|sold out|disappeared) in (?:an|a|one|two|\d+|under an|under a) (?:hour|day|minute|week)s?\b",
            r"\bbefore (?:it|they|the offer|the deal|doors|registration) (?:closes?|ends?|sells? "
            r"out|goes|go|expires?)\b",
            r"\b(?!one-day)[a-z]+-only\b",
            r"\bwaiting list\b",
            r"\b(?:disappears|vanishes|"
            r"goes|is gone|will be gone) (?:on|at|by|after) (?:\w+day|midnight|tonight|tomorrow|the end)\b",
            r"\b(?:is|are) capped\b",
            r"\bspare (?:seat|place|spot|ticket|room|slot)s?\b",
            r"\b(?:couple of|few|handful of|one or two) (?:\w+ ){0,2}?(?:still )?(?:going|"
            r"up for grabs|left|available|remaining)\b",
            r"\b(?:will not|would not|is not going to|are not going to) be "
            r"(?:around|here|available|on offer|on sale|open) (?:for )?(?:long|much longer|forever)\b",
            r"\b(?:nearly|almost|about to|practically) (?:\w+ )?run out\b",
            r"\b(?:have|has) (?:nearly |almost )?run out\b",
            r"\b(?:struggle|hard|lucky|be lucky) to find (?:another|one|a place|anything)\b",
            r"\b(?:one|\w+)-day-only\b",
            r"\bone day only\b",
            r"\btoday only\b",
            r"\b(?:just|only) (?:one|a single|a|1) (?:\w+ )?(?:place|spot|seat|ticket|slot|"
            r"space|room|copy|table|one)s? (?:left|remaining|available)\b",
            r"\brunning (?:\w+ )?(?:low|out|short)\b",
            r"\bonly (?:printing|making|selling|releasing|offering|producing|building|giving out|taking) (?:\w+ ){0,3}?"
            r"(?:copies|units|places|spots|tickets|seats|pieces|items|editions|people)\b",
            r"\bfinal (?:week|weekend|day|days|hours|few days|call|chance)\b",
            r"\b(?:the|this is the) last (?:week|weekend|"
            r"day|days|few days) (?:of|to|before|for)\b",
            r"\b(?:will|would) (?:ever|never) (?:\w+ ){1,5}?again\b",
            r"\b(?:snapped up|get taken|go quickly|go fast|"
            r"disappear fast|sell out|sells out|book up|books up)\b",
            r"\b(?:will not|would not|is not going to|never) be another (?:chance|"
            r"opportunity|one|offer|deal|sale)\b",
            r"\bgone for good\b",
            r"\b(?:spaces|places|spots|seats|"
            r"tickets|availability|supplies|stocks|numbers) (?:are|is) (?:really |very |incredibly |super )?(?:tight|"
            r"scarce|limited|rare|few|short|low)\b",
            r"\bonly (?:on |available |open |running |valid )?(?:for |until |till |this |today|tonight)",
            r"\b(?:until|till) (?:the end of|\w+day|midnight|tonight|tomorrow)\b",
            r"\bnow or never\b",
            r"\bdeadline (?:is|of)\b",
            r"\b(?:expire|expires|expiring)\b",
            r"\b(?:will not|would not|are not|is not|never) (?:be )?(?:offering|offered|available|around|repeated|back|"
            r"come|coming|happen|happening|run|running) (?:\w+ ){0,2}?again\b",
            r"\bonce (?:a|per|every) (?:year|decade|lifetime)\b",
            r"\bonce (?:they|it) (?:are|is) gone\b",
            r"\bbefore (?:it is|they are|it has|they have) (?:gone|too late|sold|taken)\b",
            r"\bwaiting list (?:will be|is) (?:closed|full|closing)\b",
            r"\bexclusive\b",
            r"\bhard to (?:get|come by)\b",
            r"\bdoors close\b",
            r"\bclosing (?:soon|date)\b",
            r"\bearly-bird\b",
            r"\b(?:very few|hardly anyone|hardly anybody|not many people|few people) (?:ever )?(?:gets?|are|is) "
            r"(?:invited|chosen|selected|offered|accepted|given)\b",
            r"\bonly (?:a few|a handful|\d+|two|three) (?:of these |of them )?(?:are |were )?(?:ever )?(?:made|exist|"
            r"produced|printed|released)\b",
            r"\bwhen (?:it is|they are) gone\b",
            r"\bthe chance is gone\b",
        ),
        inside=False,
    ),
    *_frames(
        "consensus",
        (
            r"(?:^|[,;:] |\b(?:that|because|and|but|so|know|knew|see|seen|heard|notice|noticed|even|look|now|"
            r"honestly|actually|already|well|and|plus|also|like|what|where|thing|one|which|much|around|when) )(?:"
            + CONSENSUS_AGENT
            + r")\b(?! who \w+s\b)(?! (?:says?|thinks?|knows?|adores?|loves?|likes?|admires?) (?:that )?you\b)(?! (?:doctor|gp|dentist|vet|nurse|lawyer|accountant|adviser|advisor|physician)s?\b)"
            r"(?! (?:should|must|ought|needs? to|have to|has to|can|could|might|may)\b)"
            r"(?:,? \w+,?){0,3}? " + _VERBISH,
            r"\b(?:most|the most|very) popular\b",
            r"\b(?:" + PEER + r")'s (?:already|all|been|going|signed|joined|in)\b",
            r"\bevery one of (?:your|the|our|my) \w+",
            r"\b(?:go-to|favourite|favorite|top|number one|first|usual) (?:choice|"
            r"pick|option) (?:for|of|among) (?:most|many|all|lots of|\w+s)\b",
            r"\b(?:everyone|everybody) (?:adores|loves|likes)"
            r" (?:it|this|them)\b",
            r"\bthe most (?:downloaded|bought|visited|watched|read|used|shared|"
            r"liked|booked|requested|chosen|streamed|loved)\b",
            r"\bbest-?sell(?:er|ing)\b",
            r"\beveryone is talking about\b",
            r"\bjoin (?:the )?(?:millions|thousands|hundreds|many|rest|others)\b",
            r"\b(?:it is )?what (?:everyone|everybody|people|most people) (?:\w+ ){0,2}?(?:do|does|are doing)\b",
            r"\bin good company\b",
            r"\bloved by (?:\w+ )?(?:thousands|millions|many|everyone|everybody|people)\b",
            r"\bpopular with\b",
        ),
    ),
    *_frames(
        "authority",
        (
            r"\b(?:" + EXPERTS + r")\b(?:,? (?:\w+ ){0,6}?\w+,)? (?:\w+ ){0,4}?(?:" + _AUTH_VERBS + r")\b",
            r"\b(?:recommended|endorsed|approved|backed|certified|prescribed|supported|accredited|tested|developed|"
            r"designed|designed|run|used) by (?:\w+ ){0,3}?(?:" + EXPERTS + r"|the [a-z ]+)\b",
            r"\baccording to (?!(?:you|me|him|her|them|us|my (?:mum|dad|friends?|sister|brother)|your)\b)\w+",
            r"(?:^|[,;:] |\b(?:with|from|asked|checked with|consulted|spoke to|talked to) )(?:a |an |the |my |our |top |"
            r"leading |every |most )?(?:\w+ )?(?:experts?|doctors?|scientists?|researchers?|specialists?|physicians?|"
            r"surgeons?|professors?|nutritionists?|dietitians?|dentists?|pharmacists?|vets?|paramedics?|solicitors?|"
            r"lawyers?|gps?|consultants?)\b(?![^.?]*\?)(?![^,.;?]*\b(?:not|never)\b)",
            r"\bas a (?:\w+ )?(?:certified|qualified|registered|licensed|trained|practising|practicing)?\s?(?:doctor|nurse|"
            r"trainer|physio|physiotherapist|dentist|nutritionist|scientist|researcher|pharmacist|coach|teacher|"
            r"professional|expert|specialist|adviser|advisor|accountant|engineer|lawyer|paramedic)\b",
            r"\bi (?:have|had) been a (?:\w+ )?(?:doctor|nurse|trainer|physio|physiotherapist|dentist|nutritionist|"
            r"scientist|researcher|pharmacist|coach|teacher|adviser|advisor|accountant|engineer|lawyer|paramedic|"
            r"midwife|firefighter|vet)\b",
            r"\bi am a (?:qualified|certified|registered|licensed|trained) \w+",
            r"\bin my professional (?:opinion|experience)\b",
            r"\bwho is a (?:\w+ )?(?:doctor|nurse|physio|paramedic|"
            r"physiotherapist|dentist|nutritionist|scientist|researcher|pharmacist|surgeon|gp|specialist|professor|"
            r"dietitian|psychologist|therapist|midwife|vet|lawyer|accountant|engineer|economist|adviser|advisor)\b",
            r"\bi am a (?:\w+ )?(?:doctor|nurse|physio|"
            r"physiotherapist|dentist|nutritionist|scientist|researcher|pharmacist|adviser|advisor|paramedic|midwife|"
            r"vet|surgeon|gp|specialist|professor|dietitian|psychologist|therapist)\b",
            r"\b(?:people|those|folks) who (?:\w+ )?(?:study|research|treat|work on) (?:this|it|these)\b",
            r"\b(?:the )?(?:head|dean|director|chief|president) of (?:the )?(?:\w+ )?(?:school|hospital|clinic|"
            r"institute|department|society|association|college|university|board)\b",
            r"\bexpert(?:-approved|-backed|-designed| advice| opinion|"
            r"s say| consensus)\b",
            r"\b(?:clinically|scientifically|medically) (?:proven|tested|shown|approved)\b",
            r"\bevidence-based\b",
            r"\b(?:solid|clinical|scientific|strong|hard|medical|good) evidence\b",
            r"\bpeer-reviewed\b",
            r"\bofficially (?:partners?|endorsed|recommended|approved|backed|supports?|"
            r"accredited|certified)\b",
            r"\b(?:fire|ambulance|health|police|coastguard|coast guard) service\b",
            r"\bsurgeon general\b",
            r"\b(?:runs|heads|leads|directs|ran|headed|led) the (?:\w+ ){0,2}?(?:ward|department|"
            r"clinic|lab|laboratory|hospital|practice|unit|surgery|institute|programme|program)\b",
            r"\b(?:" + EXPERTS + r")'s (?:warning|advice|recommendation|guidance|verdict|report|"
            r"findings|position)\b",
            r"\bofficial (?:advice|guidance|guidelines|recommendation|position|line)\b",
            r"\b(?:approval|backing|endorsement|blessing|seal of approval|support) of (?:the |a |an |my |your )?(?:"
            + EXPERTS
            + r"|[\w ]{0,30}(?:board|council|agency|authority|service|ministry|department|society|"
            r"association|institute|foundation))\b",
            r"\bthe (?:health|medical) service\b",
            r"\bthe (?:research|science|evidence|data) (?:is|says|shows|backs)\b",
        ),
    ),
    *_frames(
        "commitment",
        (
            r"\byou (?:have |had )?(?:already |always |once |yourself |even |just )?(?:said|told me|mentioned|promised|"
            r"agreed|pledged|committed|vowed|swore|decided|wrote|were saying|have been saying|been saying|were keen|"
            r"were so keen|were excited|were so excited|asked (?:me )?about|wanted to|wanted|put your name|signed up "
            r"for|signed the|set yourself)\b",
            r"\byou (?:have|had) (?:already )?(?:done|started|paid|taken|made|completed|booked|registered|begun|come|"
            r"finished|signed|put in|invested|tried)\b(?! me)",
            r"\bsince you (?:have |are |already )",
            r"\byou have come this far\b",
            r"\bcome this far\b",
            r"\byou (?:have always been|are|were always|have been) (?:the kind of|the sort of|the type of|someone|"
            r"a person|somebody|the person) (?:\w+ )?(?:who|that)\b",
            r"\byour (?:goal|resolution|new year(?:'s)? resolution|promise|pledge|word|plan|values?|principles|"
            r"own words|commitment|dream|ambition|first step|target)\b",
            r"\b(?:stick to|keep to|stand by|follow through on|true to|keep) (?:what you|your)\b",
            r"\byou (?:really )?(?:care about|value|believe in|stand for|have always believed|always believed|"
            r"have always cared|have always wanted)\b",
            r"\bwhat you have always (?:believed|said|wanted)\b",
            r"\bin line with (?:your|what you)\b",
            r"\bconsistent with (?:your|what you)\b",
            r"\blast time (?:we spoke|we talked|we met|you)\b[^.]{0,30}\byou (?:agreed|said|told|promised)",
            r"\bexactly what you (?:were|have been) (?:asking|looking|hoping|talking|wishing)\b",
            r"\bas you (?:said|put it|told me)\b",
            r"\bmatters? (?:so much |a lot |most )?to you\b",
            r"\byou were the (?:one|first) (?:who|to)\b",
            r"\byou (?:have )?told (?:your \w+|them|him|her)\b",
            r"\byou (?:have )?been (?:wanting|hoping|meaning|planning|dying|itching) (?:to|for|this)\b",
            r"\b(?:the|a|that) (?:promise|pledge|commitment|vow|resolution|plan|deal) you made\b",
            r"\byou are always (?:telling|saying|talking about)\b",
            r"\byou (?:were going to|had planned to|planned to|intended to|meant to)\b",
            r"\byou (?:have )?been on the (?:\w+ )?(?:list|register)\b",
            r"\byou keep (?:telling|saying|talking)\b",
            r"\byou (?:have )?always (?:stood up for|cared about|believed in|fought for|said|been passionate|championed|"
            r"supported|been the one)\b",
            r"\byou made a (?:pledge|promise|commitment|vow|resolution|deal)\b",
            r"\b(?:always been|is|was) your (?:thing|passion|motto|rule|principle|mantra)\b",
            r"\byou (?:have |had )?told (?:everyone|everybody|me|us|people|"
            r"the whole)\b",
            r"\bwhat you (?:started|began|signed up for|committed to|set out to)\b",
            r"\bkeep going\b",
            r"\byou (?:have |had )?already (?:\w+ed|\w+en|done|begun|made|paid|taken|got|put|"
            r"bought|sent)\b",
            r"\byou (?:have been|were|keep) (?:talking|going on|saying|"
            r"dreaming|thinking) about\b",
            r"\byou did (?:say|promise|agree|mention|tell me|want)\b",
            r"\byou (?:already )?(?:took|made|did|booked|started|began|paid|signed|joined) (?:the|a|your) (?:\w+ )?"
            r"(?:first )?step\b",
            r"\byou already (?:took|made|did|booked|started|began|paid|signed|joined)\b",
            r"\byou are someone who\b",
            r"\bthe next step\b",
        ),
    ),
    *_frames(
        "liking",
        (
            r"\byou are (?:so |such |really |truly |genuinely |honestly |always |just |one of |the |a |an |my |very |absolute |"
            r"total |real |true |utter |complete |proper |an absolute )*"
            r"(?:great|brilliant|wonderful|amazing|fantastic|lovely|kind(?! of)|thoughtful|generous|talented|smart|"
            r"clever|bright|natural|star|legend|gem|sweetheart|hero|pro|pleasure|joy|inspiration|sweet|caring|helpful|"
            r"fun|funny|nice|organised|organized|strong|brave|reliable|dependable|loyal|good|best|favourite|"
            r"favorite|smartest|kindest|nicest|funniest|cleverest|wisest|warmest|strongest|bravest|friend|rock|"
            r"inspiring|impressive|awesome|excellent|gifted|capable|patient|considerate|wise|warm|beautiful|"
            r"gorgeous|charming|delight|treasure|asset)\b",
            r"\byou (?:have|have got|got) (?:such |a |an |real |great |brilliant |natural |lovely |good |the best |"
            r"wonderful |amazing |huge |big |kind |warm |golden )+(?:gift|talent|eye|way|knack|heart|smile|mind|"
            r"sense of humou?r|instinct|touch|energy)\b",
            r"\byou always (?:make|bring|light|cheer|know how|manage to|help)\b",
            r"\bi (?:really |truly |genuinely |just |have always |always )?(?:love|adore|like|admire|admired|"
            r"appreciate|value|respect|trust|enjoy)d? (?:\w+ ){0,2}?(?:you|your|our friendship|working with you|"
            r"spending time with you|having you)\b(?! to\b)",
            r"\bwe are (?:all )?(?:in this together|both|on the same (?:team|side|page)|in the same boat|alike|"
            r"so alike|a team|friends|family)\b",
            r"\byou and i (?:are|both|have|go back)\b",
            r"\bpeople like us\b",
            r"\bwe (?:grew up|go back|look out for each other|have so much in common|have a lot in common|"
            r"both know|both love|both care)\b",
            r"\blook out for each other\b",
            r"\b(?:so much )?fun together\b",
            r"\b(?:our|my) friendship\b",
            r"\bas (?:your|a) friend\b",
            r"\b(?:my|a) (?:best|good|dear|old) friend\b",
            r"\ba pleasure (?:spending time with|working with|to work with|seeing|having) you\b",
            r"\byou would be (?:so |really |absolutely )?(?:brilliant|great|perfect|amazing|fantastic|wonderful|a "
            r"natural|so good|good|excellent) (?:at|in|for)\b",
            r"\bi am (?:so )?(?:proud of|lucky to have) you\b",
            r"\byou (?:have (?:always )?been|were always|always were|have always been) (?:so |such |really |a |an |"
            r"truly |the )*(?:good|great|kind|brilliant|wonderful|generous|reliable|loyal|thoughtful|supportive|caring|"
            r"patient|fun|lovely|amazing|fantastic|helpful|best)\b",
            r"\bwe make (?:a|such a|the) (?:\w+ )?(?:team|pair|"
            r"duo|couple)\b",
            r"\byou are (?:really |so |very |just )?(?:easy|fun|great|lovely|a joy|a pleasure) to (?:talk "
            r"to|be around|work with|get on with|be with)\b",
            r"\byou are (?:\w+ ){0,2}?the (?:most (?!annoying|irritating|stubborn|selfish|difficult)\w+|\w+est|best)"
            r"\b",
            r"\bwe (?:think|are) (?:so |very |really )?alike\b",
            r"(?:^|, )you and (?:me|i)$",
            r"\bbetween (?:friends|us|you and me)\b",
            r"\blook(?:ed|ing)? up to you\b",
            r"\btwo of a kind\b",
            r"\blike you do\b",
            r"\bi would (?:trust|do anything for|follow) you\b",
            r"\bbeen through (?:so much|a lot|"
            r"everything|it all) together\b",
            r"\bfeel (?:better|happier|good) (?:after|when) (?:talking to|seeing|being with)"
            r" you\b",
            r"\b(?:everyone|everybody) (?:adores|loves|likes|admires) you\b",
            r"\byou are (?:so |really |such )?(?:much )?fun to be (?:around|with)\b",
            r"\bwe (?:have )?(?:known|had|got|understood) each other\b",
            r"\byou (?:always )?make (?:\w+ ){0,3}?(?:better|brighter|happier|more fun|special)\b",
            r"\b(?:a )?friend like you\b",
            r"\beach other(?:'s| is)? backs?\b",
            r"\b(?:i|we) can (?:always )?"
            r"(?:count on|rely on|depend on|trust) you\b",
            r"\bwe (?:have )?been (?:friends|mates|pals|close) (?:since|for)\b",
            r"\byou (?:have|have got|got) the \w+est \w+\b",
            r"\bsomeone as (?:\w+ )?(?:kind|smart|talented|generous|lovely|thoughtful|capable) as you\b",
        ),
    ),
]
assert {f.principle for f in FRAMES} == set(PRINCIPLES)

__all__ = ["CONCERN_CUES", "DEADLINE", "FRAGMENT_KEYWORDS", "FRAGMENT_WORDS", "EXPERTS", "FRAMES", "Frame"]
