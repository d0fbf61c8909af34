"""The benchmark command lines: interfaces other tools rely on (keys and flags stay stable)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.matrix.benchmark import partner_mean_view

ROOT = Path(__file__).resolve().parents[1]


def run_cli(*args: str) -> str:
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks", *args], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.mark.slow
def test_perf_matrix_json_has_the_documented_keys():
    res = json.loads(run_cli("perf", "matrix", "--format", "json", "--seconds", "0.05"))
    for key in (
        "make_steps_per_s",
        "unwrapped_steps_per_s",
        "reference_steps_per_s",
        "make_vs_reference",
        "oracle_ms_per_episode",
        "parallel_rounds_per_s",
        "vector_1_steps_per_s",
        "vector_1024_steps_per_s",
        "vector_65536_steps_per_s",
        "numpy_bound_65536_steps_per_s",
        "pettingzoo_rps_rounds_per_s",
        "parallel_vs_pettingzoo_rps",
    ):
        assert key in res
    assert res["make_steps_per_s"] > 0 and res["reference_steps_per_s"] > 0
    assert res["make_vs_reference"] == pytest.approx(res["make_steps_per_s"] / res["reference_steps_per_s"])


@pytest.mark.slow
def test_perf_rl_json():
    res = json.loads(run_cli("perf", "rl", "--steps", "256", "--format", "json"))
    assert res["single_env_train_steps_per_s"] > 0 and res["vector_env_train_steps_per_s"] > 0
    assert res["vector_vs_single"] == pytest.approx(
        res["vector_env_train_steps_per_s"] / res["single_env_train_steps_per_s"]
    )
    lines = {line["env_id"]: line for line in res["tasks"]}  # each task's first id of each env class
    assert {"tom/RPS-v0", "tom/RPS-Parallel-v0", "tom/Persuasion-v2", "tom/Negotiation-v1"} <= set(lines)
    assert lines["tom/RPS-v0"]["envs"] == "native vector env" and "env_vs_reference" in lines["tom/RPS-v0"]
    assert "reference" not in lines["tom/RPS-Parallel-v0"]  # trained on single envs: nothing to compare


def test_perf_matrix_table():
    out = run_cli("perf", "matrix", "--seconds", "0.02")
    assert "reference: minimal plain IPD env" in out and "oracle:" in out


def test_demo_reproduces_the_tabular_rows_and_resumes(tmp_path):
    out = run_cli("demo", "--out", str(tmp_path), "--no-real-model")
    assert "6/6 cells meet the target" in out and "004 ΔF/T" in out
    assert "004 ΔToM" in out and "6/6 cells have ΔToM/T within 0.03 of 004's" in out
    assert "Estimator: mean over each partner's episodes, weighted by the partner's probability" in out
    assert out.count("ΔToM/T: the reciprocal response (docs/architecture.md") == 2  # both tables name it
    assert "RPS single_action  1.000" in out  # relevance
    files = sorted((tmp_path / "matrix").glob("*.jsonl"))
    assert len(files) == 18  # 6 cells x (tabular, oracle, random)
    before = [f.read_bytes() for f in files]
    assert (
        run_cli("demo", "--out", str(tmp_path), "--no-real-model") == out
    )  # a rerun resumes: same table, nothing appended
    assert [f.read_bytes() for f in files] == before
    res = json.loads(run_cli("demo", "--out", str(tmp_path), "--format", "json", "--plot", str(tmp_path / "fig")))
    assert [f.read_bytes() for f in files] == before  # the same rows, read back
    assert len(res["rows"]) == 6 and all(r["meets_target"] and r["tom_within_003"] for r in res["rows"])
    assert {(r["game"], r["partners"]) for r in res["rows"]} == {
        (g, p) for g in ("RPS", "IBS", "IPD") for p in ("single_action", "tit_for_tat")
    }
    assert {r["policy"] for r in res["sanity"]} == {"oracle", "random"} and len(res["sanity"]) == 12
    assert {"game": "RPS", "partners": "single_action", "relevance": 1.0} in res["relevance"]
    assert sorted(Path(p).name for p in res["figures"]) == sorted(p.name for p in (tmp_path / "fig").glob("*.png"))
    assert len(res["figures"]) == 12  # regret and ToM per cell
    table = {(r["game"], r["partners"]): r for r in res["rows"]}
    assert f"{table[('IPD', 'tit_for_tat')]['regret_per_step']:.3f}" in out  # the numbers the table printed
    # the real model's cell (smollm2-135m in vLLM), beside the scripted rows of the same cell and horizon
    real = {r["policy"]: r for r in res["real_model"]}
    assert set(real) == {"llm:lm", "tabular", "random", "oracle"}
    llm = real["llm:lm"]
    assert llm["model"] == "smollm2-135m" and llm["horizon"] == 20 and llm["episodes"] == 2
    assert llm["decisions"] == 2 * 2 * 20 and llm["fallbacks"] == 0  # LM scoring always names a label
    assert llm["settings"]["model_identity"]["file_sha256"].startswith("b179c952")


def test_perf_writes_each_figure_under_out_as_it_is_measured_with_its_seed(tmp_path):
    res = json.loads(
        run_cli("perf", "matrix", "--seconds", "0.02", "--seed", "5", "--out", str(tmp_path), "--format", "json")
    )
    lines = [json.loads(line) for line in (tmp_path / "perf" / "matrix.jsonl").read_text().splitlines()]
    figures = {line["figure"]: line["value"] for line in lines}
    assert {line["seed"] for line in lines} == {5} and res["seed"] == 5 and len({line["run"] for line in lines}) == 1
    for key in ("reference_steps_per_s", "make_steps_per_s", "vector_65536_steps_per_s", "oracle_ms_per_episode"):
        assert figures[key] == res[key]
    assert figures["result"] == res and all("code" in line for line in lines)
    run_cli("perf", "matrix", "--seconds", "0.02", "--out", str(tmp_path))  # another run appends its own lines
    again = [json.loads(line) for line in (tmp_path / "perf" / "matrix.jsonl").read_text().splitlines()]
    assert again[: len(lines)] == lines and {line["seed"] for line in again[len(lines) :]} == {0}
    assert len({line["run"] for line in again}) == 2


def test_partner_mean_weights_each_partners_mean_by_its_probability(tmp_path):
    args = (
        "matrix",
        "--policy",
        "random",
        "--games",
        "RPS",
        "--partners",
        "single_action",
        "--horizon",
        "10",
        "--format",
        "json",
        "--out",
        str(tmp_path),
    )
    row = json.loads(run_cli(*args, "--episodes", "12"))[0]
    per, est = row["per_partner"], row["partner_mean"]
    assert sorted(per) == sorted(est["weights"]) == ["always_paper", "always_rock", "always_scissors"]
    assert len({e["episodes"] for e in per.values()}) > 1  # the seeds drew the partners unevenly
    for key in ("regret_per_step", "tom_regret_per_step", "tom_accuracy", "tom_regret_per_step_stage"):
        assert est[key] == pytest.approx(sum(per[n][key] for n in per) / 3)
        assert est[key + "_ci"] == pytest.approx(sum((per[n][key + "_ci"] / 3) ** 2 for n in per) ** 0.5)
    pooled = sum(per[n]["regret_per_step"] * per[n]["episodes"] for n in per) / row["episodes"]
    assert row["regret_per_step"] == pytest.approx(pooled) and est["regret_per_step"] != pytest.approx(pooled)
    view = partner_mean_view(row)
    assert view["estimator"] == "partner_mean" and view["tom_accuracy"] == est["tom_accuracy"]
    few = json.loads(run_cli(*args, "--episodes", "1"))[0]  # one episode: two partners have none
    assert few["partner_mean"] is None and partner_mean_view(few)["estimator"] == "pooled"


def test_registry_command_prints_the_table():
    out = run_cli("registry")
    assert "`tom/IPD-v0`" in out and "`tom/IPD-Parallel-v0`" in out


def test_matrix_rows_carry_every_tom_response(tmp_path):
    args = (
        "matrix",
        "--policy",
        "tabular",
        "--games",
        "IPD",
        "--partners",
        "single_action",
        "--episodes",
        "4",
        "--horizon",
        "20",
        "--format",
        "json",
        "--out",
        str(tmp_path),
    )
    default = json.loads(run_cli(*args))[0]
    stage = json.loads(run_cli(*args, "--tom-response", "stage"))[0]
    table = run_cli(*args[:-4], "--out", str(tmp_path), "--tom-response", "action_value")
    for row in (default, stage):
        for key in ("tom_regret_per_step_stage", "tom_regret_per_step_reciprocal", "tom_regret_per_step_action_value"):
            assert key in row and key + "_ci" in row and key in row["per_partner"]["always_defect"]
    assert default["tom_response"] == "reciprocal" and stage["tom_response"] == "stage"
    assert default["tom_regret_per_step"] == default["tom_regret_per_step_reciprocal"] > 0
    assert stage["tom_regret_per_step"] == stage["tom_regret_per_step_stage"] == 0  # the same episodes, resumed
    assert "ΔToM/T: the action_value response" in table


def test_matrix_tables_in_004s_layouts_and_rows_carry_llm_counts(tmp_path):
    args = (
        "matrix",
        "--policy",
        "tabular,random",
        "--games",
        "RPS,IPD",
        "--partners",
        "single_action",
        "--episodes",
        "2",
        "--horizon",
        "10",
        "--out",
        str(tmp_path),
    )
    rows = json.loads(run_cli(*args, "--format", "json"))
    assert all(r["reasks"] == r["fallbacks"] == r["decisions"] == 0 for r in rows)  # no model asked
    grid = run_cli(*args, "--table", "table3").splitlines()
    assert grid[0].split()[:4] == ["partners", "model", "labels", "prompting"] and grid[0].index("RPS") < grid[0].index(
        "IPD"
    )
    assert [line.split()[3] for line in grid[2:4]] == ["Tabular", "Random"]  # one line per policy, games as columns
    table2 = run_cli(*args, "--table", "table2")
    assert table2.count("Tabular") == 2 and "ToM %" in table2 and "ΔToM/T: the reciprocal response" in table2


def test_the_demo_quiets_the_engines_log_unless_the_user_set_a_level(monkeypatch):
    """vLLM reads VLLM_LOGGING_LEVEL once, at import: the demo sets ERROR before its real-model cell imports vLLM
    (the ~50 INFO lines of an engine start stay out of the demo's output), and keeps a level the user set."""
    import os

    from benchmarks.matrix.demo import quiet_engine_logs

    monkeypatch.delenv("VLLM_LOGGING_LEVEL", raising=False)
    quiet_engine_logs()
    assert os.environ["VLLM_LOGGING_LEVEL"] == "ERROR"
    monkeypatch.setenv("VLLM_LOGGING_LEVEL", "INFO")
    quiet_engine_logs()
    assert os.environ["VLLM_LOGGING_LEVEL"] == "INFO"
