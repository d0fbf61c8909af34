"""The suite's families as Inspect AI tasks: ``inspect eval tom_envs/<task>``.

Installed with ``pip install 'tom-envs[inspect]'``; Inspect finds this module through the entry
point ``[project.entry-points.inspect_ai] tom_envs = "benchmarks.harnesses.inspect_tasks"`` and it
registers one task per declaration of every family (:mod:`benchmarks.harnesses.inspect_spec`):

* QA tasks: one Sample per scored question, its input the family protocol's messages; the solver
  asks through the protocol (its reading rule and re-asks, the suite's caller) and the scorer
  compares the chosen option with the env's gold answer (accuracy overall and per group);
* episode tasks: one Sample per episode seed; the solver plays the episode through the suite's
  runner with the family's LLM policy on the eval's model (:class:`InspectBackend`) and the other
  LLM seats on model roles; the scorer reports the ToM recorder's episode summary.

Shared task parameters (``-T NAME=VALUE``): ``env`` (a registered id the task accepts), ``episodes``
(episode tasks: seeds ``seed .. seed + episodes - 1``), ``seed``, ``horizon`` (where the env takes
one), ``data_dir`` (QA: the dataset folder; default the bundled sample), ``max_resamples`` and
``fallback`` (the caller's re-asks and what follows them); a family adds its own (each task's
``options``). A task honours every parameter it takes, as the family's command honours the same
option; a shared one it cannot honour is in its ``refuses`` with the reason, and giving it is an
:class:`InspectTaskError` (never silently ignored). See docs/harnesses.md.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ModelOutput, get_model
from inspect_ai.scorer import CORRECT, INCORRECT, Score, SampleScore, Target, accuracy, grouped, metric, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver

from benchmarks.harnesses.inspect_backend import InspectBackend, chat_messages, run_in_worker
from benchmarks.harnesses.inspect_spec import (
    SHARED,
    EpisodeRun,
    EpisodeTask,
    InspectTaskError,
    QARun,
    QATask,
    declared_tasks,
    task_options,
)

#: The namespace of the tasks (``inspect eval tom_envs/<task>``): the suite's import package, as the
#: entry point is named.
NAMESPACE = "tom_envs"
#: Where a solver leaves the suite's record of a Sample for the scorer (the Sample's store).
RECORD = "tom_envs_record"


# ---------------------------------------------------------------------- QA tasks
def qa_task(spec: QATask, options: Mapping[str, Any]) -> Task:
    """A QA declaration as a Task: its scored questions as Samples, answered by its protocol. The
    gold option is the Sample's target only (the scorer's): no metadata a solver reads holds it."""
    items = list(spec.items(options))
    by_id = {item.id: item for item in items}
    samples = [
        Sample(
            id=item.id,
            input=chat_messages(item.messages),
            target=str(item.answer),
            metadata={"group": item.group or "all", **dict(item.metadata)},
        )
        for item in items
    ]
    return Task(
        dataset=MemoryDataset(samples, name=f"{spec.env_id} ({len(samples)} questions)"),
        solver=answer_question(spec, options, by_id),
        scorer=chosen_option(),
        name=spec.name,
        metadata={"env_id": options["env"], "options": _jsonable(options)},
    )


@solver
def answer_question(spec: QATask, options: Mapping[str, Any], items: Mapping[str, Any]) -> Solver:
    """Ask one question through the family's protocol (the suite's caller, its re-asks and reading
    rule) on the eval's model; keeps the chosen option for the scorer."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        backend = InspectBackend(get_model())
        item = items[str(state.sample_id)]
        run = QARun(options, backend, int(options["seed"]))
        index, details = await run_in_worker(lambda: spec.answer(run, item))
        state.store.set(RECORD, {"index": index, **_jsonable(details)})
        state.output = ModelOutput.from_content(str(backend.name), backend.replies[-1] if backend.replies else "")
        state.completed = True
        return state

    return solve


@scorer(metrics=[accuracy(), stderr(), grouped(accuracy(), "group", all=False)])
def chosen_option() -> Any:
    """Correct when the option the protocol read is the env's gold answer (a reply it could not read
    counts wrong, as the family's benchmark counts it)."""

    async def score(state: TaskState, target: Target) -> Score:
        rec = state.store.get(RECORD) or {}
        index = rec.get("index")
        right = index is not None and int(index) == int(target.text)
        return Score(value=CORRECT if right else INCORRECT, answer=None if index is None else str(index), metadata=rec)

    return score


# ---------------------------------------------------------------------- episode tasks
def episode_task(spec: EpisodeTask, options: Mapping[str, Any]) -> Task:
    """An episode declaration as a Task: one Sample per seed, played by the suite's runner."""
    first, n = int(options["seed"]), int(options["episodes"])
    if n < 1:
        raise InspectTaskError(f"episodes must be at least 1, got {n}")
    episodes = (
        spec.episodes(options)
        if spec.episodes is not None
        else [(str(seed), seed, {}) for seed in range(first, first + n)]
    )
    samples = [
        Sample(
            id=key,
            input=f"Play episode {key} of {options['env']} (seed {seed}).",
            metadata={"seed": seed, "episode": _jsonable(dict(extra))},
        )
        for key, seed, extra in episodes
    ]
    return Task(
        dataset=MemoryDataset(samples, name=f"{options['env']} ({len(samples)} episodes)"),
        solver=play_episode(spec, options),
        scorer=episode_summary(list(spec.metrics)),
        name=spec.name,
        metadata={"env_id": options["env"], "roles": list(spec.roles), "options": _jsonable(options)},
    )


@solver
def play_episode(spec: EpisodeTask, options: Mapping[str, Any]) -> Solver:
    """Play one episode with the family's LLM policy on the eval's model and the other LLM seats
    on their model roles (unbound roles: the eval's model); keeps the suite's record for the scorer."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        main = get_model()
        backends: dict[str | None, Any] = {None: InspectBackend(main)}
        for role in spec.roles:
            backends[role] = InspectBackend(get_model(role=role), role)
        run = EpisodeRun(
            str(options["env"]),
            int(state.metadata["seed"]),
            options,
            backends,
            dict(state.metadata.get("episode") or {}),
        )
        record = await run_in_worker(lambda: spec.play(run))
        state.store.set(RECORD, _jsonable(record))
        state.output = ModelOutput.from_content(str(main), _summary_line(record.get("episode", {}), spec.metrics))
        state.completed = True
        return state

    return solve


@metric
def summary_means() -> Any:
    """Per summary key, the mean over the episodes that have it (as the family's rows average)."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        keys: list[str] = []
        for s in scores:
            keys += [k for k in (s.score.value if isinstance(s.score.value, dict) else {}) if k not in keys]
        out = {}
        for k in keys:
            vals = [float(s.score.value[k]) for s in scores if isinstance(s.score.value, dict) and k in s.score.value]
            out[k] = sum(vals) / len(vals) if vals else math.nan
        return out

    return compute


@scorer(metrics=[summary_means()])
def episode_summary(metrics: Sequence[str]) -> Any:
    """The episode's metrics from the ToM recorder's summary (a summary key or one of its functional
    ``outcome`` values, :func:`benchmarks.family_command.metric`; a record's ``row``, the episode's values in
    the units of the family's rows, comes first); a metric the episode has not is left out."""
    from benchmarks.family_command import metric as summary_metric

    async def score(state: TaskState, target: Target) -> Score:
        record = state.store.get(RECORD) or {}
        episode = record.get("episode", {})
        # a family whose rows are not plain means of summary keys gives each episode's row values
        values = {k: summary_metric({**episode, **record.get("row", {})}, k) for k in metrics}
        kept = {k: float(v) for k, v in values.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
        kept.update({k: float(v) for k, v in values.items() if isinstance(v, bool)})
        return Score(value=kept or {"episodes": 1.0}, metadata={"episode": episode})

    return score


# ---------------------------------------------------------------------- registration
def _summary_line(episode: Mapping[str, Any], metrics: Sequence[str]) -> str:
    from benchmarks.family_command import metric as summary_metric

    return ", ".join(f"{k}={summary_metric(episode, k)}" for k in metrics)


def _jsonable(value: Any) -> Any:
    """``value`` with numpy scalars and arrays, tuples and non-string keys made JSON values."""
    import json

    return json.loads(json.dumps(value, default=_plain))


def _plain(value: Any) -> Any:
    if hasattr(value, "tolist"):
        return value.tolist()
    if hasattr(value, "item"):
        return value.item()
    return str(value)


def _register(spec: QATask | EpisodeTask) -> Any:
    """Register ``spec`` with Inspect as ``tom_envs/<name>``."""
    build = qa_task if isinstance(spec, QATask) else episode_task

    def factory(**params: Any) -> Task:
        return build(spec, task_options(spec, params))

    factory.__name__ = factory.__qualname__ = spec.name.replace("-", "_")
    factory.__doc__ = spec.description
    # Inspect names an extension's task after the installed package of the module defining it. The
    # tasks are the suite's, named in its import package (the entry point's name): where Inspect
    # sees tom_envs as an installed package they are its tasks; elsewhere (an editable checkout
    # whose egg-info is on sys.path hides the install) they keep their module and take the name.
    factory.__module__ = NAMESPACE
    try:
        from inspect_ai._util.package import get_installed_package_name

        prefixed = get_installed_package_name(factory) == NAMESPACE
    except ImportError:  # pragma: no cover - an Inspect without it
        prefixed = False
    if not prefixed:
        factory.__module__ = __name__
    return task(name=spec.name if prefixed else f"{NAMESPACE}/{spec.name}")(factory)


TASKS = {spec.name: _register(spec) for spec in declared_tasks()}

__all__ = ["NAMESPACE", "SHARED", "TASKS", "InspectTaskError", "episode_task", "qa_task", "task_options"]
