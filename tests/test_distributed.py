"""The Ray executor of the matrix grid: same records and rows as the in-process runner, written by
the driver as tasks finish, resumable; on a real local Ray instance (2 CPUs)."""

from __future__ import annotations

import json

import pytest

from benchmarks.matrix.benchmark import RunnerError, evaluate, load_records, make_cell

ray = pytest.importorskip("ray")

from benchmarks.distributed import RayExecutor  # noqa: E402

GRID = (["RPS", "IPD"], ["single_action", "tit_for_tat"], ["tabular", "oracle"])


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
    yield
    ray.shutdown()


def _records(out, seeds):
    return {(g, p, pol): [load_records(make_cell(g, p, pol, 30).path(out))[s] for s in seeds]
            for g in GRID[0] for p in GRID[1] for pol in GRID[2]}


def test_ray_grid_equals_the_in_process_grid_and_resumes(local_ray, tmp_path):
    local_rows, _ = evaluate(*GRID, episodes=12, seed=3, horizon=30, out=tmp_path / "local")
    ex = RayExecutor(chunk=5)
    ray_rows, _ = evaluate(*GRID, episodes=12, seed=3, horizon=30, out=tmp_path / "ray", executor=ex)
    assert ex.tasks == 8 * 3  # 8 cells x ceil(12 / 5) chunks
    assert json.dumps(ray_rows, sort_keys=True) == json.dumps(local_rows, sort_keys=True)
    seeds = range(3, 15)
    assert _records(tmp_path / "ray", seeds) == _records(tmp_path / "local", seeds)
    sizes = {p: p.stat().st_size for p in (tmp_path / "ray").rglob("*.jsonl")}
    again, _ = evaluate(*GRID, episodes=12, seed=3, horizon=30, out=tmp_path / "ray", executor=ex)
    assert ex.tasks == 0 and again == ray_rows  # nothing left to run
    assert {p: p.stat().st_size for p in (tmp_path / "ray").rglob("*.jsonl")} == sizes


def test_only_missing_episodes_become_tasks(local_ray, tmp_path):
    grid = (["IBS"], ["tit_for_tat"], ["tabular"])
    evaluate(*grid, episodes=4, seed=0, horizon=30, out=tmp_path)  # seeds 0-3 in-process
    ex = RayExecutor(chunk=3)
    rows, records = evaluate(*grid, episodes=10, seed=0, horizon=30, out=tmp_path, executor=ex)
    assert ex.tasks == 2  # seeds 4-9 in chunks of 3
    assert [r["seed"] for r in records[("IBS", "tit_for_tat", "tabular")]] == list(range(10))
    path = make_cell("IBS", "tit_for_tat", "tabular", 30).path(tmp_path)
    assert len(path.read_text().splitlines()) == 10


def test_bad_executor_arguments_raise_named_errors(tmp_path, capsys):
    with pytest.raises(RunnerError, match="--ray-chunk"):
        RayExecutor(chunk=0)
    with pytest.raises(RunnerError, match="--ray-num-cpus"):
        RayExecutor(num_cpus=0)
    from benchmarks.__main__ import main

    assert main(["matrix", "--policy", "llm", "--executor", "ray", "--model", "m", "--out", str(tmp_path)]) == 2
    assert "--executor ray distributes the scripted and tabular grid" in capsys.readouterr().err


def test_cli_executor_ray_prints_the_in_process_table(local_ray, tmp_path, capsys):
    from benchmarks.__main__ import main

    argv = ["matrix", "--policy", "tabular", "--games", "RPS", "--partners", "single_action", "--episodes", "6",
            "--horizon", "30", "--format", "json"]
    assert main(argv + ["--out", str(tmp_path / "a")]) == 0
    local = capsys.readouterr().out
    assert main(argv + ["--out", str(tmp_path / "b"), "--executor", "ray", "--ray-chunk", "2"]) == 0
    assert capsys.readouterr().out == local
