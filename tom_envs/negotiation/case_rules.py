"""The rules a negotiation case is held to in either format, and the bound on the work one episode implies.

Both loaders use them: :mod:`tom_envs.negotiation.promediate` (the release's case format) and
:meth:`Scenario.from_dict <tom_envs.negotiation.scenario.Scenario.from_dict>` (the project's own format);
the env checks the work bound (:func:`check_work`). ``docs/negotiation.md`` ("Case-file rules") lists them.

* **Format first** (:func:`case_format`): a file's keys tell which format it is in, and every message
  speaks that format.
* **Known keys only** (:func:`check_known_keys`): the message lists the known ones.

* **Turn-taking values** (a ProMediate case's ``config`` entries, a scenario's ``turn_taking``): the
  thresholds ``im_threshold``, ``interrupt_threshold`` and ``intervention_threshold`` are compared with
  ``>=`` to a thought's intrinsic-motivation rating, which the release clips to [1, 5]
  (``thoughtful_agents/utils/thinking_engine.py``: "Ensure the rating is between 1.0 and 5.0"); a threshold
  outside [1, 5] cannot be told from 1 (every thought passes) or lets no thought pass, so it is an error.
  ``system1_prob`` is a probability, in [0, 1].
* **Work**: what an episode costs, measured by profiling large cases (``docs/negotiation.md``, "Case-file
  rules"), is two loops: every turn each party weighs every topic against every party's stance (and
  consensus is tracked over every pair of parties on every topic), and every turn each seat is handed
  the transcript so far. The figure is ``turns x (parties x topics x (parties + 36) + turns x seats)``,
  36 being what one party-topic decision costs beyond reading the stances (fitted on one core: about
  0.3 us per unit); the bound is on that figure.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from tom_envs.negotiation.errors import CaseTooLargeError, ScenarioError, ThresholdRangeError, UnknownKeyError

#: the names the two formats go by in messages
PROMEDIATE_FORMAT = "ProMediate case"
SCENARIO_FORMAT = "tom-envs scenario"
#: a ProMediate case's keys (the release's ``multiparty_conversation_negotiate.py`` reads them; ``topics`` optional)
PROMEDIATE_KEYS = ("instruction", "issues", "options", "config", "names", "topics")
PROMEDIATE_REQUIRED = ("instruction", "issues", "options", "config", "names")
#: keys only the project's format has (:class:`~tom_envs.negotiation.scenario.Scenario`'s fields but ``topics``)
SCENARIO_ONLY_KEYS = (
    "name",
    "title",
    "background",
    "parties",
    "conflict_mode",
    "turns_per_party_topic",
    "turn_budget",
    "mediator",
)
#: the release's ``proactivity_config`` keys (``intervention_threshold``: its GenericMediator only)
TURN_TAKING_RANGES: dict[str, tuple[float, float]] = {
    "im_threshold": (1.0, 5.0),
    "interrupt_threshold": (1.0, 5.0),
    "intervention_threshold": (1.0, 5.0),
    "system1_prob": (0.0, 1.0),
}
#: a party's decision on a topic costs about as much as reading this many stances (fitted, see above)
DECISION_COST = 36
#: the bound on an episode's work figure (:func:`episode_work`): about 5-7 s of a scripted episode on one
#: core; the largest released case, Flagship with the release's budget and LLM parties, is 161,280
MAX_EPISODE_WORK = 20_000_000


def case_format(data: object, source: str = "<dict>") -> str:
    """Which format a case file's JSON value is in: :data:`PROMEDIATE_FORMAT` (an object with keys only a
    ProMediate case has: instruction, issues, options, config, names) or :data:`SCENARIO_FORMAT` (keys
    only a tom-envs scenario has); a :class:`ScenarioError` for an object with keys of both formats or
    of neither, or a value that is not an object."""
    if not isinstance(data, dict):
        raise ScenarioError(
            f"{source}: is a JSON {_json_kind(data)}; a case file is a JSON object, either a "
            f"{SCENARIO_FORMAT} (keys name, background, topics, parties, ...) or a {PROMEDIATE_FORMAT} "
            f"(keys {', '.join(PROMEDIATE_REQUIRED)})"
        )
    release = [k for k in data if k in PROMEDIATE_REQUIRED]
    own = [k for k in data if k in SCENARIO_ONLY_KEYS]
    if release and own:
        raise ScenarioError(
            f"{source}: mixes the keys of a {PROMEDIATE_FORMAT} ({', '.join(release)}) with those of "
            f"a {SCENARIO_FORMAT} ({', '.join(own)}); a file is in one format: a {PROMEDIATE_FORMAT} "
            f"has {', '.join(PROMEDIATE_REQUIRED)} (topics optional), a {SCENARIO_FORMAT} has "
            "name, background, topics and parties"
        )
    if release:
        return PROMEDIATE_FORMAT
    if own:
        return SCENARIO_FORMAT
    raise ScenarioError(
        f"{source}: is neither a {SCENARIO_FORMAT} (keys name, background, topics, parties, ...) "
        f"nor a {PROMEDIATE_FORMAT} (keys {', '.join(PROMEDIATE_REQUIRED)}); its keys are "
        f"{sorted(map(str, data))}. See docs/negotiation.md for both formats"
    )


def _json_kind(value: object) -> str:
    return {list: "array", str: "string", int: "number", float: "number", bool: "boolean"}.get(type(value), "null")


def check_known_keys(data: Mapping[str, Any], known: Iterable[str], where: str, fmt: str) -> None:
    """An :class:`UnknownKeyError` naming ``where``, the unknown keys and the known ones."""
    known = tuple(known)
    unknown = [str(k) for k in data if k not in known]
    if unknown:
        raise UnknownKeyError(
            f"{where}: unknown key{'s' if len(unknown) > 1 else ''} {unknown} in a {fmt}; the known "
            f"keys here are {', '.join(known)}. Fix the spelling or remove the key"
        )


def check_turn_taking(values: Any, where: str, fmt: str) -> dict[str, float]:
    """A turn-taking mapping's values, checked: an object, known keys only, finite numbers in range."""
    if not isinstance(values, Mapping):
        raise ScenarioError(
            f"{where}: must be an object with turn-taking values ({', '.join(TURN_TAKING_RANGES)}), "
            f"got {type(values).__name__}"
        )
    check_known_keys(values, TURN_TAKING_RANGES, where, fmt)
    out = {}
    for key, value in values.items():
        if value is None and fmt == SCENARIO_FORMAT:
            continue  # the schema's "not given"
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ScenarioError(f"{where}: {key} must be a finite number in {_range(key)}, got {value!r}")
        lo, hi = TURN_TAKING_RANGES[key]
        if not lo <= value <= hi:
            raise ThresholdRangeError(
                f"{where}: {key} = {value!r} is outside {_range(key)}; {_why(key)}. Set it "
                f"within the range (the released cases use {_released(key)})"
            )
        out[key] = value
    return out


def _range(key: str) -> str:
    lo, hi = TURN_TAKING_RANGES[key]
    return f"[{lo:g}, {hi:g}]"


def _why(key: str) -> str:
    if key == "system1_prob":
        return "it is a probability"
    return (
        "the release compares it with a thought's intrinsic-motivation rating, which it clips to [1, 5] "
        "(below 1 every thought passes, above 5 none does)"
    )


def _released(key: str) -> str:
    return {
        "im_threshold": "3.0, and 3.8 for the mediator",
        "interrupt_threshold": "2.5, and 3.8 for the mediator",
        "system1_prob": "0 and 0.4",
        "intervention_threshold": "none; its GenericMediator defaults to 3.0",
    }[key]


def episode_work(parties: int, topics: int, turns: int, seats: int = 1) -> int:
    """The work figure of an episode: ``turns x (parties x topics x (parties + 36) + turns x seats)``."""
    turns = int(turns)
    return turns * (int(parties) * int(topics) * (int(parties) + DECISION_COST) + turns * int(seats))


def check_work(
    source: str, parties: int, topics: int, turns: int, seats: int = 1, max_work: int = MAX_EPISODE_WORK
) -> int:
    """The episode's work figure; a :class:`CaseTooLargeError` when it is above ``max_work``."""
    work = episode_work(parties, topics, turns, seats)
    if work > max_work:
        raise CaseTooLargeError(
            f"{source}: an episode of this case would cost {work:,} units of work (turns x (parties x topics x "
            f"(parties + {DECISION_COST}) + turns x seats) = {turns} x ({parties} x {topics} x "
            f"{parties + DECISION_COST} + {turns} x {seats})), above the bound of {max_work:,}, "
            f"{work / max_work:.3g} times over (a unit is about 0.3 us of one core). Use fewer parties, topics or "
            "turns (the env's turn_budget=, '--budget paper' on the command line, turns_per_party_topic or "
            f"turn_budget in a tom-envs scenario file), or raise the bound: max_work={work} for the env, "
            f"--max-work {work} for 'python -m benchmarks negotiation'"
        )
    return work


__all__ = [
    "DECISION_COST",
    "MAX_EPISODE_WORK",
    "PROMEDIATE_FORMAT",
    "PROMEDIATE_KEYS",
    "PROMEDIATE_REQUIRED",
    "SCENARIO_FORMAT",
    "SCENARIO_ONLY_KEYS",
    "TURN_TAKING_RANGES",
    "case_format",
    "check_known_keys",
    "check_turn_taking",
    "check_work",
    "episode_work",
]
