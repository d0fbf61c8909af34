"""Importer for ProMediate-Eval case files (``Scenario.from_promediate``).

A case is a JSON object with ``instruction`` (background with ``{issues}`` and ``{options}``
placeholders), ``issues`` and ``options`` (text), ``config`` (per participant: ``im_threshold``,
``system1_prob``, ``interrupt_threshold``; the mediator is "Mediator"), ``names`` (participant ->
Markdown profile) and sometimes ``topics`` (topic names). Files vary, so the importer accepts topic
headings "1. Name: ..." and "## Issue 1: Name", option markers "(a)", "(A):", "(1).", "Option 1A:",
and matches names between ``config`` and ``names`` ignoring letter case. Every participant but the
mediator becomes a party (its profile is the persona text) and every topic comes through; options
are parsed where a marker pattern is recognised, otherwise kept as text with a
:class:`PromediateFormatWarning` naming the topic. Rankings are read from lines such as
"First choice: (a), Second choice: (b)" in a profile; where none is found the listed option order
is used, with a warning naming the party and topics.
"""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path
from typing import Any

from tom_envs.negotiation.errors import PromediateFormatWarning, ScenarioError

_HEADING = re.compile(r"^\s*(?:#+\s*)?(?:\*\*)?(?:(?:issue|topic)\s+)?(\d+)\s*[.:)]\s*(.*)$", re.IGNORECASE)
_MARKERS = (
    re.compile(r"Option\s+(\d+[A-Za-z]?)\s*[:.)]"),
    re.compile(r"\(([A-Za-z])\)\s*:?"),
    re.compile(r"\((\d+)\)\s*\.?"),
)
_CHOICE = re.compile(r"(first|second|third|fourth|fifth|sixth|seventh|\d+(?:st|nd|rd|th))\s+choice\s*:?\s*"
                     r"(?:option\s+)?\(?([A-Za-z0-9]{1,3})\)?", re.IGNORECASE)
MEDIATOR_NAMES = ("mediator",)


def read_promediate(path: str | Path, name: str | None = None) -> dict[str, Any]:
    """Read a ProMediate-Eval case file into the fields of a scenario (see the module docstring).

    ``Scenario.from_promediate`` validates them into a :class:`~tom_envs.negotiation.scenario.Scenario`;
    this module does not import the schema, so the two modules do not import each other.
    """
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ScenarioError(f"{p}: no such ProMediate case file") from None
    except json.JSONDecodeError as exc:
        raise ScenarioError(f"{p}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    if not isinstance(data, dict):
        raise ScenarioError(f"{p}: a ProMediate case is a JSON object")
    missing = [k for k in ("instruction", "issues", "options", "names") if k not in data]
    if missing:
        raise ScenarioError(f"{p}: missing keys {missing}; a ProMediate case has instruction, issues, options, "
                            "config and names (topics optional)")
    issues, options = str(data["issues"]), str(data["options"])
    topics = _topics(issues, data.get("topics"), p)
    blocks = _blocks(options)
    topic_dicts = []
    for k, (tname, question) in enumerate(topics):
        block = _match_block(blocks, k, tname)
        opts = _options(block) if block else []
        if len(opts) >= 2:
            topic_dicts.append({"name": tname, "question": question,
                                "options": [{"label": lab, "text": txt} for lab, txt in opts]})
        else:
            warnings.warn(f"{p}: no option markers recognised for topic {tname!r}; its options are kept as text",
                          PromediateFormatWarning, stacklevel=3)
            topic_dicts.append({"name": tname, "question": question, "options_unparsed": True,
                                "options": [{"label": "text", "text": (block or options).strip() or "(none)"}]})
    parties = _parties(data, topic_dicts, p)
    background = str(data["instruction"]).replace("{issues}", issues).replace("{options}", options).strip()
    return {"name": name or p.stem, "title": p.stem, "background": background or "(none)",
            "topics": topic_dicts, "parties": parties}


def _topics(issues: str, given: Any, p: Path) -> list[tuple[str, str]]:
    found = []
    for line in issues.splitlines():
        m = _HEADING.match(line)
        if m:
            rest = m.group(2).strip().strip("*").strip()
            parts = re.split(r"\s*[:–—]\s*|\s+-\s+", rest, maxsplit=1)
            found.append((parts[0].strip(" *#"), parts[1].strip() if len(parts) > 1 else ""))
    if given:
        names = [str(t).strip() for t in given]
        questions = {n.casefold(): q for n, q in found}
        return [(n, questions.get(n.casefold(), found[i][1] if i < len(found) else "")) for i, n in enumerate(names)]
    if not found:
        raise ScenarioError(f"{p}: no topic headings found in 'issues' (expected lines like '1. Name: question' or "
                            "'## Issue 1: Name'); add a 'topics' list to the file")
    return found


def _blocks(options: str) -> list[tuple[str, str]]:
    """(heading text, block text) per numbered heading in the options text."""
    out: list[tuple[str, list[str]]] = []
    for line in options.splitlines():
        m = _HEADING.match(line)
        if m and not re.match(r"^\s*\(", line):
            out.append((m.group(2), [m.group(2)]))
        elif out:
            out[-1][1].append(line)
    return [(h, "\n".join(lines)) for h, lines in out]


def _match_block(blocks: list[tuple[str, str]], k: int, tname: str) -> str | None:
    for head, text in blocks:
        if head.casefold().lstrip("# *").startswith(tname.casefold()):
            return text
    return blocks[k][1] if k < len(blocks) else None


def _options(block: str) -> list[tuple[str, str]]:
    for pattern in _MARKERS:
        marks = list(pattern.finditer(block))
        if len(marks) >= 2:
            out = []
            for a, b in zip(marks, marks[1:] + [None]):
                text = block[a.end(): b.start() if b else len(block)].strip(" \n;,.")
                out.append((a.group(1), re.sub(r"\s+", " ", text) or a.group(1)))
            labels = [lab for lab, _ in out]
            if len(set(labels)) == len(labels):
                return out
    return []


def _parties(data: dict, topics: list[dict], p: Path) -> list[dict]:
    names = {str(k): str(v) for k, v in dict(data["names"]).items()}
    config = {str(k): v for k, v in dict(data.get("config") or {}).items()}
    by_fold = {k.casefold(): k for k in names}
    for c in config:  # people only in config still take part
        if c.casefold() not in by_fold:
            by_fold[c.casefold()] = c
            names[c] = ""
    parties = []
    for key, profile in names.items():
        if key.casefold() in MEDIATOR_NAMES:
            continue
        cfg = next((v for c, v in config.items() if c.casefold() == key.casefold()), {})
        prefs, guessed = {}, []
        for t in topics:
            if t.get("options_unparsed"):
                continue
            labels = [o["label"] for o in t["options"]]
            ranking = _ranking(profile, t["name"], topics.index(t) + 1, labels)
            if ranking is None:
                guessed.append(t["name"])
                ranking = labels
            prefs[t["name"]] = {"ranking": ranking}
        if guessed:
            warnings.warn(f"{p}: no ranking found for {key!r} on topics {guessed}; the listed option order is used",
                          PromediateFormatWarning, stacklevel=4)
        parties.append({"name": key, "role": _section_line(profile, "identity"), "goal": _section_line(profile, "strategy"),
                        "persona": profile.strip(), "preferences": prefs, "meta": dict(cfg) if isinstance(cfg, dict) else {}})
    if len(parties) < 2:
        raise ScenarioError(f"{p}: found {len(parties)} participant(s) besides the mediator in 'names'; need at least 2")
    return parties


def _ranking(profile: str, topic: str, number: int, labels: list[str]) -> list[str] | None:
    for line in profile.splitlines():
        low = line.casefold()
        if "choice" not in low:
            continue
        if topic.casefold() not in low and not re.match(rf"^\s*[-*]?\s*{number}\s*[.:)]", line):
            continue
        picked = []
        for m in _CHOICE.finditer(line):
            lab = next((x for x in labels if x.casefold() == m.group(2).casefold()), None)
            if lab is not None and lab not in picked:
                picked.append(lab)
        if picked:
            return picked + [x for x in labels if x not in picked]
    return None


def _section_line(profile: str, section: str) -> str:
    lines = profile.splitlines()
    for i, line in enumerate(lines):
        if re.match(rf"^\s*#+\s*{section}\b", line, re.IGNORECASE):
            for nxt in lines[i + 1:]:
                if nxt.strip().startswith("#"):
                    return ""
                if nxt.strip():
                    return nxt.strip()[:200]
    return ""
