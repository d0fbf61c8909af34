"""The information-rule checker: plays an env the way cheating policies would (docs/architecture.md, contract 4).

Like Gymnasium's ``check_env``, :func:`check_information_rule` is made of small named probes, each reporting a
figure and, on failure, a sentence naming the leak. A probe reads *everything* an env returns to the policy -- every
observation and info entry (recursively), the reward, the step index, counts and positions in the sequence (how many
steps each observation entry has stayed the same, how long its previous run was), and with memory, the last value
every entry took earlier in the episode -- and compares what that buys with what the same probe gets from the public
part of the observation alone (the current observation: for a question-answering env, the question as asked). The
judge reads the truth from the unwrapped env's ToM contract (``tom_truth()``), which no policy gets. Probes:

* ``tables`` -- value → answer / value → hidden-state tables. For every target the env resolves, one
  rule per returned value (and per pair of values): "the value is the answer" or "the majority truth
  of each value", chosen on half of the training units and refitted, scored on held-out units
  (dialogue turns for question-answering envs, whole episodes otherwise). It fails when it beats the
  same probe restricted to the public part by more than ``z`` binomial standard errors.
* ``future`` -- no returned value equals the truth that the coming step (or one of the two after it)
  resolves more often than the last truth revealed does, or than independent values with the same
  frequencies would (``z`` standard errors). This one also reads the observation itself, so it
  catches an answer or a hidden state written into the observation; a wrapped env is judged on its
  own observation's elements (:func:`_reencoded`: a wrapper's one-hot of them is no leak).

Pass a registered id, an env wrapped exactly as your runner wraps it (:func:`benchmarks.runner.make_env`),
or a zero-argument factory (:func:`check_information_rule`). Example: ``print(check_information_rule(
"tom/PersuasiveToM-v1"))`` shows every probe's figures (a leak raises :class:`InformationLeak`).
"""

from __future__ import annotations

import math
import time
from collections import Counter, defaultdict
from collections.abc import Hashable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np

from tom_envs.errors import TomEnvsError
from tom_envs.tom import tom_spec_of

__all__ = ["InformationLeak", "InformationReport", "ProbeResult", "check_information_rule", "flatten", "hashable"]

Z = 3.0  # standard errors of slack for every comparison
LAGS = (0, 1, 2)  # steps between the coming step and the one whose truth the future probe checks
MAX_PAIRS = 400  # pairs of returned values tried as table keys (the most varied first)


class InformationLeak(TomEnvsError, AssertionError):
    """An env, or a wrapper around it, hands a policy what it is scored on (the message names the value)."""


@dataclass
class ProbeResult:
    """One probe's figures.

    Attributes:
        name: the probe (``tables`` or ``future``); ``target``: the ToM target it predicts.
        score: accuracy of the probe reading everything returned (held-out units).
        public: accuracy of the same probe reading only the public part of the observation.
        chance: accuracy needing no information (majority truth of the training units, or 1/options).
        margin: ``z`` binomial standard errors of the held-out sample.
        feature: the returned value (or pair) the best rule reads; ``rule`` its kind.
        n_test: held-out decisions; ``leaks``: one sentence per leak found (empty: passed).
    """

    name: str
    target: str
    score: float
    public: float
    chance: float
    margin: float
    feature: Any = ""
    rule: str = ""
    n_test: int = 0
    leaks: list[str] = field(default_factory=list)

    @property
    def gain(self) -> float:
        """What reading everything adds over the public part (accuracy points, 0-1)."""
        return self.score - self.public


@dataclass
class InformationReport:
    """Every probe's result for one env; :attr:`leaks` lists the sentences of those that failed."""

    env: str
    results: list[ProbeResult]

    @property
    def leaks(self) -> list[str]:
        return [s for r in self.results for s in r.leaks]

    @property
    def ok(self) -> bool:
        return not self.leaks

    def result(self, name: str, target: str | None = None) -> ProbeResult:
        """The result of probe ``name`` (for ``target``; the first one when None)."""
        for r in self.results:
            if r.name == name and (target is None or r.target == target):
                return r
        raise KeyError(f"no {name!r} probe result for {target!r} in the report of {self.env}")

    def __str__(self) -> str:
        lines = [f"information rule, {self.env}: {'no leak found' if self.ok else f'{len(self.leaks)} leak(s)'}"]
        for r in self.results:
            lines.append(f"  {r.name:6s} {r.target}: everything {100 * r.score:.1f} %, public part {100 * r.public:.1f} %, "
                         f"chance {100 * r.chance:.1f} % (margin {100 * r.margin:.1f}, {r.n_test} held out; "
                         f"best: {r.rule} of {r.feature!r})")
        return "\n".join(lines + [f"  LEAK: {s}" for s in self.leaks])


# ---------------------------------------------------------------------- reading what comes back
def hashable(value: Any) -> Hashable:
    """``value`` as a hashable (arrays and lists as tuples, dicts as sorted item tuples)."""
    if isinstance(value, np.ndarray):
        return hashable(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (list, tuple)):
        return tuple(hashable(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((str(k), hashable(v)) for k, v in value.items()))
    return value


def flatten(prefix: str, value: Any, out: dict[str, Hashable]) -> None:
    """Every scalar reachable in ``value`` as ``out[path] = value`` (sequences of scalars also as one tuple)."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, dict):
        for k, v in value.items():
            flatten(f"{prefix}.{k}", v, out)
    elif isinstance(value, (list, tuple)):
        out[prefix] = hashable(value)
        for i, v in enumerate(value[:64]):
            flatten(f"{prefix}[{i}]", v, out)
    elif isinstance(value, (int, float, str, bool, type(None))):
        out[prefix] = value


class _Reader:
    """What a cheating policy with memory knows before a decision, as ``{path: value}``.

    The public part: ``obs.*`` (the current observation), ``own.*`` (the unwrapped env's own, where
    wrappers change it), with ``question`` a QA env's description of the question shown
    (``question.*``, :func:`tom_envs.qa.question_info`: its order, chain and certainty are in its text
    too), with ``history`` the previous observation (``mem.obs.*``: envs whose truths follow the play).
    The rest: ``info.*``, ``reward`` (of the step that led here), ``step``, per top-level observation
    entry ``run.<key>`` (steps it stayed the same: a question's position in its turn) and
    ``prev_run.<key>`` (its previous run's length: the last group's size), ``seen.<path>`` per public
    value (times this value was shown before: a question's rank in its group), ``mem.<path>`` (the
    last value of each returned path earlier in the episode)."""

    def __init__(self, history: bool = False, question: bool = False) -> None:
        self.history = history  # the previous observation is public too (envs whose truths follow the play)
        self.question = question  # a QA env: the shown question's own description in the info is public
        self.step, self.seen = 0, Counter()
        self.last: dict[str, Hashable] = {}
        self.memory: dict[str, Hashable] = {}
        self.runs: dict[str, int] = {}
        self.prev_runs: dict[str, int] = {}

    def read(self, obs: Any, info: Any, reward: Any, elapsed: float | None = None,
             own: Any = None) -> dict[str, Hashable]:
        out: dict[str, Hashable] = {}
        flatten("obs", obs, out)
        if own is not None and hashable(own[0]) != hashable(obs):  # the env's own, under wrappers re-encoding it
            flatten("own", own[0], out)
        if self.question and isinstance(info, dict):
            from tom_envs.qa import question_info

            described = {k: v for k, v in question_info(info).items() if k != "next_labels"}
            flatten("question", described, out)
        public = dict(out)
        for path, v in public.items():  # how often this very value was shown before: a question's rank in its group
            out[f"seen.{path}"] = self.seen[(path, v)]
            self.seen[(path, v)] += 1
        flatten("info", info if isinstance(info, dict) else {}, out)
        out["reward"] = hashable(reward)
        out["step"] = self.step
        if elapsed is not None:  # seconds the call that returned this took (bucketed once the run is over)
            out["time"] = elapsed
        if isinstance(obs, dict):
            for k, v in obs.items():
                v = hashable(v)
                if k in self.last and self.last[k] == v:
                    self.runs[k] += 1
                else:
                    if k in self.runs:
                        self.prev_runs[k] = self.runs[k]
                    self.runs[k] = 0
                self.last[k] = v
                out[f"run.{k}"] = self.runs[k]
                out[f"prev_run.{k}"] = self.prev_runs.get(k)
        for path, v in self.memory.items():
            out[f"mem.{path}"] = v
            if self.history and path.startswith("obs"):
                public[f"mem.{path}"] = v
        for path, v in list(out.items()):
            if path.startswith(("info.", "obs")) or path == "reward":
                self.memory[path] = v
        self.step += 1
        return {"all": out, "public": public}


# ---------------------------------------------------------------------- playing
@dataclass
class _Row:
    x: dict[str, Hashable]  # everything returned before the decision
    public: dict[str, Hashable]  # the public part of it
    target: str
    y: Hashable  # the truth the decision's step resolved
    unit: Hashable  # rows of one unit are never split between training and held-out halves
    n: int  # options (for the chance rate)
    episode: int


def _whole(base: Any) -> dict[str, Hashable]:
    return {k: hashable(v) for k, v in base.tom_truth().items()}


def _truths(base: Any) -> dict[str, Hashable]:
    """``tom_truth()``, array-valued targets split into one target per element (``stances[0, 2]``)."""
    out: dict[str, Hashable] = {}
    for k, v in base.tom_truth().items():
        arr = np.asarray(v) if isinstance(v, (list, tuple, np.ndarray)) else None
        if arr is not None and arr.ndim >= 1 and arr.size <= 64 and arr.dtype != object:
            for idx in np.ndindex(arr.shape):
                out[f"{k}{list(idx)}"] = arr[idx].item()
        else:
            out[k] = hashable(v)
    return out


def _n_options(space: Any, obs: Any) -> int:
    if isinstance(obs, dict) and "n_choices" in obs:
        return int(np.asarray(obs["n_choices"]))
    return int(getattr(space, "n", 2))


def _episode_options(base: Any, episodes: int | None) -> list[dict | None]:
    """Reset options covering a dataset env's episodes one by one; None (seeded draws) otherwise."""
    known = getattr(base, "episodes", None)
    if known is not None and hasattr(base, "select_episode"):
        count = len(known) if episodes is None else min(episodes, len(known))
        return [{"episode": e} for e in range(count)]
    return [None] * (episodes or 40)


def _timed(timing: bool, call: Any, *args: Any, **kwargs: Any) -> tuple[Any, float | None]:
    start = time.perf_counter()
    out = call(*args, **kwargs)
    return out, (time.perf_counter() - start if timing else None)


@contextmanager
def _own_observation(env: Any) -> Iterator[list]:
    """``[(observation,)]``: the last observation the unwrapped env returned itself under ``env``'s
    wrappers (its ``reset`` / ``step`` tapped meanwhile); ``[None]`` for an unwrapped env."""
    base, last = env.unwrapped, [None]
    saved = {} if base is env else {name: vars(base).get(name) for name in ("reset", "step")}

    def tap(call: Any) -> Any:
        def tapped(*args: Any, **kwargs: Any) -> Any:
            last[0] = (out := call(*args, **kwargs))[:1]  # (observation,) of reset's or step's tuple
            return out
        return tapped

    for name in saved:
        setattr(base, name, tap(getattr(base, name)))
    try:
        yield last
    finally:
        for name, method in saved.items():
            delattr(base, name) if method is None else setattr(base, name, method)


def _play_gym(env: Any, options: list[dict | None], repeats: int, seed: int, max_steps: int,
              history: bool, timing: bool) -> Iterator[list[tuple]]:
    base, rng = env.unwrapped, np.random.default_rng(seed)
    with _own_observation(env) as own:
        for r in range(repeats):
            for e, opt in enumerate(options):
                s = seed + 1000 * r + e
                env.action_space.seed(s)
                (obs, info), elapsed = _timed(timing, env.reset, seed=s, options=opt)
                reader, reward, trace = _Reader(history, question=not history), None, []
                for _ in range(max_steps):
                    seen = reader.read(obs, info, reward, elapsed, own[0])
                    n = _n_options(env.action_space, obs)
                    action = int(rng.integers(n)) if isinstance(obs, dict) and "n_choices" in obs else env.action_space.sample()
                    turn = obs.get("turn") if isinstance(obs, dict) else None
                    (obs, reward, term, trunc, info), elapsed = _timed(timing, env.step, action)
                    trace.append((seen, _truths(base), (e, hashable(turn)), n, _whole(base)))
                    if term or trunc:
                        break
                yield trace


def _play_parallel(env: Any, episodes: int, seed: int, max_steps: int, timing: bool) -> Iterator[list[tuple]]:
    for e in range(episodes):
        s = seed + e
        (obs, infos), elapsed = _timed(timing, env.reset, seed=s)
        for agent in env.possible_agents:
            env.action_space(agent).seed(s)
        reader, rewards, trace = _Reader(history=True), None, []
        while env.agents and len(trace) < max_steps:
            seen = reader.read(obs, infos, rewards, elapsed)
            actions = {a: env.action_space(a).sample() for a in env.agents}
            (obs, rewards, _, _, infos), elapsed = _timed(timing, env.step, actions)
            trace.append((seen, _truths(env), (e, None), 2, _whole(env)))
        yield trace


def _play_aec(env: Any, episodes: int, seed: int, max_steps: int, predictor: str | None,
              timing: bool) -> Iterator[list[tuple]]:
    """Per step of any seat: what the predictor seat (every seat, without one) last received, and the
    truths the step resolved. Other seats may know their own minds; the seat scored on ToM may not."""
    base = env.unwrapped
    for e in range(episodes):
        s = seed + e
        _, elapsed = _timed(timing, env.reset, seed=s)
        readers: dict[str, _Reader] = {}
        view, trace = None, []
        for agent in env.agent_iter(max_iter=max_steps):
            obs, reward, term, trunc, info = env.last()
            if predictor is None or agent == predictor:
                view = readers.setdefault(agent, _Reader(history=True)).read(obs, info, reward, elapsed)
            space = env.action_space(agent)
            space.seed(s + len(trace))
            _, elapsed = _timed(timing, env.step, None if term or trunc else space.sample())
            if view is not None:
                trace.append((view, _truths(base), (e, None), int(getattr(space, "n", 2)), _whole(base)))
        yield trace


# ---------------------------------------------------------------------- the table probe
def _majority(ys: Sequence[Hashable]) -> Hashable:
    counts = Counter(ys)
    return min(counts, key=lambda y: (-counts[y], str(y)))


def _value(x: dict[str, Hashable], path: Any) -> Hashable:
    return tuple(x.get(p) for p in path) if isinstance(path, tuple) else x.get(path)


class _Columns:
    """The rows of one probe as columns, so that every rule reads each row's value once."""

    def __init__(self, rows: list[_Row], public: bool) -> None:
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


def _halves(rows: list[_Row], seed: int) -> tuple[list[int], list[int]]:
    """Indices of ``rows`` in two halves that share no unit (a seeded draw of half the units)."""
    units = sorted({r.unit for r in rows}, key=str)
    order = np.random.default_rng(seed).permutation(len(units))
    first = {units[i] for i in order[: len(units) // 2]}
    return [i for i, r in enumerate(rows) if r.unit in first], [i for i, r in enumerate(rows) if r.unit not in first]


def _split(rows: list[_Row], seed: int) -> tuple[list[_Row], list[_Row]]:
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


def _probe(train: list[_Row], test: list[_Row], public: bool) -> tuple[float, Any, str]:
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


def _table_probe(rows: list[_Row], target: str, z: float) -> ProbeResult:
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
def _reencoded(traces: list[list[tuple]]) -> set[str]:
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


def _future_probe(traces: list[list[tuple]], target: str, z: float, reencoded: set[str]) -> ProbeResult:
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
                    if path.startswith(("mem.", "run.", "prev_run.", "seen.")) or path == "step" or path in reencoded:
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


# ---------------------------------------------------------------------- the checker
def _build(env: Any, kwargs: dict[str, Any]) -> tuple[Any, str]:
    if isinstance(env, str):
        from tom_envs.registration import record

        return make_any(env, **{**record(env).example_kwargs, **kwargs}), env
    if kwargs:
        raise TomEnvsError("check_information_rule takes kwargs only with a registered id; build the env yourself "
                           "and pass it instead")
    if callable(env) and not hasattr(env, "reset"):
        env = env()
    return env, type(getattr(env, "unwrapped", env)).__name__


def make_any(env_id: str, **kwargs: Any) -> Any:
    """A registered id as its registry kind makes it (Gymnasium, PettingZoo parallel or AEC)."""
    from tom_envs.registration import make, make_aec, record

    return make_aec(env_id, **kwargs) if record(env_id).kind == "aec" else make(env_id, **kwargs)


def _bucket_times(traces: list[list[tuple]], buckets: int = 4) -> None:
    """Each step's ``time`` as its quartile over the run (a table needs values that repeat)."""
    views = {id(seen["all"]): seen["all"] for trace in traces for seen, *_ in trace if "time" in seen["all"]}
    times = np.array([v["time"] for v in views.values()])
    if not len(times):
        return
    edges = np.quantile(times, np.linspace(0, 1, buckets + 1)[1:-1])
    for view in views.values():
        view["time"] = int(np.searchsorted(edges, view["time"]))


def check_information_rule(env: Any, *, episodes: int | None = None, repeats: int | None = None, seed: int = 0,
                           unit: str = "turn", z: float = Z, max_steps: int = 10_000, timing: bool = False,
                           strict: bool = True, **kwargs: Any) -> InformationReport:
    """Play ``env`` as cheating policies would and report what everything it returns gives away.

    Args:
        env: a registered id (made with its example arguments and ``kwargs``), an env instance
            (wrapped as your runner wraps it: the probes read what the wrappers return), or a
            zero-argument factory of one.
        episodes: episodes to play (dataset envs: the first ``episodes`` of the data, default all; others 40).
        repeats: plays of every episode under other seeds (default 6 for question-answering envs, else 1).
        seed: the first seed; ``z``: standard errors of slack; ``max_steps``: steps per episode at most.
        unit: how held-out units are cut for question-answering envs: ``"turn"`` (a dialogue turn's
            questions) or ``"episode"`` (a whole dialogue: where answers persist within a dialogue, so a
            table keyed on the dialogue cannot learn the dataset's labels).
        timing: also read how long each call took (``time``: its quartile over the run). Off by
            default: wall-clock time is not deterministic (the step index is always read).
        strict: raise :class:`InformationLeak` when a probe finds a leak (default); False: only report.

    Returns:
        an :class:`InformationReport` with every probe's figures.

    Raises:
        InformationLeak: ``strict`` and a probe found a leak (the message names every one).
        ToMContractError: the env keeps no ToM contract (no truths to probe).
    """
    if unit not in ("turn", "episode"):
        raise TomEnvsError(f"unit is 'turn' or 'episode', got {unit!r}")
    env, name = _build(env, kwargs)
    spec = tom_spec_of(env)
    base = getattr(env, "unwrapped", env)
    if hasattr(env, "agent_iter"):
        traces = list(_play_aec(env, episodes or 40, seed, max_steps, spec.predictor, timing))
    elif hasattr(env, "possible_agents"):
        traces = list(_play_parallel(env, episodes or 40, seed, max_steps, timing))
    else:
        qa = spec.action_is_prediction
        options = _episode_options(base, episodes)
        traces = list(_play_gym(env, options, repeats or (6 if qa else 1), seed, max_steps, not qa, timing))
    if timing:
        _bucket_times(traces)
    rows_by_target: dict[str, list[_Row]] = defaultdict(list)
    for e, trace in enumerate(traces):
        for seen, truth, (episode, turn), n, _ in trace:
            for target, y in truth.items():
                unit_key = (episode, turn) if unit == "turn" and turn is not None else e
                rows_by_target[target.split("[")[0]].append(_Row(seen["all"], seen["public"], target, y, unit_key, n, e))
    results, reencoded = [], _reencoded(traces)
    for target in sorted(rows_by_target):
        results.append(_table_probe(rows_by_target[target], target, z))
        results.append(_future_probe(traces, target, z, reencoded))
    report = InformationReport(name, results)
    if strict and not report.ok:
        raise InformationLeak(f"{name} hands a policy what it is scored on:\n" + "\n".join(f"* {s}" for s in report.leaks)
                              + "\nKeep ground truth out of band (tom_truth / the recorder's records) and return it "
                              "only when the episode ends (docs/architecture.md, contract 4).")
    return report
