"""The checker's probes: value → truth tables over held-out units (``tables``) and equality with the truths
the coming steps resolve (``future``), each compared with the same probe reading only the public part."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Hashable, Sequence
from itertools import combinations
from typing import Any

import numpy as np

from tom_envs.checks.play import Row
from tom_envs.checks.report import ProbeResult

Z = 3.0  # standard errors of slack for every comparison
LAGS = (0, 1, 2)  # steps between the coming step and the one whose truth the future probe checks
MAX_PAIRS = 400  # pairs of returned values tried as table keys (the most varied first)


def _majority(ys: Sequence[Hashable]) -> Hashable:
    counts = Counter(ys)
    return min(counts, key=lambda y: (-counts[y], str(y)))


def _value(x: dict[str, Hashable], path: Any) -> Hashable:
    return tuple(x.get(p) for p in path) if isinstance(path, tuple) else x.get(path)


class _Columns:
    """The rows of one probe as columns, so that every rule reads each row's value once."""

    def __init__(self, rows: list[Row], public: bool) -> None:
        self.rows, self.public = rows, public
        self.targets, self.ys, self.ns = [r.target for r in rows], [r.y for r in rows], [r.n for r in rows]
        self._cache: dict[Any, list[Hashable]] = {}

    def column(self, path: Any) -> list[Hashable]:
        if path == "":
            return [None] * len(self.rows)
        if isinstance(path, tuple):
            return list(zip(self.column(path[0]), self.column(path[1])))
        if path not in self._cache:
            self._cache[path] = [(r.public if self.public else r.x).get(path) for r in self.rows]
        return self._cache[path]


def _fit(cols: _Columns, col: list[Hashable], idx: Sequence[int], rule: str) -> tuple[dict, dict]:
    """One rule's tables on rows ``idx``: the majority truth per target element, and for a map per
    (target element, value)."""
    per_target: dict[str, list] = defaultdict(list)
    per_value: dict[tuple, list] = defaultdict(list)
    for i in idx:
        per_target[cols.targets[i]].append(cols.ys[i])
        if rule == "map":
            per_value[(cols.targets[i], col[i])].append(cols.ys[i])
    return {k: _majority(v) for k, v in per_value.items()}, {t: _majority(v) for t, v in per_target.items()}


def _hits(cols: _Columns, col: list[Hashable], idx: Sequence[int], rule: str, model: tuple[dict, dict]) -> float:
    table, default = model
    hits = 0
    for i in idx:
        t, v = cols.targets[i], col[i]
        if rule == "identity":
            guess = v if type(v) is int and 0 <= v < cols.ns[i] else default.get(t)
        elif rule == "map":
            guess = table.get((t, v), default.get(t))
        else:
            guess = default.get(t)
        hits += guess == cols.ys[i]
    return hits / len(idx) if idx else 0.0


def _halves(rows: list[Row], seed: int) -> tuple[list[int], list[int]]:
    """Indices of ``rows`` in two halves that share no unit (a seeded draw of half the units)."""
    units = sorted({r.unit for r in rows}, key=str)
    order = np.random.default_rng(seed).permutation(len(units))
    first = {units[i] for i in order[: len(units) // 2]}
    return [i for i, r in enumerate(rows) if r.unit in first], [i for i, r in enumerate(rows) if r.unit not in first]


def _split(rows: list[Row], seed: int) -> tuple[list[Row], list[Row]]:
    a, b = _halves(rows, seed)
    return [rows[i] for i in a], [rows[i] for i in b]


def _rules(cols: _Columns) -> list[tuple[Any, str]]:
    paths = sorted({p for r in cols.rows for p in (r.public if cols.public else r.x)})
    sample = cols.rows[:2000]
    card = {p: len({_value(r.public if cols.public else r.x, p) for r in sample}) for p in paths}
    varied = [p for p in paths if card[p] > 1]
    rules: list[tuple[Any, str]] = [("", "constant")] + [(p, "identity") for p in varied] + [(p, "map") for p in varied]
    shown = {p for r in sample for p in r.public} | {""}
    public = [p for p in varied if p in shown]
    for pairs in (list(combinations(public, 2)),
                  [ab for ab in combinations(varied, 2) if not (ab[0] in shown and ab[1] in shown)]):
        if len(pairs) > MAX_PAIRS:  # keep the pairs of the least varied values: a pair of unique texts memorises
            pairs = sorted(pairs, key=lambda ab: card[ab[0]] * card[ab[1]])[:MAX_PAIRS]
        rules += [(pair, "map") for pair in pairs]  # the public pairs are the public probe's own
    # rules on public values first: a rule on the rest must do strictly better to be chosen, so a tie
    # (or the same rule reached by another path) never makes reading everything look worse or better
    return sorted(rules, key=lambda r: not all(p in shown for p in (r[0] if isinstance(r[0], tuple) else (r[0],))))


def _probe(train: list[Row], test: list[Row], public: bool) -> tuple[float, Any, str]:
    """The rule best on held-out halves of ``train`` (both ways), refitted on ``train``, scored on ``test``."""
    cols = _Columns(train + test, public)
    a, b = _halves(train, seed=1)
    every, held = list(range(len(train))), list(range(len(train), len(train) + len(test)))
    best, best_score, best_col = ("", "constant"), -1.0, cols.column("")
    for path, rule in _rules(_Columns(train, public)):
        col = cols.column(path)
        score = (_hits(cols, col, b, rule, _fit(cols, col, a, rule)) + _hits(cols, col, a, rule, _fit(cols, col, b, rule))) / 2
        if score > best_score:
            best, best_score, best_col = (path, rule), score, col
    return _hits(cols, best_col, held, best[1], _fit(cols, best_col, every, best[1])), best[0], best[1]


def table_probe(rows: list[Row], target: str, z: float) -> ProbeResult:
    train, test = _split(rows, seed=0)
    if not train or not test:
        return ProbeResult("tables", target, 0.0, 0.0, 0.0, 0.0)
    score, feature, rule = _probe(train, test, public=False)
    base = _probe(train, test, public=True)[0]
    cols = _Columns(train + test, True)
    held = list(range(len(train), len(train) + len(test)))
    chance = max(_hits(cols, cols.column(""), held, "constant", _fit(cols, cols.column(""), range(len(train)), "constant")),
                 float(np.mean([1.0 / max(r.n, 1) for r in test])))
    n_eff = len({(r.unit, r.x.get("step")) for r in test})  # a decision replayed under other seeds is not new data
    margin = z * math.sqrt(max(base * (1 - base), 1 / n_eff) / n_eff)
    result = ProbeResult("tables", target, score, base, chance, margin, feature, rule, n_eff)
    if score - base > margin:
        result.leaks.append(f"a {rule} rule on {feature!r} predicts {target} on {100 * score:.1f} % of {n_eff} held-out "
                            f"decisions; reading only the public part of the observation gives {100 * base:.1f} % "
                            f"(margin {100 * margin:.1f})")
    return result


# ---------------------------------------------------------------------- the future probe
def reencoded(traces: list[list[tuple]]) -> set[str]:
    """The returned observation paths that are a function of the env's own observation (``own.*``, read
    where wrappers change it) over the run: a wrapper's re-encodings (``wrappers.VectorizeObservation``'s
    one-hot), which hold nothing the env did not show; the future probe reads the env's own elements
    instead. A path that is not (a wrapper appending a hidden truth) is probed as any returned value."""
    values: dict[str, dict[tuple, set]] = defaultdict(dict)
    for seen, *_ in (step for trace in traces for step in trace):
        own = tuple((p, v) for p, v in seen["all"].items() if p.startswith("own"))
        for path in (p for p in seen["all"] if own and p.startswith("obs")):
            values[path].setdefault(own, set()).add(seen["all"][path])
    return {path for path, by_own in values.items() if all(len(v) == 1 for v in by_own.values())}


def future_probe(traces: list[list[tuple]], target: str, z: float, copies: set[str]) -> ProbeResult:
    worst = ProbeResult("future", target, 0.0, 0.0, 0.0, 0.0)
    for lag in LAGS:
        same: dict[str, list[bool]] = defaultdict(list)
        pairs: dict[str, list[tuple]] = defaultdict(list)
        persist: list[bool] = []
        for trace in traces:
            for t in range(len(trace) - lag):
                truth = trace[t + lag][4]
                if target not in truth:
                    continue
                y = truth[target]
                if t and target in trace[t - 1][4]:
                    persist.append(trace[t - 1][4][target] == y)
                for path, v in trace[t][0]["all"].items():
                    if path.startswith(("mem.", "run.", "prev_run.", "seen.")) or path == "step" or path in copies:
                        continue  # the table probe reads those; equality with a count is chance; re-encodings: own.*
                    same[path].append(v == y and type(v) is not bool)
                    pairs[path].append((v, y))
        for path, hits in same.items():
            n = len(hits)
            fx, fy = Counter(v for v, _ in pairs[path]), Counter(y for _, y in pairs[path])
            independent = sum(fx[v] * fy.get(v, 0) for v in fx) / n / n
            base = max(independent, float(np.mean(persist)) if persist else 0.0)
            rate = float(np.mean(hits))
            margin = z * math.sqrt(max(base * (1 - base), 1 / n) / n)
            if n >= 20 and rate > base + margin:
                worst.leaks.append(f"{path} equals the {target} resolved {lag} step(s) after the coming one in "
                                   f"{100 * rate:.0f} % of {n} decisions (baseline {100 * base:.0f} %)")
            if n >= 20 and rate - base > worst.score - worst.public:
                worst.score, worst.public, worst.chance, worst.margin = rate, base, base, margin
                worst.feature, worst.rule, worst.n_test = path, f"equality, lag {lag}", n
    return worst

