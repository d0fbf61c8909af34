"""LLM parties, mediators and judges for the negotiation env (seed 002), on the LLM backends.

Every LLM decision is a *stage*: one prompt per decision, all decisions of the stage sent in ONE
``backend.generate`` call; replies must contain a JSON object, parsed and validated against the
scenario. A reply that does not parse is re-asked (fresh seed) up to ``max_reasks`` times, again
one call per re-ask round for all pending decisions; every failure is counted. After the bound
the configured ``fallback`` applies: ``"raise"`` (:class:`~policies.llm.strategies.ResampleLimitReached`)
or ``"random"`` (a random valid value from the component's seeded generator, flagged in the log and
counted in ``stats["fallbacks"]``) -- never a silent default.

* :class:`LLMParty` -- a party seat, Inner Thoughts style: thought generation (topic, option,
  private reasoning) -> motivation score (1-5) -> articulation (act, tone, utterance), giving the
  env's structured dict action. :meth:`LLMParty.act_parties` runs several parties sharing a backend
  with one call per stage for all of them; :func:`run_episode` drives an env that way.
* :class:`LLMMediator` -- ``variant="generic"``: decides when and how to intervene from the
  transcript only. ``variant="social"``: first predicts each party's preferred option per topic
  (literal ToM, returned by :meth:`LLMMediator.predict` as ``{party: {topic: option}}`` like the
  scripted Social mediator), then decides with that prediction and 002's breakdown checklist in the
  prompt.
* :class:`LLMAttitudeExtractor` -- a party's attitude per topic from its text; the env's
  ``attitude_extractor=`` hook.
* :class:`LLMAgreementJudge` -- the env's ``agreement=`` hook: pairwise agreement in [0, 1] as the
  mean of five 1-5 dimensions mapped by ``(s - 1) / 4``. 002 names shared goals, common
  understanding, agreement on terms, tone and willingness; our copy of the text loses the fifth, so
  we use *position compatibility* (can each live with the other's option) as the fifth.
* :class:`LLMMIJudge` -- the env's ``mi_judge=`` hook: 1-5 on 002's four MI dimensions
  (perceptual, emotional, cognitive, communicative), each only when applicable, and their mean.

Prompts are our own wording. Party and mediator prompts build on the seat's ``info["text"]`` (role,
case, topics with option labels, transcript), so they do not repeat the topic list.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from policies.base import BasePolicy
from policies.llm.backends import Backend, ChatRequest
from policies.llm.errors import InvalidPolicyConfig, ReplyError, ResampleLimitReached
from policies.llm.strategies import FALLBACKS
from tom_envs.negotiation.actions import TONES, option_index, party_index, topic_index
from tom_envs.negotiation.errors import NegotiationActionError
from tom_envs.negotiation.metrics import MI_DIMENSIONS, STRATEGIES, InterventionContext
from tom_envs.negotiation.scenario import Scenario

AGREEMENT_DIMENSIONS = ("shared_goals", "common_understanding", "agreement_on_terms", "tone_and_willingness",
                        "position_compatibility")
VARIANTS = ("generic", "social")


# --------------------------------------------------------------------------------------------- parsing


def extract_json(text: str) -> dict:
    """The last JSON object in ``text`` (code fences allowed); :class:`ReplyError` if none."""
    decoder = json.JSONDecoder()
    found = None
    pos = text.find("{")
    while pos >= 0:
        try:
            obj, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError:
            pos = text.find("{", pos + 1)
            continue
        found = obj  # a top-level object; skip what it contains
        pos = text.find("{", end)
    if found is None:
        raise ReplyError("no JSON object found")
    return found


def _score_1_5(value: Any, what: str) -> int:
    if isinstance(value, bool):
        raise ReplyError(f"{what} must be an integer 1-5")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ReplyError(f"{what} must be an integer 1-5, got {value!r}") from None
    if x != int(x) or not 1 <= x <= 5:
        raise ReplyError(f"{what} must be an integer 1-5, got {value!r}")
    return int(x)


def _check(fn: Callable[..., Any], *args: Any) -> Any:
    try:
        return fn(*args)
    except NegotiationActionError as exc:
        raise ReplyError(str(exc)) from None


# --------------------------------------------------------------------------------------------- the caller


@dataclass
class Ask:
    """One decision to make: the prompt, how to parse the reply, how to draw a random fallback."""

    prompt: str
    parse: Callable[[str], Any]
    random: Callable[[np.random.Generator], Any]


@dataclass
class Answer:
    value: Any
    reply: str | None
    fallback: bool = False
    failures: int = 0


class LLMCaller:
    """Bounded re-asks over a batch of decisions: one ``backend.generate`` call per round.

    Args:
        backend: the model.
        max_reasks: extra attempts after the first (total ``1 + max_reasks``).
        fallback: ``"raise"`` or ``"random"`` (flagged).
        temperature: sampling temperature.
        max_tokens: generation cap per reply.
        seed: seeds the generator of sampling seeds and random fallbacks.
    """

    def __init__(self, backend: Backend, *, max_reasks: int = 2, fallback: str = "raise", temperature: float = 0.7,
                 max_tokens: int = 256, seed: int | None = None) -> None:
        if fallback not in FALLBACKS:
            raise InvalidPolicyConfig(f"fallback must be one of {FALLBACKS}, got {fallback!r}")
        if isinstance(max_reasks, bool) or not isinstance(max_reasks, int) or max_reasks < 0:
            raise InvalidPolicyConfig(f"max_reasks must be an integer >= 0, got {max_reasks!r}")
        if temperature < 0 or not isinstance(max_tokens, int) or max_tokens < 1:
            raise InvalidPolicyConfig("temperature must be >= 0 and max_tokens an integer >= 1")
        self.backend, self.max_reasks, self.fallback = backend, max_reasks, fallback
        self.temperature, self.max_tokens = temperature, max_tokens
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        self.stats = {"backend_calls": 0, "requests": 0, "decisions": 0, "parse_failures": 0, "fallbacks": 0}
        self.calls: list[tuple[str, int]] = []  # (stage, batch size) of every backend call
        self.log: list[dict] = []

    def ask(self, stage: str, asks: Sequence[Ask]) -> list[Answer]:
        if not asks:
            return []
        out: list[Answer | None] = [None] * len(asks)
        failures = [0] * len(asks)
        last: list[str] = [""] * len(asks)
        pending = list(range(len(asks)))
        self.stats["decisions"] += len(asks)
        for attempt in range(self.max_reasks + 1):
            if not pending:
                break
            requests = []
            for i in pending:
                content = asks[i].prompt
                if attempt:
                    content += (f"\n\nYour previous reply could not be used ({last[i]}). Reply again with only the "
                                "JSON object described above.")
                requests.append(ChatRequest([{"role": "user", "content": content}], self.max_tokens, self.temperature,
                                            int(self.rng.integers(0, 2**31 - 1))))
            replies = self.backend.generate(requests)
            self.stats["backend_calls"] += 1
            self.stats["requests"] += len(requests)
            self.calls.append((stage, len(requests)))
            still = []
            for i, reply in zip(pending, replies):
                try:
                    value = asks[i].parse(reply.text)
                except ReplyError as exc:
                    failures[i] += 1
                    self.stats["parse_failures"] += 1
                    last[i] = str(exc)[:200]
                    self.log.append({"stage": stage, "attempt": attempt, "reply": reply.text, "error": last[i]})
                    still.append(i)
                    continue
                out[i] = Answer(value, reply.text, False, failures[i])
                self.log.append({"stage": stage, "attempt": attempt, "reply": reply.text, "value": value})
            pending = still
        for i in pending:
            if self.fallback == "raise":
                raise ResampleLimitReached(
                    f"stage {stage!r}: none of {self.max_reasks + 1} replies parsed (last problem: {last[i]}). Raise "
                    "max_reasks or max_tokens, or build the component with fallback='random' to use a random valid "
                    "value (flagged in the log) instead.")
            value = asks[i].random(self.rng)
            self.stats["fallbacks"] += 1
            self.log.append({"stage": stage, "fallback": True, "value": value})
            out[i] = Answer(value, None, True, failures[i])
        return out  # type: ignore[return-value]


def _caller(backend: Backend, kwargs: dict) -> LLMCaller:
    return LLMCaller(backend, **kwargs)


class _UsesCaller:
    """What every LLM component here shares: ``stats`` (its :class:`LLMCaller`'s counters) and
    ``reset(seed)``, which reseeds the caller and zeroes the counters (after the parent class's
    reset, for policies)."""

    caller: LLMCaller

    @property
    def stats(self) -> dict[str, int]:
        return self.caller.stats

    def reset(self, seed: int | None = None) -> None:
        parent = getattr(super(), "reset", None)
        if parent is not None:
            parent(seed)
        self.caller.reset(seed)


# --------------------------------------------------------------------------------------------- texts


def _topics_text(scenario: Scenario) -> str:
    lines = []
    for t in scenario.topics:
        lines.append(f"- {t.name}: {t.question}".rstrip(": "))
        lines += [f"    ({o.label}) {o.text}" for o in t.options]
    return "\n".join(lines)


def _party_names(scenario: Scenario) -> str:
    return ", ".join(p.name for p in scenario.parties)


def _random_topic_option(scenario: Scenario, rng: np.random.Generator) -> tuple[int, int]:
    k = int(rng.integers(len(scenario.topics)))
    return k, int(rng.integers(len(scenario.topics[k].options)))


# --------------------------------------------------------------------------------------------- parties


class LLMParty(_UsesCaller, BasePolicy):
    """A party seat played by an LLM: thought -> motivation (1-5) -> articulation.

    Args:
        backend: the model.
        scenario: the env's scenario (``env.scenario``), used to validate replies.
        max_reasks, fallback, temperature, max_tokens: see :class:`LLMCaller`.
        allow_pass: the thought may be ``{"pass": true}`` (the seat then passes with action 0).

    ``act(obs, info)`` returns the env's dict action
    ``{"topic", "option", "act", "tone", "motivation", "utterance"}`` (motivation ``(score-1)/4``)
    or 0 to pass. ``last`` holds the latest thought, score, articulation and fallback flags.
    """

    name = "llm-party"

    def __init__(self, backend: Backend, scenario: Scenario, *, max_reasks: int = 2, fallback: str = "raise",
                 temperature: float = 0.7, max_tokens: int = 256, allow_pass: bool = True) -> None:
        super().__init__()
        self.scenario = scenario
        self.allow_pass = allow_pass
        self.caller = LLMCaller(backend, max_reasks=max_reasks, fallback=fallback, temperature=temperature,
                                max_tokens=max_tokens)
        self.last: dict[str, Any] = {}

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)  # BasePolicy, then the caller
        self.last = {}

    def act(self, observation: Any, info: dict) -> Any:
        return LLMParty.act_parties([self], [info])[0]

    # -- prompts and parsers
    def _thought_ask(self, info: dict) -> Ask:
        sc = self.scenario
        pass_line = ' or {"pass": true} if you would rather stay quiet this turn' if self.allow_pass else ""
        prompt = (f"{info['text']}\n\n"
                  "Think privately before speaking. Which single topic do you most want to address next, and which "
                  "option do you now favour on it, given your preferences and what the others have said? Reply "
                  'with a JSON object {"thought": "<your private reasoning, one or two sentences>", "topic": '
                  '"<topic name>", "option": "<option label>"}' + pass_line + ".")

        def parse(text: str) -> dict | None:
            obj = extract_json(text)
            if self.allow_pass and obj.get("pass") is True:
                return None
            if "topic" not in obj or "option" not in obj:
                raise ReplyError("the JSON object needs 'topic' and 'option'")
            k = _check(topic_index, sc, obj["topic"], "thought")
            o = _check(option_index, sc, k, obj["option"], "thought")
            thought = obj.get("thought", "")
            if not isinstance(thought, str):
                raise ReplyError("'thought' must be a string")
            return {"topic": k, "option": o, "thought": thought}

        def rand(rng: np.random.Generator) -> dict:
            k, o = _random_topic_option(sc, rng)
            return {"topic": k, "option": o, "thought": ""}

        return Ask(prompt, parse, rand)

    def _motivation_ask(self, info: dict, thought: dict) -> Ask:
        t = self.scenario.topics[thought["topic"]]
        prompt = (f"{info['text']}\n\nYour private thought: {thought['thought'] or '(none)'}\n"
                  f"You are considering speaking about {t.name}, in favour of option ({t.options[thought['option']].label})."
                  "\n\nHow strongly do you want to speak right now? Weigh how relevant the thought is to where the "
                  "conversation is, how much it matters to your goals, whether it adds something new, and whether "
                  "now is a good moment. Reply with a JSON object {\"score\": <integer 1-5>} (1 = no need to speak, "
                  "5 = must speak now).")

        def parse(text: str) -> int:
            obj = extract_json(text)
            return _score_1_5(obj.get("score"), "'score'")

        return Ask(prompt, parse, lambda rng: int(rng.integers(1, 6)))

    def _articulation_ask(self, info: dict, thought: dict) -> Ask:
        t = self.scenario.topics[thought["topic"]]
        label = t.options[thought["option"]].label
        prompt = (f"{info['text']}\n\nYour private thought: {thought['thought'] or '(none)'}\n"
                  f"You will now speak about {t.name}, supporting option ({label}) {t.options[thought['option']].text}."
                  "\n\nSay it as you would in the meeting, in one to three sentences. Decide whether you are "
                  "proposing this option or accepting it as someone else's proposal, and your tone. Reply with a "
                  'JSON object {"act": "propose" or "accept", "tone": "firm", "neutral" or "conciliatory", '
                  '"utterance": "<what you say>"}.')

        def parse(text: str) -> dict:
            obj = extract_json(text)
            act = obj.get("act", "propose")
            tone = obj.get("tone", "neutral")
            utterance = obj.get("utterance")
            if act not in ("propose", "accept"):
                raise ReplyError(f"'act' must be 'propose' or 'accept', got {act!r}")
            if tone not in TONES:
                raise ReplyError(f"'tone' must be one of {TONES}, got {tone!r}")
            if not isinstance(utterance, str) or not utterance.strip():
                raise ReplyError("'utterance' must be a non-empty string")
            return {"act": act, "tone": tone, "utterance": utterance.strip()}

        def rand(rng: np.random.Generator) -> dict:
            return {"act": ("propose", "accept")[int(rng.integers(2))], "tone": "neutral", "utterance": None}

        return Ask(prompt, parse, rand)

    # -- the batched turn
    @staticmethod
    def act_parties(parties: Sequence[LLMParty], infos: Sequence[dict]) -> list[Any]:
        """Actions of several parties for one turn: one backend call per stage (and re-ask round) for all.

        The parties must share one backend; the first party's caller runs the batch (its seed and
        counters), and each party's ``last`` and ``stats`` record its own decisions.
        """
        if not parties:
            return []
        backend = parties[0].caller.backend
        if any(p.caller.backend is not backend for p in parties):
            raise InvalidPolicyConfig("LLMParty.act_parties needs parties that share one backend")
        lead = parties[0].caller
        thoughts = _ask_split(lead, parties, "thought", [p._thought_ask(i) for p, i in zip(parties, infos)])
        speaking = [j for j, a in enumerate(thoughts) if a.value is not None]
        scores = _ask_split(lead, [parties[j] for j in speaking], "motivation",
                            [parties[j]._motivation_ask(infos[j], thoughts[j].value) for j in speaking])
        words = _ask_split(lead, [parties[j] for j in speaking], "articulation",
                           [parties[j]._articulation_ask(infos[j], thoughts[j].value) for j in speaking])
        actions: list[Any] = [0] * len(parties)
        for p, a in zip(parties, thoughts):
            p.last = {"thought": a.value, "fallback": {"thought": a.fallback}}
        for j, s, w in zip(speaking, scores, words):
            th = thoughts[j].value
            action = {"topic": th["topic"], "option": th["option"], "act": w.value["act"], "tone": w.value["tone"],
                      "motivation": (s.value - 1) / 4.0}
            if w.value["utterance"] is not None:
                action["utterance"] = w.value["utterance"]
            actions[j] = action
            parties[j].last.update({"score": s.value, "articulation": w.value, "action": action})
            parties[j].last["fallback"].update({"motivation": s.fallback, "articulation": w.fallback})
        return actions


def _ask_split(lead: LLMCaller, owners: Sequence[Any], stage: str, asks: Sequence[Ask]) -> list[Answer]:
    """Run ``asks`` through ``lead`` in one batch; attribute failures and fallbacks to each owner."""
    before = dict(lead.stats)
    answers = lead.ask(stage, asks)
    if len({id(o.caller) for o in owners}) > 1 or (owners and owners[0].caller is not lead):
        # move the per-decision counts from the lead to their owners (calls stay with the lead)
        lead.stats["parse_failures"] = before["parse_failures"]
        lead.stats["fallbacks"] = before["fallbacks"]
        lead.stats["decisions"] = before["decisions"]
        for o, a in zip(owners, answers):
            o.caller.stats["parse_failures"] += a.failures
            o.caller.stats["fallbacks"] += int(a.fallback)
            o.caller.stats["decisions"] += 1
    return answers


def run_episode(env: Any, parties: dict[str, LLMParty], mediator: Any, seed: int | None = None) -> dict:
    """Play one episode of ``env`` (AEC) with LLM party seats and a mediator policy; returns the summary.

    At the first party seat of each turn, all LLM parties decide together (one backend call per
    stage); the mediator's ``predict`` (if any) is attached to its action by the mediator itself.
    """
    env.reset(seed=seed)
    for i, p in enumerate(parties.values()):
        p.reset(None if seed is None else seed + 1 + i)
    if mediator is not None and hasattr(mediator, "reset"):
        mediator.reset(seed)
    pending: dict[str, Any] = {}
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        if agent in parties:
            if not pending:
                seats = [a for a in env.agents if a in parties]
                acts = LLMParty.act_parties([parties[a] for a in seats], [env.infos[a] for a in seats])
                pending = dict(zip(seats, acts))
            env.step(pending.pop(agent))
        else:
            env.step(mediator.act(env.observe(agent), env.infos[agent]))
    return env.episode_summary()


# --------------------------------------------------------------------------------------------- mediator


class LLMMediator(_UsesCaller, BasePolicy):
    """The mediator seat played by an LLM (002's generic or socially intelligent mediator).

    Args:
        backend: the model.
        scenario: the env's scenario.
        variant: ``"generic"`` (decide from the transcript) or ``"social"`` (predict each party's
            preferred option per topic first, then decide with a breakdown checklist).
        max_reasks, fallback, temperature, max_tokens: see :class:`LLMCaller`.

    ``act`` returns the env's mediator dict action (``intervene``, ``strategy``, ``topic``,
    ``target``, ``utterance``, and for the social variant ``prediction``).
    """

    def __init__(self, backend: Backend, scenario: Scenario, variant: str = "social", *, max_reasks: int = 2,
                 fallback: str = "raise", temperature: float = 0.7, max_tokens: int = 256) -> None:
        super().__init__()
        if variant not in VARIANTS:
            raise InvalidPolicyConfig(f"variant must be one of {VARIANTS}, got {variant!r}")
        self.scenario, self.variant = scenario, variant
        self.name = f"llm-{variant}"
        self.makes_predictions = variant == "social"
        self.caller = LLMCaller(backend, max_reasks=max_reasks, fallback=fallback, temperature=temperature,
                                max_tokens=max_tokens)
        self._prediction: tuple[int, dict] | None = None
        self.last: dict[str, Any] = {}

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)  # BasePolicy, then the caller
        self._prediction = None
        self.last = {}

    # -- literal ToM
    def _predict_ask(self, info: dict) -> Ask:
        sc = self.scenario
        example = {sc.parties[0].name: {sc.topics[0].name: sc.topics[0].options[0].label, "...": "..."}, "...": {}}
        prompt = (f"{info['text']}\n\nBefore deciding anything, estimate what each party privately prefers right "
                  "now. For every party and every topic, name the option label that party currently favours, "
                  "judging from what they said, their role and how they react to others. Reply with a JSON object "
                  '{"predictions": {<party name>: {<topic name>: <option label>, ...}, ...}} covering all parties '
                  f"({_party_names(sc)}) and all topics, e.g. {json.dumps({'predictions': example})}.")

        def parse(text: str) -> dict[int, dict[int, int]]:
            obj = extract_json(text).get("predictions")
            if not isinstance(obj, dict):
                raise ReplyError("the JSON object needs 'predictions': {party: {topic: option}}")
            out: dict[int, dict[int, int]] = {}
            for p, per in obj.items():
                i = _check(party_index, sc, p, "prediction")
                if not isinstance(per, dict):
                    raise ReplyError(f"predictions for {p!r} must map topic -> option")
                out[i] = {}
                for t, o in per.items():
                    k = _check(topic_index, sc, t, "prediction")
                    out[i][k] = _check(option_index, sc, k, o, "prediction")
            missing = [(sc.parties[i].name, t.name) for i in range(len(sc.parties)) for k, t in enumerate(sc.topics)
                       if k not in out.get(i, {})]
            if missing:
                raise ReplyError(f"predictions missing for {missing[:4]}")
            return out

        def rand(rng: np.random.Generator) -> dict[int, dict[int, int]]:
            return {i: {k: int(rng.integers(len(t.options))) for k, t in enumerate(sc.topics)}
                    for i in range(len(sc.parties))}

        return Ask(prompt, parse, rand)

    def predict(self, observation: Any, info: dict) -> dict[int, dict[int, int]] | None:
        """Each party's preferred option per topic (social variant; None for generic). Cached per turn."""
        if self.variant != "social":
            return None
        turn = info["state"]["turn"]
        if self._prediction is None or self._prediction[0] != turn:
            ans = self.caller.ask("predict", [self._predict_ask(info)])[0]
            self._prediction = (turn, ans.value)
            self.last = {"prediction": ans.value, "fallback": {"predict": ans.fallback}}
        return self._prediction[1]

    # -- the decision
    def _decide_ask(self, info: dict, prediction: dict | None) -> Ask:
        sc = self.scenario
        fmt = ('Reply with a JSON object: {"intervene": false} to stay silent, or {"intervene": true, "strategy": '
               'one of "facilitative", "evaluative", "transformative", "problem_solving", "topic": "<topic name>", '
               '"target": "<party name>" or null, "utterance": "<what you say>"}.')
        strategies = ("Strategies: facilitative (invite voices, summarise, clarify), evaluative (assess the merits "
                      "of positions, reality-test a holdout), transformative (address emotions and the relationship, "
                      "reframe), problem_solving (propose a concrete option or package).")
        if self.variant == "generic":
            body = ("You help the parties reach agreement. Decide whether you should speak now; if so, choose how "
                    "and about which topic.")
        else:
            names = {i: sc.parties[i].name for i in range(len(sc.parties))}
            pred = {names[i]: {sc.topics[k].name: sc.topics[k].options[o].label for k, o in per.items()}
                    for i, per in (prediction or {}).items()}
            body = ("You are a socially aware mediator. Your estimate of each party's current preferences: "
                    f"{json.dumps(pred)}.\nCheck for breakdowns before deciding: perceptual (parties misread the "
                    "issue or each other), emotional (hostility, positional firmness, falling agreement), cognitive "
                    "(repetition, a stalled topic, no new options), communicative (a silent or sidelined party). "
                    "Intervene only when one is present and your move can help; pick the strategy that fits the "
                    "breakdown, the topic where agreement is weakest, and address a specific party when that helps.")
        prompt = f"{info['text']}\n\n{body}\n{strategies}\n{fmt}"

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
            k = _check(topic_index, sc, obj["topic"], "mediator")
            target = obj.get("target")
            target = None if target in (None, "", "null", "none") else _check(party_index, sc, target, "mediator")
            utterance = obj.get("utterance")
            if not isinstance(utterance, str) or not utterance.strip():
                raise ReplyError("'utterance' must be a non-empty string")
            return {"intervene": True, "strategy": strategy, "topic": k, "target": target,
                    "utterance": utterance.strip()}

        def rand(rng: np.random.Generator) -> dict:
            code = int(rng.integers(1 + len(STRATEGIES) * len(sc.topics)))
            if code == 0:
                return {"intervene": False}
            return {"intervene": True, "strategy": STRATEGIES[(code - 1) // len(sc.topics)],
                    "topic": (code - 1) % len(sc.topics), "target": None}

        return Ask(prompt, parse, rand)

    def act(self, observation: Any, info: dict) -> Any:
        prediction = self.predict(observation, info)
        ans = self.caller.ask("decide", [self._decide_ask(info, prediction)])[0]
        decision = dict(ans.value)
        if decision.get("target") is None:
            decision.pop("target", None)
        self.last.setdefault("fallback", {})["decide"] = ans.fallback
        self.last["decision"] = decision
        if prediction:
            decision["prediction"] = prediction
        return decision


# --------------------------------------------------------------------------------------------- judges


class LLMAttitudeExtractor(_UsesCaller):
    """A party's attitude (option label index, or None if not addressed) per topic from its text.

    ``extract(party, text) -> {topic: option | None}``; :meth:`extract_many` does several texts in
    one backend call. Keyword args go to :class:`LLMCaller`. Plugs into the env's
    ``attitude_extractor=`` hook (called as ``extractor(party, text)``), so consensus tracking
    follows what parties said rather than their structured stances.
    """

    name = "llm-attitude"

    def __init__(self, backend: Backend, scenario: Scenario, **kwargs: Any) -> None:
        self.scenario = scenario
        self.caller = _caller(backend, kwargs)

    def _ask(self, party: int | str, text: str) -> Ask:
        sc = self.scenario
        i = party_index(sc, party, "extractor")
        prompt = (f"A negotiation about these topics:\n{_topics_text(sc)}\n\n{sc.parties[i].name} said:\n\"{text}\"\n\n"
                  "For every topic, which option does this statement support? Use null for topics it does not "
                  'address. Reply with a JSON object {"attitudes": {<topic name>: <option label or null>, ...}} '
                  "covering all topics.")

        def parse(reply: str) -> dict[int, int | None]:
            obj = extract_json(reply).get("attitudes")
            if not isinstance(obj, dict):
                raise ReplyError("the JSON object needs 'attitudes': {topic: option or null}")
            out: dict[int, int | None] = {}
            for t, o in obj.items():
                k = _check(topic_index, sc, t, "attitudes")
                out[k] = None if o is None else _check(option_index, sc, k, o, "attitudes")
            missing = [t.name for k, t in enumerate(sc.topics) if k not in out]
            if missing:
                raise ReplyError(f"attitudes missing for topics {missing}")
            return out

        def rand(rng: np.random.Generator) -> dict[int, int | None]:
            return {k: int(rng.integers(len(t.options))) for k, t in enumerate(sc.topics)}

        return Ask(prompt, parse, rand)

    def extract_many(self, items: Sequence[tuple[int | str, str]]) -> list[dict[int, int | None]]:
        return [a.value for a in self.caller.ask("attitude", [self._ask(p, t) for p, t in items])]

    def extract(self, party: int | str, text: str) -> dict[int, int | None]:
        return self.extract_many([(party, text)])[0]

    __call__ = extract


class LLMAgreementJudge(_UsesCaller):
    """The env's ``agreement=`` hook: an LLM rates two parties' agreement on a topic over five dimensions.

    ``judge(scenario, i, j, k, s_i, s_j) -> float`` in [0, 1]: the mean of the five 1-5 scores of
    :data:`AGREEMENT_DIMENSIONS` mapped by ``(s - 1) / 4``. Results are cached per
    ``(i, j, k, s_i, s_j)`` (the tracker asks for every pair and topic after every turn);
    :meth:`prefetch` judges every uncached pair of an attitude matrix in one backend call.
    """

    name = "llm-agreement"

    def __init__(self, backend: Backend, **kwargs: Any) -> None:
        self.caller = _caller(backend, kwargs)
        self.cache: dict[tuple[int, int, int, int, int], float] = {}
        self.scores: dict[tuple[int, int, int, int, int], dict[str, int] | None] = {}

    def _key(self, i: int, j: int, k: int, s_i: int, s_j: int) -> tuple[int, int, int, int, int]:
        return (i, j, k, s_i, s_j) if i <= j else (j, i, k, s_j, s_i)

    def _ask(self, sc: Scenario, i: int, j: int, k: int, s_i: int, s_j: int) -> Ask:
        t = sc.topics[k]
        a, b = sc.parties[i], sc.parties[j]
        prompt = (f"Negotiation: {sc.title or sc.name}. {sc.background}\nTopic: {t.name}: {t.question}\n"
                  f"{a.name} ({a.role}; goal: {a.goal}) currently supports ({t.options[s_i].label}) {t.options[s_i].text}.\n"
                  f"{b.name} ({b.role}; goal: {b.goal}) currently supports ({t.options[s_j].label}) {t.options[s_j].text}.\n\n"
                  "Rate how far these two parties agree on this topic, each dimension from 1 (not at all) to 5 "
                  "(fully): shared_goals (alignment on the overall objective), common_understanding (a shared view "
                  "of the problem), agreement_on_terms (acceptance of the same terms), tone_and_willingness "
                  "(openness to compromise), position_compatibility (each could live with the other's option). "
                  "Reply with a JSON object {" + ", ".join(f'"{d}": <1-5>' for d in AGREEMENT_DIMENSIONS) + "}.")

        def parse(reply: str) -> dict[str, int]:
            obj = extract_json(reply)
            return {d: _score_1_5(obj.get(d), f"'{d}'") for d in AGREEMENT_DIMENSIONS}

        return Ask(prompt, parse, lambda rng: {d: int(rng.integers(1, 6)) for d in AGREEMENT_DIMENSIONS})

    def _store(self, key: tuple, answer: Answer) -> None:
        self.scores[key] = None if answer.fallback else answer.value
        self.cache[key] = float(np.mean([(v - 1) / 4.0 for v in answer.value.values()]))

    def prefetch(self, scenario: Scenario, attitudes: np.ndarray) -> int:
        """Judge every uncached (pair, topic) of an attitudes matrix (parties x topics) in one call."""
        todo: dict[tuple, tuple] = {}
        n, m = attitudes.shape
        for i in range(n):
            for j in range(i + 1, n):
                for k in range(m):
                    key = self._key(i, j, k, int(attitudes[i, k]), int(attitudes[j, k]))
                    if key not in self.cache:
                        todo.setdefault(key, key)
        keys = list(todo)
        for key, ans in zip(keys, self.caller.ask("agreement", [self._ask(scenario, *key) for key in keys])):
            self._store(key, ans)
        return len(keys)

    def __call__(self, scenario: Scenario, i: int, j: int, k: int, s_i: int, s_j: int) -> float:
        key = self._key(i, j, k, s_i, s_j)
        if key not in self.cache:
            self._store(key, self.caller.ask("agreement", [self._ask(scenario, *key)])[0])
        return self.cache[key]


class LLMMIJudge(_UsesCaller):
    """The env's ``mi_judge=`` hook: an LLM scores an intervention 1-5 on 002's four MI dimensions.

    Each dimension is scored only when applicable (the reply may give null); ``mean`` averages
    the scored ones (perceptual is always required). Give it the env (``judge.bind(env)``) to show
    the judge the recent transcript; otherwise it sees the scenario and the context summary.
    """

    name = "llm-mi"

    def __init__(self, backend: Backend, scenario: Scenario, *, transcript_turns: int = 8, **kwargs: Any) -> None:
        self.scenario = scenario
        self.transcript_turns = transcript_turns
        self.caller = _caller(backend, kwargs)
        self.env: Any = None

    def bind(self, env: Any) -> LLMMIJudge:
        self.env = env
        return self

    def __call__(self, intervention: dict[str, Any], ctx: InterventionContext) -> dict[str, float]:
        sc = self.scenario
        names = [t.name for t in sc.topics]
        k = intervention["topic"]
        target = intervention.get("target")
        lines = []
        if self.env is not None:
            lines = [f"[{e['turn']}] {e['speaker']}: {e['text']}" for e in self.env.events[-self.transcript_turns:]]
        situation = {
            "topic_agreement": {names[x]: round(v, 3) for x, v in enumerate(ctx.topic_agreement)},
            "recent_drop_topics": [names[x] for x in ctx.recent_drop_topics], "hostile": ctx.hostile,
            "stalled_topics": [names[x] for x in ctx.stalled_topics],
            "repeating_parties": [sc.parties[x].name for x in ctx.repeating_parties],
            "silent_parties": [sc.parties[x].name for x in ctx.silent_parties],
        }
        prompt = (f"Negotiation: {sc.title or sc.name}.\nRecent conversation:\n" + ("\n".join(lines) or "(not shown)")
                  + f"\nSituation: {json.dumps(situation)}\n\nThe mediator now intervenes with a "
                  f"{intervention['strategy']} move on {names[k]}"
                  + (f", addressed to {sc.parties[target].name}" if target is not None else "") + ".\n"
                  "Score the intervention from 1 (poor) to 5 (excellent) on each dimension where it applies, null "
                  "where it does not: perceptual (does it target the real disagreement or misunderstanding; always "
                  "applies), emotional (does it defuse hostility or distrust), cognitive (does it break repetition "
                  "or a stalemate with new options), communicative (does it bring in sidelined voices). Reply with "
                  'a JSON object {"perceptual": <1-5>, "emotional": <1-5 or null>, "cognitive": <1-5 or null>, '
                  '"communicative": <1-5 or null>}.')

        def parse(reply: str) -> dict[str, float]:
            obj = extract_json(reply)
            out: dict[str, float] = {}
            for d in MI_DIMENSIONS:
                if obj.get(d) is None and d != "perceptual":
                    continue
                out[d] = float(_score_1_5(obj.get(d), f"'{d}'"))
            return out

        def rand(rng: np.random.Generator) -> dict[str, float]:
            return {d: float(rng.integers(1, 6)) for d in MI_DIMENSIONS}

        ans = self.caller.ask("mi", [Ask(prompt, parse, rand)])[0]
        scores = dict(ans.value)
        scores["mean"] = float(np.mean([scores[d] for d in MI_DIMENSIONS if d in scores]))
        if ans.fallback:
            scores["fallback"] = True
        return scores
