"""Topics and options of a ProMediate-Eval case, read from its ``issues`` and ``options`` text.

Topics come from headings "1. Name: question" / "## Issue 1: Name" (with the "Key concerns" lines
below as the question), or from the case's own ``topics`` list; options from markers "(a)", "(A):",
"(1).", "Option 1A:" (a marker glued to a word, as in "engine(s)", is not one), each topic's from its own block
(:func:`topic_blocks`). Used by
:func:`tom_envs.negotiation.promediate.read_promediate`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tom_envs.negotiation.errors import MissingOptionBlockError, ScenarioError

_HEADING = re.compile(r"^\s*(?:#+\s*)?(?:\*\*)?(?:(?:issue|topic)\s+)?(\d+)\s*[.:)]\s*(.*)$", re.IGNORECASE)
_MARKERS = (
    re.compile(r"Option\s+(\d+[A-Za-z]?)\s*[:.)]"),
    re.compile(r"(?<![\w(])\(([A-Za-z])\)\s*:?"),
    re.compile(r"(?<![\w(])\((\d+)\)\s*\.?"),
)


def read_topics(issues: str, given: Any, p: Path) -> list[tuple[str, str]]:
    """(name, question) per topic, in order; a :class:`ScenarioError` for a bad ``topics`` list or no topic."""
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
        raise ScenarioError(
            f"{p}: 'topics' names {len(given)} topic(s) but 'issues' has {len(pairs)} "
            f"({', '.join(n for n, _ in pairs)}); list every topic of the case, in its order"
        )
    if given:
        names = [str(t).strip() for t in given]
        questions = {n.casefold(): q for n, q in pairs}
        return [(n, questions.get(n.casefold(), pairs[i][1] if i < len(pairs) else "")) for i, n in enumerate(names)]
    if not pairs:
        raise ScenarioError(
            f"{p}: no topic headings found in 'issues' (expected lines like '1. Name: question' or "
            "'## Issue 1: Name'); add a 'topics' list to the file"
        )
    return pairs


def option_blocks(options: str) -> list[tuple[int, str, str]]:
    """(number, heading text, block text) per numbered heading in the options text."""
    out: list[tuple[int, str, list[str]]] = []
    for line in options.splitlines():
        m = _HEADING.match(line)
        if m and not re.match(r"^\s*\(", line):
            out.append((int(m.group(1)), m.group(2), [m.group(2)]))
        elif out:
            out[-1][2].append(line)
    return [(n, h, "\n".join(lines)) for n, h, lines in out]


def _key(text: str) -> str:
    return re.sub(r"[\W_]+", " ", text.casefold()).strip()


def topic_blocks(options: str, topics: list[str], p: Path) -> list[str]:
    """Each topic's own block of the options text, in topic order.

    A block is the topic's when its heading starts with the topic's name (case, spacing and punctuation
    aside), else when its number is the topic's (1 for the first topic) and no other topic's name heads
    it; a case with one topic and no numbered heading has the whole text as its block. A topic with no
    block of its own is a :class:`MissingOptionBlockError`: it never takes the block of another topic."""
    blocks = option_blocks(options)
    if not blocks and len(topics) == 1 and options.strip():
        return [options]
    named: dict[int, int] = {}  # block index -> topic index whose name heads it
    for k, name in enumerate(topics):
        for b, (_, head, _) in enumerate(blocks):
            if b not in named and _key(head).startswith(_key(name)):
                named[b] = k
                break
    out = []
    for k, name in enumerate(topics):
        mine = [b for b, owner in named.items() if owner == k]
        if not mine:
            mine = [b for b, (number, _, _) in enumerate(blocks) if number == k + 1 and b not in named]
        if not mine:
            found = "; ".join(f"{n}. {h.strip()[:40]}" for n, h, _ in blocks) or "none"
            raise MissingOptionBlockError(
                f"{p}: 'options' has no option block for topic {k + 1} {name!r} (a block is the topic's when its "
                f"heading starts with the topic's name or carries its number {k + 1} and no other topic's name; "
                f"blocks found: {found}). Add a block '{k + 1}. {name}:' followed by its options '(a) ...', "
                "'(b) ...', or drop the topic from 'issues' (and 'topics')"
            )
        out.append(blocks[mine[0]][2])
    return out


def parse_options(block: str) -> list[tuple[str, str]]:
    """(label, text) per option marker of a block (the first marker form found twice, labels unique); [] if none."""
    for pattern in _MARKERS:
        marks = list(pattern.finditer(block))
        if len(marks) >= 2:
            out = []
            for a, b in zip(marks, marks[1:] + [None]):
                text = block[a.end() : b.start() if b else len(block)]
                text = re.sub(r"\s+", " ", text).strip(" ;,.-–")
                out.append((a.group(1), text or a.group(1)))
            labels = [lab for lab, _ in out]
            if len(set(labels)) == len(labels):
                return out
    return []
