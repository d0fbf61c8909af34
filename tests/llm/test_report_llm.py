"""``tom-envs report`` over runs of the real tiny model (vLLM's OpenAI-compatible server, shared by tests/llm):
the LLM rows of the page equal the results files, and the provenance names the served model."""

from __future__ import annotations

import json
from pathlib import Path
from statistics import mean

import pytest

from tests.test_report import EXACT, _page, _records, _table, _tom_envs, _value


@pytest.mark.slow
def test_report_of_tiny_model_runs(openai_server, tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    res, out = tmp_path / "res", tmp_path / "report"
    llm = [
        "--backend",
        "openai",
        "--base-url",
        openai_server,
        "--model",
        "tiny",
        "--fallback",
        "random",
        "--max-resamples",
        "0",
        "--out",
        str(res),
        "--format",
        "json",
    ]
    _tom_envs(
        "matrix",
        "--policy",
        "llm",
        "--strategies",
        "qa",
        "--games",
        "RPS",
        "--partners",
        "tit_for_tat",
        "--episodes",
        "2",
        "--horizon",
        "3",
        "--label-set",
        "canonical",
        *llm,
    )
    _tom_envs("common-ground", "--policy", "llm", "--qa-mode", "zero_shot", "--no-scoring", *llm)
    _tom_envs("report", str(res), "--out", str(out))
    page = _page(out)
    assert sorted(page.images) == sorted(p.relative_to(out).as_posix() for p in out.rglob("*.png"))

    (path,) = (res / "matrix").glob("*.jsonl")
    eps = [r["episode"] for r in _records(path)]
    (row,) = [r for r in _table(page, "Matrix games: regret") if not r["ref"]]
    assert (row["policy"]["text"], row["model"]["text"], int(row["episodes"]["text"])) == ("llm:qa", "tiny", 2)
    assert _value(row["ΔFunctional/T"]) == pytest.approx(mean(e["regret_per_step"] for e in eps), abs=EXACT)
    assert int(row["fallbacks"]["text"]) == sum(e["policy_stats"]["fallbacks"] for e in eps)

    (path,) = (res / "common_ground").glob("*.jsonl")
    questions = [q for rec in _records(path) for q in rec["questions"]]
    (row,) = [r for r in _table(page, "Common-ToM") if not r["ref"]]
    assert _value(row["Total %"]) == pytest.approx(100 * mean(q["correct"] for q in questions), abs=EXACT)
    assert int(row["fallbacks"]["text"]) == sum(q["fallback"] for q in questions)
    html = (out / "index.html").read_text(encoding="utf-8")
    run = json.loads(Path(str(path) + ".runs").read_text().splitlines()[0])
    assert run["config"]["llm"]["model"] == "tiny" and " ".join(run["command"]) in html and "models: tiny" in html
