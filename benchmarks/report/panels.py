"""A figure's series (:mod:`benchmarks.report.figures`): every series or point names its ``agent`` (its colour)
and may name a ``variant`` (its line style and marker, :func:`variant_styles`); no panel holds more than
:data:`MAX_SERIES` series (:func:`split_panels` splits a fuller one)."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from benchmarks.errors import RunnerError

#: The most series one panel holds; a panel with more is split (:func:`split_panels`).
MAX_SERIES = 8
LINESTYLES = ("-", "--", "-.", ":")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "*")


class FigureError(RunnerError):
    """A figure asked for something it cannot draw (a series without an agent, two identical series)."""


def agent_of(item: dict[str, Any]) -> str:
    if not item.get("agent"):
        raise FigureError(
            f"a series or point without an 'agent' (the policy, answerer or mediator whose colour "
            f"it takes): {sorted(item)}; name it, and put horizon, partner or mode in 'variant'"
        )
    return str(item["agent"])


def agent_variant(item: dict[str, Any]) -> tuple[str, str]:
    return agent_of(item), str(item.get("variant") or "")


def _numbered(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Series of one agent with one variant (runs nothing told apart, e.g. two results files of one setting
    keyed by an option the section does not name) get ``run 1``, ``run 2``, ... added to their variant, in order,
    so each keeps its own line style and legend entry."""
    seen: dict[tuple[str, str], int] = {}
    counts = {i: sum(agent_variant(s) == i for s in items) for i in {agent_variant(s) for s in items}}
    out = []
    for s in items:
        ident = agent_variant(s)
        if counts[ident] > 1:
            seen[ident] = seen.get(ident, 0) + 1
            s = {**s, "variant": ", ".join(x for x in (ident[1], f"run {seen[ident]}") if x)}
        out.append(s)
    return out


def split_panels(panels: Sequence[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    """Panels of at most :data:`MAX_SERIES` series each (``key``: ``"series"``, or ``"points"`` for the plane,
    whose series are its distinct (agent, variant) points; reference points are repeated in every part).

    A fuller panel is split by variant when that takes no more panels than needed (titles name the
    variant), else into near-equal parts in (variant, agent) order (titles ``(1/2)``, ...). Two series of one panel with
    the same agent and variant are numbered ``run 1``, ``run 2`` (:func:`_numbered`)."""
    out = []
    for panel in panels:
        items = [s for s in panel[key] if not s.get("ref")]
        refs = [s for s in panel[key] if s.get("ref")]
        if key == "series":
            items = _numbered(items)
            panel = {**panel, key: items + refs}
        idents = list(dict.fromkeys(agent_variant(s) for s in items))
        if len(idents) <= MAX_SERIES:
            out.append(panel)
            continue
        by_variant: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for ident in sorted(idents, key=lambda i: (i[1], i[0])):
            by_variant[ident[1]].append(ident)
        fewest = math.ceil(len(idents) / MAX_SERIES)
        if 1 < len(by_variant) <= fewest and all(len(v) <= MAX_SERIES for v in by_variant.values()):
            parts = [(f"{panel.get('title', '')}, {variant}", set(v)) for variant, v in by_variant.items()]
        else:
            ordered = [i for v in by_variant.values() for i in v]
            n = math.ceil(len(ordered) / MAX_SERIES)
            size = math.ceil(len(ordered) / n)
            parts = [
                (f"{panel.get('title', '')} ({j + 1}/{n})", set(ordered[j * size : (j + 1) * size])) for j in range(n)
            ]
        for title, chosen in parts:
            out.append({**panel, "title": title, key: [s for s in items if agent_variant(s) in chosen] + refs})
    return out


def variant_styles(variants: Iterable[str]) -> dict[str, dict[str, str]]:
    """Line style and marker of each variant of a figure (sorted; the empty variant first, solid with circles)."""
    ordered = sorted(set(variants), key=lambda v: (v != "", v))
    return {
        v: {"linestyle": LINESTYLES[i % len(LINESTYLES)], "marker": MARKERS[i % len(MARKERS)]}
        for i, v in enumerate(ordered)
    }
