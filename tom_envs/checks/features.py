"""What a cheating policy reads: every returned value as ``{path: value}`` (:func:`flatten`), and what it
remembers and counts (:class:`Reader`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable
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


class Reader:
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

