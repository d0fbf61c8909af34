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

import json
import math
import warnings
from pathlib import Path
from typing import Any

from tom_envs.errors import require_bool
from tom_envs.negotiation.errors import PromediateFormatWarning, PromediateImportError, ScenarioError
from tom_envs.negotiation.promediate_options import match_block, option_blocks, parse_options, read_topics
from tom_envs.negotiation.promediate_preferences import prose_reading, read_topic
from tom_envs.negotiation.promediate_profiles import (named_section, priorities, profile_field, profile_section,
                                                      topic_sections)

MEDIATOR_NAMES = ("mediator",)


def read_promediate(path: str | Path, name: str | None = None, strict: bool = False) -> dict[str, Any]:
    """Read a ProMediate-Eval case file into the fields of a scenario (see the module docstring).

    ``Scenario.from_promediate`` validates them into a :class:`~tom_envs.negotiation.scenario.Scenario`;
    this module does not import the schema, so the two modules do not import each other.
    """
    strict = require_bool("strict", strict)
    p = Path(path)
    data = _load_json(p)
    missing = [k for k in ("instruction", "issues", "options", "config", "names") if k not in data]
    if missing:
        raise ScenarioError(f"{p}: missing keys {missing}; a ProMediate case has instruction, issues, options, "
                            "config and names (topics optional)")
    if not isinstance(data["names"], dict):
        raise ScenarioError(f"{p}: 'names' must map each participant to its profile text")
    if not data["names"]:
        raise ScenarioError(f"{p}: 'names' is empty; it maps each participant (and the Mediator) to its profile text")
    if not isinstance(data["config"], dict):
        raise ScenarioError(f"{p}: 'config' must map each participant to its turn-taking settings (im_threshold, "
                            f"interrupt_threshold, system1_prob), got {type(data['config']).__name__}")
    for who, cfg in data["config"].items():
        _turn_taking(cfg, f"{p}: config[{who!r}]")
    issues, options = str(data["issues"]), str(data["options"])
    topics = read_topics(issues, data.get("topics"), p)
    blocks = option_blocks(options)
    topic_dicts = []
    for k, (tname, question) in enumerate(topics):
        block = match_block(blocks, k, tname)
        opts = parse_options(block) if block else []
        if len(opts) >= 2:
            topic_dicts.append({"name": tname, "question": question,
                                "options": [{"label": lab, "text": txt} for lab, txt in opts]})
        else:
            warnings.warn(f"{p}: no option markers recognised for topic {tname!r}; its options are kept as text",
                          PromediateFormatWarning, stacklevel=3)
            topic_dicts.append({"name": tname, "question": question, "options_unparsed": True,
                                "options": [{"label": "text", "text": (block or options).strip() or "(none)"}]})
    parties, mediator = _parties(data, topic_dicts, p, strict)
    background = str(data["instruction"]).replace("{issues}", issues).replace("{options}", options).strip()
    out = {"name": name or p.stem, "title": p.stem, "background": background or "(none)",
           "topics": topic_dicts, "parties": parties}
    if mediator is not None:
        out["mediator"] = mediator
    return out


def is_promediate_case(path: str | Path) -> bool:
    """True when ``path`` is a JSON object with the keys of a ProMediate case (``names`` and ``options``)."""
    try:
        data = _load_json(Path(path))
    except ScenarioError:
        return False
    return "names" in data and "options" in data and "parties" not in data


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
        raise ScenarioError(f"{p}: not a UTF-8 text file (byte {exc.start}: {exc.reason}); a ProMediate case is "
                            "a JSON file") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScenarioError(f"{p}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    if not isinstance(data, dict):
        raise ScenarioError(f"{p}: a ProMediate case is a JSON object")
    return data


def _turn_taking(cfg: Any, where: str = "config") -> dict | None:
    """A config entry's thresholds; a :class:`ScenarioError` for one that is not a finite number."""
    if not isinstance(cfg, dict):
        return None
    keys = ("im_threshold", "interrupt_threshold", "system1_prob")
    out = {k: cfg[k] for k in keys if k in cfg}
    for k, v in out.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise ScenarioError(f"{where}: {k} must be a finite number (the release uses 1.0-5.0 thresholds and a "
                                f"0-1 probability), got {v!r}")
    return out or None


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
                    warnings.warn(f"{p}: no first choice found for {key!r} on topic {t['name']!r}; the listed "
                                  "option order is used (source='listed_order')", PromediateFormatWarning,
                                  stacklevel=4)
            prefs[t["name"]] = read
        party = {"name": key, "role": profile_field(profile, ("role",)),
                 "goal": profile_field(profile, ("main goal", "goal")), "persona": profile.strip(),
                 "preferences": prefs, "meta": dict(cfg) if isinstance(cfg, dict) else {},
                 "priorities": priorities(opinions, topics)}
        tt = _turn_taking(cfg)
        if tt:
            party["turn_taking"] = tt
        parties.append(party)
    if len(parties) < 2:
        raise ScenarioError(f"{p}: found {len(parties)} participant(s) besides the mediator in 'names'; need at least 2")
    if guessed and strict:
        raise PromediateImportError(f"{p}: no first choice found for {len(guessed)} party-topic pair(s): "
                                    + "; ".join(f"{a!r} on {t!r}" for a, t in guessed)
                                    + ". Add a reading to promediate_prose.json or import with strict=False")
    if guessed:
        warnings.warn(f"{p}: {len(guessed)} of {sum(len(x['preferences']) for x in parties)} party-topic pairs "
                      "use the listed option order", PromediateFormatWarning, stacklevel=4)
    return parties, mediator
