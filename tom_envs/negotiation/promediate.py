"""Importer for ProMediate-Eval case files (``Scenario.from_promediate``).

A case (github.com/microsoft/ProMediate-Eval, ``cases/*.json``) is a JSON object with
``instruction`` (background with ``{issues}``/``{options}`` placeholders), ``issues`` and ``options``
(text), ``config`` (per participant: ``im_threshold``, ``system1_prob``, ``interrupt_threshold``; the
mediator is "Mediator"), ``names`` (participant -> Markdown profile) and sometimes ``topics``.

This module reads and checks the file and assembles the scenario's fields; the pieces it reads with
live beside it: topics and options (:mod:`~tom_envs.negotiation.promediate_options`), a profile's
sections, role, goal and priorities (:mod:`~tom_envs.negotiation.promediate_profiles`) and a party's
stated preference on each topic (:mod:`~tom_envs.negotiation.promediate_preferences`, which also holds
our readings of prose-only profiles). Every participant but the mediator becomes a party; its
profile is its persona, and the case's config gives ``turn_taking`` (the mediator's goes to
``Scenario.mediator``).

Nothing falls back silently: a party-topic pair with no stated first choice gets the listed option
order, ``source="listed_order"`` and one :class:`PromediateFormatWarning` naming the party and topic
(``strict=True`` raises :class:`PromediateImportError` instead). Options a profile never mentions
are ranked after the mentioned acceptable ones and listed in ``unstated``.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from tom_envs.errors import json_object, require_bool
from tom_envs.negotiation.case_rules import (
    PROMEDIATE_FORMAT,
    PROMEDIATE_KEYS,
    PROMEDIATE_REQUIRED,
    case_format,
    check_known_keys,
    check_turn_taking,
)
from tom_envs.negotiation.errors import EmptyIssuesError, PromediateFormatWarning, PromediateImportError, ScenarioError
from tom_envs.negotiation.promediate_options import parse_options, read_topics, topic_blocks
from tom_envs.negotiation.promediate_preferences import prose_reading, read_topic
from tom_envs.negotiation.promediate_profiles import (
    named_section,
    priorities,
    profile_field,
    profile_section,
    topic_sections,
)

MEDIATOR_NAMES = ("mediator",)


def read_promediate(path: str | Path, name: str | None = None, strict: bool = False) -> dict[str, Any]:
    """Read a ProMediate-Eval case file into the fields of a scenario (see the module docstring).

    ``Scenario.from_promediate`` validates them into a :class:`~tom_envs.negotiation.scenario.Scenario`;
    this module does not import the schema, so the two modules do not import each other.
    """
    strict = require_bool("strict", strict)
    p = Path(path)
    data = _load_json(p)
    check_known_keys(data, PROMEDIATE_KEYS, str(p), PROMEDIATE_FORMAT)
    missing = [k for k in PROMEDIATE_REQUIRED if k not in data]
    if missing:
        raise ScenarioError(
            f"{p}: missing keys {missing}; a {PROMEDIATE_FORMAT} has instruction, issues, options, "
            "config and names (topics optional)"
        )
    for key in ("instruction", "issues", "options"):
        if not isinstance(data[key], str):
            raise ScenarioError(f"{p}: '{key}' must be text (a JSON string), got {type(data[key]).__name__}")
    if not data["issues"].strip():
        raise EmptyIssuesError(
            f"{p}: 'issues' is empty; the release puts it into the instruction and the mediator's "
            "prompt as {issues}. Write one numbered line per topic ('1. Name: question')"
        )
    if not isinstance(data["names"], dict):
        raise ScenarioError(f"{p}: 'names' must map each participant to its profile text")
    if not data["names"]:
        raise ScenarioError(f"{p}: 'names' is empty; it maps each participant (and the Mediator) to its profile text")
    if not isinstance(data["config"], dict):
        raise ScenarioError(
            f"{p}: 'config' must map each participant to its turn-taking settings (im_threshold, "
            f"interrupt_threshold, system1_prob), got {type(data['config']).__name__}"
        )
    for who, cfg in data["config"].items():
        _turn_taking(cfg, f"{p}: config[{who!r}]")
    issues, options = data["issues"], data["options"]
    topics = read_topics(issues, data.get("topics"), p)
    topic_dicts = []
    for (tname, question), block in zip(topics, topic_blocks(options, [t for t, _ in topics], p)):
        opts = parse_options(block)
        if len(opts) >= 2:
            topic_dicts.append(
                {"name": tname, "question": question, "options": [{"label": lab, "text": txt} for lab, txt in opts]}
            )
        else:
            warnings.warn(
                f"{p}: no option markers recognised for topic {tname!r}; its options are kept as text",
                PromediateFormatWarning,
                stacklevel=3,
            )
            topic_dicts.append(
                {
                    "name": tname,
                    "question": question,
                    "options_unparsed": True,
                    "options": [{"label": "text", "text": block.strip() or "(none)"}],
                }
            )
    parties, mediator = _parties(data, topic_dicts, p, strict)
    background = str(data["instruction"]).replace("{issues}", issues).replace("{options}", options).strip()
    out = {
        "name": name or p.stem,
        "title": p.stem,
        "background": background or "(none)",
        "topics": topic_dicts,
        "parties": parties,
    }
    if mediator is not None:
        out["mediator"] = mediator
    return out


def is_promediate_case(path: str | Path) -> bool:
    """True when ``path`` is a JSON object in the release's format
    (:func:`~tom_envs.negotiation.case_rules.case_format`: keys only a ProMediate case has)."""
    try:
        return case_format(_load_json(Path(path)), str(path)) == PROMEDIATE_FORMAT
    except ScenarioError:
        return False


def _load_json(p: Path) -> dict:
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise ScenarioError(f"{p}: no such ProMediate case file") from None
    except IsADirectoryError:
        raise ScenarioError(f"{p}: is a directory; pass a case file such as cases/hmo.json") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ScenarioError(
            f"{p}: not a UTF-8 text file (byte {exc.start}: {exc.reason}); a ProMediate case is a JSON file"
        ) from None
    return json_object(text, str(p), ScenarioError, "a ProMediate case is a JSON object")


def _turn_taking(cfg: Any, where: str = "config") -> dict | None:
    """A config entry's values (:func:`~tom_envs.negotiation.case_rules.check_turn_taking`: an object with known
    keys, thresholds in [1, 5], ``system1_prob`` in [0, 1]); None for an empty entry."""
    return check_turn_taking(cfg, where, PROMEDIATE_FORMAT) or None


def _parties(data: dict, topics: list[dict], p: Path, strict: bool) -> tuple[list[dict], dict | None]:
    names = {str(k): str(v) for k, v in dict(data["names"]).items()}
    config = {str(k): v for k, v in dict(data.get("config") or {}).items()}
    by_fold = {k.casefold(): k for k in names}
    for c in config:  # people only in config still take part
        if c.casefold() not in by_fold:
            by_fold[c.casefold()] = c
            names[c] = ""
    parties, mediator, guessed = [], None, []
    case = p.stem
    for key, profile in names.items():
        cfg = next((v for c, v in config.items() if c.casefold() == key.casefold()), {})
        if key.casefold() in MEDIATOR_NAMES:
            mediator = {"persona": profile.strip(), "turn_taking": _turn_taking(cfg)}
            continue
        opinions = profile_section(profile, ("opinions?",)) or profile
        sections = topic_sections(opinions, len(topics))
        prefs = {}
        for k, t in enumerate(topics):
            if t.get("options_unparsed"):
                continue
            labels = [o["label"] for o in t["options"]]
            read = prose_reading(case, key, t, profile)
            section = sections.get(k + 1) or named_section(opinions, t["name"])
            if read is None and section:
                read = read_topic(section, t, k + 1)
                if read is not None:
                    read["source"] = "stated"
            if read is None:
                guessed.append((key, t["name"]))
                read = {"ranking": labels, "source": "listed_order", "unstated": labels}
                if not strict:
                    warnings.warn(
                        f"{p}: no first choice found for {key!r} on topic {t['name']!r}; the listed "
                        "option order is used (source='listed_order')",
                        PromediateFormatWarning,
                        stacklevel=4,
                    )
            prefs[t["name"]] = read
        party = {
            "name": key,
            "role": profile_field(profile, ("role",)),
            "goal": profile_field(profile, ("main goal", "goal")),
            "persona": profile.strip(),
            "preferences": prefs,
            "meta": dict(cfg) if isinstance(cfg, dict) else {},
            "priorities": priorities(opinions, topics),
        }
        tt = _turn_taking(cfg)
        if tt:
            party["turn_taking"] = tt
        parties.append(party)
    if len(parties) < 2:
        raise ScenarioError(
            f"{p}: found {len(parties)} participant(s) besides the mediator in 'names'; need at least 2"
        )
    if guessed and strict:
        raise PromediateImportError(
            f"{p}: no first choice found for {len(guessed)} party-topic pair(s): "
            + "; ".join(f"{a!r} on {t!r}" for a, t in guessed)
            + ". Add a reading to promediate_prose.json or import with strict=False"
        )
    if guessed:
        warnings.warn(
            f"{p}: {len(guessed)} of {sum(len(x['preferences']) for x in parties)} party-topic pairs "
            "use the listed option order",
            PromediateFormatWarning,
            stacklevel=4,
        )
    return parties, mediator
