"""Issue 39's gates on live persuasion v3's exact references, as the live command prints them (:data:`V3_GATES`).

A gate is a difference of two exact success probabilities that must reach a threshold: the **value of memory**
(Bayes-optimal fair - best memory-less >= 10 points), Bayes - echo >= 10, Bayes - best open-loop >= 30 and
oracle - Bayes >= 5. :func:`gate_results` evaluates each in every family played (a gate passes when it holds in
each of them, as docs/persuasion_v3.md states it) and, where the command played both persuaders on the same
episodes, adds the played difference: the mean over (family, seed) of the paired success difference, with its 95 %
CI -- the sampled check of the exact figure. Every figure is in percentage points.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from tom_envs.stats import mean_ci95


@dataclass(frozen=True)
class Gate:
    """``references[high] - references[low] >= threshold`` (success probabilities; ``threshold`` a probability).

    Attributes:
        key: the gate's name in ``--format json``.
        label: how the table names it.
        high, low: reference keys (:class:`~tom_envs.persuasion.planning_v3.ReferencesV3` fields).
        threshold: the least difference that passes.
    """

    key: str
    label: str
    high: str
    low: str
    threshold: float


V3_GATES: tuple[Gate, ...] = (
    Gate("value_of_memory", "value of memory (bayes - memory-less)", "bayes", "memoryless", 0.10),
    Gate("bayes_minus_echo", "bayes - echo", "bayes", "echo", 0.10),
    Gate("bayes_minus_open_loop", "bayes - open-loop", "bayes", "open_loop", 0.30),
    Gate("oracle_minus_bayes", "oracle - bayes", "oracle", "bayes", 0.05),
)


def gate_results(
    gates: Sequence[Gate],
    refs: Mapping[str, Mapping[str, Any]],
    played: Mapping[str, Mapping[Any, Mapping[str, Any]]] | None = None,
    persuader_of: Mapping[str, str] | None = None,
) -> list[dict[str, Any]]:
    """Each gate over the families of ``refs`` (``{family: references}``), in points.

    Args:
        gates: the gates.
        refs: each family's exact references (success probabilities).
        played: persuader name -> {(family, seed): episode summary} of the episodes the command played.
        persuader_of: reference key -> the persuader that plays it (``LiveVersion.exact`` inverted).

    Returns:
        One dict per gate: ``gate``, ``label``, ``threshold_points``, ``points`` (mean over the families),
        ``min_points``, ``pass`` (it holds in every family), ``by_family`` ({family: {``points``, ``pass``}}),
        ``played_points`` and ``played_points_ci`` (None unless both persuaders played the same episodes) and
        ``played_episodes``.
    """
    out = []
    for gate in gates:
        by_family = {}
        for family, ref in refs.items():
            points = 100.0 * (float(ref[gate.high]) - float(ref[gate.low]))
            by_family[family] = {"points": points, "pass": points >= 100.0 * gate.threshold - 1e-9}
        values = [v["points"] for v in by_family.values()]
        diffs = _paired(played or {}, persuader_of or {}, gate)
        mean, ci = mean_ci95(diffs) if diffs else (None, None)
        out.append(
            {
                "gate": gate.key,
                "label": gate.label,
                "threshold_points": 100.0 * gate.threshold,
                "points": sum(values) / len(values),
                "min_points": min(values),
                "pass": all(v["pass"] for v in by_family.values()),
                "by_family": by_family,
                "played_points": mean,
                "played_points_ci": ci,
                "played_episodes": len(diffs),
            }
        )
    return out


def _paired(played: Mapping[str, Mapping[Any, Mapping[str, Any]]], persuader_of: Mapping[str, str], gate: Gate) -> list:
    """Per shared episode (family, seed), 100 * (success of the gate's high persuader - its low one's)."""
    high, low = persuader_of.get(gate.high), persuader_of.get(gate.low)
    if high not in played or low not in played:
        return []
    shared = [job for job in played[high] if job in played[low]]
    return [100.0 * (float(played[high][job]["success"]) - float(played[low][job]["success"])) for job in shared]


def format_gates(gates: Sequence[dict[str, Any]]) -> list[str]:
    """The gates as plain-text lines: per family, the least, pass/fail and the played difference."""
    families = list(gates[0]["by_family"])
    head = (
        f"{'gate (exact, points)':<38} {'need':>5} "
        + " ".join(f"{f[:9]:>9}" for f in families)
        + f" {'least':>6} {'result':>6} {'played (paired)':>17}"
    )
    out = [head, "-" * len(head)]
    for g in gates:
        played = "-" if g["played_points"] is None else f"{g['played_points']:.1f} ± {g['played_points_ci']:.1f}"
        out.append(
            f"{g['label']:<38} {'>=' + format(g['threshold_points'], '.0f'):>5} "
            + " ".join(f"{g['by_family'][f]['points']:>9.1f}" for f in families)
            + f" {g['min_points']:>6.1f} {'pass' if g['pass'] else 'FAIL':>6} {played:>17}"
        )
    return out


__all__ = ["V3_GATES", "Gate", "format_gates", "gate_results"]
