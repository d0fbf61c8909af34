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

import json
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
        ask = self.strategy.predict_ask(self.scenario, seat_text(observation, "LLMMediator"))
        if ask is None:
            return None
        turn = info["state"]["turn"]
        if self._prediction is None or self._prediction[0] != turn:
            ans = self.caller.ask("predict", [ask])[0]
            self._prediction = (turn, ans.value)
            self.last = {"prediction": ans.value, "fallback": {"predict": ans.fallback}}
        return self._prediction[1]

    def act(self, observation: Any, info: dict) -> Any:
        prediction = self.predict(observation, info)
        instructions = self.strategy.instructions(self.scenario, prediction)
        text = seat_text(observation, "LLMMediator")
        ans = self.caller.ask("decide", [decision_ask(self.scenario, text, instructions)])[0]
        decision = dict(ans.value)
        if decision.get("target") is None:
            decision.pop("target", None)
        self.last.setdefault("fallback", {})["decide"] = ans.fallback
        self.last["decision"] = decision
        if prediction:
            decision["prediction"] = prediction
        return decision


__all__ = [
    "MEDIATION_STRATEGIES",
    "VARIANTS",
    "GenericMediation",
    "LLMMediator",
    "MediationStrategy",
    "SocialMediation",
]
