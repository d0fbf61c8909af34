"""The scenario schema (pydantic) and its loaders.

A scenario is 002's multi-party, multi-topic negotiation case: a background, N parties and M
topics, each topic with labelled options, and per party a preference ranking over each topic's
options (best first) with unacceptable options marked and optional numeric utilities.

File format (JSON)::

    {"name": "hopkins_hmo", "title": "Hopkins HMO", "background": "...",
     "conflict_mode": "general", "turns_per_party_topic": 2,
     "topics": [{"name": "Contract term", "question": "How long ...?",
                 "options": [{"label": "a", "text": "Two-year contract"}, ...]}],
     "parties": [{"name": "Lee", "role": "...", "goal": "...", "persona": "...",
                  "preferences": {"Contract term": {"ranking": ["a", "b"], "unacceptable": ["b"],
                                                     "utilities": {"a": 1.0, "b": 0.2}}}}]}
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from tom_envs.negotiation.case_rules import (
    PROMEDIATE_FORMAT,
    SCENARIO_FORMAT,
    case_format,
    check_known_keys,
    check_turn_taking,
)
from tom_envs.negotiation.errors import ScenarioError
from tom_envs.negotiation.promediate import read_promediate

ConflictMode = Literal["competing", "avoiding", "accommodating", "general"]
CONFLICT_MODES: tuple[str, ...] = ("accommodating", "avoiding", "general", "competing")
#: 002's difficulty levels and the conflict modes they use.
DIFFICULTY_MODES: dict[str, tuple[str, ...]] = {
    "easy": ("accommodating", "avoiding"),
    "medium": ("general",),
    "hard": ("competing",),
}
BUILTIN_SCENARIOS: tuple[str, ...] = (
    "williams_medical_center",
    "hopkins_hmo",
    "st_francis_hospital",
    "ias",
    "flagship",
    "river_basin",
)
MIN_TURNS = 20  # two disjoint 10-turn windows for consensus change
MAX_TURNS_PER_PARTY_TOPIC = 64  # 002 uses 2 (ProMediate's loop 4); larger is a typo, not a setting
MAX_TURN_BUDGET = 10_000


class Option(BaseModel):
    """One labelled option of a topic (``label`` is short: "a", "B", "1")."""

    model_config = ConfigDict(extra="forbid")
    label: str = Field(min_length=1)
    text: str = Field(min_length=1)


class Topic(BaseModel):
    """A topic (002's "issue") with its question and at least two options."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1)
    question: str = ""
    options: list[Option] = Field(min_length=1)
    #: True when the options could not be parsed (importer) and are kept as one text block.
    options_unparsed: bool = False

    @model_validator(mode="after")
    def _unique_labels(self) -> "Topic":
        labels = [o.label for o in self.options]
        if len(set(labels)) != len(labels):
            raise ValueError(f"topic {self.name!r} repeats an option label: {labels}")
        if len(labels) < 2 and not self.options_unparsed:
            raise ValueError(
                f"topic {self.name!r} has {len(labels)} option; a negotiated topic needs at least two "
                "options (drop the topic or add the alternatives)"
            )
        return self

    @property
    def labels(self) -> list[str]:
        return [o.label for o in self.options]

    def option_text(self, index: int) -> str:
        o = self.options[index]
        return f"({o.label}) {o.text}"


class TopicPreference(BaseModel):
    """A party's preference on one topic.

    Attributes:
        ranking: every option label once, best first (``ranking[0]`` is the first choice).
        unacceptable: options the party blocks ("Block:", "Unacceptable", "Strongly against"); they
            score 0 in the agreement score and scripted parties never propose them.
        utilities: optional number per label; must not contradict ``ranking`` (never higher for a
            worse-ranked option) and must be finite.
        source: where the ranking comes from: ``"given"`` (a tom-envs scenario file), ``"stated"``
            (read from a ProMediate profile's choice lines), ``"prose"`` (our reading of a profile's
            prose, see ``promediate_prose.json``) or ``"listed_order"`` (nothing stated; the importer
            warned).
        unstated: options the profile never mentions (ranked after the stated acceptable ones).
    """

    model_config = ConfigDict(extra="forbid")
    ranking: list[str] = Field(min_length=1)
    unacceptable: list[str] = Field(default_factory=list)
    utilities: dict[str, float] | None = None
    source: Literal["given", "stated", "prose", "listed_order"] = "given"
    unstated: list[str] = Field(default_factory=list)


class TurnTaking(BaseModel):
    """ProMediate's per-participant turn-taking settings (its case ``config``), kept on import.

    ``im_threshold``: intrinsic-motivation score a thought needs to be voiced; ``interrupt_threshold``:
    the score above which a participant may interrupt; ``intervention_threshold``: the score the
    release's GenericMediator needs to intervene; ``system1_prob``: the probability of a fast
    (system-1) reply. The release's loop (``multiparty_conversation_negotiate.py``) uses them. The
    thresholds lie in [1, 5] (the release clips motivation ratings to that scale), the probability in
    [0, 1] (:mod:`tom_envs.negotiation.case_rules`)."""

    model_config = ConfigDict(extra="forbid")
    im_threshold: float | None = Field(default=None, allow_inf_nan=False, ge=1.0, le=5.0)
    interrupt_threshold: float | None = Field(default=None, allow_inf_nan=False, ge=1.0, le=5.0)
    intervention_threshold: float | None = Field(default=None, allow_inf_nan=False, ge=1.0, le=5.0)
    system1_prob: float | None = Field(default=None, allow_inf_nan=False, ge=0.0, le=1.0)


class MediatorProfile(BaseModel):
    """The case's own mediator: its instructions (``persona``, with ``{issues}`` filled by the caller)
    and turn-taking thresholds (the release uses 3.8 for both)."""

    model_config = ConfigDict(extra="forbid")
    persona: str = ""
    turn_taking: TurnTaking | None = None


class Party(BaseModel):
    """A negotiating party: who it is, what it wants, and its preference per topic."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1)
    role: str = ""
    goal: str = ""
    persona: str = ""
    preferences: dict[str, TopicPreference]
    #: free-form extras kept from an import (e.g. ProMediate's raw config entry)
    meta: dict[str, Any] = Field(default_factory=dict)
    #: what the party cares about most, most important first: a profile's "Top priorities" lines, or
    #: topic names where the profile ranks the issues ("Issue IV is the most important issue for you")
    priorities: list[str] = Field(default_factory=list)
    #: ProMediate's turn-taking thresholds for this party (None for self-written scenarios)
    turn_taking: TurnTaking | None = None


class Scenario(BaseModel):
    """A negotiation case (see the module docstring for the file format).

    Attributes:
        turn_budget: explicit number of conversation turns; when None it is
            ``max(20, turns_per_party_topic * parties * topics)`` (002: proportional to both).
    """

    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1)
    title: str = ""
    background: str = Field(min_length=1)
    topics: list[Topic] = Field(min_length=1)
    parties: list[Party] = Field(min_length=2)
    conflict_mode: ConflictMode = "general"
    turns_per_party_topic: int = Field(default=2, ge=1, le=MAX_TURNS_PER_PARTY_TOPIC)
    turn_budget: int | None = Field(default=None, ge=MIN_TURNS, le=MAX_TURN_BUDGET)
    #: the case's own mediator instructions and thresholds (ProMediate imports; None otherwise)
    mediator: MediatorProfile | None = None
    _source: str = PrivateAttr(default="<dict>")

    @model_validator(mode="after")
    def _consistent(self) -> "Scenario":
        _check_unique("topic", [t.name for t in self.topics])
        _check_unique("party", [p.name for p in self.parties])
        topics = {t.name: t for t in self.topics}
        for p in self.parties:
            extra = sorted(set(p.preferences) - set(topics))
            if extra:
                raise ValueError(
                    f"party {p.name!r} has preferences for unknown topics {extra}; topics are {list(topics)}"
                )
            for name, topic in topics.items():
                if topic.options_unparsed:
                    continue
                if name not in p.preferences:
                    raise ValueError(
                        f"party {p.name!r} has no preference for topic {name!r}; add "
                        f'"{name}": {{"ranking": {topic.labels}}} to its preferences'
                    )
                _check_preference(p.name, topic, p.preferences[name])
        if self.turn_budget is None:
            derived = self.turns_per_party_topic * len(self.parties) * len(self.topics)
            if derived > MAX_TURN_BUDGET:
                raise ValueError(
                    f"turns_per_party_topic x parties x topics = {self.turns_per_party_topic} x "
                    f"{len(self.parties)} x {len(self.topics)} = {derived} turns, above the cap of "
                    f"{MAX_TURN_BUDGET}; lower turns_per_party_topic or set turn_budget"
                )
        return self

    # ------------------------------------------------------------------ derived
    @property
    def budget(self) -> int:
        """The number of conversation turns of an episode."""
        if self.turn_budget is not None:
            return self.turn_budget
        return max(MIN_TURNS, self.turns_per_party_topic * len(self.parties) * len(self.topics))

    @property
    def party_names(self) -> list[str]:
        return [p.name for p in self.parties]

    def tom_public_view(self) -> dict[str, Any]:
        """What of the case every seat may know (the env description a policy's ``check_env`` gets,
        :func:`tom_envs.description.public_value`): its name, title, background, topics with their options,
        the parties' names and the turn budget -- never a party's preferences, persona, priorities or
        turn-taking thresholds, which the mediator has to infer."""
        return {
            "name": self.name,
            "title": self.title,
            "background": self.background,
            "topics": [t.model_dump() for t in self.topics],
            "parties": self.party_names,
            "budget": self.budget,
        }

    def rank_matrix(self, party: int, topic: int) -> list[int]:
        """Rank (0 = best) of each option of ``topic`` for ``party``, in option order."""
        t = self.topics[topic]
        ranking = self.parties[party].preferences[t.name].ranking
        return [ranking.index(label) for label in t.labels]

    def acceptability(self, party: int, topic: int) -> list[float]:
        """Per option in [0, 1]: the party's utility when given, else ``(S-1-rank)/(S-1)``; 0 for
        unacceptable options. This is what the structural agreement score uses."""
        t = self.topics[topic]
        pref = self.parties[party].preferences[t.name]
        n = len(t.options)
        if pref.utilities is not None:
            values = [float(pref.utilities[label]) for label in t.labels]
            lo, hi = min(values), max(values)
            out = [1.0 if hi == lo else (v - lo) / (hi - lo) for v in values]
        else:
            out = [1.0 if n == 1 else (n - 1 - r) / (n - 1) for r in self.rank_matrix(party, topic)]
        return [0.0 if label in pref.unacceptable else v for label, v in zip(t.labels, out)]

    def blocks(self, party: int, topic: int, option: int) -> bool:
        """Whether ``party`` blocks option index ``option`` of ``topic`` (its ``unacceptable`` list: the
        release's "Unacceptable", "Block:", "Strongly against"; "barely acceptable" is acceptable)."""
        t = self.topics[topic]
        return t.options[option].label in self.parties[party].preferences[t.name].unacceptable

    def top_option(self, party: int, topic: int) -> int:
        """Index of the party's first choice on the topic."""
        return self.rank_matrix(party, topic).index(0)

    # ------------------------------------------------------------------ loaders
    @property
    def source(self) -> str:
        """Where the scenario was read from (a file path, ``built-in scenario NAME`` or ``<dict>``)."""
        return self._source

    @classmethod
    def from_dict(cls, data: object, source: str = "<dict>") -> "Scenario":
        """Validate a mapping in the project's format; errors become :class:`ScenarioError` naming ``source``
        (unknown keys :class:`UnknownKeyError`, turn-taking values out of range :class:`ThresholdRangeError`)."""
        if isinstance(data, dict):
            _check_raw(data, source)
        try:
            scenario = cls.model_validate(data)
        except ValidationError as exc:
            raise ScenarioError(
                f"{source}: invalid {SCENARIO_FORMAT}:\n{_explain(exc)}\nSee "
                "tom_envs.negotiation.scenario for the file format."
            ) from None
        scenario._source = source
        return scenario

    @classmethod
    def from_file(cls, path: str | Path) -> "Scenario":
        """Load a scenario JSON file (see the module docstring for the format)."""
        p = Path(path)
        if not p.is_file():
            what = "is a folder, not a scenario file" if p.is_dir() else "no such scenario file"
            raise ScenarioError(
                f"{p}: {what}; pass a path to a JSON file or one of the built-in names {', '.join(BUILTIN_SCENARIOS)}"
            )
        try:
            data = json.loads(p.read_bytes().decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise ScenarioError(
                f"{p}: not a UTF-8 text file (byte {exc.start}: {exc.reason}); a scenario is a JSON file"
            ) from None
        except json.JSONDecodeError as exc:
            raise ScenarioError(f"{p}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
        if case_format(data, str(p)) == PROMEDIATE_FORMAT:
            return cls.from_promediate(p)  # a ProMediate case file (the release's own format)
        return cls.from_dict(data, str(p))

    @classmethod
    def from_promediate(cls, path: str | Path, name: str | None = None, strict: bool = False) -> "Scenario":
        """Import a ProMediate-Eval case file (see :mod:`tom_envs.negotiation.promediate`); with
        ``strict`` a party-topic pair with no stated first choice is a :class:`PromediateImportError`."""
        return cls.from_dict(read_promediate(path, name=name, strict=strict), str(path))

    @classmethod
    def builtin(cls, name: str) -> "Scenario":
        """One of our six built-in scenarios (see :data:`BUILTIN_SCENARIOS`): self-written stand-ins on
        002's Appendix B.1 topics with invented parties and preferences, kept for CI; the authors' cases
        come from ``data download negotiation`` (:mod:`tom_envs.negotiation.download`)."""
        return load_builtin(name)


def _check_raw(data: dict, source: str) -> None:
    """Unknown keys at every level and turn-taking values out of range, before the schema (whose messages
    name neither the known keys nor the ranges' reason)."""
    _known_keys(data, Scenario, source)
    parties = data.get("parties")
    for i, party in enumerate(parties if isinstance(parties, list) else []):
        if isinstance(party, dict) and party.get("turn_taking") is not None:
            check_turn_taking(party["turn_taking"], f"{source}: parties[{i}].turn_taking", SCENARIO_FORMAT)
    mediator = data.get("mediator")
    if isinstance(mediator, dict) and mediator.get("turn_taking") is not None:
        check_turn_taking(mediator["turn_taking"], f"{source}: mediator.turn_taking", SCENARIO_FORMAT)


def _known_keys(data: dict, model: type[BaseModel], source: str, path: str = "") -> None:
    """:func:`check_known_keys` on ``data`` against ``model`` and on every nested object its fields hold
    (``path``: where ``data`` sits in the file, e.g. ``parties[0].preferences['Contract term']``)."""
    check_known_keys(data, model.model_fields, f"{source}: {path}" if path else source, SCENARIO_FORMAT)
    for name, value in data.items():
        inner, shape = _submodel(model.model_fields[name].annotation)
        at = f"{path}.{name}" if path else name
        if shape == "list" and isinstance(value, list):
            items = [(f"{at}[{k}]", v) for k, v in enumerate(value)]
        elif shape == "dict" and isinstance(value, dict):
            items = [(f"{at}[{k!r}]", v) for k, v in value.items()]
        else:
            items = [(at, value)] if shape == "one" else []
        for where, item in items:
            if isinstance(item, dict):
                _known_keys(item, inner, source, where)


def _submodel(annotation: Any) -> tuple[type[BaseModel] | None, str]:
    """The model a field holds and how: ``("one" | "list" | "dict")``; (None, "") for plain values."""
    origin, args = get_origin(annotation), get_args(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation, "one"
    if origin is list and args and isinstance(args[0], type) and issubclass(args[0], BaseModel):
        return args[0], "list"
    if origin is dict and len(args) == 2 and isinstance(args[1], type) and issubclass(args[1], BaseModel):
        return args[1], "dict"
    for arg in args:  # X | None
        if isinstance(arg, type) and issubclass(arg, BaseModel):
            return arg, "one"
    return None, ""


def _check_unique(what: str, names: list[str]) -> None:
    seen = set()
    for n in names:
        if n in seen:
            raise ValueError(f"two {what}s are named {n!r}; names must be unique")
        seen.add(n)


def _check_preference(party: str, topic: Topic, pref: TopicPreference) -> None:
    labels = topic.labels
    where = f"party {party!r}, topic {topic.name!r}"
    if sorted(pref.ranking) != sorted(labels):
        raise ValueError(f"{where}: the ranking {pref.ranking} must list each option label exactly once: {labels}")
    bad = [u for u in pref.unacceptable if u not in labels]
    if bad:
        raise ValueError(f"{where}: unacceptable options {bad} are not option labels {labels}")
    if len(set(pref.unacceptable)) >= len(labels):
        raise ValueError(f"{where}: every option is unacceptable; leave at least one acceptable option")
    if pref.utilities is not None and sorted(pref.utilities) != sorted(labels):
        raise ValueError(
            f"{where}: utilities must give one number per option label {labels}, got {sorted(pref.utilities)}"
        )
    if pref.utilities is not None:
        bad_u = {k: v for k, v in pref.utilities.items() if not math.isfinite(v)}
        if bad_u:
            raise ValueError(f"{where}: utilities must be finite numbers, got {bad_u}")
        spread = max(pref.utilities.values()) - min(pref.utilities.values())
        if not math.isfinite(spread):
            raise ValueError(
                f"{where}: utilities span {min(pref.utilities.values())} .. {max(pref.utilities.values())}"
                ", a range too wide for a float (it overflows when normalised); rescale them, e.g. to 0..1"
            )
        for better, worse in zip(pref.ranking, pref.ranking[1:]):
            if pref.utilities[worse] > pref.utilities[better]:
                raise ValueError(
                    f"{where}: utilities contradict the ranking: {worse!r} is ranked below {better!r} but "
                    f"has the higher utility ({pref.utilities[worse]} > {pref.utilities[better]}); fix one"
                )


def _explain(exc: ValidationError) -> str:
    lines = []
    for err in exc.errors():
        loc = ".".join(str(x) for x in err["loc"]) or "(top level)"
        lines.append(f"  - {loc}: {err['msg']}")
    return "\n".join(lines)


@lru_cache(maxsize=None)
def load_builtin(name: str) -> Scenario:
    """A built-in scenario by name (cached; scenarios are immutable in practice)."""
    if name not in BUILTIN_SCENARIOS:
        raise ScenarioError(
            f"unknown built-in scenario {name!r}; choose from {', '.join(BUILTIN_SCENARIOS)} "
            "or pass a path to a scenario file"
        )
    text = resources.files("tom_envs.negotiation").joinpath("scenarios", f"{name}.json").read_text(encoding="utf-8")
    return Scenario.from_dict(json.loads(text), f"built-in scenario {name}")


def resolve_scenario(scenario: "str | Path | Scenario | dict") -> Scenario:
    """A scenario from a built-in name, a file path, a mapping or a :class:`Scenario`."""
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, dict):
        return Scenario.from_dict(scenario)
    if isinstance(scenario, str) and scenario in BUILTIN_SCENARIOS:
        return load_builtin(scenario)
    if isinstance(scenario, (str, Path)):
        return Scenario.from_file(scenario)
    raise ScenarioError(
        f"scenario must be a built-in name, a path, a dict or a Scenario; got {type(scenario).__name__}"
    )
