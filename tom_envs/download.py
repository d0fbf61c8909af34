"""Fetching the published datasets: one mechanism for every family.

The documented entry point is ``tom-envs data download NAME`` (``python -m benchmarks data
download NAME``); ``python -m tom_envs.download NAME`` is the same command without the benchmarks
package. Each family with a public release has a small module (its :class:`~tom_envs.family.Family`
declaration's ``download``; :func:`downloads`) that says *what* to fetch and *how to validate it*; this
module does the rest:

* :func:`fetch` -- one HTTP(S) GET, every failure a :class:`DownloadError` naming the address;
* :func:`save_validated` -- bytes written next to their target, checked with the family's loader,
  and only then moved into place (a broken download never replaces a file or leaves a part file);
* :func:`run` -- the command-line report: the paths now present on stdout, or ``error: ...`` on
  stderr with exit status 2.

A family module provides ``add_arguments(parser)`` and ``from_args(args) -> list[Path]``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
import tempfile
import urllib.error
import urllib.request
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from tom_envs.errors import DatasetError, TomEnvsError



@dataclass(frozen=True)
class Dataset:
    """One published dataset: where it comes from, its format, and which ids read it (a family
    declaration's ``dataset`` builds it; ``tom-envs data list`` prints them)."""

    name: str
    paper: str
    envs: tuple[str, ...]
    source: str
    layout: str
    sample: str
    use: str
    download: str | None  # the module that knows its files (the family's ``download``), or None
    notes: tuple[str, ...] = ()  # what a user should know about the release: what exists, known quirks


def downloads() -> dict[str, str]:
    """Dataset name (the family's command) -> the module that knows its files (``add_arguments``,
    ``from_args``), for every declared family with a download."""
    from tom_envs.family import families

    return {fam.command: fam.download for fam in families() if fam.download}


class DownloadError(TomEnvsError, ConnectionError):
    """A file could not be fetched (bad address, network, HTTP status, nothing to fetch); the
    message names the address."""


def check_url(url: str) -> None:
    """Raise :class:`DownloadError` unless ``url`` is an http(s) address."""
    if not re.match(r"^https?://", url):
        raise DownloadError(f"only http(s) addresses are fetched, got {url!r}")


def fetch(url: str, timeout: float = 30.0, url_option: str = "--base-url") -> bytes:
    """The body of ``url``; ``url_option`` is the command-line option that sets it (named in errors).

    Raises:
        DownloadError: not an http(s) address, an HTTP error status, or no connection.
    """
    check_url(url)
    request = urllib.request.Request(url, headers={"User-Agent": "tom-envs", "Accept": "*/*"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 (http(s) checked above)
            return response.read()
    except urllib.error.HTTPError as exc:
        raise DownloadError(f"could not fetch {url}: HTTP {exc.code} ({exc.reason}); check the address, "
                            f"or pass {url_option} for a mirror") from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise DownloadError(f"could not fetch {url}: cannot connect ({exc}); check your network, "
                            f"or pass {url_option} for a mirror") from None


def save_validated(data: bytes, target: Path, validate: Callable[[Path], Any], source: str = "") -> Path:
    """Write ``data`` to ``target`` only if ``validate(path)`` accepts it.

    The bytes go to a hidden part folder in ``target``'s folder first; ``validate`` reads that file
    (a family loader raising :class:`DatasetError`), and only then is it renamed onto ``target``.

    Raises:
        DatasetError: the data is malformed; the message names ``source`` and the file, and
            nothing is written.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(dir=target.parent, prefix=".part-"))
    tmp = folder / target.name  # created by open(): the umask's mode, as any file the user writes
    try:
        tmp.write_bytes(data)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            validate(tmp)
        for w in caught:  # the loader's warnings name the file as it will be, not the part file
            warnings.warn_explicit(str(w.message).replace(str(tmp), str(target)), w.category, w.filename, w.lineno)
        os.replace(tmp, target)
    except DatasetError as exc:
        where = f"{source}: " if source else ""
        raise DatasetError(f"{where}downloaded {target.name} is malformed, not saved: {exc}") from None
    finally:
        if tmp.exists():
            tmp.unlink()
        folder.rmdir()
    return target


def fetch_validated(url: str, target: Path, validate: Callable[[Path], Any], timeout: float = 30.0,
                    overwrite: bool = False) -> Path:
    """:func:`fetch` then :func:`save_validated`; a ``target`` already present is kept unless
    ``overwrite``."""
    if target.exists() and not overwrite:
        return target
    return save_validated(fetch(url, timeout), target, validate, url)


def positive_seconds(text: str) -> float:
    """An argparse type: a timeout in seconds, > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
    return value


def add_timeout_argument(parser: argparse.ArgumentParser, default: float) -> None:
    """The ``--timeout`` option every download command has."""
    parser.add_argument("--timeout", type=positive_seconds, default=default,
                        help=f"seconds per request (default: {default:g})")


def run(args: argparse.Namespace, from_args: Callable[[argparse.Namespace], Sequence[Path]]) -> int:
    """Run a download command: print the paths now present and return 0, or print ``error: ...``
    on stderr and return 2 on a bad argument, a failed fetch or a malformed file."""
    try:
        paths = from_args(args)
    except TomEnvsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print("\n".join(str(p) for p in paths))
    return 0


def add_commands(subparsers: Any, helps: dict[str, str] | None = None) -> None:
    """One sub-command per dataset of :func:`downloads` under ``subparsers`` (``help`` from ``helps``)."""
    for name, module_name in downloads().items():
        module = importlib.import_module(module_name)
        parser = subparsers.add_parser(name, help=(helps or {}).get(name), description=module.__doc__,
                                       formatter_class=argparse.RawDescriptionHelpFormatter)
        module.add_arguments(parser)
        parser.set_defaults(func=lambda args, m=module: run(args, m.from_args))


def main(argv: Sequence[str] | None = None, prog: str = "python -m tom_envs.download") -> int:
    """``python -m tom_envs.download NAME [options]``; returns the exit status."""
    parser = argparse.ArgumentParser(prog=prog, description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_commands(parser.add_subparsers(dest="dataset", required=True, metavar="NAME"))
    args = parser.parse_args(argv)
    return int(args.func(args))


def alias_main(name: str, argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    """An older command line of one dataset (``python -m tom_envs.persuasion.download ...``): the
    same parser and run as ``data download NAME``, under its old program name."""
    module = importlib.import_module(downloads()[name])
    parser = argparse.ArgumentParser(prog=prog, description=module.__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    module.add_arguments(parser)
    return run(parser.parse_args(argv), module.from_args)


if __name__ == "__main__":
    sys.exit(main())
