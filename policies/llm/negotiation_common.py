"""What the negotiation LLM parties' strategies share (kept apart so that
:mod:`policies.llm.negotiation` and :mod:`policies.llm.negotiation_loop` do not import each other):
the :class:`PartyStrategy` base, batched asking for several components, and scenario helpers."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from policies.llm.caller import Answer, Ask, Caller, EventLog
from policies.llm.errors import ReplyError
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


def random_topic_option(scenario: Scenario, rng: np.random.Generator) -> tuple[int, int]:
    k = int(rng.integers(len(scenario.topics)))
    return k, int(rng.integers(len(scenario.topics[k].options)))


class PartyStrategy:
    """How LLM parties decide a turn: stages, each one batched call over every party of the turn.

    Subclasses implement :meth:`decide`; register them in :data:`PARTY_STRATEGIES`.
    """

    name = "base"
    #: whether :meth:`decide` needs the conversation ``state`` (events, turn, conflict mode)
    needs_state = False

    def decide(self, lead: Caller, parties: Sequence[Any], texts: Sequence[str],
               state: dict | None = None) -> list[Any]:
        """One env action per party (0 to pass), from the text each party's seat observes (and the
        conversation ``state`` for strategies that keep a memory of it); sets each party's ``last``."""
        raise NotImplementedError  # pragma: no cover


__all__ = ["PartyStrategy", "ask_for", "checked", "random_topic_option"]
