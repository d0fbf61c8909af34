"""The persuasion, common-ground and negotiation commands speak the shared CLI vocabulary:
``--episodes`` (old names as aliases), ``--seed``, ``--out``, ``--format json``, ``--policy``, and no
bad flag value ends in a traceback (exit status 2 and an ``error:`` line)."""

from __future__ import annotations

import json

import pytest

from benchmarks.__main__ import main
from tests.test_cli import a_file  # noqa: F401  (a file where a folder is expected)


@pytest.fixture(autouse=True)
def _results_in_tmp(tmp_path, monkeypatch):
    """The commands store their records under --out (default results/ in the working directory): run each test
    in its own temporary folder, so nothing lands in the checkout and no stale record from another commit is read."""
    monkeypatch.chdir(tmp_path)


def _exit(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse's usage errors
        return int(exc.code)


def _json(argv: list[str], capsys) -> list[dict]:
    assert main([*argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


BAD = [
    ["negotiation", "--episodes", "0"],
    ["negotiation", "--runs", "-1"],
    ["negotiation", "--seed", "-1"],
    ["negotiation", "--out", "{file}"],
    ["negotiation", "--plot", "{file}/sub"],
    ["negotiation", "--mediator", ""],
    ["negotiation", "--policy", "social,social"],
    ["negotiation", "--mode", ""],
    ["negotiation", "--mode", "easy,easy"],
    ["negotiation", "--scenarios", ""],
    ["negotiation", "--scenarios", "no_such_scenario"],
    ["negotiation", "--mediator", "llm-social", "--model", "m", "--max-model-len", "0"],
    ["negotiation", "--mediator", "llm-social"],
    ["persuasion", "--repetitions", "0"],
    ["persuasion", "--env", "live", "--episodes", "0"],
    ["persuasion", "--env", "live", "--horizon", "0"],
    ["persuasion", "--qtypes", ""],
    ["persuasion", "--qtypes", "desire_er,desire_er"],
    ["persuasion", "--qtypes", "desire_xx"],
    ["persuasion", "--policy", ""],
    ["persuasion", "--policy", "gpt"],
    ["persuasion", "--env", "live", "--policy", "x"],
    ["persuasion", "--env", "both", "--live-policy", " , "],
    ["persuasion", "--data-dir", "{file}"],
    ["persuasion", "--lockstep", "0"],
    ["persuasion", "--max-resamples", "-1"],
    ["persuasion", "--max-tokens", "0"],
    ["persuasion", "--out", "{file}"],
    ["persuasion", "--seed", "x"],
    ["common-ground", "--episodes", "0"],
    ["common-ground", "--seed", "-2"],
    ["common-ground", "--policy", ""],
    ["common-ground", "--policy", "random,random"],
    ["common-ground", "--policy", "gpt"],
    ["common-ground", "--data-dir", "{file}"],
    ["common-ground", "--out", "{file}"],
    ["common-ground", "--lockstep", "0"],
    ["common-ground", "--annotator", "Nobody"],
    ["common-ground", "--from-corpus", "--export", "{file}"],
    ["common-ground", "--policy", "llm", "--qa-mode", "cot", "--scoring", "--model", "m"],
]


@pytest.mark.parametrize("argv", BAD, ids=[" ".join(a) or "-" for a in BAD])
def test_bad_values_are_usage_errors_without_a_traceback(argv, a_file, capsys):  # noqa: F811  (the fixture)
    assert _exit([a.replace("{file}", a_file) for a in argv]) == 2
    err = capsys.readouterr().err
    assert "error:" in err and "Traceback" not in err


def test_negotiation_episodes_and_policy_are_runs_and_mediator(tmp_path, capsys):
    base = ["negotiation", "--mode", "hard", "--scenarios", "ias", "--format", "json"]
    new = _json([*base, "--episodes", "2", "--policy", "social", "--out", str(tmp_path / "a")], capsys)
    old = _json([*base, "--runs", "2", "--mediator", "social", "--out", str(tmp_path / "b")], capsys)
    assert new == old and new[0]["episodes"] == 2 and new[0]["mediator"] == "social"


def test_persuasion_qa_episodes_are_the_repetitions(capsys):
    new = _json(["persuasion", "--qtypes", "judge_qa", "--episodes", "2"], capsys)
    old = _json(["persuasion", "--qtypes", "judge_qa", "--repetitions", "2"], capsys)
    assert new == old and new[0]["repetitions"] == 2


def test_persuasion_both_keeps_episodes_for_the_live_env(capsys):
    rows = _json(["persuasion", "--env", "both", "--episodes", "4"], capsys)
    assert {r["repetitions"] for r in rows if r["env"] == "qa"} == {3}
    assert {r["episodes"] for r in rows if r["env"] == "live"} == {4}


def test_common_ground_episodes_are_passes_over_the_conversations(capsys):
    one = _json(["common-ground", "--policy", "predicted-beliefs"], capsys)
    two = _json(["common-ground", "--policy", "predicted-beliefs", "--episodes", "2"], capsys)
    assert two[0]["n"] == 2 * one[0]["n"] and two[0]["accuracy"] == one[0]["accuracy"]  # a deterministic policy


def test_family_commands_are_declared_benchmarks():
    import benchmarks.common_ground.benchmark
    import benchmarks.negotiation.benchmark
    import benchmarks.persuasion.benchmark  # noqa: F401  (each registers its declaration)
    from benchmarks import family

    for name in ("negotiation", "persuasion", "common-ground"):
        bench = family.get(name)
        assert bench.parts and bench.published and bench.policies  # declared parts of the generated command
