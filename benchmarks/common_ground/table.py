"""The text table of ``tom-envs common-ground``: 003's Table 3 layout (accuracy by order of belief, F1, n),
the published rows and their settings beside the measured ones, the LLM runs' counters and, on request, accuracy
per combination of the speakers' gold labels (Table 5's keys)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from benchmarks.common_ground import llm as common_ground_llm
from benchmarks.common_ground.published import PUBLISHED, PUBLISHED_SETTINGS


def pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f}"


def format_table(result: dict[str, Any] | Sequence[dict[str, Any]], by_label: bool = False) -> str:
    """003's Table 3 layout: this run's policies first (with macro and per-answer F1), then the published
    rows for reference; ``by_label`` adds each policy's accuracy per gold label combination."""
    results = [result] if isinstance(result, dict) else list(result)
    head = (
        f"{'model':<36} {'Total':>6} {'First':>6} {'Second':>6} {'Third':>6} {'n':>6} {'F1 mac':>6} "
        f"{'F1 Yes':>6} {'F1 No':>6}"
    )
    lines = [head, "-" * len(head)]
    for res in results:
        rows = {r["order"]: r for r in res["rows"]}
        label = res["rows"][0]["policy"] + (" [partial]" if res["rows"][0].get("partial") else "")
        lines.append(
            f"{label:<36} "
            + " ".join(f"{pct(rows[o]['accuracy']):>6}" for o in ("all", 1, 2, 3))
            + f" {rows['all']['n']:>6} "
            + " ".join(f"{pct(rows['all'].get(k)):>6}" for k in ("f1_macro", "f1_yes", "f1_no"))
        )
    lines += [f"{'003: ' + name:<36} " + " ".join(f"{v:>6.1f}" for v in vals) for name, vals in PUBLISHED.items()]
    lines += [f"  003 {name}: {how}" for name, how in PUBLISHED_SETTINGS.items()]
    lines.append(
        "F1 (all orders, percent) as the release's src/core/evaluate.py computes it: per answer label, and "
        "macro = their mean (003 publishes accuracy only)"
    )
    totals = [res["rows"][0] for res in results]  # each result's row over all orders
    lines += [
        f"  {t['policy']}: precision Yes {pct(t['precision_yes'])} / No {pct(t['precision_no'])}, recall Yes "
        f"{pct(t['recall_yes'])} / No {pct(t['recall_no'])}"
        for t in totals
        if t.get("precision_yes") is not None
    ]
    modes = sorted({res["rows"][0].get("context", "?") for res in results})
    lines.append(f"context: {', '.join(modes)} (003's rows: window, 5 sentences either side of the marked one)")
    if any(res["rows"][0].get("partial") for res in results):
        lines.append(
            "[partial]: scored on data that is not the whole release (--allow-partial: a conversation "
            "missing or a file that is not the release's; the note on stderr says which)"
        )
    lines += [
        f"{t['policy']}: expected accuracy {100 * t['expected_accuracy']:.1f} % (yes-rate "
        f"{res['hyperparameters']['p_yes']:.3f}; the seeded draw above is one sample)"
        for res, t in zip(results, totals)
        if t.get("expected_accuracy") is not None
    ]
    for res in results:
        r12, r13 = res["r_first_second"], res["r_first_third"]
        who = f"{res['rows'][0]['policy']}: " if len(results) > 1 else ""
        lines.append(
            f"{who}consistency (all questions of a proposition right): {pct(res['consistency'])} % of "
            f"{res['propositions']} propositions; r(1st, 2nd) = {'n/a' if r12 is None else f'{r12:.2f}'}, "
            f"r(1st, 3rd) = {'n/a' if r13 is None else f'{r13:.2f}'}"
        )
        total = res["rows"][0]
        if "fallbacks" in total:
            how = f"{total['model']}, our prompt, {total['qa_mode']}{', scored' if total['scoring'] else ''}"
            lines.append(
                f"{total['policy']} ({how}): {total['fallbacks']} random fallbacks and "
                f"{total['resamples']} re-asks over {total['n']} answers"
            )
        if total["policy"] == common_ground_llm.RELEASE_POLICY:
            lines.append(
                f"{total['policy']} ({total['model']}): the release's prompt file (sha256 "
                f"{total['prompt_sha256']}), temperature {total['temperature']}, one reply per question "
                f"read as Yes/No after removing periods; {total['unparsed']} of {total['n']} replies were "
                "neither (counted wrong)"
            )
            if total.get("request"):
                lines.append(
                    f"{total['policy']} request: {total['request']}; set on the command line: "
                    f"{', '.join(total['set_by_user']) or 'none'}; sent beyond the authors' requests "
                    f"(temperature only): {', '.join(total['beyond_authors']) or 'none'}"
                )
        if total["policy"] == common_ground_llm.BELIEFS_POLICY:
            h = res["hyperparameters"]
            lines.append(
                f"{total['policy']} ({total['model']}): predicted beliefs -> Appendix B common ground "
                f"rules -> answer rules; temperature {total['temperature']}; {h.get('fallbacks', 0)} "
                f"random fallbacks over {h.get('decisions', 0)} belief predictions"
            )
    if by_label:
        lines += ["", "Accuracy by the speakers' gold labels (003's Table 5 keys; scorer's view, after the fact)"]
        for res in results:
            lines.append(f"{res['rows'][0]['policy']}:")
            lines.append(f"  {'Bel(A)':<6} {'Bel(B)':<6} {'CG(A)':<6} {'CG(B)':<6} {'n':>5} {'acc %':>6}")
            lines += [
                f"  {r['belief_A']:<6} {r['belief_B']:<6} {r['cg_A']:<6} {r['cg_B']:<6} {r['n']:>5} "
                f"{pct(r['accuracy']):>6}"
                for r in res["rows"][0].get("by_labels", [])
            ]
    return "\n".join(lines)


__all__ = ["format_table", "pct"]
