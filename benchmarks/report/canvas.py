"""The frame every figure of the report is drawn in (:mod:`benchmarks.report.figures`): a grid of panels, one
legend right of the axes (a colour entry per agent, a style entry per variant), the title laid out above, and
the audit file written beside the PNG (:func:`audit_path`): read back from the drawn matplotlib artists, per
panel the agent, variant and colour of each series, the axis limits, the bounds of the quantities and the
extent of the intervals drawn, and the sizes of the legend and of the axes in pixels."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from benchmarks.report.panels import agent_of, variant_styles

DPI = 100


def pyplot() -> Any:
    """matplotlib's pyplot on the Agg backend (the report draws files, never windows); imported when first drawn."""
    from tom_envs.errors import import_optional

    matplotlib = import_optional("matplotlib", "bench", "tom-envs report")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


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


def clip(value: float, half: float | None, bounds: Sequence[float] | None) -> list[float]:
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


def set_bounds(ax: Any, axis: str, bounds: Sequence[float] | None) -> None:
    if bounds:
        span = bounds[1] - bounds[0]
        getattr(ax, f"set_{axis}lim")(bounds[0] - 0.03 * span, bounds[1] + 0.03 * span)


class Canvas:
    """One figure being drawn: the grid of its panels, the colour of each agent and the style of each variant
    of its ``series`` (colours from ``colours``, the legend's style entries titled ``variant_title``), and what
    each panel drew (:meth:`record`), which the audit reads back."""

    def __init__(
        self,
        n: int,
        size: tuple[float, float],
        series: Iterable[dict[str, Any]],
        colours: dict[str, str],
        variant_title: str,
    ) -> None:
        series = list(series)
        self.plt = pyplot()
        self.agents = sorted({agent_of(s) for s in series})
        self.styles = variant_styles(str(s.get("variant") or "") for s in series)
        self.fig, self.axes = _grid(self.plt, n, *size)
        self.colours, self.variant_title = colours, variant_title
        self.drawn: list[dict[str, Any]] = []

    def panels(self, panels: Sequence[dict[str, Any]]) -> Iterator[tuple[Any, dict[str, Any]]]:
        """Each panel with the axes it is drawn on."""
        return zip(list(self.axes.flat)[: len(panels)], panels)

    def record(self, ax: Any, x: Sequence[float] | None = None, y: Sequence[float] | None = None) -> dict[str, Any]:
        """The audit record of the panel on ``ax`` (``x``, ``y``: the bounds of the quantities on each axis, or
        None); the drawing adds ``(agent, variant, artist)`` to its ``series`` and whisker or band artists to its
        ``intervals``."""
        bounds = {"x": list(x) if x else None, "y": list(y) if y else None}
        record: dict[str, Any] = {"ax": ax, "bounds": bounds, "series": [], "intervals": []}
        self.drawn.append(record)
        return record

    def label(self, ax: Any, title: str, xlabel: str, ylabel: str) -> None:
        """A panel's title (wrapped to fit over it), axis labels and grid."""
        ax.set(title=_wrap(title), xlabel=xlabel, ylabel=ylabel)
        ax.grid(alpha=0.3)

    def complete(self, path: Path, title: str, lines: bool, extra: Sequence[tuple[Any, str]] = ()) -> Path:
        """The end of the drawing (:func:`_complete`): the legend's style entries are lines (``lines``) or
        markers alone; ``extra`` adds legend entries (reference marks)."""
        legend = dict(
            agents=self.agents,
            colours=self.colours,
            variants=self.styles,
            variant_title=self.variant_title,
            lines=lines,
            extra=extra,
        )
        return _complete(self.fig, self.plt, path, self.axes, self.drawn, title, legend)
