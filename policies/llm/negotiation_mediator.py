"""The mediator seat of the negotiation env played by an LLM (seed 002's generic and social mediators).

A mediation strategy is an object (:class:`MediationStrategy`) in :data:`MEDIATION_STRATEGIES`:

* ``"generic"`` -- decides when and how to intervene from the transcript only;
* ``"social"`` -- first predicts each party's preferred option per topic (literal ToM, returned by
  :meth:`LLMMediator.predict` as ``{party: {topic: option}}`` like the scripted Social mediator),
  then decides with that prediction and 002's breakdown checklist in the prompt.

Adding one: a :class:`MediationStrategy` subclass (its instructions, and a prediction stage if it
has one) and one line in :data:`MEDIATION_STRATEGIES`. Prompts are in
:mod:`policies.llm.negotiation_prompts`.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from policies.base import BasePolicy
from policies.llm import negotiation_prompts as P
from policies.llm.base import Backend
from policies.llm.caller import Ask
from policies.llm.errors import InvalidPolicyConfig, ReplyError
from policies.llm.negotiation import LLMCaller, UsesCaller, checked, party_names, seat_text
from policies.llm.parsing import extract_json
from tom_envs.negotiation.actions import option_index, party_index, topic_index
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
                    out[i][k] = checked(option_index, sc, k, o, "prediction")
            missing = [(sc.parties[i].name, t.name) for i in range(len(sc.parties)) for k, t in enumerate(sc.topics)
                       if k not in out.get(i, {})]
            if missing:
                raise ReplyError(f"predictions missing for {missing[:4]}")
            return out

        def rand(rng: np.random.Generator) -> Prediction:
            return {i: {k: int(rng.integers(len(t.options))) for k, t in enumerate(sc.topics)}
                    for i in range(len(sc.parties))}

        return Ask(prompt, parse, rand)

    def instructions(self, scenario: Scenario, prediction: Prediction | None) -> str:
        sc = scenario
        pred = {sc.parties[i].name: {sc.topics[k].name: sc.topics[k].options[o].label for k, o in per.items()}
                for i, per in (prediction or {}).items()}
        return P.SOCIAL_BODY.format(prediction=json.dumps(pred))


#: Mediation strategies by variant name (``LLMMediator(variant=...)``).
MEDIATION_STRATEGIES: dict[str, type[MediationStrategy]] = {"generic": GenericMediation, "social": SocialMediation}
#: The variant names.
VARIANTS = tuple(MEDIATION_STRATEGIES)


def decision_ask(scenario: Scenario, seat: str, instructions: str) -> Ask:
    """The mediator's decision on its seat's text ``seat``: stay silent, or intervene with a strategy on a topic."""
    sc = scenario

    def parse(text: str) -> dict:
        obj = extract_json(text)
        if "intervene" not in obj or not isinstance(obj["intervene"], bool):
            raise ReplyError("the JSON object needs 'intervene': true or false")
        if not obj["intervene"]:
            return {"intervene": False}
        strategy = str(obj.get("strategy", "")).strip().lower().replace("-", "_").replace(" ", "_")
        if strategy not in STRATEGIES:
            raise ReplyError(f"'strategy' must be one of {STRATEGIES}, got {obj.get('strategy')!r}")
        if "topic" not in obj:
            raise ReplyError("an intervention needs a 'topic'")
        k = checked(topic_index, sc, obj["topic"], "mediator")
        target = obj.get("target")
        target = None if target in (None, "", "null", "none") else checked(party_index, sc, target, "mediator")
        utterance = obj.get("utterance")
        if not isinstance(utterance, str) or not utterance.strip():
            raise ReplyError("'utterance' must be a non-empty string")
        return {"intervene": True, "strategy": strategy, "topic": k, "target": target, "utterance": utterance.strip()}

    def rand(rng: np.random.Generator) -> dict:
        code = int(rng.integers(1 + len(STRATEGIES) * len(sc.topics)))
        if code == 0:
            return {"intervene": False}
        return {"intervene": True, "strategy": STRATEGIES[(code - 1) // len(sc.topics)],
                "topic": (code - 1) % len(sc.topics), "target": None}

    return Ask(P.MEDIATOR_DECIDE.format(text=seat, body=instructions), parse, rand)


class LLMMediator(UsesCaller, BasePolicy):
    """The mediator seat played by an LLM (002's generic or socially intelligent mediator).

    Args:
        backend: the model.
        scenario: the env's scenario.
        variant: a name in :data:`MEDIATION_STRATEGIES` (``"generic"`` or ``"social"``).
        **caller_kwargs: ``max_resamples`` (old name ``max_reasks``), ``fallback``,
            ``temperature``, ``max_tokens``; see :class:`~policies.llm.negotiation.LLMCaller`.

    ``act(obs, info)`` reads the seat's text ``obs`` (the env wrapped in
    ``wrappers.AECTextObservation``) and the turn from ``info["state"]``, and returns the env's
    mediator dict action (``intervene``, ``strategy``, ``topic``, ``target``, ``utterance``, and for
    a predicting variant ``prediction``). A numeric ``obs`` raises
    :class:`~policies.llm.errors.TextObservationNeeded`.
    """

    def __init__(self, backend: Backend, scenario: Scenario, variant: str = "social", **caller_kwargs: Any) -> None:
        super().__init__()
        if variant not in MEDIATION_STRATEGIES:
            raise InvalidPolicyConfig(f"variant must be one of {VARIANTS}, got {variant!r}")
        self.scenario, self.variant = scenario, variant
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

    def predict(self, observation: Any, info: dict) -> Prediction | None:
        """Each party's preferred option per topic (None for a variant without prediction). Cached per turn."""
        return self._predict_many([self], [observation], [info])[0]

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

    def predict_batch(self, observations: Sequence[Any], infos: Sequence[dict],
                      slots: Sequence[int] | None = None) -> list[Prediction | None]:
        return self._predict_many(self._check_batch(observations, slots), observations, infos)

    def act_batch(self, observations: Sequence[Any], infos: Sequence[dict],
                  slots: Sequence[int] | None = None) -> list[Any]:
        return self._act_many(self._check_batch(observations, slots), observations, infos)

    def _predict_many(self, mediators: Sequence[LLMMediator], observations: Sequence[Any],
                      infos: Sequence[dict]) -> list[Prediction | None]:
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
        for (m, turn, _), ans in zip(todo, self.caller.ask("predict", [ask for _, _, ask in todo])):
            m._prediction = (turn, ans.value)
            m.last = {"prediction": ans.value, "fallback": {"predict": ans.fallback}}
        return [m._prediction[1] if m._prediction is not None else None for m in mediators]

    def _act_many(self, mediators: Sequence[LLMMediator], observations: Sequence[Any],
                  infos: Sequence[dict]) -> list[Any]:
        predictions = self._predict_many(mediators, observations, infos)
        asks = []
        for m, observation, prediction in zip(mediators, observations, predictions):
            ask = decision_ask(m.scenario, seat_text(observation, "LLMMediator"),
                               m.strategy.instructions(m.scenario, prediction))
            ask.owner = m.caller.owner
            asks.append(ask)
        decisions = []
        for m, prediction, ans in zip(mediators, predictions, self.caller.ask("decide", asks)):
            decision = dict(ans.value)
            if decision.get("target") is None:
                decision.pop("target", None)
            m.last.setdefault("fallback", {})["decide"] = ans.fallback
            m.last["decision"] = decision
            if prediction:
                decision["prediction"] = prediction
            decisions.append(decision)
        return decisions


__all__ = [
    "MEDIATION_STRATEGIES",
    "VARIANTS",
    "GenericMediation",
    "LLMMediator",
    "MediationStrategy",
    "SocialMediation",
]
