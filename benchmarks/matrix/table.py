"""The matrix command's output: 004's Table 4 layout (:func:`format_table`), the issue targets
against 004's published Tabular rows (:func:`meets_target`, :func:`tom_regret_close`) and the
per-round figures (:func:`plot`). The other layouts (Tables 2, 3, 10) are in :mod:`benchmarks.matrix.llm`."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Sequence

from benchmarks.matrix.llm import FALLBACK_NOTE, fallbacks_cell, format_ci, retry_note
from benchmarks.matrix.published import PUBLISHED_TABULAR
from tom_envs.matrix.games import DEFAULT_TOM_RESPONSE, TOM_RESPONSES

__all__ = ["ESTIMATORS", "format_table", "meets_target", "plot", "tom_regret_close"]


#: How a row's means were taken (a row's ``estimator``; rows without one are pooled).
ESTIMATORS = {
    "pooled": "mean over all episodes (partners as often as the seeds drew them)",
    "partner_mean": "mean over each partner's episodes, weighted by the partner's probability in the population "
    "(004: 'the mean estimate across opponent policies'; the JSON rows' partner_mean)",
}


def format_table(rows: Sequence[dict], published: bool = False) -> str:
    """004's Table 4 layout; with ``published``, 004's Tabular values and the target checks beside.

    The ΔToM/T column is each row's ``tom_regret_per_step``; the line under the table names its
    response (the rows' ``tom_response``)."""
    llm = any(r.get("strategy") for r in rows)  # LLM rows: model, labels, re-asks and fallbacks too
    width = max([8, *(len(r["policy"]) for r in rows)])  # long policy names keep the columns aligned
    extra_w = (
        [
            max([5, *(len(str(r.get("model") or "N/A")) for r in rows)]),
            max([6, *(len(str(r.get("label_set") or "N/A")) for r in rows)]),
        ]
        if llm
        else []
    )
    head = f"{'policy':<{width}} {'game':<4} {'partners':<14} {'ΔFunctional/T':>16} {'ΔToM/T':>16} {'ToM %':>13}"
    if llm:
        head = (
            f"{'model':<{extra_w[0]}} {'labels':<{extra_w[1]}} "
            + head
            + f" {'episodes':>8} {'re-asks':>8} {'fallbacks':>10}"
        )
    if published:
        head += f"  {'004 ΔF/T':>8} {'004 ΔToM':>8} {'004 ToM%':>8}  target  ΔToM±0.03"
    lines = [head, "-" * len(head)]
    for r in rows:
        line = (
            f"{r['policy']:<{width}} {r['game']:<4} {r['partners']:<14} "
            f"{format_ci(r['regret_per_step'], r['regret_per_step_ci'], 3):>16} "
            f"{format_ci(r['tom_regret_per_step'], r['tom_regret_per_step_ci'], 3):>16} "
            f"{format_ci(r['tom_accuracy'], r['tom_accuracy_ci'], 1):>13}"
        )
        if llm:
            flagged = fallbacks_cell(r.get("fallbacks", 0))
            line = (
                f"{str(r.get('model') or 'N/A'):<{extra_w[0]}} {str(r.get('label_set') or 'N/A'):<{extra_w[1]}} "
                + line
                + f" {r['episodes']:>8} {r.get('reasks', 0):>8} {flagged:>10}"
            )
        pub = PUBLISHED_TABULAR.get((r["game"], r["partners"]))
        if published and pub is not None:
            line += (
                f"  {pub[0]:>8.3f} {pub[1]:>8.3f} {pub[2]:>8.1f}  {'met' if meets_target(r) else 'MISSED':<6}  "
                f"{'met' if tom_regret_close(r) else 'MISSED'}"
            )
        lines.append(line)
    if any(r.get("fallbacks") for r in rows):
        lines.append(FALLBACK_NOTE)
    lines += retry_note(rows)
    estimators = sorted({r["estimator"] for r in rows if r.get("estimator")})
    if estimators:
        lines.append("Estimator: " + " / ".join(ESTIMATORS[e] for e in estimators) + ".")
    responses = sorted({r.get("tom_response", DEFAULT_TOM_RESPONSE) for r in rows}) or [DEFAULT_TOM_RESPONSE]
    lines.append(
        f"ΔToM/T: the {' / '.join(responses)} response (docs/architecture.md, 'Metric definitions'); "
        f"the JSON rows hold all of {', '.join(TOM_RESPONSES)}."
    )
    return "\n".join(lines)


def meets_target(row: dict) -> bool:
    """Issue target: regret/T <= 1.5 x published + 0.03 and ToM % >= published - 3."""
    reg, _, tom = PUBLISHED_TABULAR[(row["game"], row["partners"])]
    return (
        row["regret_per_step"] is not None
        and row["regret_per_step"] <= 1.5 * reg + 0.03
        and row["tom_accuracy"] is not None
        and row["tom_accuracy"] >= tom - 3
    )


def tom_regret_close(row: dict, tol: float = 0.03) -> bool:
    """Issue 17's ΔToM target: the row's ΔToM/T within ``tol`` of 004's published Tabular value."""
    published = PUBLISHED_TABULAR[(row["game"], row["partners"])][1]
    return row["tom_regret_per_step"] is not None and abs(row["tom_regret_per_step"] - published) <= tol + 1e-9


def plot(records: dict[tuple, list[dict]], out_dir: Path) -> list[Path]:
    """PNGs of regret per step and ToM accuracy over the rounds (mean over episodes), one line per
    policy, one pair of figures per (game, partners) cell (like 004's Figures 19-43)."""
    from tom_envs.errors import import_optional

    matplotlib = import_optional("matplotlib", "bench", "--plot")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    cells = sorted({(g, p) for g, p, _ in records})
    for game, pop in cells:
        for metric, ylabel, fname in (
            ("regrets", "regret per step (r*_t - r_t)", "regret"),
            ("tom_correct", "ToM accuracy (%)", "tom"),
        ):
            fig, ax = plt.subplots(figsize=(6, 3.5))
            for (g, p, pol), recs in records.items():
                if (g, p) != (game, pop):
                    continue
                series = [r["episode"][metric] for r in recs if r["episode"][metric]]
                if not series:
                    continue
                arr = np.array([[np.nan if x is None else float(x) for x in s] for s in series], dtype=float)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)  # rounds nobody predicted
                    curve = np.nanmean(arr, axis=0) * (100.0 if metric == "tom_correct" else 1.0)
                ax.plot(np.arange(1, len(curve) + 1), curve, label=pol)
            ax.set_xlabel("round")
            ax.set_ylabel(ylabel)
            ax.set_title(f"{game} vs {pop}")
            ax.legend()
            fig.tight_layout()
            path = out_dir / f"{game}_{pop}_{fname}.png"
            fig.savefig(path, dpi=100)
            plt.close(fig)
            written.append(path)
    return written
