"""002's Table 1 for ``tom-envs negotiation``: rows from episode records, the plain-text table with
the published values under it, and Figure 2's consensus trajectories."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.negotiation.published import PUBLISHED  # noqa: F401  (the command's tables)
from benchmarks.negotiation.stance_cells import cell_columns
from benchmarks.results import fault_columns
from tom_envs.negotiation.outcomes import OUTCOME_REFERENCE
from tom_envs.stats import mean_ci95

ROWS = (("cc", "CC ↑", "%"), ("tle", "TLE ↑", "%"), ("rl", "RL ↓", "turns"), ("me", "ME ↑", "%"), ("mi", "MI ↑", ""))
MEDIATOR_ONLY = ("rl", "me", "mi")
#: the mediator's stance ToM (:mod:`benchmarks.negotiation.stance_cells`): on every predicted cell, on unstated
#: and on changing cells, each beside the no-ToM prior on the same cells; "(n)" the cells predicted
TOM_ROWS = (
    ("tom", "ToM all", "%"),
    ("tom_unstated", "ToM unstat.", "%"),
    ("tom_unstated_prior", " prior", "%"),
    ("tom_unstated_n", " (n)", "n"),
    ("tom_unstated_prior_all", " prior all", "%"),
    ("tom_changing", "ToM chang.", "%"),
    ("tom_changing_prior", " prior", "%"),
    ("tom_changing_n", " (n)", "n"),
    ("tom_changing_prior_all", " prior all", "%"),
)
#: ``metrics`` of :func:`summarise`: the release's definitions (ProMediate-Eval ``scripts/evaluation.py``,
#: what produced 002's Table 1) or the paper's §3.3 text (see :mod:`tom_envs.negotiation.metrics`).
METRICS = ("release", "paper")


def measured(ep: dict, metrics: str) -> dict:
    """The episode's CC/TLE/RL/ME under ``metrics`` (the summary holds the env's choice and the other)."""
    if ep.get("metric_definitions", "paper") == metrics:
        return ep
    other = ep.get("other_definitions") or {}
    if other.get("name") != metrics:
        raise ValueError(f"episode record has no {metrics!r} metrics; rerun it with this code")
    return {**ep, **other}


def summarise(
    level: str, mode: str, mediator: str, records: Sequence[dict], metrics: str = "release"
) -> dict[str, Any]:
    """One Table 1 cell: means and 95 % CIs (percent for CC, TLE, ME; turns for RL) under ``metrics``."""
    eps = [measured(r["episode"], metrics) for r in records]
    row: dict[str, Any] = {
        "difficulty": level,
        "conflict_mode": mode,
        "mediator": mediator,
        "episodes": len(eps),
        "metric_definitions": metrics,
    }
    series = {
        "cc": [100 * e["cc"] for e in eps],
        "tle": [None if e["tle_mean"] is None else 100 * e["tle_mean"] for e in eps],
        "rl": [e["rl_mean"] for e in eps],
        "me": [None if e["me_mean"] is None else 100 * e["me_mean"] for e in eps],
        "mi": [e["mi_mean"] for e in eps],
    }
    for key, values in series.items():
        if mediator == "none" and key in MEDIATOR_ONLY:
            row[key], row[key + "_ci"] = None, None
        else:
            row[key], row[key + "_ci"] = mean_ci95(values)
    row["drop_events"] = sum(len(e["drop_events"]) for e in eps)
    row["rl_unanswered"] = sum(e.get("rl_unanswered") or 0 for e in eps)
    row["interventions"] = sum(len(e["interventions"]) for e in eps) / max(1, len(eps))
    row["mi_judge"] = None if mediator == "none" else (eps[0]["mi_judge"] if eps else None)
    audits = [e.get("extraction") for e in eps if e.get("extraction")]
    row["attitudes"] = eps[0].get("attitude_source", "stated") if eps else None
    lines = sum(a["lines"] for a in audits)
    row["extraction_agreement"] = sum(a["agree"] for a in audits) / lines if lines else None
    stats = [s for r in records for s in r.get("llm_stats", {}).values()]
    row["llm_decisions"] = sum(s["decisions"] for s in stats) if stats else None
    row["llm_fallbacks"] = sum(s["fallbacks"] for s in stats) if stats else None
    if stats:  # per component (mediator, extractor, mi_judge, parties): a part that only ever fell back is flagged
        by: dict[str, dict[str, int]] = {}
        for r in records:
            for who, s in r.get("llm_stats", {}).items():
                tally = by.setdefault(who, {"fallbacks": 0, "decisions": 0})
                tally["fallbacks"] += s["fallbacks"]
                tally["decisions"] += s["decisions"]
        row["llm_fallbacks_by"] = by
        row["llm_all_random"] = sorted(w for w, t in by.items() if t["decisions"] and t["fallbacks"] == t["decisions"])
    row.update(fault_columns(records))  # server retries of every LLM part (none: scripted rows keep their keys)
    if any("parties" in r for r in records):  # LLM parties (scripted rows keep their keys)
        row["parties"] = records[0].get("parties")
    row.update(outcome_row(eps, metrics, [r.get("scenario", r["episode"].get("scenario")) for r in records]))
    row["tom"] = _mean([None if e.get("tom_accuracy") is None else 100 * e["tom_accuracy"] for e in eps])
    row.update(cell_columns([e.get("tom_cells") for e in eps]))  # stance ToM on unstated / changing cells vs the prior
    judged = [e for e in eps if "behaviour" in e]
    if judged:  # --behaviour-judge: the release's names (results_summary.csv); None where nothing was judged
        for key in BEHAVIOUR_ROW:
            row[key] = _mean([e.get(key) for e in judged])
    return row


#: the row keys of the release's behaviour scores (``--behaviour-judge``; a row has them only then): the mean over
#: episodes of each episode's mean over its judged mediator lines
BEHAVIOUR_ROW = ("monitoring_score", "planning_score", "simple_score")


def _mean(values: Sequence[float | None]) -> float | None:
    xs = [float(v) for v in values if v is not None]
    return sum(xs) / len(xs) if xs else None


def outcome_row(eps: Sequence[dict], metrics: str = "release", cases: Sequence[str] | None = None) -> dict[str, Any]:
    """A row's outcome keys (issue 28; None where no episode has them, e.g. records of older code):
    ``deals`` (topics with a deal per episode), ``full_deal_rate``, ``blocked_agreements`` and
    ``blocked_stances`` (totals), ``utility`` (the parties' mean utility), ``nash_product`` and
    ``nash_share`` (of the best achievable outcome's), ``pareto_rate`` (Pareto-efficient among the
    achievable outcomes), the release's ``success_rate`` / ``success_rate_max`` / ``mediator_frequency``
    (means), ``drops`` (per episode, under ``metrics``) and ``rl_defined`` (episodes whose RL is defined).

    What each case allows (issue 41): ``achievable`` ``{scenario: {full_deal_possible, nash_product_max}}``
    and ``full_deal_possible_rate`` (episodes whose case allows a full deal); ``cases`` names each episode's
    case (the records' ``scenario``, which tells a case file from a built-in scenario of the same name;
    default the episode's ``scenario``). ``nash_share`` and ``pareto_rate`` are read from the episodes judged
    over the achievable outcomes only (``outcome_reference``); ``outcomes_stale`` counts the others (records of
    older code judged them over every package of listed options, blocked ones included: rerun those cells),
    None where there is none."""
    names = [str(e.get("scenario")) for e in eps] if cases is None else [str(c) for c in cases]
    have = [e for e in eps if "deals" in e]
    if not have:
        return dict.fromkeys(OUTCOME_ROW)
    judged = [(c, e) for c, e in zip(names, eps) if "deals" in e and e.get("outcome_reference") == OUTCOME_REFERENCE]
    share = [None if not e["nash_product_max"] else e["nash_product"] / e["nash_product_max"] for _, e in judged]
    achievable = {
        c: {"full_deal_possible": e["full_deal_possible"], "nash_product_max": e["nash_product_max"]} for c, e in judged
    }
    return {
        "deals": _mean([e["deals"] for e in have]),
        "full_deal_rate": _mean([e["full_deal"] for e in have]),
        "full_deal_possible_rate": _mean([e["full_deal_possible"] for _, e in judged]),
        "blocked_agreements": sum(e["blocked_agreements"] for e in have),
        "blocked_stances": sum(len(e["blocked_stances"]) for e in have),
        "utility": _mean([_mean(list(e["utilities"].values())) for e in have]),
        "nash_product": _mean([e["nash_product"] for e in have]),
        "nash_share": _mean(share),
        "pareto_rate": _mean([e["pareto_efficient"] for _, e in judged]),
        "achievable": dict(sorted(achievable.items())) if judged else None,
        "outcomes_stale": len(have) - len(judged) or None,
        "success_rate": _mean([e["success_rate"] for e in have]),
        "success_rate_max": _mean([e["success_rate_max"] for e in have]),
        "mediator_frequency": _mean([e["mediator_frequency"] for e in have]),
        "drops": _mean([e["drops"][metrics] for e in have]),
        "rl_defined": sum(1 for e in eps if e.get("rl_mean") is not None),
    }


#: the keys :func:`outcome_row` adds to a row
OUTCOME_ROW = (
    "deals",
    "full_deal_rate",
    "full_deal_possible_rate",
    "blocked_agreements",
    "blocked_stances",
    "utility",
    "nash_product",
    "nash_share",
    "pareto_rate",
    "achievable",
    "outcomes_stale",
    "success_rate",
    "success_rate_max",
    "mediator_frequency",
    "drops",
    "rl_defined",
)


def achievable_lines(rows: Sequence[dict]) -> list[str]:
    """One line per case the rows played: whether a full deal is possible there and its best achievable Nash
    product (the rows' ``achievable``), and how many episodes' efficiency keys are stale."""
    cases: dict[str, dict] = {}
    for r in rows:
        cases.update(r.get("achievable") or {})
    lines = []
    for name, a in sorted(cases.items()):
        deal = "possible" if a["full_deal_possible"] else "impossible (some topic has every option blocked)"
        best = "-" if a["nash_product_max"] is None else f"{a['nash_product_max']:.4g}"
        lines.append(f"  {name}: full deal {deal}, best achievable Nash product {best}")
    if lines:
        lines.insert(
            0,
            "Achievable outcomes per case (a blocked option is no deal on its topic; Nash share and "
            "Pareto % are judged over these):",
        )
    stale = sum(r.get("outcomes_stale") or 0 for r in rows)
    if stale:
        lines.append(
            f"{stale} episode(s) from older records judged Nash share and Pareto efficiency over packages "
            "that use blocked options: left out of those columns (rerun the cells)."
        )
    return lines


# ---------------------------------------------------------------------- output
def _metric(key: str, unit: str, value: float | None) -> str:
    if value is None:
        return "-"
    if unit == "n":
        return str(int(value))
    return f"{value:.3f}" if key == "mi" else f"{value:.2f}{'%' if unit == '%' else ''}"


def format_table(rows: Sequence[dict]) -> str:
    """002 Table 1's layout: one column per (conflict mode, mediator), one row per metric."""
    heads = [f"{r['conflict_mode'][:5]}/{r['mediator']}" for r in rows]
    width = max([13] + [len(h) for h in heads]) + 1
    lines = ["metric     " + "".join(f"{h:>{width}}" for h in heads)]
    lines.append("difficulty " + "".join(f"{r['difficulty']:>{width}}" for r in rows))
    lines.append("-" * len(lines[0]))
    lines += [
        f"{label:<11}" + "".join(f"{_metric(key, unit, r[key]):>{width}}" for r in rows) for key, label, unit in ROWS
    ]
    if any(r.get("tom") is not None for r in rows):
        lines += [
            f"{label:<11}" + "".join(f"{_metric(key, unit, r.get(key)):>{width}}" for r in rows)
            for key, label, unit in TOM_ROWS
        ]
    published = [PUBLISHED.get((r["conflict_mode"], r["mediator"]), {}) for r in rows]
    if any(published):
        lines.append("002 Table 1 (GPT-4.1 mediators; RL in seconds):")
        lines += [
            f"{label:<11}" + "".join(f"{_metric(key, unit, p.get(key)):>{width}}" for p in published)
            for key, label, unit in ROWS
        ]
    n = rows[0]["episodes"] if rows else 0
    lines.append(
        f"\nEach cell: mean over {n} episodes (scenarios x runs). RL in turns after a drop event "
        "(unanswered drops excluded; see rl_unanswered in --format json)."
    )
    if any(r.get("tom") is not None for r in rows):
        lines.append(
            "ToM: the mediator's stance predictions right (%), on all cells it predicted, on cells the party "
            "had not stated, on cells whose stance changes in the episode; 'prior': the best fixed guess per "
            "(case, party, topic) learned from the episodes, on the same cells ('prior all': on every cell of the "
            "kind); a figure means ToM only above its prior."
        )
    defs = sorted({r.get("metric_definitions", "release") for r in rows})
    lines.append(
        "Metrics: "
        + ", ".join(
            "the release's definitions (ProMediate-Eval scripts/evaluation.py: CC from c[0]; TLE and ME windowed; "
            "RL over overlapping drops)"
            if d == "release"
            else "the paper's text definitions (002 §3.3)"
            for d in defs
        )
        + "."
    )
    if not any("parties" in r for r in rows):
        lines.append(
            "Parties: SCRIPTED (the rule-based party model of tom-envs, not 002's LLM parties): the rows "
            "compare mediators against that model (docs/negotiation.md), not with 002's LLM-party figures."
        )
    judges = sorted({r["mi_judge"] for r in rows if r.get("mi_judge")})
    if judges:
        lines.append(f"MI judge: {', '.join(judges)}.")
    fallbacks = [r for r in rows if r.get("llm_decisions")]
    if fallbacks:
        lines.append(
            "LLM decisions (mediator, extractor, judge, parties): "
            + ", ".join(
                f"{r['conflict_mode'][:5]}/{r['mediator']} {r['llm_fallbacks']}/{r['llm_decisions']} random fallbacks"
                for r in fallbacks
            )
            + "."
        )
        broken = [
            f"{r['conflict_mode'][:5]}/{r['mediator']} ({', '.join(r['llm_all_random'])})"
            for r in fallbacks
            if r.get("llm_all_random")
        ]
        if broken:
            lines.append(
                "WARNING: every decision was a random fallback in "
                + "; ".join(broken)
                + " -- those cells measure random play, not the model (check the backend and the replies)."
            )
    lines += achievable_lines(rows)
    read = [r for r in rows if r.get("extraction_agreement") is not None]
    if read:
        agree = sum(r["extraction_agreement"] for r in read) / len(read)
        lines.append(
            f"Attitudes read from every line by an extractor ({read[0]['attitudes']}); mean agreement with "
            f"the stances taken: {100 * agree:.1f}%."
        )
    return "\n".join(lines)


def plot(records: dict[tuple[str, str], list[dict]], out_dir: Path) -> list[Path]:
    """One PNG per (conflict mode, mediator, scenario): the first run's topic consensus over the
    turns, with the mediator's interventions as vertical lines (002 Figure 2)."""
    from tom_envs.errors import import_optional

    matplotlib = import_optional("matplotlib", "bench", "--plot")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out_dir.mkdir(parents=True, exist_ok=True)
    firsts = {(mode, med, rec["scenario"]): rec for (mode, med), recs in records.items() for rec in reversed(recs)}
    paths = []
    for (mode, med, scenario), rec in firsts.items():
        stem, ep = Path(scenario).stem, rec["episode"]
        fig, ax = plt.subplots(figsize=(7, 3.5))
        for topic, series in ep["topic_consensus"].items():
            ax.plot(range(len(series)), series, label=topic)
        for t in ep["mediator_turns"]:
            ax.axvline(t, color="gray", alpha=0.5, linewidth=1)
        ax.set(xlabel="turn", ylabel="agreement", ylim=(0, 1.02), title=f"{stem} - {mode} - {med} (seed {rec['seed']})")
        ax.legend(fontsize=6, loc="lower right")
        fig.tight_layout()
        paths.append(out_dir / f"negotiation_{stem}_{mode}_{med}.png")
        fig.savefig(paths[-1], dpi=90)
        plt.close(fig)
    return paths
