"""The results files' locks (:mod:`benchmarks.results`): one writer per results file, across processes.

A results file ``F`` is locked through ``.F.lock`` beside it with ``flock`` (exclusive, non-blocking:
a second run fails at once with :class:`~benchmarks.errors.ResultsLocked` naming the holder's pid),
re-entrant within a process; :func:`lock_holder` reads who holds it from ``/proc/locks`` without taking it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchmarks.errors import ResultsLocked

try:
    import fcntl
except ImportError:  # not POSIX: no cross-process locks
    fcntl = None  # type: ignore[assignment]

_HELD: dict[Path, list[Any]] = {}  # lock path -> [open file, depth]: re-entrant within a process


def lock_path(path: Path) -> Path:
    """The lock file of a results file: ``.<name>.lock`` in the same folder."""
    path = Path(path)
    return path.with_name(f".{path.name}.lock")


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold the exclusive lock of results file ``path`` (re-entrant in this process).

    Raises:
        ResultsLocked: another process holds it.
    """
    lock = lock_path(path)
    lock.parent.mkdir(parents=True, exist_ok=True)
    key = lock.resolve()
    if key in _HELD or fcntl is None:
        if key in _HELD:
            _HELD[key][1] += 1
        try:
            yield
        finally:
            if key in _HELD:
                _HELD[key][1] -= 1
        return
    f = open(lock, "a+", encoding="utf-8")
    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.seek(0)
        holder = f.read().strip() or "unknown"
        f.close()
        raise ResultsLocked(
            f"{path} is being written by another run (pid {holder}); wait for that run to finish, "
            "or give this run another --out"
        ) from None
    f.seek(0)
    f.truncate()
    f.write(str(os.getpid()))
    f.flush()
    _HELD[key] = [f, 1]
    try:
        yield
    finally:
        _HELD[key][1] -= 1
        if _HELD[key][1] == 0:
            del _HELD[key]
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)
            f.close()


def lock_holder(path: Path) -> int | None:
    """The pid holding results file ``path``'s lock, read from ``/proc/locks`` without taking the lock
    (taking it, even shared, would make a run that starts at that moment fail); None when it is free,
    or where ``/proc/locks`` does not exist."""
    try:
        st = os.stat(lock_path(path))
        table = Path("/proc/locks").read_text()
    except OSError:
        return None
    ident = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    for line in table.splitlines():
        fields = line.split()
        if "->" in fields:  # a waiter's line
            continue
        if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5] == ident:
            try:
                return int(fields[4])
            except ValueError:
                return None
    return None


__all__ = ["lock_holder", "lock_path", "locked"]
