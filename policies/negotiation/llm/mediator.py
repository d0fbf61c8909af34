"""The mediator seat of the negotiation env played by an LLM (seed 002's generic and social mediators).

A mediation strategy is an object (:class:`MediationStrategy`) in :data:`MEDIATION_STRATEGIES`:

* ``"generic"`` -- decides when and how to intervene from the transcript only;
* ``"social"`` -- first predicts each party's preferred option per topic (literal ToM, returned by
  :meth:`LLMMediator.predict` as the env's ``stances`` target, ``{"stances": (parties, topics) array}``
  with -1 where it says nothing, like the scripted Social mediator, for ``wrappers.AECToMRecorder``),
  then decides with that prediction and 002's breakdown checklist in the prompt. The prediction is
  not part of the action (the env has no prediction key since ``tom/Negotiation-v1``).

Adding one: a :class:`MediationStrategy` subclass (its instructions, and a prediction stage if it
has one) and one line in :data:`MEDIATION_STRATEGIES`. Prompts are in
:mod:`policies.negotiation.llm.prompts`.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from policies.base import BasePolicy
from policies.negotiation.llm import prompts as P
from policies.llm.base import Backend
from policies.llm.caller import Ask
from policies.llm.decode import check_decode
from policies.llm.errors import InvalidPolicyConfig, ReplyError
from policies.negotiation.llm.parties import (
    LLMCaller,
    UsesCaller,
    checked,
    one_episode_at_a_time,
    party_names,
    seat_text,
    topics_text,
)
from policies.negotiation.llm.common import random_rating, recent_lines, reply_option
from policies.negotiation.llm.mediator_scored import scored_decisions, scored_predictions
from policies.llm.parsing import extract_json, rating_1_5
from tom_envs.errors import require_bool
from tom_envs.negotiation.actions import party_index, stance_table, topic_index
from tom_envs.negotiation.metrics import STRATEGIES
from tom_envs.negotiation.scenario import Scenario

Prediction = dict[int, dict[int, int]]


class MediationStrategy:
    """What a mediator variant says before deciding, and whether it predicts the parties first."""

    name = "base"
    makes_predictions = False

    def predict_ask(self, scenario: Scenario, text: str) -> Ask | None:
        """The literal-ToM stage on the seat's ``text``, or None when the variant makes no prediction."""
        return None

    def instructions(self, scenario: Scenario, prediction: Prediction | None) -> str:
        """The variant's instructions in the decision prompt."""
        raise NotImplementedError  # pragma: no cover


class GenericMediation(MediationStrategy):
    """002's generic mediator: the transcript only."""

    name = "generic"

    def instructions(self, scenario: Scenario, prediction: Prediction | None) -> str:
        return P.GENERIC_BODY


class SocialMediation(MediationStrategy):
    """002's socially intelligent mediator: predict every party's preferences, then check for breakdowns."""

    name = "social"
    makes_predictions = True

    def predict_ask(self, scenario: Scenario, text: str) -> Ask:
        sc = scenario
        example = {sc.parties[0].name: {sc.topics[0].name: sc.topics[0].options[0].label, "...": "..."}, "...": {}}
        prompt = P.MEDIATOR_PREDICT.format(
            text=text, parties=party_names(sc), example=json.dumps({"predictions": example})
        )

        def parse(text: str) -> Prediction:
            obj = extract_json(text).get("predictions")
            if not isinstance(obj, dict):
                raise ReplyError("the JSON object needs 'predictions': {party: {topic: option}}")
            out: Prediction = {}
            for p, per in obj.items():
                i = checked(party_index, sc, p, "prediction")
                if not isinstance(per, dict):
                    raise ReplyError(f"predictions for {p!r} must map topic -> option")
                out[i] = {}
                for t, o in per.items():
                    k = checked(topic_index, sc, t, "prediction")
                    out[i][k] = reply_option(sc, k, o, "prediction")
            missing = [
                (sc.parties[i].name, t.name)
                for i in range(len(sc.parties))
                for k, t in enumerate(sc.topics)
                if k not in out.get(i, {})
            ]
            if missing:
                raise ReplyError(f"predictions missing for {missing[:4]}")
            return out

        def rand(rng: np.random.Generator) -> Prediction:
            return {
                i: {k: int(rng.integers(len(t.options))) for k, t in enumerate(sc.topics)}
                for i in range(len(sc.parties))
            }

        return Ask(prompt, parse, rand)

    def instructions(self, scenario: Scenario, prediction: Prediction | None) -> str:
        sc = scenario
        pred = {
            sc.parties[i].name: {sc.topics[k].name: sc.topics[k].options[o].label for k, o in per.items()}
            for i, per in (prediction or {}).items()
        }
        return P.SOCIAL_BODY.format(prediction=json.dumps(pred))


#: Mediation strategies by variant name (``LLMMediator(variant=...)``).
MEDIATION_STRATEGIES: dict[str, type[MediationStrategy]] = {"generic": GenericMediation, "social": SocialMediation}
#: The variant names.
VARIANTS = tuple(MEDIATION_STRATEGIES)


def move_fields(scenario: Scenario, obj: dict, what: str, source: str) -> tuple[str, int, int | None]:
    """A reply's mediator move: ``(strategy, topic index, target party index or None)``; a
    :class:`ReplyError` naming ``what`` (e.g. "each candidate") when one is missing or unknown."""
    strategy = str(obj.get("strategy", "")).strip().lower().replace("-", "_").replace(" ", "_")
    if strategy not in STRATEGIES:
        raise ReplyError(f"'strategy' must be one of {STRATEGIES}, got {obj.get('strategy')!r}")
    if "topic" not in obj:
        raise ReplyError(f"{what} needs a 'topic'")
    k = checked(topic_index, scenario, obj["topic"], source)
    target = obj.get("target")
    target = None if target in (None, "", "null", "none") else checked(party_index, scenario, target, source)
    return strategy, k, target


def decision_ask(scenario: Scenario, seat: str, instructions: str) -> Ask:
    """The mediator's decision on its seat's text ``seat``: stay silent, or intervene with a strategy on a topic."""
    sc = scenario

    def parse(text: str) -> dict:
        obj = extract_json(text)
        if "intervene" not in obj or not isinstance(obj["intervene"], bool):
            raise ReplyError("the JSON object needs 'intervene': true or false")
        if not obj["intervene"]:
            return {"intervene": False}
        strategy, k, target = move_fields(sc, obj, "an intervention", "mediator")
        utterance = obj.get("utterance")
        if not isinstance(utterance, str) or not utterance.strip():
            raise ReplyError("'utterance' must be a non-empty string")
        return {"intervene": True, "strategy": strategy, "topic": k, "target": target, "utterance": utterance.strip()}

    def rand(rng: np.random.Generator) -> dict:
        code = int(rng.integers(1 + len(STRATEGIES) * len(sc.topics)))
        if code == 0:
            return {"intervene": False}
        return {
            "intervene": True,
            "strategy": STRATEGIES[(code - 1) // len(sc.topics)],
            "topic": (code - 1) % len(sc.topics),
            "target": None,
        }

    return Ask(P.MEDIATOR_DECIDE.format(text=seat, body=instructions), parse, rand)


class LLMMediator(UsesCaller, BasePolicy):
    """The mediator seat played by an LLM (002's generic or socially intelligent mediator).

    Args:
        backend: the model.
        scenario: the env's scenario.
        variant: a name in :data:`MEDIATION_STRATEGIES` (``"generic"`` or ``"social"``).
        decode: ``"generate"`` (default: JSON replies, parsed) or ``"score"``: the same prompts, every
            choice taken by log-probability (:mod:`policies.negotiation.llm.mediator_scored`).
        **caller_kwargs: ``max_resamples``, ``fallback``,
            ``temperature``, ``max_tokens``; see :class:`~policies.negotiation.llm.parties.LLMCaller`.

    ``act(obs, info)`` reads the seat's text ``obs`` (the env wrapped in
    ``wrappers.AECTextObservation``) and the turn from ``info["state"]``, and returns the env's
    mediator dict action (``intervene``, ``strategy``, ``topic``, ``target``, ``utterance``); a
    predicting variant's prediction comes from ``predict`` (for the recorder). A numeric ``obs`` raises
    :class:`~policies.llm.errors.TextObservationNeeded`.
    """

    def __init__(
        self,
        backend: Backend,
        scenario: Scenario,
        variant: str = "social",
        decode: str = "generate",
        **caller_kwargs: Any,
    ) -> None:
        super().__init__()
        if variant not in MEDIATION_STRATEGIES:
            raise InvalidPolicyConfig(f"variant must be one of {VARIANTS}, got {variant!r}")
        self.scenario, self.variant, self.decode = scenario, variant, check_decode(decode)
        self.strategy = MEDIATION_STRATEGIES[variant]()
        self.name = f"llm-{variant}"
        self.makes_predictions = self.strategy.makes_predictions
        self.caller = LLMCaller(backend, **caller_kwargs)
        self._prediction: tuple[int, Prediction | None] | None = None
        self.last: dict[str, Any] = {}

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)  # BasePolicy, then the caller
        self._prediction = None
        self.last = {}

    def predict(self, observation: Any, info: dict) -> dict[str, np.ndarray] | None:
        """Each party's preferred option per topic as the env's ``stances`` target (None for a variant
        without prediction). Cached per turn."""
        return self._as_target(self._predict_many([self], [observation], [info])[0])

    def _as_target(self, prediction: Prediction | None) -> dict[str, np.ndarray] | None:
        return None if prediction is None else {"stances": stance_table(prediction, self.scenario)}

    def act(self, observation: Any, info: dict) -> Any:
        return self._act_many([self], [observation], [info])[0]

    # ------------------------------------------------------------------ lockstep over episodes
    def reset_batch(self, seeds: Sequence[int | None]) -> None:
        """One slot per episode: a copy of this mediator with a caller of its own (same backend and
        settings) reset with the episode's seed, so a lockstep batch decides as the episodes would one
        by one, with one backend call per stage for every episode whose turn it is."""
        self._slots = []
        for seed in seeds:
            slot = copy.copy(self)
            slot.caller = copy.copy(self.caller)
            slot._slots = []
            slot.reset(seed)
            self._slots.append(slot)

    def episode_stats(self) -> list[dict[str, int]]:
        """Per slot, the caller's counters over the episode."""
        return [dict(m.stats) for m in self._slots]

    def predict_batch(
        self, observations: Sequence[Any], infos: Sequence[dict], slots: Sequence[int] | None = None
    ) -> list[dict[str, np.ndarray] | None]:
        return [
            self._as_target(p) for p in self._predict_many(self._check_batch(observations, slots), observations, infos)
        ]

    def act_batch(
        self, observations: Sequence[Any], infos: Sequence[dict], slots: Sequence[int] | None = None
    ) -> list[Any]:
        return self._act_many(self._check_batch(observations, slots), observations, infos)

    def _predict_many(
        self, mediators: Sequence[LLMMediator], observations: Sequence[Any], infos: Sequence[dict]
    ) -> list[Prediction | None]:
        """The predictions of ``mediators`` (slots, or this mediator alone): the ones not cached for
        this turn are asked in one batch through this mediator's caller, each as its slot's decision."""
        todo: list[tuple[LLMMediator, int, Ask]] = []
        for m, observation, info in zip(mediators, observations, infos):
            ask = m.strategy.predict_ask(m.scenario, seat_text(observation, "LLMMediator"))
            turn = info["state"]["turn"]
            if ask is not None and (m._prediction is None or m._prediction[0] != turn):
                ask.owner = m.caller.owner
                todo.append((m, turn, ask))
            elif ask is None:
                m._prediction = (turn, None)
        if self.decode == "score":
            scored = scored_predictions(self.caller, [(m.scenario, ask.prompt, ask.owner) for m, _, ask in todo])
            for (m, turn, _), value in zip(todo, scored):
                m._prediction = (turn, value)
                m.last = {"prediction": value}
        else:
            for (m, turn, _), ans in zip(todo, self.caller.ask("predict", [ask for _, _, ask in todo])):
                m._prediction = (turn, ans.value)
                m.last = {"prediction": ans.value, "fallback": {"predict": ans.fallback}}
        return [m._prediction[1] if m._prediction is not None else None for m in mediators]

    def _act_many(
        self, mediators: Sequence[LLMMediator], observations: Sequence[Any], infos: Sequence[dict]
    ) -> list[Any]:
        predictions = self._predict_many(mediators, observations, infos)
        asks = []
        for m, observation, prediction in zip(mediators, observations, predictions):
            ask = decision_ask(
                m.scenario, seat_text(observation, "LLMMediator"), m.strategy.instructions(m.scenario, prediction)
            )
            ask.owner = m.caller.owner
            asks.append(ask)
        if self.decode == "score":
            moves = scored_decisions(self.caller, [(m.scenario, a.prompt, a.owner) for m, a in zip(mediators, asks)])
            for m, move in zip(mediators, moves):
                m.last["decision"] = move
            return moves
        decisions = []
        for m, ans in zip(mediators, self.caller.ask("decide", asks)):
            decision = dict(ans.value)
            if decision.get("target") is None:
                decision.pop("target", None)
            m.last.setdefault("fallback", {})["decide"] = ans.fallback
            m.last["decision"] = decision
            decisions.append(decision)
        return decisions


# --------------------------------------------------------------------------------------------- 002's social mediator
#: The paper's and the release's threshold on the mediator's motivation to step in.
SOCIAL_THRESHOLD = 3.5


def consensus_status(scenario: Scenario, state: dict) -> list[dict]:
    """The online consensus status per topic, read from what the parties have stated (the public
    ``state``): ``resolved`` when every party has stated the same option, else ``unresolved``, with each
    party's stated option (or ``None``: "no explicit statement yet", the release's phrase)."""
    stated = state["stated"]
    out = []
    for k, t in enumerate(scenario.topics):
        col = [stated[i][k] for i in range(len(scenario.parties))]
        resolved = all(o >= 0 for o in col) and len(set(col)) == 1
        out.append(
            {
                "topic": t.name,
                "resolved": resolved,
                "option": t.options[col[0]].label if resolved else None,
                "stances": {p.name: (t.options[o].label if o >= 0 else None) for p, o in zip(scenario.parties, col)},
            }
        )
    return out


def status_text(scenario: Scenario, status: Sequence[dict]) -> str:
    lines = []
    for st, t in zip(status, scenario.topics):
        if st["resolved"]:
            lines.append(f"- {t.name}: resolved on {t.option_text(t.labels.index(st['option']))}")
        else:
            who = "; ".join(
                f"{name}: " + (t.option_text(t.labels.index(o)) if o is not None else "no explicit statement yet")
                for name, o in st["stances"].items()
            )
            lines.append(f"- {t.name}: unresolved ({who})")
    return "\n".join(lines)


def _utterance(text: str) -> str:
    value = extract_json(text).get("utterance")
    if not isinstance(value, str) or not value.strip():
        raise ReplyError("'utterance' must be a non-empty string")
    return value.strip()


class SocialMediatorLLM(UsesCaller, BasePolicy):
    """002's socially intelligent mediator as the release builds it (``SocialMediator``), on the one caller.

    After every party line (never right after itself) it

    1. reads the online *consensus status* of every topic (:func:`consensus_status`) -- if every topic is
       resolved it closes the session with a conclusion (``{"conclude": true, "utterance": ...}``);
    2. decides *when*: a motivation rating 1.0-5.0 with its reasoning over 002's four breakdowns; it steps
       in when it wants to (``should_engage``) and the rating exceeds ``threshold`` (3.5, the release's);
    3. decides *how*: drafts candidate interventions under the four strategies (facilitative,
       evaluative, transformative, problem-solving), rates each 1.0-5.0 and puts the best into words.

    Backend calls per decision: one (wait), three (draft, rate all candidates at once, words) when it
    steps in, one to conclude. The case's own mediator instructions (``scenario.mediator.persona``), when
    an import has them, are its brief. ``last`` keeps the rating, the candidates, their ratings and the
    choice; ``stats`` the caller's counters.

    Args:
        backend: the model.
        scenario: the env's scenario.
        threshold: the rating above which it steps in.
        conclude: close the session when every topic is resolved.
        **caller_kwargs: see :class:`~policies.negotiation.llm.parties.LLMCaller`.
    """

    name = "llm-social-paper"

    def __init__(
        self,
        backend: Backend,
        scenario: Scenario,
        threshold: float = SOCIAL_THRESHOLD,
        conclude: bool = True,
        **caller_kwargs: Any,
    ) -> None:
        super().__init__()
        if not 1.0 <= threshold <= 5.0:
            raise InvalidPolicyConfig(f"threshold must be within 1.0-5.0, got {threshold}")
        self.scenario, self.threshold, self.conclude = scenario, threshold, require_bool("conclude", conclude)
        self.caller = LLMCaller(backend, **caller_kwargs)
        self.last: dict[str, Any] = {}

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.last = {}

    def reset_batch(self, seeds: Sequence[int | None]) -> None:
        """Not available: see :func:`~policies.negotiation.llm.parties.one_episode_at_a_time`."""
        raise one_episode_at_a_time(self)

    def context(self, state: dict, status: Sequence[dict]) -> dict[str, str]:
        sc = self.scenario
        brief = sc.mediator.persona.strip() if sc.mediator is not None and sc.mediator.persona else ""
        brief = brief.replace("{issues}", ", ".join(t.name for t in sc.topics))
        history = recent_lines(state["events"])
        return {
            "title": sc.title or sc.name,
            "background": sc.background,
            "brief": f"Your brief: {brief}\n" if brief else "",
            "topics": topics_text(sc),
            "parties": ", ".join(f"{p.name} ({p.role})" if p.role else p.name for p in sc.parties),
            "status": status_text(sc, status),
            "history": history or "(no one has spoken yet)",
        }

    def act(self, observation: Any, info: dict) -> Any:
        state = info["state"]
        events = state["events"]
        self.last = {}
        if not events or events[-1].get("seat") == "mediator_0":
            return {"intervene": False}  # it acts on the parties' lines, never right after itself
        status = consensus_status(self.scenario, state)
        ctx = self.context(state, status)
        if self.conclude and all(st["resolved"] for st in status):
            plain = "To close: we agree on " + "; ".join(
                f"{t.name}: {t.option_text(t.labels.index(st['option']))}"
                for st, t in zip(status, self.scenario.topics)
            )
            ans = self.caller.ask("conclude", [Ask(P.SOCIAL_CONCLUDE.format(**ctx), _utterance, lambda rng: plain)])[0]
            self.last = {"status": status, "conclusion": ans.value}
            return {"conclude": True, "utterance": ans.value}
        when = self.caller.ask("when", [self.when_ask(ctx)])[0]
        engage, rating = when.value["should_engage"], when.value["rating"]
        self.last = {
            "status": status,
            "rating": rating,
            "should_engage": engage,
            "reasoning": when.value["reasoning"],
            "fallback": {"when": when.fallback},
        }
        if not (engage and rating > self.threshold):
            return {"intervene": False}
        draft = self.caller.ask("draft", [self.draft_ask(ctx)])[0]
        candidates = draft.value
        scores = self.caller.ask(
            "score", [Ask(P.SOCIAL_SCORE.format(**self._plan(c), **ctx), rating_1_5, random_rating) for c in candidates]
        )
        ratings = [a.value for a in scores]
        best = max(range(len(candidates)), key=lambda j: ratings[j])  # first of equals
        chosen = candidates[best]
        # a random fallback leaves the words to the env's template for the strategy
        words = self.caller.ask(
            "speak", [Ask(P.SOCIAL_SPEAK.format(**self._plan(chosen), **ctx), _utterance, lambda rng: None)]
        )[0]
        self.last.update({"candidates": candidates, "ratings": ratings, "chosen": chosen, "utterance": words.value})
        self.last["fallback"].update(
            {"draft": draft.fallback, "score": any(a.fallback for a in scores), "speak": words.fallback}
        )
        action = {"intervene": True, "strategy": chosen["strategy"], "topic": chosen["topic"]}
        if chosen["target"] is not None:
            action["target"] = chosen["target"]
        if words.value is not None:
            action["utterance"] = words.value
        return action

    def _plan(self, c: dict) -> dict[str, str]:
        sc = self.scenario
        target = "" if c["target"] is None else P.SOCIAL_TARGET.format(party=sc.parties[c["target"]].name)
        return {
            "strategy": c["strategy"].replace("_", "-"),
            "topic": sc.topics[c["topic"]].name,
            "target": target,
            "idea": c["idea"],
        }

    def when_ask(self, ctx: dict[str, str]) -> Ask:
        def parse(text: str) -> dict:
            obj = extract_json(text)
            engage = obj.get("should_engage")
            if not isinstance(engage, bool):
                raise ReplyError("the JSON object needs 'should_engage': true or false")
            reasoning = obj.get("reasoning", "")
            return {
                "should_engage": engage,
                "rating": rating_1_5(text),
                "reasoning": reasoning if isinstance(reasoning, str) else json.dumps(reasoning),
            }

        def rand(rng: np.random.Generator) -> dict:
            return {
                "should_engage": bool(rng.integers(2)),
                "rating": random_rating(rng),
                "reasoning": "(random fallback)",
            }

        return Ask(P.SOCIAL_WHEN.format(**ctx), parse, rand)

    def draft_ask(self, ctx: dict[str, str]) -> Ask:
        sc = self.scenario

        def parse(text: str) -> list[dict]:
            items = extract_json(text).get("candidates")
            if not isinstance(items, list) or not items:
                raise ReplyError("the JSON object needs 'candidates': a non-empty list")
            out = []
            for c in items[: 2 * len(STRATEGIES)]:
                if not isinstance(c, dict):
                    raise ReplyError("each candidate must be a JSON object")
                strategy, k, target = move_fields(sc, c, "each candidate", "candidate")
                idea = c.get("idea")
                if not isinstance(idea, str) or not idea.strip():
                    raise ReplyError("each candidate needs an 'idea': a non-empty string")
                out.append({"strategy": strategy, "topic": k, "target": target, "idea": idea.strip()})
            return out

        def rand(rng: np.random.Generator) -> list[dict]:
            return [
                {"strategy": s, "topic": int(rng.integers(len(sc.topics))), "target": None, "idea": "(random fallback)"}
                for s in STRATEGIES
            ]

        return Ask(P.SOCIAL_DRAFT.format(**ctx), parse, rand)


__all__ = [
    "MEDIATION_STRATEGIES",
    "SOCIAL_THRESHOLD",
    "VARIANTS",
    "SocialMediatorLLM",
    "consensus_status",
    "GenericMediation",
    "LLMMediator",
    "MediationStrategy",
    "SocialMediation",
]
