"""What the QA-family command tests share: results written in a scratch folder, and a command's parsed options."""

from __future__ import annotations

import argparse
from typing import Any

import pytest


@pytest.fixture(autouse=True)
def results_in_tmp(tmp_path, monkeypatch):
    """Every test of a module importing this runs in its own folder (commands write ``results/`` there)."""
    monkeypatch.chdir(tmp_path)


def command_args(bench: Any, *argv: str) -> argparse.Namespace:
    """``argv`` parsed by the options of the benchmark module ``bench`` (its ``add_arguments``)."""
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    return parser.parse_args(list(argv))
