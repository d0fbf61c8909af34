"""Results files: one JSON record per line, appended and synced the moment a result exists, read
back keyed so that a rerun resumes (every benchmark writes and reads its files through here)."""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any


class ResultsFileWarning(UserWarning):
    """A results line could not be read; it is skipped (or cut off) and its episode recomputed."""


def append_record(path: Path, record: dict) -> None:
    """Append one line and push it to the OS at once (a SIGKILL after this loses nothing)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(record, separators=(",", ":")) + "\n")
        f.flush()
        os.fsync(f.fileno())


def read_records(path: Path, key: Callable[[dict], Hashable],
                 check: Callable[[dict], Any] = lambda rec: None) -> dict[Hashable, dict]:
    """The records of ``path`` by ``key(record)`` (the first one wins); never raises.

    ``check(record)`` raises ``KeyError``/``TypeError``/``ValueError`` on a record of the wrong
    shape. A corrupted line is skipped with a :class:`ResultsFileWarning` (its episode is then
    recomputed); a truncated last line (a run killed mid-write) is cut off the file with a warning,
    and a valid last line without its newline gets one, so the next append starts a clean line.
    """
    if not path.exists():
        return {}
    records: dict[Hashable, dict] = {}
    offset = 0
    for raw in path.read_bytes().splitlines(keepends=True):
        start, offset = offset, offset + len(raw)
        complete = raw.endswith(b"\n")
        try:
            rec = json.loads(raw)
            k = key(rec)
            check(rec)
        except (ValueError, KeyError, TypeError) as exc:
            if not complete:
                warnings.warn(f"{path}: the last line is truncated (an interrupted run?); dropping it ({exc})",
                              ResultsFileWarning, stacklevel=3)
                with open(path, "r+b") as f:
                    f.truncate(start)
                break
            warnings.warn(f"{path}: skipping corrupted line at byte {start} ({exc}); its episode will be recomputed",
                          ResultsFileWarning, stacklevel=3)
            continue
        if not complete:
            with open(path, "ab") as f:
                f.write(b"\n")
        records.setdefault(k, rec)
    return records
