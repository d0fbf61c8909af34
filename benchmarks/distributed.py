"""Evaluation grids past one machine: the matrix grid's episodes as Ray tasks.

::

    tom-envs matrix --policy tabular,oracle --games RPS,IBS,IPD --episodes 300 \\
        --executor ray [--ray-address auto] [--ray-chunk 25]

Each cell's missing episodes (those not yet in its results file) are cut into chunks of
``--ray-chunk`` seeds; each chunk is one Ray task that plays its episodes exactly as the
in-process runner does (:func:`benchmarks.runner.cell_records`) and returns the records. The
driver holds the lock of every cell's results file for the run (:mod:`benchmarks.results`) and
appends each task's records to the cell's JSONL file the moment the task finishes, so a
run that is stopped keeps every finished chunk and a rerun resumes; the rows are computed from the
files afterwards, identical to an in-process run with the same seeds (episode i always uses seed
+ i, whatever worker plays it).

Without ``--ray-address`` a local Ray instance is started (``--ray-num-cpus`` workers, default:
all cores) and stopped at the end; ``auto`` or ``ray://host:10001`` joins an existing cluster,
whose nodes need tom-envs installed (``pip install 'tom-envs[ray]'``). Ray is imported only here,
only when asked for. LLM policies keep their one in-process engine (batched lockstep) and are not
distributed this way.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any, Sequence

from benchmarks.errors import RunnerError
from benchmarks.runner import Cell, cell_records, progress_bar
from tom_envs.errors import import_optional


def _play_chunk(cell: Cell, seeds: list[int], lockstep: int) -> list[dict]:
    """The Ray task: the records of ``seeds`` in ``cell``."""
    return list(cell_records(cell, seeds, lockstep=lockstep))


class RayExecutor:
    """Runs the missing episodes of grid cells as Ray tasks; the driver writes the results.

    Args:
        address: ``None`` starts a local Ray instance for the run; ``"auto"`` or a ``ray://``
            address joins a running cluster. Ignored when Ray is already initialised.
        num_cpus: CPUs of the local instance (default: all).
        chunk: episodes per task (smaller: finer progress and less lost on a stop; larger: less
            overhead).
    """

    def __init__(self, address: str | None = None, num_cpus: int | None = None, chunk: int = 25) -> None:
        if isinstance(chunk, bool) or not isinstance(chunk, int) or chunk < 1:
            raise RunnerError(f"--ray-chunk must be an integer >= 1, got {chunk!r}")
        if num_cpus is not None and (isinstance(num_cpus, bool) or not isinstance(num_cpus, int) or num_cpus < 1):
            raise RunnerError(f"--ray-num-cpus must be an integer >= 1, got {num_cpus!r}")
        self.address, self.num_cpus, self.chunk = address, num_cpus, chunk
        self.tasks = 0  # tasks submitted by the last run

    def run(self, cells: Sequence[Cell], seeds: Sequence[int], out: Path, lockstep: int = 1,
            progress: bool | None = False) -> int:
        """Play every missing (cell, seed) episode; returns how many records were written."""
        ray = import_optional("ray", "ray", "the Ray executor (--executor ray)")
        with contextlib.ExitStack() as stack:
            files = {cell.key: stack.enter_context(cell.results(out)) for cell in cells}
            work = []
            for cell in cells:
                todo = files[cell.key].missing(seeds)
                work += [(cell, todo[i : i + self.chunk]) for i in range(0, len(todo), self.chunk)]
            self.tasks = len(work)
            if not work:
                return 0
            return self._run(ray, work, files, lockstep, progress)

    def _run(self, ray: Any, work: list, files: dict, lockstep: int, progress: bool | None) -> int:
        started = not ray.is_initialized()
        if started:
            kwargs: dict[str, Any] = {"include_dashboard": False, "logging_level": "ERROR", "log_to_driver": False}
            if self.address is None:
                kwargs["num_cpus"] = self.num_cpus
            ray.init(address=self.address, **kwargs)
        written = 0
        bar = progress_bar(sum(len(s) for _, s in work), "ray episodes", progress)
        try:
            task = ray.remote(_play_chunk)
            pending = {task.remote(cell, chunk, max(1, int(lockstep))): cell for cell, chunk in work}
            while pending:
                ready, _ = ray.wait(list(pending), num_returns=1)
                for ref in ready:
                    cell = pending.pop(ref)
                    records = ray.get(ref)
                    for record in records:
                        files[cell.key].append(record)
                    written += len(records)
                    bar.update(len(records))
        finally:
            bar.close()
            if started:
                ray.shutdown()
        return written

