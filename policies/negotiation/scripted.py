"""Scripted mediators for the negotiation env (seed 002): NoAgent, Generic and Social.

They act on the public part of ``info`` (``info["state"]``: topics, stated stances, silence and
the typed transcript) and never read hidden preferences. Each returns the mediator seat's dict
action (see :mod:`tom_envs.negotiation.actions`), or 0 to stay silent.

* :class:`NoAgentMediator` -- never speaks (002's NoAgent baseline, seat kept for uniformity).
* :class:`BlindMediator` -- a reference without perception: a transformative move on a rotating
  topic every 3 turns.
* :class:`GenericMediator` -- speaks on a fixed cadence, summarising where the parties stand on the
  topics in turn (facilitative).
* :class:`SocialMediator` -- watches for 002's breakdowns from the transcript and intervenes when
  it sees one, choosing the strategy by rule: a consensus drop or hostility -> transformative; a
  silent party -> facilitative, addressed to it; a party repeating itself against the majority ->
  evaluative, addressed to it; repetition or a stalled topic -> problem-solving around the most
  supported option. Its literal-ToM prediction (each party's last stated option) comes from
  ``predict`` and goes to ``wrappers.AECToMRecorder`` (the runner hands it over); it is not part of the
  action.

The LLM mediators (generic, social, and 002's social mediator as the release builds it) are in
:mod:`policies.negotiation.llm`.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from policies.base import BasePolicy
from tom_envs.errors import require_bool
from tom_envs.negotiation.errors import NegotiationConfigError
from tom_envs.scoring import NOT_PREDICTED


def _replay(state: dict[str, Any]) -> tuple[list[np.ndarray], list[dict]]:
    """Stated stances after every event (from the transcript) and the party events."""
    n, m = len(state["parties"]), len(state["topics"])
    stated = np.full((n, m), -1, dtype=np.int64)
    history = [stated.copy()]
    # the opening line (tom/Negotiation-v2) states nothing and is no party's contribution
    events = [e for e in state["events"] if e.get("kind") != "opening"]
    for e in events:
        if e.get("party") is not None and e.get("option") is not None:
            k = e["topic_index"]
            stated[e["party"], k] = state["options"][k].index(e["option"])
        history.append(stated.copy())
    return history, [e for e in events if e.get("party") is not None]


def proxy_agreement(stated: np.ndarray) -> list[float]:
    """Per topic, the share of pairs of *stated* stances that coincide (0.5 with fewer than two)."""
    out = []
    for k in range(stated.shape[1]):
        col = [int(s) for s in stated[:, k] if s >= 0]
        if len(col) < 2:
            out.append(0.5)
            continue
        pairs = [(a, b) for i, a in enumerate(col) for b in col[i + 1 :]]
        out.append(sum(a == b for a, b in pairs) / len(pairs))
    return out


def plurality(stated: np.ndarray, k: int, exclude: int | None = None) -> int | None:
    col = [int(s) for i, s in enumerate(stated[:, k]) if s >= 0 and i != exclude]
    if not col:
        return None
    c = Counter(col)
    return min(c, key=lambda o: (-c[o], o))


class NoAgentMediator(BasePolicy):
    """Never intervenes."""

    name = "none"

    def act(self, observation: Any, info: dict) -> Any:
        return 0


class _CadenceMediator(BasePolicy):
    """A mediator that steps in every ``cadence`` turns on the next topic in turn (:meth:`due_topic`);
    ``cadence`` defaults to the class's :attr:`default_cadence`."""

    #: turns between interventions when ``cadence`` is not given
    default_cadence = 3

    def __init__(self, cadence: int | None = None) -> None:
        super().__init__()
        cadence = self.default_cadence if cadence is None else cadence
        if isinstance(cadence, bool) or not isinstance(cadence, int) or cadence < 1:
            raise NegotiationConfigError(f"cadence must be a positive integer, got {cadence!r}")
        self.cadence = cadence

    def due_topic(self, state: dict) -> int | None:
        """The topic this turn's move is about, or None when no move is due (turn 0 and off-cadence turns)."""
        turn = state["turn"]
        if turn == 0 or turn % self.cadence:
            return None
        return (turn // self.cadence - 1) % len(state["topics"])


class BlindMediator(_CadenceMediator):
    """A reference with no perception: every ``cadence`` turns a transformative move on the next
    topic in turn, whatever is happening (issue 16's "blind" baseline). A mediator that perceives
    should beat it.

    Args:
        cadence: turns between interventions (default 3).
    """

    name = "blind"
    default_cadence = 3

    def act(self, observation: Any, info: dict) -> Any:
        k = self.due_topic(info["state"])
        return 0 if k is None else {"strategy": "transformative", "topic": k}


class GenericMediator(_CadenceMediator):
    """Intervenes every ``cadence`` turns with a facilitative summary, cycling through the topics.

    Args:
        cadence: turns between interventions (default 6).
    """

    name = "generic"
    default_cadence = 6

    def act(self, observation: Any, info: dict) -> Any:
        state = info["state"]
        k = self.due_topic(state)
        if k is None:
            return 0
        history, _ = _replay(state)
        stated = history[-1]
        parts = []
        for i, name in enumerate(state["parties"]):
            if stated[i, k] >= 0:
                parts.append(f"{name} favours ({state['options'][k][stated[i, k]]})")
        summary = (
            (f"On {state['topics'][k]}: " + "; ".join(parts) + ".")
            if parts
            else (f"We have not yet heard positions on {state['topics'][k]}.")
        )
        return {
            "strategy": "facilitative",
            "topic": k,
            "utterance": f"Let me summarise where we are. {summary} What would help each of you move closer?",
        }


class SocialMediator(BasePolicy):
    """Intervenes when it detects a breakdown and picks one of 002's strategies by rule.

    Args:
        drop: fall in the (public, proxy) consensus that counts as a drop.
        cooldown: it waits more than this many turns after its last intervention (default 4: the scripted
            parties' patience, so its moves are not mistimed).
        stall: turns without any change on a topic that count as a stall.
        predict: make a literal-ToM prediction (``predict``) for the recorder; False: ``predict`` returns None.
    """

    name = "social"
    makes_predictions = True

    def __init__(self, drop: float = 0.1, cooldown: int = 4, stall: int = 6, predict: bool = True) -> None:
        super().__init__()
        if cooldown < 0 or stall < 1 or not 0 < drop < 1:
            raise NegotiationConfigError("SocialMediator needs 0 < drop < 1, cooldown >= 0 and stall >= 1")
        self.drop, self.cooldown, self.stall = drop, cooldown, stall
        self.predict_stances = require_bool("predict", predict)
        self.makes_predictions = self.predict_stances

    def predict(self, observation: Any, info: dict) -> dict[str, np.ndarray] | None:
        """The env's ``stances`` target: each party's preferred option per topic, guessed as its last
        stated one; ``NOT_PREDICTED`` (-1) where it has stated none (for ``wrappers.AECToMRecorder``)."""
        if not self.predict_stances:
            return None
        history, _ = _replay(info["state"])
        return {"stances": np.where(history[-1] >= 0, history[-1], NOT_PREDICTED)}

    def act(self, observation: Any, info: dict) -> Any:
        decision = self._decide(info["state"])
        return decision if decision is not None else 0

    def _decide(self, state: dict[str, Any]) -> dict[str, Any] | None:
        events = state["events"]
        turn, n = state["turn"], len(state["parties"])
        last_med = max((e["turn"] for e in events if e.get("kind") == "intervention"), default=-(10**6))
        if turn == 0 or turn - last_med <= self.cooldown:
            return None
        history, party_events = _replay(state)
        stated = history[-1]
        proxies = [proxy_agreement(h) for h in history[-6:]]
        now = proxies[-1]
        # 1. a consensus drop (or a hostile statement) -> transformative
        falls = [max(p[k] for p in proxies) - now[k] for k in range(len(now))]
        k_drop = int(np.argmax(falls))
        if falls[k_drop] > self.drop:
            return {"strategy": "transformative", "topic": k_drop}
        # 2. a silent party -> facilitative, addressed to it
        silence = state["silence"]
        if turn >= n:
            quiet = [i for i in range(n) if silence[i] > 2 * n or (stated[i] < 0).all()]
            if quiet:
                i = max(quiet, key=lambda j: (silence[j], -j))
                unknown = [k for k in range(stated.shape[1]) if stated[i, k] < 0]
                k = unknown[0] if unknown else int(np.argmin(now))
                return {"strategy": "facilitative", "topic": k, "target": i}
        # 3. repetition: a holdout -> evaluative at it; otherwise problem-solving
        if len(party_events) >= 2:
            last = party_events[-1]
            prev = [e for e in party_events[:-1] if e["party"] == last["party"]]
            if prev and (prev[-1]["topic_index"], prev[-1]["option"]) == (last["topic_index"], last["option"]):
                k, i = last["topic_index"], last["party"]
                others = plurality(stated, k, exclude=i)
                if others is not None and others != stated[i, k]:
                    return {"strategy": "evaluative", "topic": k, "target": i, "option": others}
                if now[k] < 1.0:
                    return {"strategy": "problem_solving", "topic": k, "option": plurality(stated, k)}
        # 4. a stalled topic -> problem-solving around the most supported option
        if len(history) > self.stall:
            window = history[-self.stall - 1 :]
            stalled = [
                k
                for k in range(stated.shape[1])
                if now[k] < 1.0
                and (stated[:, k] >= 0).sum() >= 2
                and all((h[:, k] == stated[:, k]).all() for h in window)
            ]
            if stalled:
                k = min(stalled, key=lambda j: (now[j], j))
                return {"strategy": "problem_solving", "topic": k, "option": plurality(stated, k)}
        # 5. a firm, positional statement just now -> transformative
        if events and events[-1].get("tone") == "firm":
            return {"strategy": "transformative", "topic": events[-1]["topic_index"]}
        return None


MEDIATORS = {"none": NoAgentMediator, "blind": BlindMediator, "generic": GenericMediator, "social": SocialMediator}


def make_mediator(name: str) -> BasePolicy:
    """A scripted mediator by name (``none``, ``blind``, ``generic``, ``social``)."""
    if name not in MEDIATORS:
        raise NegotiationConfigError(f"unknown mediator {name!r}; choose from {', '.join(MEDIATORS)}")
    return MEDIATORS[name]()
