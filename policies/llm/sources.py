"""Where a model or tokenizer comes from, checked before anything loads it.

A ``--model`` / ``--tokenizer`` value is a local folder or a Hugging Face id (``name`` or ``org/name``). What can
be told wrong from the value alone is a :class:`~policies.llm.errors.BackendConfigError` at once, not after an
engine's start-up (20-160 s on a CPU) or minutes of hub retries offline: a value that can only be a path (``/``,
``./``, ``~`` at the start, more than one ``/``, or under a folder that exists here) but names no folder, and a
folder without the files the loader needs (``config.json`` for a model; ``tokenizer.json``,
``tokenizer_config.json`` or ``tokenizer.model`` for a tokenizer). A Hub id is left to the loader.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from policies.llm.errors import BackendConfigError

#: A Hugging Face repository id: ``name`` or ``org/name`` (letters, digits, ``-``, ``_``, ``.``).
_HUB_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)?")

#: The files a folder needs, per what it is loaded as (any one of them).
NEEDS = {"model": ("config.json",), "tokenizer": ("tokenizer.json", "tokenizer_config.json", "tokenizer.model")}


def check_source(value: str, what: str = "model", option: str | None = None) -> None:
    """Raise :class:`BackendConfigError` when ``value`` cannot be the ``what`` (``"model"`` or ``"tokenizer"``)
    it is given as: a path-only value naming no folder, or a folder without the files :data:`NEEDS` lists.

    ``option`` names the option in the message (default ``--<what>``)."""
    option = option or f"--{what}"
    known = ", or a known short name (python -m benchmarks model list)" if what == "model" else ""
    if not isinstance(value, str) or not value.strip():
        raise BackendConfigError(f"{option} {value!r}: give a local {what} folder or a Hugging Face id 'org/name'")
    path = Path(value).expanduser()
    if path.is_dir():
        needs = NEEDS[what]
        if not any((path / name).is_file() for name in needs):
            raise BackendConfigError(
                f"{option} {value!r}: the folder has no {' or '.join(needs)}, so it holds no {what} a loader can "
                f"read; give the folder of a downloaded {what} (e.g. a Hugging Face snapshot){known}"
            )
        return
    first = value.split("/", 1)[0]
    path_only = (
        value.startswith(("/", "./", "../", "~"))
        or os.sep in value.replace("/", "")
        or not _HUB_ID.fullmatch(value)
        or ("/" in value and os.path.isdir(first))
    )
    if path_only:
        raise BackendConfigError(
            f"{option} {value!r}: no such {what} folder (and not a Hugging Face id 'org/name'); give the folder of a "
            f"downloaded {what}{known}"
        )


__all__ = ["NEEDS", "check_source"]
