"""Results files: every benchmark writes and reads its episode records through here.

A results file is JSON Lines, one record per finished episode (or dialogue, or conversation),
appended and synced to disk the moment it exists, so a killed run loses at most what was in flight
and a rerun resumes.

* **Keys.** A file is named by a hash of the configuration it holds (:func:`config_key`, the one
  hashing function; :func:`results_path`), and its records are keyed inside it by what varies
  (usually the episode seed). The key says *what* was computed.
* **Stamps.** Every record is stamped (``record["code"]``, :func:`code_stamp`) with the tom-envs
  version, the git commit of the checkout it ran from (``git rev-parse HEAD``; None when the
  package is not a git checkout) and :data:`RESULTS_VERSION`. The stamp says *which code* computed
  it and is deliberately not part of the key: a record is reused only when its stamp equals the
  running code's; a record from another version or commit is skipped with a
  :class:`StaleResultWarning` (moved to ``<name>.stale`` beside the file, so history is kept) and
  recomputed, and the new record is appended to the file. So results are never silently reused
  after the code changed. (Uncommitted edits do not change the
  commit: commit before a run whose results you keep.)
* **Damage.** A corrupted line, or a record that is not one of the file's own (its ``check`` fails:
  another configuration's record, a wrong shape), is moved to ``<name>.rejected`` beside the file
  with a :class:`ResultsFileWarning` and never reused (its episode is recomputed); a truncated last
  line (a run killed mid-write) is cut off the file with a warning.
* **Locks.** While a run reads or writes a results file it holds an exclusive ``fcntl`` lock on a
  lock file beside it (``.<name>.lock``). A second run that reaches a file held by another process
  fails at once with :class:`~benchmarks.errors.ResultsLocked` (naming the file and the holder's
  pid) rather than waiting: two runs on the same ``--out`` never both compute and write the same
  episodes, and a rerun after the first one ends resumes from what it wrote. Within one process
  the lock is re-entrant. Hold it for a whole read-compute-append session with
  :class:`ResultsFile`. (Platforms without ``fcntl`` run unlocked.)
* **Runs.** The first append of a process to a results file also appends one line to its
  :func:`runs_path` (``<name>.runs`` beside it, never read back by the benchmarks): when, the command
  line (:func:`set_command`, else ``sys.argv``), the pid, the code stamp, the configuration the
  file's name hashes (when :func:`config_key` hashed it in this process) and a sha256 of every
  folder the configuration names as ``data_dir``. Records themselves carry nothing time- or
  run-dependent, so two runs of the same configuration write equal records, with two exceptions
  that say how a result was obtained, never what it is: an LLM episode's ``llm_faults`` (the
  retries its server requests took, :data:`benchmarks.runner.FAULTS_FIELD`; zeros on a server
  without trouble) and the matrix LLM cells' ``wall_s``.
* **Reading without interfering.** :func:`scan_records` reads the complete lines of a file without
  locking or changing it, and :func:`lock_holder` says which process holds its lock (from
  ``/proc/locks``, without taking it), so a report can read while an evaluation writes.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
import subprocess
import sys
import time
import warnings
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from benchmarks.errors import ResultsLocked  # noqa: F401  (raised by locked(); named in its docs)
from benchmarks.results_locks import lock_holder, lock_path, locked  # noqa: F401  (this module's API)

#: The record field of an LLM episode's backend faults: the retries its server requests took, by cause
#: (``{"retries", "http_4xx", "http_5xx", "timeout", "connection", "invalid_reply"}``, zeros in a run without
#: trouble; :func:`policies.llm.base.new_faults`). Records of scripted policies carry none (they stay as they
#: were). Faults never change a record's result or its key: they say how the replies were obtained.
FAULTS_FIELD = "llm_faults"
#: The server retries of the records this process appended through :class:`ResultsFile`, by cause (wherever
#: their episodes were played: here, or in Ray workers); :func:`benchmarks.cli.server_summary` reports them.
APPENDED_FAULTS: dict[str, int] = {}
#: Bump when the meaning of a recorded result changes in any family (every record becomes stale).
RESULTS_VERSION = 1
#: The record field holding the stamp of the code that computed it.
STAMP_FIELD = "code"


class ResultsFileWarning(UserWarning):
    """A results line could not be read; it is skipped (or cut off) and its episode recomputed."""


class StaleResultWarning(ResultsFileWarning):
    """Records of a results file were computed by another version or commit; they are recomputed."""


def fault_columns(records: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """A row's backend-fault columns: the records' :data:`FAULTS_FIELD` summed, as ``llm_retries``,
    ``llm_http_4xx``, ``llm_http_5xx``, ``llm_timeout``, ``llm_connection``, ``llm_invalid_reply``;
    ``{}`` when no record carries faults (scripted policies: their rows stay as they were)."""
    counted = [r[FAULTS_FIELD] for r in records if isinstance(r, Mapping) and isinstance(r.get(FAULTS_FIELD), Mapping)]
    if not counted:
        return {}
    from policies.llm.base import add_faults, new_faults

    total = new_faults()
    for faults in counted:
        add_faults(total, faults)
    return {f"llm_{kind}": count for kind, count in total.items()}


#: How a fault kind reads in a note (:data:`policies.llm.base.FAULT_KINDS`).
FAULT_WORDS = {
    "http_4xx": "HTTP 408/409/429",
    "http_5xx": "HTTP 5xx",
    "timeout": "timed out",
    "connection": "connection failed",
    "invalid_reply": "invalid reply",
}


def appended_faults_note() -> list[str]:
    """A note on the server retries of the records this process appended (:data:`APPENDED_FAULTS`), if any;
    forgets them."""
    counts = dict(APPENDED_FAULTS)
    APPENDED_FAULTS.clear()
    if not counts.get("retries"):
        return []
    kinds = ", ".join(f"{n} {FAULT_WORDS.get(k, k)}" for k, n in counts.items() if n and k != "retries")
    return [
        f"note: the episodes written by this run needed {counts['retries']} retried server attempt(s) ({kinds}), "
        "counted in their records' llm_faults (raise --max-retries / --retry-budget / --timeout if runs stop on "
        "a flaky or slow server)"
    ]


# ---------------------------------------------------------------------- keys and stamps
_HASHED: dict[str, str] = {}  # full sha256 -> canonical JSON of the configurations hashed in this process
_HASHED_MAX = 4096


def config_key(config: Mapping[str, Any], length: int = 16) -> str:
    """The hash naming a configuration: sha256 of its canonical JSON (sorted keys, no spaces), in hex.

    The configuration is remembered (the latest few thousand), so that the first append to the
    file it names can write it to the file's :func:`runs_path`."""
    blob = json.dumps(config, sort_keys=True, separators=(",", ":"), default=str)
    full = hashlib.sha256(blob.encode()).hexdigest()
    if full not in _HASHED:
        if len(_HASHED) >= _HASHED_MAX:
            del _HASHED[next(iter(_HASHED))]
        _HASHED[full] = blob
    return full[:length]


def results_path(folder: Path, stem: str, config: Mapping[str, Any], length: int = 12) -> Path:
    """``folder / "<stem>_<config_key(config)>.jsonl"``: one file per configuration."""
    return Path(folder) / f"{stem}_{config_key(config, length)}.jsonl"


@functools.lru_cache(maxsize=1)
def git_commit() -> str | None:
    """The commit checked out where the benchmarks package lives, or None (not a git checkout, no git)."""
    root = Path(__file__).resolve().parents[1]
    if not (root / ".git").exists():
        return None
    try:
        out = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = out.stdout.strip()
    return commit if out.returncode == 0 and commit else None


def code_stamp() -> dict[str, Any]:
    """What identifies the running code: ``{"tom_envs": version, "commit": sha or None, "results": RESULTS_VERSION}``."""
    from tom_envs import __version__

    return {"tom_envs": __version__, "commit": git_commit(), "results": RESULTS_VERSION}


def is_current(record: Mapping[str, Any]) -> bool:
    """Whether ``record`` was stamped by the running code."""
    return record.get(STAMP_FIELD) == code_stamp()


# ---------------------------------------------------------------------- reading and writing
def append_record(path: Path, record: Mapping[str, Any], stamp: bool = True) -> dict[str, Any]:
    """Append one record as a line and push it to the OS at once (a SIGKILL after this loses nothing).

    With ``stamp`` (the default) the record is stamped with :func:`code_stamp` first. Returns the
    record as written.
    """
    path = Path(path)
    out = {**record, STAMP_FIELD: code_stamp()} if stamp else dict(record)
    with locked(path):
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps(out, separators=(",", ":")) + "\n")
            f.flush()
            os.fsync(f.fileno())
        _note_run(path)
    return out


# ---------------------------------------------------------------------- runs (provenance beside the records)
_COMMAND: list[str] | None = None
_WRITTEN: list[str] | None = None  # the command as a batch file writes it (written_as)
_NOTED: set[Path] = set()  # results files this process has written its run line for


def set_command(argv: Iterable[str] | None) -> None:
    """The command line the ``.runs`` lines name (``tom-envs`` sets it; default: ``sys.argv``)."""
    global _COMMAND
    _COMMAND = None if argv is None else [str(a) for a in argv]


@contextlib.contextmanager
def written_as(argv: Iterable[str]) -> Iterator[None]:
    """Within the block, the ``.runs`` lines name ``argv`` whatever :func:`set_command` is given: ``tom-envs batch``
    names each command as its file writes it (``${TOM_ENVS_COMMON_TOM_RELEASE}/data``, not the folder it stood for)."""
    global _WRITTEN
    saved, _WRITTEN = _WRITTEN, [str(a) for a in argv]
    try:
        yield
    finally:
        _WRITTEN = saved


def current_command() -> list[str]:
    """The command line the ``.runs`` lines name: :func:`written_as`'s, else the one :func:`set_command` gave, else
    ``sys.argv``."""
    if _WRITTEN is not None:
        return list(_WRITTEN)
    return list(_COMMAND) if _COMMAND is not None else list(sys.argv)


def runs_path(path: Path) -> Path:
    """Where a results file's run lines are kept: ``<name>.runs`` beside it."""
    path = Path(path)
    return path.with_name(path.name + ".runs")


def file_config(path: Path) -> dict[str, Any] | None:
    """The configuration whose hash ends the name of results file ``path`` (``..._<hash>.jsonl``),
    if :func:`config_key` hashed it in this process; else None."""
    suffix = Path(path).stem.rsplit("_", 1)[-1].lower()
    if len(suffix) < 8 or any(c not in "0123456789abcdef" for c in suffix):
        return None
    for full, blob in reversed(_HASHED.items()):
        if full.startswith(suffix):
            return json.loads(blob)
    return None


_CHECKSUMS: dict[tuple, str] = {}  # (folder, its files' paths, sizes and modification times) -> checksum


def folder_checksum(folder: str) -> str:
    """sha256 over a folder's files (relative path and bytes of each, in sorted order), in hex.

    Remembered per folder *and* the names, sizes and modification times of its files, so a file cut, edited,
    added or removed in the same process (a partial run, then the whole data in the same folder) gives
    another checksum, and so another results key."""
    root = Path(folder)
    files = sorted(p for p in root.rglob("*") if p.is_file())
    stats = [p.stat() for p in files]  # one stat a file: size and modification time
    signature = (
        str(root),
        tuple((p.relative_to(root).as_posix(), st.st_size, st.st_mtime_ns) for p, st in zip(files, stats)),
    )
    if signature not in _CHECKSUMS:
        digest = hashlib.sha256()
        for file in files:
            digest.update(file.relative_to(root).as_posix().encode() + b"\0")
            with open(file, "rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    digest.update(chunk)
            digest.update(b"\0")
        _CHECKSUMS[signature] = digest.hexdigest()
    return _CHECKSUMS[signature]


#: A data folder named by its checksum: ``<folder name>@<sha256>``.
_CHECKSUMMED = re.compile(r"[^/\\]+@[0-9a-f]{64}")


def _data_dirs(config: Any) -> dict[str, str]:
    """Every existing folder a configuration names under a ``data_dir`` key (at any depth) -> its checksum."""
    found: dict[str, str] = {}
    if isinstance(config, Mapping):
        for k, v in config.items():
            if k == "data_dir" and isinstance(v, str) and _CHECKSUMMED.fullmatch(v):  # benchmarks.qa_llm.data_key's
                found[v] = v.rsplit("@", 1)[1]
            elif k == "data_dir" and isinstance(v, str) and Path(v).is_dir():
                found[v] = folder_checksum(str(Path(v).resolve()))
            else:
                found.update(_data_dirs(v))
    elif isinstance(config, list):
        for v in config:
            found.update(_data_dirs(v))
    return found


def _note_run(path: Path) -> None:
    """Append this process's run line to ``path``'s :func:`runs_path` (once per process and file)."""
    key = path.resolve()
    if key in _NOTED:
        return
    _NOTED.add(key)
    config = file_config(path)
    try:
        data = _data_dirs(config)
    except OSError:
        data = {}
    line = {
        "first_append": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "command": current_command(),
        "pid": os.getpid(),
        STAMP_FIELD: code_stamp(),
        "config": config,
        "data_checksums": data,
    }
    with open(runs_path(path), "a", encoding="utf-8") as f:
        f.write(json.dumps(line, separators=(",", ":"), default=str) + "\n")


def scan_records(path: Path) -> tuple[list[dict], int]:
    """The records of the complete lines of ``path`` and the number of lines skipped (not JSON objects,
    or a last line still being written), without locking or changing the file; ``([], 0)`` if absent."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        return [], 0
    records, skipped = [], 0
    for raw in data.splitlines(keepends=True):
        if not raw.endswith(b"\n"):
            skipped += 1
            continue
        try:
            rec = json.loads(raw)
        except ValueError:
            skipped += 1
            continue
        if isinstance(rec, dict):
            records.append(rec)
        else:
            skipped += 1
    return records, skipped


def read_records(
    path: Path, key: Callable[[dict], Hashable], check: Callable[[dict], Any] = lambda rec: None, stamped: bool = True
) -> dict[Hashable, dict]:
    """The reusable records of ``path`` by ``key(record)`` (the first one wins); never raises on content.

    ``check(record)`` raises ``KeyError``/``TypeError``/``ValueError`` on a record of the wrong
    shape (or is another configuration's). A corrupted or rejected line is moved to
    :func:`rejected_path` with a :class:`ResultsFileWarning`; a truncated last line
    (a run killed mid-write) is cut off the file with a warning, and a valid last line without its
    newline gets one, so the next append starts a clean line. With ``stamped`` (the default),
    records not stamped by the running code are moved to :func:`stale_path` with one
    :class:`StaleResultWarning` (and so are recomputed by the caller).

    Raises:
        ResultsLocked: another run holds the file.
    """
    path = Path(path)
    if not path.exists():
        return {}
    records: dict[Hashable, dict] = {}
    kept: list[bytes] = []
    stale: list[bytes] = []
    rejected: list[bytes] = []
    stamps: set[str] = set()
    with locked(path):
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
                    warnings.warn(
                        f"{path}: the last line is truncated (an interrupted run?); dropping it ({exc})",
                        ResultsFileWarning,
                        stacklevel=2,
                    )
                    with open(path, "r+b") as f:
                        f.truncate(start)
                    break
                warnings.warn(
                    f"{path}: line at byte {start} is corrupt or not one of this file's records ({exc}); "
                    f"moved to {rejected_path(path).name}, its episode will be recomputed",
                    ResultsFileWarning,
                    stacklevel=2,
                )
                rejected.append(raw if complete else raw + b"\n")
                continue
            if not complete:
                with open(path, "ab") as f:
                    f.write(b"\n")
                raw += b"\n"
            if stamped and not is_current(rec):
                stale.append(raw)
                stamps.add(json.dumps(rec.get(STAMP_FIELD), sort_keys=True))
                continue
            kept.append(raw)
            records.setdefault(k, rec)
        if stale or rejected:
            _set_aside(path, kept, {stale_path(path): stale, rejected_path(path): rejected})
    if stale:
        warnings.warn(
            f"{path}: {len(stale)} record(s) were computed by other code ({'; '.join(sorted(stamps))}; "
            f"running {json.dumps(code_stamp(), sort_keys=True)}); they are recomputed (the old ones are "
            f"kept in {stale_path(path).name})",
            StaleResultWarning,
            stacklevel=2,
        )
    return records


def stale_path(path: Path) -> Path:
    """Where the stale records of a results file are set aside: ``<name>.stale`` beside it."""
    path = Path(path)
    return path.with_name(path.name + ".stale")


def rejected_path(path: Path) -> Path:
    """Where the lines of a results file that are corrupt or not its own records (another
    configuration's, a wrong shape) are set aside: ``<name>.rejected`` beside it."""
    path = Path(path)
    return path.with_name(path.name + ".rejected")


def _set_aside(path: Path, kept: list[bytes], aside: Mapping[Path, list[bytes]]) -> None:
    """Keep only the ``kept`` lines in ``path``, moving the others to their files (the caller holds the lock)."""
    for target, lines in aside.items():
        if not lines:
            continue
        with open(target, "ab") as f:
            f.write(b"".join(lines))
            f.flush()
            os.fsync(f.fileno())
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as f:
        f.write(b"".join(kept))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


#: Per results file opened in this process (resolved path): the keys on file when it was first opened, and
#: every key a run asked for (:meth:`ResultsFile.missing`).
_RESUMED: dict[str, tuple[set, set]] = {}


def clear_resume_tally() -> None:
    """Forget what :func:`resume_summary` counted (a new command in this process starts its own tally)."""
    _RESUMED.clear()


def resume_summary() -> str | None:
    """One line saying how much of what this process's runs asked for was already on file (a resumed run), or
    None when nothing was: e.g. ``resumed: 893 of 1,800 records were on file (3 results files); 907 played now``."""
    asked = sum(len(wanted) for _, wanted in _RESUMED.values())
    found = sum(len(wanted & before) for before, wanted in _RESUMED.values())
    if not found:
        return None
    files = sum(1 for before, wanted in _RESUMED.values() if wanted & before)
    return (
        f"resumed: {found:,} of {asked:,} records were on file ({files} results file{'s' * (files != 1)}); "
        f"{asked - found:,} computed now"
    )


class ResultsFile:
    """One results file for a read-compute-append session, locked from ``__enter__`` to ``__exit__``.

    ::

        with ResultsFile(path, key=lambda rec: rec["seed"]) as results:
            for seed in results.missing(seeds):
                results.append({"seed": seed, "episode": play(seed)})
            records = [results[s] for s in seeds]

    Args:
        path: the JSONL file (created with its folder on the first append).
        key: a record's key inside the file (e.g. its seed).
        check: raises ``KeyError``/``TypeError``/``ValueError`` on a record of the wrong shape.

    Raises:
        ResultsLocked: (on enter) another run holds the file.
    """

    def __init__(
        self, path: Path, key: Callable[[dict], Hashable], check: Callable[[dict], Any] = lambda rec: None
    ) -> None:
        self.path = Path(path)
        self.key = key
        self.check = check
        self.records: dict[Hashable, dict] = {}
        self._lock: contextlib.AbstractContextManager | None = None

    def __enter__(self) -> "ResultsFile":
        self._lock = locked(self.path)
        self._lock.__enter__()
        try:
            self.records = read_records(self.path, self.key, self.check)
        except BaseException:
            self._lock.__exit__(None, None, None)
            raise
        _RESUMED.setdefault(str(self.path.resolve()), (set(self.records), set()))
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._lock is not None:
            self._lock.__exit__(*exc)
            self._lock = None

    def __contains__(self, k: Hashable) -> bool:
        return k in self.records

    def __getitem__(self, k: Hashable) -> dict:
        return self.records[k]

    def missing(self, keys: Iterable[Hashable]) -> list[Hashable]:
        """The keys of ``keys`` with no reusable record, in order (the asked keys count in :func:`resume_summary`)."""
        keys = list(keys)
        tally = _RESUMED.get(str(self.path.resolve()))
        if tally is not None:
            tally[1].update(keys)
        return [k for k in keys if k not in self.records]

    def append(self, record: Mapping[str, Any]) -> dict[str, Any]:
        """Stamp, append and sync ``record``; returns it as written (also kept under its key). Its server
        retries (:data:`FAULTS_FIELD`) are added to :data:`APPENDED_FAULTS`."""
        out = append_record(self.path, record)
        self.records.setdefault(self.key(out), out)
        if isinstance(out.get(FAULTS_FIELD), Mapping):
            for kind, count in out[FAULTS_FIELD].items():
                APPENDED_FAULTS[kind] = APPENDED_FAULTS.get(kind, 0) + int(count)
        return out
