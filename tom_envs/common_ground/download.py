"""The published Common-ToM files (003): what ``data download common-ground`` fetches::

    tom-envs data download common-ground --dest data/common_tom
    python -m tom_envs.common_ground.download --dest data/common_tom      # older alias, the same
    tom-envs common-ground --data-dir data/common_tom --policy random

Question files and the zero-shot prompt (``prompts/gpt-zero-shot``) have fixed names (``questions/<cid>_<annotator>_yn_questions.csv.gz``) and are
fetched from the repository's raw-file address; the corpus files' names carry a suffix, so they
are found through the repository's directory listing (GitHub's contents API). Every file is
validated with the loaders before it is moved into place (see :mod:`tom_envs.download`); existing
files are kept unless ``--force``. A corpus file belongs to an annotator whose name it contains, as
the release's own loader finds ``{cid}*{annotator}*.tsv`` (``4248_PlatinumMagdaFULL_230615.tsv``).
Every file asked for is tried; a conversation missing from the listing, a file answering 404, a transfer cut
short or a malformed file is reported on stderr as skipped, the others are still fetched, and the command then
fails (exit status 2) naming every file it could not have: a partial folder is never reported as a success. Both addresses can be pointed elsewhere (a mirror, or a local
test server); ``TOM_ENVS_RELEASE_MIRROR`` points both defaults, and the listing's ``download_url`` entries, at a
mirror of the release hosts (:func:`tom_envs.download.mirrored`).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from functools import partial
from pathlib import Path
from typing import Any, Callable, Sequence

from tom_envs.common_ground.corpus import (
    DEFAULT_ANNOTATOR,
    TEST_CIDS,
    TRAIN_CIDS,
    annotator_name,
    read_corpus,
    read_questions,
)
from tom_envs.common_ground.prompts import RELEASE_PROMPT_FILE, load_release_prompt
from tom_envs.download import (
    DownloadError,
    Fetcher,
    add_timeout_argument,
    add_url_argument,
    alias_main,
    check_url,
    fetch,
    mirrored,
)
from tom_envs.download import run as run_download
from tom_envs.errors import TomEnvsError

__all__ = [
    "ALL_CIDS",
    "DEFAULT_BASE_URL",
    "DEFAULT_PARTS",
    "DEFAULT_LISTING_URL",
    "DownloadError",
    "PARTS",
    "REPOSITORY",
    "add_arguments",
    "corpus_urls",
    "download",
    "from_args",
    "main",
    "run",
]

REPOSITORY = "cogstates/common-tom"
#: Raw files of the repository's ``data/`` folder (``/cg/...``, ``/questions/...`` are appended).
DEFAULT_BASE_URL = f"https://raw.githubusercontent.com/{REPOSITORY}/main/data"
#: Directory listing of ``data/cg`` (a JSON list of ``{"name", "download_url"}``).
DEFAULT_LISTING_URL = f"https://api.github.com/repos/{REPOSITORY}/contents/data/cg"
ALL_CIDS: tuple[int, ...] = TRAIN_CIDS + TEST_CIDS
PARTS = ("cg", "questions", "prompts")
#: What a download fetches unless ``parts``/``--only`` says otherwise: everything (the corpus, the
#: question files and the zero-shot prompt file that ``--policy llm-release`` reads).
DEFAULT_PARTS = PARTS


class DownloadArgumentError(TomEnvsError, ValueError):
    """Bad options to the Common-ToM download (unknown part, malformed conversation ids)."""


def corpus_urls(listing_url: str, cids: Sequence[int], annotator: str, timeout: float = 30.0) -> dict[str, str]:
    """File name -> download address of the corpus files of ``cids`` by ``annotator``, from the listing.

    Raises:
        DownloadError: the listing cannot be fetched or read, or a conversation has no file in it.
    """
    listing_url = mirrored(listing_url)  # (named as asked in the messages below)
    try:
        entries = json.loads(fetch(listing_url, timeout, url_option="--listing-url"))
        names = {e["name"]: e.get("download_url") for e in entries}
    except (ValueError, TypeError, KeyError) as exc:
        raise DownloadError(
            f"{listing_url}: not a directory listing (a JSON list of {{'name', 'download_url'}}): {exc}"
        ) from None
    base = listing_url.rstrip("/")
    chosen: dict[str, str] = {}
    for cid in cids:
        hits = sorted(n for n in names if re.match(rf"^{cid}_[^_]*{re.escape(annotator)}[^_]*_.*\.tsv$", n))
        if not hits:
            print(
                f"skipped conversation {cid}: {listing_url} lists no corpus file '{cid}*{annotator}*.tsv'",
                file=sys.stderr,
            )
            continue
        chosen[hits[0]] = names[hits[0]] or f"{base}/{hits[0]}"
    if cids and not chosen:
        raise DownloadError(
            f"{listing_url}: no corpus file '<cid>*{annotator}*.tsv' of conversations "
            f"{', '.join(map(str, cids))}; check --annotator and --conversations"
        )
    return chosen


def _present_corpus(folder: Path, annotator: str) -> dict[int, Path]:
    """Conversation id -> corpus file of ``annotator`` already in ``folder``."""
    found: dict[int, Path] = {}
    for path in sorted(folder.glob("*.tsv")) if folder.is_dir() else []:
        match = re.match(r"^(\d+)_([^_]+)_.*\.tsv$", path.name)
        if match and annotator_name(match.group(2)) == annotator:
            found.setdefault(int(match.group(1)), path)
    return found


def _validator(part: str, name: str) -> Callable[[Path], Any]:
    """The loader that checks a fetched file of ``part`` named ``name``."""
    if part == "questions":
        return read_questions
    if part == "prompts":
        return load_release_prompt
    cid, annotator = name.split("_")[:2]
    return lambda path: read_corpus(path, int(cid), annotator_name(annotator))


def download(
    dest: str | Path,
    cids: Sequence[int] = ALL_CIDS,
    annotator: str = DEFAULT_ANNOTATOR,
    parts: Sequence[str] = DEFAULT_PARTS,
    base_url: str = DEFAULT_BASE_URL,
    listing_url: str = DEFAULT_LISTING_URL,
    force: bool = False,
    timeout: float = 30.0,
) -> list[Path]:
    """Fetch the corpus, question and zero-shot prompt files into ``dest/cg``, ``dest/questions``
    and ``dest/prompts``.

    Args:
        dest: the data folder to fill (created if needed).
        cids: conversation ids (default: all four).
        annotator: whose annotation (the released questions use ``"Magda"``).
        parts: ``"cg"``, ``"questions"`` and/or ``"prompts"`` (the release's zero-shot prompt
            ``prompts/gpt-zero-shot``, for ``--policy llm-release``); default: all three.
        base_url: address of the repository's ``data/`` folder (raw files).
        listing_url: address of the JSON listing of ``data/cg``.
        force: fetch again files that are already there.
        timeout: seconds per request.

    Returns:
        The paths of the files now present (fetched or kept).

    Raises:
        IncompleteDownload: a file is missing upstream (or from the listing), or was cut short or broken;
            the others are fetched and saved first (:class:`tom_envs.download.Fetcher`, the same rules as
            every family's download). DownloadError: the server cannot be reached, or nothing could be
            had. DatasetError: a fetched file is malformed (it is not saved; the others are).
    """
    unknown = set(parts) - set(PARTS)
    if unknown:
        raise DownloadArgumentError(f"unknown part(s) {sorted(unknown)}; choose from {PARTS}")
    check_url(base_url)
    dest = Path(dest)
    wanted: list[tuple[str, str, str | None]] = []  # (part, name, url; None: a corpus file kept as it is)
    if "questions" in parts:
        for cid in cids:
            name = f"{cid}_{annotator}_yn_questions.csv.gz"
            wanted.append(("questions", name, f"{base_url.rstrip('/')}/questions/{name}"))
    if "prompts" in parts:
        wanted.append(("prompts", RELEASE_PROMPT_FILE, f"{base_url.rstrip('/')}/prompts/{RELEASE_PROMPT_FILE}"))
    unlisted: list[int] = []
    if "cg" in parts:
        have = _present_corpus(dest / "cg", annotator)
        todo = [c for c in cids if force or c not in have]
        urls = corpus_urls(listing_url, todo, annotator, timeout) if todo else {}
        listed = {int(name.split("_", 1)[0]) for name in urls}
        unlisted = [c for c in todo if c not in listed]
        wanted += [("cg", name, url) for name, url in urls.items()]
        wanted += [("cg", have[c].name, None) for c in cids if c in have and have[c].name not in urls]
    fetcher = Fetcher(dest, timeout, force)
    for part, name, url in wanted:
        if url is None:
            fetcher.present.append(dest / part / name)
        else:
            fetcher.get(url, f"{part}/{name}", _validator(part, name))
    fetcher.missing += [f"cg/{cid}*{annotator}*.tsv" for cid in unlisted]
    return fetcher.finish(base_url)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the download options to ``parser``."""
    parser.add_argument(
        "--dest",
        default="data/common_tom",
        help="data folder to fill (cg/, questions/ and prompts/; default: %(default)s)",
    )
    parser.add_argument(
        "--conversations",
        default=",".join(map(str, ALL_CIDS)),
        help="comma-separated conversation ids (default: %(default)s)",
    )
    parser.add_argument("--annotator", default=DEFAULT_ANNOTATOR, help="whose annotation (default: %(default)s)")
    parser.add_argument(
        "--only",
        choices=PARTS,
        default=None,
        help="fetch only the corpus, only the question files, or only the zero-shot prompt file "
        "(needed by --policy llm-release); default: all three",
    )
    add_url_argument(parser, "--base-url", DEFAULT_BASE_URL, "raw-file address of the repository's data/ folder")
    add_url_argument(parser, "--listing-url", DEFAULT_LISTING_URL, "JSON listing of data/cg, GitHub contents API")
    parser.add_argument("--force", action="store_true", help="fetch again files already present")
    add_timeout_argument(parser, 30.0)


def from_args(args: argparse.Namespace) -> list[Path]:
    """The download the parsed options ask for; the paths now present."""
    try:
        cids = list(dict.fromkeys(int(c) for c in args.conversations.split(",") if c.strip()))
    except ValueError:
        raise DownloadArgumentError(f"--conversations takes comma-separated ids, got {args.conversations!r}") from None
    if not cids:
        raise DownloadArgumentError(
            f"--conversations names no conversation; the published ones are {', '.join(map(str, ALL_CIDS))}"
        )
    return download(
        args.dest,
        cids,
        args.annotator,
        (args.only,) if args.only else DEFAULT_PARTS,
        args.base_url,
        args.listing_url,
        args.force,
        args.timeout,
    )


#: Run the download from parsed options: 0 (the paths are printed), or 2 with a message.
run = partial(run_download, from_args=from_args)
#: The older command line (``python -m tom_envs.common_ground.download``), the same as ``data download common-ground``.
main = partial(alias_main, "common-ground", prog="python -m tom_envs.common_ground.download")


if __name__ == "__main__":
    sys.exit(main())
