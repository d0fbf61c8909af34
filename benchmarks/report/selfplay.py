"""The report's self-play section: ``tom-envs selfplay``'s checkpoint records (``<results>/selfplay/curves_*.jsonl``),
per id, algorithm and mode a table of every checkpoint (each seat's probe ToM % with its CI, the majority floor
beside it, the return) and ToM curves (docs/selfplay.md). The rows are computed from the records by
:func:`benchmarks.selfplay.curve_rows` and :func:`benchmarks.selfplay.pays`, the functions the command prints with."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks.report import figures
from benchmarks.report.load import FamilyData
from benchmarks.report.parts import drawn_figure, section_of

#: The results folder ``tom-envs selfplay`` writes (``benchmarks.selfplay.FOLDER``).
FOLDER = "selfplay"
#: The section's opening paragraph.
INTRO = (
    "Learners that model learners (`tom-envs selfplay`): two independent stable-baselines3 learners, one per "
    "seat, train in rounds, against each other (each against the other's frozen snapshot of the previous round) "
    "or against the frozen crossplay population. At every checkpoint each learner's ToM % is a probe on its "
    "own state predicting the other seat's next action, beside the majority floor (the same learner on the same "
    "episodes predicting the probe's training majority), with its return; 95 % CIs over training seeds. "
    "'Does prediction pay?' is the Spearman correlation of the probe's gain over the floor with the return over "
    "every trained checkpoint (docs/selfplay.md)."
)
#: The title and caption of the ToM and return curves.
CURVES_TITLE = "Learners that model learners: ToM and return along training"
CURVES_CAPTION = (
    "Per checkpoint: each seat's probe ToM % beside its majority floor (line style: the measure), and its return; bands: 95 % "
    "CIs over training seeds."
)
_NEEDED = ("env_id", "algo", "mode", "seed", "seat", "round", "steps", "tom_accuracy", "tom_majority", "return")


def _records(fam: FamilyData) -> dict[tuple[str, str, str], list[dict]]:
    """The checkpoint records by (env id, algorithm, mode); records of another shape are left out."""
    out: dict[tuple[str, str, str], list[dict]] = {}
    for f in fam.files:
        for rec in f.records:
            if isinstance(rec, dict) and all(k in rec for k in _NEEDED):
                out.setdefault((str(rec["env_id"]), str(rec["algo"]), str(rec["mode"])), []).append(rec)
    return out


def _fmt(value: Any, ci: Any, digits: int = 1) -> str:
    if value is None:
        return "n/a"
    return f"{value:.{digits}f} ± {ci:.{digits}f}" if ci is not None else f"{value:.{digits}f}"


def _series(rows: list[dict], seat: str, name: str, variant: str, agent: str) -> dict[str, Any]:
    mine = [r for r in rows if r["seat"] == seat and r.get(name) is not None]
    return {
        "agent": agent,
        "variant": variant,
        "x": [r["steps"] for r in mine],
        "mean": [r[name] for r in mine],
        "lo": [r[name] - (r.get(f"{name}_ci") or 0.0) for r in mine],
        "hi": [r[name] + (r.get(f"{name}_ci") or 0.0) for r in mine],
    }


def section(fam: FamilyData, out: Path, root: Path) -> dict[str, Any]:
    """The self-play section from the stored records only."""
    from benchmarks.selfplay import curve_rows, pays

    groups = _records(fam)
    blocks: list[dict[str, Any]] = [{"kind": "p", "text": INTRO}]
    panels = []
    for (env_id, algo, mode), records in sorted(groups.items()):
        rows = curve_rows(records)
        paid = pays(records)
        seeds = sorted({r["seed"] for r in records})
        table = [
            {
                "cells": [
                    r["seat"],
                    str(r["round"]),
                    str(r["steps"]),
                    str(len(r["seeds"])),
                    _fmt(r["tom_accuracy"], r["tom_accuracy_ci"]),
                    _fmt(r["tom_majority"], r["tom_majority_ci"]),
                    _fmt(r["tom_gain"], r["tom_gain_ci"]),
                    _fmt(r["return"], r["return_ci"]),
                    _fmt(r["return_other"], r["return_other_ci"]),
                ]
            }
            for r in rows
        ]
        rho = paid["spearman"]
        blocks.append(
            {
                "kind": "table",
                "caption": (
                    f"{env_id}, {algo}, {mode} ({len(seeds)} training seed(s)); does prediction pay? Spearman(gain, return) "
                    f"over {paid['points']} checkpoints: {'n/a' if rho is None else f'{rho:+.2f}'}"
                ),
                "columns": [
                    "seat",
                    "round",
                    "steps",
                    "seeds",
                    "ToM %",
                    "majority %",
                    "gain",
                    "return",
                    "other's return",
                ],
                "rows": table,
            }
        )
        seats = sorted({r["seat"] for r in rows})
        title = f"{env_id} {algo} {mode}"
        panels.append(
            {
                "title": f"{title}: ToM %",
                "xlabel": "training steps per learner",
                "ylabel": "ToM %",
                "clip": (0, 100),
                "series": [
                    s
                    for seat in seats
                    for s in (
                        _series(rows, seat, "tom_accuracy", "probe", f"{algo} {seat}"),
                        _series(rows, seat, "tom_majority", "majority floor", f"{algo} {seat}"),
                    )
                ],
            }
        )
        panels.append(
            {
                "title": f"{title}: return",
                "xlabel": "training steps per learner",
                "ylabel": "return",
                "series": [_series(rows, seat, "return", "return", f"{algo} {seat}") for seat in seats],
            }
        )
    if not groups:
        blocks.append(
            {
                "kind": "p",
                "text": "No self-play records stored yet (run `tom-envs selfplay --env ID --out THIS_FOLDER`).",
            }
        )
    written: list[str] = []
    blocks += drawn_figure(
        figures.curves, out / "tom_curves.png", CURVES_TITLE, panels, "measure", CURVES_CAPTION, written, root
    )
    return section_of(fam, "Learners that model learners (tom-envs selfplay)", blocks, [], written)
