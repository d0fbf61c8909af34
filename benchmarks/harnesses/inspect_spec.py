"""What a family declares to appear as Inspect AI tasks, and where the harness finds it.

A family puts its Inspect tasks in ``benchmarks/<family>/inspect_tasks.py`` (the package of its
``Family.benchmark`` module, ``inspect_tasks``): a ``TASKS`` tuple of

* :class:`QATask`: a question-answering env as a dataset of Samples, one per scored question, each
  put to the model with the family's protocol (its messages, reading rule and re-asks) and scored
  as the family's benchmark scores it (the env's gold answer; accuracy overall and per group);
* :class:`EpisodeTask`: an env played as an agentic task, one Sample per episode (seed): a solver
  plays the episode through the suite's runner with the family's LLM policy on the eval's model,
  and the other LLM seats on Inspect model roles; the scorer reads the ToM recorder's episode
  summary (literal ToM: ``tom_accuracy`` and per-target accuracies; functional: the family's
  outcome), the same numbers the family's command averages into its rows.

The harness (:mod:`benchmarks.harnesses.inspect_tasks`) registers each declaration as the Inspect
task ``tom_envs/<name>``; it names no family.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tom_envs.errors import TomEnvsError

__all__ = [
    "SHARED",
    "EpisodeRun",
    "EpisodeTask",
    "InspectTaskError",
    "QAItem",
    "QARun",
    "QATask",
    "declared_tasks",
    "task_options",
]


class InspectTaskError(TomEnvsError, ValueError):
    """A task parameter the task does not take, or a value it cannot use (the message says which)."""


#: The module, inside a family's benchmark package, that declares its Inspect tasks.
MODULE = "inspect_tasks"


@dataclass(frozen=True)
class QAItem:
    """One scored question of a QA task (a Sample).

    Attributes:
        id: unique within the task (e.g. ``"<dialogue>:<question index>"``).
        observation: what the policy sees for this question (the env's observation; answers given
            earlier never change it).
        answer: the gold option index (the scorer's; never shown to the model).
        group: the row it is also scored in (question type or order), or None.
        messages: the chat messages the protocol sends (shown as the Sample's input).
        metadata: anything else worth keeping in the log (dialogue id, turn, ...).
    """

    id: str
    observation: Any
    answer: int
    group: str | None
    messages: list[dict[str, Any]]
    metadata: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class QARun:
    """One question answered by the family's protocol: its settings (task parameters) and the backend."""

    options: Mapping[str, Any]
    backend: Any
    seed: int


@dataclass(frozen=True)
class QATask:
    """A QA env as an Inspect task.

    Attributes:
        name: the task's name (``inspect eval tom_envs/<name>``).
        env_id: the registered id it reads.
        items: ``items(options) -> [QAItem]``: the scored questions (``options``: the task parameters,
            ``data_dir`` and the family's own).
        answer: ``answer(run, item) -> (index or None, details)``: the family's protocol answers
            one question (a :class:`QAItem`) on ``run.backend`` (None: a reply the protocol counts
            wrong); runs in a worker thread.
        options: the task parameters the family takes beyond the shared ones, with their defaults
            (a shared one named here takes this default instead).
        description: one line for docs and ``--help``-like listings.
        refuses: the shared parameters the task does not take, each with the reason (and what to
            use instead): giving one is an :class:`InspectTaskError`, never silently ignored.
        split_options: ``split_options(env_id, split) -> options``: the task parameters that play
            ``split`` of ``tom-envs rl`` (``train``/``test``; the training adapters,
            :mod:`benchmarks.train`); None: the task has no such split (the adapters split by seed only).
    """

    name: str
    env_id: str
    items: Callable[[Mapping[str, Any]], Sequence[QAItem]]
    answer: Callable[[QARun, QAItem], tuple[int | None, dict[str, Any]]]
    options: Mapping[str, Any] = field(default_factory=dict)
    description: str = ""
    refuses: Mapping[str, str] = field(default_factory=dict)
    split_options: Callable[[str, str], Mapping[str, Any]] | None = None


@dataclass(frozen=True)
class EpisodeRun:
    """One episode to play: the env id, its seed, the task parameters, the backends by role
    (``None``: the eval's model; other keys: the declaration's ``roles``) and what else names the
    episode (the declaration's ``episodes``: e.g. a scenario)."""

    env_id: str
    seed: int
    options: Mapping[str, Any]
    backends: Mapping[str | None, Any]
    episode: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class EpisodeTask:
    """An env played as an agentic Inspect task.

    Attributes:
        name: the task's name (``inspect eval tom_envs/<name>``).
        env_id: the registered id played by default (``-T env=ID`` picks another the play accepts).
        play: ``play(run) -> record``: one episode through the suite's runner, the record as the
            family's command stores it (its ``episode`` is the recorder's summary); runs in a
            worker thread.
        metrics: keys of the episode summary, or of its functional ``outcome``, scored per episode
            and averaged (:func:`benchmarks.family_command.metric`).
        roles: Inspect model roles of the other LLM seats (``--model-role NAME=MODEL``); a role not
            bound uses the eval's model.
        options: the task parameters the family takes beyond the shared ones, with their defaults
            (a shared one named here takes this default instead).
        description: one line for docs.
        episodes: ``episodes(options) -> [(id, seed, episode)]``: the Samples, when an episode is
            more than a seed (e.g. a scenario × seed); default: seeds ``seed .. seed + episodes - 1``.
        also_plays: ids of another env class the play accepts too (``-T env=ID``), e.g. a later
            version of the env; ids of ``env_id``'s own class are always accepted.
        refuses: the shared parameters the task does not take, each with the reason (as :class:`QATask`'s).
        check: ``check(options)``: raises :class:`InspectTaskError` for values the play cannot use, when
            the task is made (before any Sample runs); None: no check beyond the shared ones.
        reward: the functional outcome a trainer maximises (:mod:`benchmarks.train`): one of
            ``metrics``, with a leading ``-`` where less is better (a regret); None: the first metric.
        split_options: as :class:`QATask`'s.
    """

    name: str
    env_id: str
    play: Callable[[EpisodeRun], dict[str, Any]]
    metrics: Sequence[str]
    roles: Sequence[str] = ()
    options: Mapping[str, Any] = field(default_factory=dict)
    description: str = ""
    episodes: Callable[[Mapping[str, Any]], Sequence[tuple[str, int, Mapping[str, Any]]]] | None = None
    also_plays: Sequence[str] = ()
    refuses: Mapping[str, str] = field(default_factory=dict)
    check: Callable[[Mapping[str, Any]], None] | None = None
    reward: str | None = None
    split_options: Callable[[str, str], Mapping[str, Any]] | None = None


def declared_tasks() -> list[QATask | EpisodeTask]:
    """Every declared family's Inspect tasks, families in their listing order."""
    from tom_envs.family import families

    found: list[QATask | EpisodeTask] = []
    for fam in families():
        module = fam.beside_benchmark(MODULE)
        if module is not None:
            found.extend(module.TASKS)
    return found


#: Shared task parameters and their defaults.
SHARED = {
    "env": None,
    "episodes": 10,
    "seed": 0,
    "horizon": None,
    "data_dir": None,
    "max_resamples": 10,
    "fallback": "raise",
}


def task_options(spec: QATask | EpisodeTask, given: Mapping[str, Any]) -> dict[str, Any]:
    """The shared parameters and the family's, defaults filled in; an unknown name, or a shared one the
    task refuses (``spec.refuses``), is an error."""
    refused = [name for name in given if name in spec.refuses and given[name] is not None]
    if refused:
        raise InspectTaskError(
            "; ".join(f"tom_envs/{spec.name} does not take -T {name}: {spec.refuses[name]}" for name in refused)
        )
    known = {k: v for k, v in {**SHARED, **spec.options}.items() if k not in spec.refuses}
    unknown = sorted(set(given) - set(known) - set(spec.refuses))
    if unknown:
        raise InspectTaskError(
            f"tom_envs/{spec.name} takes no parameter {', '.join(unknown)}; it takes "
            f"{', '.join(sorted(known))} (-T NAME=VALUE)"
        )
    options = {**known, **{k: v for k, v in given.items() if v is not None}}
    options["env"] = options["env"] or spec.env_id
    import tom_envs

    mine = tom_envs.REGISTRY[spec.env_id]
    same = [
        r.id
        for r in tom_envs.REGISTRY.values()
        if (r.family, r.kind, r.entry_point) == (mine.family, mine.kind, mine.entry_point)
    ]
    same += [i for i in getattr(spec, "also_plays", ()) if i not in same]
    if str(options["env"]) not in same:
        raise InspectTaskError(
            f"tom_envs/{spec.name} plays {', '.join(same)}; -T env={options['env']} is not one of "
            "them (another family's id has its own task)"
        )
    from benchmarks.cli_llm import FALLBACKS

    if str(options.get("fallback", "raise")) not in FALLBACKS:
        raise InspectTaskError(f"-T fallback must be one of {', '.join(FALLBACKS)}, got {options['fallback']!r}")
    if isinstance(spec, EpisodeTask) and spec.check is not None:
        spec.check(options)
    return options
