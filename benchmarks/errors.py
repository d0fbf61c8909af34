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

