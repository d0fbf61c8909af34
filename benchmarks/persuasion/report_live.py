"""The persuasion report section's live part (001's live persuasion env, ``tom/Persuasion-v*``): exact
references per family, success, regret and literal ToM per persuader and family, and the literal-vs-functional
plane; v3's runs in their own subsection (:mod:`benchmarks.persuasion.report_live_v3`: the value of memory and
issue 39's gates). Built from the stored records only (see :mod:`benchmarks.report.sections`); the section itself
is :func:`benchmarks.persuasion.report.persuasion`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.persuasion.report_live_stats import (
    LIVE_TARGETS,
    group_name,
    is_live,
    live_stats,
    plane_panel,
    plane_point,
)
from benchmarks.persuasion.report_live_v3 import is_v3, live_v3_section
from benchmarks.report import figures
from benchmarks.report.doc import Block, num
from benchmarks.report.load import ResultsFileData
from benchmarks.report.sections import agent_name, as_dict, pct, run_variants, settings_text, write

#: The keys of a live episode's summary the section shows.
LIVE_EPISODE = {
    "family",
    "persona",
    "success",
    "turns",
    "regret",
    "oracle_regret",
    "bayes_success",
    "oracle_success",
    "open_loop_success",
    "heard",
    "desire_accuracy",
    "belief_accuracy",
    "intention_accuracy",
    "left",
    "bayes_upper",
    "said",
    "memoryless_success",
    "value_of_memory",
    "source_accuracy",
    "stake_accuracy",
}
#: The live env's exact references (keys of a record's ``references``), as the report names them.
LIVE_REFERENCES = (("open_loop", "best open-loop"), ("bayes", "Bayes-optimal fair"), ("oracle", "oracle"))


def _reference_name(ref: dict, key: str, name: str) -> str:
    """How a reference row is named: ``exact: ...``, or, where the env gives a bound (v2 past small
    horizons), ``lower bound: ... (upper U %)``."""
    upper = ref.get(f"{key}_upper")
    exact = ref.get(f"{key}_exact", upper is None or upper == ref.get(key))
    if exact:
        return f"exact: {name}"
    return f"lower bound: {name} (upper {100.0 * float(upper):.1f} %)"


def live_section(
    files: Sequence[ResultsFileData], out: Path, root: Path, written: list[str]
) -> tuple[list[Block], list[dict]]:
    """The live persuasion env's subsection: exact references per family, success / regret / literal ToM per
    persuader and family, and the literal-vs-functional plane (one panel per horizon, all families, for the
    overview; one per family in the section's figure)."""
    v3_blocks, v3_panels = live_v3_section([f for f in files if is_v3(f)], out, root, written)
    files = [f for f in files if not is_v3(f)]
    blocks: list[Block] = [{"kind": "h3", "text": "Live persuasion: success, regret and literal ToM"}]
    runs = []
    for f in files:
        recs = [r for r in f.records if is_live(r)]
        cfg = f.config or {}
        policy = str(recs[0].get("policy") or cfg.get("policy", "?"))
        model = cfg.get("model")
        reader = as_dict(cfg.get("reader"))
        env = str(cfg.get("env") or "tom/Persuasion-v1")  # runs before v2 stored no env: they played v1
        for h in sorted({r.get("horizon") for r in recs}, key=str):
            mine = [r for r in recs if r.get("horizon") == h]
            runs.append(
                {
                    "file": f,
                    "policy": policy,
                    "model": model,
                    "horizon": (env, h),
                    "records": mine,
                    "kind": "LLM" if model or policy == "llm" else "scripted",
                    "reader": str(reader.get("kind", "not stored"))
                    + (f" ({reader['model']})" if reader.get("model") else ""),
                    "families": sorted({str(r["family"]) for r in mine}),
                }
            )
    if not runs:
        if v3_blocks:
            return v3_blocks, v3_panels
        blocks.append({"kind": "p", "text": "No stored live episodes (`tom-envs persuasion --env live`)."})
        return blocks, []
    refs: dict[tuple[Any, str], dict] = {}
    for run in runs:
        for r in run["records"]:
            refs.setdefault((run["horizon"], str(r["family"])), as_dict(r.get("references")))
    blocks.append(
        {
            "kind": "p",
            "text": (
                "Each persuader plays episodes in each scenario family (`tom-envs persuasion --env live`). Success in "
                "percent and regret in success probability, mean ± 95 % CI (Student t) over episodes. regret: against the "
                "Bayes-optimal fair persuader (the best that only sees the dialogue) for every persuader but the oracle, "
                "whose regret is against the state-knowing oracle (column 'regret vs'); fair regret: against the "
                "Bayes-optimal fair persuader for every row. Literal ToM per state: the share of the persuader's desire, "
                "belief and intention predictions that were right (the ToM recorder's scores); literal ToM % is their "
                "mean per episode. The references (yellow, italic) are the family's success probabilities of the best "
                "open-loop plan, the Bayes-optimal fair persuader and the oracle, computed by planning, not sampled: exact "
                "where the row says so, else a lower bound with its upper bound in the name (tom/Persuasion-v2 past small "
                "horizons); the regret columns of those rows are their fair regret (Bayes-optimal fair minus them)."
            ),
        }
    )
    ref_rows = []
    for (h, fam_name), ref in sorted(refs.items(), key=lambda kv: (str(kv[0][0]), kv[0][1])):
        ref_rows.append(
            {
                "ref": True,
                "cells": [fam_name, group_name(h)]
                + [
                    num(pct(ref.get(k)), digits=1)
                    for k in ("random", "open_loop", "bayes", "oracle", "value_of_tracking", "value_of_information")
                ],
            }
        )
    blocks.append(
        {
            "kind": "table",
            "caption": "Live persuasion: references per scenario family (exact, or lower "
            "bounds where the env gives bounds)",
            "columns": [
                "family",
                "env, horizon",
                "random %",
                "best open-loop %",
                "Bayes-optimal fair %",
                "oracle %",
                "value of tracking",
                "value of information",
            ],
            "rows": ref_rows,
        }
    )
    rows = []
    order = {
        p: i
        for i, p in enumerate(
            (
                "random",
                "echo",
                "echo-memory",
                "open-loop",
                "tracking",
                "bayes",
                "bayes-plain",
                "bayes-stuffed",
                "bayes-insult",
                "bayes-keywords",
                "oracle",
            )
        )
    }
    runs.sort(key=lambda r: (str(r["horizon"]), order.get(r["policy"], 9), r["policy"], str(r["model"])))
    for h in dict.fromkeys(r["horizon"] for r in runs):
        fams = sorted({fm for r in runs if r["horizon"] == h for fm in r["families"]})
        for fam_name in [*fams, "all"]:
            for run in [r for r in runs if r["horizon"] == h]:
                mine = [r for r in run["records"] if fam_name == "all" or r["family"] == fam_name]
                if not mine:
                    continue
                st = live_stats(mine)
                fb = "-" if st["decisions"] is None else f"{st['fallbacks'] or 0}/{st['decisions']}"
                read_by = f", read by {run['reader']}" if run["reader"].startswith("llm") else ""
                rows.append(
                    {
                        "cells": [
                            run["policy"] + (f" ({run['model']})" if run["model"] else "") + read_by,
                            run["kind"],
                            fam_name,
                            group_name(h),
                            str(st["episodes"]),
                            num(*st["success"], digits=1),
                            num(*st["regret"], digits=3),
                            st["against"],
                            num(*st["fair_regret"], digits=3),
                            *[num(*st[t], digits=1) for t in LIVE_TARGETS],
                            num(*st["literal"], digits=1),
                            fb,
                        ]
                    }
                )
            if fam_name == "all":
                continue
            ref = refs.get((h, fam_name), {})
            for k, name in LIVE_REFERENCES:
                if ref.get(k) is None:
                    continue
                fair = None if ref.get("bayes") is None else float(ref["bayes"]) - float(ref[k])
                rows.append(
                    {
                        "ref": True,
                        "cells": [
                            _reference_name(ref, k, name),
                            "reference",
                            fam_name,
                            group_name(h),
                            "-",
                            num(pct(ref[k]), digits=1),
                            "-",
                            "-",
                            num(fair, digits=3),
                            "-",
                            "-",
                            "-",
                            "-",
                            "-",
                        ],
                    }
                )
    blocks.append(
        {
            "kind": "table",
            "caption": "Live persuasion: success, regret and literal ToM per persuader and scenario family",
            "columns": [
                "persuader",
                "kind",
                "family",
                "env, horizon",
                "episodes",
                "success %",
                "regret",
                "regret vs",
                "fair regret",
                "desire ToM %",
                "belief ToM %",
                "intention ToM %",
                "literal ToM %",
                "LLM fallbacks/decisions",
            ],
            "rows": rows,
        }
    )
    readers = sorted({r["reader"] for r in runs})
    blocks += [
        {
            "kind": "p",
            "text": f"What read the persuaders' lines: {', '.join(readers)}. Stored "
            "configurations (from the results files' .runs lines):",
        },
        {
            "kind": "ul",
            "items": list(
                dict.fromkeys(f"{r['policy']} [{r['file'].path.name}]: {settings_text(r['file'].config)}" for r in runs)
            ),
        },
    ]
    # the plane: x = literal ToM (mean state-prediction accuracy), y = success (functional), exact references as lines
    apart = run_variants(
        [((agent_name(r["policy"], r["model"]), r["horizon"]), r["file"].config, r["file"].path.name) for r in runs]
    )
    for run, extra in zip(runs, apart):
        run["apart"] = extra
    overview, section_panels = [], []
    for h in dict.fromkeys(r["horizon"] for r in runs):
        members = [r for r in runs if r["horizon"] == h]
        fams = sorted({fm for r in members for fm in r["families"]})
        for fam_name in ["all", *(fams if len(fams) > 1 else [])]:
            points, skipped = [], []
            for run in members:
                mine = [r for r in run["records"] if fam_name == "all" or r["family"] == fam_name]
                if not mine:
                    continue
                st = live_stats(mine)
                label = agent_name(run["policy"], run["model"])
                if st["literal"][0] is None:
                    skipped.append(label)
                    continue
                points.append(plane_point(label, run["apart"], st))
            fam_refs = [refs[(h, fm)] for fm in (fams if fam_name == "all" else [fam_name]) if (h, fm) in refs]
            panel = plane_panel(
                f"{group_name(h)}, " + ("all families" if fam_name == "all" else fam_name),
                "literal ToM: mean desire/belief/intention accuracy (%)",
                points,
                fam_refs,
                LIVE_REFERENCES,
                skipped,
            )
            section_panels.append(panel)
            if fam_name == "all":
                overview.append(panel)
    src = write(
        figures.plane(
            out / "live_plane.png",
            "Live persuasion: literal vs functional ToM",
            section_panels,
            variant_title="setting",
        ),
        written,
        root,
    )
    skipped = sorted({s for p in section_panels for s in p["skipped"]})
    blocks.append(
        {
            "kind": "figure",
            "src": src,
            "caption": (
                "Each persuader: x = literal ToM (mean of its desire, belief and intention prediction accuracies), y = "
                "functional ToM as success % (up = better; regret against the Bayes-optimal fair persuader is the distance "
                "below its line), whiskers = 95 % CIs. Dashed lines: the exact success of the best open-loop plan, the "
                "Bayes-optimal fair persuader and the oracle (mean over the panel's families)."
                + (f" Not drawn (no state predictions): {', '.join(skipped)}." if skipped else "")
            ),
        }
    )
    return blocks + v3_blocks, overview + v3_panels


__all__ = ["LIVE_EPISODE", "LIVE_REFERENCES", "LIVE_TARGETS", "is_live", "live_section"]
