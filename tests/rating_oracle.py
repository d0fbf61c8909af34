"""An independent reference for crossplay's ratings (benchmarks/crossplay_stats.py, "rating periods"), written
from OpenSkill's own update: the crossplay tests compare ``rate()`` with it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any


def period_ratings(
    records: Sequence[dict[str, Any]], ranks_of: Callable[[dict[str, Any]], list[float]]
) -> dict[str, tuple[float, float]]:
    """``agent -> (mu, sigma)``: one rating period per seed, every match of a seed rated by OpenSkill's
    Plackett-Luce from the ratings at the seed's start (ranks from ``ranks_of(record)``; self-play skipped), an
    agent's mu deltas summed and its sigma^2 factors multiplied, tau^2 added once per period."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    expected: dict[str, tuple[float, float]] = {}
    for r in records:
        for side in ("row", "col"):
            expected.setdefault(r["cell"][side]["name"], (model.mu, model.sigma))
    for seed in sorted({r["seed"] for r in records}):
        deltas: dict[str, float] = {}
        factors: dict[str, float] = {}
        for r in (r for r in records if r["seed"] == seed):
            row, col = r["cell"]["row"]["name"], r["cell"]["col"]["name"]
            if row == col:
                continue
            teams = [[model.rating(mu=expected[n][0], sigma=expected[n][1])] for n in (row, col)]
            (new_row,), (new_col,) = model.rate(teams, ranks=ranks_of(r))
            for name, new in ((row, new_row), (col, new_col)):
                mu, sigma = expected[name]
                deltas[name] = deltas.get(name, 0.0) + new.mu - mu
                factors[name] = factors.get(name, 1.0) * new.sigma**2 / (sigma**2 + model.tau**2)
        for name in deltas:
            mu, sigma = expected[name]
            expected[name] = (mu + deltas[name], ((sigma**2 + model.tau**2) * factors[name]) ** 0.5)
    return expected
