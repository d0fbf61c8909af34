"""A ProMediate-Eval party profile (Markdown) cut into what the importer reads.

The level-2 sections ("## Identity", "## Opinions"), the "Role:" / "Goal:" fields, each topic's part of
the opinions (found by its number: "1)", "1.", "### 1.", "### A.", "ISSUE II:", or by the topic's
name) and the party's priorities (a "Top priorities" list, or sentences such as "Issue IV is the most
important issue for you"). What a topic's part states is read by
:mod:`tom_envs.negotiation.promediate_preferences`.
"""

from __future__ import annotations

import re

_ROMAN = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8}
_TOPIC_HEAD = re.compile(r"^\s*(#+\s*)?(?:(issue|topic)\s+)?(\d+|[ivx]+|[a-h])\s*[.):]\s*\S", re.IGNORECASE)


def profile_section(profile: str, names: tuple[str, ...]) -> str:
    """The text under a level-2 heading ("## Opinions") up to the next level-2 heading."""
    lines = profile.splitlines()
    start = None
    for i, line in enumerate(lines):
        if start is None and re.match(rf"^\s*##\s*(?:{'|'.join(names)})\b", line, re.IGNORECASE):
            start = i + 1
        elif start is not None and re.match(r"^\s*##\s+\S", line) and not line.strip().startswith("###"):
            return "\n".join(lines[start:i])
    return "\n".join(lines[start:]) if start is not None else ""


def profile_field(profile: str, keys: tuple[str, ...]) -> str:
    """The value of the first "Key: value" line (keys tried in order) of the Identity section or the profile."""
    identity = profile_section(profile, ("identity",))
    for key in keys:
        m = re.search(rf"^\s*(?:[-*]\s*)?\**{key}\**\s*:\s*(.+)$", identity or profile, re.IGNORECASE | re.MULTILINE)
        if m:
            return m.group(1).strip()
    if keys[0] == "role":  # an Identity section without "Role:": its first line
        first = next((x.strip() for x in identity.splitlines() if x.strip()), "")
        return first[:200]
    return ""


def topic_sections(opinions: str, n_topics: int) -> dict[int, str]:
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
        out[idx] = "\n".join(lines[i : nxt[0]])
    return out


def named_section(opinions: str, name: str) -> str:
    """The lines from the first line naming a topic (no numbered heading found) to the next blank line."""
    lines = opinions.splitlines()
    for i, line in enumerate(lines):
        if name.casefold() in line.casefold():
            end = next((j for j in range(i + 1, len(lines)) if not lines[j].strip()), len(lines))
            return "\n".join(lines[i:end])
    return ""


def priorities(opinions: str, topics: list[dict]) -> list[str]:
    """A "Top priorities" list, or the topics in the order sentences like "Issue IV is the most important" give."""
    m = re.search(r"top priorities\s*:?\s*\n(.*?)(?=\n\s*#|\Z)", opinions, re.IGNORECASE | re.DOTALL)
    if m:
        items = [re.sub(r"\s+", " ", x).strip() for x in re.findall(r"^\s*\d+\.\s*(.+)$", m.group(1), re.MULTILINE)]
        if items:
            return items
    text = re.sub(r"\s+", " ", opinions)
    order = []
    for m in re.finditer(
        r"issue\s+([ivx]+|\d+)\s+is\s+(?:the\s+|your\s+)?([a-z\- ]*?)(?:important|importance)", text, re.IGNORECASE
    ):
        tok = m.group(1).casefold()
        idx = int(tok) if tok.isdigit() else _ROMAN.get(tok, 0)
        words = m.group(2).casefold()
        weight = (
            0
            if "most" in words and "second" not in words
            else 1
            if "second" in words or "next" in words
            else 3
            if "least" in words or "not very" in words
            else 2
        )
        if 1 <= idx <= len(topics):
            order.append((weight, len(order), topics[idx - 1]["name"]))
    for m in re.finditer(r"issue\s+([ivx]+|\d+)\s+is\s+(?:the\s+)?least\s+important", text, re.IGNORECASE):
        pass
    return [name for _, _, name in sorted(order)] if order else []
