"""Fetch the published PersuasiveToM files (needs internet)::

    python -m benchmarks data download persuasion --dest data/persuasive-tom
    python -m tom_envs.persuasion.download --out data/persuasive-tom      # the same

Each ``<qtype>.json`` is fetched from ``<base-url>/<qtype>.json``, validated with the loader
(so a broken or partial download is reported, naming the file and record) and only then moved
into place. Use ``--base-url`` for a mirror or a pinned commit.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import urllib.error
import urllib.request
from pathlib import Path
from typing import Iterable, Sequence

from tom_envs.errors import DatasetError, TomEnvsError
from tom_envs.persuasion import QTYPES
from tom_envs.persuasion.data import load_file

#: The benchmark's public repository (raw files of its ``data/`` folder).
DEFAULT_BASE_URL = "https://raw.githubusercontent.com/Yu-Fangxu/PersuasiveToM/main/data"


class DownloadError(TomEnvsError, OSError):
    """A file could not be fetched; the message names the URL."""


def download(out_dir: str | Path, qtypes: Iterable[str] = QTYPES, base_url: str = DEFAULT_BASE_URL,
             timeout: float = 60.0, overwrite: bool = False) -> list[Path]:
    """Download and validate the question files into ``out_dir``.

    Args:
        out_dir: destination folder (created if needed).
        qtypes: which of the eight files to fetch.
        base_url: folder URL holding ``<qtype>.json``.
        timeout: seconds per request.
        overwrite: replace files that are already there (default: keep them).

    Returns:
        The paths of the files now in ``out_dir``.

    Raises:
        DownloadError: a request failed. DatasetError: a fetched file is malformed.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for qtype in qtypes:
        if qtype not in QTYPES:
            raise DatasetError(f"unknown question type {qtype!r}; choose from {', '.join(QTYPES)}")
        target = out / f"{qtype}.json"
        if overwrite or not target.exists():
            _fetch_validated(f"{base_url.rstrip('/')}/{qtype}.json", target, qtype, timeout)
        paths.append(target)
    return paths


def _fetch_validated(url: str, target: Path, qtype: str, timeout: float) -> None:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:  # noqa: S310 (http(s) URL by design)
            body = resp.read()
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise DownloadError(f"could not fetch {url} ({exc}); check the network or pass --base-url for a mirror") from None
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{qtype}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(body)
        load_file(Path(tmp), qtype)  # raises DatasetError naming the record
        os.replace(tmp, target)
    except DatasetError as exc:
        raise DatasetError(f"{url}: {exc}") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the download options to ``parser``."""
    parser.add_argument("--out", "--dest", dest="out", default="data/persuasive-tom", help="destination folder")
    parser.add_argument("--base-url", default=DEFAULT_BASE_URL, help="folder URL holding <qtype>.json")
    parser.add_argument("--types", default=",".join(QTYPES), help="comma-separated question types")
    parser.add_argument("--overwrite", action="store_true", help="replace files already present")
    parser.add_argument("--timeout", type=float, default=60.0)


def run(args: argparse.Namespace) -> int:
    """Run the download; exit status 0 (the written paths are printed), or 2 with a message."""
    try:
        paths = download(args.out, [t.strip() for t in args.types.split(",") if t.strip()], args.base_url,
                         args.timeout, args.overwrite)
    except TomEnvsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for p in paths:
        print(p)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Command line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m tom_envs.persuasion.download", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
