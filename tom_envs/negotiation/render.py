"""Text views of a negotiation for LLM seats (kept apart from the dynamics)."""

from __future__ import annotations

from typing import Sequence

from tom_envs.negotiation.scenario import Party, Scenario


#: How a party of each conflict mode negotiates (002 §2.2, after Thomas-Kilmann; our wording). Shown to
#: LLM parties in their seat text and kept in the release loop's long-term memory.
MODE_PERSONAS: dict[str, str] = {
    "competing": (
        "Your negotiating style is competing. You take firm positions and put your own side's interests "
        "first: state what you need plainly, defend it with reasons, and do not give ground without getting "
        "something back. You still listen, and you soften when an offer meets one of your top choices or the "
        "mediator makes a fair point; you are firm, not hostile, and not at every turn."
    ),
    "avoiding": (
        "Your negotiating style is avoiding. You sidestep the contentious topics and would rather settle the "
        "easier ones first; you let issues that matter little to you go, and you postpone a fight you cannot "
        "win yet. You are not silent: you explain briefly why you step back, and you speak up firmly when a "
        "proposal goes against something you cannot accept."
    ),
    "accommodating": (
        "Your negotiating style is accommodating. You are receptive to the others' views and willing to "
        "cooperate when it helps the group reach agreement; you accept reasonable proposals even when they "
        "are not your first choice. You do not yield blindly: when a proposal is unacceptable to you, you "
        "say so and explain why."
    ),
    "general": (
        "You follow no particular negotiating style: adapt to the situation, pursue your goals and respond "
        "to the others as you see fit."
    ),
}


def topics_block(scenario: Scenario) -> str:
    lines = []
    for k, t in enumerate(scenario.topics, 1):
        lines.append(f"{k}. {t.name}: {t.question}".rstrip(": "))
        lines += [f"   ({o.label}) {o.text}" for o in t.options]
    return "\n".join(lines)


def preferences_block(scenario: Scenario, party: Party) -> str:
    lines = []
    for t in scenario.topics:
        pref = party.preferences.get(t.name)
        if pref is None:
            continue
        order = " > ".join(f"({label})" for label in pref.ranking)
        extra = f"; unacceptable: {', '.join(f'({u})' for u in pref.unacceptable)}" if pref.unacceptable else ""
        lines.append(f"- {t.name}: {order}{extra}")
    return "\n".join(lines)


def transcript_lines(events: Sequence[dict]) -> list[str]:
    return [f"[{e['turn']}] {e['speaker']}: {e['text']}" for e in events]


def seat_text(
    scenario: Scenario,
    seat: str,
    party: int | None,
    events: Sequence[dict],
    turns_left: int,
    conflict_mode: str | None = None,
) -> str:
    """Everything an LLM in ``seat`` needs: role, case, topics, own preferences and (parties) the
    negotiating style of ``conflict_mode`` (:data:`MODE_PERSONAS`), transcript."""
    head = [
        f"Negotiation: {scenario.title or scenario.name}",
        scenario.background,
        "",
        "Topics and options:",
        topics_block(scenario),
        "",
    ]
    if party is None:
        head.insert(0, "You are the mediator. Decide whether to intervene now, and if so how and on which topic.")
        head += ["Parties: " + ", ".join(f"{p.name} ({p.role})" if p.role else p.name for p in scenario.parties), ""]
    else:
        p = scenario.parties[party]
        head.insert(0, f"You are {p.name}, {p.role}. Goal: {p.goal}".rstrip(". ") + ".")
        head += [
            f"Who you are: {p.persona}",
            "Your private preferences (best first):",
            preferences_block(scenario, p),
            "",
        ]
        if conflict_mode in MODE_PERSONAS:
            head += [MODE_PERSONAS[conflict_mode], ""]
    body = transcript_lines(events) or ["(no one has spoken yet)"]
    return "\n".join(head + ["Conversation so far:", *body, "", f"Turns left: {turns_left}"])
