"""Small statistics helpers shared by metrics and benchmark tables."""

from __future__ import annotations

import math
from typing import Sequence

# two-sided 95 % quantiles of Student's t for df = 1..30 (beyond: normal 1.96)
_T95 = (
    12.706,
    4.303,
    3.182,
    2.776,
    2.571,
    2.447,
    2.365,
    2.306,
    2.262,
    2.228,
    2.201,
    2.179,
    2.160,
    2.145,
    2.131,
    2.120,
    2.110,
    2.101,
    2.093,
    2.086,
    2.080,
    2.074,
    2.069,
    2.064,
    2.060,
    2.056,
    2.052,
    2.048,
    2.045,
    2.042,
)


def mean_ci95(values: Sequence[float]) -> tuple[float | None, float | None]:
    """Mean and half-width of its 95 % confidence interval (Student's t) over the values.

    Returns (None, None) for no values and (mean, 0.0) for a single value.
    """
    xs = [float(v) for v in values if v is not None]
    n = len(xs)
    if n == 0:
        return None, None
    mean = sum(xs) / n
    if n == 1:
        return mean, 0.0
    var = sum((x - mean) ** 2 for x in xs) / (n - 1)
    t = _T95[n - 2] if n - 1 <= len(_T95) else 1.96
    return mean, t * math.sqrt(var / n)
