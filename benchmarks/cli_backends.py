"""LLM backends built from the command line's options, here or in an executor's worker processes.

:func:`backend_from_args` builds the backend the LLM option group names (:func:`build_backend`, the one
place a command builds one; :func:`server_summary` reports on stderr the backends that needed retries).
Under an executor (:mod:`benchmarks.distributed`) it hands out :class:`BackendHandle` s instead, which
pickle as their options and which a worker rebuilds once and shares among its cells
(:func:`backends_as`, :func:`share_backends`, :func:`shared_backend`).
"""

from __future__ import annotations

import argparse
import contextlib
import json
from collections.abc import Iterator
from typing import Any

from benchmarks.cli_llm import llm_settings
from benchmarks.errors import RunnerError
from benchmarks.results import FAULT_WORDS


def build_backend(
    kind: str,
    model: str | None,
    base_url: str | None = None,
    seed: int = 0,
    tokenizer: str | None = None,
    max_model_len: int | None = None,
    scoring_path: str = "auto",
    options: dict[str, Any] | None = None,
) -> Any:
    """The LLM backend named on the command line: :func:`policies.llm.build_backend` (the one
    builder; imported only when a backend is needed). Its ``BackendConfigError`` is a
    ``TomEnvsError``, so the command prints ``error: ...`` and exits with 2. ``options`` are the
    backend's own keywords: the in-process vllm engine's (``--engine-arg``), or the server client's
    (``--timeout --max-retries --retry-budget``: ``timeout``, ``max_retries``, ``retry_budget_s``).
    Every backend built here is summarised on stderr when the command ends (:func:`server_summary`)."""
    from policies.llm import build_backend as build

    backend = build(
        kind,
        model,
        base_url=base_url,
        seed=seed,
        tokenizer=tokenizer,
        max_model_len=max_model_len,
        scoring_path=scoring_path,
        **(options or {}),
    )
    BUILT.append(backend)
    return backend


#: The backends :func:`build_backend` built in this process (for :func:`server_summary`).
BUILT: list[Any] = []


def server_summary() -> list[str]:
    """One line per backend built by the command line that met trouble (retried requests), to be
    printed on stderr when the command ends (or, when none was built here, what the records this process wrote
    met: their backends ran in Ray workers); forgets them. The records and rows count the same
    retries per episode (``llm_faults``, ``llm_retries``...: :func:`benchmarks.runner.fault_columns`)."""
    lines = []
    for backend in BUILT:
        stats = getattr(backend, "stats", None)
        if stats is not None and getattr(stats, "retries", 0):
            where = getattr(backend, "base_url", None) or type(backend).__name__
            kinds = ", ".join(
                f"{n} {FAULT_WORDS.get(k, k)}" for k, n in (getattr(stats, "faults", None) or {}).items() if n
            )
            lines.append(
                f"note: the server at {where} needed {stats.retries} retried attempt(s) ({kinds}) over "
                f"{stats.requests} request(s); every record holds a served reply and counts its episode's "
                "retries in llm_faults (raise --max-retries / --retry-budget / --timeout if runs stop on a "
                "flaky or slow server)"
            )
    from benchmarks.results import appended_faults_note

    note = appended_faults_note()  # what the records written here met, wherever their backends ran (Ray workers)
    BUILT.clear()
    return lines or note


def backend_from_args(args: argparse.Namespace, seed: int | None = None) -> Any:
    """:func:`build_backend` from the LLM option group (seed: ``args.seed`` unless given).

    Under an executor that plays cells in other processes (:func:`backends_as`), the backend is a
    :class:`BackendHandle` instead: built where it is first used, and sent to a worker as its
    options, where each worker builds it once and shares it with every cell it plays.

    Raises:
        RunnerError: ``--engine-arg`` with ``--backend openai``.
    """
    spec = backend_spec(args, seed)
    if _BACKEND_MODE[-1] == "direct":
        return build_backend(*spec)
    return BackendHandle(spec) if _BACKEND_MODE[-1] == "handle" else shared_backend(spec)


def backend_spec(args: argparse.Namespace, seed: int | None = None) -> tuple:
    """The arguments of :func:`build_backend` that the LLM option group names (see :func:`backend_from_args`)."""
    s = llm_settings(args)
    if s["engine_args"] and s["backend"] != "vllm":
        raise RunnerError("--engine-arg configures the in-process vllm engine; drop it with --backend openai")
    if s["backend"] == "openai":
        server = s["server"]
        options = {
            "timeout": server["timeout"],
            "max_retries": server["max_retries"],
            "retry_budget_s": server["retry_budget"],
        }
    else:
        options = s["engine_args"]
    return (
        s["backend"],
        s["model"],
        s["base_url"],
        args.seed if seed is None else seed,
        s["tokenizer"],
        s["max_model_len"],
        s["scoring_path"],
        dict(options),
    )


# ---------------------------------------------------------------------- backends in other processes
#: How :func:`backend_from_args` hands out backends: "direct" (built at once, the default), "handle"
#: (a :class:`BackendHandle`: the driver of an executor), "shared" (one per options per process: an
#: executor's worker). Set with :func:`backends_as`.
_BACKEND_MODE: list[str] = ["direct"]
#: A worker's backends by options (:func:`shared_backend`).
SHARED_BACKENDS: dict[str, "BackendHandle"] = {}


@contextlib.contextmanager
def backends_as(mode: str) -> Iterator[None]:
    """Within the block, :func:`backend_from_args` returns backends as ``mode`` says (see
    :data:`_BACKEND_MODE`): an executor sets "handle" in its driver and "shared" in its workers."""
    if mode not in ("direct", "handle", "shared"):
        raise RunnerError(f"unknown backend mode {mode!r}; choose direct, handle or shared")
    _BACKEND_MODE.append(mode)
    try:
        yield
    finally:
        _BACKEND_MODE.pop()


def share_backends() -> None:
    """Make this process an executor's worker for good: :func:`backend_from_args` hands out its one
    shared backend per options from now on (:func:`shared_backend`)."""
    _BACKEND_MODE[:] = ["shared"]


class BackendHandle:
    """A backend named by its options (:func:`backend_spec`), built on first use.

    It stands for the backend (every attribute is the built backend's) and pickles as its options:
    a cell whose policy holds one can be sent to another process (an executor's worker), where it
    becomes that process's shared backend of the same options (:func:`shared_backend`), built once
    and used by every cell the worker plays. ``close`` closes what this handle built; a shared one
    lives as long as its process.
    """

    def __init__(self, spec: tuple, shared: bool = False) -> None:
        _check_spec(spec)
        self.spec, self.shared = spec, shared
        self._backend: Any = None

    @property
    def backend(self) -> Any:
        """The backend (built now if it was not yet)."""
        if self._backend is None:
            self._backend = build_backend(*self.spec)
        return self._backend

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("spec", "shared", "_backend"):
            raise AttributeError(name)
        return getattr(self.backend, name)

    def close(self) -> None:
        if self._backend is not None and not self.shared:
            self._backend.close()
            self._backend = None

    def __reduce__(self) -> tuple:
        return shared_backend, (self.spec,)


def shared_backend(spec: tuple) -> BackendHandle:
    """This process's one backend of ``spec`` (a worker's: its cells share it; never closed by them)."""
    key = json.dumps(spec, sort_keys=True, default=str)
    if key not in SHARED_BACKENDS:
        SHARED_BACKENDS[key] = BackendHandle(spec, shared=True)
    return SHARED_BACKENDS[key]


def _check_spec(spec: tuple) -> None:
    """What :func:`policies.llm.build_backend` would refuse, said at once (not in a worker later)."""
    from policies.llm.build import check_backend_options

    check_backend_options(*spec[:3])
    if spec[4] is not None:  # --tokenizer: a folder it names must exist and hold a tokenizer (no hub retries)
        from policies.llm.sources import check_source

        check_source(spec[4], "tokenizer")
