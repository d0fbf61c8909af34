"""The evaluation runner with LLM policies: the CLI end to end against a real server, and no
finished episode lost when the backend gives up."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.cli_llm import LLMSettings
from benchmarks.matrix.benchmark import Grid, PromptOptions, RunSettings, evaluate_llm, load_records
from benchmarks.records import STEPS_FORMAT, read_steps
from policies.llm import OpenAIBackend
from policies.llm.errors import RetryBudgetExhausted

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_matrix_cli_runs_llm_strategies_in_lockstep(openai_server, tmp_path):
    args = [
        sys.executable,
        "-m",
        "benchmarks",
        "matrix",
        "--policy",
        "llm",
        "--backend",
        "openai",
        "--base-url",
        openai_server,
        "--model",
        "tiny",
        "--strategies",
        "lm,qa",
        "--games",
        "RPS",
        "--partners",
        "single_action",
        "--episodes",
        "3",
        "--horizon",
        "3",
        "--fallback",
        "random",
        "--max-resamples",
        "1",
        "--format",
        "json",
        "--out",
        str(tmp_path),
    ]
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    out = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, timeout=600, env=env)
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert [r["policy"] for r in rows] == ["llm:lm", "llm:qa"] and all(r["episodes"] == 3 for r in rows)
    for path in sorted((tmp_path / "matrix").glob("*.jsonl")):
        records = [json.loads(x) for x in path.read_text().splitlines()]
        assert len(records) == 3
        first = records[0]
        steps = read_steps(first)  # stored with each prompt once, as a delta
        assert len(steps) == 3  # one log per round: the exact prompts, replies, calls served
        act = steps[0]
        assert act["prompts"] and max(act["decisions_per_call"]) == 3  # three episodes served by one call
        assert first["episode"]["policy_stats"]["rounds"] == 3 and first["steps_format"] == STEPS_FORMAT
        assert "parse_failures" in first["episode"]["policy_stats"]
    again = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, timeout=600, env=env)
    assert json.loads(again.stdout) == rows  # resumed from the records, nothing recomputed


def test_a_backend_that_gives_up_keeps_the_finished_episodes(fake_openai, tmp_path):
    backend = OpenAIBackend(fake_openai.url, "tiny", max_retries=1, retry_budget_s=2.0, backoff_base=0.01, timeout=2.0)
    settings = LLMSettings(backend="openai", model="tiny", base_url="loopback", max_resamples=0, fallback="random")
    kw = {"prompts": PromptOptions(label_set="canonical"), "run": RunSettings(lockstep=1)}  # replies are fixed text
    evaluate_llm(Grid(["RPS"], ["always_rock"], ["qa"], 1, 0, 2), tmp_path, backend, settings, **kw)
    fake_openai.default = 500  # from now on the server fails every request
    with pytest.raises(RetryBudgetExhausted):
        evaluate_llm(Grid(["RPS"], ["always_rock"], ["qa"], 3, 0, 2), tmp_path, backend, settings, **kw)
    (path,) = (tmp_path / "matrix").glob("*.jsonl")
    assert sorted(load_records(path)) == [0]  # the episode finished before the failure is kept, intact
    backend.close()
