"""The published PersuasiveToM files (001): what ``data download persuasion`` fetches::

    tom-envs data download persuasion --dest data/persuasive_tom
    python -m tom_envs.persuasion.download --dest data/persuasive_tom     # older alias, the same

The release (github.com/Yu-Fangxu/PersuasiveToM, ``data/``) lists eight ``<qtype>.json`` files.
Four were verified here (desire_ee, intent_ee, behavior_qa, judge_qa: they load exactly, 001's
Table 4 counts); the other four (desire_er, belief_er, intent_er, belief_ee) could not be
inspected, so each is tried and reported if it cannot be had. Every file is fetched from
``<base-url>/<qtype>.json`` and validated with the loader before it is moved into place (see
:mod:`tom_envs.download`): what exists is fetched, a file answering 404 is reported on stderr as
missing upstream, a malformed, cut-short or broken one is not saved and named, and the others are still
fetched. The command then fails (exit status 2, naming what is missing) when a file could not be had,
except the four unverified ones and the evaluation script, which may be missing upstream; no empty
folder is left behind. Use ``--base-url`` for a
mirror or a pinned commit.

The release's evaluation script (``evaluation/evaluate.py``, next to ``data/`` in the repository)
holds the authors' prompts; it is fetched too (``--no-prompts`` skips it) into
``<dest>/evaluation/evaluate.py``, where ``--protocol authors`` finds it, after checking that the
prompts can be read from it as text (:func:`tom_envs.persuasion.prompts.read_authors_prompts`; the
file is never run). Its address is ``--prompts-url`` (default: ``evaluation/evaluate.py`` beside
the ``--base-url`` folder). A 404 is reported as missing upstream, like the question files, and a
script whose layout is not recognised is named and not saved; without it the authors' protocol
uses our prompts (prompt_source ``ours``).
"""

from __future__ import annotations

import argparse
import sys
from functools import partial
from pathlib import Path
from typing import Iterable

from tom_envs.download import DownloadError, Fetcher, add_folder_arguments, add_timeout_argument, alias_main, check_url
from tom_envs.download import run as run_download
from tom_envs.errors import DatasetError
from tom_envs.persuasion import QTYPES
from tom_envs.persuasion.data import RELEASE_VERIFIED, load_file
from tom_envs.persuasion.prompts import RELEASE_PROMPT_PATH, read_authors_prompts

__all__ = [
    "DEFAULT_BASE_URL",
    "DEFAULT_DEST",
    "REPOSITORY",
    "DownloadError",
    "add_arguments",
    "download",
    "from_args",
    "main",
    "prompts_url",
    "run",
]

REPOSITORY = "Yu-Fangxu/PersuasiveToM"
#: The benchmark's public repository (raw files of its ``data/`` folder).
DEFAULT_BASE_URL = f"https://raw.githubusercontent.com/{REPOSITORY}/main/data"
#: The folder the README uses.
DEFAULT_DEST = "data/persuasive_tom"


def prompts_url(base_url: str) -> str:
    """Where the release keeps its evaluation script, from the address of its ``data/`` folder:
    ``evaluation/evaluate.py`` in the folder above."""
    return f"{base_url.rstrip('/').rsplit('/', 1)[0]}/{RELEASE_PROMPT_PATH}"


def download(
    out_dir: str | Path,
    qtypes: Iterable[str] = QTYPES,
    base_url: str = DEFAULT_BASE_URL,
    timeout: float = 60.0,
    overwrite: bool = False,
    prompts: bool = True,
    prompt_url: str | None = None,
) -> list[Path]:
    """Download and validate the question files into ``out_dir``; report what could not be had.

    Args:
        out_dir: destination folder (created when the first file is saved).
        qtypes: which of the eight files to fetch (default: all; the release's tree lists all eight).
        base_url: folder URL holding ``<qtype>.json``.
        timeout: seconds per request.
        overwrite: replace files that are already there (default: keep them).
        prompts: also fetch the release's evaluation script into ``out_dir/evaluation/evaluate.py``
            (once some question file is there), validated by reading its prompts.
        prompt_url: the script's address (default: :func:`prompts_url` of ``base_url``).

    Returns:
        The paths of the asked-for files now in ``out_dir`` (fetched or kept), the evaluation
        script last. Files answering 404 are reported on stderr (``missing upstream``) and skipped.

    Raises:
        IncompleteDownload: a verified file (:data:`RELEASE_VERIFIED`) is missing upstream, or a file
            was cut short or broken; the others are saved (:class:`tom_envs.download.Fetcher`, the
            same rules as every family's download). DownloadError: no connection, or none of the files
            could be had. DatasetError: an unknown type, or a fetched file is malformed (it is not
            saved; the well-formed ones fetched before and after it are).
    """
    wanted = list(dict.fromkeys(qtypes))
    unknown = [q for q in wanted if q not in QTYPES]
    if unknown:
        raise DatasetError(f"unknown question type {unknown[0]!r}; choose from {', '.join(QTYPES)}")
    if not wanted:
        raise DatasetError(f"no question type to fetch; choose from {', '.join(QTYPES)}")
    check_url(base_url)
    script_url = prompt_url or prompts_url(base_url)
    if prompts:
        check_url(script_url)
    out = Path(out_dir)
    existed = out.exists()
    fetcher = Fetcher(out, timeout, overwrite)
    try:
        for qtype in wanted:
            verified = qtype in RELEASE_VERIFIED
            fetcher.get(
                f"{base_url.rstrip('/')}/{qtype}.json",
                f"{qtype}.json",
                partial(load_file, qtype=qtype),
                required=verified,
                note="" if verified else " (one of the four files not verified here)",
                label=qtype,
            )
        if prompts and fetcher.present:
            fetcher.get(
                script_url,
                RELEASE_PROMPT_PATH,
                read_authors_prompts,
                required=False,
                note=" (--protocol authors will use our prompts)",
            )
    finally:
        script_dir = (out / RELEASE_PROMPT_PATH).parent
        if script_dir.is_dir() and not any(script_dir.iterdir()):
            script_dir.rmdir()  # a script that was not saved leaves no folder behind
        if not existed and out.is_dir() and not any(out.iterdir()):
            out.rmdir()  # never leave an empty folder behind
    return fetcher.finish(base_url)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the download options to ``parser``."""
    add_folder_arguments(parser, DEFAULT_DEST, "the README's", DEFAULT_BASE_URL, "<qtype>.json")
    parser.add_argument(
        "--types",
        default=",".join(QTYPES),
        help="comma-separated question types (default: all eight the release lists; verified: "
        f"{','.join(RELEASE_VERIFIED)})",
    )
    parser.add_argument(
        "--overwrite", "--force", dest="overwrite", action="store_true", help="replace files already present"
    )
    parser.add_argument(
        "--no-prompts",
        dest="prompts",
        action="store_false",
        help=f"do not fetch the release's {RELEASE_PROMPT_PATH} (the authors' prompts, read by --protocol authors)",
    )
    parser.add_argument(
        "--prompts-url",
        default=None,
        help=f"address of the release's {RELEASE_PROMPT_PATH} (default: beside the --base-url folder)",
    )
    add_timeout_argument(parser, 60.0)


def from_args(args: argparse.Namespace) -> list[Path]:
    """The download the parsed options ask for; the paths now present."""
    types = [t.strip() for t in args.types.split(",") if t.strip()]
    if not types:
        raise DatasetError(f"--types names no question type; choose from {', '.join(QTYPES)}")
    return download(args.out, types, args.base_url, args.timeout, args.overwrite, args.prompts, args.prompts_url)


#: Run the download from parsed options: 0 (the paths are printed), or 2 with a message.
run = partial(run_download, from_args=from_args)
#: The older command line (``python -m tom_envs.persuasion.download``), the same as ``data download persuasion``.
main = partial(alias_main, "persuasion", prog="python -m tom_envs.persuasion.download")


if __name__ == "__main__":
    sys.exit(main())
