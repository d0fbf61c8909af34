"""The live persuasion rows (:func:`benchmarks.persuasion.live.live_rows`) as plain-text lines: the references per
family, issue 39's gates where the env has them (:mod:`benchmarks.persuasion.live_gates`), then per persuader and
family success (beside its exact value and the no-ToM floors, where the env has them), regret and literal ToM."""

from __future__ import annotations

from typing import Any, Callable, Sequence

from benchmarks.persuasion.live_gates import format_gates
from benchmarks.persuasion.live_versions import live_version

#: The reference columns, in order: (row key, header, width); a table shows those its rows have.
REFERENCE_COLUMNS = (
    ("random", "random", 7),
    ("open_loop", "open-loop", 9),
    ("echo", "echo", 7),
    ("memoryless", "memory-less", 11),
    ("bayes", "bayes", 7),
    ("bayes_upper", "bayes<=", 8),
    ("open_loop_upper", "ol<=", 7),
    ("oracle", "oracle", 7),
    ("value_of_memory", "memory", 7),
    ("value_of_tracking", "tracking", 9),
    ("value_of_information", "information", 11),
)


def _fmt(m: float | None, ci: float | None, digits: int = 1) -> str:
    return "n/a" if m is None else f"{m:.{digits}f} ± {ci:.{digits}f}"


def _pct(value: Any) -> str:
    return "-" if value is None else f"{100 * float(value):.1f}"


def _what(first: dict[str, Any]) -> str:
    if "bayes_upper" in first:
        return (
            "references per family: random, oracle exact; bayes = guaranteed value of the point-based Bayes "
            "persuader, bayes<= its upper bound; open-loop exact to T=6, else the beam plan's value, ol<= its "
            "upper bound"
        )
    if "value_of_memory" in first:
        return (
            "exact success % per family; value of memory = bayes - best memory-less (which acts on the last reply "
            "and the turn alone)"
        )
    return "exact success % per family"


def _persuader_columns(first: dict[str, Any]) -> list[tuple[str, int, Callable[[dict, dict], str]]]:
    """(header, width, cell of (row, family row)) for the persuader lines: success, [exact and the no-ToM floors],
    regret, literal ToM per target [with its majority floor]."""
    version = live_version(str(first.get("env_id", "tom/Persuasion-v1")))
    cols: list[tuple[str, int, Callable[[dict, dict], str]]] = [
        ("success %", 13, lambda r, fr: _fmt(fr["success"], fr["success_ci"]))
    ]
    if "exact_success" in first:
        floors = "/".join(k.replace("_", "-") for k in version.floors)
        cols += [
            ("exact %", 7, lambda r, fr: f"{fr['exact_success']:.1f}" if "exact_success" in fr else "-"),
            (f"floor % {floors}", 25, lambda r, fr: "/".join(_pct(fr.get(k)) for k in version.floors)),
        ]
    cols.append(("regret", 15, lambda r, fr: _fmt(fr["regret"], fr["regret_ci"], 3)))
    for t in version.targets:
        floor = version.literal_floors.get(t)

        def cell(r: dict, fr: dict, t: str = t, floor: str | None = floor) -> str:
            text = _fmt(fr[f"{t}_accuracy"], fr[f"{t}_accuracy_ci"])
            return text if floor is None else f"{text} [{_pct(fr.get(floor))}]"

        label = f"{t} ToM %" + (" [majority]" if floor else "")
        cols.append((label, max(13, len(label)), cell))
    return cols


def format_live_table(live: Sequence[dict[str, Any]]) -> list[str]:
    """The live rows as plain-text lines: the exact references per family, the gates (v3), then per persuader and
    family success, regret and literal ToM per state."""
    first = live[0]
    out = [
        f"live persuasion {first.get('env_id', 'tom/Persuasion-v1')}: horizon {first['horizon']}, "
        f"{first['episodes']} episodes per persuader and family; {_what(first)} (value of tracking = bayes - open-loop, "
        "of information = oracle - bayes)"
    ]
    refs = [(key, label, width) for key, label, width in REFERENCE_COLUMNS if key in first]
    head = f"{'family':<10}" + "".join(f" {label:>{width}}" for _, label, width in refs)
    out += [head, "-" * len(head)]
    for f, r in [*first["by_family"].items(), ("mean", first)]:
        out.append(f"{f:<10}" + "".join(f" {100 * r[key]:>{width}.1f}" for key, _, width in refs))
    if "gates" in first:
        out += ["", "issue 39's gates: exact differences of success in points, per family; pass = in every family"]
        out += format_gates(first["gates"])
    cols = _persuader_columns(first)
    head = f"{'persuader':<11} {'family':<10}" + "".join(f" {h:>{w}}" for h, w, _ in cols)
    out += ["", head, "-" * len(head)]
    for r in live:
        for f, fr in [*r["by_family"].items(), ("all", r)]:
            out.append(f"{r['policy']:<11} {f:<10}" + "".join(f" {cell(r, fr):>{w}}" for _, w, cell in cols))
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
