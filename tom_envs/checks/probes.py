"""The checker's probes: value → truth tables over held-out units (``tables``) and equality with the truths
the coming steps resolve (``future``), each compared with the same probe reading only the public part."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable
from itertools import combinations
from typing import Any

import numpy as np

from tom_envs.checks.features import COUNTERS
from tom_envs.checks.play import Row
from tom_envs.checks.report import ProbeResult

Z = 3.0  # standard errors of slack for every comparison
LAGS = (0, 1, 2)  # steps between the coming step and the one whose truth the future probe checks
SETTLED_MARGIN = 0.05  # a margin under which a public part within it of 100 % leaves nothing to leak
MAX_PAIRS = 400  # pairs of returned values tried as table keys (the most varied first)


class _Columns:
    """The rows of one probe as integer-coded columns (numpy), so that every rule is a few array operations.
    Rows of one decision share its view (every target element of a step reads the same dict), so a column
    is read once per view and spread over the rows."""

    def __init__(self, rows: list[Row], public: bool) -> None:
        self.rows, self.public = rows, public
        names = sorted({r.target for r in rows})
        self.t = np.array(
            [names.index(r.target) for r in rows]
            if len(names) < 2
            else [{n: i for i, n in enumerate(names)}[r.target] for r in rows],
            dtype=np.int64,
        )
        self.ylist = sorted({r.y for r in rows}, key=str)  # codes in str order: ties go to the lowest, as before
        self.ycode = {y: i for i, y in enumerate(self.ylist)}
        self.y = np.array([self.ycode[r.y] for r in rows], dtype=np.int64)
        self.nT, self.nY = len(names), max(len(self.ylist), 1)
        self.views, self.vi = self._index([r.public if public else r.x for r in rows])
        self.planted, self.pi = self._index([r.planted or {} for r in rows])
        self.suffixes = sorted({r.suffix for r in rows})
        self.si = np.array(
            [self.suffixes.index(r.suffix) for r in rows] if len(self.suffixes) > 1 else [0] * len(rows), dtype=np.int64
        )
        self.n = np.array([r.n for r in rows], dtype=np.int64)
        self._codes: dict[Any, np.ndarray] = {}
        self._tables: dict[str, list[Hashable]] = {}
        self._ident: dict[Any, np.ndarray] = {}

    @staticmethod
    def _index(dicts: list[dict]) -> tuple[list[dict], np.ndarray]:
        seen: dict[int, int] = {}
        unique: list[dict] = []
        for d in dicts:
            if id(d) not in seen:
                seen[id(d)] = len(unique)
                unique.append(d)
        return unique, np.array([seen[id(d)] for d in dicts], dtype=np.int64)

    def _per_view(self, path: str) -> tuple[list[Hashable], np.ndarray]:
        """The values at ``path`` once per view (per (suffix, view) for ``elem:``), and each row's index into
        them: ``elem:P`` is the element of ``P`` at the row's own target index (``P[0][2]`` for
        ``stances[0, 2]``: a whole target handed back is read element by element), and ``control.*`` the
        planted positive control (never public)."""
        control = path.startswith(("control", "elem:control"))
        views, vi = (self.planted, self.pi) if control else (self.views, self.vi)
        if control and self.public:
            return [None], np.zeros(len(self.rows), dtype=np.int64)
        if path.startswith("elem:"):
            values = [d.get(path[5:] + s) if s else None for s in self.suffixes for d in views]
            return values, self.si * len(views) + vi
        return [d.get(path) for d in views], vi

    def codes(self, path: Any) -> np.ndarray:
        if path not in self._codes:
            if path == "":
                self._codes[path] = np.zeros(len(self.rows), dtype=np.int64)
            elif isinstance(path, tuple):
                a, b = self.codes(path[0]), self.codes(path[1])
                self._codes[path] = np.unique(a * (int(b.max(initial=0)) + 1) + b, return_inverse=True)[1].ravel()
            else:
                values, index = self._per_view(path)
                table: dict[Hashable, int] = {}
                per_view = np.array([table.setdefault(v, len(table)) for v in values], dtype=np.int64)
                self._codes[path] = per_view[index]
                self._tables[path] = list(table)
        return self._codes[path]

    def ident(self, path: str) -> np.ndarray:
        """The truth code each row's value names when it is an option index (-1: it is none)."""
        if path not in self._ident:
            codes = self.codes(path)
            table = self._tables[path]
            named = np.array(
                [self.ycode.get(v, -2) if type(v) is int and v >= 0 else -1 for v in table], dtype=np.int64
            )
            raw = np.array([v if type(v) is int and v >= 0 else -1 for v in table], dtype=np.int64)
            self._ident[path] = np.where(raw[codes] < self.n, named[codes], -1)
        return self._ident[path]

    def card(self, path: str, sample: int) -> int:
        return int(np.unique(self.codes(path)[:sample]).size)

    def paths(self, count: int, control: bool) -> list[str]:
        """Every path a rule may read on the first ``count`` rows: returned values (the planted control only,
        with ``control``), and the ``elem:`` reading of each value that holds a row's target index."""
        views, vi = (self.planted, self.pi) if control else (self.views, self.vi)
        found: set[str] = set()
        for v in np.unique(vi[:count]).tolist():
            found.update(views[v])
        elems = {f"elem:{p[: -len(s)]}" for s in self.suffixes if s for p in found if p.endswith(s)}
        return sorted(found | elems)

    def fit(self, path: Any, idx: np.ndarray, rule: str) -> tuple[np.ndarray, np.ndarray]:
        """One rule's tables on rows ``idx``: the majority truth per target element, and for a map per
        (target element, value) (-1 where no row was seen)."""
        t, y = self.t[idx], self.y[idx]
        d = np.bincount(t * self.nY + y, minlength=self.nT * self.nY).reshape(self.nT, self.nY)
        default = np.where(d.sum(1) > 0, d.argmax(1), -1)
        if rule != "map":
            return np.empty(0, dtype=np.int64), default
        v = self.codes(path)
        nv = int(v.max(initial=0)) + 1
        cnt = np.bincount((t * nv + v[idx]) * self.nY + y, minlength=self.nT * nv * self.nY).reshape(-1, self.nY)
        return np.where(cnt.sum(1) > 0, cnt.argmax(1), -1), default

    def hits(self, path: Any, idx: np.ndarray, rule: str, model: tuple[np.ndarray, np.ndarray]) -> float:
        if not len(idx):
            return 0.0
        table, default = model
        t = self.t[idx]
        if rule == "map":
            v = self.codes(path)
            guess = table[t * (int(v.max(initial=0)) + 1) + v[idx]]
            guess = np.where(guess >= 0, guess, default[t])
        elif rule == "identity":
            guess = self.ident(path)[idx]
            guess = np.where(guess != -1, guess, default[t])
        else:
            guess = default[t]
        return float(np.mean(guess == self.y[idx]))


def _halves(rows: list[Row], seed: int) -> tuple[list[int], list[int]]:
    """Indices of ``rows`` in two halves that share no unit (a seeded draw of half the units)."""
    units = sorted({r.unit for r in rows}, key=str)
    order = np.random.default_rng(seed).permutation(len(units))
    first = {units[i] for i in order[: len(units) // 2]}
    return [i for i, r in enumerate(rows) if r.unit in first], [i for i, r in enumerate(rows) if r.unit not in first]


def _split(rows: list[Row], seed: int) -> tuple[list[Row], list[Row]]:
    a, b = _halves(rows, seed)
    return [rows[i] for i in a], [rows[i] for i in b]


def _rules(cols: _Columns, count: int, control: bool = False) -> list[tuple[Any, str]]:
    sample = min(count, 2000)
    paths = cols.paths(count, control)
    card = {p: cols.card(p, sample) for p in paths}
    varied = [p for p in paths if card[p] > 1]
    rules: list[tuple[Any, str]] = [("", "constant")] + [(p, "identity") for p in varied] + [(p, "map") for p in varied]
    if control:
        return rules
    shown = _public_paths(cols, sample) | {""}
    shown |= {p for p in varied if p.startswith("elem:") and p[5:] in shown}
    public = [p for p in varied if p in shown]
    for pairs in (
        list(combinations(public, 2)),
        [ab for ab in combinations(varied, 2) if not (ab[0] in shown and ab[1] in shown)],
    ):
        if len(pairs) > MAX_PAIRS:  # keep the pairs of the least varied values: a pair of unique texts memorises
            pairs = sorted(pairs, key=lambda ab: card[ab[0]] * card[ab[1]])[:MAX_PAIRS]
        rules += [(pair, "map") for pair in pairs]  # the public pairs are the public probe's own
    # rules on public values first: a rule on the rest must do strictly better to be chosen, so a tie
    # (or the same rule reached by another path) never makes reading everything look worse or better
    return sorted(rules, key=lambda r: not all(p in shown for p in (r[0] if isinstance(r[0], tuple) else (r[0],))))


def _public_paths(cols: _Columns, sample: int) -> set[str]:
    """The public paths of the first ``sample`` rows (what the public probe reads)."""
    found: set[str] = set()
    for i in np.unique(cols.vi[:sample], return_index=True)[1].tolist():
        found.update(cols.rows[i].public)
    return found


def _probe(train: list[Row], test: list[Row], public: bool, control: bool = False) -> tuple[float, Any, str]:
    """The rule best on held-out halves of ``train`` (both ways), refitted on ``train``, scored on ``test``
    (with ``control``: among the rules reading the planted control only)."""
    cols = _Columns(train + test, public)
    a, b = (np.array(h, dtype=np.int64) for h in _halves(train, seed=1))
    every, held = np.arange(len(train)), np.arange(len(train), len(train) + len(test))
    best, best_score = ("", "constant"), -1.0
    for path, rule in _rules(cols, len(train), control):
        score = (
            cols.hits(path, b, rule, cols.fit(path, a, rule)) + cols.hits(path, a, rule, cols.fit(path, b, rule))
        ) / 2
        if score > best_score:
            best, best_score = (path, rule), score
    return cols.hits(best[0], held, best[1], cols.fit(best[0], every, best[1])), best[0], best[1]


def table_probe(rows: list[Row], target: str, z: float, control: bool = True) -> list[ProbeResult]:
    """The ``tables`` probe of ``target`` and, with ``control``, its positive control (``control``: the
    same probe reading the planted truth must beat the public part by the margin, else "no power")."""
    train, test = _split(rows, seed=0)
    if not train or not test:
        empty = ProbeResult("tables", target, 0.0, 0.0, 0.0, 0.0)
        return [empty] + ([ProbeResult("control", target, 0.0, 0.0, 0.0, 0.0, power=False)] if control else [])
    score, feature, rule = _probe(train, test, public=False)
    base = _probe(train, test, public=True)[0]
    cols = _Columns(train + test, True)
    held = np.arange(len(train), len(train) + len(test))
    chance = max(
        cols.hits("", held, "constant", cols.fit("", np.arange(len(train)), "constant")),
        float(np.mean([1.0 / max(r.n, 1) for r in test])),
    )
    # a decision replayed under other seeds is not new data; each target element it resolves is
    n_eff = len({(r.unit, r.x.get("step"), r.target) for r in test})
    margin = z * math.sqrt(max(base * (1 - base), 1 / n_eff) / n_eff)
    result = ProbeResult("tables", target, score, base, chance, margin, feature, rule, n_eff)
    if score - base > margin:
        result.leaks.append(
            f"a {rule} rule on {feature!r} predicts {target} on {100 * score:.1f} % of {n_eff} held-out "
            f"decisions; reading only the declared public part gives {100 * base:.1f} % "
            f"(margin {100 * margin:.1f})"
        )
    if not control:
        return [result]
    planted, feature, rule = _probe(train, test, public=False, control=True)
    # power: the planted target beats the public part by the margin -- or the public part leaves no more
    # than a margin of under 5 points to gain (a target the public part already gives away on a sample
    # large enough to say so: nothing is left to leak)
    settled = 1.0 - base <= margin + 1e-12 and margin < SETTLED_MARGIN
    check = ProbeResult(
        "control",
        target,
        planted,
        base,
        chance,
        margin,
        feature,
        "nothing left to leak" if settled and planted - base <= margin else rule,
        n_eff,
        power=planted - base > margin or settled,
    )
    return [result, check]


# ---------------------------------------------------------------------- the future probe
def reencoded(traces: list[list[tuple]]) -> set[str]:
    """The returned observation paths that are a function of the *declared public* elements of the env's
    own observation (``own.*``, read where wrappers change it) over the run: a wrapper's re-encodings of
    what is public (``wrappers.VectorizeObservation``'s one-hot of the last joint action), which hold
    nothing public did not; the future probe reads the env's own elements instead. A path that is not (a
    wrapper appending a hidden truth, or re-encoding an undeclared element) is probed as any returned value."""
    values: dict[str, dict[tuple, set]] = defaultdict(dict)
    for seen, *_ in (step for trace in traces for step in trace):
        own = tuple((p, v) for p, v in seen["public"].items() if p.startswith("own"))
        for path in (p for p in seen["all"] if own and p.startswith("obs")):
            values[path].setdefault(own, set()).add(seen["all"][path])
    return {path for path, by_own in values.items() if all(len(v) == 1 for v in by_own.values())}


def _future_columns(traces: list[list[tuple]], target: str, copies: set[str]) -> tuple[dict, np.ndarray, list, set]:
    """Per returned path, its code at every step (-1 where absent), the truth codes of every step (-1 where
    the step resolved none), the step positions (trace, t), in one code space so that equality is ``==``,
    and the public paths."""
    table: dict[Hashable, int] = {}
    steps = [(k, t) for k, trace in enumerate(traces) for t in range(len(trace))]
    truth = np.array(
        [
            table.setdefault(trace[t][4][target], len(table)) if target in trace[t][4] else -1
            for trace in traces
            for t in range(len(trace))
        ],
        dtype=np.int64,
    )
    columns: dict[str, np.ndarray] = {}
    shown: set[str] = set()
    for row, (k, t) in enumerate(steps):
        shown.update(traces[k][t][0]["public"])
        for path, v in traces[k][t][0]["all"].items():
            if (
                path.startswith(COUNTERS + ("shadow.",))
                or path in ("step", "time")
                or path in copies
                or type(v) is bool
            ):
                continue  # the table probe reads those; equality with a count is chance; re-encodings: own.*
            col = columns.get(path)
            if col is None:
                col = columns[path] = np.full(len(steps), -1, dtype=np.int64)
            try:
                col[row] = table.setdefault(v, len(table))
            except TypeError:  # an unhashable value equals no truth
                continue
    return columns, truth, steps, shown


def future_probe(
    traces: list[list[tuple]],
    target: str,
    z: float,
    copies: set[str],
    declared: tuple[str, ...] = (),
    name: str | None = None,
) -> ProbeResult:
    """No returned value outside the public part equals the truth of ``target`` the coming step (or one of
    the ``LAGS`` after it) resolves more often than the public part does: the last truth revealed
    (persistence), independent values with the same frequencies, and the best public value (the
    declared public elements: a false-belief task's real location, which the belief usually equals; the
    ``declared`` patterns are the reader's, kept for callers). Every step
    before an episode's first truth is resolved is also compared with that truth without the persistence
    baseline (nothing was revealed yet): a persistent hidden state in an info, a reward, a memory."""
    worst = ProbeResult("future", name or target, 0.0, 0.0, 0.0, 0.0)
    columns, truth, steps, shown_paths = _future_columns(traces, target, copies)
    if not steps:
        return worst
    trace_of = np.array([k for k, _ in steps], dtype=np.int64)
    first_truth = np.full(len(steps), -1, dtype=np.int64)  # before anything was resolved: the first truth to come
    start = 0
    for k, trace in enumerate(traces):
        codes = truth[start : start + len(trace)]
        resolved = np.flatnonzero(codes >= 0)
        if len(resolved):
            first_truth[start : start + resolved[0] + 1] = codes[resolved[0]]
        start += len(trace)
    public = {p for p in columns if p in shown_paths}  # what the seat's reader declared public
    for lag, first in [(-1, True)] + [(lag, False) for lag in LAGS]:
        later = np.full(len(steps), -1, dtype=np.int64)  # the truth resolved lag steps after each step
        same_trace = np.zeros(len(steps), dtype=bool)
        if first:
            later = first_truth
        elif lag < len(steps):
            same_trace[: len(steps) - lag] = trace_of[lag:] == trace_of[: len(steps) - lag]
            later[: len(steps) - lag] = np.where(same_trace[: len(steps) - lag], truth[lag:], -1)
        has = later >= 0
        before = np.concatenate([[-1], truth[:-1]])
        prev_ok = has & (before >= 0) & (np.concatenate([[False], trace_of[1:] == trace_of[:-1]]))
        persist = float(np.mean(before[prev_ok] == later[prev_ok])) if prev_ok.any() and not first else 0.0
        shown = max((float(np.mean(columns[p][has] == later[has])) for p in public if has.any()), default=0.0)
        for path, col in columns.items():
            present = has & (col >= 0)
            n = int(present.sum())
            if path in public or n < 20:
                continue  # the public part sets the bar: predicting from it is ToM
            v, y = col[present], later[present]
            fx, fy = np.bincount(v), np.bincount(y)
            m = min(len(fx), len(fy))
            independent = float(np.dot(fx[:m], fy[:m])) / n / n
            base = max(independent, persist, shown)
            rate = float(np.mean(v == y))
            margin = z * math.sqrt(max(base * (1 - base), 1 / n) / n)
            if rate > base + margin:
                when = (
                    f"the first {name or target} an episode resolves, in {100 * rate:.0f} % of {n} decisions before it"
                    if first
                    else f"the {name or target} resolved {lag} step(s) after the coming one in "
                    f"{100 * rate:.0f} % of {n} decisions"
                )
                worst.leaks.append(f"{path} equals {when} (baseline {100 * base:.0f} %)")
            if rate - base > worst.score - worst.public:
                worst.score, worst.public, worst.chance, worst.margin = rate, base, base, margin
                worst.feature, worst.rule, worst.n_test = (
                    path,
                    "equality, before the first truth" if first else f"equality, lag {lag}",
                    n,
                )
    return worst
