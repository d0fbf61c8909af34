"""The plain-text tables of ``tom-envs persuasion``: the QA rows in 001's layout, then the live rows.

:func:`format_table` prints the QA rows as Table 5/6 (with the protocol, the llm's counters, prompts and
request, the release's file status and quirks, and Figure 3's layout with ``--by-stage``) followed by
001's published rows (:func:`reference_lines`), then the live rows
(:func:`benchmarks.persuasion.live.format_live_table`).
"""

from __future__ import annotations

from typing import Any, Sequence

from benchmarks.persuasion.live import format_live_table
from benchmarks.persuasion.published import PUBLISHED, PUBLISHED_CONSISTENCY, PUBLISHED_FIGURE3, PUBLISHED_SPREAD
from benchmarks.persuasion.qa_prompts import PROMPT_NOTES, PROTOCOL_NOTES
from tom_envs.persuasion import QTYPES
from tom_envs.persuasion.data import RELEASE_QUIRKS, RELEASE_UNVERIFIED, RELEASE_VERIFIED


def _consistency(row: dict[str, Any]) -> str:
    if "consistency" not in row:
        return ""
    return _fmt(row["consistency"], row.get("consistency_sd", row.get("consistency_ci")))


def _qa_table(qa: Sequence[dict[str, Any]], by_stage: bool) -> list[str]:
    width = max(8, *(len(r["policy"]) for r in qa))
    head = (
        f"{'policy':<{width}} {'protocol':<8} {'qtype':<12} {'n':>5} {'accuracy % ± sd':>16} {'chance %':>9} "
        f"{'consistency %':>16}"
    )
    out = [head, "-" * len(head)]
    star = {True: "*", False: ""}
    out += [
        f"{r['policy']:<{width}} {r.get('protocol', 'ours'):<8} "
        f"{r['qtype'] + star[r.get('release_file') == 'unverified']:<12} "
        f"{r['n']:>5} {_fmt(r['accuracy'], r.get('accuracy_sd', r['accuracy_ci'])):>16} {r['chance']:>9.2f} "
        f"{_consistency(r):>16}{' [partial]' if r.get('partial') else ''}"
        for r in qa
    ]
    reps = sorted({r["repetitions"] for r in qa})
    out.append(
        f"± is the sample standard deviation over {'/'.join(map(str, reps))} repetition(s) (001 does not name "
        "its statistic; the 95 % CI half-widths are accuracy_ci and consistency_ci in --format json). chance: "
        "001's Random Guess as an expectation (mean of 1 / options)."
    )
    for protocol in dict.fromkeys(r.get("protocol", "ours") for r in qa):
        out.append(f"protocol {protocol}: {PROTOCOL_NOTES[protocol]}")
    llm = [r for r in qa if "fallbacks" in r]
    for name in dict.fromkeys(r["policy"] for r in llm):
        mine = [r for r in llm if r["policy"] == name]
        first = mine[0]
        rules: dict[str, int] = {}
        for r in mine:
            for rule, count in r.get("parse_rules", {}).items():
                rules[rule] = rules.get(rule, 0) + count
        out.append(
            f"{name} ({first['model']}, {first['qa_mode']}{', scored' if first['scoring'] else ''}, protocol "
            f"{first.get('protocol', 'ours')}): {sum(r['fallbacks'] for r in mine)} random fallbacks and "
            f"{sum(r['resamples'] for r in mine)} re-asks over {sum(r['n'] * r['repetitions'] for r in mine)} "
            f"answers; answers read by rule: {', '.join(f'{k} {v}' for k, v in sorted(rules.items()))}"
        )
        if first.get("protocol") == "authors":
            if first.get("request"):
                out.append(
                    f"{name} request: {first['request']}; set on the command line: "
                    f"{', '.join(first['set_by_user']) or 'none'}; beyond the release's requests: "
                    f"{', '.join(first['beyond_authors']) or 'none'}"
                )
            source = first.get("prompt_source") or "ours"
            out.append(f"{name} prompts: {source} -- " + PROMPT_NOTES[source].format(path=first.get("prompt_file")))
    present = list(dict.fromkeys(r["qtype"] for r in qa))
    absent = [q for q in QTYPES if q not in present]
    unverified = [q for q in present if q in RELEASE_UNVERIFIED]
    out.append(
        f"Table 5 columns filled: {', '.join(present)}"
        + (f"; not in this data: {', '.join(absent)}" if absent else "")
        + (
            f". * {', '.join(unverified)}: the release lists these files but they were not verified here "
            "(format assumed; see docs/persuasion_qa.md)"
            if unverified
            else ""
        )
        + f". The release's verified files: {', '.join(RELEASE_VERIFIED)}."
    )
    if any(r.get("partial") for r in qa):
        out.append(
            "[partial]: the type's file carries the release's name but not its content (another record count "
            "or sha256; --allow-partial): not the release's figure (the note on stderr says how it differs)"
        )
    for q in present:
        if RELEASE_QUIRKS.get(q):
            out.append(f"quirk of the release, {q}: {RELEASE_QUIRKS[q]}")
    out += reference_lines(present, width)
    if by_stage:
        out += ["", f"{'policy':<{width}} {'qtype':<12} {'stage':<7} {'n':>6} {'accuracy %':>10} {'errors %':>9}"]
        out += [
            f"{r['policy']:<{width}} {r['qtype']:<12} {s['stage']:<7} {s['n']:>6} {s['accuracy']:>10.2f} "
            f"{'n/a' if s['error_share'] is None else format(s['error_share'], '.2f'):>9}"
            for r in qa
            for s in r.get("stages", [])
        ]
        out.append(
            "001 Figure 3 layout: stage = early / middle / late third of the dialogue's question turns (from "
            "the stored turn); errors % = share of the type's wrong answers in that stage."
        )
        out += [
            f"001 Figure 3, {q} (the figure prints no values; the paper's text says): {PUBLISHED_FIGURE3[q]}"
            for q in present
            if q in PUBLISHED_FIGURE3
        ]
    return out


def reference_lines(present: Sequence[str], width: int = 8) -> list[str]:
    """001's Table 5 (every row, accuracy ± as printed) and Table 6 (every row) for the question types
    ``present``, in the paper's row order."""
    w = max(width, *(len(name) for name in PUBLISHED))
    out = [
        "",
        f"001 Table 5 (published accuracy %, ± as printed; the authors' protocol)",
        f"{'row':<{w}}  " + " ".join(f"{q:<14}" for q in present),
    ]
    for who, ref in PUBLISHED.items():
        spread = PUBLISHED_SPREAD.get(who)
        out.append(
            f"{who:<{w}} "
            + " ".join(f"{ref[q]:>6.2f}" + (f" ± {spread[q]:>5.2f}" if spread else " " * 8) for q in present)
        )
    cons = [q for q in present if any(q in v for v in PUBLISHED_CONSISTENCY.values())]
    if cons:
        out += [f"001 Table 6 (published consistency %)", f"{'row':<{w}} " + " ".join(f"{q:>14}" for q in cons)]
        out += [
            f"{who:<{w}} " + " ".join(f"{ref[q]:>14.2f}" for q in cons) for who, ref in PUBLISHED_CONSISTENCY.items()
        ]
    return out


def _fmt(m: float | None, ci: float | None, digits: int = 2) -> str:
    return "n/a" if m is None else f"{m:.{digits}f} ± {ci:.{digits}f}"


def format_table(rows: Sequence[dict[str, Any]], by_stage: bool = False) -> str:
    """Plain-text tables: QA rows (Table 5/6 layout; Figure 3's with ``by_stage``) then live rows."""
    out = []
    qa = [r for r in rows if r["env"] == "qa"]
    if qa:
        out += _qa_table(qa, by_stage)
    live = [r for r in rows if r["env"] == "live"]
    if live:
        out += ([""] if out else []) + format_live_table(live)
    return "\n".join(out)
