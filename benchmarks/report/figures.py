"""The report's figures (matplotlib, Agg, PNG): curves with 95 % bands, accuracy by stage and the
literal-vs-functional plane.

Colour means agent and nothing else. Every series or point names its ``agent`` (the policy, answerer,
persuader or mediator, with its model) and may name a ``variant`` (horizon T, partner, conflict mode,
question type, a setting two runs of one agent differ in). The colour comes from the agent alone, through
one map shared by every figure drawn together (:func:`assign_colours`; the report plans all its figures
first, :func:`planned`, then draws them with one map); the variant goes to line style and marker. No
panel holds more than :data:`MAX_SERIES` series (a fuller panel is split, by variant where that is
enough), whiskers and bands stop at the bounds of their quantity (0-100 for a percentage), and the
legend (a colour entry per agent, a style entry per variant) sits right of the axes, in columns when
one would be taller than them.

Each figure writes ``<name>.figure.json`` beside it (:func:`audit_path`): read back from the drawn
matplotlib artists, per panel the agent, variant and colour of each series, the axis limits, the bounds
of the quantities and the extent of the intervals drawn, and the sizes of the legend and of the axes in
pixels. The report's tests check the rules above on these files.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.errors import RunnerError
from tom_envs.stats import mean_ci95

#: The most series one panel holds; a panel with more is split (:func:`split_panels`).
MAX_SERIES = 8
LINESTYLES = ("-", "--", "-.", ":")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "*")
DPI = 100
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


class FigureError(RunnerError):
    """A figure asked for something it cannot draw (a series without an agent, two identical series)."""


def pyplot() -> Any:
    """matplotlib's pyplot on the Agg backend (the report draws files, never windows); imported when first drawn."""
    from tom_envs.errors import import_optional

    matplotlib = import_optional("matplotlib", "bench", "tom-envs report")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


# ---------------------------------------------------------------------- colour = agent
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


# ---------------------------------------------------------------------- planned drawing
@dataclass
class Job:
    """A figure planned but not drawn yet: its file, its agents, and how to draw it with a colour map."""

    path: Path
    agents: list[str]
    draw: Callable[[dict[str, str]], Path]


_PLAN: ContextVar[list[Job] | None] = ContextVar("report_figure_plan", default=None)


@contextmanager
def planned() -> Iterator[list[Job]]:
    """Inside, figure functions only plan their figure (and return its path); the caller draws the jobs
    with one colour map afterwards (:func:`draw_all`). Outside, each figure is drawn at once with the colours
    of its own agents."""
    token = _PLAN.set([])
    try:
        yield _PLAN.get()  # type: ignore[misc]
    finally:
        _PLAN.reset(token)


def draw_all(jobs: Sequence[Job], colours: dict[str, str]) -> None:
    """Draw planned figures with ``colours`` (every agent of every job must have one)."""
    for job in jobs:
        job.draw(colours)


def _submit(path: Path, agents: Iterable[str], draw: Callable[[dict[str, str]], Path]) -> Path:
    job = Job(Path(path), sorted(set(agents)), draw)
    jobs = _PLAN.get()
    if jobs is None:
        return draw(assign_colours([job.agents]))
    jobs.append(job)
    return job.path


# ---------------------------------------------------------------------- panels
def _agent(item: dict[str, Any]) -> str:
    if not item.get("agent"):
        raise FigureError(
            f"a series or point without an 'agent' (the policy, answerer or mediator whose colour "
            f"it takes): {sorted(item)}; name it, and put horizon, partner or mode in 'variant'"
        )
    return str(item["agent"])


def _ident(item: dict[str, Any]) -> tuple[str, str]:
    return _agent(item), str(item.get("variant") or "")


def _numbered(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Series of one agent with one variant (runs nothing told apart, e.g. two results files of one setting
    keyed by an option the section does not name) get ``run 1``, ``run 2``, ... added to their variant, in order,
    so each keeps its own line style and legend entry."""
    seen: dict[tuple[str, str], int] = {}
    counts = {i: sum(_ident(s) == i for s in items) for i in {_ident(s) for s in items}}
    out = []
    for s in items:
        ident = _ident(s)
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
        idents = list(dict.fromkeys(_ident(s) for s in items))
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
            out.append({**panel, "title": title, key: [s for s in items if _ident(s) in chosen] + refs})
    return out


def variant_styles(variants: Iterable[str]) -> dict[str, dict[str, str]]:
    """Line style and marker of each variant of a figure (sorted; the empty variant first, solid with circles)."""
    ordered = sorted(set(variants), key=lambda v: (v != "", v))
    return {
        v: {"linestyle": LINESTYLES[i % len(LINESTYLES)], "marker": MARKERS[i % len(MARKERS)]}
        for i, v in enumerate(ordered)
    }


def _grid(plt: Any, n: int, width: float, height: float) -> tuple[Any, Any]:
    """A figure of ``n`` panels of ``width`` x ``height`` inches, :data:`MAX_COLUMNS` to a row."""
    cols = min(MAX_COLUMNS, max(1, n))
    rows = (max(1, n) + cols - 1) // cols
    return plt.subplots(rows, cols, figsize=(width * cols, height * rows), squeeze=False)


#: Panels per row: a figure of more columns is shown shrunk on a page (a 1,280-pixel window shows an image at
#: most ~1,180 pixels wide), and its 8-point legend and tick labels become unreadable (the report's browser test).
MAX_COLUMNS = 2
LEGEND_FONT = 8


def _legend(
    fig: Any,
    axes: Sequence[Any],
    agents: Sequence[str],
    colours: dict[str, str],
    variants: dict[str, dict[str, str]],
    variant_title: str,
    lines: bool,
    extra: Sequence[tuple[Any, str]] = (),
) -> Any:
    """One legend right of the axes: a colour entry per agent, a style entry per variant (grey), then
    ``extra`` (reference marks); in as many columns as keep it no taller than the axes."""
    from matplotlib.lines import Line2D

    blank = Line2D([], [], linestyle="none")
    entries: list[tuple[Any, str]] = [(blank, "colour: agent")]
    entries += [(Line2D([], [], color=colours[a], marker="s", linestyle="none", markersize=8), a) for a in agents]
    shown = {v: st for v, st in variants.items() if v}
    if shown:
        entries.append((blank, f"style: {variant_title}"))
        entries += [
            (
                Line2D(
                    [],
                    [],
                    color="0.35",
                    marker=st["marker"],
                    markerfacecolor="white",
                    linestyle=st["linestyle"] if lines else "none",
                ),
                v,
            )
            for v, st in shown.items()
        ]
    entries += list(extra)
    top = max(ax.get_position().y1 for ax in axes)
    bottom = min(ax.get_position().y0 for ax in axes)
    height_pt = (top - bottom) * fig.get_figheight() * 72
    rows = max(4, int(height_pt / (LEGEND_FONT * 2.0)))
    legend = fig.legend(
        [h for h, _ in entries],
        [t for _, t in entries],
        loc="upper left",
        bbox_to_anchor=(1.0, top),
        fontsize=LEGEND_FONT,
        ncol=math.ceil(len(entries) / rows),
        frameon=True,
    )
    headers = {"colour: agent", f"style: {variant_title}"}
    for text in legend.get_texts():
        if text.get_text() in headers:
            text.set_fontweight("bold")
    return legend


def audit_path(png: Path) -> Path:
    """The audit file of a figure: ``plane.png`` -> ``plane.figure.json``."""
    return Path(png).with_suffix(".figure.json")


def _extent(points: Iterable[Sequence[float]]) -> dict[str, list[float] | None]:
    xs, ys = [], []
    for x, y in points:
        if math.isfinite(x) and math.isfinite(y):
            xs.append(float(x))
            ys.append(float(y))
    return {"x": [min(xs), max(xs)] if xs else None, "y": [min(ys), max(ys)] if ys else None}


def _interval_points(artists: Iterable[Any]) -> list[Sequence[float]]:
    """Every vertex of the whiskers (errorbar line collections and caps) and bands (fill_between) drawn."""
    pts: list[Sequence[float]] = []
    for art in artists:
        if hasattr(art, "get_segments"):
            pts += [p for seg in art.get_segments() for p in seg]
        elif hasattr(art, "get_paths"):
            pts += [p for path in art.get_paths() for p in path.vertices]
        elif hasattr(art, "get_xydata"):
            pts += list(art.get_xydata())
    return pts


def _finish(fig: Any, plt: Any, path: Path, axes: Sequence[Any], legend: Any, drawn: list[dict[str, Any]]) -> Path:
    """Save the figure and its audit: per panel (``drawn``: ``{"ax", "bounds", "series": [(agent, variant,
    artist)], "intervals": [artists]}``) what the artists hold."""
    from matplotlib.colors import to_hex
    from matplotlib.transforms import Bbox

    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=DPI, bbox_inches="tight")
    renderer = fig.canvas.get_renderer()
    union = Bbox.union([ax.get_window_extent(renderer) for ax in axes])
    leg = legend.get_window_extent(renderer)
    panels = []
    for d in drawn:
        ax = d["ax"]
        panels.append(
            {
                "title": ax.get_title(),
                "bounds": d["bounds"],
                "xlim": sorted(ax.get_xlim()),
                "ylim": sorted(ax.get_ylim()),
                "series": [{"agent": a, "variant": v, "color": to_hex(art.get_color())} for a, v, art in d["series"]],
                "intervals": _extent(_interval_points(d["intervals"])),
            }
        )
    audit = {
        "figure": path.name,
        "size_px": [fig.get_figwidth() * DPI, fig.get_figheight() * DPI],
        "axes_px": [union.width, union.height],
        "legend_px": [leg.width, leg.height],
        "panels": panels,
    }
    audit_path(path).write_text(json.dumps(audit, indent=1), encoding="utf-8")
    plt.close(fig)
    return path


def _complete(
    fig: Any, plt: Any, path: Path, axes: Any, drawn: list[dict[str, Any]], title: str, legend: dict[str, Any]
) -> Path:
    """The end of every drawing: the grid's unused axes hidden, the title laid out, the legend (``legend``: the
    keyword arguments of :func:`_legend` after the axes) and :func:`_finish`."""
    used = [d["ax"] for d in drawn]
    for ax in list(axes.flat)[len(used) :]:
        ax.axis("off")
    _layout(fig, title)
    return _finish(fig, plt, path, used, _legend(fig, used, **legend), drawn)


def _clip(value: float, half: float | None, bounds: Sequence[float] | None) -> list[float]:
    """Asymmetric whisker lengths ``[below, above]`` of ``value ± half`` stopped at ``bounds``."""
    half = half or 0.0
    lo, hi = bounds if bounds else (-math.inf, math.inf)
    return [max(0.0, value - max(lo, value - half)), max(0.0, min(hi, value + half) - value)]


def _wrap(title: str) -> str:
    """A panel title in lines that fit over its panel."""
    import textwrap

    return "\n".join(textwrap.wrap(title, 52)) or title


def _layout(fig: Any, title: str) -> None:
    """The suptitle, and the panels laid out below it (room for its lines whatever the figure's height)."""
    fig.suptitle(title)
    lines = title.count("\n") + 1
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.12 * lines / fig.get_figheight()))


def _set_bounds(ax: Any, axis: str, bounds: Sequence[float] | None) -> None:
    if bounds:
        span = bounds[1] - bounds[0]
        getattr(ax, f"set_{axis}lim")(bounds[0] - 0.03 * span, bounds[1] + 0.03 * span)


# ---------------------------------------------------------------------- curves
def band(series: Sequence[Sequence[float | None]]) -> dict[str, list]:
    """Per position: mean and 95 % CI (Student t, :func:`tom_envs.stats.mean_ci95`) over the series that
    reach it (None values left out); ``x`` counts from 1, ``n`` is the series at each position."""
    length = max((len(s) for s in series), default=0)
    x, mean, lo, hi, n = [], [], [], [], []
    for t in range(length):
        values = [s[t] for s in series if t < len(s) and s[t] is not None]
        m, ci = mean_ci95([float(v) for v in values])
        if m is None:
            continue
        x.append(t + 1)
        mean.append(m)
        lo.append(m - (ci or 0.0))
        hi.append(m + (ci or 0.0))
        n.append(len(values))
    return {"x": x, "mean": mean, "lo": lo, "hi": hi, "n": n}


def curves(path: Path, title: str, panels: Sequence[dict[str, Any]], variant_title: str = "variant") -> Path:
    """Panels of curves with 95 % bands, each ``{"title", "xlabel", "ylabel", "clip", "series": [{"agent",
    "variant", "x", "mean", "lo", "hi"}]}`` (``clip``: the bounds of the quantity, e.g. (0, 100) for a
    percentage: the axis shows them and bands stop there). Colour = agent, line style and marker =
    variant (``variant_title`` names what variants are in the legend)."""
    panels = split_panels(panels, "series")
    agents = [_agent(s) for p in panels for s in p["series"]]
    return _submit(path, agents, lambda colours: _draw_curves(path, title, panels, variant_title, colours))


def _draw_curves(
    path: Path, title: str, panels: Sequence[dict[str, Any]], variant_title: str, colours: dict[str, str]
) -> Path:
    plt = pyplot()
    agents = sorted({_agent(s) for p in panels for s in p["series"]})
    styles = variant_styles(str(s.get("variant") or "") for p in panels for s in p["series"])
    fig, axes = _grid(plt, len(panels), 5.2, 3.6)
    used, drawn = list(axes.flat)[: len(panels)], []
    for ax, panel in zip(used, panels):
        clip = panel.get("clip")
        lo_clip, hi_clip = clip or (-math.inf, math.inf)
        record = {"ax": ax, "bounds": {"x": None, "y": list(clip) if clip else None}, "series": [], "intervals": []}
        for i, s in enumerate(panel["series"]):
            agent, variant = _ident(s)
            st = styles[variant]
            every = max(1, len(s["x"]) // 10)
            start = (i * every // max(1, len(panel["series"]))) % every  # staggered: equal curves keep markers
            (line,) = ax.plot(
                s["x"],
                s["mean"],
                color=colours[agent],
                linewidth=1.6,
                markersize=5,
                markevery=(start, every),
                markerfacecolor="white",
                **st,
            )
            fill = ax.fill_between(
                s["x"],
                [max(lo_clip, v) for v in s["lo"]],
                [min(hi_clip, v) for v in s["hi"]],
                color=colours[agent],
                alpha=0.15,
                linewidth=0,
            )
            record["series"].append((agent, variant, line))
            record["intervals"].append(fill)
        ax.set(title=_wrap(panel["title"]), xlabel=panel.get("xlabel", ""), ylabel=panel.get("ylabel", ""))
        _set_bounds(ax, "y", clip)
        ax.grid(alpha=0.3)
        drawn.append(record)
    return _complete(
        fig,
        plt,
        path,
        axes,
        drawn,
        f"{title}\n(mean, 95 % band)",
        dict(agents=agents, colours=colours, variants=styles, variant_title=variant_title, lines=True),
    )


# ---------------------------------------------------------------------- the literal-vs-functional plane
def plane(path: Path, title: str, panels: Sequence[dict[str, Any]], variant_title: str = "variant") -> Path:
    """Literal ToM (x) against functional ToM (y), one panel per game or family part.

    A panel is ``{"title", "xlabel", "ylabel", "invert_y", "xlim", "ylim", "points": [{"agent", "variant",
    "x", "xci", "y", "yci", "ref", "label"}], "hlines": [{"label", "y"}]}``; evaluated agents are filled
    markers (colour = agent, marker = variant) with CI whiskers stopped at ``xlim`` / ``ylim`` (the bounds
    of the quantities), published (``ref``, named by ``label``) agents are hollow black marks, ``hlines``
    are exact reference levels of the functional score (grey lines, one line style per label). With
    ``invert_y`` (a regret axis) up is better."""
    panels = split_panels(panels, "points")
    agents = [_agent(p) for panel in panels for p in panel["points"] if not p.get("ref")]
    return _submit(path, agents, lambda colours: _draw_plane(path, title, panels, variant_title, colours))


def _draw_plane(
    path: Path, title: str, panels: Sequence[dict[str, Any]], variant_title: str, colours: dict[str, str]
) -> Path:
    plt = pyplot()
    agents = sorted({_agent(p) for panel in panels for p in panel["points"] if not p.get("ref")})
    styles = variant_styles(
        str(p.get("variant") or "") for panel in panels for p in panel["points"] if not p.get("ref")
    )
    refs = list(dict.fromkeys(p["label"] for panel in panels for p in panel["points"] if p.get("ref")))
    ref_marks = dict(zip(refs, ("*", "p", "h", "8", "d") * (len(refs) // 5 + 1)))
    hlabels = list(dict.fromkeys(h["label"] for panel in panels for h in panel.get("hlines", [])))
    fig, axes = _grid(plt, len(panels), 4.6, 4.0)
    used, drawn, extra = list(axes.flat)[: len(panels)], [], {}
    for ax, panel in zip(used, panels):
        xlim, ylim = panel.get("xlim"), panel.get("ylim")
        record = {
            "ax": ax,
            "bounds": {"x": list(xlim) if xlim else None, "y": list(ylim) if ylim else None},
            "series": [],
            "intervals": [],
        }
        for p in panel["points"]:
            if p.get("x") is None or p.get("y") is None:
                continue
            if p.get("ref"):
                h = ax.scatter(
                    [p["x"]],
                    [p["y"]],
                    s=110,
                    marker=ref_marks[p["label"]],
                    facecolors="none",
                    edgecolors="black",
                    linewidths=1.2,
                    zorder=3,
                )
                extra.setdefault(p["label"], h)
                continue
            agent, variant = _ident(p)
            x, y = float(p["x"]), float(p["y"])
            box = ax.errorbar(
                [x],
                [y],
                xerr=[[e] for e in _clip(x, p.get("xci"), xlim)],
                yerr=[[e] for e in _clip(y, p.get("yci"), ylim)],
                fmt=styles[variant]["marker"],
                color=colours[agent],
                markersize=7,
                capsize=3,
                alpha=0.9,
                zorder=2,
            )
            record["series"].append((agent, variant, box.lines[0]))
            record["intervals"] += [*box.lines[1], *box.lines[2]]
        for line in panel.get("hlines", []):
            i = hlabels.index(line["label"])
            h = ax.axhline(
                line["y"],
                color=("0.25", "0.45", "0.6")[i % 3],
                linestyle=("--", ":", "-.")[i % 3],
                linewidth=1.3,
                zorder=1,
            )
            extra.setdefault(line["label"], h)
        ax.set(title=_wrap(panel["title"]), xlabel=panel.get("xlabel", ""), ylabel=panel.get("ylabel", ""))
        _set_bounds(ax, "x", xlim)
        _set_bounds(ax, "y", ylim)
        if panel.get("invert_y"):
            ax.invert_yaxis()
        ax.grid(alpha=0.3)
        drawn.append(record)
    return _complete(
        fig,
        plt,
        path,
        axes,
        drawn,
        title,
        dict(
            agents=agents,
            colours=colours,
            variants=styles,
            variant_title=variant_title,
            lines=False,
            extra=[(h, label) for label, h in extra.items()],
        ),
    )


# ---------------------------------------------------------------------- accuracy by stage
def bars_by_stage(
    path: Path,
    title: str,
    xlabel: str,
    panels: Sequence[dict[str, Any]],
    ticks: Sequence[str] | None = None,
    variant_title: str = "variant",
) -> Path:
    """Accuracy per dialogue stage: ``panels`` of ``{"title", "series": [{"agent", "variant", "x", "mean",
    "ci"}]}``, points with CI bars (stopped at 0 and 100) joined by lines, slightly offset so that the bars
    do not overlap; colour = agent, line style and marker = variant; ``ticks`` names the stages 1, 2, ...."""
    panels = split_panels(panels, "series")
    agents = [_agent(s) for p in panels for s in p["series"]]
    return _submit(
        path, agents, lambda colours: _draw_stages(path, title, xlabel, panels, ticks, variant_title, colours)
    )


def _draw_stages(
    path: Path,
    title: str,
    xlabel: str,
    panels: Sequence[dict[str, Any]],
    ticks: Sequence[str] | None,
    variant_title: str,
    colours: dict[str, str],
) -> Path:
    plt = pyplot()
    agents = sorted({_agent(s) for p in panels for s in p["series"]})
    styles = variant_styles(str(s.get("variant") or "") for p in panels for s in p["series"])
    bounds = (0.0, 100.0)
    fig, axes = _grid(plt, len(panels), 5.2, 3.4)
    used, drawn = list(axes.flat)[: len(panels)], []
    for ax, panel in zip(used, panels):
        record = {"ax": ax, "bounds": {"x": None, "y": list(bounds)}, "series": [], "intervals": []}
        n = len(panel["series"])
        width = min(0.08, 0.6 / max(1, n))
        for i, s in enumerate(panel["series"]):
            agent, variant = _ident(s)
            offset = (i - (n - 1) / 2) * width
            errs = [_clip(m, c, bounds) for m, c in zip(s["mean"], s["ci"])]
            box = ax.errorbar(
                [x + offset for x in s["x"]],
                s["mean"],
                yerr=[[e[0] for e in errs], [e[1] for e in errs]],
                capsize=3,
                markersize=6,
                markerfacecolor="white",
                color=colours[agent],
                **styles[variant],
            )
            record["series"].append((agent, variant, box.lines[0]))
            record["intervals"] += [*box.lines[1], *box.lines[2]]
        ax.set(title=_wrap(panel.get("title", "")), xlabel=xlabel, ylabel="accuracy (%)")
        _set_bounds(ax, "y", bounds)
        if ticks:
            ax.set_xticks(range(1, len(ticks) + 1), list(ticks))
        ax.grid(alpha=0.3)
        drawn.append(record)
    return _complete(
        fig,
        plt,
        path,
        axes,
        drawn,
        f"{title}\n(mean, 95 % CI)",
        dict(agents=agents, colours=colours, variants=styles, variant_title=variant_title, lines=True),
    )
