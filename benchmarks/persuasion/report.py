"""The persuasion report section (001): QA accuracy and consistency next to 001's Tables 5 and 6, and the live rows
(:mod:`benchmarks.persuasion.report_live`).

Built from the stored records only (see :mod:`benchmarks.report.sections`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.persuasion.report_live import LIVE_EPISODE, is_live, live_section
from benchmarks.report import figures
from benchmarks.report.doc import Block, num
from benchmarks.report.load import FamilyData
from benchmarks.report.sections import (
    STAGES,
    Section,
    answerer,
    answerer_agent,
    as_dict,
    figure_section,
    joined,
    run_variants,
    section_of,
    settings_text,
    stage_accuracy,
    third,
    unknown_block,
    unknown_keys,
)

PERSUASION_TOP = {
    "version",
    "dialogue",
    "repetition",
    "seed",
    "answers",
    "llm_stats",
    "code",
    "policy",
    "protocol",
    "partial",
    "family",
    "horizon",
    "regret_against",
    "episode",
    "references",
    "reader_stats",
}


def _answers(recs: Sequence[dict]) -> list[list[Any]]:
    from tom_envs.persuasion.metrics import Answer

    reps: dict[int, list[Any]] = defaultdict(list)
    for rec in recs:
        for a in rec["answers"]:
            if isinstance(a, dict) and "qtype" in a:
                reps[int(rec.get("repetition") or 0)].append(
                    Answer(
                        qtype=a["qtype"],
                        dialogue=str(rec.get("dialogue")),
                        correct=bool(a.get("correct")),
                        n_choices=int(a.get("n_choices") or 0) or 1,
                        turn=a["turn"] if isinstance(a.get("turn"), int) else None,
                    )
                )
    return [reps[r] for r in sorted(reps)]


#: The kind column of 001's published rows that are not LLMs.
_PERSUASION_PUBLISHED_KIND = {"Random Guess": "scripted", "Human": "human"}
#: The caption of the accuracy-by-stage figure.
STAGES_CAPTION = (
    "001's Figure 3 layout: accuracy per question type in the early, middle and late third of the "
    "turns a dialogue has questions of that type at (by rank), with 95 % CIs over questions; one "
    "panel per answerer (its colour), one line style and marker per question type."
)


def persuasion(fam: FamilyData, out: Path, root: Path) -> Section:
    from benchmarks.persuasion.published import PUBLISHED, PUBLISHED_CONSISTENCY
    from tom_envs.persuasion import QTYPES
    from tom_envs.persuasion.metrics import accuracy_table, consistency_table

    runs = []
    for f in fam.files:
        recs = [r for r in f.records if isinstance(r.get("answers"), list)]
        if not recs:
            continue
        reps = _answers(recs)
        answers = [a for r in recs for a in r["answers"] if isinstance(a, dict)]
        label, kind = answerer(f, recs)
        runs.append(
            {
                "file": f,
                "label": label,
                "kind": kind,
                "records": recs,
                "rows": {r["qtype"]: r for r in accuracy_table(reps)},
                "consistency": {r["qtype"]: r for r in consistency_table(reps)},
                "answers": answers,
                "dialogues": len({r.get("dialogue") for r in recs}),
                "repetitions": len(reps),
            }
        )
    present = [q for q in QTYPES if any(q in run["rows"] for run in runs)] or [
        q for q in QTYPES if any(q in v for v in PUBLISHED.values())
    ]
    blocks: list[Block] = [
        {
            "kind": "p",
            "text": (
                "Stored runs of `tom-envs persuasion` on the PersuasiveToM questions: the scripted answerers (random, "
                "always-first, longest-or-keyword) and the LLM answerer; the live persuasion env's episodes follow below. "
                "Accuracy in percent, mean ± 95 % CI over repetitions (passes over the dialogues), as "
                "the command prints. Published reference rows: 001's Table 5 (accuracy) and Table 6 (consistency), "
                "obtained with the authors' protocol (their prompt, the published option order); a run's protocol is "
                "named per row ('ours' reshuffles the options every pass, so its scores are not comparable to Table 5 "
                "for a position-biased model)."
            ),
        }
    ]
    acc_rows = []
    for run in runs:
        cfg = run["file"].config
        stored = next((r["protocol"] for r in run["records"] if r.get("protocol")), None)
        protocol = stored or (
            "not stored" if cfg is None else str(as_dict(cfg.get("llm")).get("protocol", cfg.get("protocol", "ours")))
        )
        run["protocol"] = protocol
        acc_rows.append(
            {
                "cells": [run["label"], run["kind"], protocol]
                + [
                    num(run["rows"][q]["accuracy"], run["rows"][q]["accuracy_ci"], digits=2)
                    if q in run["rows"]
                    else "-"
                    for q in present
                ]
            }
        )
    for name, ref in PUBLISHED.items():
        acc_rows.append(
            {
                "ref": True,
                "cells": [f"001 {name} (published)", _PERSUASION_PUBLISHED_KIND.get(name, "LLM"), "authors"]
                + [num(ref[q], digits=2) if q in ref else "-" for q in present],
            }
        )
    blocks.append(
        {
            "kind": "table",
            "caption": "PersuasiveToM: accuracy % by question type (001 Table 5 layout)",
            "columns": ["answerer", "kind", "protocol"] + present,
            "rows": acc_rows,
        }
    )
    count_rows = []
    for run in runs:
        for q in present:
            if q not in run["rows"]:
                continue
            row, cons = run["rows"][q], run["consistency"].get(q)
            mine = [a for a in run["answers"] if a.get("qtype") == q]
            count_rows.append(
                {
                    "cells": [
                        run["label"],
                        run["protocol"],
                        q,
                        str(row["n"]),
                        str(row["repetitions"]),
                        num(row["chance"], digits=2),
                        num(cons["consistency"], cons["consistency_ci"], digits=2) if cons else "-",
                        num(PUBLISHED_CONSISTENCY.get("GPT-4o", {}).get(q), digits=2)
                        if q in PUBLISHED_CONSISTENCY.get("GPT-4o", {})
                        else "-",
                        "-" if run["kind"] == "scripted" else str(sum(int(a.get("parse_failures") or 0) for a in mine)),
                        "-" if run["kind"] == "scripted" else str(sum(bool(a.get("fallback")) for a in mine)),
                    ]
                }
            )
    if count_rows:
        blocks.append(
            {
                "kind": "table",
                "caption": "PersuasiveToM: counts, chance and consistency per question type",
                "columns": [
                    "answerer",
                    "protocol",
                    "question type",
                    "questions per pass",
                    "passes",
                    "chance %",
                    "consistency %",
                    "001 GPT-4o consistency %",
                    "parse failures",
                    "fallbacks",
                ],
                "rows": count_rows,
            }
        )
    table6 = [q for q in present if any(q in v for v in PUBLISHED_CONSISTENCY.values())]
    if table6:
        blocks.append(
            {
                "kind": "table",
                "caption": "001 Table 6 (published): consistency % of the persuadee "
                "questions, every row (the authors' protocol)",
                "columns": ["answerer", "protocol"] + table6,
                "rows": [
                    {
                        "ref": True,
                        "cells": [f"001 {name} (published)", "authors"]
                        + [num(ref.get(q), digits=2) if q in ref else "-" for q in table6],
                    }
                    for name, ref in PUBLISHED_CONSISTENCY.items()
                ],
            }
        )
    if runs:
        blocks += [
            {"kind": "p", "text": "Stored configurations (from the results files' .runs lines):"},
            {
                "kind": "ul",
                "items": [
                    f"{run['label']} [{run['file'].path.name}]: {settings_text(run['file'].config)}" for run in runs
                ],
            },
        ]
    written: list[str] = []
    stage_panels, stage_rows = [], []
    apart = run_variants(
        [(answerer_agent(run["file"], run["records"]), run["file"].config, run["file"].path.name) for run in runs]
    )
    for run, extra in zip(runs, apart):
        answers = [a for a in run["answers"] if isinstance(a.get("turn"), int)]
        if not answers or len(answers) != len(run["answers"]):
            continue  # stages need the turn of every answer
        turns: dict[tuple, set] = defaultdict(set)
        dialogue = {id(a): str(rec.get("dialogue")) for rec in run["records"] for a in rec["answers"]}
        for a in answers:
            turns[(dialogue[id(a)], a["qtype"])].add(a["turn"])
        agent, mode = answerer_agent(run["file"], run["records"])
        series = []  # one panel per answerer (colour), one series per question type (style)
        for q in present:
            items = [
                (third(a["turn"], turns[(dialogue[id(a)], q)]), bool(a.get("correct")))
                for a in answers
                if a["qtype"] == q
            ]
            if items:
                series.append({"agent": agent, "variant": q, **stage_accuracy(items, 3)})
        if series:
            stage_panels.append({"title": joined(agent, mode, extra), "series": series})
        try:
            from tom_envs.persuasion.metrics import stage_table

            table = stage_table(_answers(run["records"]))
        except (ImportError, ValueError, TypeError):
            table = []
        stage_rows += [
            {
                "cells": [
                    run["label"],
                    r.get("qtype", "?"),
                    str(r.get("stage", "?")),
                    str(r.get("n", "?")),
                    num(r.get("accuracy"), digits=2),
                    num(r.get("error_share"), digits=2),
                ]
            }
            for r in table
        ]
    if stage_panels:
        blocks += figure_section(
            "Accuracy by dialogue stage",
            STAGES_CAPTION,
            written,
            root,
            figures.bars_by_stage(
                out / "stages.png",
                "PersuasiveToM: accuracy by dialogue stage",
                "stage of the dialogue (its question turns)",
                stage_panels,
                STAGES,
                variant_title="question type",
            ),
        )
    if stage_rows:
        blocks.append(
            {
                "kind": "table",
                "caption": "PersuasiveToM: accuracy and share of the errors by stage",
                "columns": [
                    "answerer",
                    "question type",
                    "stage",
                    "questions per pass",
                    "accuracy %",
                    "share of errors %",
                ],
                "rows": stage_rows,
            }
        )
    blocks.append(
        {
            "kind": "p",
            "text": "The QA questions measure literal ToM only; the live persuasion env below "
            "measures both (its plane).",
        }
    )
    live_blocks, panels = live_section([f for f in fam.files if any(is_live(r) for r in f.records)], out, root, written)
    blocks += live_blocks
    live = [rec for f in fam.files for rec in f.records if is_live(rec)]
    blocks += unknown_block(
        unknown_keys([rec for f in fam.files for rec in f.records], PERSUASION_TOP, LIVE_EPISODE if live else None)
    )
    return section_of(fam, "Persuasion (001)", blocks, panels, written)
