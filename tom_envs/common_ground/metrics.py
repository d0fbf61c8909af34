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
    """Rows ``{"order": "all"|1|2|3, "n", "accuracy" (percent or None), "ci95"}``: Table 3's columns,
    plus :func:`f1_columns` (``f1_macro``, ``f1_micro``, per-label precision/recall/F1; None for records
    stored without their gold ``answer``)."""
    recs = list(records)
    rows = []
    for order in ("all", *ORDERS):
        hits = [bool(r["correct"]) for r in recs if order == "all" or r["order"] == order]
        acc = 100.0 * sum(hits) / len(hits) if hits else None
        mine = [r for r in recs if order == "all" or r["order"] == order]
        rows.append({"order": order, "n": len(hits), "accuracy": acc, "ci95": _ci95(hits), **f1_columns(mine)})
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
    return {
        "rows": accuracy_rows(recs),
        "consistency": consistency(recs),
        "r_first_second": order_correlation(recs, 2),
        "r_first_third": order_correlation(recs, 3),
        "propositions": len(_by_proposition(recs)),
    }


# ---------------------------------------------------------------- precision, recall and F1 (the release's way)

#: The answer labels as the release's evaluation names them (``src/core/evaluate.py`` sorts them: No < Yes).
ANSWER_LABELS = ("No", "Yes")
#: The label of a reply that was neither Yes nor No (``llm-release``'s ``unparsed``): the authors' script
#: keeps such a reply as a label of its own, which no reference has.
UNPARSED = "(unparsed)"


def gold_answer(record: Record) -> int | None:
    """A question record's right answer (1 yes, 0 no): its ``gold``, or ``answer`` in records stored before
    issue 41 (which named it so); None for a record with neither (stored before issue 29)."""
    value = record.get("gold", record.get("answer"))
    return None if value is None else int(value)


def predicted_label(record: Record) -> str | None:
    """``"Yes"``/``"No"`` (or :data:`UNPARSED`) that ``record`` answered, from its gold answer
    (:func:`gold_answer`) and ``correct``; None for a record without one (stored before issue 29)."""
    gold = gold_answer(record)
    if gold is None:
        return None
    if record.get("unparsed"):
        return UNPARSED
    return ANSWER_LABELS[gold if record["correct"] else 1 - gold]


def _ratio(num: int, den: int) -> float:
    return num / den if den else 0.0  # scikit-learn's zero_division default: 0 (with a warning)


def prf(preds: Sequence[str], refs: Sequence[str]) -> dict[str, Any]:
    """Precision, recall and F1 as the release's ``src/core/evaluate.py`` computes them (Hugging Face
    ``evaluate``'s metrics, i.e. scikit-learn's ``precision/recall/f1_score``): per label (labels:
    the sorted union of predictions and references, as its ``from_csv`` builds them), ``macro`` (the
    unweighted mean over those labels) and ``micro`` (over all decisions: equal to accuracy for one
    label per question). Values are fractions in [0, 1]; a label never predicted has precision 0.

    Returns:
        ``{"precision"|"recall"|"f1": {"macro", "micro", <label>: value, ...}, "labels": [...], "n"}``.
    """
    if len(preds) != len(refs):
        raise ValueError(f"prf: {len(preds)} predictions for {len(refs)} references")
    labels = sorted(set(preds) | set(refs))
    out: dict[str, Any] = {"precision": {}, "recall": {}, "f1": {}, "labels": labels, "n": len(refs)}
    per: dict[str, tuple[float, float, float]] = {}
    for label in labels:
        tp = sum(1 for p, r in zip(preds, refs) if p == r == label)
        predicted = sum(1 for p in preds if p == label)
        actual = sum(1 for r in refs if r == label)
        p, r = _ratio(tp, predicted), _ratio(tp, actual)
        per[label] = (p, r, _ratio(2 * p * r, p + r) if p + r else 0.0)
    hits = sum(1 for p, r in zip(preds, refs) if p == r)
    micro = _ratio(hits, len(refs))  # micro P = R = F1 = accuracy (every question has one prediction)
    for i, metric in enumerate(("precision", "recall", "f1")):
        out[metric]["macro"] = sum(v[i] for v in per.values()) / len(per) if per else 0.0
        out[metric]["micro"] = micro
        out[metric].update({label: v[i] for label, v in per.items()})
    return out


def answer_scores(records: Iterable[Record]) -> dict[str, Any] | None:
    """:func:`prf` of the records' answers against their gold answers (None when a record lacks its
    gold answer, i.e. it was stored before issue 29, or there are no records)."""
    recs = list(records)
    preds = [predicted_label(r) for r in recs]
    if not recs or any(p is None for p in preds):
        return None
    return prf(preds, [ANSWER_LABELS[gold_answer(r)] for r in recs])  # type: ignore[arg-type,index]


def f1_columns(records: Iterable[Record]) -> dict[str, float | None]:
    """The flat row columns of :func:`answer_scores` in percent: ``f1_macro``, ``f1_micro``, and per
    answer label ``precision_yes``, ``recall_yes``, ``f1_yes`` (and ``_no``); None where unknown."""
    scores = answer_scores(records)
    cols: dict[str, float | None] = {}
    for avg in ("macro", "micro"):
        cols[f"f1_{avg}"] = None if scores is None else 100.0 * scores["f1"][avg]
    for label in ANSWER_LABELS:
        for metric in ("precision", "recall", "f1"):
            value = None if scores is None else scores[metric].get(label)
            cols[f"{metric}_{label.lower()}"] = None if value is None else 100.0 * value
    return cols


def by_labels(records: Iterable[Record], labels_of: Mapping[tuple, tuple[str, str, str, str]]) -> list[dict[str, Any]]:
    """Accuracy per combination of the speakers' gold labels (003's Table 5 keys: Bel(A), Bel(B),
    CG(A), CG(B)), most questions first: rows ``{"belief_A", "belief_B", "cg_A", "cg_B", "n",
    "accuracy"}``. ``labels_of`` maps a question's key (:func:`question_key`) to its labels;
    records whose key it lacks (stored before issue 29) are left out."""
    groups: dict[tuple[str, str, str, str], list[bool]] = {}
    for r in records:
        labels = labels_of.get(question_key(r))
        if labels is not None:
            groups.setdefault(labels, []).append(bool(r["correct"]))
    rows = [
        {
            "belief_A": k[0],
            "belief_B": k[1],
            "cg_A": k[2],
            "cg_B": k[3],
            "n": len(v),
            "accuracy": 100.0 * sum(v) / len(v),
        }
        for k, v in groups.items()
    ]
    return sorted(rows, key=lambda row: (-row["n"], row["belief_A"], row["belief_B"], row["cg_A"], row["cg_B"]))


def question_key(record: Record) -> tuple:
    """What identifies one question of a conversation: ``(cid, sno, eno, chain, belief_Q)`` (each
    (sentence, event) group has one question per speaker chain and certainty)."""
    return (int(record["cid"]), int(record["sno"]), float(record["eno"]), record.get("chain"), record.get("belief_Q"))
