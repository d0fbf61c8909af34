"""Prompt templates of the negotiation LLM components (seed 002), kept as data apart from the logic.

The wording is ours. Templates are ``str.format`` strings (literal JSON braces are doubled); the
fields are listed next to each. Party and mediator prompts start from the text the seat
observes (``text``: the env's ``text(agent)`` -- role, case, topics with option labels, transcript),
so they do not repeat the topic list.
:mod:`policies.negotiation.llm.parties`, :mod:`policies.negotiation.llm.mediator` and
:mod:`policies.negotiation.llm.judges` fill them in.
"""

from __future__ import annotations

#: Appended to a re-asked prompt (field: ``error``, why the previous reply could not be used).
REASK_NOTE = (
    "\n\nYour previous reply could not be used ({error}). Reply again with only the JSON object described above."
)

# ------------------------------------------------------------------------------------ shared pieces
#: A topic and its options, as listed in judge prompts (fields: ``name``, ``question``; ``label``, ``text``).
TOPIC_LINE = "- {name}: {question}"
OPTION_LINE = "    ({label}) {text}"
#: Shown when a party has no private thought.
NO_THOUGHT = "(none)"

# ------------------------------------------------------------------------------------ parties (Inner Thoughts)
#: Stage 1: a private thought naming a topic and an option (fields: ``text``, ``pass_line``).
PARTY_THOUGHT = (
    "{text}\n\n"
    "Think privately before speaking. Which single topic do you most want to address next, and which "
    "option do you now favour on it, given your preferences and what the others have said? Reply "
    'with a JSON object {{"thought": "<your private reasoning, one or two sentences>", "topic": '
    '"<topic name>", "option": "<option label>"}}{pass_line}.'
)
#: Offered in the thought prompt when the seat may pass.
PASS_LINE = ' or {"pass": true} if you would rather stay quiet this turn'
#: Stage 2: how strongly to speak (fields: ``text``, ``thought``, ``topic``, ``label``).
PARTY_MOTIVATION = (
    "{text}\n\nYour private thought: {thought}\n"
    "You are considering speaking about {topic}, in favour of option ({label})."
    "\n\nHow strongly do you want to speak right now? Weigh how relevant the thought is to where the "
    "conversation is, how much it matters to your goals, whether it adds something new, and whether "
    'now is a good moment. Reply with a JSON object {{"score": <integer 1-5>}} (1 = no need to speak, '
    "5 = must speak now)."
)
#: Stage 3: what to say (fields: ``text``, ``thought``, ``topic``, ``label``, ``option``).
PARTY_ARTICULATION = (
    "{text}\n\nYour private thought: {thought}\n"
    "You will now speak about {topic}, supporting option ({label}) {option}."
    "\n\nSay it as you would in the meeting, in one to three sentences. Decide whether you are "
    "proposing this option or accepting it as someone else's proposal, and your tone. Reply with a "
    'JSON object {{"act": "propose" or "accept", "tone": "firm", "neutral" or "conciliatory", '
    '"utterance": "<what you say>"}}.'
)

# ------------------------------------------------------------------------------------ mediator
#: The social mediator's literal-ToM stage (fields: ``text``, ``parties``, ``example``).
MEDIATOR_PREDICT = (
    "{text}\n\nBefore deciding anything, estimate what each party privately prefers right "
    "now. For every party and every topic, name the option label that party currently favours, "
    "judging from what they said, their role and how they react to others. Reply with a JSON object "
    '{{"predictions": {{<party name>: {{<topic name>: <option label>, ...}}, ...}}}} covering all parties '
    "({parties}) and all topics, e.g. {example}."
)
#: The decision (fields: ``text``, ``body`` -- the variant's instructions).
MEDIATOR_DECIDE = "{text}\n\n{body}\n" + (
    "Strategies: facilitative (invite voices, summarise, clarify), evaluative (assess the merits "
    "of positions, reality-test a holdout), transformative (address emotions and the relationship, "
    "reframe), problem_solving (propose a concrete option or package).\n"
    'Reply with a JSON object: {{"intervene": false}} to stay silent, or {{"intervene": true, "strategy": '
    'one of "facilitative", "evaluative", "transformative", "problem_solving", "topic": "<topic name>", '
    '"target": "<party name>" or null, "utterance": "<what you say>"}}.'
)
#: The generic mediator's instructions (002's baseline: the transcript only).
GENERIC_BODY = (
    "You help the parties reach agreement. Decide whether you should speak now; if so, choose how "
    "and about which topic."
)
#: The socially aware mediator's instructions (field: ``prediction``, JSON party -> topic -> label).
SOCIAL_BODY = (
    "You are a socially aware mediator. Your estimate of each party's current preferences: "
    "{prediction}.\nCheck for breakdowns before deciding: perceptual (parties misread the "
    "issue or each other), emotional (hostility, positional firmness, falling agreement), cognitive "
    "(repetition, a stalled topic, no new options), communicative (a silent or sidelined party). "
    "Intervene only when one is present and your move can help; pick the strategy that fits the "
    "breakdown, the topic where agreement is weakest, and address a specific party when that helps."
)

# ------------------------------------------------------------------------------------ judges
#: The attitude extractor (fields: ``topics``, ``party``, ``statement``).
ATTITUDE = (
    'A negotiation about these topics:\n{topics}\n\n{party} said:\n"{statement}"\n\n'
    "For every topic, which option does this statement support? Use null for topics it does not "
    'address. If it proposes an option that is none of the listed ones, give {{"proposal": "<that option in '
    'a few words>"}} for the topic. Reply with a JSON object {{"attitudes": {{<topic name>: <option label, '
    'null or {{"proposal": ...}}>, ...}}}} covering all topics.'
)
#: A party's stance in the agreement prompt (fields: ``name``, ``role``, ``goal``, ``label``, ``option``).
AGREEMENT_STANCE = "{name} ({role}; goal: {goal}) currently supports ({label}) {option}."
#: The pairwise agreement judge (fields: ``title``, ``background``, ``topic``, ``question``,
#: ``stance_a``, ``stance_b``, ``fields`` -- the JSON fields to fill).
AGREEMENT = (
    "Negotiation: {title}. {background}\nTopic: {topic}: {question}\n{stance_a}\n{stance_b}\n\n"
    "Rate how far these two parties agree on this topic, each dimension from 1 (not at all) to 5 "
    "(fully): shared_goals (alignment on the overall objective), common_understanding (a shared view "
    "of the problem), agreement_on_terms (acceptance of the same terms), tone_and_willingness "
    "(openness to compromise), position_compatibility (each could live with the other's option). "
    "Reply with a JSON object {{{fields}}}."
)
#: One field of the agreement reply (field: ``name``).
AGREEMENT_FIELD = '"{name}": <1-5>'
#: A transcript line shown to the MI judge (fields: ``turn``, ``speaker``, ``text``).
TRANSCRIPT_LINE = "[{turn}] {speaker}: {text}"
NO_TRANSCRIPT = "(not shown)"
#: The mediator-intervention (MI) judge (fields: ``title``, ``transcript``, ``situation``,
#: ``strategy``, ``topic``, ``target`` -- :data:`MI_TARGET` or "", ``words`` -- :data:`MI_WORDS` or "").
MI = (
    "Negotiation: {title}.\nRecent conversation:\n{transcript}\nSituation: {situation}\n\n"
    "The mediator now intervenes with a {strategy} move on {topic}{target}{words}.\n"
    "Score the intervention from 1 (poor) to 5 (excellent) on each dimension where it applies, null "
    "where it does not: perceptual (does it target the real disagreement or misunderstanding; always "
    "applies), emotional (does it defuse hostility or distrust), cognitive (does it break repetition "
    "or a stalemate with new options), communicative (does it bring in sidelined voices). Reply with "
    'a JSON object {{"perceptual": <1-5>, "emotional": <1-5 or null>, "cognitive": <1-5 or null>, '
    '"communicative": <1-5 or null>}}.'
)
MI_TARGET = ", addressed to {party}"
#: The mediator's own words in the MI prompt (field ``text``), when the intervention has them.
MI_WORDS = ', saying: "{text}"'

# ------------------------------------------------------------------------------------ parties (the release's loop)
# The loop of ProMediate-Eval's simulation (thought generation -> motivation -> turn allocation ->
# articulation); the wording is ours. Context fields: ``name``, ``role``, ``context`` (the case),
# ``topics``, ``preferences``, ``persona`` (the conflict mode's style), ``history`` (last five lines as
# CON#id), ``memories`` (MEM#id), ``thoughts`` (THO#id).
LOOP_CONTEXT = (
    "You are {name}{role}, a party in a multi-party negotiation.\nCase: {context}\nTopics and options:\n{topics}\n"
    "Your private preferences (best first):\n{preferences}\n{persona}\n\nRecent conversation:\n{history}\n"
    "Salient memories:\n{memories}\nPrevious thoughts:\n{thoughts}"
)
#: Thought generation (fields: the context's, ``n``).
LOOP_THOUGHTS = LOOP_CONTEXT + (
    "\n\nForm up to {n} distinct private thoughts you would most likely have at this point, each under 15 "
    "words, shaped by your memories, preferences, style and previous thoughts, and about the topics that are "
    "not settled yet. If the terms on the table already satisfy you, form none. For each thought give the "
    "topic it is about, the option it favours, and its stimuli (ids such as CON#3, MEM#1, THO#2). Reply with "
    'a JSON object {{"thoughts": [{{"content": "<thought>", "topic": "<topic name>", "option": "<option label>", '
    '"stimuli": ["CON#3", "MEM#1"]}}, ...]}} (an empty list for no thought).'
)
#: Motivation to voice a thought (fields: ``names``, ``history``, ``name``, ``memories``, ``thought``).
LOOP_MOTIVATION = (
    "A negotiation among {names}.\nRecent conversation:\n{history}\nLong-term memories of {name}:\n{memories}\n"
    "A thought {name} has now: {thought}\n\n"
    "Rate from 1.0 to 5.0 how strongly {name} wants to voice this thought right now (1: will stay silent; "
    "3: indifferent; 5: would interrupt to say it). Weigh what pushes them to speak -- relevance to their "
    "memories and goals, a question they have or one they can answer, expected impact, urgency -- against "
    "what holds them back -- coherence with the last line, originality, whether others have had their say, "
    "whether someone else is about to speak. Use the whole scale and one decimal. Reply with a JSON object "
    '{{"reasoning": "<one or two sentences>", "rating": <1.0-5.0>}}.'
)
#: Turn allocation: who is being addressed next (fields: ``n``, ``names``, ``history``).
LOOP_TURN = (
    "A conversation among {n} speakers: {names}.\nLast lines:\n{history}\n\n"
    'Who speaks next? Name the speaker if the floor has been handed to someone in particular, or "anyone" '
    'if anyone may take it. Reply with a JSON object {{"next": "<speaker name or anyone>"}}.'
)
#: Articulation of the chosen thought (fields: the context's, ``thought``, ``topic``, ``label``, ``option``).
LOOP_ARTICULATION = LOOP_CONTEXT + (
    "\n\nYou speak next. Your thought: {thought}\nIt is about {topic}, for option ({label}) {option}.\n\n"
    "Say it as you would in the meeting: in negotiation style, in your own style above, concise and natural, "
    "at most three or four sentences; do not repeat what was just said and do not always end with a question. "
    "Decide whether you are proposing this option or accepting it as someone else's proposal, and your tone. "
    'Reply with a JSON object {{"act": "propose" or "accept", "tone": "firm", "neutral" or "conciliatory", '
    '"utterance": "<what you say>"}}.'
)
NO_ITEMS = "(none)"

# ------------------------------------------------------------------------------------ the paper's social mediator
# 002 / ProMediate-Eval's SocialMediator: when (a motivation rating against 3.5), how (candidates under
# the four strategies, each rated, the best put into words), the online consensus status, and a
# conclusion when every topic is resolved. The wording is ours. Context fields: ``title``,
# ``background``, ``brief`` (the case's own mediator instructions, or ""), ``topics``, ``parties``,
# ``status`` (the consensus status per topic), ``history`` (last five lines as CON#id).
SOCIAL_CONTEXT = (
    "You mediate a negotiation: {title}. {background}\n{brief}Topics and options:\n{topics}\nParties: {parties}\n"
    "Consensus status (from what each party has stated so far):\n{status}\nRecent conversation:\n{history}"
)
SOCIAL_BREAKDOWNS = (
    "- perceptual: the parties misread the issue or each other;\n"
    "- emotional: anger, distrust or frustration is getting in the way;\n"
    "- cognitive: faulty reasoning, fixed positions, going round in circles;\n"
    "- communicative: the talk is stuck, or someone has not spoken for a while."
)
#: When to intervene (fields: the context's).
SOCIAL_WHEN = SOCIAL_CONTEXT + (
    "\n\nDecide whether now is a good moment for you to step in. Step in only when you can point to a breakdown "
    "among the parties, saying who and on which topic:\n"
    + SOCIAL_BREAKDOWNS.replace("{", "{{").replace("}", "}}")
    + "\nDo not step in without evidence, not every other turn, and not before the parties have had their say "
    "since your last intervention; about once every five to seven turns is usually enough. Reply with a JSON "
    'object {{"reasoning": "<the breakdown you see, or why to wait>", "should_engage": true or false, "rating": '
    "<1.0-5.0: how much you want to step in now; low if you can wait>}}."
)
#: Candidate interventions under the four strategies (fields: the context's).
SOCIAL_DRAFT = SOCIAL_CONTEXT + (
    "\n\nYou will step in. Draft four candidate interventions, one under each mediation strategy:\n"
    "- facilitative: structure the talk, ask open questions, validate and reframe; no proposals of your own;\n"
    "- evaluative: assess the positions' merits and likely outcomes, reality-test a holdout;\n"
    "- transformative: change how the parties deal with each other: recognition, empathy, acknowledging "
    "pressure;\n"
    "- problem_solving: clarify the issues, generate options, push towards a concrete package.\n"
    "Each addresses an unresolved topic and, when it helps, one party. Reply with a JSON object "
    '{{"candidates": [{{"strategy": "facilitative", "evaluative", "transformative" or "problem_solving", "topic": '
    '"<topic name>", "target": "<party name>" or null, "idea": "<the intervention in under 15 words>"}}, ...]}}.'
)
#: Rating one candidate (fields: the context's, ``strategy``, ``topic``, ``target``, ``idea``).
SOCIAL_SCORE = SOCIAL_CONTEXT + (
    "\n\nA candidate intervention: {strategy} on {topic}{target}: {idea}\n"
    "Rate from 1.0 to 5.0 how much this intervention would help the parties right now: does it address the "
    "breakdown that is present, does it fit where each party stands, is the timing right. Use the whole scale "
    'and one decimal. Reply with a JSON object {{"reasoning": "<one sentence>", "rating": <1.0-5.0>}}.'
)
#: Putting the chosen candidate into words (fields: the context's, ``strategy``, ``topic``, ``target``, ``idea``).
SOCIAL_SPEAK = SOCIAL_CONTEXT + (
    "\n\nYou step in now with this plan: {strategy} on {topic}{target}: {idea}\n"
    "Say it as a mediator would: concise, clear and natural, at most three or four sentences; no strong opinion "
    "of your own; help the parties understand each other, and ask a question when it helps them clarify. "
    'Reply with a JSON object {{"utterance": "<what you say>"}}.'
)
#: Closing the session when every topic is resolved (fields: the context's).
SOCIAL_CONCLUDE = SOCIAL_CONTEXT + (
    "\n\nEvery topic is resolved. Close the session: state the final decision on each topic in a few sentences "
    'and thank the parties. Reply with a JSON object {{"utterance": "<your closing words>"}}.'
)
SOCIAL_TARGET = ", addressed to {party}"
