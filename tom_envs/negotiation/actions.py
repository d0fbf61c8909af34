"""Reading seat actions: integer codes (the action spaces) and structured dicts.

Party seat, ``Discrete(1 + 2 * K)`` with K the number of (topic, option) pairs in topic order:
0 passes (no candidate this turn); ``1 + 2 * j + a`` offers the j-th (topic, option) pair with
``a = 0`` propose, ``a = 1`` accept, at motivation 0.5. The dict form is
``{"topic": name|index, "option": label|index, "act": "propose"|"accept", "motivation": 0..1,
"tone": "firm"|"neutral"|"conciliatory", "utterance": str}`` (only topic and option required).

Mediator seat, ``Discrete(1 + 4 * M)``: 0 passes; ``1 + s * M + k`` intervenes with strategy s
(0 facilitative, 1 evaluative, 2 transformative, 3 problem-solving) on topic k. The dict form is
``{"intervene": bool, "strategy": name|index, "topic": name|index, "target": party name|"party_i"|
index|None, "option": label|index|None, "utterance": str}``; ``intervene`` defaults to whether a
strategy is given. An intervention without an ``option`` points to the plurality of the parties'
*stated* stances on its topic (none when nobody has stated one). The mediator's literal-ToM
prediction is not part of its action: hand it to ``wrappers.AECToMRecorder.record_prediction``
(the runner does, from the policy's ``predict``); the v0 ``prediction`` key is an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tom_envs.negotiation.errors import NegotiationActionError
from tom_envs.negotiation.metrics import STRATEGIES
from tom_envs.negotiation.scenario import Scenario
from tom_envs.scoring import NOT_PREDICTED

TONES = ("firm", "neutral", "conciliatory")


@dataclass(frozen=True)
class PartyMove:
    """A party seat's candidate contribution."""

    topic: int
    option: int
    act: str = "propose"
    motivation: float = 0.5
    tone: str = "neutral"
    utterance: str | None = None


@dataclass(frozen=True)
class MediatorMove:
    """A mediator seat's decision; ``strategy is None`` means it stays silent."""

    strategy: int | None = None
    topic: int | None = None
    target: int | None = None
    option: int | None = None
    utterance: str | None = None


def _int(action: Any) -> int | None:
    if isinstance(action, (bool, np.bool_)):
        return None
    if isinstance(action, (int, np.integer)):
        return int(action)
    if isinstance(action, np.ndarray) and action.ndim == 0 and np.issubdtype(action.dtype, np.integer):
        return int(action)
    return None


def pairs(scenario: Scenario) -> list[tuple[int, int]]:
    """The (topic, option) pairs in the order of the party action codes."""
    return [(k, o) for k, t in enumerate(scenario.topics) for o in range(len(t.options))]


def topic_index(scenario: Scenario, value: Any, seat: str) -> int:
    names = [t.name for t in scenario.topics]
    i = _int(value)
    if i is not None and 0 <= i < len(names):
        return i
    if isinstance(value, str):
        for k, n in enumerate(names):
            if n.casefold() == value.strip().casefold():
                return k
    raise NegotiationActionError(f"{seat}: unknown topic {value!r}; use an index 0..{len(names) - 1} or one of {names}")


def option_index(scenario: Scenario, topic: int, value: Any, seat: str) -> int:
    t = scenario.topics[topic]
    i = _int(value)
    if i is not None and 0 <= i < len(t.options):
        return i
    if isinstance(value, str):
        v = value.strip().strip("()").casefold()
        for o, opt in enumerate(t.options):
            if v in (opt.label.casefold(), opt.text.casefold()):
                return o
    raise NegotiationActionError(
        f"{seat}: unknown option {value!r} for topic {t.name!r}; use an index "
        f"0..{len(t.options) - 1} or a label of {t.labels}"
    )


def party_index(scenario: Scenario, value: Any, seat: str) -> int:
    names = scenario.party_names
    i = _int(value)
    if i is not None and 0 <= i < len(names):
        return i
    if isinstance(value, str):
        if value.startswith("party_") and value[6:].isdigit() and int(value[6:]) < len(names):
            return int(value[6:])
        for j, n in enumerate(names):
            if n.casefold() == value.strip().casefold():
                return j
    raise NegotiationActionError(f"{seat}: unknown party {value!r}; use an index, 'party_i' or one of {names}")


def parse_party(action: Any, scenario: Scenario, seat: str) -> PartyMove | None:
    """A party seat's action as a :class:`PartyMove` (None = pass)."""
    code = _int(action)
    if code is not None:
        table = pairs(scenario)
        if not 0 <= code <= 2 * len(table):
            raise NegotiationActionError(f"{seat}: action {code} is outside Discrete({1 + 2 * len(table)})")
        if code == 0:
            return None
        k, o = table[(code - 1) // 2]
        return PartyMove(k, o, "accept" if (code - 1) % 2 else "propose")
    if isinstance(action, dict):
        if "topic" not in action or "option" not in action:
            raise NegotiationActionError(f"{seat}: a dict action needs 'topic' and 'option' keys, got {sorted(action)}")
        k = topic_index(scenario, action["topic"], seat)
        o = option_index(scenario, k, action["option"], seat)
        act = action.get("act", "propose")
        if act not in ("propose", "accept"):
            raise NegotiationActionError(f"{seat}: 'act' must be 'propose' or 'accept', got {act!r}")
        tone = action.get("tone", "neutral")
        if tone not in TONES:
            raise NegotiationActionError(f"{seat}: 'tone' must be one of {TONES}, got {tone!r}")
        try:
            motivation = float(action.get("motivation", 0.5))
        except (TypeError, ValueError):
            raise NegotiationActionError(f"{seat}: 'motivation' must be a number in [0, 1]") from None
        if not 0.0 <= motivation <= 1.0:
            raise NegotiationActionError(f"{seat}: 'motivation' must be in [0, 1], got {motivation}")
        return PartyMove(k, o, act, motivation, tone, _text(action.get("utterance"), seat))
    raise NegotiationActionError(f"{seat}: expected an integer code or a dict, got {type(action).__name__}")


def parse_mediator(action: Any, scenario: Scenario, seat: str) -> MediatorMove:
    """The mediator seat's action as a :class:`MediatorMove`."""
    m = len(scenario.topics)
    code = _int(action)
    if code is not None:
        if not 0 <= code <= 4 * m:
            raise NegotiationActionError(f"{seat}: action {code} is outside Discrete({1 + 4 * m})")
        if code == 0:
            return MediatorMove()
        return MediatorMove(strategy=(code - 1) // m, topic=(code - 1) % m)
    if not isinstance(action, dict):
        raise NegotiationActionError(f"{seat}: expected an integer code or a dict, got {type(action).__name__}")
    if "prediction" in action:
        raise NegotiationActionError(
            f"{seat}: the action dict's 'prediction' key was removed in tom/Negotiation-v1 (its feedback told the "
            "mediator how many cells it had right, which reveals unstated stances); hand the prediction to "
            "wrappers.AECToMRecorder.record_prediction({'stances': env.unwrapped.stance_prediction(pred)}) -- the "
            "benchmark runner does this with the policy's predict() -- and drop the key from the action"
        )
    if not action.get("intervene", "strategy" in action):
        return MediatorMove()
    strategy = action.get("strategy")
    if isinstance(strategy, str) and strategy.strip().lower().replace("-", "_").replace(" ", "_") in STRATEGIES:
        s = STRATEGIES.index(strategy.strip().lower().replace("-", "_").replace(" ", "_"))
    elif _int(strategy) is not None and 0 <= _int(strategy) < len(STRATEGIES):
        s = _int(strategy)
    else:
        raise NegotiationActionError(f"{seat}: unknown strategy {strategy!r}; use one of {STRATEGIES} or 0..3")
    if "topic" not in action:
        raise NegotiationActionError(f"{seat}: an intervention needs a 'topic'")
    k = topic_index(scenario, action["topic"], seat)
    target = None if action.get("target") is None else party_index(scenario, action["target"], seat)
    option = None if action.get("option") is None else option_index(scenario, k, action["option"], seat)
    return MediatorMove(s, k, target, option, _text(action.get("utterance"), seat))


def stance_table(prediction: dict[int, dict[int, int]] | None, scenario: Scenario) -> np.ndarray:
    """A parsed prediction as a (parties, topics) array, ``NOT_PREDICTED`` where it says nothing."""
    table = np.full((len(scenario.parties), len(scenario.topics)), NOT_PREDICTED, dtype=np.int64)
    for i, per_topic in (prediction or {}).items():
        for k, o in per_topic.items():
            table[i, k] = o
    return table


def _text(value: Any, seat: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise NegotiationActionError(f"{seat}: 'utterance' must be a string, got {type(value).__name__}")


def parse_stance_prediction(value: Any, scenario: Scenario, seat: str) -> dict[int, dict[int, int]] | None:
    """A literal-ToM prediction ``{party: {topic: option}}`` (names, labels or indices) as indices.

    Raises:
        NegotiationActionError: not a mapping of that form, or an unknown party, topic or option.
    """
    if value is None:
        return None
    if not isinstance(value, dict):
        raise NegotiationActionError(f"{seat}: 'prediction' must map party -> {{topic: option}}")
    out: dict[int, dict[int, int]] = {}
    for p, per_topic in value.items():
        i = party_index(scenario, p, seat)
        if not isinstance(per_topic, dict):
            raise NegotiationActionError(f"{seat}: prediction for {p!r} must map topic -> option")
        out[i] = {}
        for t, o in per_topic.items():
            k = topic_index(scenario, t, seat)
            out[i][k] = option_index(scenario, k, o, seat)
    return out
