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

The colours come from :mod:`benchmarks.report.colours`, the series and the splitting of full panels from
:mod:`benchmarks.report.panels`; every kind of figure here is drawn in the frame of
:mod:`benchmarks.report.canvas` (grid, legend, layout), which writes ``<name>.figure.json`` beside it
(:func:`audit_path`): read back from the drawn matplotlib artists, per panel the agent, variant and colour of
each series, the axis limits, the bounds of the quantities and the extent of the intervals drawn, and the
sizes of the legend and of the axes in pixels. The report's tests check the rules above on these files.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# the names of canvas, colours and panels that callers import from here (this module held them before) are re-exported
from benchmarks.report.canvas import DPI, Canvas, audit_path, clip, pyplot, set_bounds  # noqa: F401
from benchmarks.report.colours import DISTINCT, PALETTE, assign_colours, colour_distance, lab  # noqa: F401
from benchmarks.report.panels import (  # noqa: F401
    LINESTYLES,
    MARKERS,
    MAX_SERIES,
    FigureError,
    agent_of,
    agent_variant,
    split_panels,
    variant_styles,
)
from tom_envs.stats import mean_ci95


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
    agents = [agent_of(s) for p in panels for s in p["series"]]
    return _submit(path, agents, lambda colours: _draw_curves(path, title, panels, variant_title, colours))


def _draw_curves(
    path: Path, title: str, panels: Sequence[dict[str, Any]], variant_title: str, colours: dict[str, str]
) -> Path:
    canvas = Canvas(len(panels), (5.2, 3.6), [s for p in panels for s in p["series"]], colours, variant_title)
    for ax, panel in canvas.panels(panels):
        clip_to = panel.get("clip")
        lo_clip, hi_clip = clip_to or (-math.inf, math.inf)
        record = canvas.record(ax, y=clip_to)
        for i, s in enumerate(panel["series"]):
            agent, variant = agent_variant(s)
            st = canvas.styles[variant]
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
        canvas.label(ax, panel["title"], panel.get("xlabel", ""), panel.get("ylabel", ""))
        set_bounds(ax, "y", clip_to)
    return canvas.complete(path, f"{title}\n(mean, 95 % band)", lines=True)


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
    agents = [agent_of(p) for panel in panels for p in panel["points"] if not p.get("ref")]
    return _submit(path, agents, lambda colours: _draw_plane(path, title, panels, variant_title, colours))


def _draw_plane(
    path: Path, title: str, panels: Sequence[dict[str, Any]], variant_title: str, colours: dict[str, str]
) -> Path:
    evaluated = [p for panel in panels for p in panel["points"] if not p.get("ref")]
    canvas = Canvas(len(panels), (4.6, 4.0), evaluated, colours, variant_title)
    refs = list(dict.fromkeys(p["label"] for panel in panels for p in panel["points"] if p.get("ref")))
    ref_marks = dict(zip(refs, ("*", "p", "h", "8", "d") * (len(refs) // 5 + 1)))
    hlabels = list(dict.fromkeys(h["label"] for panel in panels for h in panel.get("hlines", [])))
    extra: dict[str, Any] = {}
    for ax, panel in canvas.panels(panels):
        xlim, ylim = panel.get("xlim"), panel.get("ylim")
        record = canvas.record(ax, xlim, ylim)
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
            agent, variant = agent_variant(p)
            x, y = float(p["x"]), float(p["y"])
            box = ax.errorbar(
                [x],
                [y],
                xerr=[[e] for e in clip(x, p.get("xci"), xlim)],
                yerr=[[e] for e in clip(y, p.get("yci"), ylim)],
                fmt=canvas.styles[variant]["marker"],
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
        canvas.label(ax, panel["title"], panel.get("xlabel", ""), panel.get("ylabel", ""))
        set_bounds(ax, "x", xlim)
        set_bounds(ax, "y", ylim)
        if panel.get("invert_y"):
            ax.invert_yaxis()
    return canvas.complete(path, title, lines=False, extra=[(h, label) for label, h in extra.items()])


# ---------------------------------------------------------------------- accuracy by stage
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
    agents = [agent_of(s) for p in panels for s in p["series"]]
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
    canvas = Canvas(len(panels), (5.2, 3.4), [s for p in panels for s in p["series"]], colours, variant_title)
    bounds = (0.0, 100.0)
    for ax, panel in canvas.panels(panels):
        record = canvas.record(ax, y=bounds)
        n = len(panel["series"])
        width = min(0.08, 0.6 / max(1, n))
        for i, s in enumerate(panel["series"]):
            agent, variant = agent_variant(s)
            offset = (i - (n - 1) / 2) * width
            errs = [clip(m, c, bounds) for m, c in zip(s["mean"], s["ci"])]
            box = ax.errorbar(
                [x + offset for x in s["x"]],
                s["mean"],
                yerr=[[e[0] for e in errs], [e[1] for e in errs]],
                capsize=3,
                markersize=6,
                markerfacecolor="white",
                color=colours[agent],
                **canvas.styles[variant],
            )
            record["series"].append((agent, variant, box.lines[0]))
            record["intervals"] += [*box.lines[1], *box.lines[2]]
        canvas.label(ax, panel.get("title", ""), xlabel, "accuracy (%)")
        set_bounds(ax, "y", bounds)
        if ticks:
            ax.set_xticks(range(1, len(ticks) + 1), list(ticks))
    return canvas.complete(path, f"{title}\n(mean, 95 % CI)", lines=True)
