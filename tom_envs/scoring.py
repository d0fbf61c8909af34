"""What counts as a correct literal-ToM prediction: one definition, used by the ToM scorer
(:mod:`wrappers.tom_scorer`) for every family (docs/architecture.md, "Contracts"); no env scores
predictions itself."""

from __future__ import annotations

from typing import Any

import numpy as np

#: an element of an integer prediction array that predicts nothing (a partial prediction)
NOT_PREDICTED = -1


def prediction_matches(prediction: Any, truth: Any) -> tuple[int, int]:
    """``(matching elements, elements predicted)`` of a prediction against the truth.

    Scalars count as one element. In an integer array, elements equal to :data:`NOT_PREDICTED`
    are left out (neither matching nor predicted), so a prediction may cover part of a target
    (some parties, some topics). An array of another shape than the truth matches nothing and
    counts as predicting every element of the truth.
    """
    if np.ndim(truth) == 0 and np.ndim(prediction) == 0:
        return int(prediction == truth), 1
    p, t = np.asarray(prediction), np.asarray(truth)
    if p.shape != t.shape:
        return 0, max(t.size, 1)
    predicted = p != NOT_PREDICTED if p.dtype.kind in "iu" else np.ones(p.shape, dtype=bool)
    return int(((p == t) & predicted).sum()), int(predicted.sum())
