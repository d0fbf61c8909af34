"""The published ProMediate-Eval cases (002): what ``data download negotiation`` fetches::

    tom-envs data download negotiation --dest data/promediate/cases

The release (github.com/microsoft/ProMediate-Eval, ``cases/``) holds six case files: hmo,
flagship, river, ias, williams and francis (``<case>.json``). Each is fetched from
``<base-url>/<case>.json`` and validated with the importer
(:meth:`~tom_envs.negotiation.scenario.Scenario.from_promediate`) before it is moved into place (see
:mod:`tom_envs.download`); a case with party-topic pairs the importer could not read is saved and
the count is reported on stderr. Once the cases are in ``data/promediate/cases`` (or the folder
``TOM_ENVS_PROMEDIATE_CASES`` names), ``python -m benchmarks negotiation --scenarios all`` plays
them instead of our six self-written scenarios (``--scenarios builtin`` keeps ours).
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from functools import partial
from pathlib import Path
from typing import Iterable

from tom_envs.download import (
    DownloadError,
    add_folder_arguments,
    add_timeout_argument,
    alias_main,
    check_url,
    fetch_validated,
    mirrored,
)
from tom_envs.download import run as run_download
from tom_envs.errors import DatasetError, require_bool
from tom_envs.negotiation.errors import PromediateFormatWarning, ScenarioError

__all__ = [
    "CASES",
    "DEFAULT_BASE_URL",
    "DEFAULT_DEST",
    "ENV_VAR",
    "REPOSITORY",
    "add_arguments",
    "download",
    "downloaded_cases",
    "from_args",
    "main",
    "run",
]

REPOSITORY = "microsoft/ProMediate-Eval"
#: The release's ``cases/`` folder (raw files).
DEFAULT_BASE_URL = f"https://raw.githubusercontent.com/{REPOSITORY}/main/cases"
#: Where the cases go by default, and where the benchmark looks for them.
DEFAULT_DEST = "data/promediate/cases"
#: Environment variable naming another folder of downloaded cases.
ENV_VAR = "TOM_ENVS_PROMEDIATE_CASES"
#: The six released cases, in 002's Appendix B.1 order of our built-in counterparts.
CASES: tuple[str, ...] = ("williams", "hmo", "francis", "ias", "flagship", "river")


def _validate(path: Path) -> int:
    """Import the case; the number of party-topic pairs that fell back to the listed order."""
    from tom_envs.negotiation.scenario import Scenario

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PromediateFormatWarning)
        try:
            sc = Scenario.from_promediate(path)
        except ScenarioError as exc:
            raise DatasetError(str(exc)) from None
    return sum(pr.source == "listed_order" for p in sc.parties for pr in p.preferences.values())


def download(
    out_dir: str | Path = DEFAULT_DEST,
    cases: Iterable[str] = CASES,
    base_url: str = DEFAULT_BASE_URL,
    timeout: float = 60.0,
    overwrite: bool = False,
) -> list[Path]:
    """Download and validate the case files into ``out_dir``.

    Returns:
        The paths of the asked-for cases now in ``out_dir`` (fetched or kept).

    Raises:
        DatasetError: an unknown case name, or a fetched file the importer rejects (not saved).
        DownloadError: no connection, an HTTP error, or nothing could be had.
    """
    overwrite = require_bool("overwrite", overwrite)
    wanted = list(dict.fromkeys(cases))
    unknown = [c for c in wanted if c not in CASES]
    if unknown or not wanted:
        raise DatasetError(f"unknown case {unknown[0] if unknown else '(none)'!r}; choose from {', '.join(CASES)}")
    check_url(base_url)
    out = Path(out_dir)
    existed = out.exists()
    present: list[Path] = []
    missing: list[str] = []
    try:
        for case in wanted:
            url = mirrored(f"{base_url.rstrip('/')}/{case}.json")
            try:
                present.append(fetch_validated(url, out / f"{case}.json", _validate, timeout, overwrite))
            except DownloadError as exc:
                if "HTTP 404" not in str(exc):
                    raise
                print(f"skipped {case}.json: missing upstream, {url} answers 404", file=sys.stderr)
                missing.append(case)
    finally:
        if not existed and out.is_dir() and not any(out.iterdir()):
            out.rmdir()  # never leave an empty folder behind
    if not present:
        raise DownloadError(
            f"nothing was fetched from {mirrored(base_url)}: every case asked for answers 404; check --base-url"
        )
    guessed = {p.stem: _validate(p) for p in present}
    unread = {k: v for k, v in guessed.items() if v}
    print(
        f"{len(present)} of {len(wanted)} cases in {out}"
        + (f"; missing upstream: {', '.join(missing)}" if missing else "")
        + (f"; party-topic pairs with no stated first choice (listed order used): {unread}" if unread else ""),
        file=sys.stderr,
    )
    return present


def downloaded_cases(folder: str | Path | None = None) -> list[Path]:
    """The released cases present in ``folder`` (default: ``$TOM_ENVS_PROMEDIATE_CASES`` or
    ``data/promediate/cases``), in :data:`CASES` order; empty when none are there."""
    root = Path(folder if folder is not None else os.environ.get(ENV_VAR) or DEFAULT_DEST)
    return [root / f"{c}.json" for c in CASES if (root / f"{c}.json").is_file()]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the download options to ``parser``."""
    add_folder_arguments(parser, DEFAULT_DEST, "where the benchmark looks", DEFAULT_BASE_URL, "<case>.json")
    parser.add_argument("--cases", default=",".join(CASES), help="comma-separated cases (default: all six)")
    parser.add_argument(
        "--overwrite", "--force", dest="overwrite", action="store_true", help="replace files already present"
    )
    add_timeout_argument(parser, 60.0)


def from_args(args: argparse.Namespace) -> list[Path]:
    """The download the parsed options ask for; the paths now present."""
    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    return download(args.out, cases, args.base_url, args.timeout, args.overwrite)


#: Run the download from parsed options: 0 (the paths are printed), or 2 with a message.
run = partial(run_download, from_args=from_args)
#: ``python -m tom_envs.negotiation.download``, the same as ``data download negotiation``.
main = partial(alias_main, "negotiation", prog="python -m tom_envs.negotiation.download")


if __name__ == "__main__":
    sys.exit(main())
