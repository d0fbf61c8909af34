"""Results files: one hash, stamped records (stale ones recomputed), a lock per file between runs."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchmarks.errors import ResultsLocked
from benchmarks.matrix.benchmark import load_records, make_cell, run_cell
from benchmarks.results import (
    ResultsFile,
    StaleResultWarning,
    append_record,
    code_stamp,
    config_key,
    git_commit,
    read_records,
    stale_path,
)

ROOT = Path(__file__).resolve().parents[1]


def test_one_hash_for_every_key():
    assert config_key({"b": 1, "a": [1, 2]}) == config_key({"a": [1, 2], "b": 1})
    assert len(config_key({"a": 1})) == 16 and len(config_key({"a": 1}, 12)) == 12
    assert config_key({"a": 1}) != config_key({"a": 2})
    cell = make_cell("RPS", "single_action", "tabular", 10)
    assert cell.key == config_key(cell.config())


def test_records_are_stamped_with_the_version_and_commit(tmp_path):
    from tom_envs import __version__

    if (ROOT / ".git").exists():
        head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True).stdout
        git_commit.cache_clear()  # (read once per process; HEAD may have moved since this session started)
        assert git_commit() == head.strip()
    stamp = code_stamp()
    assert stamp["tom_envs"] == __version__ and stamp["commit"] == git_commit()
    written = append_record(tmp_path / "r.jsonl", {"seed": 0})
    assert written["code"] == stamp and json.loads((tmp_path / "r.jsonl").read_text())["code"] == stamp


def test_records_of_other_code_are_recomputed_with_a_warning(tmp_path):
    cell = make_cell("IPD", "tit_for_tat", "tabular", 10)
    fresh = run_cell(cell, range(3), tmp_path)
    path = cell.path(tmp_path)
    lines = path.read_text().splitlines()
    old = json.loads(lines[1])
    old["code"] = {**old["code"], "commit": "0" * 40}  # seed 1, as an older commit recorded it
    old["episode"]["regret_per_step"] = 123.0  # (so a reuse would show)
    lines[1] = json.dumps(old)
    path.write_text("\n".join(lines) + "\n")
    with pytest.warns(StaleResultWarning, match="other code"):
        again = run_cell(cell, range(3), tmp_path)
    assert [r["episode"] for r in again] == [r["episode"] for r in fresh]  # recomputed, not reused
    seeds = [json.loads(x)["seed"] for x in path.read_text().splitlines()]
    assert sorted(seeds) == [0, 1, 2]  # the stale line left the file ...
    assert json.loads(stale_path(path).read_text())["code"]["commit"] == "0" * 40  # ... and is kept beside it
    assert sorted(load_records(path)) == [0, 1, 2]  # no warning any more (filterwarnings = error)
    unstamped = tmp_path / "old.jsonl"
    unstamped.write_text(json.dumps({"seed": 0}) + "\n")  # written before records had stamps
    with pytest.warns(StaleResultWarning):
        assert read_records(unstamped, lambda rec: rec["seed"]) == {}


def test_results_file_session(tmp_path):
    path = tmp_path / "x" / "s.jsonl"
    with ResultsFile(path, key=lambda rec: rec["seed"]) as results:
        assert results.missing([0, 1]) == [0, 1]
        results.append({"seed": 1, "value": "b"})
        assert 1 in results and results[1]["value"] == "b" and results.missing([0, 1]) == [0]
        with ResultsFile(path, key=lambda rec: rec["seed"]) as nested:  # re-entrant in one process
            assert nested.missing([0, 1]) == [0]
    assert list(read_records(path, lambda rec: rec["seed"])) == [1]


HOLD = """
import sys
from benchmarks.results import ResultsFile
with ResultsFile(sys.argv[1], key=lambda rec: rec["seed"]):
    print("locked", flush=True)
    sys.stdin.read()
"""


def test_a_second_process_cannot_open_a_held_results_file(tmp_path):
    path = tmp_path / "held.jsonl"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(path)], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(ResultsLocked, match=rf"held.jsonl is being written by another run \(pid {holder.pid}\)"):
            append_record(path, {"seed": 0})
        with pytest.raises(ResultsLocked):
            ResultsFile(path, key=lambda rec: rec["seed"]).__enter__()
    finally:
        holder.stdin.close()
        holder.wait(timeout=60)
        holder.stdout.close()
    append_record(path, {"seed": 0})  # free again once the holder is gone
    assert list(read_records(path, lambda rec: rec["seed"])) == [0]


@pytest.mark.slow
def test_two_runs_on_the_same_out_never_both_write_an_episode(tmp_path):
    args = [
        sys.executable,
        "-m",
        "benchmarks",
        "matrix",
        "--policy",
        "tabular",
        "--games",
        "RPS",
        "--partners",
        "tit_for_tat",
        "--episodes",
        "600",
        "--horizon",
        "100",
        "--format",
        "json",
        "--out",
        str(tmp_path),
    ]
    first = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    results = tmp_path / "matrix"
    deadline = time.time() + 120
    while time.time() < deadline and not (results.exists() and any(f.stat().st_size for f in results.glob("*.jsonl"))):
        time.sleep(0.01)
    second = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert first.poll() is None, "the first run ended before the second started; make it longer"
    out, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    assert second.returncode == 2 and "Traceback" not in second.stderr, second.stderr
    assert f"is being written by another run (pid {first.pid})" in second.stderr
    (path,) = results.glob("*.jsonl")
    seeds = [json.loads(x)["seed"] for x in path.read_text().splitlines()]
    assert seeds == list(range(600))  # every episode written once, by the first run
    again = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and json.loads(again.stdout) == json.loads(out)  # and a later run resumes
