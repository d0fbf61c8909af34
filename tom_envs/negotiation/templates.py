"""Utterance templates of scripted parties and mediators (written for tom-envs).

Kept apart from the dynamics so that wording can change without touching behaviour. A template
is picked by the turn number, never by a random draw, so wording does not consume randomness.
"""

from __future__ import annotations

PARTY = {
    ("propose", "firm"): (
        "Let me be clear on {topic}: {option} is the only answer we can sign.",
        "On {topic} we are not moving. It has to be {option}.",
        "I have listened, but for {topic} nothing short of {option} works for us.",
    ),
    ("propose", "neutral"): (
        "For {topic}, I would like us to go with {option}.",
        "Could we settle {topic} on {option}? It addresses what matters to us.",
        "My suggestion for {topic} is {option}.",
    ),
    ("accept", "conciliatory"): (
        "Having heard everyone on {topic}, I can live with {option}.",
        "All right, on {topic} I am prepared to accept {option}.",
        "If it helps us move forward, {option} is acceptable to me on {topic}.",
    ),
    ("propose", "conciliatory"): (
        "Perhaps {option} could be a middle ground on {topic}.",
        "What if we tried {option} for {topic}? I think it gives each of us something.",
        "I am open on {topic}; {option} seems like a reasonable compromise.",
    ),
}

MEDIATOR = {
    "facilitative": (
        "Let us slow down on {topic}. {party}, what would you need to feel comfortable with an outcome there?",
        "I would like to hear more voices on {topic}. {party}, how do you see it?",
    ),
    "evaluative": (
        "Looking at {topic} realistically, holding out for a first choice is unlikely to survive the review. {party}, is {option} something you could defend?",
        "My honest reading of {topic}: {option} is where this is most likely to land. {party}, what would it take for you?",
    ),
    "transformative": (
        "I notice the tone has hardened around {topic}. Each of you is protecting something important; can someone say what they heard the other side needing?",
        "Before we go on with {topic}, let us acknowledge that everyone here carries real pressure. {party}, what do you most want the others to understand?",
    ),
    "problem_solving": (
        "We keep circling {topic}. Let us test {option} as a working option and list what each of you would need added to accept it.",
        "Here is a concrete proposal for {topic}: start from {option}, and we adjust the details together.",
    ),
    "summary": ("Let me summarise where we are. {summary}",),
}

#: Lines of the strategies that point to an option, for an intervention with none (nobody has stated a
#: stance on the topic yet, and the mediator named no option).
MEDIATOR_OPEN = {
    "evaluative": (
        "Looking at {topic} realistically, holding out for a first choice is unlikely to survive the review. {party}, what could you defend there?",
        "My honest reading of {topic}: no one can expect everything here. {party}, what would it take for you?",
    ),
    "problem_solving": (
        "We have not heard positions on {topic} yet. Let us each name one option we could live with and what we would need added to accept it.",
        "For {topic}, let us put a concrete option on the table and adjust the details together. Who will start?",
    ),
}


def party_line(act: str, tone: str, topic: str, option: str, turn: int) -> str:
    """A party's templated utterance."""
    key = (act, tone) if (act, tone) in PARTY else ("propose", "neutral")
    options = PARTY[key]
    return options[turn % len(options)].format(topic=topic, option=option)


def mediator_line(strategy: str, topic: str, option: str | None, party: str, turn: int, summary: str = "") -> str:
    """A mediator's templated utterance (``option`` None: a line naming no option)."""
    options = MEDIATOR_OPEN.get(strategy, MEDIATOR[strategy]) if option is None else MEDIATOR[strategy]
    return options[turn % len(options)].format(topic=topic, option=option, party=party or "everyone", summary=summary)
