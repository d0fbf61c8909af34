"""Evaluation past one process: every benchmark command's missing episodes on Ray workers.

::

    tom-envs matrix --policy tabular,oracle --episodes 300 --executor ray [--ray-address auto]
    tom-envs persuasion --policy llm --backend openai --base-url URL --model M --executor ray --ray-workers 8

Every benchmark command has ``--executor local|ray`` (:func:`benchmarks.cli.add_executor_options`);
with ``ray`` the command runs inside :func:`executor_from_args`, and every cell the runner plays
(:func:`benchmarks.runner.run_cell`, through which every family plays its episodes) hands the seeds
its results file lacks to the :class:`RayExecutor` (:func:`benchmarks.distributed_scope.executing`) instead of
playing them in the process. Families name no Ray: they call ``run_cell`` as always (a family that
knows all its cells at once may hand them over together with :meth:`RayExecutor.run`, so cells are
played side by side, as ``tom-envs matrix`` does).

* **Workers.** A pool of Ray actors (``--ray-workers``, default one per CPU of the cluster or per
  ``--ray-worker-gpus`` share of its GPUs) each plays pieces of ``--ray-chunk`` episodes of a cell
  exactly as the in-process runner does (:func:`benchmarks.runner.cell_records`, in lockstep batches
  of ``--lockstep``) and returns the records. LLM policies: the command's backend is a
  :class:`benchmarks.cli.BackendHandle` (its options, not an engine or a connection), and each
  worker builds its own backend from those options once and keeps it for every cell it plays (an
  in-process vLLM engine on the worker's GPU, or a client of the OpenAI-compatible server).
* **Records.** The driver holds every results file's lock (:mod:`benchmarks.results`) and appends a
  piece's records as soon as it and the pieces before it are back, in seed order, so a results file
  is byte for byte the in-process run's, and a run stopped at any point resumes to the same file
  (pieces that finished early wait for the earlier ones in memory; the driver sends a cell at most
  two pieces per worker ahead of what it has written).
* **No orphans.** Without ``--ray-address`` a local Ray instance is started for the command, in a
  temporary folder of its own, and stopped when it ends, also on SIGTERM or SIGINT (the handlers
  stop it) and when the driver is killed outright: a watchdog process
  (:mod:`benchmarks.distributed_watchdog`) notices the driver's end and stops what is left of that
  instance (Ray's own agents outlive a killed driver). Joining a cluster (``auto``, ``HOST:6379``,
  ``ray://host:10001``) leaves the cluster running; the command's actors end with it.
* **Lost workers.** A worker whose process dies (killed, out of memory, its node gone) loses only the
  piece it was playing: the driver starts a new worker in its place and sends it that piece again
  (episodes are played from their seeds, so the records are those the lost worker would have
  returned, and the file stays the in-process run's). A command survives ``--ray-lost-workers``
  such losses (default :data:`DEFAULT_LOST_WORKERS`, counted over the whole command); one more
  stops it with :class:`~benchmarks.errors.WorkersLost`, the records written so far kept for a rerun.
  A worker that fails while it starts (its constructor raised) is an error, not a loss.

Ray is imported only here, only when asked for (``pip install 'tom-envs[ray]'``); docs/distributed.md
has the multi-node recipe and measured figures.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks import policy_seeds
from benchmarks.cli_backends import backends_as, share_backends
from benchmarks.errors import RunnerError, WorkersLost
from benchmarks.distributed_scope import executing
from benchmarks.runner import Cell, cell_records, progress_bar
from tom_envs.errors import import_optional

__all__ = ["RayExecutor", "Worker", "executor_from_args"]

#: Episodes per piece when ``--ray-chunk`` is not given (or ``--lockstep``, when larger).
DEFAULT_CHUNK = 25
#: How many lost workers (a dead actor process) a command survives when ``--ray-lost-workers`` is not given.
DEFAULT_LOST_WORKERS = 3
#: How many pieces a cell may have in flight or waiting, per worker, past the last one written.
WINDOW_PER_WORKER = 2
#: The worker pool kept for the next executor of this process on a Ray instance that outlives executors
#: (one a notebook or a test started), by (the driver's Ray node, Ray job, workers, GPUs per worker);
#: at most one (a pool holds its CPUs for life).
_POOLS: dict[tuple, list[Any]] = {}


#: The Ray options (flag, ``args`` name, default), which mean nothing without ``--executor ray``.
_RAY_OPTIONS = (
    ("--ray-address", "ray_address", None),
    ("--ray-num-cpus", "ray_num_cpus", None),
    ("--ray-workers", "ray_workers", None),
    ("--ray-worker-gpus", "ray_worker_gpus", 0.0),
    ("--ray-chunk", "ray_chunk", None),
    ("--ray-lost-workers", "ray_lost_workers", None),
)


@contextlib.contextmanager
def executor_from_args(args: argparse.Namespace) -> Iterator["RayExecutor | None"]:
    """The executor of the command line, active for the block: None with ``--executor local`` (the
    default), else a :class:`RayExecutor` that every :func:`~benchmarks.runner.run_cell` of the block
    hands its missing episodes to, LLM backends handed out as handles (:func:`benchmarks.cli.backends_as`)."""
    if getattr(args, "executor", "local") != "ray":
        given = [flag for flag, name, default in _RAY_OPTIONS if getattr(args, name, default) != default]
        if given:
            raise RunnerError(
                f"{', '.join(given)} configure{'s' if len(given) == 1 else ''} the Ray executor; add "
                "--executor ray (or drop them)"
            )
        yield None
        return
    ex = RayExecutor(
        args.ray_address,
        args.ray_num_cpus,
        args.ray_chunk,
        getattr(args, "ray_workers", None),
        getattr(args, "ray_worker_gpus", 0.0),
        getattr(args, "ray_lost_workers", None),
    )
    with ex, backends_as("handle"), executing(ex):
        yield ex


class Worker:
    """A Ray worker (one actor): plays pieces of cells and returns their records.

    It imports every declared family's benchmark (the cells name their policies by family) and
    shares one LLM backend per options among all the cells it plays (:func:`benchmarks.cli.share_backends`).
    """

    def __init__(self) -> None:
        from tom_envs.family import families

        share_backends()
        for fam in families():
            if fam.benchmark:
                with contextlib.suppress(Exception):  # a cell that needs a broken one says so when it is played
                    importlib.import_module(fam.benchmark)

    def play(
        self, cell: Cell, seeds: list, lockstep: int, factory: Callable[[], Any] | None, entropy: int | None = None
    ) -> list[dict]:
        """The records of ``seeds``, the policies seeded from the driver's policy ``entropy`` for the cell
        (:mod:`benchmarks.policy_seeds`: the stored one on a resume), so a worker's records are the in-process run's."""
        with policy_seeds.scope(entropy):
            return list(cell_records(cell, seeds, factory, lockstep=lockstep))


@dataclass
class _Job:
    """One cell's missing episodes cut into pieces, and what of them is written."""

    cell: Cell
    results: Any  # the open ResultsFile
    pieces: list[list]
    factory: Callable[[], Any] | None = None
    entropy: int | None = None  # the policy entropy of the cell (stored records', else the run's)
    sent: int = 0  # pieces handed to workers
    lost: list[int] = field(default_factory=list)  # pieces whose worker died, to be sent again
    written: int = 0  # pieces appended to the file
    back: dict[int, list[dict]] = field(default_factory=dict)  # pieces back, not yet written


class RayExecutor:
    """Plays the missing episodes of cells on a pool of Ray workers; the driver writes the results.

    Use it as a context manager (a command does, through :func:`executor_from_args`); a call of
    :meth:`run` or :meth:`fill` outside one opens and closes a session for itself.

    Args:
        address: ``None`` starts a local Ray instance for the session (stopped at its end, or when
            the driver dies); ``"auto"``, ``"HOST:6379"`` or a ``ray://`` address joins a running
            cluster. Ignored when Ray is already initialised in this process.
        num_cpus: CPUs of the local instance (default: all).
        chunk: episodes per piece of work (default: 25, or the lockstep size when larger; fewer
            when a cell has fewer episodes than that per worker), rounded up to a multiple of the
            lockstep size (a worker's lockstep batches are then the in-process run's).
        workers: Ray workers (default: one per CPU of the cluster, or per ``worker_gpus`` share of its GPUs).
        worker_gpus: GPUs each worker reserves (1 for an in-process vLLM engine per worker).
        lost_workers: how many workers may die (their process killed or crashed, their node lost)
            over the executor's life, each replaced by a new worker that plays the lost piece again;
            one more raises :class:`~benchmarks.errors.WorkersLost` (default: :data:`DEFAULT_LOST_WORKERS`).
    """

    def __init__(
        self,
        address: str | None = None,
        num_cpus: int | None = None,
        chunk: int | None = None,
        workers: int | None = None,
        worker_gpus: float = 0.0,
        lost_workers: int | None = None,
    ) -> None:
        for name, value in (("--ray-chunk", chunk), ("--ray-num-cpus", num_cpus), ("--ray-workers", workers)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise RunnerError(f"{name} must be an integer >= 1, got {value!r}")
        if lost_workers is None:
            lost_workers = DEFAULT_LOST_WORKERS
        if isinstance(lost_workers, bool) or not isinstance(lost_workers, int) or lost_workers < 0:
            raise RunnerError(f"--ray-lost-workers must be an integer >= 0, got {lost_workers!r}")
        if isinstance(worker_gpus, bool) or not isinstance(worker_gpus, (int, float)) or not worker_gpus >= 0:
            raise RunnerError(f"--ray-worker-gpus must be a number >= 0, got {worker_gpus!r}")
        self.address, self.num_cpus, self.chunk = address, num_cpus, chunk
        self.workers, self.worker_gpus = workers, float(worker_gpus)
        self.lost_workers = lost_workers
        self.tasks = 0  # pieces sent by the last run or fill
        self.lost = 0  # workers lost (and replaced) over the executor's life
        self._actor: Any = None  # the Worker actor class, as the pool's workers were made
        self._ray: Any = None
        self._pool: list[Any] = []
        self._started = False
        self._depth = 0
        self._watchdog: subprocess.Popen | None = None
        self._temp_dir: str | None = None
        self._handlers: dict[int, Any] = {}
        self._stdout: _RayNotesToStderr | None = None

    # ------------------------------------------------------------------ the session
    def __enter__(self) -> "RayExecutor":
        if self._depth == 0 and not isinstance(sys.stdout, _RayNotesToStderr):
            self._stdout = sys.stdout = _RayNotesToStderr(sys.stdout)
        self._depth += 1
        return self

    def __exit__(self, *exc: Any) -> None:
        self._depth -= 1
        if self._depth == 0:
            try:
                self.close()
            finally:
                if self._stdout is not None and sys.stdout is self._stdout:
                    sys.stdout = self._stdout.wrapped
                self._stdout = None

    def _connect(self) -> Any:
        if self._ray is not None:
            return self._ray
        ray = import_optional("ray", "ray", "the Ray executor (--executor ray)")
        if not ray.is_initialized():
            kwargs: dict[str, Any] = {"include_dashboard": False, "logging_level": "ERROR", "log_to_driver": False}
            if self.address is None:
                self._temp_dir = tempfile.mkdtemp(prefix="tomray-", dir="/tmp" if os.path.isdir("/tmp") else None)
                self._watchdog = _start_watchdog(self._temp_dir)
                self._catch_signals()
                kwargs.update(num_cpus=self.num_cpus, _temp_dir=self._temp_dir)
            ray.init(address=self.address, **kwargs)
            self._started = True
        self._ray = ray
        return ray

    def _workers(self) -> list[Any]:
        """The pool of workers (started on first use; on a Ray instance this executor did not start,
        the pool of an earlier executor of this process with the same shape is used again, its
        backends built already)."""
        if not self._pool:
            ray = self._connect()
            resources = ray.cluster_resources()
            n = self.workers or _default_workers(resources, self.worker_gpus)
            _check_fits(resources, n, self.worker_gpus)
            # more workers than CPUs share them (an actor holds its CPUs for life: a whole one each
            # would leave the rest waiting forever)
            cpus = min(1.0, max(1.0, resources.get("CPU", 1.0)) / n)
            self._actor = ray.remote(num_cpus=cpus, num_gpus=self.worker_gpus)(Worker)
            context = ray.get_runtime_context()
            key = (context.get_node_id(), context.get_job_id(), n, self.worker_gpus)
            if self._started or key not in _POOLS:
                for other in list(_POOLS):  # a kept pool holds its CPUs: stop it before starting another
                    for worker in _POOLS.pop(other):
                        with contextlib.suppress(Exception):
                            ray.kill(worker)
                _POOLS[key] = [self._actor.remote() for _ in range(n)]
            self._pool = _POOLS[key]
        return self._pool

    def _replace(self, worker: Any, err: Exception, job: _Job, index: int) -> Any:
        """A new worker in the place of ``worker``, whose process died (``err``) while it played piece
        ``index`` of ``job``; :class:`~benchmarks.errors.WorkersLost` once more workers died than allowed."""
        self.lost += 1
        reason = " ".join(str(err).split())
        if self.lost > self.lost_workers:
            raise WorkersLost(
                f"{self.lost} Ray worker{'s' if self.lost > 1 else ''} died during this command, more than "
                f"--ray-lost-workers {self.lost_workers} allows (the last: {reason[:300]}). The records written so far "
                "are kept: rerun the same command to resume, once you know why workers die (memory: a worker killed "
                "by the out-of-memory killer; a node that left the cluster), or allow more losses with "
                "--ray-lost-workers"
            ) from err
        with contextlib.suppress(Exception):
            self._ray.kill(worker)
        new = self._actor.remote()
        self._pool[self._pool.index(worker)] = new  # in place: a kept pool (_POOLS) is this list too
        piece = job.pieces[index]
        print(
            f"warning: a Ray worker died while it played seeds {piece[0]}..{piece[-1]} of cell {job.cell.slug()}; "
            f"a new worker plays them again (lost workers: {self.lost} of at most {self.lost_workers}, "
            f"--ray-lost-workers)",
            file=sys.stderr,
        )
        return new

    def _drop_pool(self) -> None:
        """Stop the workers (after an error, or with the instance this executor started)."""
        for key in [k for k, pool in _POOLS.items() if pool is self._pool]:
            del _POOLS[key]
        for worker in self._pool:
            with contextlib.suppress(Exception):
                self._ray.kill(worker)
        self._pool = []

    def close(self) -> None:
        """Stop the local Ray instance if this executor started it (and its workers with it)."""
        try:
            if self._ray is not None and self._started:
                self._drop_pool()
                _POOLS.clear()
                self._ray.shutdown()
        finally:
            self._ray = None
            self._pool, self._started = [], False
            self._restore_signals()
            if self._watchdog is not None:
                _stop_watchdog(self._watchdog)
                self._watchdog = None
            if self._temp_dir is not None:
                shutil.rmtree(self._temp_dir, ignore_errors=True)
                self._temp_dir = None

    def _catch_signals(self) -> None:
        """SIGTERM ends the command as SIGINT does (the session is closed on the way out)."""
        with contextlib.suppress(ValueError):  # not the main thread: the watchdog still cleans up
            if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):
                self._handlers[signal.SIGTERM] = signal.signal(signal.SIGTERM, _terminate)

    def _restore_signals(self) -> None:
        while self._handlers:
            signum, handler = self._handlers.popitem()
            with contextlib.suppress(ValueError):
                signal.signal(signum, handler)

    # ------------------------------------------------------------------ the work
    def run(
        self, cells: Sequence[Cell], seeds: Sequence, out: Path, lockstep: int = 1, progress: bool | None = False
    ) -> int:
        """Play every missing (cell, seed) episode of ``cells`` side by side; returns how many records were written."""
        with contextlib.ExitStack() as stack:
            files = [stack.enter_context(cell.results(out)) for cell in cells]
            return self._play([(cell, f.missing(seeds), f, None) for cell, f in zip(cells, files)], lockstep, progress)

    def fill(
        self,
        cell: Cell,
        seeds: Sequence,
        results: Any,
        lockstep: int = 1,
        factory: Callable[[], Any] | None = None,
        progress: bool | None = False,
    ) -> int:
        """Play ``seeds`` of ``cell`` and append their records to the open results file ``results``
        (what :func:`benchmarks.runner.run_cell` asks of an executor)."""
        return self._play([(cell, list(seeds), results, factory)], lockstep, progress)

    def _play(self, work: list[tuple], lockstep: int, progress: bool | None) -> int:
        lockstep = max(1, int(lockstep))
        work = [w for w in work if w[1]]
        self.tasks = 0
        if not work:  # everything is stored: no Ray to start
            return 0
        with self:
            workers = self._workers()
            jobs = [
                _Job(
                    cell,
                    results,
                    self._cut(todo, lockstep, len(workers)),
                    factory,
                    policy_seeds.of_records(results.records.values()),
                )
                for cell, todo, results, factory in work
            ]
            self.tasks = sum(len(job.pieces) for job in jobs)
            bar = progress_bar(sum(len(p) for job in jobs for p in job.pieces), "ray episodes", progress)
            try:
                return self._dispatch(jobs, workers, lockstep, bar)
            except BaseException:
                self._drop_pool()  # pieces may still run on them: not reused
                raise
            finally:
                bar.close()

    def _cut(self, todo: list, lockstep: int, workers: int) -> list[list]:
        """Pieces of ``todo``: a multiple of ``lockstep`` each, so the lockstep batches are the in-process
        run's (an engine's numbers can depend on what is batched together)."""
        size = self.chunk or max(1, min(max(DEFAULT_CHUNK, lockstep), math.ceil(len(todo) / workers)))
        size = math.ceil(size / lockstep) * lockstep
        return [todo[i : i + size] for i in range(0, len(todo), size)]

    def _dispatch(self, jobs: list[_Job], workers: list[Any], lockstep: int, bar: Any) -> int:
        ray, idle, running, written = self._ray, list(workers), {}, 0
        window = WINDOW_PER_WORKER * len(workers)
        while True:
            for job in jobs:
                while idle and (job.lost or (job.sent < len(job.pieces) and job.sent < job.written + window)):
                    if job.lost:  # a lost piece first: the pieces after it wait for it to be written
                        index = job.lost.pop(0)
                    else:
                        index, job.sent = job.sent, job.sent + 1
                    worker = idle.pop()
                    ref = worker.play.remote(job.cell, job.pieces[index], lockstep, job.factory, job.entropy)
                    running[ref] = (job, index, worker)
            if not running:
                return written
            ready, _ = ray.wait(list(running), num_returns=1)
            job, index, worker = running.pop(ready[0])
            try:
                job.back[index] = _get(ray, ready[0])
            except ray.exceptions.RayActorError as err:
                if err.actor_init_failed:  # the worker's constructor raised: no new worker would do better
                    raise
                idle.append(self._replace(worker, err, job, index))
                job.lost = sorted([*job.lost, index])
                continue
            idle.append(worker)
            while job.written in job.back:  # in seed order: the file is the in-process run's
                for record in job.back.pop(job.written):
                    job.results.append(record)
                    written += 1
                    bar.update(1)
                job.written += 1


class _RayNotesToStderr:
    """``sys.stdout`` while an executor's session is open: what Ray's error-listening thread of the driver
    prints (the raylet's note that a worker died, which Ray writes on stdout) goes to stderr, since a command's
    stdout is its table or its JSON; everything else goes to the stdout it wraps."""

    THREAD = "ray_listen_error_messages"  # ray/_private/worker.py names the thread so

    def __init__(self, wrapped: Any) -> None:
        self.wrapped = wrapped

    def write(self, text: str) -> int:
        target = sys.stderr if threading.current_thread().name == self.THREAD else self.wrapped
        return target.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.wrapped, name)


def _get(ray: Any, ref: Any) -> list[dict]:
    """A piece's records; a worker's error raised as itself (a named error stays one)."""
    try:
        return ray.get(ref)
    except ray.exceptions.RayTaskError as err:
        cause = getattr(err, "cause", None)
        if isinstance(cause, Exception):
            raise cause from err
        raise


def _default_workers(resources: dict[str, float], worker_gpus: float) -> int:
    cpus = max(1, int(resources.get("CPU", 1)))
    if worker_gpus > 0:
        gpus = int(resources.get("GPU", 0) // worker_gpus)
        if gpus < 1:
            raise RunnerError(
                f"--ray-worker-gpus {worker_gpus:g}: the Ray cluster has {resources.get('GPU', 0):g} "
                "GPUs; give fewer GPUs per worker, or 0 for workers without one"
            )
        return min(cpus, gpus)
    return cpus


def _check_fits(resources: dict[str, float], workers: int, worker_gpus: float) -> None:
    if worker_gpus > 0 and workers * worker_gpus > resources.get("GPU", 0) + 1e-9:
        raise RunnerError(
            f"--ray-workers {workers} x --ray-worker-gpus {worker_gpus:g} needs "
            f"{workers * worker_gpus:g} GPUs; the Ray cluster has {resources.get('GPU', 0):g} (give fewer "
            "workers or a smaller share each)"
        )


def _terminate(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)


def _start_watchdog(temp_dir: str) -> subprocess.Popen | None:
    """The process that stops the local Ray instance in ``temp_dir`` when this driver ends, however it
    ends (None, with a warning, without psutil)."""
    try:
        import psutil  # noqa: F401  (the watchdog's)
    except ImportError:
        print(
            "warning: psutil is not installed, so a local Ray instance is not watched: if this command is "
            "killed (SIGKILL), Ray's agents may outlive it (pip install psutil)",
            file=sys.stderr,
        )
        return None
    return subprocess.Popen(
        [sys.executable, "-m", "benchmarks.distributed_watchdog", str(os.getpid()), temp_dir],
        stdin=subprocess.PIPE,
        start_new_session=True,
        close_fds=True,
    )


def _stop_watchdog(proc: subprocess.Popen) -> None:
    """Tell the watchdog the instance was stopped (it clears what is left of it and ends)."""
    with contextlib.suppress(OSError, ValueError):
        proc.stdin.write(b"stop\n")
        proc.stdin.close()
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=15)
