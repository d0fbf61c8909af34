"""The live persuasion rows (:func:`benchmarks.persuasion.live.live_rows`) as plain-text lines."""

from __future__ import annotations

from typing import Any, Sequence


def _fmt(m: float | None, ci: float | None, digits: int = 1) -> str:
    return "n/a" if m is None else f"{m:.{digits}f} ± {ci:.{digits}f}"


def format_live_table(live: Sequence[dict[str, Any]]) -> list[str]:
    """The live rows as plain-text lines: the exact references per family, then per persuader and
    family success, regret and literal ToM per state."""
    first = live[0]
    bounds = "bayes_upper" in first
    what = (
        "references per family: random, oracle exact; bayes = guaranteed value of the point-based Bayes "
        "persuader, bayes<= its upper bound; open-loop exact to T=6, else the beam plan's value, ol<= its "
        "upper bound"
        if bounds
        else "exact success % per family"
    )
    out = [
        f"live persuasion {first.get('env_id', 'tom/Persuasion-v1')}: horizon {first['horizon']}, "
        f"{first['episodes']} episodes per persuader and family; {what} (value of tracking = bayes - open-loop, "
        "of information = oracle - bayes)"
    ]
    extra = f" {'bayes<=':>8} {'ol<=':>7}" if bounds else ""
    head = (
        f"{'family':<10} {'random':>7} {'open-loop':>9} {'bayes':>7}{extra} {'oracle':>7} {'tracking':>9} "
        f"{'information':>11}"
    )
    out += [head, "-" * len(head)]
    fams = first["by_family"]
    for f, r in [*fams.items(), ("mean", first)]:
        up = f" {100 * r['bayes_upper']:>8.1f} {100 * r['open_loop_upper']:>7.1f}" if bounds else ""
        out.append(
            f"{f:<10} {100 * r['random']:>7.1f} {100 * r['open_loop']:>9.1f} {100 * r['bayes']:>7.1f}{up} "
            f"{100 * r['oracle']:>7.1f} {100 * r['value_of_tracking']:>9.1f} {100 * r['value_of_information']:>11.1f}"
        )
    head = (
        f"{'persuader':<11} {'family':<10} {'success %':>13} {'regret':>15} {'desire ToM %':>13} "
        f"{'belief ToM %':>13} {'intention ToM %':>15}"
    )
    out += ["", head, "-" * len(head)]
    for r in live:
        for f, fr in [*r["by_family"].items(), ("all", r)]:
            out.append(
                f"{r['policy']:<11} {f:<10} {_fmt(fr['success'], fr['success_ci']):>13} "
                f"{_fmt(fr['regret'], fr['regret_ci'], 3):>15} "
                f"{_fmt(fr['desire_accuracy'], fr['desire_accuracy_ci']):>13} "
                f"{_fmt(fr['belief_accuracy'], fr['belief_accuracy_ci']):>13} "
                f"{_fmt(fr['intention_accuracy'], fr['intention_accuracy_ci']):>15}"
            )
    if any(r["regret_against"] == "oracle" for r in live):
        out.append(
            "regret: against the Bayes-optimal fair persuader; the oracle's against the state-knowing oracle "
            "(fair_regret in --format json is against the Bayes-optimal fair persuader for every row)"
        )
    for r in live:
        if "llm_stats" in r:
            s = r["llm_stats"]
            out.append(
                f"{r['policy']} ({r.get('model')}): {s.get('fallbacks', 0)} random fallbacks, "
                f"{s.get('parse_failures', 0)} unparsed replies over {s.get('decisions', 0)} lines"
            )
    return out
