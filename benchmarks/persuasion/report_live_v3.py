"""The persuasion report's live v3 part (``tom/Persuasion-v3``, issue 39): the exact references and issue 39's gates
per family and turn budget (the value of memory first), each persuader's success beside its own exact value and
the no-ToM floors (best memory-less, echo, open-loop), literal ToM beside the majority floor, and the plane
(literal vs functional, one colour per persuader). Built from the stored records only; called by
:func:`benchmarks.persuasion.report_live.live_section`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.persuasion.live_gates import V3_GATES, gate_results
from benchmarks.persuasion.report_live_stats import group_name, live_stats, plane_panel, plane_point
from benchmarks.report import figures
from benchmarks.report.doc import Block, num
from benchmarks.report.load import ResultsFileData
from benchmarks.report.sections import agent_name, as_dict, pct, run_variants, write

V3 = "tom/Persuasion-v3"
TARGETS = ("source", "stake")
#: The persuaders in the order the tables show them, and the reference key of each one's exact success.
EXACT = {
    "random": "random",
    "open-loop": "open_loop",
    "echo": "echo",
    "memoryless": "memoryless",
    "bayes": "bayes",
    "oracle": "oracle",
}
#: The exact references shown per family, as the report names them.
REFERENCES = (
    ("random", "random"),
    ("open_loop", "best open-loop"),
    ("echo", "echo"),
    ("memoryless", "best memory-less"),
    ("bayes", "Bayes-optimal fair"),
    ("oracle", "oracle"),
)
FLOORS = (("memoryless", "best memory-less"), ("echo", "echo"), ("open_loop", "open-loop"))


def is_v3(f: ResultsFileData) -> bool:
    """A results file of live persuasion v3 (its stored configuration names the env)."""
    return str((f.config or {}).get("env")) == V3


def _runs(files: Sequence[ResultsFileData]) -> list[dict[str, Any]]:
    runs = []
    for f in files:
        recs = [r for r in f.records if isinstance(r.get("episode"), dict) and "family" in r]
        for h in sorted({r.get("horizon") for r in recs}, key=str):
            mine = [r for r in recs if r.get("horizon") == h]
            if mine:
                runs.append({"file": f, "policy": str(mine[0].get("policy", "?")), "horizon": h, "records": mine})
    order = {p: i for i, p in enumerate(EXACT)}
    return sorted(runs, key=lambda r: (str(r["horizon"]), order.get(r["policy"], len(order)), r["policy"]))


def _refs(runs: Sequence[dict[str, Any]], h: Any) -> dict[str, dict[str, Any]]:
    refs: dict[str, dict[str, Any]] = {}
    for run in runs:
        if run["horizon"] == h:
            for r in run["records"]:
                refs.setdefault(str(r["family"]), as_dict(r.get("references")))
    return dict(sorted(refs.items()))


def _gates(runs: Sequence[dict[str, Any]], h: Any, refs: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The gates at horizon ``h`` over the families with references, with the played paired differences."""
    played: dict[str, dict[Any, dict]] = {}
    for run in runs:
        if run["horizon"] == h:
            played.setdefault(run["policy"], {}).update(
                {(str(r["family"]), r["seed"]): r["episode"] for r in run["records"]}
            )
    usable = {
        f: r for f, r in refs.items() if all(r.get(g.high) is not None and r.get(g.low) is not None for g in V3_GATES)
    }
    if not usable:
        return []
    return gate_results(V3_GATES, usable, played, {key: name for name, key in EXACT.items()})


def _gate_table(runs: Sequence[dict[str, Any]], horizons: Sequence[Any]) -> list[Block]:
    rows = []
    for h in horizons:
        refs = _refs(runs, h)
        gates = _gates(runs, h, refs)
        for fam, ref in refs.items():
            cells = [fam, group_name((V3, h))] + [num(pct(ref.get(k)), digits=1) for k, _ in REFERENCES]
            cells += [num(g["by_family"][fam]["points"], digits=1) for g in gates]
            fails = [g["label"] for g in gates if not g["by_family"][fam]["pass"]]
            rows.append({"ref": True, "cells": [*cells, "pass" if not fails else "FAIL: " + ", ".join(fails)]})
        if gates:
            least = [num(g["min_points"], digits=1) for g in gates]
            verdict = ", ".join(f"{g['label']} {'pass' if g['pass'] else 'FAIL'}" for g in gates)
            rows.append(
                {"ref": True, "cells": ["every family (least)", group_name((V3, h)), *["-"] * 6, *least, verdict]}
            )
            played = [
                "-" if g["played_points"] is None else num(g["played_points"], g["played_points_ci"], digits=1)
                for g in gates
            ]
            n = max(g["played_episodes"] for g in gates)
            rows.append({"cells": [f"played, paired ({n} episodes)", group_name((V3, h)), *["-"] * 6, *played, "-"]})
    columns = ["family", "env, horizon", *[f"{name} %" for _, name in REFERENCES]]
    columns += [f"{g.label} (>= {100 * g.threshold:.0f})" for g in V3_GATES] + ["gates"]
    return [
        {
            "kind": "table",
            "caption": "Live persuasion v3: exact references and issue 39's gates per family (points)",
            "columns": columns,
            "rows": rows,
        }
    ]


def _mean_ref(records: Sequence[dict], key: str) -> float | None:
    """A reference over the records' episodes, in percent (each episode weighs once, so over its families as the
    played success is); None where a record lacks it."""
    vals = [as_dict(r.get("references")).get(key) for r in records]
    return None if any(v is None for v in vals) else 100.0 * sum(float(v) for v in vals) / len(vals)


def _persuader_table(runs: Sequence[dict[str, Any]], horizons: Sequence[Any]) -> list[Block]:
    rows = []
    for h in horizons:
        refs = _refs(runs, h)
        members = [r for r in runs if r["horizon"] == h]
        for fam in [*refs, "all"]:
            for run in members:
                mine = [r for r in run["records"] if fam == "all" or r["family"] == fam]
                if not mine:
                    continue
                st = live_stats(mine, TARGETS)
                key = EXACT.get(run["policy"])
                rows.append(
                    {
                        "cells": [
                            run["policy"],
                            fam,
                            group_name((V3, h)),
                            str(st["episodes"]),
                            num(*st["success"], digits=1),
                            "-" if key is None else num(_mean_ref(mine, key), digits=1),
                            *[num(_mean_ref(mine, k), digits=1) for k, _ in FLOORS],
                            num(*st["regret"], digits=3),
                            st["against"],
                            *[num(*st[t], digits=1) for t in TARGETS],
                            *[num(_mean_ref(mine, f"{t}_majority"), digits=1) for t in TARGETS],
                        ]
                    }
                )
    columns = ["persuader", "family", "env, horizon", "episodes", "success %", "its exact %"]
    columns += [f"floor: {name} %" for _, name in FLOORS] + ["regret", "regret vs"]
    columns += [f"{t} ToM %" for t in TARGETS] + [f"majority {t} %" for t in TARGETS]
    return [
        {
            "kind": "table",
            "caption": "Live persuasion v3: success per persuader beside its exact value and the no-ToM floors",
            "columns": columns,
            "rows": rows,
        }
    ]


def live_v3_section(
    files: Sequence[ResultsFileData], out: Path, root: Path, written: list[str]
) -> tuple[list[Block], list[dict]]:
    """The v3 subsection (see the module docstring) and its overview panels (one per turn budget)."""
    runs = _runs(files)
    if not runs:
        return [], []
    horizons = list(dict.fromkeys(r["horizon"] for r in runs))
    blocks: list[Block] = [
        {"kind": "h3", "text": "Live persuasion v3: the value of memory"},
        {
            "kind": "p",
            "text": (
                "tom/Persuasion-v3 (`tom-envs persuasion --env live --live-env tom/Persuasion-v3 --horizon T`): a "
                "persuadee whose source of trust and stake show only across replies. Every reference is exact "
                "(tom_envs/persuasion/planning_v3.py). The value of memory is the Bayes-optimal fair persuader's "
                "success minus the best memory-less persuader's (one that acts on the last reply and the turn alone); "
                "issue 39 asks it to be at least 10 points at T = 4 and T = 8, with Bayes - echo >= 10, Bayes - best "
                "open-loop >= 30 and oracle - Bayes >= 5. A gate passes when it holds in every family. 'played, "
                "paired' is the same difference measured on the stored episodes: the mean over (family, seed) of the "
                "two persuaders' success difference, with its 95 % CI. Each persuader's success stands beside its "
                "own exact value and the floors that need no ToM (best memory-less, echo, open-loop); its literal ToM "
                "(source, stake) beside the majority floor (the prior's likelier value, predicted every turn)."
            ),
        },
    ]
    blocks += _gate_table(runs, horizons)
    blocks += _persuader_table(runs, horizons)
    apart = run_variants([((r["policy"], r["horizon"]), r["file"].config, r["file"].path.name) for r in runs])
    panels, skipped = [], set()
    for h in horizons:
        refs = _refs(runs, h)
        points = []
        for run, variant in zip(runs, apart):
            if run["horizon"] != h:
                continue
            st = live_stats(run["records"], TARGETS)
            if st["literal"][0] is None:
                skipped.add(run["policy"])
                continue
            points.append(plane_point(agent_name(run["policy"]), variant, st))
        panels.append(
            plane_panel(
                f"{group_name((V3, h))}, all families",
                "literal ToM: mean source/stake accuracy (%)",
                points,
                list(refs.values()),
                [(k, name) for k, name in REFERENCES if k != "random"],
                sorted(skipped),
            )
        )
    src = write(
        figures.plane(out / "live_v3_plane.png", "Live persuasion v3: literal vs functional ToM", panels, "setting"),
        written,
        root,
    )
    blocks.append(
        {
            "kind": "figure",
            "src": src,
            "caption": (
                "Live persuasion v3, per turn budget: x = literal ToM (mean of the source and stake prediction "
                "accuracies), y = success %, whiskers = 95 % CIs, one colour per persuader. Dashed lines: the exact "
                "success of the best open-loop plan, echo, the best memory-less persuader, the Bayes-optimal fair "
                "persuader and the oracle (mean over the families); the gap between the memory-less and Bayes lines "
                "is the value of memory."
                + (f" Not drawn (no trait predictions): {', '.join(sorted(skipped))}." if skipped else "")
            ),
        }
    )
    return blocks, panels
