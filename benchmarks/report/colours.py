"""Colour means agent and nothing else (the report's figures, :mod:`benchmarks.report.figures`): one colour per
agent over every figure drawn together, chosen from :data:`PALETTE` so that agents drawn in one figure look
distinct (CIELAB distance at least :data:`DISTINCT` where the palette allows)."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable

#: Agent colours, the most distinct first (tab10 without its grey, which reference lines use, then darker and
#: lighter hues; :func:`assign_colours` keeps close pairs out of one figure while it can).
PALETTE = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#17becf",
    "#bcbd22",
    "#000075",
    "#800000",
    "#469990",
    "#f032e6",
    "#808000",
    "#ffbb78",
    "#98df8a",
    "#aec7e8",
    "#c5b0d5",
    "#c49c94",
    "#ff9896",
)
#: Two colours this far apart (CIELAB ΔE76) count as distinct; agents drawn together get colours at least
#: this far apart whenever the palette allows.
DISTINCT = 45.0


def lab(colour: str) -> tuple[float, float, float]:
    """CIELAB (D65) of a ``#rrggbb`` colour."""
    rgb = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def colour_distance(a: str, b: str) -> float:
    """How far apart two colours look (CIELAB ΔE76)."""
    return math.dist(lab(a), lab(b))


def assign_colours(groups: Iterable[Iterable[str]]) -> dict[str, str]:
    """One colour per agent for agents drawn in ``groups`` (each group: the agents of one figure).

    Deterministic in the groups alone. Agents of one group never share a colour and get colours at least
    :data:`DISTINCT` apart where the palette allows; among such colours an agent takes one no other agent
    has, the first of :data:`PALETTE` (so colours repeat across the report only past the palette's size,
    and then only between agents never drawn together). Busiest agents choose first, ties by name."""
    neighbours: dict[str, set[str]] = defaultdict(set)
    for group in groups:
        members = set(group)
        for agent in members:
            neighbours[agent].update(members - {agent})
    colours: dict[str, str] = {}
    for agent in sorted(neighbours, key=lambda a: (-len(neighbours[a]), a)):
        near = [colours[b] for b in neighbours[agent] if b in colours]
        used = set(colours.values())

        def cost(i: int, near: list[str] = near, used: set[str] = used) -> tuple:
            c = PALETTE[i]
            dist = min((colour_distance(c, n) for n in near), default=math.inf)
            return c in near, -min(dist, DISTINCT), c in used, i

        colours[agent] = PALETTE[min(range(len(PALETTE)), key=cost)]
    return colours
