"""The report's RL section: ``tom-envs rl``'s rows (``<results>/rl/rows_*.jsonl``), one table per env
with the RL agents next to the references they ran beside, and a literal-vs-functional panel per env
that joins the report's overview (docs/rl.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from benchmarks.report import figures
from benchmarks.report.load import FamilyData
from benchmarks.report.parts import drawn_figure, section_of

#: The results folder ``tom-envs rl`` writes (``benchmarks.rl_eval.RLCell.family``).
FOLDER = "rl"
#: The section's opening paragraph.
INTRO = (
    "stable-baselines3 agents trained by `tom-envs rl` on each env's train split and tested on the split each "
    "row names, beside the references run with them (scripted agents; their CI is over episodes, the RL "
    "agents' over training seeds). RL agents' ToM % comes from a probe fitted on their internal state on "
    "train-split episodes, or, where the answer is the prediction (QA), from their answers (docs/rl.md)."
)
#: The title and caption of the literal-vs-functional figure.
PLANE_TITLE = "RL agents: literal vs functional ToM"
PLANE_CAPTION = (
    "RL agents and their references: ToM % (x) "
    "against the functional outcome (y; regret axes inverted, up is better); whiskers (95 % CIs) "
    "stop at 0 and 100 %."
)
#: The title and caption of the learning curves.
CURVES_TITLE = "RL agents: learning curves on the test split"
CURVES_CAPTION = (
    "Learning curves (evaluation during training, "
    "benchmarks/rl_curve.py): at evenly spaced points, the agent as it stands on a few test-split "
    "episodes: its outcome, and its probe's ToM % beside the majority floor; bands: 95 % CIs over "
    "training seeds."
)
ROWS_PREFIX = "rows_"  # benchmarks.rl_eval.ROWS_PREFIX
#: Outcomes with fixed bounds (a probability): the plane's axis shows them and whiskers stop there.
BOUNDED_OUTCOMES = {"success": (0.0, 1.0)}


def _fmt(value: Any, ci: Any, digits: int) -> str:
    if value is None:
        return "n/a"
    return f"{value:.{digits}f} ± {ci:.{digits}f}" if ci is not None else f"{value:.{digits}f}"


def _rows(fam: FamilyData) -> list[dict[str, Any]]:
    """The stored rows (one per identity: the last line read wins)."""
    found: dict[tuple, dict[str, Any]] = {}
    for f in fam.files:
        if not f.path.name.startswith(ROWS_PREFIX):
            continue
        for rec in f.records:
            r = rec.get("row")
            if isinstance(r, dict) and r.get("env_id") and r.get("outcome"):
                found[
                    (
                        _group(r),
                        r.get("split"),
                        r.get("policy"),
                        r.get("algo"),
                        r.get("steps"),
                        tuple(r.get("seeds") or ()),
                    )
                ] = r
    return list(found.values())


def _group(row: dict[str, Any]) -> str:
    """What a table holds: the env id, and the trained seat and env kwargs where a row names them
    (two seats of one parallel id, or two custom games, are different tables)."""
    label = str(row["env_id"])
    if row.get("seat") is not None:
        label += f" seat {row['seat']}"
    if row.get("env_kwargs"):
        label += " " + json.dumps(row["env_kwargs"], sort_keys=True)
    return label


def _panel(env_id: str, rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    outcome = rows[0]["outcome"]
    # colour = the policy, marker = the split an RL agent was tested on and its training steps
    points = [
        {
            "agent": str(r["policy"]),
            "variant": f"{r['split']}, {r.get('steps')} steps" if r.get("algo") else "",
            "x": r.get("tom_accuracy"),
            "xci": r.get("tom_accuracy_ci"),
            "y": r.get(outcome),
            "yci": r.get(f"{outcome}_ci"),
        }
        for r in rows
        if r.get("tom_accuracy") is not None and r.get(outcome) is not None
    ]
    if not points or outcome == "accuracy":  # QA: the answer is the prediction, both axes say the same
        return None
    return {
        "title": f"{env_id}: RL agents",
        "xlabel": "ToM % (RL: probe on the agent's state)",
        "ylabel": outcome,
        "invert_y": not rows[0].get("higher_is_better", True),
        "xlim": (0, 100),
        "ylim": BOUNDED_OUTCOMES.get(outcome),
        "points": points,
    }


def _seeds(row: dict[str, Any]) -> str:
    return str(len(row.get("seeds") or []) or "-")


def _cpu(row: dict[str, Any]) -> str:
    cpu = row.get("cpu_s_per_million_steps")
    return "-" if cpu is None else f"{cpu:,.0f}"


def curve_panels_of(group: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The learning-curve panels of one table's RL rows that carry a curve (``row["curve"]``, from
    :func:`benchmarks.rl_curve.combined`): the outcome, and ToM % beside the majority floor."""
    have = [r for r in rows if isinstance(r.get("curve"), dict) and r["curve"].get("steps")]
    if not have:
        return []
    outcome = have[0]["outcome"]

    def series(r: dict[str, Any], name: str, variant: str) -> dict[str, Any]:
        c = r["curve"]
        points = [
            (s, m, ci) for s, m, ci in zip(c["steps"], c.get(name) or [], c.get(f"{name}_ci") or []) if m is not None
        ]
        return {
            "agent": f"{r['policy']} ({r.get('steps')} steps)",
            "variant": variant,
            "x": [p[0] for p in points],
            "mean": [p[1] for p in points],
            "lo": [p[1] - (p[2] or 0.0) for p in points],
            "hi": [p[1] + (p[2] or 0.0) for p in points],
        }

    tom = [
        s
        for r in have
        for s in (series(r, "tom_accuracy", "ToM %"), series(r, "tom_majority", "majority floor"))
        if s["x"]
    ]
    out = [
        {
            "title": f"{group}: {outcome}",
            "xlabel": "training steps",
            "ylabel": outcome,
            "clip": BOUNDED_OUTCOMES.get(outcome),
            "series": [series(r, outcome, outcome) for r in have],
        }
    ]
    if tom:
        out.append(
            {"title": f"{group}: ToM %", "xlabel": "training steps", "ylabel": "ToM %", "clip": (0, 100), "series": tom}
        )
    return out


def section(fam: FamilyData, out: Path, root: Path) -> dict[str, Any]:
    """The RL section from the stored rows only."""
    rows = _rows(fam)
    blocks: list[dict[str, Any]] = [{"kind": "p", "text": INTRO}]
    panels: list[dict[str, Any]] = []
    curve_panels: list[dict[str, Any]] = []
    for env_id in sorted({_group(r) for r in rows}):
        mine = [r for r in rows if _group(r) == env_id]
        mine.sort(key=lambda r: (r.get("algo") is None, str(r.get("split")), str(r.get("policy")), r.get("steps") or 0))
        outcome = mine[0]["outcome"]
        table = [
            {
                "cells": [
                    r["policy"],
                    str(r.get("split")),
                    str(r.get("steps") or "-"),
                    _seeds(r),
                    _fmt(r.get(outcome), r.get(f"{outcome}_ci"), 3),
                    _fmt(r.get("tom_accuracy"), r.get("tom_accuracy_ci"), 1),
                    _fmt(r.get("tom_majority"), r.get("tom_majority_ci"), 1)
                    if r.get("tom_majority") is not None
                    else "-",
                    _cpu(r),
                    str(r.get("tom_source") or "none"),
                ]
            }
            for r in mine
        ]
        better = "higher" if mine[0].get("higher_is_better", True) else "lower"
        blocks.append(
            {
                "kind": "table",
                "caption": f"{env_id} ({better} {outcome} is better)",
                "columns": [
                    "policy",
                    "split",
                    "steps",
                    "seeds",
                    outcome,
                    "ToM %",
                    "majority %",
                    "CPU s per 1M steps",
                    "ToM from",
                ],
                "rows": table,
            }
        )
        blocks += [{"kind": "p", "text": f"{r['policy']}: {r['seeds_note']}"} for r in mine if r.get("seeds_note")]
        panel = _panel(env_id, mine)
        if panel is not None:
            panels.append(panel)
        curve_panels += curve_panels_of(env_id, mine)
    if not rows:
        blocks.append({"kind": "p", "text": "No RL rows stored yet (run `tom-envs rl --env ID --out THIS_FOLDER`)."})
    written: list[str] = []
    blocks += drawn_figure(
        figures.plane,
        out / "plane.png",
        PLANE_TITLE,
        panels,
        "test split, training steps",
        PLANE_CAPTION,
        written,
        root,
    )
    blocks += drawn_figure(
        figures.curves, out / "curves.png", CURVES_TITLE, curve_panels, "measure", CURVES_CAPTION, written, root
    )
    return section_of(fam, "RL agents (tom-envs rl)", blocks, panels, written)
