"""What a cheating policy reads: every returned value as ``{path: value}`` (:func:`flatten`), and what it
remembers and counts (:class:`Reader`)."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Hashable
from fnmatch import fnmatchcase
from functools import lru_cache
from typing import Any

import numpy as np


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


DERIVED = ("first", "last", "num", "argmax", "argmin", "bin", "round", "elem")  # kinds of derived features
COUNTERS = ("mem.", "seen.", "run.", "prev_run.")  # what a reader counts or remembers (never public itself)
_TOKEN = re.compile(r"[a-z0-9]+")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def base_path(path: str) -> str:
    """The returned value a feature reads: ``last:obs.text`` → ``obs.text``."""
    return path.split(":", 1)[-1]


@lru_cache(maxsize=65536)
def text_features(text: str) -> tuple[tuple[str, Hashable], ...]:
    """What a policy reads *inside* a string: its first and last word and its last number (a hint
    appended to or put before a text, a value written into it)."""
    tokens = _TOKEN.findall(text.lower())
    out: list[tuple[str, Hashable]] = []
    if len(tokens) >= 2:
        out += [("first", tokens[0]), ("last", tokens[-1])]
    numbers = _NUMBER.findall(text)
    if numbers and len(tokens) >= 2:
        n = float(numbers[-1])
        out.append(("num", int(n) if n.is_integer() else n))
    return tuple(out)


def derive(out: dict[str, Hashable]) -> None:
    """Add the features read inside each returned value: :func:`text_features` of strings, and the rank
    features of numeric sequences (``argmax:`` / ``argmin:``: which entry is largest or smallest)."""
    for path, v in list(out.items()):
        if isinstance(v, str):
            for kind, w in text_features(v):
                out[f"{kind}:{path}"] = w
        elif isinstance(v, tuple) and 2 <= len(v) <= 64 and all(type(x) in (int, float) for x in v):
            if len(set(v)) > 1:
                out[f"argmax:{path}"], out[f"argmin:{path}"] = int(np.argmax(v)), int(np.argmin(v))


def numeric_features(views: list[dict[str, Hashable]], publics: list[dict[str, Hashable]], bins: int = 8) -> None:
    """Threshold features over a whole run, in place: each numeric value that takes more than ``bins``
    values as its bin among ``bins`` quantiles of the run (``bin:``) and rounded (``round:``), so that a
    truth plus noise in a returned number is read (a table needs values that repeat)."""
    values: dict[str, list[float]] = {}
    for view in views:
        for path, v in view.items():
            if type(v) in (int, float) and not path.startswith(COUNTERS) and path not in ("step", "time"):
                values.setdefault(path, []).append(v)
    edges: dict[str, np.ndarray] = {}
    for path, vs in values.items():
        if len(set(vs)) > bins:
            edges[path] = np.unique(np.quantile(np.asarray(vs, dtype=float), np.linspace(0, 1, bins + 1)[1:-1]))
    for view, public in zip(views, publics):
        for path, cut in edges.items():
            v = view.get(path)
            if type(v) in (int, float):
                b, r = int(np.searchsorted(cut, v)), int(round(v)) if math.isfinite(v) else 0
                view[f"bin:{path}"], view[f"round:{path}"] = b, r
                if path in public:
                    public[f"bin:{path}"], public[f"round:{path}"] = b, r


@lru_cache(maxsize=1 << 18)
def _is_public(path: str, wrapped: bool, declared: tuple[str, ...]) -> bool:
    path = base_path(path)
    if path.startswith(("own", "question")) or (path.startswith("obs") and not wrapped):
        return True
    return any(fnmatchcase(path, pattern) for pattern in declared)


class Reader:
    """What a cheating policy with memory knows before a decision, as ``{path: value}``.

    The public part: ``obs.*`` (the current observation) or, where wrappers change it, ``own.*`` (the
    unwrapped env's own: what a wrapper adds is not public), with ``question`` a QA env's description of
    the question shown (``question.*``, :func:`tom_envs.qa.question_info`: its order, chain and certainty
    are in its text too), with ``history`` the previous observation (``mem.obs.*`` / ``mem.own.*``: envs
    whose truths follow the play), and every path matching one of ``public`` (declared public:
    ``fnmatch`` patterns such as ``"info.location"``). The rest: ``info.*``, ``reward`` (of the step that
    led here), ``step``, per top-level observation entry ``run.<key>`` (steps it stayed the same: a
    question's position in its turn) and ``prev_run.<key>`` (its previous run's length: the last group's
    size), ``seen.<path>`` per public value (times this value was shown before: a question's rank in its
    group), ``mem.<path>`` (the last value of each returned path earlier in the episode); and for every
    value the features read inside it (:func:`derive`: words and numbers of strings, ranks of
    sequences), public where the value is."""

    def __init__(self, history: bool = False, question: bool = False, public: tuple[str, ...] = ()) -> None:
        self.history = history  # the previous observation is public too (envs whose truths follow the play)
        self.question = question  # a QA env: the shown question's own description in the info is public
        self.declared = tuple(public)
        self.step, self.seen = 0, Counter()
        self.last: dict[str, Hashable] = {}
        self.memory: dict[str, Hashable] = {}
        self.runs: dict[str, int] = {}
        self.prev_runs: dict[str, int] = {}

    def is_public(self, path: str, wrapped: bool) -> bool:
        return _is_public(path, wrapped, self.declared)

    def read(self, obs: Any, info: Any, reward: Any, elapsed: float | None = None,
             own: Any = None) -> dict[str, Hashable]:
        out: dict[str, Hashable] = {}
        flatten("obs", obs, out)
        wrapped = own is not None and hashable(own[0]) != hashable(obs)
        if wrapped:  # the env's own, under wrappers re-encoding it (or adding to it)
            flatten("own", own[0], out)
        if self.question and isinstance(info, dict):
            from tom_envs.qa import question_info

            described = {k: v for k, v in question_info(info).items() if k != "next_labels"}
            flatten("question", described, out)
        flatten("info", info if isinstance(info, dict) else {}, out)
        out["reward"] = hashable(reward)
        derive(out)
        public = {p: v for p, v in out.items() if self.is_public(p, wrapped)}
        for path, v in public.items():  # how often this very value was shown before: a question's rank in its group
            out[f"seen.{path}"] = self.seen[(path, v)]
            self.seen[(path, v)] += 1
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
            if self.history and path.startswith("obs" if not wrapped else "own"):
                public[f"mem.{path}"] = v
        for path, v in list(out.items()):
            if path.startswith(("info.", "obs", "own")) or path == "reward":
                self.memory[path] = v
        self.step += 1
        return {"all": out, "public": public}
