"""What the live persuasion report parts share (:mod:`benchmarks.persuasion.report_live`, v1/v2;
:mod:`benchmarks.persuasion.report_live_v3`, v3): which records are live episodes, their success, regret and
literal ToM as the command's rows compute them, a run group's name, and a panel of the literal-vs-functional plane."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from benchmarks.report.doc import estimate
from benchmarks.report.sections import as_dict, sum_opt

#: v1/v2's literal-ToM targets (v3's: source and stake).
LIVE_TARGETS = ("desire", "belief", "intention")


def is_live(rec: dict) -> bool:
    return isinstance(rec.get("episode"), dict) and "family" in rec


def _literal(e: dict, targets: Sequence[str] = LIVE_TARGETS) -> float | None:
    """An episode's literal ToM: the mean of its state-prediction accuracies (v1/v2: desire, belief, intention)."""
    vals = [float(e[f"{t}_accuracy"]) for t in targets if isinstance(e.get(f"{t}_accuracy"), (int, float))]
    return sum(vals) / len(vals) if vals else None


def live_stats(recs: Sequence[dict], targets: Sequence[str] = LIVE_TARGETS) -> dict[str, Any]:
    """Success, regret and literal ToM (over ``targets``) of live episode records, as the command's rows compute
    them."""
    eps = [r["episode"] for r in recs]
    against = {str(r.get("regret_against", "bayes")) for r in recs}
    key = "oracle_regret" if against == {"oracle"} else "regret"
    out: dict[str, Any] = {
        "episodes": len(eps),
        "success": estimate([100.0 * float(e.get("success")) for e in eps]),
        "regret": estimate([e.get(key) for e in eps]),
        "fair_regret": estimate([e.get("regret") for e in eps]),
        "against": "/".join(sorted(against)),
        "literal": estimate([_literal(e, targets) for e in eps]),
    }
    for t in targets:
        out[t] = estimate([e.get(f"{t}_accuracy") for e in eps])
    stats = [
        as_dict(r.get("llm_stats") if "fallbacks" in as_dict(r.get("llm_stats")) else r.get("reader_stats"))
        for r in recs
    ]  # an LLM persuader's counters, else an LLM reader's
    out["fallbacks"] = sum_opt(s.get("fallbacks") for s in stats)
    out["decisions"] = sum_opt(s.get("decisions") for s in stats)
    return out


def group_name(group: tuple[str, Any]) -> str:
    """A run group's name: its env id (without the namespace) and horizon, ``Persuasion-v2, H=4``."""
    env, h = group
    return f"{env.removeprefix('tom/')}, H={'-' if h is None else h}"


def plane_panel(
    title: str,
    xlabel: str,
    points: list[dict[str, Any]],
    refs: Sequence[dict[str, Any]],
    references: Sequence[tuple[str, str]],
    skipped: Sequence[str],
) -> dict[str, Any]:
    """A panel of the plane (:func:`benchmarks.report.figures.plane`): x = literal ToM, y = success, both 0..100;
    a dashed line per reference ``(key, name)`` at its mean over ``refs`` (the panel's families), where each has it."""
    lines = [
        {"label": f"exact {name}", "y": 100.0 * sum(float(r[k]) for r in refs) / len(refs)}
        for k, name in references
        if refs and all(r.get(k) is not None for r in refs)
    ]
    return {
        "title": title,
        "xlabel": xlabel,
        "xlim": (0, 100),
        "ylabel": "functional: success (%)",
        "ylim": (0, 100),
        "points": points,
        "hlines": lines,
        "skipped": list(skipped),
    }


def plane_point(agent: str, variant: str, stats: dict[str, Any]) -> dict[str, Any]:
    """A persuader's point on the plane from its :func:`live_stats`: literal ToM across, success up, with CIs."""
    return {
        "agent": agent,
        "variant": variant,
        "x": stats["literal"][0],
        "xci": stats["literal"][1],
        "y": stats["success"][0],
        "yci": stats["success"][1],
    }
