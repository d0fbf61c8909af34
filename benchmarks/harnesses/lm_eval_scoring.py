"""The hooks lm-eval calls when it scores an exported task (``process_results`` and the
aggregations of the suite's metrics), bound to the family's own scorer: the ``utils.py`` that
``tom-envs export lm-eval`` writes beside each family's task files is two lines that import them
from here, so the scoring is the suite's code, never a copy.

A task's ``process_results_<task>(doc, results)`` reads lm-eval's (filtered) reply, ``results[0]``,
and returns the task's metrics of the family's per-document values
(:meth:`benchmarks.harnesses.lm_eval_family.Scorer.score`); each
``agg_<metric>(items)`` pools a metric the suite computes over all answers (an F1, a consistency)
with the family's :meth:`~benchmarks.harnesses.lm_eval_family.Scorer.aggregate`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmarks.harnesses.lm_eval_family import LMEvalExportError, adapter_of

#: The file beside the tasks holding what the scorer needs besides each document.
SCORING_FILE = "scoring.json"
#: The prefix of an aggregation hook's name (``agg_<metric>``).
AGG_PREFIX = "agg_"
#: The prefix of a task's ``process_results`` hook (``process_results_<task>``).
PROCESS_PREFIX = "process_results_"


def reply_of(results: Sequence[Any]) -> str:
    """lm-eval's reply to one document: the first (filtered) response of a ``generate_until`` request."""
    if not results:
        raise LMEvalExportError(
            "lm-eval passed no response to score (the exported tasks generate one reply per question)"
        )
    reply = results[0]
    return reply if isinstance(reply, str) else str(reply)


def hooks(
    family: str, scoring_file: str | Path, tasks: Mapping[str, Sequence[str]], suite_metrics: Sequence[str] = ()
) -> dict[str, Callable[..., Any]]:
    """The functions a family's generated ``utils.py`` exposes to lm-eval: per task a
    ``process_results_<task>`` returning that task's metrics, and one ``agg_<metric>`` per name in
    ``suite_metrics`` (the metrics the suite pools itself).

    Args:
        family: the family's name (its export, :func:`~benchmarks.harnesses.lm_eval_family.adapter_of`).
        scoring_file: the export's ``scoring.json`` (what the scorer needs besides each document).
        tasks: each task's name suffix (:func:`hook_name`) -> the names of its metrics.
        suite_metrics: the names of the metrics the suite pools.
    """
    path = Path(scoring_file)
    try:
        scoring = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LMEvalExportError(f"{path} is missing: export the tasks again with tom-envs export lm-eval") from None
    scorer = adapter_of(family).scorer(scoring)
    out: dict[str, Callable[..., Any]] = {}
    for task, metrics in tasks.items():
        out[hook_name(task)] = _process(scorer, tuple(metrics))
    for name in suite_metrics:
        out[AGG_PREFIX + name] = _aggregation(scorer, name)
    return out


def hook_name(task: str) -> str:
    """The name of a task's ``process_results`` hook in ``utils.py``."""
    return PROCESS_PREFIX + "".join(c if c.isalnum() else "_" for c in task)


def _process(scorer: Any, metrics: tuple[str, ...]) -> Callable[[Mapping[str, Any], Sequence[Any]], dict[str, Any]]:
    def process_results(doc: Mapping[str, Any], results: Sequence[Any]) -> dict[str, Any]:
        values = scorer.score(doc, reply_of(results))
        missing = [m for m in metrics if m not in values]
        if missing:
            raise LMEvalExportError(f"the scorer gave no {', '.join(missing)} for document {doc.get('id')!r}")
        return {m: values[m] for m in metrics}

    return process_results


def _aggregation(scorer: Any, name: str) -> Callable[[Sequence[Any]], float]:
    def aggregate(items: Sequence[Any]) -> float:
        return scorer.aggregate(name, list(items))

    aggregate.__name__ = AGG_PREFIX + name
    aggregate.__qualname__ = AGG_PREFIX + name
    return aggregate


__all__ = ["AGG_PREFIX", "PROCESS_PREFIX", "SCORING_FILE", "hook_name", "hooks", "reply_of"]
