"""Every family's episodes as training rows, and how one row is played and scored.

A row is one episode (or one scored question) of a family's declared Inspect task
(:func:`benchmarks.harnesses.inspect_spec.declared_tasks`; the tasks are found through each family's
declaration, none is named here): ``{"task", "env_id", "seed", "split", "key", "episode"}``. The
row is played by the family's own play (:class:`~benchmarks.train.handoff.SteppedEpisode`) and
scored from the family's own record:

* ``reward``: the functional outcome the task declares (``EpisodeTask.reward``: a return, or a
  regret negated), or, for a question, 1 for the gold answer and 0 otherwise (a reply the family's
  protocol cannot read counts wrong, as its benchmark counts it);
* ``metrics``: every metric the task scores (literal ToM among them), for weight-0 reporting.

Splits are those of ``tom-envs rl``: ``train`` and ``test``. A task that declares
``split_options`` plays the split's partners / conversations; every task also takes its train
seeds from ``seed`` and its test seeds from ``seed + TEST_SEEDS``, so no seed is in both.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from typing import Any

from benchmarks.harnesses.inspect_spec import EpisodeRun, EpisodeTask, QARun, QATask, declared_tasks, task_options
from benchmarks.train.errors import TrainEnvError
from benchmarks.train.handoff import SteppedEpisode
from policies.llm.base import Backend, BackendStats, ChatRequest, Generation, ScoreRequest

__all__ = ["SPLITS", "TEST_SEEDS", "make_episode", "rows", "score", "task", "task_names", "train_options"]

SPLITS = ("train", "test")
#: The test split's seeds start this far above the train split's.
TEST_SEEDS = 100_000


def task_names() -> list[str]:
    """The names of every family's declared tasks (as ``inspect eval tom_envs/<name>``)."""
    return [spec.name for spec in declared_tasks()]


def task(name: str) -> QATask | EpisodeTask:
    """The declared task ``name``."""
    for spec in declared_tasks():
        if spec.name == name:
            return spec
    raise TrainEnvError(f"no family declares a task {name!r}; the tasks: {', '.join(task_names())}")


def train_options(spec: QATask | EpisodeTask, split: str | None, params: Mapping[str, Any]) -> dict[str, Any]:
    """The task parameters of ``split``: ``params`` (as ``-T NAME=VALUE``), the split's own, defaults
    (``split`` None: no split, the task's parameters as given, as the Inspect task and the command take them)."""
    if split is not None and split not in SPLITS:
        raise TrainEnvError(f"split must be one of {', '.join(SPLITS)} (as tom-envs rl's), got {split!r}")
    given = dict(params)
    env_id = str(given.get("env") or spec.env_id)
    if spec.split_options is not None and split is not None:
        own = dict(spec.split_options(env_id, split))
        clash = sorted(k for k in own if given.get(k) is not None and given[k] != own[k])
        if clash:
            raise TrainEnvError(f"{', '.join(clash)} is set by the {split} split of {spec.name}; leave it out")
        given.update(own)
    return task_options(spec, given)


def rows(
    name: str, split: str | None = "train", *, episodes: int = 8, seed: int = 0, params: Mapping[str, Any] | None = None
) -> list[dict[str, Any]]:
    """The rows of task ``name`` on ``split``: ``episodes`` episodes (an episode task; per its
    ``episodes`` declaration, e.g. each scenario × seed) or the first ``episodes`` scored questions (a
    QA task; ``episodes=0``: all of them). ``split`` None: no split (seeds from ``seed``, the task's
    parameters as given: the rows the family's command plays with the same options)."""
    spec = task(name)
    if episodes < 0:
        raise TrainEnvError(f"episodes must be >= 0, got {episodes}")
    first = int(seed) + (TEST_SEEDS if split == "test" else 0)
    given = {**(params or {}), "seed": first, "episodes": max(1, episodes)}
    options = train_options(spec, split, {k: v for k, v in given.items() if k not in spec.refuses})
    out = []
    if isinstance(spec, QATask):
        items = _items(spec.name, _frozen(options))
        for item in items[: episodes or None]:
            out.append(_row(spec, options, split, first, item.id, {}))
        return out
    listed = (
        spec.episodes(options)
        if spec.episodes is not None
        else [(str(s), s, {}) for s in range(first, first + episodes)]
    )
    return [_row(spec, options, split, int(s), str(key), dict(extra)) for key, s, extra in listed]


def _row(spec: Any, options: Mapping[str, Any], split: str, seed: int, key: str, extra: Mapping[str, Any]) -> dict:
    return {
        "task": spec.name,
        "env_id": str(options["env"]),
        "seed": int(seed),
        "split": split,
        "key": key,
        "episode": json.dumps(extra, sort_keys=True),
        "options": json.dumps(_plain(options), sort_keys=True),
    }


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def _frozen(options: Mapping[str, Any]) -> str:
    return json.dumps(_plain(options), sort_keys=True)


@functools.lru_cache(maxsize=16)
def _items(name: str, options: str) -> list[Any]:
    spec = task(name)
    return list(spec.items(json.loads(options)))


class MissingRole(Backend):
    """The backend of a model role no model was given for: any call is an error saying what to pass."""

    def __init__(self, role: str, task: str) -> None:
        self.role, self.task = role, task
        self.stats = BackendStats()

    def generate(self, requests: Sequence[ChatRequest]) -> list[Generation]:
        raise TrainEnvError(
            f"{self.task} asks its {self.role!r} seat's model, and none was given: pass "
            f"roles={{{self.role!r}: {{'base_url': ..., 'model': ...}}}} (an OpenAI-compatible server), "
            "or the task parameter that makes that seat scripted"
        )

    def score(self, requests: Sequence[ScoreRequest]) -> list[list[float]]:
        return self.generate([])  # type: ignore[return-value]

    def close(self) -> None:
        """Nothing to release."""


def make_episode(row: Mapping[str, Any], roles: Mapping[str, Backend] | None = None) -> SteppedEpisode:
    """The row's episode, to be played by replies given from outside (its first request: ``start()``)."""
    spec = task(str(row["task"]))
    options = json.loads(str(row["options"]))
    roles = dict(roles or {})
    if isinstance(spec, QATask):
        by_id = {item.id: item for item in _items(spec.name, _frozen(options))}
        if str(row["key"]) not in by_id:
            raise TrainEnvError(f"{spec.name} has no question {row['key']!r} with these options")
        item = by_id[str(row["key"])]

        def play_question(backend: Backend) -> dict[str, Any]:
            index, details = spec.answer(QARun(options, backend, int(options["seed"])), item)
            return {"index": index, "answer": int(item.answer), "group": item.group, "details": details}

        return SteppedEpisode(play_question)
    backends: dict[str | None, Backend] = {r: roles.get(r) or MissingRole(r, spec.name) for r in spec.roles}
    unknown = sorted(set(roles) - set(spec.roles))
    if unknown:
        raise TrainEnvError(
            f"{spec.name} has no model role {', '.join(unknown)}; its roles: {', '.join(spec.roles) or 'none'}"
        )

    def play_episode(backend: Backend) -> dict[str, Any]:
        run = EpisodeRun(
            str(row["env_id"]), int(row["seed"]), options, {**backends, None: backend}, json.loads(str(row["episode"]))
        )
        return spec.play(run)

    return SteppedEpisode(play_episode)


def score(name: str, record: Mapping[str, Any]) -> tuple[float, dict[str, float | None]]:
    """``(reward, metrics)`` of a played row's record (see the module's docstring)."""
    from benchmarks.family_command import metric

    spec = task(name)
    if isinstance(spec, QATask):
        right = float(record["index"] is not None and int(record["index"]) == int(record["answer"]))
        return right, {"accuracy": right, "unread": float(record["index"] is None)}
    summary = {**record.get("episode", {}), **record.get("row", {})}
    metrics = {}
    for key in spec.metrics:
        value = metric(summary, key)
        metrics[key] = None if value is None else float(value)
    key = spec.reward or spec.metrics[0]
    sign, key = (-1.0, key[1:]) if key.startswith("-") else (1.0, key)
    if metrics.get(key) is None:
        raise TrainEnvError(
            f"{name}'s episode has no {key} (its reward); the record's summary keys: {', '.join(sorted(summary))}"
        )
    return sign * float(metrics[key]), metrics
