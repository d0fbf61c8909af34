"""Fetching the published datasets: one mechanism for every family.

The documented entry point is ``tom-envs data download NAME`` (``python -m benchmarks data
download NAME``); ``python -m tom_envs.download NAME`` is the same command without the benchmarks
package. Each family with a public release has a small module (its :class:`~tom_envs.family.Family`
declaration's ``download``; :func:`downloads`) that says *what* to fetch and *how to validate it*; this
module does the rest:

* :func:`fetch` -- one HTTP(S) GET, every failure a :class:`DownloadError` naming the address; an address
  on a release host (``raw.githubusercontent.com``, ``api.github.com``) goes to the mirror that
  ``TOM_ENVS_RELEASE_MIRROR`` names, when it is set (:func:`mirrored`);
* :func:`save_validated` -- bytes written next to their target, checked with the family's loader,
  and only then moved into place (a broken download never replaces a file or leaves a part file);
* :func:`run` -- the command-line report: the paths now present on stdout, or ``error: ...`` on
  stderr with exit status 2.

A family module provides ``add_arguments(parser)`` and ``from_args(args) -> list[Path]``.
"""

from __future__ import annotations

import argparse
import http.client
import importlib
import os
import re
import sys
import tempfile
import urllib.error
import urllib.parse
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
    """A file could not be fetched (bad address, network, HTTP status, a transfer cut short, nothing to
    fetch); the message names the address.

    Attributes:
        status: the HTTP status of an error answer (e.g. 404), else None.
        unreachable: True when the server could not be reached at all (no point trying other files).
    """

    def __init__(self, message: str, status: int | None = None, unreachable: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.unreachable = unreachable


class IncompleteDownload(DownloadError):
    """Some files of a download could not be had (missing upstream, cut short, malformed): the ones
    that could are saved, and the message lists every one that could not."""


#: Environment variable naming a mirror of the release hosts (an offline or air-gapped machine), like HF_ENDPOINT.
MIRROR_ENV = "TOM_ENVS_RELEASE_MIRROR"
#: The hosts the releases are fetched from; an address on one of them is fetched from the mirror when it is set.
RELEASE_HOSTS = ("raw.githubusercontent.com", "api.github.com")
MIRROR_HELP = (
    f"{MIRROR_ENV}=http://HOST:PORT[/PREFIX] fetches every address on {' and '.join(RELEASE_HOSTS)} from a mirror "
    "instead: https://HOST/PATH becomes $" + MIRROR_ENV + "/HOST/PATH (the layout `wget -x` saves)"
)


class ReleaseMirrorError(TomEnvsError, ValueError):
    """``TOM_ENVS_RELEASE_MIRROR`` is not an http(s) address of a mirror (``http://host:port[/prefix]``)."""


def release_mirror() -> str | None:
    """The mirror of the release hosts that ``TOM_ENVS_RELEASE_MIRROR`` names (no trailing ``/``); None when the
    variable is unset or empty.

    Raises:
        ReleaseMirrorError: the value is not ``http(s)://host[:port][/prefix]`` (no query, fragment or
            credentials).
    """
    value = os.environ.get(MIRROR_ENV, "").strip()
    if not value:
        return None
    how = f"set {MIRROR_ENV} to http://HOST:PORT[/PREFIX] (a mirror of {', '.join(RELEASE_HOSTS)}), or unset it"
    parts = urllib.parse.urlsplit(value)
    try:
        port = parts.port  # a port that is not a number in range raises
    except ValueError:
        port = -1
    if parts.scheme not in ("http", "https") or not parts.hostname or port == -1:
        raise ReleaseMirrorError(f"{MIRROR_ENV}={value!r} is not an http(s) address with a host; {how}")
    if parts.query or parts.fragment or parts.username or parts.password:
        raise ReleaseMirrorError(
            f"{MIRROR_ENV}={value!r} has a query, a fragment or credentials; {how} (the release paths are appended)"
        )
    return value.rstrip("/")


def mirrored(url: str) -> str:
    """``url`` as fetched: ``https://HOST/PATH`` on a release host (:data:`RELEASE_HOSTS`) becomes
    ``$TOM_ENVS_RELEASE_MIRROR/HOST/PATH`` when the variable is set; any other address is left as it is.

    Raises:
        ReleaseMirrorError: the variable is set to a malformed value (:func:`release_mirror`).
    """
    mirror = release_mirror()
    parts = urllib.parse.urlsplit(url)
    if mirror is None or parts.scheme != "https" or parts.netloc not in RELEASE_HOSTS:
        return url
    return f"{mirror}/{parts.netloc}{urllib.parse.urlunsplit(('', '', parts.path, parts.query, ''))}"


def check_url(url: str) -> None:
    """Raise :class:`DownloadError` unless ``url`` is an http(s) address."""
    if not re.match(r"^https?://", url):
        raise DownloadError(f"only http(s) addresses are fetched, got {url!r}")


def fetch(url: str, timeout: float = 30.0, url_option: str = "--base-url") -> bytes:
    """The body of ``url`` (from the release mirror, :func:`mirrored`, when ``url`` is on a release host and
    ``TOM_ENVS_RELEASE_MIRROR`` is set); ``url_option`` is the command-line option that sets it (named in errors).

    The body's size is checked against the answer's ``Content-Length`` when it has one.

    Raises:
        DownloadError: not an http(s) address, an HTTP error status (``status``), no connection
            (``unreachable``), or a transfer cut short or otherwise broken (any ``http.client`` error).
        ReleaseMirrorError: ``TOM_ENVS_RELEASE_MIRROR`` is malformed.
    """
    check_url(url)
    url = mirrored(url)
    request = urllib.request.Request(url, headers={"User-Agent": "tom-envs", "Accept": "*/*"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 (http(s) checked above)
            expected = response.headers.get("Content-Length")
            data = response.read()
    except urllib.error.HTTPError as exc:
        raise DownloadError(
            f"could not fetch {url}: HTTP {exc.code} ({exc.reason}); check the address, "
            f"or pass {url_option} for a mirror",
            status=exc.code,
        ) from None
    except http.client.IncompleteRead as exc:
        expected_n = "?" if exc.expected is None else len(exc.partial) + exc.expected
        raise DownloadError(
            f"could not fetch {url}: the transfer was cut short ({len(exc.partial)} of {expected_n} "
            f"bytes); try again, or pass {url_option} for a mirror"
        ) from None
    except http.client.HTTPException as exc:  # RemoteDisconnected, BadStatusLine, LineTooLong, ...
        raise DownloadError(
            f"could not fetch {url}: the server's answer was broken ({type(exc).__name__}: {exc}); "
            f"try again, or pass {url_option} for a mirror"
        ) from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise DownloadError(
            f"could not fetch {url}: cannot connect ({exc}); check your network, or pass {url_option} "
            f"(or set {MIRROR_ENV}) for a mirror",
            unreachable=True,
        ) from None
    if expected is not None and expected.strip().isdigit() and int(expected) != len(data):
        raise DownloadError(
            f"could not fetch {url}: got {len(data)} bytes, but the server announced "
            f"{int(expected)} (Content-Length); try again, or pass {url_option} for a mirror"
        )
    return data


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
        message = str(exc).replace(str(tmp), str(target))  # name the file as it would be, never the part file
        message = message.removeprefix(f"{target}: ")  # named once, below
        raise DatasetError(f"{where}downloaded {target} is malformed, not saved: {message}") from None
    finally:
        if tmp.exists():
            tmp.unlink()
        folder.rmdir()
    return target


def fetch_validated(
    url: str, target: Path, validate: Callable[[Path], Any], timeout: float = 30.0, overwrite: bool = False
) -> Path:
    """:func:`fetch` then :func:`save_validated`; a ``target`` already present is kept unless
    ``overwrite``."""
    if target.exists() and not overwrite:
        return target
    return save_validated(fetch(url, timeout), target, validate, url)


class Fetcher:
    """One download of several files, the same in every family: each file is tried in turn and kept
    if it validates (:func:`fetch_validated`); a file missing upstream (HTTP 404), cut short, broken
    or malformed is reported on stderr by its destination path and the others are still fetched;
    :meth:`finish` then fails, naming every file that could not be had, unless all were (files that
    are ``required=False`` may be missing upstream). An unreachable server stops at once.

    Args:
        dest: the folder the names are relative to.
        timeout: seconds per request.
        overwrite: fetch again files already present.
    """

    def __init__(self, dest: Path, timeout: float = 30.0, overwrite: bool = False) -> None:
        self.dest, self.timeout, self.overwrite = Path(dest), timeout, overwrite
        self.present: list[Path] = []
        self.missing: list[str] = []  # required files missing upstream (404)
        self.optional: list[str] = []  # files not required, missing upstream
        self.failed: list[str] = []  # cut short, broken, malformed: one message each
        self.malformed = False

    def get(
        self,
        url: str,
        name: str,
        validate: Callable[[Path], Any],
        required: bool = True,
        note: str = "",
        label: str | None = None,
    ) -> Path | None:
        """Fetch ``url`` into ``dest / name`` if ``validate`` reads it (kept if already there); None if
        it could not be had (reported on stderr with ``note``; ``label``, default ``name``, is how the
        summary lists it).

        Raises:
            DownloadError: the server cannot be reached at all.
        """
        target = self.dest / name
        url = mirrored(url)  # (named as asked in the report below)
        try:
            path = fetch_validated(url, target, validate, self.timeout, self.overwrite)
        except DownloadError as exc:
            if exc.unreachable:
                raise
            if exc.status == 404:
                print(
                    f"skipped {name}: missing upstream, {url} answers 404 (not saved to {target}){note}",
                    file=sys.stderr,
                )
                (self.missing if required else self.optional).append(label or name)
            else:
                print(f"skipped {name}: {exc}", file=sys.stderr)
                self.failed.append(f"{target}: {exc}")
            return None
        except DatasetError as exc:
            print(f"skipped {name}: {exc}", file=sys.stderr)
            self.failed.append(str(exc))
            self.malformed = True
            return None
        self.present.append(path)
        return path

    def finish(self, source: str) -> list[Path]:
        """The paths now present; a summary on stderr.

        Raises:
            IncompleteDownload: a required file is missing upstream or a file was cut short or broken
                (the others are saved); ``DatasetError`` instead when a file was malformed.
            DownloadError: nothing at all could be had.
        """
        wanted = len(self.present) + len(self.missing) + len(self.optional) + len(self.failed)
        print(
            f"{len(self.present)} of {wanted} files in {self.dest}"
            + (
                f"; missing upstream: {', '.join(self.missing + self.optional)}"
                if self.missing or self.optional
                else ""
            )
            + (f"; {len(self.failed)} not saved" if self.failed else ""),
            file=sys.stderr,
        )
        source = mirrored(source)
        problems = [f"missing upstream at {source}: {', '.join(self.missing)}"] if self.missing else []
        problems += self.failed
        kept = f" (the {len(self.present)} other file(s) are saved in {self.dest})" if self.present else ""
        if self.malformed:
            raise DatasetError("; ".join(problems) + kept)
        if not self.present and not self.failed:
            raise DownloadError(
                f"nothing was fetched from {source}: every file asked for "
                f"({', '.join(self.missing + self.optional) or 'none'}) answers HTTP 404; check the "
                "address options"
            )
        if problems:
            raise IncompleteDownload(
                f"the download is incomplete: {'; '.join(problems)}{kept}; run it again, or "
                f"point the address options at a mirror"
            )
        return self.present


def positive_seconds(text: str) -> float:
    """An argparse type: a timeout in seconds, > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
    return value


def add_folder_arguments(
    parser: argparse.ArgumentParser, default_dest: str, dest_note: str, default_url: str, holding: str
) -> None:
    """The options of a download that copies files from a folder URL into a folder: ``--dest`` (or
    ``--out``; ``args.out``), the folder (``dest_note`` says what its default is), and ``--base-url``, the
    folder URL ``holding`` the files."""
    parser.add_argument(
        "--dest",
        "--out",
        dest="out",
        default=default_dest,
        help=f"destination folder (default: %(default)s, {dest_note})",
    )
    add_url_argument(parser, "--base-url", default_url, f"folder URL holding {holding}")


def add_url_argument(parser: argparse.ArgumentParser, flag: str, default: str, what: str) -> None:
    """An address option of a download (``--base-url``, ``--listing-url``): ``what`` it names, its default, and
    that the default goes to the release mirror when ``TOM_ENVS_RELEASE_MIRROR`` is set (:func:`mirrored`)."""
    parser.add_argument(
        flag, default=default, help=f"{what} (default: %(default)s; under ${MIRROR_ENV} when it is set)"
    )


def add_timeout_argument(parser: argparse.ArgumentParser, default: float) -> None:
    """The ``--timeout`` option every download command has."""
    parser.add_argument(
        "--timeout", type=positive_seconds, default=default, help=f"seconds per request (default: {default:g})"
    )


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: Any = None,
    line: str | None = None,
) -> None:
    print(f"warning: {message}", file=sys.stderr)


def run(args: argparse.Namespace, from_args: Callable[[argparse.Namespace], Sequence[Path]]) -> int:
    """Run a download command: print the paths now present and return 0, or print ``error: ...``
    on stderr and return 2 on a bad argument, a failed fetch or a malformed file."""
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning  # a loader's warning as one line, never a source line
            paths = from_args(args)
    except TomEnvsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if getattr(args, "format", "table") == "json":
        import json

        print(json.dumps({"files": [str(p) for p in paths]}, indent=2))
    else:
        print("\n".join(str(p) for p in paths))
    return 0


def _add_format(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format",
        choices=["table", "json"],
        default="table",
        help='output format: the paths now present one per line, or {"files": [...]} (default: %(default)s)',
    )


def add_commands(subparsers: Any, helps: dict[str, str] | None = None) -> None:
    """One sub-command per dataset of :func:`downloads` under ``subparsers`` (``help`` from ``helps``)."""
    for name, module_name in downloads().items():
        module = importlib.import_module(module_name)
        parser = subparsers.add_parser(
            name,
            help=(helps or {}).get(name),
            description=module.__doc__,
            epilog=MIRROR_HELP,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_arguments(parser)
        _add_format(parser)
        parser.set_defaults(func=lambda args, m=module: run(args, m.from_args))


def main(argv: Sequence[str] | None = None, prog: str = "python -m tom_envs.download") -> int:
    """``python -m tom_envs.download NAME [options]``; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_commands(parser.add_subparsers(dest="dataset", required=True, metavar="NAME"))
    args = parser.parse_args(argv)
    return int(args.func(args))


def alias_main(name: str, argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    """An older command line of one dataset (``python -m tom_envs.persuasion.download ...``): the
    same parser and run as ``data download NAME``, under its old program name."""
    module = importlib.import_module(downloads()[name])
    parser = argparse.ArgumentParser(
        prog=prog, description=module.__doc__, epilog=MIRROR_HELP, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    module.add_arguments(parser)
    _add_format(parser)
    return run(parser.parse_args(argv), module.from_args)


if __name__ == "__main__":
    sys.exit(main())
