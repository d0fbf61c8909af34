"""The report's figures (matplotlib, Agg, PNG): curves with 95 % bands and the literal-vs-functional plane.

Overlaid series never hide each other: each has its own colour, line style and marker (markers
every few points), bands are translucent, and the legend sits outside the axes. A series label keeps
its style in every figure (:func:`styles_for`), so one agent has one colour across the report.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tom_envs.stats import mean_ci95

LINESTYLES = ("-", "--", "-.", ":")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "*")
DPI = 100


def _plt() -> Any:
    from tom_envs.errors import import_optional

    matplotlib = import_optional("matplotlib", "bench", "tom-envs report")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


#: The colours series are drawn in (matplotlib's tab20, dark shades first, then the light ones).
PALETTE = tuple(f"tab:{c}" for c in ("blue", "orange", "green", "red", "purple", "brown", "pink", "gray", "olive",
                                     "cyan")) + ("#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94",
                                                 "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5")


def style(i: int) -> dict[str, Any]:
    """The i-th style: colour, line style and marker (distinct for the first 40)."""
    return {"color": PALETTE[i % len(PALETTE)], "linestyle": LINESTYLES[i % len(LINESTYLES)],
            "marker": MARKERS[(i // len(LINESTYLES) + i) % len(MARKERS)]}


def label_slot(label: str) -> int:
    """A series label's own style index: the same label gets the same colour, line style and marker
    in every figure of every report (a hash of the label, not its position in a figure)."""
    import hashlib

    return int.from_bytes(hashlib.sha256(label.encode("utf-8")).digest()[:4], "big") % 40


def styles_for(labels: Sequence[str]) -> dict[str, dict[str, Any]]:
    """The style of each label of one figure: its own (:func:`label_slot`), or, when two labels of the
    figure share a slot, the next free one for the later label in sorted order (so no two series of a
    figure look alike, and a label keeps its style wherever it meets no clash)."""
    taken: dict[int, str] = {}
    out = {}
    for label in sorted(set(labels)):
        slot = label_slot(label)
        while slot in taken:
            slot = (slot + 1) % 40
        taken[slot] = label
        out[label] = style(slot)
    return out


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


#: Panels per row: a figure of more columns is shown shrunk on a page (a 1,280-pixel window shows an image at
#: most ~1,180 pixels wide), and its 8-point legend and tick labels become unreadable (the report's browser test).
MAX_COLUMNS = 2


def _grid(plt: Any, n: int, width: float, height: float) -> tuple[Any, Any]:
    """A figure of ``n`` panels of ``width`` x ``height`` inches, :data:`MAX_COLUMNS` to a row."""
    cols = min(MAX_COLUMNS, max(1, n))
    rows = (max(1, n) + cols - 1) // cols
    return plt.subplots(rows, cols, figsize=(width * cols, height * rows), squeeze=False)


def curves(path: Path, title: str, panels: Sequence[dict[str, Any]]) -> Path:
    """Panels side by side, each ``{"title", "xlabel", "ylabel", "clip", "series": [{"label", "x", "mean", "lo",
    "hi"}]}`` (``clip``: the bounds of the quantity, e.g. (0, 100) for a percentage, that bands stop at); the same label keeps the same style in every panel; one legend outside, right."""
    plt = _plt()
    labels = list(dict.fromkeys(s["label"] for p in panels for s in p["series"]))
    styles = styles_for(labels)
    fig, axes = _grid(plt, len(panels), 5.2, 3.6)
    handles = {}
    for ax, panel in zip(axes.flat, panels):
        lo_clip, hi_clip = panel.get("clip") or (float("-inf"), float("inf"))
        for s in panel["series"]:
            i = labels.index(s["label"])
            st = styles[s["label"]]
            every = max(1, len(s["x"]) // 10)
            start = (i * every // max(1, len(labels))) % every  # staggered: equal curves keep visible markers
            (line,) = ax.plot(s["x"], s["mean"], label=s["label"], linewidth=1.6, markersize=5, markevery=(start, every),
                              markerfacecolor="white", **st)
            ax.fill_between(s["x"], [max(lo_clip, v) for v in s["lo"]], [min(hi_clip, v) for v in s["hi"]],
                            color=st["color"], alpha=0.15, linewidth=0)
            handles.setdefault(s["label"], line)
        ax.set(title=panel["title"], xlabel=panel.get("xlabel", ""), ylabel=panel.get("ylabel", ""))
        if panel.get("clip"):
            span = hi_clip - lo_clip
            ax.set_ylim(lo_clip - 0.03 * span, hi_clip + 0.03 * span)
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    fig.suptitle(title)
    fig.legend(list(handles.values()), list(handles), loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8,
               title="mean, 95 % band", title_fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    return path


def plane(path: Path, title: str, panels: Sequence[dict[str, Any]]) -> Path:
    """Literal ToM (x) against functional ToM (y), one panel per game or family part.

    A panel is ``{"title", "xlabel", "ylabel", "invert_y", "xlim", "ylim", "points": [{"label", "x", "xci",
    "y", "yci", "ref"}], "hlines": [{"label", "y"}]}``; evaluated agents are filled markers with CI whiskers,
    published (``ref``) agents are hollow black stars, ``hlines`` are exact reference levels of the functional
    score (grey lines, one line style per label). With ``invert_y`` (a regret axis) up is better."""
    plt = _plt()
    labels = list(dict.fromkeys(p["label"] for panel in panels for p in panel["points"] if not p.get("ref")))
    styles = styles_for(labels)
    refs = list(dict.fromkeys(p["label"] for panel in panels for p in panel["points"] if p.get("ref")))
    fig, axes = _grid(plt, len(panels), 4.6, 4.0)
    handles = {}
    ref_marks = itertools.cycle(("*", "p", "h", "8", "d"))
    ref_style = {label: next(ref_marks) for label in refs}
    hlabels = list(dict.fromkeys(h["label"] for panel in panels for h in panel.get("hlines", [])))
    for ax, panel in zip(axes.flat, panels):
        for p in panel["points"]:
            if p.get("x") is None or p.get("y") is None:
                continue
            if p.get("ref"):
                h = ax.scatter([p["x"]], [p["y"]], s=110, marker=ref_style[p["label"]], facecolors="none",
                               edgecolors="black", linewidths=1.2, zorder=3)
            else:
                st = styles[p["label"]]
                h = ax.errorbar([p["x"]], [p["y"]], xerr=[p.get("xci") or 0.0], yerr=[p.get("yci") or 0.0],
                                fmt=st["marker"], color=st["color"], markersize=7, capsize=3, alpha=0.9, zorder=2)
            handles.setdefault(p["label"], h)
        for line in panel.get("hlines", []):
            i = hlabels.index(line["label"])
            h = ax.axhline(line["y"], color=("0.25", "0.45", "0.6")[i % 3], linestyle=("--", ":", "-.")[i % 3],
                           linewidth=1.3, zorder=1)
            handles.setdefault(line["label"], h)
        ax.set(title=panel["title"], xlabel=panel.get("xlabel", ""), ylabel=panel.get("ylabel", ""))
        for axis, lim in (("x", panel.get("xlim")), ("y", panel.get("ylim"))):
            if lim:  # percentages: whiskers past 0 or 100 are cut at the axis
                span = lim[1] - lim[0]
                getattr(ax, f"set_{axis}lim")(lim[0] - 0.03 * span, lim[1] + 0.03 * span)
        if panel.get("invert_y"):
            ax.invert_yaxis()
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    fig.suptitle(title)
    fig.legend(list(handles.values()), list(handles), loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    return path


def bars_by_stage(path: Path, title: str, xlabel: str, series: Sequence[dict[str, Any]],
                  ticks: Sequence[str] | None = None) -> Path:
    """Accuracy per dialogue stage: ``series`` of ``{"label", "x", "mean", "ci"}``, points with CI bars
    joined by lines (each series its own style, slightly offset so the bars do not overlap); ``ticks``
    names the stages 1, 2, ...."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7.0, 3.8))
    width = 0.08
    styles = styles_for([s["label"] for s in series])
    for i, s in enumerate(series):
        st = styles[s["label"]]
        offset = (i - (len(series) - 1) / 2) * width
        ax.errorbar([x + offset for x in s["x"]], s["mean"], yerr=[c or 0.0 for c in s["ci"]], label=s["label"],
                    capsize=3, markersize=6, markerfacecolor="white", **st)
    ax.set(title=title, xlabel=xlabel, ylabel="accuracy (%)", ylim=(-2, 102))
    if ticks:
        ax.set_xticks(range(1, len(ticks) + 1), list(ticks))
    ax.grid(alpha=0.3)
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8, title="mean, 95 % CI", title_fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    return path
