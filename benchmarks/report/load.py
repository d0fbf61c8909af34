"""Reading stored results for the report: every family folder under a results folder, read-only.

Files are read through :func:`benchmarks.results.scan_records` (complete lines only, no lock
taken, nothing changed), so the report can run while an evaluation appends to them; a file whose
lock another process holds (:func:`benchmarks.results.lock_holder`) is marked as being written,
and its family is redone on the next report.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.results import lock_holder, runs_path, scan_records


def family_labels() -> dict[str, str]:
    """Results folder (``--out/<folder>/``) -> the name shown for it, for every declared family, in order."""
    from tom_envs.family import families

    return {fam.results_folder: fam.command for fam in families()}


#: Fields that identify a record inside its file, for the families that do not store ``key``.
_IDENTITY = ("scenario", "family", "cid", "dialogue", "repetition", "seed")


@dataclass
class ResultsFileData:
    """One results file as the report read it."""

    path: Path
    records: list[dict]
    skipped: int  # incomplete or unreadable lines
    duplicates: int  # records whose identity an earlier line already had (the first is kept)
    holder: int | None  # pid writing it now, if any
    runs: list[dict]  # its .runs lines (provenance), oldest first
    mtime: float

    @property
    def config(self) -> dict | None:
        """The configuration its name hashes, from the newest ``.runs`` line that has it."""
        for run in reversed(self.runs):
            if isinstance(run.get("config"), dict):
                return run["config"]
        return None


@dataclass
class FamilyData:
    """Every results file of one family folder."""

    folder: str
    files: list[ResultsFileData] = field(default_factory=list)

    @property
    def name(self) -> str:
        return family_labels().get(self.folder, self.folder)

    @property
    def records(self) -> int:
        return sum(len(f.records) for f in self.files)

    @property
    def writing(self) -> list[ResultsFileData]:
        return [f for f in self.files if f.holder is not None]


def _identity(rec: dict) -> Hashable:
    if "key" in rec:
        return ("key", json.dumps(rec["key"], sort_keys=True, default=str))
    return tuple((k, json.dumps(rec.get(k), default=str)) for k in _IDENTITY if k in rec) or id(rec)


def read_file(path: Path) -> ResultsFileData:
    records, skipped = scan_records(path)
    seen: set = set()
    kept, duplicates = [], 0
    for rec in records:
        ident = _identity(rec)
        if ident in seen:
            duplicates += 1
            continue
        seen.add(ident)
        kept.append(rec)
    runs, _ = scan_records(runs_path(path))
    try:
        mtime = path.stat().st_mtime
    except OSError:
        mtime = 0.0
    return ResultsFileData(path, kept, skipped, duplicates, lock_holder(path), runs, mtime)


def family_folders(results_dir: Path) -> list[str]:
    """The folders of ``results_dir`` that hold results files: the four families first, in order."""
    found = sorted(p.name for p in Path(results_dir).iterdir() if p.is_dir() and any(p.glob("*.jsonl")))
    known = family_labels()
    return [f for f in known if f in found] + [f for f in found if f not in known]


def fingerprint(results_dir: Path, folder: str, salt: str) -> str:
    """What a family's section depends on: name, size and modification time of each results and
    ``.runs`` file, the pids holding their locks, and ``salt`` (the report's version)."""
    items: list[Any] = [salt]
    for path in sorted((Path(results_dir) / folder).glob("*.jsonl")):
        for p in (path, runs_path(path)):
            try:
                st = p.stat()
                items.append([p.name, st.st_size, st.st_mtime_ns])
            except OSError:
                items.append([p.name, None])
        holder = lock_holder(path)
        if holder is not None:  # being written: never reused, so a finished run is always picked up
            items.append([path.name, "writing", holder, time.time()])
    return hashlib.sha256(json.dumps(items).encode()).hexdigest()


def read_family(results_dir: Path, folder: str) -> FamilyData:
    """Every ``*.jsonl`` file of ``results_dir/folder`` (sorted by name)."""
    fam = FamilyData(folder)
    for path in sorted((Path(results_dir) / folder).glob("*.jsonl")):
        fam.files.append(read_file(path))
    return fam
