"""The ``type=`` validators of the command line: a bad flag value is a usage error, never a traceback.

Each turns the text of an option into its value or raises ``argparse.ArgumentTypeError``, so argparse
prints ``error: ...`` and exits with status 2: :func:`positive_int`, :func:`non_negative_int`,
:func:`count` (bounded by :data:`MAX_EPISODES` / :data:`MAX_LOCKSTEP`), :func:`positive_float`,
:func:`non_negative_float`, :func:`output_dir`, :func:`existing_file` and :func:`comma_list` (read back
with :func:`split_list`). They are part of the shared vocabulary of :mod:`benchmarks.cli`.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None


def _float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def _int_from(text: str, low: int, says: str) -> int:
    value = _int(text)
    if value < low:
        raise argparse.ArgumentTypeError(f"must be {says}, got {value}")
    return value


def positive_int(text: str) -> int:
    """An integer >= 1."""
    return _int_from(text, 1, "at least 1")


#: Upper bounds of the size options (a typo such as ``--episodes 100000000000`` is a usage error, said
#: at once, not a MemoryError or a run that never ends).
MAX_EPISODES = 1_000_000
MAX_LOCKSTEP = 100_000


def count(high: int) -> Callable[[str], int]:
    """An ``argparse`` type: an integer in ``1..high``."""

    def parse(text: str) -> int:
        value = positive_int(text)
        if value > high:
            raise argparse.ArgumentTypeError(f"must be at most {high:,}, got {value:,}")
        return value

    parse.__name__ = "count"  # argparse names the type in its messages
    return parse


def non_negative_int(text: str) -> int:
    """An integer >= 0."""
    return _int_from(text, 0, "0 or more")


def positive_float(text: str) -> float:
    """A finite number > 0."""
    value = _float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be greater than 0, got {text}")
    return value


def output_dir(text: str) -> str:
    """A folder to write into: it may not exist yet, but neither it nor a parent may be a file."""
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a folder, got an empty path")
    path = Path(text).expanduser()
    for p in (path, *path.parents):
        if p.exists():
            if not p.is_dir():
                what = "is a file" if p == path else f"is inside {p}, which is a file"
                raise argparse.ArgumentTypeError(f"{text!r} {what}; give a folder")
            break
    return text


def output_file(text: str) -> str:
    """A file to write: it may not exist yet, but it may not be a folder, nor any of its parents a file."""
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a file, got an empty path")
    path = Path(text).expanduser()
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is a folder; give a file path (e.g. {str(path / 'out.jsonl')!r})")
    for p in path.parents:
        if p.exists():
            if not p.is_dir():
                raise argparse.ArgumentTypeError(f"{text!r} is inside {p}, which is a file; give a path under a folder")
            break
    return text


def existing_file(text: str) -> str:
    """A file that exists."""
    path = Path(text).expanduser()
    if not path.is_file():
        raise argparse.ArgumentTypeError(
            f"{text!r} {'is a folder' if path.is_dir() else 'does not exist'}; give a file"
        )
    return text


def split_list(text: str) -> list[str]:
    """The non-empty items of a comma-separated list, stripped (no validation)."""
    return [x.strip() for x in text.split(",") if x.strip()]


def comma_list(
    choices: Sequence[str] | None = None, *, name: str = "item", extra: Callable[[str], bool] | None = None
) -> Callable[[str], str]:
    """A ``type=`` for a comma-separated list: non-empty, without duplicates, and (with
    ``choices``) every item one of them or accepted by ``extra(item)``. The value stays the text
    (commands split it with :func:`split_list`), so defaults and old callers are unchanged."""

    def parse(text: str) -> str:
        items = split_list(text)
        if not items:
            raise argparse.ArgumentTypeError(f"expected a comma-separated list ({name}, ...), got {text!r}")
        if len(items) != len(text.split(",")):
            raise argparse.ArgumentTypeError(
                f"empty {name} in {text!r} (two commas in a row, or one at an end); write the list as {','.join(items)}"
            )
        seen = {x for x in items if items.count(x) > 1}
        if seen:
            raise argparse.ArgumentTypeError(f"{name} {', '.join(sorted(seen))} given twice")
        if choices is not None:
            bad = [x for x in items if x not in choices and not (extra and extra(x))]
            if bad:
                raise argparse.ArgumentTypeError(
                    f"unknown {name} {', '.join(map(repr, bad))}; choose from {', '.join(choices)}"
                )
        return text

    parse.__name__ = f"{name} list"  # argparse names the type in some messages
    return parse


def non_negative_float(text: str) -> float:
    """A finite number >= 0."""
    value = _float(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text}")
    return value
