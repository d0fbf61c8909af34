"""LLM parties for the negotiation env (seed 002), and what every negotiation LLM component shares.

Every LLM decision is an :class:`~policies.llm.caller.Ask` decided by the one caller
(:class:`~policies.llm.caller.Caller`): one prompt per decision, all decisions of a stage in ONE
``backend.generate`` call; replies must contain a JSON object, parsed and validated against the
scenario. A reply that does not parse is re-asked (fresh seed, with a note saying what was wrong) up
to ``max_resamples`` times, one call per re-ask round for all pending
decisions; every failure is counted. After the bound the ``fallback`` applies: ``"raise"``
(:class:`~policies.llm.errors.ResampleLimitReached`) or ``"random"`` (a random valid value from the
component's seeded generator, flagged in the log and counted in ``stats["fallbacks"]``) -- never a
silent default. Prompts are data in :mod:`policies.negotiation.llm.prompts`.

* :class:`LLMParty` -- a party seat. How it decides a turn is a :class:`PartyStrategy` from
  :data:`PARTY_STRATEGIES`; the default, :class:`InnerThoughts`, is thought (topic, option, private
  reasoning) -> motivation score (1-5) -> articulation (act, tone, utterance), giving the env's
  structured dict action. :meth:`LLMParty.act_parties` runs several parties sharing a backend with
  one call per stage for all of them.
* :class:`PartyTeam` -- every LLM party seat of an env as one policy for the runner
  (:func:`benchmarks.runner.play_aec`), each turn decided by :meth:`LLMParty.act_parties`.

The mediator is in :mod:`policies.negotiation.llm.mediator`, the judges and the attitude extractor
in :mod:`policies.negotiation.llm.judges`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from policies.base import BasePolicy
from policies.negotiation.llm import prompts as P
from policies.llm.base import Backend
from policies.llm.caller import Ask, Caller
from policies.llm.errors import InvalidPolicyConfig, ReplyError, TextObservationNeeded, UnknownStrategy
from policies.negotiation.llm.common import (
    PartyStrategy,
    ask_for,
    checked,
    parse_articulation,
    random_topic_option,
    reply_option,
)
from policies.llm.parsing import extract_json, score_1_5
from tom_envs.errors import require_bool
from tom_envs.negotiation.actions import party_index, topic_index
from tom_envs.negotiation.errors import NegotiationActionError
from tom_envs.negotiation.scenario import Scenario

#: Defaults of the negotiation components' caller.
DEFAULT_RESAMPLES = 2
DEFAULT_MAX_TOKENS = 256


# --------------------------------------------------------------------------------------------- the caller


class LLMCaller(Caller):
    """The :class:`~policies.llm.caller.Caller` with the negotiation defaults: 2 re-asks, 256 tokens,
    and a re-ask note (:data:`~policies.negotiation.llm.prompts.REASK_NOTE`). Keyword arguments are
    the caller's (``max_resamples``, ``fallback``, ``temperature``,
    ``max_tokens``, ``seed``)."""

    def __init__(self, backend: Backend, **kwargs: Any) -> None:
        if kwargs.get("max_resamples") is None:
            kwargs["max_resamples"] = DEFAULT_RESAMPLES
        if kwargs.get("max_tokens") is None:  # None: the negotiation default, never an uncapped reply
            kwargs["max_tokens"] = DEFAULT_MAX_TOKENS
        super().__init__(backend, reask_note=P.REASK_NOTE, **kwargs)


class UsesCaller:
    """What every negotiation LLM component shares: a :class:`LLMCaller`, ``stats`` (its counters)
    and ``reset(seed)``, which reseeds the caller and zeroes the counters (after the parent class's
    reset, for policies)."""

    caller: Caller

    @property
    def stats(self) -> dict[str, int]:
        return self.caller.stats

    def reset(self, seed: int | None = None) -> None:
        parent = getattr(super(), "reset", None)
        if parent is not None:
            parent(seed)
        self.caller.reset(seed)

    def reset_batch(self, seeds: Sequence[int | None]) -> None:
        """Not available: see :func:`one_episode_at_a_time`."""
        raise one_episode_at_a_time(self)


def one_episode_at_a_time(component: Any) -> InvalidPolicyConfig:
    """The error for lockstep across episodes, which the LLM parties and the judges do not offer yet
    (:class:`~policies.negotiation.llm.mediator.LLMMediator` does): they batch within an episode (every
    party of a turn in one call per stage), and copying one per episode slot would copy its backend."""
    return InvalidPolicyConfig(
        f"{type(component).__name__} plays one negotiation episode at a time (it batches the parties of a turn, "
        "not episodes); run its episodes with benchmarks.runner.play_aec, not play_aec_lockstep"
    )


# --------------------------------------------------------------------------------------------- scenario helpers


def topics_text(scenario: Scenario) -> str:
    """The topics and their lettered options, one per line."""
    lines = []
    for t in scenario.topics:
        lines.append(P.TOPIC_LINE.format(name=t.name, question=t.question).rstrip(": "))
        lines += [P.OPTION_LINE.format(label=o.label, text=o.text) for o in t.options]
    return "\n".join(lines)


def party_names(scenario: Scenario) -> str:
    return ", ".join(p.name for p in scenario.parties)


def seat_text(observation: Any, who: str) -> str:
    """The text a seat observes (the env wrapped in ``wrappers.AECTextObservation``).

    Raises:
        TextObservationNeeded: ``observation`` is not text (e.g. the env's numeric vector).
    """
    if not isinstance(observation, str):
        raise TextObservationNeeded(
            f"{who} reads the text of its seat, got a {type(observation).__name__} observation; wrap the env in "
            "wrappers.AECTextObservation (e.g. AECTextObservation(tom_envs.make_aec('tom/Negotiation-v1')))."
        )
    return observation


def checked_config(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` with the env's :class:`NegotiationActionError` turned into :class:`InvalidPolicyConfig`."""
    try:
        return fn(*args)
    except NegotiationActionError as exc:
        raise InvalidPolicyConfig(str(exc)) from None


# --------------------------------------------------------------------------------------------- party strategies


def _index(party: Any, position: int) -> int:
    """The party's index in the scenario (the env's tie-break), else its position in the team."""
    return party.party if getattr(party, "party", None) is not None else position


class InnerThoughts(PartyStrategy):
    """Inner Thoughts: a private thought (topic, option) -> motivation (1-5) -> articulation."""

    name = "inner_thoughts"

    def decide(
        self, lead: Caller, parties: Sequence[LLMParty], texts: Sequence[str], state: dict | None = None
    ) -> list[Any]:
        thoughts = ask_for(parties, lead, "thought", [self.thought(p, t) for p, t in zip(parties, texts)])
        speaking = [j for j, a in enumerate(thoughts) if a.value is not None]
        speakers = [parties[j] for j in speaking]
        chosen = [(parties[j], texts[j], thoughts[j].value) for j in speaking]
        scores = ask_for(speakers, lead, "motivation", [self.motivation(*c) for c in chosen])
        # only the most motivated of the team can take the floor (the env gives it to the highest motivation,
        # ties to the lowest party index): the others' lines would never be said, so they are not worded
        top = max(
            range(len(speaking)),
            key=lambda n: (scores[n].value, -_index(parties[speaking[n]], speaking[n])),
            default=None,
        )
        worded = [] if top is None else [speaking[top]]
        words = dict(
            zip(
                worded,
                ask_for(
                    [parties[j] for j in worded],
                    lead,
                    "articulation",
                    [self.articulation(*chosen[top])] if top is not None else [],
                ),
            )
        )
        actions: list[Any] = [0] * len(parties)
        for p, a in zip(parties, thoughts):
            p.last = {"thought": a.value, "fallback": {"thought": a.fallback}}
        for j, s in zip(speaking, scores):
            th, w = thoughts[j].value, words.get(j)
            said = w.value if w is not None else {"act": "propose", "tone": "neutral", "utterance": None}
            action = {
                "topic": th["topic"],
                "option": th["option"],
                "act": said["act"],
                "tone": said["tone"],
                "motivation": (s.value - 1) / 4.0,
            }
            if said["utterance"] is not None:
                action["utterance"] = said["utterance"]
            actions[j] = action
            parties[j].last.update(
                {"score": s.value, "articulation": w.value if w is not None else None, "action": action}
            )
            parties[j].last["fallback"].update(
                {"motivation": s.fallback, "articulation": w.fallback if w is not None else None}
            )
        return actions

    @staticmethod
    def thought(party: LLMParty, text: str) -> Ask:
        sc = party.scenario
        allow_pass = party.allow_pass
        prompt = P.PARTY_THOUGHT.format(text=text, pass_line=P.PASS_LINE if allow_pass else "")

        def parse(text: str) -> dict | None:
            obj = extract_json(text)
            if allow_pass and obj.get("pass") is True:
                return None
            if "topic" not in obj or "option" not in obj:
                raise ReplyError("the JSON object needs 'topic' and 'option'")
            k = checked(topic_index, sc, obj["topic"], "thought")
            o = reply_option(sc, k, obj["option"], "thought")
            thought = obj.get("thought", "")
            if not isinstance(thought, str):
                raise ReplyError("'thought' must be a string")
            return {"topic": k, "option": o, "thought": thought}

        def rand(rng: np.random.Generator) -> dict:
            k, o = random_topic_option(sc, rng)
            return {"topic": k, "option": o, "thought": ""}

        return Ask(prompt, parse, rand)

    @staticmethod
    def _fields(party: LLMParty, text: str, thought: dict) -> dict[str, str]:
        t = party.scenario.topics[thought["topic"]]
        option = t.options[thought["option"]]
        return {
            "text": text,
            "thought": thought["thought"] or P.NO_THOUGHT,
            "topic": t.name,
            "label": option.label,
            "option": option.text,
        }

    def motivation(self, party: LLMParty, text: str, thought: dict) -> Ask:
        prompt = P.PARTY_MOTIVATION.format(**self._fields(party, text, thought))
        return Ask(
            prompt,
            lambda text: score_1_5(extract_json(text).get("score"), "'score'"),
            lambda rng: int(rng.integers(1, 6)),
        )

    def articulation(self, party: LLMParty, text: str, thought: dict) -> Ask:
        prompt = P.PARTY_ARTICULATION.format(**self._fields(party, text, thought))

        def rand(rng: np.random.Generator) -> dict:
            return {"act": ("propose", "accept")[int(rng.integers(2))], "tone": "neutral", "utterance": None}

        return Ask(prompt, parse_articulation, rand)


#: Party strategies by name (``LLMParty(strategy=...)``); ``"release"`` (the release's own loop,
#: :class:`policies.negotiation.llm.loop.ReleaseLoop`) is added on first use.
PARTY_STRATEGIES: dict[str, type[PartyStrategy]] = {"inner_thoughts": InnerThoughts}


def party_strategies() -> dict[str, type[PartyStrategy]]:
    """:data:`PARTY_STRATEGIES` with the release loop registered."""
    if "release" not in PARTY_STRATEGIES:
        from policies.negotiation.llm.loop import ReleaseLoop

        PARTY_STRATEGIES["release"] = ReleaseLoop
    return PARTY_STRATEGIES


# --------------------------------------------------------------------------------------------- parties


class LLMParty(UsesCaller, BasePolicy):
    """A party seat played by an LLM.

    Args:
        backend: the model.
        scenario: the env's scenario (``env.scenario``), used to validate replies.
        allow_pass: the thought may be ``{"pass": true}`` (the seat then passes with action 0).
        strategy: a name in :data:`PARTY_STRATEGIES`: ``"inner_thoughts"`` (default: thought, motivation
            and words every turn for every party; the env lets the most motivated speak) or ``"release"``
            (ProMediate-Eval's loop with memory, saliency, turn allocation and thresholds; only the chosen
            speaker's thought is articulated, see :mod:`policies.negotiation.llm.loop`).
        party: which party of the scenario this is (index or name; :class:`PartyTeam` sets it from the
            seat); the release loop needs it.
        **caller_kwargs: ``max_resamples``, ``fallback``,
            ``temperature``, ``max_tokens``; see :class:`LLMCaller`.

    ``act(obs, info)`` reads the seat's text ``obs`` (the env wrapped in
    ``wrappers.AECTextObservation``) and returns the env's dict action
    ``{"topic", "option", "act", "tone", "motivation", "utterance"}`` (motivation ``(score-1)/4``)
    or 0 to pass. ``last`` holds the latest thought, score, articulation and fallback flags.
    """

    name = "llm-party"

    def __init__(
        self,
        backend: Backend,
        scenario: Scenario,
        *,
        allow_pass: bool = True,
        strategy: str = "inner_thoughts",
        party: int | str | None = None,
        **caller_kwargs: Any,
    ) -> None:
        super().__init__()
        strategies = party_strategies()
        if strategy not in strategies:
            raise UnknownStrategy(f"unknown party strategy {strategy!r}; choose one of: {', '.join(strategies)}.")
        self.scenario = scenario
        self.allow_pass = require_bool("allow_pass", allow_pass)
        self.strategy = strategies[strategy]()
        self.party: int | None = None
        if party is not None:
            self.party = checked_config(party_index, scenario, party, "party")
        self.caller = LLMCaller(backend, **caller_kwargs)
        self.last: dict[str, Any] = {}
        self.mind: Any = None  # the release loop's memories and thoughts (per episode)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)  # BasePolicy, then the caller
        self.last = {}
        self.mind = None

    def act(self, observation: Any, info: dict) -> Any:
        return LLMParty.act_parties([self], [observation])[0]

    @staticmethod
    def act_parties(parties: Sequence[LLMParty], observations: Sequence[Any], state: dict | None = None) -> list[Any]:
        """Actions of several parties for one turn: one backend call per stage (and re-ask round) for all.

        ``observations`` are what the parties' seats observe: their text (the env wrapped in
        ``wrappers.AECTextObservation``). The parties must share one backend and strategy; the
        first party's caller runs the batch (its seed, call list and log), and each party's
        ``last`` and ``stats`` record its own decisions. ``state`` (``events``, ``turn``,
        ``conflict_mode``) is the conversation for strategies that need it (the release loop).

        Raises:
            TextObservationNeeded: an observation is not text.
        """
        if not parties:
            return []
        lead = parties[0].caller
        if any(p.caller.backend is not lead.backend for p in parties):
            raise InvalidPolicyConfig("LLMParty.act_parties needs parties that share one backend")
        if any(p.strategy.name != parties[0].strategy.name for p in parties):
            raise InvalidPolicyConfig("LLMParty.act_parties needs parties that share one strategy")
        texts = [seat_text(obs, "LLMParty") for obs in observations]
        return parties[0].strategy.decide(lead, parties, texts, state)


class PartyTeam(BasePolicy):
    """LLM parties in the party seats of one negotiation env, deciding each turn together.

    The runner (:func:`benchmarks.runner.play_aec`) asks for one seat at a time. When it first asks
    for a party seat in a turn, the team decides for every live party seat at once
    (:meth:`LLMParty.act_parties`: one backend call per prompting stage for all of them), keeps those
    actions and hands them out as the runner reaches each seat. Use the same team for every party
    seat: ``play_aec(env, {**team.seats(), MEDIATOR: mediator}, seed)``.

    Args:
        env: the AEC env it plays in, wrapped in ``wrappers.AECTextObservation`` (it reads the seat
            to move and what every live party seat observes).
        parties: seat -> LLM party (they share one backend).
    """

    name = "llm-parties"

    def __init__(self, env: Any, parties: Mapping[str, LLMParty]) -> None:
        super().__init__()
        self.env = env
        self.parties = dict(parties)
        for seat, party in self.parties.items():
            if party.party is None and seat.startswith("party_"):
                party.party = int(seat.split("_")[1])
        self._pending: dict[str, Any] = {}
        #: per turn the parties decided: ``{"turn", "parties": {name: what it thought}}`` -- each party's
        #: thoughts, their motivation scores, the predicted turn allocation, the thought it voiced and how
        #: it was worded, and which stages fell back to random (its ``last``); the record's ``party_log``
        self.log: list[dict[str, Any]] = []

    def seats(self) -> dict[str, PartyTeam]:
        """Seat -> this team, for the runner's seat -> policy mapping."""
        return dict.fromkeys(self.parties, self)

    @property
    def stats(self) -> dict[str, int]:
        """The parties' counters, summed."""
        out: dict[str, int] = {}
        for party in self.parties.values():
            for key, value in party.stats.items():
                out[key] = out.get(key, 0) + value
        return out

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._pending = {}
        self.log = []
        for i, party in enumerate(self.parties.values()):
            party.reset(None if seed is None else seed + 1 + i)

    def reset_batch(self, seeds: Sequence[int | None]) -> None:
        """Not available: see :func:`one_episode_at_a_time`."""
        raise one_episode_at_a_time(self)

    def act(self, observation: Any, info: dict) -> Any:
        seat = self.env.agent_selection
        if seat not in self._pending:
            live = [a for a in self.env.agents if a in self.parties]
            base = self.env.unwrapped
            state = {"events": base.events, "turn": base.turn, "conflict_mode": getattr(base, "conflict_mode", None)}
            actions = LLMParty.act_parties([self.parties[a] for a in live], [self.env.observe(a) for a in live], state)
            self._pending = dict(zip(live, actions))
            names = base.scenario.party_names
            self.log.append(
                {
                    "turn": base.turn + 1,
                    "parties": {names[int(a.split("_")[1])]: _jsonable(self.parties[a].last) for a in live},
                }
            )
        return self._pending.pop(seat)


def _jsonable(value: Any) -> Any:
    """``value`` with numpy scalars as plain numbers and tuples as lists (for the results file)."""
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


__all__ = [
    "PARTY_STRATEGIES",
    "party_strategies",
    "InnerThoughts",
    "LLMCaller",
    "LLMParty",
    "PartyStrategy",
    "PartyTeam",
    "UsesCaller",
]
