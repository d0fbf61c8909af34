"""Scores of the PersuasiveToM QA env: 001's Table 5 (accuracy) and Table 6 (consistency).

Both take the answers of several repetitions (full passes over the dialogues, e.g. with different
choice orders or sampling seeds) and report the mean over repetitions with a 95 % confidence
interval (Student's t over the repetitions' values; half-width 0 for a single repetition) and the
sample standard deviation over repetitions (``accuracy_sd``, n - 1 in the denominator; 0 for one
repetition). 001 reports "mean ± x over three repetitions" without naming x; we print the standard
deviation as its ±. :func:`stage_table` is 001's Figure 3 layout: accuracy and the share of the
errors by dialogue stage (early / middle / late thirds of a dialogue's question turns).
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Sequence

from tom_envs.persuasion import QTYPES
from tom_envs.stats import mean_ci95

#: 001's Table 6 scores whole-dialogue consistency on the persuadee's mental states.
CONSISTENCY_QTYPES: tuple[str, ...] = ("desire_ee", "belief_ee", "intent_ee")


@dataclass(frozen=True)
class Answer:
    """One answered question.

    Attributes:
        qtype: published file name of the question's type.
        dialogue: the dialogue id.
        correct: whether the answer was right.
        n_choices: number of options shown (for the chance level).
        turn: the question's turn (``<turn>`` of its ``dialogue_id``), for :func:`stage_table`.
    """

    qtype: str
    dialogue: str
    correct: bool
    n_choices: int
    turn: int | None = None


#: 001's Figure 3 splits a dialogue into stages; we use thirds of its question turns.
STAGES: tuple[str, ...] = ("early", "middle", "late")


def sample_sd(values: Sequence[float]) -> float | None:
    """Sample standard deviation (n - 1, :func:`statistics.stdev`: exact 0.0 for equal values, where
    summing float deviations left 4e-15); 0.0 for one value, None for none."""
    if not values:
        return None
    return statistics.stdev(values) if len(values) > 1 else 0.0


def accuracy_table(repetitions: Sequence[Iterable[Answer]], qtypes: Sequence[str] = QTYPES) -> list[dict[str, Any]]:
    """One row per question type (Table 5's columns, in order) that has answers.

    Row keys: ``qtype``, ``n`` (questions per repetition), ``repetitions``, ``accuracy`` (percent,
    mean over repetitions), ``accuracy_ci`` (95 % half-width), ``accuracy_sd`` (sample standard
    deviation over repetitions), ``chance`` (percent expected from uniform guessing, the mean of
    100 / number of options: 001's Random Guess row as an expectation).
    """
    reps = [list(r) for r in repetitions]
    rows = []
    for qtype, per_rep in _by_type(reps, qtypes):
        values = [100.0 * sum(a.correct for a in answers) / len(answers) for answers in per_rep]
        acc, ci = mean_ci95(values)
        first = per_rep[0]
        rows.append(
            {
                "qtype": qtype,
                "n": len(first),
                "repetitions": len(per_rep),
                "accuracy": acc,
                "accuracy_ci": ci,
                "accuracy_sd": sample_sd(values),
                "chance": 100.0 * sum(1.0 / a.n_choices for a in first) / len(first),
            }
        )
    return rows


def _by_type(reps: Sequence[list[Answer]], qtypes: Sequence[str]) -> Iterator[tuple[str, list[list[Answer]]]]:
    """Per question type with answers: the type and its answers in each repetition that has any."""
    for qtype in qtypes:
        per_rep = [answers for answers in ([a for a in rep if a.qtype == qtype] for rep in reps) if answers]
        if per_rep:
            yield qtype, per_rep


def stage_of(turn: int, turns: Sequence[int]) -> str:
    """The stage of ``turn`` among a dialogue's question ``turns`` (sorted): its rank r of k falls in
    the early, middle or late third (``floor(3 r / k)``)."""
    rank = sorted(turns).index(turn)
    return STAGES[min(2, 3 * rank // len(turns))]


def stage_table(repetitions: Sequence[Iterable[Answer]], qtypes: Sequence[str] = QTYPES) -> list[dict[str, Any]]:
    """001's Figure 3 layout: per type and stage, the questions, accuracy and share of the errors.

    A question's stage comes from its stored ``turn`` and the turns its dialogue has questions of
    that type at (:func:`stage_of`). Row keys: ``qtype``, ``stage``, ``n`` (questions per
    repetition), ``accuracy`` (percent, mean over repetitions), ``error_share`` (percent of the
    type's wrong answers that fall in this stage, over all repetitions).
    """
    reps = [list(r) for r in repetitions]
    if any(a.turn is None for rep in reps for a in rep):
        raise ValueError("stage_table needs the turn of every answer (Answer.turn)")
    rows = []
    for qtype, mine in _by_type(reps, qtypes):
        turns: dict[str, set[int]] = defaultdict(set)
        for a in mine[0]:
            turns[a.dialogue].add(int(a.turn))  # type: ignore[arg-type]
        ordered = {d: sorted(t) for d, t in turns.items()}
        errors = sum(not a.correct for answers in mine for a in answers)
        for stage in STAGES:
            per_rep = [
                [a for a in answers if stage_of(int(a.turn), ordered[a.dialogue]) == stage]  # type: ignore[arg-type]
                for answers in mine
            ]
            if not per_rep[0]:
                continue
            wrong = sum(not a.correct for answers in per_rep for a in answers)
            rows.append(
                {
                    "qtype": qtype,
                    "stage": stage,
                    "n": len(per_rep[0]),
                    "accuracy": sum(100.0 * sum(a.correct for a in answers) / len(answers) for answers in per_rep)
                    / len(per_rep),
                    "error_share": 100.0 * wrong / errors if errors else None,
                }
            )
    return rows


def dialogue_consistency(answers: Iterable[Answer], qtype: str) -> float | None:
    """Percent of dialogues in which every question of ``qtype`` was answered correctly.

    Dialogues without a question of that type do not count; None if no dialogue has one.
    """
    by_dialogue: dict[str, bool] = {}
    for a in answers:
        if a.qtype == qtype:
            by_dialogue[a.dialogue] = by_dialogue.get(a.dialogue, True) and a.correct
    if not by_dialogue:
        return None
    return 100.0 * sum(by_dialogue.values()) / len(by_dialogue)


def consistency_table(
    repetitions: Sequence[Iterable[Answer]], qtypes: Sequence[str] = CONSISTENCY_QTYPES
) -> list[dict[str, Any]]:
    """001's Table 6: whole-dialogue consistency per type, mean and 95 % CI over repetitions.

    Row keys: ``qtype``, ``dialogues``, ``repetitions``, ``consistency`` (percent),
    ``consistency_ci`` (95 % half-width), ``consistency_sd`` (sample standard deviation).
    """
    reps = [list(r) for r in repetitions]
    rows = []
    for qtype in qtypes:
        values = [v for v in (dialogue_consistency(rep, qtype) for rep in reps) if v is not None]
        if not values:
            continue
        mean, ci = mean_ci95(values)
        n_dialogues = len({a.dialogue for a in reps[0] if a.qtype == qtype})
        rows.append(
            {
                "qtype": qtype,
                "dialogues": n_dialogues,
                "repetitions": len(values),
                "consistency": mean,
                "consistency_ci": ci,
                "consistency_sd": sample_sd(values),
            }
        )
    return rows
