"""What a cheating policy reads: every returned value as ``{path: value}`` (:func:`flatten`), and what it
remembers and counts (:class:`Reader`)."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Hashable
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


def pattern(patterns: tuple[str, ...]) -> re.Pattern | None:
    """One regular expression for path patterns: ``*`` any run of characters, ``?`` one, everything else
    literal (``obs[3]`` is the path ``obs[3]``, not a character class); None for no pattern."""
    if not patterns:
        return None
    parts = (re.escape(p).replace(r"\*", ".*").replace(r"\?", ".") for p in patterns)
    return re.compile("(?:" + "|".join(parts) + r")\Z")


REST = "#rest"  # what is left of a composed text once its declared public parts are cut out


@lru_cache(maxsize=1 << 18)
def _is_public(path: str, wrapped: bool, declared: re.Pattern | None) -> bool:
    """Whether ``path`` (a returned path or a feature read inside one) is declared public. Under a wrapper
    that changes the observation the declarations name the env's own (``own.*``); the wrapper's ``obs.*``
    is never public. A composed text's rest never is."""
    path = base_path(path)
    if declared is None or REST in path:
        return False
    if wrapped and path.startswith("obs"):
        return False
    if wrapped and path.startswith("own"):
        path = "obs" + path[3:]
    return declared.match(path) is not None


def _sequences(public: dict[str, Hashable], out: dict[str, Hashable]) -> dict[str, Hashable]:
    """A sequence is public exactly when every element of it is (declaring its elements declares it; a
    declared sequence with an undeclared element -- a hidden value appended -- is not), and so are the
    ranks read inside it."""
    for path in sorted((p for p, v in out.items() if type(v) is tuple and ":" not in p), key=len, reverse=True):
        items = [f"{path}[{i}]" for i in range(min(len(out[path]), 64))]
        if not items or items[0] not in out:  # a dict read whole, or an empty sequence: as declared
            continue
        whole = all(i in public for i in items) and len(out[path]) <= 64
        for p in (path, f"argmax:{path}", f"argmin:{path}"):
            if whole and p in out:
                public[p] = out[p]
            else:
                public.pop(p, None)
    return public


def _cut(text: str, parts: list[str]) -> str:
    """``text`` without ``parts`` (longest first), as its lower-case words joined by spaces."""
    for part in sorted(set(parts), key=len, reverse=True):
        text = text.replace(part, " ")
    return " ".join(_TOKEN.findall(text.lower()))


class Reader:
    """What a cheating policy with memory knows before a decision, as ``{path: value}``.

    The public part is what is **declared** public and nothing else (``public``: one pattern of paths,
    :func:`pattern`; the observation's paths name the env's own observation, read as ``own.*`` where a
    wrapper changes it): never "the whole observation". With ``history`` (envs whose truths follow the
    play) the earlier values of declared paths (``mem.<path>``) and how often each was shown
    (``seen.<path>``) are public too; ``composed`` maps a text path to the pattern of the public elements
    it is made of, and adds ``<path>#rest`` (the text with their values cut out: a candidate). ``question`` adds a QA env's description of the question shown
    (``question.*``, :func:`tom_envs.qa.question_info`), public where declared. The rest: every undeclared
    ``obs.*`` / ``own.*`` element, ``info.*``, ``reward`` (of the step that led here), ``step``, per
    top-level observation entry ``run.<key>`` (steps it stayed the same: a question's position in its turn)
    and ``prev_run.<key>`` (its previous run's length), ``seen.<path>`` per public value (times this value
    was shown before: a question's rank in its group), ``mem.<path>`` (the last value of each returned path
    earlier in the episode); and for every value the features read inside it (:func:`derive`: words and
    numbers of strings, ranks of sequences), public where the value is."""

    def __init__(
        self,
        history: bool = False,
        question: bool = False,
        public: re.Pattern | None = None,
        composed: dict[str, re.Pattern | None] | None = None,
    ) -> None:
        self.history = history  # earlier values of declared paths are public too (envs whose truths follow the play)
        self.question = question  # a QA env: read the shown question's own description in the info
        self.declared = public
        self.composed = dict(composed or {})
        self.step, self.seen = 0, Counter()
        self.last: dict[str, Hashable] = {}
        self.memory: dict[str, Hashable] = {}
        self.memory_public: set[str] = set()  # the remembered paths that were public when returned
        self.runs: dict[str, int] = {}
        self.prev_runs: dict[str, int] = {}

    def is_public(self, path: str, wrapped: bool) -> bool:
        return _is_public(path, wrapped, self.declared)

    def _rests(self, out: dict[str, Hashable], wrapped: bool) -> None:
        """``<text>#rest`` for each composed text: what its declared public parts leave of it."""
        for text_path, parts in self.composed.items():
            for path in [text_path] if not wrapped else [text_path, "own" + text_path[3:]]:
                text = out.get(path)
                if not isinstance(text, str) or parts is None:
                    continue
                prefix = "own" if path.startswith("own") and wrapped else "obs"
                cut = [
                    v
                    for p, v in out.items()
                    if isinstance(v, str)
                    and v
                    and p.startswith(prefix)
                    and p != path
                    and parts.match("obs" + p[3:]) is not None
                ]
                out[path + REST] = _cut(text, cut)

    def read(
        self, obs: Any, info: Any, reward: Any, elapsed: float | None = None, own: Any = None
    ) -> dict[str, Hashable]:
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
        self._rests(out, wrapped)
        derive(out)
        public = _sequences({p: v for p, v in out.items() if self.is_public(p, wrapped)}, out)
        for text_path in self.composed:  # a composed text is public whole; what is read inside it is not
            for path in (text_path, "own" + text_path[3:]):
                for kind in ("first", "last", "num"):
                    public.pop(f"{kind}:{path}", None)
        for path, v in list(
            public.items()
        ):  # how often this very value was shown before: a question's rank in its group
            out[f"seen.{path}"] = self.seen[(path, v)]
            self.seen[(path, v)] += 1
            if self.history:  # a count over the public history is public history
                public[f"seen.{path}"] = out[f"seen.{path}"]
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
            if self.history and path in self.memory_public:
                public[f"mem.{path}"] = v
        for path, v in list(out.items()):
            if path.startswith(("info.", "obs", "own")) or path == "reward":
                self.memory[path] = v
                if path in public:
                    self.memory_public.add(path)
                else:
                    self.memory_public.discard(path)
        self.step += 1
        return {"all": out, "public": public}
