"""The persuasion report section (001): QA accuracy and consistency next to 001's Tables 5 and 6, and the live rows.

Built from the stored records only (see :mod:`benchmarks.report.sections`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.report import figures
from benchmarks.report.doc import Block, estimate, num
from benchmarks.report.load import FamilyData, ResultsFileData
from benchmarks.report.sections import (
    figure_section,
    STAGES,
    agent_name,
    answerer,
    answerer_agent,
    joined,
    run_variants,
    as_dict,
    pct,
    Section,
    settings_text,
    stage_accuracy,
    sum_opt,
    third,
    unknown_block,
    unknown_keys,
    write,
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
    live_blocks, panels = _persuasion_live(
        [f for f in fam.files if any(_is_live(r) for r in f.records)], out, root, written
    )
    blocks += live_blocks
    live = [rec for f in fam.files for rec in f.records if _is_live(rec)]
    blocks += unknown_block(
        unknown_keys([rec for f in fam.files for rec in f.records], PERSUASION_TOP, LIVE_EPISODE if live else None)
    )
    return {"family": fam.folder, "title": "Persuasion (001)", "blocks": blocks, "panels": panels, "figures": written}


_PERSUASION_PUBLISHED_KIND = {"Random Guess": "scripted", "Human": "human"}
#: The live env's exact references (keys of a record's ``references``), as the report names them.
LIVE_REFERENCES = (("open_loop", "best open-loop"), ("bayes", "Bayes-optimal fair"), ("oracle", "oracle"))
LIVE_TARGETS = ("desire", "belief", "intention")


def _is_live(rec: dict) -> bool:
    return isinstance(rec.get("episode"), dict) and "family" in rec


def _literal(e: dict) -> float | None:
    """An episode's literal ToM: the mean of its state-prediction accuracies (desire, belief, intention)."""
    vals = [float(e[f"{t}_accuracy"]) for t in LIVE_TARGETS if isinstance(e.get(f"{t}_accuracy"), (int, float))]
    return sum(vals) / len(vals) if vals else None


def _live_stats(recs: Sequence[dict]) -> dict[str, Any]:
    """Success, regret and literal ToM of live episode records, as the command's rows compute them."""
    eps = [r["episode"] for r in recs]
    against = {str(r.get("regret_against", "bayes")) for r in recs}
    key = "oracle_regret" if against == {"oracle"} else "regret"
    out: dict[str, Any] = {
        "episodes": len(eps),
        "success": estimate([100.0 * float(e.get("success")) for e in eps]),
        "regret": estimate([e.get(key) for e in eps]),
        "fair_regret": estimate([e.get("regret") for e in eps]),
        "against": "/".join(sorted(against)),
        "literal": estimate([_literal(e) for e in eps]),
    }
    for t in LIVE_TARGETS:
        out[t] = estimate([e.get(f"{t}_accuracy") for e in eps])
    stats = [
        as_dict(r.get("llm_stats") if "fallbacks" in as_dict(r.get("llm_stats")) else r.get("reader_stats"))
        for r in recs
    ]  # an LLM persuader's counters, else an LLM reader's
    out["fallbacks"] = sum_opt(s.get("fallbacks") for s in stats)
    out["decisions"] = sum_opt(s.get("decisions") for s in stats)
    return out


def _group(group: tuple[str, Any]) -> str:
    """A run group's name: its env id (without the namespace) and horizon, ``Persuasion-v2, H=4``."""
    env, h = group
    return f"{env.removeprefix('tom/')}, H={'-' if h is None else h}"


def _reference_name(ref: dict, key: str, name: str) -> str:
    """How a reference row is named: ``exact: ...``, or, where the env gives a bound (v2 past small
    horizons), ``lower bound: ... (upper U %)``."""
    upper = ref.get(f"{key}_upper")
    exact = ref.get(f"{key}_exact", upper is None or upper == ref.get(key))
    if exact:
        return f"exact: {name}"
    return f"lower bound: {name} (upper {100.0 * float(upper):.1f} %)"


def _persuasion_live(
    files: Sequence[ResultsFileData], out: Path, root: Path, written: list[str]
) -> tuple[list[Block], list[dict]]:
    """The live persuasion env's subsection: exact references per family, success / regret / literal ToM per
    persuader and family, and the literal-vs-functional plane (one panel per horizon, all families, for the
    overview; one per family in the section's figure)."""
    blocks: list[Block] = [{"kind": "h3", "text": "Live persuasion: success, regret and literal ToM"}]
    runs = []
    for f in files:
        recs = [r for r in f.records if _is_live(r)]
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
                "cells": [fam_name, _group(h)]
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
                st = _live_stats(mine)
                fb = "-" if st["decisions"] is None else f"{st['fallbacks'] or 0}/{st['decisions']}"
                read_by = f", read by {run['reader']}" if run["reader"].startswith("llm") else ""
                rows.append(
                    {
                        "cells": [
                            run["policy"] + (f" ({run['model']})" if run["model"] else "") + read_by,
                            run["kind"],
                            fam_name,
                            _group(h),
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
                            _group(h),
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
                st = _live_stats(mine)
                label = agent_name(run["policy"], run["model"])
                if st["literal"][0] is None:
                    skipped.append(label)
                    continue
                points.append(
                    {
                        "agent": label,
                        "variant": run["apart"],
                        "x": st["literal"][0],
                        "xci": st["literal"][1],
                        "y": st["success"][0],
                        "yci": st["success"][1],
                    }
                )
            fam_refs = [refs[(h, fm)] for fm in (fams if fam_name == "all" else [fam_name]) if (h, fm) in refs]
            lines = [
                {"label": f"exact {name}", "y": 100.0 * sum(float(r[k]) for r in fam_refs) / len(fam_refs)}
                for k, name in LIVE_REFERENCES
                if fam_refs and all(r.get(k) is not None for r in fam_refs)
            ]
            panel = {
                "title": f"{_group(h)}, " + ("all families" if fam_name == "all" else fam_name),
                "xlabel": "literal ToM: mean desire/belief/intention accuracy (%)",
                "xlim": (0, 100),
                "ylabel": "functional: success (%)",
                "ylim": (0, 100),
                "points": points,
                "hlines": lines,
                "skipped": skipped,
            }
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
    return blocks, overview
