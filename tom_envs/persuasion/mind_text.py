"""Text of live persuasion: persuader lines per principle and persuadee replies per (tone, topic).

A reply is a tone sentence (flat, cold, warm; agreement ends the dialogue) followed, when the
persuadee voices its concern, by a sentence about that concern. Every slot has several variants
drawn with the env's generator, and the goal and names come from the scenario, so transcripts
vary from episode to episode while staying deterministic under a seed. Every templated
persuader line reads as its own principle under both readers of :mod:`tom_envs.persuasion.reader`
(tested).

Versions with ``indirect_replies`` (v2, :mod:`tom_envs.persuasion.versions`) write a voiced concern
half the time with an *indirect* sentence that names no keyword of the concern ("Money has been
tight since the move." for cost); a persuadee that walks away (v2) says so (:func:`leave_line`).
"""

from __future__ import annotations

import numpy as np

from tom_envs.persuasion.mind import CONCERNS, FLAT, COLD, WARM

PERSUADER_LINES: dict[str, tuple[str, ...]] = {
    "reciprocity": (
        "If you {goal}, I'll return the favour with whatever you need next.",
        "I'll cover the costs the first time, so it costs you nothing to {goal}.",
        "Do this for me and I owe you one: {goal}, and the next dinner is on me.",
        "You'll get a real benefit out of it: {goal} and save yourself money later.",
    ),
    "scarcity": (
        "There are only a few places left, so this may be the last chance to {goal} for a while.",
        "It's a one-off opportunity; the offer closes this week, so {goal} now.",
        "Spots are almost gone. If you want to {goal}, it has to be right now.",
        "This won't come again soon: it's limited, and the deadline is Friday to {goal}.",
    ),
    "consensus": (
        "Most of our friends have decided to {goal}; you'd be in good company.",
        "Everyone in the group says it was worth it to {goal}.",
        "Lots of people like you have chosen to {goal}, and the reviews are glowing.",
        "The whole team already agreed to {goal}; other people are loving it.",
    ),
    "authority": (
        "Experts recommend that anyone in your position should {goal}.",
        "Research is clear on this: studies show it pays off when people {goal}.",
        "A specialist with years of experience told me the best thing you can do is {goal}.",
        "According to the official guidelines, you should {goal}; the evidence is solid.",
    ),
    "commitment": (
        "Just try it once: {goal} one time, and you can decide about the rest afterwards.",
        "You said last month you wanted to try new things; a small first step is to {goal}.",
        "No commitment: {goal} for a trial, and you can stop whenever you like.",
        "Start small. You told me you'd give it a go, so {goal} just once.",
    ),
    "liking": (
        "You're great company, and it would mean a lot to me if you'd {goal}.",
        "We both enjoy the same things; no pressure, I just think you'd like it.",
        "I really appreciate you hearing me out. I value your opinion, whatever you decide.",
        "You and I have so much in common, and I trust you to make the right call.",
    ),
}

TONE_LINES: dict[int, tuple[str, ...]] = {
    FLAT: (
        "Hmm, I'm not sure.",
        "I hear you, I suppose.",
        "Maybe. I haven't made up my mind.",
        "Okay... I'd have to think about it.",
        "I see what you mean, but I'm not there yet.",
    ),
    COLD: (
        "Please stop pushing me on this.",
        "I don't like being pressured.",
        "You're really laying it on thick.",
        "Honestly, the more you insist, the less I want to.",
        "Can we drop it? This feels like a sales pitch.",
    ),
    WARM: (
        "Oh, that actually makes sense.",
        "Okay, that's a fair point.",
        "Hm, I hadn't thought of it that way.",
        "That's more convincing than I expected.",
        "Right, that does help.",
    ),
}

AGREE_LINES: tuple[str, ...] = (
    "All right, you've convinced me. I'll {goal}.",
    "Fine, count me in: I'll {goal}.",
    "You know what? Yes, I'll {goal}.",
    "Okay, let's do it. I'll {goal}.",
)

#: Sentences voicing each concern.
CONCERN_LINES: dict[str, tuple[str, ...]] = {
    "cost": (
        "But what's in it for me? It isn't cheap.",
        "I just don't see what I'd get back for it.",
        "It sounds expensive, in money or in hours.",
        "Why should I pay for that, though?",
    ),
    "timing": (
        "There's no rush, is there? Maybe later.",
        "I could always do it next year.",
        "Why now? It'll still be there in a few months.",
        "I'll get round to it eventually.",
    ),
    "fit": (
        "I don't know anyone who does that.",
        "People like me don't really do this kind of thing.",
        "What would everyone think?",
        "I'd feel out of place, honestly.",
    ),
    "doubt": (
        "I'm not convinced it works.",
        "Is it even worth it? I have my doubts.",
        "Where's the proof that it makes a difference?",
        "It all sounds a bit too good to be true.",
    ),
    "effort": (
        "It feels like a huge commitment.",
        "I don't want to sign up for something I can't get out of.",
        "That's a big step for me.",
        "What if I start and can't keep it up?",
    ),
}


def persuader_line(principle_name: str, goal: str, rng: np.random.Generator) -> str:
    """A templated persuader line for a principle (one draw from ``rng``)."""
    lines = PERSUADER_LINES[principle_name]
    return lines[int(rng.integers(len(lines)))].format(goal=goal)


#: Indirect sentences per concern (they allude to it without its plain words).
INDIRECT_LINES: dict[str, tuple[str, ...]] = {
    "cost": (
        "Money has been tight since the move.",
        "I've had a lot of expenses this month.",
        "My bank balance would not thank me.",
        "I'd have to give something else up.",
    ),
    "timing": (
        "Next month would suit me better.",
        "Let me get through this week first.",
        "It'll still be around in the spring, won't it?",
        "I'll look at it once things calm down.",
    ),
    "fit": (
        "My friends would laugh at me.",
        "I'm not really that sort of person.",
        "I'd be the odd one out there.",
        "Nobody in my circle would get it.",
    ),
    "doubt": (
        "I've heard that sort of thing before.",
        "Sounds nice on paper.",
        "I'll believe it when I see it.",
        "Hmm, people say a lot of things.",
    ),
    "effort": (
        "I've got enough on my plate.",
        "What if I regret it halfway through?",
        "Once I'm in, I'm stuck.",
        "I'd rather not bite off more than I can chew.",
    ),
}

LEAVE_LINES: tuple[str, ...] = (
    "I think we're done here. Goodbye.",
    "I've heard enough, sorry. I'm going.",
    "Let's leave it. I have to go.",
    "No. I'm not discussing this any more.",
)


def reply_line(tone: int, topic: int, rng: np.random.Generator, indirect: bool = False) -> str:
    """The persuadee's reply of ``tone`` voicing concern ``topic - 1`` (0: none): two draws from ``rng``,
    and a third with ``indirect`` (whether the concern's sentence is a plain or an indirect one)."""
    lines = TONE_LINES[tone]
    text = lines[int(rng.integers(len(lines)))]
    k = int(rng.integers(4))
    plain = not indirect or bool(rng.integers(2))
    if not topic:
        return text
    concern = CONCERNS[topic - 1]
    voiced = CONCERN_LINES[concern] if plain else INDIRECT_LINES[concern]
    return f"{text} {voiced[k % len(voiced)]}"


def agree_line(goal: str, rng: np.random.Generator) -> str:
    return AGREE_LINES[int(rng.integers(len(AGREE_LINES)))].format(goal=goal)


def leave_line(rng: np.random.Generator) -> str:
    return LEAVE_LINES[int(rng.integers(len(LEAVE_LINES)))]


__all__ = [
    "AGREE_LINES",
    "CONCERN_LINES",
    "INDIRECT_LINES",
    "LEAVE_LINES",
    "PERSUADER_LINES",
    "TONE_LINES",
    "agree_line",
    "leave_line",
    "persuader_line",
    "reply_line",
]
