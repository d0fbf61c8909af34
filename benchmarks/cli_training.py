"""Command-line pieces of the commands that train learners and keep them under ``--out`` (``tom-envs rl``,
``tom-envs selfplay``, ``tom-envs crossplay``): the output options, and a run's configuration read from the
options of the same names."""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any, TypeVar

Config = TypeVar("Config")


def add_output_options(parser: argparse.ArgumentParser, kept: str) -> None:
    """``--out`` (the folder of the ``kept`` models and records, which a rerun resumes from) and ``--format``."""
    from benchmarks.cli import add_format_option
    from benchmarks.cli_types import output_dir

    parser.add_argument(
        "--out", type=output_dir, default="results", help=f"folder of the {kept} (a rerun resumes from them)"
    )
    add_format_option(parser)


def run_config(kind: type[Config], args: argparse.Namespace, **given: Any) -> Config:
    """The run configuration ``kind`` (a dataclass) with each field read from the option of its name; ``given``
    sets the fields no option spells so (e.g. ``env_id=args.env``)."""
    names = [f.name for f in dataclasses.fields(kind)]  # type: ignore[arg-type]
    return kind(**{name: given[name] if name in given else getattr(args, name) for name in names})
