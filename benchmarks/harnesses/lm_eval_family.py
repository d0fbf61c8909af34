"""What a QA family gives the lm-evaluation-harness export (``tom-envs export lm-eval DIR``).

A family that can be exported has a module ``lm_eval`` beside its benchmark module (``benchmarks.<family>.lm_eval``
for the built-in families, the same place in a plugin's own package, as its Inspect tasks) with an ``LM_EVAL``
attribute: an :class:`LMEvalFamily`. The export (:mod:`benchmarks.harnesses.lm_eval_export`) finds
them for every declared family (:func:`adapters`), asks each for its questions as lm-eval documents
in the authors' protocol (:meth:`LMEvalFamily.export`), and writes the tasks; the scoring hooks the
tasks call (:mod:`benchmarks.harnesses.lm_eval_scoring`) get the family's :class:`Scorer` back
from it (:meth:`LMEvalFamily.scorer`). Nothing here names a family.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from tom_envs.errors import TomEnvsError

#: The module of a family's export, in the package of its benchmark module (``benchmarks.<family>.<ADAPTER_MODULE>``).
ADAPTER_MODULE = "lm_eval"
ADAPTER_ATTRIBUTE = "LM_EVAL"
#: How lm-eval pools a metric over documents: ``"mean"`` (its own mean, with its standard error) or
#: ``"suite"`` (the family's :meth:`Scorer.aggregate`, the suite's own metric function).
AGGREGATIONS = ("mean", "suite")


class LMEvalExportError(TomEnvsError, ValueError):
    """Bad input to ``tom-envs export lm-eval``: an unknown family, split or mode, an output folder
    that is a file or holds files of something else, options that do not fit the families chosen."""


@dataclass(frozen=True)
class Source:
    """Where a family's questions come from and how they are put.

    Attributes:
        data_dir: the data folder (a copy of the authors' release); None: the bundled sample.
        split: the family's split (None: its default, :attr:`LMEvalFamily.default_split`).
        authors_prompts: a file to read the authors' prompt texts from, for a family that reads them
            from a file of the release (None: where the suite looks for it).
        system_in_user: put the system text into the user message (the release's layout for models
            without a system role), for a family whose protocol has a system message.
        qa_mode: the protocol's mode (``"zero_shot"``, or ``"cot"`` where the family has it).
    """

    data_dir: str | None = None
    split: str | None = None
    authors_prompts: str | None = None
    system_in_user: bool = False
    qa_mode: str = "zero_shot"


@dataclass(frozen=True)
class Metric:
    """One metric of an exported task.

    Attributes:
        name: its name in lm-eval's results (and in :meth:`Scorer.score`'s dict).
        aggregation: ``"mean"`` (lm-eval's mean of the per-document values, with a standard error) or
            ``"suite"`` (:meth:`Scorer.aggregate` over the per-document values: the suite's function).
        higher_is_better: as lm-eval reports it.
    """

    name: str
    aggregation: str = "mean"
    higher_is_better: bool = True

    def __post_init__(self) -> None:
        if self.aggregation not in AGGREGATIONS:
            raise LMEvalExportError(
                f"metric {self.name}: aggregation must be one of {AGGREGATIONS}, got {self.aggregation!r}"
            )


@dataclass(frozen=True)
class TaskData:
    """One exported task: a question type's documents (one per question) and its metrics.

    Attributes:
        suffix: the task's name after the family's prefix (e.g. the question type).
        docs: the documents: each has ``prompt`` (the user message, exactly as the suite sends it),
            ``answer`` (the gold answer as text), ``system`` where the family sends a system message,
            and whatever its scorer reads.
        metrics: what the task reports.
        in_group: whether the family's group lists it (a task over every question is not, so the
            group's pooled metrics count each question once).
        alias: the name lm-eval prints.
    """

    suffix: str
    docs: Sequence[Mapping[str, Any]]
    metrics: Sequence[Metric]
    in_group: bool = True
    alias: str = ""


@dataclass(frozen=True)
class FamilyExport:
    """A family's questions as lm-eval tasks.

    Attributes:
        tasks: the tasks, in the suite's order.
        generation: lm-eval's ``generation_kwargs`` (the authors' request parameters).
        group_metrics: metrics the family's group pools over its tasks (weighted by size, so equal to
            the metric over all their questions); empty: the group only lists its tasks.
        scoring: what the scorer needs beside each document (written to ``scoring.json``).
        info: what the manifest says of the export (data, split, prompt source, protocol, ...).
    """

    tasks: Sequence[TaskData]
    generation: Mapping[str, Any]
    group_metrics: Sequence[str] = ()
    scoring: Mapping[str, Any] = field(default_factory=dict)
    info: Mapping[str, Any] = field(default_factory=dict)


class Scorer(Protocol):
    """Scores the model's replies as the suite does."""

    def score(self, doc: Mapping[str, Any], reply: str) -> dict[str, Any]:
        """Per metric of the document's task: its value for this reply (a number for ``"mean"``
        metrics, what :meth:`aggregate` takes for ``"suite"`` ones)."""

    def aggregate(self, metric: str, items: Sequence[Any]) -> float:
        """A ``"suite"`` metric over the per-document values :meth:`score` gave."""


class LMEvalFamily(Protocol):
    """A family's export to lm-eval (``benchmarks.<family>.lm_eval:LM_EVAL``).

    Attributes:
        family: the declared family's name (:attr:`tom_envs.family.Family.name`).
        prefix: the start of its task names and the name of its group.
        splits: the splits it exports (the suite's), and ``default_split``.
        modes: the protocol's modes (``"zero_shot"`` first).
    """

    family: str
    prefix: str
    splits: tuple[str, ...]
    default_split: str
    modes: tuple[str, ...]

    def export(self, source: Source) -> FamilyExport:
        """The family's questions of ``source`` as tasks (the suite's named errors on bad data)."""

    def scorer(self, scoring: Mapping[str, Any]) -> Scorer:
        """The scorer of an export whose ``scoring.json`` holds ``scoring``."""


@dataclass(frozen=True)
class ExportSettings:
    """The declared part of an :class:`LMEvalFamily`, as a base class: a family's export subclasses it, adds
    ``export`` and ``scorer``, and is instantiated once with its values (``LM_EVAL = MyExport(family=...,
    prefix=..., splits=..., default_split=...)``).

    Attributes:
        family: the declared family's name.
        prefix: the start of its task names and the name of its group.
        splits: the splits it exports; ``default_split`` the one exported without ``--split``.
        modes: the protocol's modes (``"zero_shot"`` first).
    """

    family: str
    prefix: str
    splits: tuple[str, ...]
    default_split: str
    modes: tuple[str, ...] = ("zero_shot",)


def adapters() -> dict[str, tuple[Any, LMEvalFamily]]:
    """Every declared family with an export: its command name -> (its :class:`~tom_envs.family.Family`,
    its :class:`LMEvalFamily`), in the families' order."""
    from tom_envs.family import families

    found = {}
    for fam in families():
        module = fam.beside_benchmark(ADAPTER_MODULE)  # as the Inspect tasks are found
        adapter = getattr(module, ADAPTER_ATTRIBUTE, None) if module is not None else None
        if adapter is not None:
            found[fam.command] = (fam, adapter)
    return found


def adapter_of(family: str) -> LMEvalFamily:
    """The export of the family named ``family`` (its :attr:`~tom_envs.family.Family.name` or command).

    Raises:
        LMEvalExportError: no declared family of that name has one.
    """
    found = adapters()
    for command, (fam, adapter) in found.items():
        if family in (command, fam.name):
            return adapter
    raise LMEvalExportError(
        f"unknown family {family!r} for the lm-eval export; choose from {', '.join(found) or '(none declared)'}"
    )


__all__ = [
    "ADAPTER_ATTRIBUTE",
    "ADAPTER_MODULE",
    "AGGREGATIONS",
    "FamilyExport",
    "LMEvalExportError",
    "LMEvalFamily",
    "Metric",
    "Scorer",
    "Source",
    "TaskData",
    "adapter_of",
    "adapters",
]
