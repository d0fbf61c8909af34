"""The Common-ToM report section (003): accuracy by order and setting, next to 003's Table 3.

Built from the stored records only (see :mod:`benchmarks.report.sections`)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from benchmarks.report import figures
from benchmarks.report.doc import Block, figure_blocks, num
from benchmarks.report.load import FamilyData
from benchmarks.report.sections import (
    STAGES,
    answerer,
    answerer_agent,
    joined,
    run_variants,
    Section,
    settings_text,
    stage_accuracy,
    third,
    unknown_block,
    unknown_keys,
    write,
)


CG_TOP = {"version", "cid", "seed", "questions", "llm_stats", "code", "policy", "partial"}


_CG_PUBLISHED_KIND = {"Random Baseline": "scripted", "Human Performance": "human"}


def common_ground(fam: FamilyData, out: Path, root: Path) -> Section:
    from benchmarks.common_ground.published import PUBLISHED, PUBLISHED_SETTINGS
    from tom_envs.common_ground.metrics import summarise

    blocks: list[Block] = [
        {
            "kind": "p",
            "text": (
                "Stored runs of `tom-envs common-ground`: the scripted answerers (random, majority-class -- always the "
                "training split's majority answer, 54.1 % on the release's test split --, question-only -- the floor "
                "the question's wording allows, 59.6 % there --, oracle-beliefs, "
                "gold-beliefs-cg-rules, predicted-beliefs) and the model answerers (llm, llm-release, llm-beliefs), each "
                "conversation and pass as its command stored it. Accuracy in percent with a "
                "95 % normal-approximation CI over questions (as the command prints); F1 macro over the answers Yes and "
                "No as the release's src/core/evaluate.py computes it ('-' for records stored before it was kept). "
                "Published reference rows: 003's "
                "Table 3, with the settings under which each was obtained; 003's rows read a window of 5 sentences either "
                "side of the marked one (context 'window'). An answerer marked [partial data] was scored under "
                "--allow-partial on data that is not the whole release (a file cut or edited, a conversation missing)."
            ),
        }
    ]
    table_rows, stage_series, settings = [], [], []
    for f in fam.files:
        recs = [r for r in f.records if isinstance(r.get("questions"), list)]
        questions = [q for r in recs for q in r["questions"] if isinstance(q, dict)]
        if not questions:
            continue
        summary = summarise(questions)
        by_order = {row["order"]: row for row in summary["rows"]}
        cfg = f.config or {}
        label, kind = answerer(f, recs)
        settings.append(f"{label} [{f.path.name}]: {settings_text(f.config)}")
        scripted = kind == "scripted"
        table_rows.append(
            {
                "cells": [
                    label,
                    kind,
                    str(cfg.get("context", "not stored")),
                    str(cfg.get("split", "not stored")),
                    str(len({r.get("cid") for r in recs})),
                    str(len(recs)),
                    *[
                        num(by_order.get(o, {}).get("accuracy"), by_order.get(o, {}).get("ci95"), digits=1)
                        for o in ("all", 1, 2, 3)
                    ],
                    str(by_order.get("all", {}).get("n", len(questions))),
                    num(summary.get("consistency"), digits=1),
                    num(by_order.get("all", {}).get("f1_macro"), digits=1),
                    "-" if scripted else str(sum(int(q.get("parse_failures") or 0) for q in questions)),
                    "-" if scripted else str(sum(bool(q.get("fallback")) for q in questions)),
                    "stored run",
                ]
            }
        )
        # stages: thirds of the sentences its conversation has questions about, by rank (as 001's Figure 3 layout)
        snos: dict[Any, set] = defaultdict(set)
        for q in questions:
            snos[q.get("cid")].add(q.get("sno") or 0)
        items = [(third(q.get("sno") or 0, snos[q.get("cid")]), bool(q.get("correct"))) for q in questions]
        agent, mode = answerer_agent(f, recs)
        stage_series.append({"agent": agent, "mode": mode, "file": f, **stage_accuracy(items, 3)})
    for name, values in PUBLISHED.items():
        table_rows.append(
            {
                "ref": True,
                "cells": [
                    f"003 {name} (published)",
                    _CG_PUBLISHED_KIND.get(name, "model"),
                    "window",
                    "test",
                    "-",
                    "-",
                    *[num(v, digits=1) for v in values],
                    "-",
                    "-",
                    "-",
                    "-",
                    "-",
                    PUBLISHED_SETTINGS.get(name, ""),
                ],
            }
        )
    blocks.append(
        {
            "kind": "table",
            "caption": "Common-ToM: accuracy by belief order (003 Table 3 layout)",
            "columns": [
                "answerer",
                "kind",
                "context",
                "split",
                "conversations",
                "answered passes",
                "Total %",
                "First %",
                "Second %",
                "Third %",
                "questions",
                "consistency %",
                "F1 macro %",
                "parse failures",
                "fallbacks",
                "settings",
            ],
            "rows": table_rows,
        }
    )
    if settings:
        blocks += [
            {"kind": "p", "text": "Stored configurations (from the results files' .runs lines):"},
            {"kind": "ul", "items": settings},
        ]
    written: list[str] = []
    if stage_series:  # colour = the answerer, style = its mode and what tells two runs of it apart
        apart = run_variants([((s["agent"], s["mode"]), s["file"].config, s["file"].path.name) for s in stage_series])
        series = [
            {"agent": s["agent"], "variant": joined(s["mode"], extra), "x": s["x"], "mean": s["mean"], "ci": s["ci"]}
            for s, extra in zip(stage_series, apart)
        ]
        src = write(
            figures.bars_by_stage(
                out / "stages.png",
                "Common-ToM: accuracy by conversation stage",
                "stage of the conversation (the sentence asked about)",
                [{"title": "all orders", "series": series}],
                STAGES,
                variant_title="mode, setting",
            ),
            written,
            root,
        )
        blocks += figure_blocks(
            "Accuracy by dialogue stage",
            src,
            (
                "Accuracy of the questions about the early, middle and late third of the sentences a "
                "conversation has questions about (by rank), all orders together, with 95 % CIs over "
                "questions."
            ),
        )
    blocks.append(
        {
            "kind": "p",
            "text": "Common-ToM measures literal ToM only (belief questions); it has no "
            "functional outcome, so it has no literal-vs-functional plane.",
        }
    )
    blocks += unknown_block(unknown_keys([rec for f in fam.files for rec in f.records], CG_TOP))
    return {"family": fam.folder, "title": "Common ground (003)", "blocks": blocks, "panels": [], "figures": written}
