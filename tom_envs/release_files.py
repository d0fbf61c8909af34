"""Checking data files against the authors' public release: record count and content hash.

A family with a public release keeps a table of the release's files (:class:`ReleaseFile`: how many
records each holds and the sha256 of its bytes, measured on a clone of the release) in its data module.
Its loader calls :func:`check_release_file` for every file it reads whose name is one of the release's:

* the same count and hash: the file is the release's (``None``);
* anything else (a file cut short, edited, or one's own file under a release name): a
  :class:`ReleaseMismatch` naming the file, the expected and found count and hash, and the fix
  (download it again, or ``--allow-partial``); with ``allow_partial=True`` the description of the
  difference is returned instead, for the caller to mark its results ``partial`` and say so.

Files under other names (one's own data, the bundled samples' corpus files) are not the release's
and are not checked; folders holding :data:`SAMPLE_MARKER` (the bundled samples and copies of them)
are not checked at all (the families' loaders decide that, see ``is_bundled_sample``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from tom_envs.errors import DatasetError

#: The file that marks a data folder as a sample written for tom-envs (or a copy of one): not the release, so
#: nothing in it is checked against the release's table, and it is taken as it is (partial on purpose).
SAMPLE_MARKER = "SAMPLE.md"


@dataclass(frozen=True)
class ReleaseFile:
    """One file of a public release as measured on a clone of it.

    Attributes:
        records: how many records the family's loader reads from it (questions, corpus rows, ...).
        sha256: the sha256 of the file's bytes, in hex.
    """

    records: int
    sha256: str


class ReleaseMismatch(DatasetError):
    """A data file carries the name of one of the release's files but not its content (another record
    count or another sha256): a file cut short, edited, or one's own under the release's name. Download
    it again, or pass ``allow_partial=True`` (``--allow-partial``) to use it, the results marked
    ``partial``."""


_HASHES: dict[tuple[str, int, int], str] = {}  # (resolved path, size, mtime_ns) -> sha256


def file_sha256(path: str | Path) -> str:
    """sha256 of a file's bytes in hex (remembered per path, size and modification time, so an edited
    file is hashed again)."""
    path = Path(path).resolve()
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if key not in _HASHES:
        digest = hashlib.sha256()
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                digest.update(chunk)
        _HASHES[key] = digest.hexdigest()
    return _HASHES[key]


def check_release_file(
    path: str | Path, name: str, records: int, table: Mapping[str, ReleaseFile], allow_partial: bool, fix: str
) -> str | None:
    """Compare the file ``path`` (known to the release as ``name``) with ``table[name]``.

    Args:
        path: the file read.
        name: its name in the release (a key of ``table``); a name the table lacks is not checked.
        records: how many records the loader read from it.
        table: the release's files (the family's table).
        allow_partial: return a difference instead of raising.
        fix: how to get the release's file (e.g. the download command), for the message.

    Returns:
        None when the file is the release's (or ``name`` is not one of its files); else, with
        ``allow_partial``, one line saying what differs.

    Raises:
        ReleaseMismatch: the count or the hash differs and not ``allow_partial``.
    """
    expected = table.get(name)
    if expected is None:
        return None
    found = file_sha256(path)
    if records == expected.records and found == expected.sha256:
        return None
    what = (
        f"{records} records where the release has {expected.records}"
        if records != expected.records
        else f"{records} records as the release, but other content"
    )
    difference = (
        f"{path}: not the release's {name} ({what}; sha256 {found[:16]}... where the release's is "
        f"{expected.sha256[:16]}...)"
    )
    if allow_partial:
        return difference
    raise ReleaseMismatch(
        f"{difference}. A file cut short or edited would give figures that look like the "
        f"release's but are not. {fix}, or pass --allow-partial (allow_partial=True) to use this "
        f"file anyway: the results are then marked partial"
    )


__all__ = ["ReleaseFile", "ReleaseMismatch", "SAMPLE_MARKER", "check_release_file", "file_sha256"]
