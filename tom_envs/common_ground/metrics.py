"""Scores for Common-ToM answers: 003's Table 3 layout and its consistency analyses.

A *record* is one answered question: a mapping with ``cid``, ``sno``, ``eno`` (together: the
proposition, one event at one time point), ``order`` (1-3) and ``correct`` (bool) -- exactly the
keys ``tom/CommonToM-v2`` puts in a step's ``info``.
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Mapping, Sequence

Record = Mapping[str, Any]
ORDERS = (1, 2, 3)


def _ci95(hits: Sequence[bool]) -> float | None:
    """Half-width (percentage points) of the normal-approximation 95 % interval of a proportion."""
    n = len(hits)
    if n == 0:
        return None
    p = sum(hits) / n
    return 100.0 * 1.96 * math.sqrt(p * (1.0 - p) / n)


def accuracy_rows(records: Iterable[Record]) -> list[dict[str, Any]]:
    """Rows ``{"order": "all"|1|2|3, "n", "accuracy" (percent or None), "ci95"}``: Table 3's columns."""
    recs = list(records)
    rows = []
    for order in ("all", *ORDERS):
        hits = [bool(r["correct"]) for r in recs if order == "all" or r["order"] == order]
        acc = 100.0 * sum(hits) / len(hits) if hits else None
        rows.append({"order": order, "n": len(hits), "accuracy": acc, "ci95": _ci95(hits)})
    return rows


def _by_proposition(records: Iterable[Record]) -> dict[tuple, list[Record]]:
    groups: dict[tuple, list[Record]] = {}
    for r in records:
        groups.setdefault((r["cid"], r["sno"], r["eno"]), []).append(r)
    return groups


def consistency(records: Iterable[Record]) -> float | None:
    """Percent of propositions whose questions were all answered correctly (None for no records)."""
    groups = _by_proposition(records)
    if not groups:
        return None
    return 100.0 * sum(all(r["correct"] for r in g) for g in groups.values()) / len(groups)


def pearson(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Pearson's r; None with fewer than two pairs or when either side is constant."""
    n = len(xs)
    if n < 2 or n != len(ys):
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return None
    return sxy / math.sqrt(sxx * syy)


def order_correlation(records: Iterable[Record], other: int) -> float | None:
    """Pearson's r, over propositions asked in both orders, of first-order accuracy with order ``other``."""
    xs, ys = [], []
    for group in _by_proposition(records).values():
        first = [r["correct"] for r in group if r["order"] == 1]
        higher = [r["correct"] for r in group if r["order"] == other]
        if first and higher:
            xs.append(sum(first) / len(first))
            ys.append(sum(higher) / len(higher))
    return pearson(xs, ys)


def summarise(records: Iterable[Record]) -> dict[str, Any]:
    """Table 3 rows plus ``consistency``, ``r_first_second``, ``r_first_third`` and ``propositions``."""
    recs = list(records)
    return {"rows": accuracy_rows(recs), "consistency": consistency(recs), "r_first_second": order_correlation(recs, 2),
            "r_first_third": order_correlation(recs, 3), "propositions": len(_by_proposition(recs))}
