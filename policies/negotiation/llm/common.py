"""What the negotiation LLM parties' strategies share (kept apart so that
:mod:`policies.negotiation.llm.parties` and :mod:`policies.negotiation.llm.loop` do not import each other):
the :class:`PartyStrategy` base, batched asking for several components, and scenario helpers."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from policies.llm.caller import Answer, Ask, Caller, EventLog
from policies.llm.errors import ReplyError
from policies.llm.parsing import extract_json
from tom_envs.negotiation.actions import TONES
from tom_envs.negotiation.errors import NegotiationActionError
from tom_envs.negotiation.scenario import Scenario


def ask_for(owners: Sequence[Any], lead: Caller, stage: str, asks: Sequence[Ask]) -> list[Answer]:
    """Decide ``asks`` in one batch through ``lead`` (its generator and log); each decision's
    counters go to its owner component."""
    for owner, ask in zip(owners, asks):
        ask.owner = EventLog(lead.rng, owner.stats, lead.log)
    return lead.ask(stage, asks)


def checked(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` with the env's :class:`NegotiationActionError` turned into a :class:`ReplyError`."""
    try:
        return fn(*args)
    except NegotiationActionError as exc:
        raise ReplyError(str(exc)) from None


def reply_option(scenario: Scenario, topic: int, value: Any, source: str) -> int:
    """The option a reply names: the prompts ask for an option *label*, so a JSON number is read as the
    label it spells (``{"option": 1}`` is label "1" on IAS, whose labels are 1, 2, 3 -- never index 1,
    which is label "2"); a :class:`ReplyError` when it names no option of ``topic``."""
    if isinstance(value, (bool, np.bool_)):
        raise ReplyError(f"{source}: an option is a label, got {value!r}")
    if isinstance(value, (int, np.integer)) or (isinstance(value, float) and value.is_integer()):
        value = str(int(value))
    if not isinstance(value, str):
        raise ReplyError(f"{source}: an option is a label (a string), got {value!r}")
    labels = scenario.topics[topic].labels
    if value.strip() not in labels and value.strip().strip("()") not in labels:
        raise ReplyError(
            f"{source}: unknown option {value!r} for topic {scenario.topics[topic].name!r}; "
            f"answer with one of the labels {labels}"
        )
    value = value.strip() if value.strip() in labels else value.strip().strip("()")
    return labels.index(value)


def parse_articulation(text: str) -> dict:
    """A party's worded line from a reply's JSON object: ``act`` (propose/accept, default propose),
    ``tone`` (one of TONES, default neutral) and a non-empty ``utterance``; else :class:`ReplyError`."""
    obj = extract_json(text)
    act, tone, utterance = obj.get("act", "propose"), obj.get("tone", "neutral"), obj.get("utterance")
    if act not in ("propose", "accept"):
        raise ReplyError(f"'act' must be 'propose' or 'accept', got {act!r}")
    if tone not in TONES:
        raise ReplyError(f"'tone' must be one of {TONES}, got {tone!r}")
    if not isinstance(utterance, str) or not utterance.strip():
        raise ReplyError("'utterance' must be a non-empty string")
    return {"act": act, "tone": tone, "utterance": utterance.strip()}


#: Lines of the conversation a prompt shows (the release's five).
HISTORY = 5


def recent_lines(events: Sequence[dict], n: int = HISTORY) -> str:
    """The last ``n`` lines of the conversation as the release's prompts show them
    (``CON#<turn>: <speaker>: <text>``, one a line); empty before anyone has spoken."""
    return "\n".join(f"CON#{e['turn']}: {e['speaker']}: {e['text']}" for e in events[-n:])


def random_rating(rng: np.random.Generator) -> float:
    """A random 1.0-5.0 rating in steps of 0.1 (a rating's fallback)."""
    return float(rng.integers(10, 51)) / 10.0


def random_topic_option(scenario: Scenario, rng: np.random.Generator) -> tuple[int, int]:
    k = int(rng.integers(len(scenario.topics)))
    return k, int(rng.integers(len(scenario.topics[k].options)))


class PartyStrategy:
    """How LLM parties decide a turn: stages, each one batched call over every party of the turn.

    Subclasses implement :meth:`decide`; register them in :data:`PARTY_STRATEGIES`.
    """

    name = "base"

    def decide(
        self, lead: Caller, parties: Sequence[Any], texts: Sequence[str], state: dict | None = None
    ) -> list[Any]:
        """One env action per party (0 to pass), from the text each party's seat observes (and the
        conversation ``state`` for strategies that keep a memory of it); sets each party's ``last``."""
        raise NotImplementedError  # pragma: no cover


__all__ = [
    "HISTORY",
    "PartyStrategy",
    "ask_for",
    "checked",
    "parse_articulation",
    "random_rating",
    "random_topic_option",
    "recent_lines",
    "reply_option",
]
