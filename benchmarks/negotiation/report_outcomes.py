"""The negotiation section's outcome view (issues 28 and 41): what each cell's episodes ended with.

:func:`outcomes` and :func:`behaviour_scores` sum up a cell's records (a row of
:mod:`benchmarks.negotiation.report`); :func:`outcome_blocks` renders the rows as the outcome table (deals,
utilities, efficiency over the achievable outcomes, the release's success rates), what each case allows, the
release's behaviour scores where a judge ran, and one episode's transcript.
"""

from __future__ import annotations

from typing import Any

from benchmarks.report.doc import Block, estimate, num
from benchmarks.report.sections import pct

#: lines of the transcript view
TRANSCRIPT_LINES = 40


def behaviour_scores(eps: list[dict]) -> dict[str, Any] | None:
    """The release's behaviour scores of a cell (``--behaviour-judge``), None when it was not judged."""
    from benchmarks.negotiation.table import BEHAVIOUR_ROW

    judged = [e for e in eps if "behaviour" in e]
    if not judged:
        return None
    return {key: estimate([e.get(key) for e in judged]) for key in BEHAVIOUR_ROW}


def outcomes(eps: list[dict], definitions: str, cases: list[str]) -> dict[str, Any] | None:
    """The row's outcome keys (:func:`benchmarks.negotiation.table.outcome_row`), None for older records."""
    from benchmarks.negotiation.table import outcome_row

    row = outcome_row(eps, definitions if definitions in ("release", "paper") else "release", cases)
    return None if row["deals"] is None else row


def outcome_blocks(rows: list[dict]) -> list[Block]:
    """The outcome table (agreed options, utilities, efficiency, blocked agreements, the release's success
    rates, mediator frequency, drops) and a readable transcript of one episode."""
    have = [r for r in rows if r["outcomes"] is not None]
    blocks: list[Block] = []
    if have:
        fmt = lambda v, d=2: "-" if v is None else f"{v:.{d}f}"  # noqa: E731
        blocks += [
            {"kind": "h3", "text": "Outcomes"},
            {
                "kind": "table",
                "caption": (
                    "Negotiation outcomes per cell: deals (topics agreed on an option no party blocks, per episode), "
                    "full deals (every topic), agreements on a blocked option and stances on one's own blocked option "
                    "(totals), the parties' mean utility, the Nash product as a share of the best achievable outcome's, "
                    "Pareto-efficient outcomes among the achievable ones (a blocked option is no deal on its topic; '-' where "
                    "every record of the cell predates that reference and judged them over packages with blocked options), "
                    "the release's success rate (mean / max of a topic's last 10 turns >= 0.9), "
                    "mediator lines per turn, consensus drops per episode, episodes whose RL is defined"
                ),
                "columns": [
                    "conflict mode",
                    "mediator",
                    "parties",
                    "deals",
                    "full deal %",
                    "blocked agreements",
                    "blocked stances",
                    "utility",
                    "Nash share",
                    "Pareto %",
                    "success",
                    "success (max)",
                    "mediator freq.",
                    "drops",
                    "RL defined",
                ],
                "rows": [
                    {
                        "cells": [
                            r["mode"],
                            r["mediator"],
                            r["parties"],
                            fmt(o["deals"]),
                            fmt(pct(o["full_deal_rate"]), 1),
                            str(o["blocked_agreements"]),
                            str(o["blocked_stances"]),
                            fmt(o["utility"], 3),
                            fmt(o["nash_share"], 3),
                            fmt(pct(o["pareto_rate"]), 1),
                            fmt(o["success_rate"]),
                            fmt(o["success_rate_max"]),
                            fmt(o["mediator_frequency"], 3),
                            fmt(o["drops"]),
                            f"{o['rl_defined']}/{r['episodes']}",
                        ]
                    }
                    for r in have
                    for o in [r["outcomes"]]
                ],
            },
        ]
        blocks += achievable_blocks(have)
    judged = [r for r in rows if r["behaviour"] is not None]
    if judged:
        blocks += [
            {"kind": "h3", "text": "Behaviour scores"},
            {
                "kind": "table",
                "caption": (
                    "The release's behaviour scores of the mediator lines (--behaviour-judge: its "
                    "scripts/behavior_evaluation.py prompts on the run's judge model): per line the mean of the four "
                    "dimensions' 1-5 scores that apply, averaged over the lines, then over episodes; 'n/a' where a prompt "
                    "was not asked or no line was judged"
                ),
                "columns": ["conflict mode", "mediator", "parties", "monitoring", "planning", "simple"],
                "rows": [
                    {
                        "cells": [
                            r["mode"],
                            r["mediator"],
                            r["parties"],
                            *(
                                num(*r["behaviour"][k], digits=2)
                                for k in ("monitoring_score", "planning_score", "simple_score")
                            ),
                        ]
                    }
                    for r in judged
                ],
            },
        ]
    shown = next(
        (r for r in rows if r["transcript"] is not None and r["mediator"] != "none"),
        next((r for r in rows if r["transcript"] is not None), None),
    )
    if shown is not None:
        rec, lines = shown["transcript"]
        text = "\n".join(f"[{e.get('turn')}] {e.get('speaker')}: {e.get('text')}" for e in lines[:TRANSCRIPT_LINES])
        more = len(lines) - TRANSCRIPT_LINES
        blocks += [
            {"kind": "h3", "text": "A transcript"},
            {
                "kind": "p",
                "text": (
                    f"{rec.get('scenario')}, {shown['mode']}, mediator {shown['mediator']}, "
                    f"seed {rec.get('seed')} (the records' episode.transcript"
                    + (f"; first {TRANSCRIPT_LINES} of {len(lines)} lines" if more > 0 else "")
                    + ")."
                ),
            },
            {"kind": "code", "text": text},
        ]
    return blocks


def achievable_blocks(rows: list[dict]) -> list[Block]:
    """What each case allows (issue 41): whether a full deal is possible and the best achievable Nash product,
    from the records judged over the achievable outcomes; a line counting the stale episodes."""
    cases: dict[str, dict] = {}
    for r in rows:
        cases.update(r["outcomes"].get("achievable") or {})
    stale = sum(r["outcomes"].get("outcomes_stale") or 0 for r in rows)
    blocks: list[Block] = []
    if cases:
        blocks.append(
            {
                "kind": "table",
                "caption": (
                    "What each case allows: a full deal needs an option nobody blocks on every topic; the best Nash "
                    "product over the achievable outcomes (per topic a deal on an option nobody blocks, or no deal)"
                ),
                "columns": ["case", "full deal possible", "best achievable Nash product"],
                "rows": [
                    {
                        "cells": [
                            name,
                            "yes" if a["full_deal_possible"] else "no",
                            "-" if a["nash_product_max"] is None else f"{a['nash_product_max']:.4g}",
                        ]
                    }
                    for name, a in sorted(cases.items())
                ],
            }
        )
    if stale:
        blocks.append(
            {
                "kind": "p",
                "text": (
                    f"{stale} episodes come from records written before the achievable reference (issue 41): their Nash "
                    "share and Pareto efficiency were judged over packages that use blocked options and are left out of "
                    "those columns; rerun those cells to fill them."
                ),
            }
        )
    return blocks


__all__ = ["TRANSCRIPT_LINES", "achievable_blocks", "behaviour_scores", "outcome_blocks", "outcomes"]
