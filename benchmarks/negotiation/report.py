"""The negotiation report section (002): CC, TLE, RL, ME, MI per scenario and mediator, next to 002's Table 1.

Built from the stored records only (see :mod:`benchmarks.report.sections`); the outcome tables, the behaviour
scores and the transcript view come from :mod:`benchmarks.negotiation.report_outcomes`."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from benchmarks.negotiation.report_outcomes import behaviour_scores, outcome_blocks, outcomes
from benchmarks.negotiation.stance_cells import cell_columns
from benchmarks.report import figures
from benchmarks.report.doc import Block, estimate, num
from benchmarks.report.load import FamilyData, ResultsFileData
from benchmarks.report.sections import (
    section_of,
    figure_section,
    plane_section,
    agent_name,
    as_dict,
    joined,
    pct,
    run_variants,
    Section,
    sum_opt,
    unknown_block,
    unknown_keys,
)
from tom_envs.negotiation.outcomes import OUTCOME_KEYS


NEGOTIATION_TOP = {
    "scenario",
    "seed",
    "conflict_mode",
    "mediator",
    "version",
    "episode",
    "code",
    "llm_stats",
    "parties",
    "env_version",
}
NEGOTIATION_EPISODE = {
    "cc",
    "tle_mean",
    "rl_mean",
    "me_mean",
    "mi_mean",
    "consensus",
    "topic_consensus",
    "tom_accuracy",
    "tom_predictions",
    "tom_cells",
    "attitude_source",
    "mi_judge",
    "scenario",
    "conflict_mode",
    "turns",
    "parties",
    "topics",
    "mediator",
    "tle",
    "rl",
    "drop_events",
    "rl_unanswered",
    "interventions",
    "mediator_turns",
    "metric_definitions",
    "other_definitions",
    # issue 28: the outcome table and the transcript view; issue 41: what the case allows (the outcome keys)
    *OUTCOME_KEYS,
    "success_rate",
    "success_rate_max",
    "mediator_frequency",
    "drops",
    "blocked_stances",
    "transcript",
    # --behaviour-judge: the release's behaviour scores
    "behaviour",
    "behaviour_judge",
    "monitoring_score",
    "planning_score",
    "simple_score",
}


def _negotiation_row(f: ResultsFileData) -> dict[str, Any] | None:
    from tom_envs.negotiation.scenario import DIFFICULTY_MODES

    recs = [r for r in f.records if isinstance(r.get("episode"), dict)]
    if not recs:
        return None
    eps = [r["episode"] for r in recs]
    mode = str(recs[0].get("conflict_mode", eps[0].get("conflict_mode", "?")))
    mediator = str(recs[0].get("mediator", "?"))
    cfg = f.config or {}
    llm = as_dict(cfg.get("llm"))
    stats = [s for r in recs for s in as_dict(r.get("llm_stats")).values() if isinstance(s, dict)]
    none = mediator == "none"
    return {
        "file": f,
        "mode": mode,
        "mediator": mediator,
        "episodes": len(eps),
        "difficulty": next((lv for lv, modes in DIFFICULTY_MODES.items() if mode in modes), "?"),
        # a tom/Negotiation-v2 cell (the release's turn order and opening line) says so beside its parties
        "parties": str(recs[0].get("parties", cfg.get("parties", "scripted")))
        + (f" (v{cfg['env_version']})" if cfg.get("env_version", 1) != 1 else ""),
        "attitudes": str(eps[0].get("attitude_source", cfg.get("attitudes", "stated"))),
        "mi_judge": eps[0].get("mi_judge"),
        "model": llm.get("model"),
        # records before the release's definitions existed were computed under the paper's (as the table reads them)
        "definitions": str(eps[0].get("metric_definitions", "paper")),
        "other": sorted(
            {
                str(as_dict(e.get("other_definitions")).get("name"))
                for e in eps
                if as_dict(e.get("other_definitions")).get("name")
            }
        ),
        "scenarios": sorted({str(r.get("scenario")) for r in recs}),
        "case_files": bool(cfg.get("case_files")),
        "cc": estimate([pct(e.get("cc")) for e in eps]),
        "tle": estimate([pct(e.get("tle_mean")) for e in eps]),
        "rl": (None, None) if none else estimate([e.get("rl_mean") for e in eps]),
        "me": (None, None) if none else estimate([pct(e.get("me_mean")) for e in eps]),
        "mi": (None, None) if none else estimate([e.get("mi_mean") for e in eps]),
        "tom": estimate([pct(e.get("tom_accuracy")) for e in eps]),
        "tom_cells": cell_columns([e.get("tom_cells") for e in eps]),
        "llm_fallbacks": sum_opt(s.get("fallbacks") for s in stats),
        "llm_decisions": sum_opt(s.get("decisions") for s in stats),
        "consensus": [e.get("consensus") or [] for e in eps],
        "outcomes": outcomes(
            eps,
            str(eps[0].get("metric_definitions", "release")),
            [str(r.get("scenario", r["episode"].get("scenario"))) for r in recs],
        ),
        "transcript": next(((r, r["episode"]["transcript"]) for r in recs if r["episode"].get("transcript")), None),
        "behaviour": behaviour_scores(eps),
    }


#: The caption of the literal-vs-functional figure.
PLANE_CAPTION = (
    "Each mediator cell: x = its stance-prediction accuracy, y = consensus change, whiskers = "
    "95 % CIs. 002 publishes no literal-ToM score, so it has no reference points here; the "
    "'none' mediator predicts nothing and is left out."
)


#: The caption of the consensus-trajectory figure.
CONSENSUS_CAPTION = (
    "Overall consensus per turn (turn 0 = before anyone spoke), averaged over every episode "
    "(scenarios x runs) of a cell, with 95 % bands; one panel per conflict mode (002 Figure 2 "
    "shows single runs)."
)


def negotiation(fam: FamilyData, out: Path, root: Path) -> Section:
    from benchmarks.negotiation.published import PUBLISHED

    rows = [r for r in (_negotiation_row(f) for f in fam.files) if r is not None]
    order = {"accommodating": 0, "avoiding": 1, "general": 2, "competing": 3}
    med_order = {"none": 0, "generic": 1, "social": 2}
    rows.sort(
        key=lambda r: (
            order.get(r["mode"], 9),
            r["mode"],
            med_order.get(_base(r["mediator"]), 9),
            _base(r["mediator"]),
            r["mediator"],
            r["parties"],
            r["attitudes"],
        )
    )
    blocks: list[Block] = [
        {
            "kind": "p",
            "text": (
                f"{len(rows)} cells, {sum(r['episodes'] for r in rows)} episodes (scenarios x runs). Mean ± 95 % CI over "
                "episodes; CC, TLE and ME in percent, RL in turns after a drop event (002 reports seconds), MI on 1-5. "
                "Mediator ToM % is the mediator's stance predictions (party x topic) that were right; beside it, the same on "
                "cells the party had not stated and on cells whose stance changes, each 'vs' the no-ToM prior (the best "
                "fixed guess per case, party and topic) on the same cells, with their count. Published "
                "reference rows (yellow, italic): 002 Table 1, GPT-4.1 as mediator backbone and as the parties (LLM "
                "parties), mean over 6 scenarios x 5 runs; rows with scripted parties are not comparable to them in "
                "level, only in direction."
            ),
        }
    ]
    table_rows = []
    last = None
    for r in rows:
        ident = (r["mode"], _base(r["mediator"]))  # 002's Generic/Social are LLM mediators: llm-social's reference
        if last is not None and last != ident and last in PUBLISHED:
            table_rows.append(_negotiation_ref(last, PUBLISHED[last]))
        last = ident
        fb = "-" if r["llm_decisions"] is None else f"{r['llm_fallbacks'] or 0}/{r['llm_decisions']}"
        table_rows.append(
            {
                "cells": [
                    r["difficulty"],
                    r["mode"],
                    r["mediator"] + (f" ({r['model']})" if r["model"] else ""),
                    r["parties"],
                    r["attitudes"],
                    r["definitions"],
                    str(r["episodes"]),
                    str(len(r["scenarios"])) + (" (case files)" if r["case_files"] else ""),
                    num(*r["cc"], digits=2),
                    num(*r["tle"], digits=2),
                    num(*r["rl"], digits=2),
                    num(*r["me"], digits=2),
                    num(*r["mi"], digits=3),
                    num(*r["tom"], digits=1),
                    _beside_prior(r["tom_cells"], "unstated"),
                    _beside_prior(r["tom_cells"], "changing"),
                    fb,
                ]
            }
        )
    if last in PUBLISHED:
        table_rows.append(_negotiation_ref(last, PUBLISHED[last]))
    blocks.append(
        {
            "kind": "table",
            "caption": "Negotiation: 002 Table 1 metrics per conflict mode and mediator",
            "columns": [
                "difficulty",
                "conflict mode",
                "mediator",
                "parties",
                "attitudes",
                "metrics",
                "episodes",
                "scenarios",
                "CC % ↑",
                "TLE % ↑",
                "RL (turns) ↓",
                "ME % ↑",
                "MI ↑",
                "mediator ToM %",
                "ToM unstated % vs prior",
                "ToM changing % vs prior",
                "LLM fallbacks/decisions",
            ],
            "rows": table_rows,
        }
    )
    other = sorted({o for r in rows for o in r["other"]})
    blocks.append(
        {
            "kind": "p",
            "text": (
                "metrics: the definitions of CC, TLE, ME and RL a row uses ('release': ProMediate-Eval's "
                "scripts/evaluation.py; 'paper': 002's text)"
                + (
                    f"; the records also hold the {', '.join(other)} definitions' values (other_definitions)."
                    if other
                    else "."
                )
            ),
        }
    )
    judges = sorted({str(r["mi_judge"]) for r in rows if r["mi_judge"]})
    if judges:
        blocks.append({"kind": "p", "text": "MI judge: " + "; ".join(judges) + "."})
    written: list[str] = []
    # colour = the mediator (and its model), marker = conflict mode and parties (and what tells two runs apart)
    apart = run_variants(
        [((r["mediator"], r["model"], r["mode"], r["parties"]), r["file"].config, r["file"].path.name) for r in rows]
    )
    for r, extra in zip(rows, apart):
        # the model is the mediator's only for an LLM mediator (else it plays the parties: a variant)
        r["agent"], r["apart"] = (
            agent_name(r["mediator"], r["model"] if r["mediator"].startswith("llm") else None),
            extra,
        )
    points = [
        {
            "agent": r["agent"],
            "variant": joined(r["mode"], f"{r['parties']} parties", r["apart"]),
            "x": r["tom"][0],
            "xci": r["tom"][1],
            "y": r["cc"][0],
            "yci": r["cc"][1],
        }
        for r in rows
        if r["tom"][0] is not None
    ]
    panels = (
        [
            {
                "title": "negotiation",
                "xlabel": "literal ToM: mediator stance accuracy (%)",
                "ylabel": "functional: consensus change CC (%)",
                "xlim": (0, 100),
                "points": points,
            }
        ]
        if points
        else []
    )
    blocks += plane_section(
        "Negotiation: literal vs functional ToM", PLANE_CAPTION, panels, "conflict mode, parties", written, out, root
    )
    by_mode: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by_mode[r["mode"]].append(r)
    curve_panels = []
    for mode, members in by_mode.items():
        series = []
        for r in members:
            b = figures.band([s for s in r["consensus"] if s])
            if b["x"]:
                parties = "" if r["parties"] == "scripted" else f"{r['parties']} parties"
                series.append(
                    {"agent": r["agent"], "variant": joined(parties, r["apart"]), **b, "x": [x - 1 for x in b["x"]]}
                )
        if series:
            curve_panels.append(
                {
                    "title": mode,
                    "xlabel": "turn",
                    "ylabel": "consensus (agreement)",
                    "series": series,
                    "clip": (0.0, 1.0),
                }
            )
    if curve_panels:
        blocks += figure_section(
            "Consensus trajectories",
            CONSENSUS_CAPTION,
            written,
            root,
            figures.curves(
                out / "consensus.png",
                "Consensus over the turns, mean over runs",
                curve_panels,
                variant_title="parties, setting",
            ),
        )
    blocks += outcome_blocks(rows)
    blocks += unknown_block(
        unknown_keys([rec for f in fam.files for rec in f.records], NEGOTIATION_TOP, NEGOTIATION_EPISODE)
    )
    return section_of(fam, "Negotiation (002)", blocks, panels, written)


def _base(mediator: str) -> str:
    """The mediator of 002's Table 1 a mediator of ours is compared with (``llm-social`` -> ``social``)."""
    return mediator.removeprefix("llm-")


def _beside_prior(cols: dict[str, Any], kind: str) -> str:
    """``"87.8 vs 58.2 (5,810)"``: the mediator's stance accuracy on the cells of ``kind`` it predicted, the
    no-ToM prior on the same cells and their count; ``"- (prior 92.2)"`` where it predicted none of them (the
    prior on all such cells); "-" without counts (:mod:`benchmarks.negotiation.stance_cells`)."""
    if cols.get(f"tom_{kind}_cells") is None:
        return "-"
    if not cols[f"tom_{kind}_n"]:
        prior = cols[f"tom_{kind}_prior_all"]
        return "-" if prior is None else f"- (prior {prior:.1f})"
    return f"{cols[f'tom_{kind}']:.1f} vs {cols[f'tom_{kind}_prior']:.1f} ({cols[f'tom_{kind}_n']:,})"


def _negotiation_ref(ident: tuple[str, str], pub: dict[str, float]) -> dict[str, Any]:
    from tom_envs.negotiation.scenario import DIFFICULTY_MODES

    mode, mediator = ident
    level = next((lv for lv, modes in DIFFICULTY_MODES.items() if mode in modes), "?")
    cell = lambda k, d: num(pub.get(k), digits=d) if pub.get(k) is not None else "-"  # noqa: E731
    return {
        "ref": True,
        "cells": [
            level,
            mode,
            f"002 {mediator} (GPT-4.1, published)",
            "llm",
            "stated",
            "002's",
            "30",
            "6",
            cell("cc", 2),
            cell("tle", 2),
            cell("rl", 2) if pub.get("rl") is None else {**num(pub["rl"], digits=2), "text": f"{pub['rl']:.2f} s"},
            cell("me", 2),
            cell("mi", 3),
            "-",
            "-",
            "-",
            "-",
        ],
    }
