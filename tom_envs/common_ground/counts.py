"""Counts of a Common-ToM data folder in the layout of 003's Table 2 (questions by split and answer)
and Table 5 (questions by the speakers' labels ``Bel(A), Bel(B), CG(A), CG(B)``)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Iterable, Sequence

from tom_envs.common_ground.corpus import QuestionRow

Labels = tuple[str, str, str, str]


def answer_counts(splits: dict[str, Sequence[QuestionRow]]) -> list[dict]:
    """Table 2's rows: ``{"split", "answer", "count"}`` per split (in the order given) and answer
    (No, Yes)."""
    return [
        {"split": split, "answer": answer, "count": sum(r.answer == answer for r in rows)}
        for split, rows in splits.items()
        for answer in ("No", "Yes")
    ]


def label_counts(rows: Iterable[QuestionRow]) -> list[dict]:
    """Table 5's rows: ``{"belief_A", "belief_B", "cg_A", "cg_B", "count"}`` per label combination,
    most frequent first (ties in label order)."""
    counts = Counter((r.belief_A, r.belief_B, r.cg_A, r.cg_B) for r in rows)
    ordered = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return [{"belief_A": a, "belief_B": b, "cg_A": ca, "cg_B": cb, "count": n} for (a, b, ca, cb), n in ordered]


def load_counts(
    data_dir: str | Path | None, from_corpus: bool = False, annotator: str | None = None, allow_partial: bool = False
) -> dict:
    """Both tables of a data folder's train and test splits: ``{"table2": [...], "table5": [...],
    "partial": [...]}`` (``partial``: how the data differs from the release's, one line per missing
    conversation or file that is not the release's; ``[]`` for the release, one's own data or the sample).

    Raises:
        IncompleteSplit: a split lacks a conversation's file (and not ``allow_partial``).
        ReleaseMismatch: a file under a release file's name holds other records (and not ``allow_partial``).
        DatasetError: a split's files are missing or malformed.
    """
    from tom_envs.common_ground.env import load_checked_split

    splits, partial = {}, []
    for split in ("train", "test"):
        questions, differences = load_checked_split(
            data_dir, split, from_corpus, annotator, allow_partial=allow_partial
        )
        splits[split] = [r for cid in sorted(questions) for r in questions[cid]]
        partial += differences
    return {
        "table2": answer_counts(splits),
        "table5": label_counts(r for rows in splits.values() for r in rows),
        "partial": partial,
    }


__all__ = ["answer_counts", "label_counts", "load_counts"]
