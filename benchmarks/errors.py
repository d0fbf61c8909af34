"""The named errors of the evaluation spine (runner, results files, command line)."""

from __future__ import annotations

from tom_envs.errors import TomEnvsError


class RunnerError(TomEnvsError, ValueError):
    """Bad arguments to the evaluation runner or a benchmark command (the message says how to fix them)."""


class ResultsLocked(RunnerError):
    """Another run holds the lock of a results file: two runs never write the same episodes.

    The message names the file and the holder's process id; wait for that run to finish, or give
    this run another ``--out``.
    """


class WorkersLost(TomEnvsError, RuntimeError):
    """More Ray workers died during a run than ``--ray-lost-workers`` allows (:mod:`benchmarks.distributed`).

    Each loss before that restarted the worker and played its piece again; the records written so far
    are kept, so rerunning the same command resumes the run. The message says how many were lost.
    """
