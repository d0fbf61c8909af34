"""The published PersuasiveToM files (001): what ``data download persuasion`` fetches::

    tom-envs data download persuasion --out data/persuasive-tom
    python -m tom_envs.persuasion.download --out data/persuasive-tom      # older alias, the same

Each ``<qtype>.json`` is fetched from ``<base-url>/<qtype>.json`` and validated with the loader
(so a broken or partial download is reported, naming the file and record) before it is moved into
place (see :mod:`tom_envs.download`). Use ``--base-url`` for a mirror or a pinned commit.
"""

from __future__ import annotations

import argparse
import sys
from functools import partial
from pathlib import Path
from typing import Iterable

from tom_envs.download import DownloadError, add_timeout_argument, alias_main, fetch_validated
from tom_envs.download import run as run_download
from tom_envs.errors import DatasetError
from tom_envs.persuasion import QTYPES
from tom_envs.persuasion.data import load_file

__all__ = ["DEFAULT_BASE_URL", "DownloadError", "add_arguments", "download", "from_args", "main", "run"]

#: The benchmark's public repository (raw files of its ``data/`` folder).
DEFAULT_BASE_URL = "https://raw.githubusercontent.com/Yu-Fangxu/PersuasiveToM/main/data"


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
        paths.append(fetch_validated(f"{base_url.rstrip('/')}/{qtype}.json", out / f"{qtype}.json",
                                     partial(load_file, qtype=qtype), timeout, overwrite))
    return paths


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the download options to ``parser``."""
    parser.add_argument("--out", "--dest", dest="out", default="data/persuasive-tom",
                        help="destination folder (default: %(default)s)")
    parser.add_argument("--base-url", default=DEFAULT_BASE_URL,
                        help="folder URL holding <qtype>.json (default: %(default)s)")
    parser.add_argument("--types", default=",".join(QTYPES), help="comma-separated question types (default: all eight)")
    parser.add_argument("--overwrite", action="store_true", help="replace files already present")
    add_timeout_argument(parser, 60.0)


def from_args(args: argparse.Namespace) -> list[Path]:
    """The download the parsed options ask for; the paths now present."""
    types = [t.strip() for t in args.types.split(",") if t.strip()]
    if not types:
        raise DatasetError(f"--types names no question type; choose from {', '.join(QTYPES)}")
    return download(args.out, types, args.base_url, args.timeout, args.overwrite)


#: Run the download from parsed options: 0 (the paths are printed), or 2 with a message.
run = partial(run_download, from_args=from_args)
#: The older command line (``python -m tom_envs.persuasion.download``), the same as ``data download persuasion``.
main = partial(alias_main, "persuasion", prog="python -m tom_envs.persuasion.download")


if __name__ == "__main__":
    sys.exit(main())
