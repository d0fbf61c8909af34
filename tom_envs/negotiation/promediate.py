"""Importer for ProMediate-Eval case files (``Scenario.from_promediate``).

A case (github.com/microsoft/ProMediate-Eval, ``cases/*.json``) is a JSON object with
``instruction`` (background with ``{issues}``/``{options}`` placeholders), ``issues`` and ``options``
(text), ``config`` (per participant: ``im_threshold``, ``system1_prob``, ``interrupt_threshold``; the
mediator is "Mediator"), ``names`` (participant -> Markdown profile) and sometimes ``topics``.

Topics come from headings "1. Name: question" / "## Issue 1: Name" (with the "Key concerns" lines
below as the question); options from markers "(a)", "(A):", "(1).", "Option 1A:" (a marker glued to
a word, as in "engine(s)", is not one). Every participant but the mediator becomes a party; its
profile is its persona, "Role:" and "Goal:"/"Main Goal:" lines give ``role`` and ``goal``, a
"Top priorities" list and sentences such as "Issue IV is the most important issue for you" give
``priorities``, and the case's config gives ``turn_taking`` (the mediator's goes to
``Scenario.mediator``).

Preferences are read from each party's own section for each topic (found by its number: "1)",
"1.", "### 1.", "### A.", "ISSUE II:") in every form the release uses:

* "D. $700 million is your first choice", "Option #1 is your first choice", "Your first choice is
  Option A", "Package 3 would be your second choice";
* "First choice: (1D) ...", "First choice: c", "- First Choice" followed by a paragraph naming the
  option, "First choice: five-year contract" (the option named by its text);
* "Block: (1A) and (1B)", "Unacceptable: a", "... is **unacceptable**", "Strongly against:",
  "Do not support:", "not acceptable", "barely acceptable" (ranked after the stated choices).

A few profiles state a topic only in prose that names no option (Williams Medical Center's, three
of Hopkins HMO's). Those readings are ours, kept in ``scenarios/promediate_prose.json``:
each entry carries the sentences of the profile it is read from, and it is only applied when every
one of them occurs in the profile being imported (so an edited case is not given a stale reading).

Nothing falls back silently: a party-topic pair with no stated first choice gets the listed option
order, ``source="listed_order"`` and one :class:`PromediateFormatWarning` naming the party and topic
(``strict=True`` raises :class:`PromediateImportError` instead). Options a profile never mentions
are ranked after the mentioned acceptable ones and listed in ``unstated``.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
import warnings
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from tom_envs.errors import require_bool
from tom_envs.negotiation.errors import PromediateFormatWarning, PromediateImportError, ScenarioError

_HEADING = re.compile(r"^\s*(?:#+\s*)?(?:\*\*)?(?:(?:issue|topic)\s+)?(\d+)\s*[.:)]\s*(.*)$", re.IGNORECASE)
_MARKERS = (
    re.compile(r"Option\s+(\d+[A-Za-z]?)\s*[:.)]"),
    re.compile(r"(?<![\w(])\(([A-Za-z])\)\s*:?"),
    re.compile(r"(?<![\w(])\((\d+)\)\s*\.?"),
)
MEDIATOR_NAMES = ("mediator",)
_ORDINALS = {"first": 1, "top": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "last": 50}
_RANK_CUE = re.compile(r"\b(first|second|third|fourth|fifth|sixth|last)\s+choice\b|\bleast\s+desirable\b", re.IGNORECASE)
_BARELY = re.compile(r"barely\s+acceptable|acceptable\s+but\s+don", re.IGNORECASE)
_UNACCEPTABLE = re.compile(r"\bun-?acceptable\b|\bnot\s+acceptable\b|\bblock\b(?!\s+if\b)|strongly\s+(?:against|oppose)|"
                           r"do\s+not\s+support|not\s+preferable|will\s+not\s+consider|totally\s+opposed",
                           re.IGNORECASE)
BARELY_RANK = 80
UNACCEPTABLE_RANK = 100
_ROMAN = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8}
_TOPIC_HEAD = re.compile(r"^\s*(#+\s*)?(?:(issue|topic)\s+)?(\d+|[ivx]+|[a-h])\s*[.):]\s*\S", re.IGNORECASE)


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


# --------------------------------------------------------------------------- topics and options
def _topics(issues: str, given: Any, p: Path) -> list[tuple[str, str]]:
    found: list[tuple[str, list[str]]] = []
    for line in issues.splitlines():
        m = _HEADING.match(line)
        if m:
            rest = m.group(2).strip().strip("*").strip()
            parts = re.split(r"\s*[:–—]\s*|\s+-\s+", rest, maxsplit=1)
            found.append((parts[0].strip(" *#"), [parts[1].strip()] if len(parts) > 1 else []))
        elif found and line.strip() and not re.match(r"^\s*key concerns\s*:?\s*$", line, re.IGNORECASE):
            found[-1][1].append(line.strip(" -"))
    pairs = [(n, " ".join(q).strip()) for n, q in found]
    if given is not None and (not isinstance(given, list) or not all(isinstance(t, str) and t.strip() for t in given)):
        raise ScenarioError(f"{p}: 'topics' must be a list of topic names (strings), got {given!r}")
    if given and pairs and len(given) != len(pairs):
        raise ScenarioError(f"{p}: 'topics' names {len(given)} topic(s) but 'issues' has {len(pairs)} "
                            f"({', '.join(n for n, _ in pairs)}); list every topic of the case, in its order")
    if given:
        names = [str(t).strip() for t in given]
        questions = {n.casefold(): q for n, q in pairs}
        return [(n, questions.get(n.casefold(), pairs[i][1] if i < len(pairs) else "")) for i, n in enumerate(names)]
    if not pairs:
        raise ScenarioError(f"{p}: no topic headings found in 'issues' (expected lines like '1. Name: question' or "
                            "'## Issue 1: Name'); add a 'topics' list to the file")
    return pairs


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
                text = block[a.end(): b.start() if b else len(block)]
                text = re.sub(r"\s+", " ", text).strip(" ;,.-–")
                out.append((a.group(1), text or a.group(1)))
            labels = [lab for lab, _ in out]
            if len(set(labels)) == len(labels):
                return out
    return []


# --------------------------------------------------------------------------- parties
def _section(profile: str, names: tuple[str, ...]) -> str:
    """The text under a level-2 heading ("## Opinions") up to the next level-2 heading."""
    lines = profile.splitlines()
    start = None
    for i, line in enumerate(lines):
        if start is None and re.match(rf"^\s*##\s*(?:{'|'.join(names)})\b", line, re.IGNORECASE):
            start = i + 1
        elif start is not None and re.match(r"^\s*##\s+\S", line) and not line.strip().startswith("###"):
            return "\n".join(lines[start:i])
    return "\n".join(lines[start:]) if start is not None else ""


def _field(profile: str, keys: tuple[str, ...]) -> str:
    """The value of the first "Key: value" line (keys tried in order) of the Identity section or the profile."""
    identity = _section(profile, ("identity",))
    for key in keys:
        m = re.search(rf"^\s*(?:[-*]\s*)?\**{key}\**\s*:\s*(.+)$", identity or profile, re.IGNORECASE | re.MULTILINE)
        if m:
            return m.group(1).strip()
    if keys[0] == "role":  # an Identity section without "Role:": its first line
        first = next((x.strip() for x in identity.splitlines() if x.strip()), "")
        return first[:200]
    return ""


def _topic_sections(opinions: str, n_topics: int) -> dict[int, str]:
    """Topic number (1-based) -> that topic's part of a party's opinions section."""
    lines = opinions.splitlines()
    cands = []
    for i, line in enumerate(lines):
        m = _TOPIC_HEAD.match(line)
        if not m:
            continue
        hashes, issue, tok = m.group(1), m.group(2), m.group(3).casefold()
        if tok.isdigit():
            idx = int(tok)
        elif issue and tok in _ROMAN:
            idx = _ROMAN[tok]
        elif hashes and len(tok) == 1 and tok.isalpha():
            idx = ord(tok) - ord("a") + 1
        else:
            continue
        cands.append((i, idx, bool(hashes)))
    if any(h for _, _, h in cands):
        cands = [c for c in cands if c[2]]
    heads, expected = [], 1
    for i, idx, _ in cands:
        if idx == expected and expected <= n_topics:
            heads.append((i, idx))
            expected += 1
    out = {}
    for (i, idx), nxt in zip(heads, heads[1:] + [(len(lines), 0)]):
        out[idx] = "\n".join(lines[i: nxt[0]])
    return out


def _named_section(opinions: str, name: str) -> str:
    """The lines from the first line naming a topic (no numbered heading found) to the next blank line."""
    lines = opinions.splitlines()
    for i, line in enumerate(lines):
        if name.casefold() in line.casefold():
            end = next((j for j in range(i + 1, len(lines)) if not lines[j].strip()), len(lines))
            return "\n".join(lines[i:end])
    return ""


def _norm(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).replace("’", "'").replace("‘", "'")
    return re.sub(r"\s+", " ", text).strip().casefold()


def _refs(sentence: str, topic: dict, number: int) -> list[str]:
    """Option labels a sentence names, in order of appearance."""
    labels = [o["label"] for o in topic["options"]]
    fold = {lab.casefold(): lab for lab in labels}
    found: list[tuple[int, str]] = []

    def add(pos: int, lab: str | None) -> None:
        if lab is not None and lab not in [x for _, x in found]:
            found.append((pos, lab))

    def by_token(tok: str) -> str | None:
        tok = tok.casefold()
        if tok in fold:
            return fold[tok]
        if re.fullmatch(rf"{number}[a-z]", tok) and tok[-1] in fold:  # "(2C)" where labels are a, b, c
            return fold[tok[-1]]
        if tok.isdigit() and not any(lab.isdigit() for lab in labels) and 1 <= int(tok) <= len(labels):
            return labels[int(tok) - 1]  # "Package 3" / "Option #3" over lettered options
        if len(tok) == 1 and tok.isalpha() and all(re.fullmatch(r"\d+[a-z]", lab.casefold()) for lab in labels):
            return fold.get(f"{number}{tok}")  # "Option B" where labels are 1A, 1B
        return None

    for m in re.finditer(r"\((\d?[A-Za-z]|\d)\)", sentence):
        add(m.start(), _by_amount(topic, by_token(m.group(1)), sentence[m.end():]))
    for m in re.finditer(r"\b(?:options?|packages?)\s*#?\s*(\d+[A-Za-z]?|[A-Za-z])\b((?:\s*(?:,|and|or|&)\s*#?\s*"
                         r"(?:\d+[A-Za-z]?|[A-Za-z])\b)*)", sentence, re.IGNORECASE):
        add(m.start(), by_token(m.group(1)))
        for extra in re.findall(r"#?\s*(\d+[A-Za-z]?|\b[A-Za-z])\b", m.group(2)):
            add(m.start() + 1, by_token(extra))
    m = re.match(r"^\s*[-*•]?\s*([A-Za-z]|\d)[.)]\s+\S", sentence)
    if m:
        add(0, by_token(m.group(1)))
    m = re.search(r"(?:choice|unacceptable|block)\s*:\s*\(?([A-Za-z])\)?(?=\s*(?:[,.;]|$|\s+\w))", sentence,
                  re.IGNORECASE)
    if m:
        add(m.start(1), by_token(m.group(1)))
    if not found:  # the option named by its text ("JX5 engines only is your second choice")
        low = _norm(sentence)
        for o in topic["options"]:
            t = _norm(o["text"]).strip(" .;")
            if len(t) >= 4 and t in low:
                add(low.index(t), o["label"])
    return [lab for _, lab in sorted(found)]


_AMOUNT = re.compile(r"\$\s?\d[\d,.]*\s*(?:million|billion|[mb]\b)?", re.IGNORECASE)


def _amounts(text: str) -> list[str]:
    return [re.sub(r"[\s,$]", "", a.casefold()) for a in _AMOUNT.findall(text)]


def _by_amount(topic: dict, label: str | None, after: str) -> str | None:
    """The option a marker names, checked against the amount written after it: a profile's own list may
    label other amounts than the file's options (Flagship: the parties' (a)-(d) read $150/$100/$80/$60
    million, the file's $150/$120/$100/$80 million). The option whose text has that amount is meant
    ("(c) $80 million" is the file's (d)); an amount no option has names no option of the file
    ("(d) $60 million" blocks nothing). Without an amount right after the marker, the label stands."""
    head = re.split(r"\bis\b|:|;", after, maxsplit=1)[0][:40]
    said = _amounts(head)
    if label is None or not said:
        return label
    by_label = {o["label"]: _amounts(o["text"]) for o in topic["options"]}
    if not by_label.get(label) or said[0] in by_label[label]:
        return label
    return next((lab for lab, amounts in by_label.items() if said[0] in amounts), ABSENT)


#: what :func:`_refs` returns for an option a profile names that the file does not list (an amount none
#: of the file's options has); a stated choice on it ranks nothing, and the next stated option leads
ABSENT = "\0absent"


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z(])", re.sub(r"\s+", " ", text).strip()) if s]


def _statements(section: str) -> list[tuple[float, bool, str]]:
    """(rank, unacceptable?, text) per statement of a topic section, in order.

    A statement is a bullet ("- ..."), a labelled line ("A. ...", "(b) ..."), a line with a rank cue,
    or the paragraph under a line that is only a cue ("- First Choice", "- Unacceptable"); it runs to
    the next statement or blank line. Its rank comes from its first sentence with a cue; prose
    paragraphs outside statements are not read."""
    items: list[list[Any]] = []  # [bare rank or None, lines, started]
    lines = []
    for k, line in enumerate(section.splitlines()):
        if k == 0:  # the heading: keep what follows "1. Name:" when it states choices
            line = line.split(":", 1)[1] if ":" in line and _RANK_CUE.search(line) else ""
        cues = [m.start() for m in re.finditer(r"\b(?:first|second|third|fourth|fifth|last)\s+choice\s*:", line,
                                               re.IGNORECASE)]
        if len(cues) > 1:  # "First choice: (c), Second choice: (b)" on one line
            lines += ["- " + line[a:b].strip(" ,;") for a, b in zip(cues, cues[1:] + [len(line)])]
        else:
            lines.append(line)
    for line in lines:
        stripped = line.strip(" -*•\t")
        bare = re.fullmatch(r"(?:(first|second|third|fourth|fifth|last)\s+choice|(unacceptable|block)|"
                            r"(barely acceptable))\s*:?", stripped, re.IGNORECASE)
        if bare:
            rank = (_ORDINALS[bare.group(1).casefold()] if bare.group(1) else
                    UNACCEPTABLE_RANK if bare.group(2) else BARELY_RANK)
            items.append([rank, [], True])
            continue
        if not stripped:
            if items and items[-1][1]:
                items.append([None, [], False])
            continue
        if items and items[-1][0] is not None and not items[-1][1]:
            items[-1][1].append(line.strip())  # the paragraph under a bare cue
            continue
        starts = bool(re.match(r"^\s*[-*]\s|^\s*\(?[A-Za-z0-9]{1,2}[.)]\s|^\s*(?:first|second|third|fourth|fifth|last)"
                               r"\s+choice\s*:", line, re.IGNORECASE))
        if not starts and not (items and items[-1][0] is not None):  # inside a bare cue's paragraph only bullets
            starts = bool(_RANK_CUE.search(line) or ((_UNACCEPTABLE.search(line) or _BARELY.search(line))
                                                     and len(line.strip()) < 80))
        if starts or not items:
            items.append([None, [line.strip()], starts])
        else:
            items[-1][1].append(line.strip())
    out: list[tuple[float, bool, str]] = []
    for bare_rank, lines, started in items:
        if not lines or not started:
            continue
        text = " ".join(lines)
        sents = _sentences(text)[:2] or [text]
        unacc = bool(_UNACCEPTABLE.search(" ".join(sents)))
        rank = bare_rank
        if rank is None:
            for s in sents:
                m = _RANK_CUE.search(s)
                if m:
                    rank = _ORDINALS[(m.group(1) or "last").casefold()]
                    break
        if rank is None:
            rank = BARELY_RANK if _BARELY.search(" ".join(sents)) else UNACCEPTABLE_RANK if unacc else None
        if rank is not None:
            out.append((rank, unacc or rank == UNACCEPTABLE_RANK, text))
    return out


def _read_topic(section: str, topic: dict, number: int) -> dict | None:
    """A party's stated preference on one topic, or None when no first choice is stated."""
    ranks: dict[str, tuple[float, int]] = {}
    unacceptable: list[str] = []
    absent_first = False  # the stated first choice is an option the file does not list
    for k, (rank, unacc, text) in enumerate(_statements(section)):
        sents = _sentences(text)
        head = sents[0] if sents else text
        refs = _refs(head, topic, number)
        if not refs and len(sents) > 1:
            head = " ".join(sents[:2])
            refs = _refs(head, topic, number)
        if refs == [ABSENT]:
            absent_first = absent_first or rank == 1
            continue
        refs = [r for r in refs if r != ABSENT]
        if not refs:
            continue
        multi = rank >= BARELY_RANK or bool(re.search(r"\b(?:and|or)\b|either|&", head, re.IGNORECASE))
        if not multi:
            refs = refs[:1]
        for j, lab in enumerate(refs):
            if lab not in ranks:
                ranks[lab] = (rank, 100 * k + j)
            if unacc and rank >= 2 and lab not in unacceptable:
                unacceptable.append(lab)
    if not any(r == 1 for r, _ in ranks.values()) and not (absent_first and any(r < BARELY_RANK for r, _ in
                                                                                   ranks.values())):
        return None
    return _complete(topic, ranks, unacceptable)


def _complete(topic: dict, ranks: dict[str, tuple[float, int]], unacceptable: list[str]) -> dict:
    labels = [o["label"] for o in topic["options"]]
    stated = sorted((lab for lab in labels if lab in ranks), key=lambda lab: ranks[lab])
    unstated = [lab for lab in labels if lab not in ranks]
    acceptable = [lab for lab in stated if lab not in unacceptable]
    blocked = [lab for lab in stated if lab in unacceptable]
    ranking = acceptable + unstated + blocked
    return {"ranking": ranking, "unacceptable": blocked, "unstated": unstated}


@lru_cache(maxsize=1)
def _prose_readings() -> dict:
    text = resources.files("tom_envs.negotiation").joinpath("scenarios", "promediate_prose.json").read_text(encoding="utf-8")
    return json.loads(text)


def _prose_reading(case: str, party: str, topic: dict, profile: str) -> dict | None:
    low = _norm(profile)
    cases = _prose_readings().get("cases", {})
    # the file's own case first; any case whose quotes all occur in this profile (a renamed file)
    for key in [case] + [c for c in cases if c != case]:
        entry = cases.get(key, {}).get(party, {}).get(topic["name"])
        if entry and all(_norm(q) in low for q in entry["evidence"]):
            break
    else:
        return None
    labels = [o["label"] for o in topic["options"]]
    if not set(entry["ranking"]) | set(entry.get("unacceptable", [])) <= set(labels):
        return None
    ranks = {lab: (float(k + 1), k) for k, lab in enumerate(entry["ranking"])}
    for k, lab in enumerate(entry.get("unacceptable", [])):
        ranks.setdefault(lab, (float(UNACCEPTABLE_RANK), k))
    out = _complete(topic, ranks, list(entry.get("unacceptable", [])))
    out["source"] = "prose"
    return out


def _priorities(opinions: str, topics: list[dict]) -> list[str]:
    """A "Top priorities" list, or the topics in the order sentences like "Issue IV is the most important" give."""
    m = re.search(r"top priorities\s*:?\s*\n(.*?)(?=\n\s*#|\Z)", opinions, re.IGNORECASE | re.DOTALL)
    if m:
        items = [re.sub(r"\s+", " ", x).strip() for x in re.findall(r"^\s*\d+\.\s*(.+)$", m.group(1), re.MULTILINE)]
        if items:
            return items
    text = re.sub(r"\s+", " ", opinions)
    order = []
    for m in re.finditer(r"issue\s+([ivx]+|\d+)\s+is\s+(?:the\s+|your\s+)?([a-z\- ]*?)(?:important|importance)",
                         text, re.IGNORECASE):
        tok = m.group(1).casefold()
        idx = int(tok) if tok.isdigit() else _ROMAN.get(tok, 0)
        words = m.group(2).casefold()
        weight = (0 if "most" in words and "second" not in words else 1 if "second" in words or "next" in words
                  else 3 if "least" in words or "not very" in words else 2)
        if 1 <= idx <= len(topics):
            order.append((weight, len(order), topics[idx - 1]["name"]))
    for m in re.finditer(r"issue\s+([ivx]+|\d+)\s+is\s+(?:the\s+)?least\s+important", text, re.IGNORECASE):
        pass
    return [name for _, _, name in sorted(order)] if order else []


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
        opinions = _section(profile, ("opinions?",)) or profile
        sections = _topic_sections(opinions, len(topics))
        prefs = {}
        for k, t in enumerate(topics):
            if t.get("options_unparsed"):
                continue
            labels = [o["label"] for o in t["options"]]
            read = _prose_reading(case, key, t, profile)
            section = sections.get(k + 1) or _named_section(opinions, t["name"])
            if read is None and section:
                read = _read_topic(section, t, k + 1)
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
        party = {"name": key, "role": _field(profile, ("role",)), "goal": _field(profile, ("main goal", "goal")),
                 "persona": profile.strip(), "preferences": prefs, "meta": dict(cfg) if isinstance(cfg, dict) else {},
                 "priorities": _priorities(opinions, topics)}
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
