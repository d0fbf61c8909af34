"""A party's stated preference on one topic of a ProMediate-Eval case, read from its profile.

Preferences are read from the party's own section for the topic in every form the release uses:

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
Options a profile never mentions are ranked after the mentioned acceptable ones and listed in
``unstated``.
"""

from __future__ import annotations

import json
import re
import unicodedata
from functools import lru_cache
from importlib import resources
from typing import Any

_ORDINALS = {"first": 1, "top": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "last": 50}
_RANK_CUE = re.compile(
    r"\b(first|second|third|fourth|fifth|sixth|last)\s+choice\b|\bleast\s+desirable\b", re.IGNORECASE
)
_BARELY = re.compile(r"barely\s+acceptable|acceptable\s+but\s+don", re.IGNORECASE)
_UNACCEPTABLE = re.compile(
    r"\bun-?acceptable\b|\bnot\s+acceptable\b|\bblock\b(?!\s+if\b)|strongly\s+(?:against|oppose)|"
    r"do\s+not\s+support|not\s+preferable|will\s+not\s+consider|totally\s+opposed",
    re.IGNORECASE,
)
BARELY_RANK = 80
UNACCEPTABLE_RANK = 100


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
        add(m.start(), _by_amount(topic, by_token(m.group(1)), sentence[m.end() :]))
    for m in re.finditer(
        r"\b(?:options?|packages?)\s*#?\s*(\d+[A-Za-z]?|[A-Za-z])\b((?:\s*(?:,|and|or|&)\s*#?\s*"
        r"(?:\d+[A-Za-z]?|[A-Za-z])\b)*)",
        sentence,
        re.IGNORECASE,
    ):
        add(m.start(), by_token(m.group(1)))
        for extra in re.findall(r"#?\s*(\d+[A-Za-z]?|\b[A-Za-z])\b", m.group(2)):
            add(m.start() + 1, by_token(extra))
    m = re.match(r"^\s*[-*•]?\s*([A-Za-z]|\d)[.)]\s+\S", sentence)
    if m:
        add(0, by_token(m.group(1)))
    m = re.search(
        r"(?:choice|unacceptable|block)\s*:\s*\(?([A-Za-z])\)?(?=\s*(?:[,.;]|$|\s+\w))", sentence, re.IGNORECASE
    )
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
        cues = [
            m.start()
            for m in re.finditer(r"\b(?:first|second|third|fourth|fifth|last)\s+choice\s*:", line, re.IGNORECASE)
        ]
        if len(cues) > 1:  # "First choice: (c), Second choice: (b)" on one line
            lines += ["- " + line[a:b].strip(" ,;") for a, b in zip(cues, cues[1:] + [len(line)])]
        else:
            lines.append(line)
    for line in lines:
        stripped = line.strip(" -*•\t")
        bare = re.fullmatch(
            r"(?:(first|second|third|fourth|fifth|last)\s+choice|(unacceptable|block)|"
            r"(barely acceptable))\s*:?",
            stripped,
            re.IGNORECASE,
        )
        if bare:
            rank = (
                _ORDINALS[bare.group(1).casefold()]
                if bare.group(1)
                else UNACCEPTABLE_RANK
                if bare.group(2)
                else BARELY_RANK
            )
            items.append([rank, [], True])
            continue
        if not stripped:
            if items and items[-1][1]:
                items.append([None, [], False])
            continue
        if items and items[-1][0] is not None and not items[-1][1]:
            items[-1][1].append(line.strip())  # the paragraph under a bare cue
            continue
        starts = bool(
            re.match(
                r"^\s*[-*]\s|^\s*\(?[A-Za-z0-9]{1,2}[.)]\s|^\s*(?:first|second|third|fourth|fifth|last)"
                r"\s+choice\s*:",
                line,
                re.IGNORECASE,
            )
        )
        if not starts and not (items and items[-1][0] is not None):  # inside a bare cue's paragraph only bullets
            starts = bool(
                _RANK_CUE.search(line)
                or ((_UNACCEPTABLE.search(line) or _BARELY.search(line)) and len(line.strip()) < 80)
            )
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


def read_topic(section: str, topic: dict, number: int) -> dict | None:
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
    if not any(r == 1 for r, _ in ranks.values()) and not (
        absent_first and any(r < BARELY_RANK for r, _ in ranks.values())
    ):
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
    text = (
        resources.files("tom_envs.negotiation")
        .joinpath("scenarios", "promediate_prose.json")
        .read_text(encoding="utf-8")
    )
    return json.loads(text)


def prose_reading(case: str, party: str, topic: dict, profile: str) -> dict | None:
    """Our reading of a topic a profile states only in prose (``promediate_prose.json``), or None."""
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
