"""Which executor plays the runner's missing episodes (:func:`benchmarks.runner.run_cell`): none (this
process, the default) or the one of the innermost :func:`executing` block (``--executor ray``:
:class:`benchmarks.distributed.RayExecutor`). Kept apart from both so neither imports the other."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["current_executor", "executing"]

#: The executors of the open :func:`executing` blocks, innermost last.
_EXECUTORS: list[Any] = []


@contextmanager
def executing(executor: Any) -> Iterator[Any]:
    """Within the block, :func:`benchmarks.runner.run_cell` has ``executor`` play the missing episodes
    (None: played here). An executor has ``fill(cell, seeds, results, lockstep=, factory=, progress=)``:
    play ``seeds`` of ``cell`` somewhere and append their records to the open results file ``results``
    (in the order of ``seeds``, as the runner would), and ``run(cells, seeds, out, lockstep, progress)``:
    the same for several cells side by side, each file opened and locked by the executor."""
    _EXECUTORS.append(executor)
    try:
        yield executor
    finally:
        _EXECUTORS.pop()


def current_executor() -> Any:
    """The executor of the innermost :func:`executing` block, or None (episodes played in this process)."""
    return _EXECUTORS[-1] if _EXECUTORS else None
