"""Live persuasion v3 in `tom-envs persuasion --env live --live-env tom/Persuasion-v3` (issue 39): the six reference
persuaders beside their exact values, the value of memory and the other three gates with pass/fail, the no-ToM
floors, records that a rerun reads back."""

from __future__ import annotations

import argparse
import json

import pytest

from benchmarks.persuasion import benchmark as bench
from benchmarks.persuasion.live import PersuasionBenchmarkError, format_live_table, live_rows
from benchmarks.persuasion.live_gates import V3_GATES, Gate, format_gates, gate_results
from tom_envs.persuasion.mind_v3 import family_v3_named, model_v3_for
from tom_envs.persuasion.planning_v3 import majority_v3, oracle_gap, references_v3

V3 = argparse.Namespace(live_env="tom/Persuasion-v3")
SIX = ["random", "open-loop", "echo", "memoryless", "bayes", "oracle"]


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    return parser.parse_args(list(argv))


@pytest.fixture(scope="module")
def rows_t4():
    return {r["policy"]: r for r in live_rows(["all"], episodes=40, seed=3, families="health,work", args=V3)}


def test_all_plays_the_six_v3_persuaders_each_beside_its_exact_value(rows_t4):
    assert list(rows_t4) == SIX
    exact = {f: references_v3(family_v3_named(f), 4) for f in ("health", "work")}
    field = {"open-loop": "open_loop"}
    for name, row in rows_t4.items():
        assert row["env_id"] == "tom/Persuasion-v3" and row["version"] == "v3" and row["horizon"] == 4
        mine = {f: 100 * getattr(exact[f], field.get(name, name)) for f in exact}
        assert row["exact_success"] == pytest.approx(sum(mine.values()) / 2, abs=1e-9)
        for f, fr in row["by_family"].items():
            assert fr["exact_success"] == pytest.approx(mine[f], abs=1e-9)
            assert fr["value_of_memory"] == pytest.approx(exact[f].value_of_memory, abs=1e-12)
            assert fr["memoryless"] == pytest.approx(exact[f].memoryless) and fr["echo"] == pytest.approx(exact[f].echo)
        assert row["value_of_memory"] == pytest.approx(sum(e.value_of_memory for e in exact.values()) / 2)
        assert "source_accuracy" in row and "stake_accuracy" in row and "desire_accuracy" not in row
    # the literal-ToM floor: each trait's prior mass on its likelier value
    assert rows_t4["bayes"]["by_family"]["health"]["stake_majority"] == pytest.approx(
        majority_v3(model_v3_for(family_v3_named("health")))["stake"]
    )


def test_the_bayes_and_oracle_rows_have_zero_regret_against_their_own_optimum(rows_t4):
    assert rows_t4["bayes"]["regret"] == pytest.approx(0.0, abs=1e-12)
    assert rows_t4["oracle"]["regret_against"] == "oracle" and rows_t4["oracle"]["regret"] == pytest.approx(
        0.0, abs=1e-12
    )
    assert rows_t4["memoryless"]["regret"] > 0 and rows_t4["oracle"]["source_accuracy"] == 100.0


def test_the_oracle_gap_is_what_an_act_loses_against_pitching_the_own_pitch_now():
    model = model_v3_for(family_v3_named("health"))
    row = 0
    own = int(model.own_pitch[row])
    assert oracle_gap(model, 4, 0, row, own) == 0.0
    assert oracle_gap(model, 4, 0, row, 0) == pytest.approx(model.agree[row] * model.leave[row])
    assert oracle_gap(model, 4, 3, row, 0) == pytest.approx(model.agree[row])  # no turn left to pitch
    other = next(a for a in range(1, 5) if a != own)
    assert oracle_gap(model, 4, 1, row, other) == pytest.approx(model.agree[row])


def test_the_gates_are_the_exact_differences_per_family_with_the_played_paired_difference(rows_t4):
    gates = {g["gate"]: g for g in rows_t4["bayes"]["gates"]}
    assert list(gates) == [g.key for g in V3_GATES]
    assert all(r["gates"] == rows_t4["bayes"]["gates"] for r in rows_t4.values())  # the same on every row
    for f in ("health", "work"):
        e = references_v3(family_v3_named(f), 4)
        assert gates["value_of_memory"]["by_family"][f]["points"] == pytest.approx(100 * (e.bayes - e.memoryless))
        assert gates["bayes_minus_echo"]["by_family"][f]["points"] == pytest.approx(100 * (e.bayes - e.echo))
        assert gates["bayes_minus_open_loop"]["by_family"][f]["points"] == pytest.approx(100 * (e.bayes - e.open_loop))
        assert gates["oracle_minus_bayes"]["by_family"][f]["points"] == pytest.approx(100 * (e.oracle - e.bayes))
    assert all(g["pass"] for g in gates.values())  # issue 39's gates hold at T = 4
    assert gates["value_of_memory"]["min_points"] >= 10.0 and gates["value_of_memory"]["played_episodes"] == 80
    # played: the mean of the paired success differences of the two persuaders over the same (family, seed)
    bayes, memoryless = rows_t4["bayes"], rows_t4["memoryless"]
    assert gates["value_of_memory"]["played_points"] == pytest.approx(bayes["success"] - memoryless["success"])


def test_a_gate_that_does_not_hold_in_one_family_fails_and_the_table_says_fail():
    refs = {"a": {"bayes": 0.60, "memoryless": 0.45}, "b": {"bayes": 0.50, "memoryless": 0.45}}
    (gate,) = gate_results([Gate("value_of_memory", "value of memory", "bayes", "memoryless", 0.10)], refs)
    assert gate["by_family"]["a"]["pass"] and not gate["by_family"]["b"]["pass"] and not gate["pass"]
    assert gate["min_points"] == pytest.approx(5.0) and gate["played_points"] is None
    assert "FAIL" in "\n".join(format_gates([gate]))


def test_the_v3_table_prints_the_value_of_memory_the_gates_and_the_floors(rows_t4):
    text = "\n".join(format_live_table(list(rows_t4.values())))
    assert "value of memory (bayes - memory-less)" in text and "pass" in text and "FAIL" not in text
    assert "memory-less" in text and "floor % memoryless/echo/open-loop" in text and "source ToM % [majority]" in text
    assert "intention ToM %" not in text


def test_v3_rejects_what_it_cannot_play_with_named_errors():
    with pytest.raises(PersuasionBenchmarkError, match="does not play tom/Persuasion-v3"):
        live_rows(["llm"], episodes=1, seed=0, args=V3)
    with pytest.raises(PersuasionBenchmarkError, match="does not play tom/Persuasion-v3"):
        live_rows(["tracking"], episodes=1, seed=0, args=V3)
    with pytest.raises(PersuasionBenchmarkError, match="--reader llm"):
        live_rows(["bayes"], episodes=1, seed=0, args=argparse.Namespace(live_env="tom/Persuasion-v3", reader="llm"))
    with pytest.raises(PersuasionBenchmarkError, match="1..8"):
        live_rows(["bayes"], episodes=1, seed=0, horizon=9, args=V3)
    with pytest.raises(PersuasionBenchmarkError, match="unknown v3 family"):
        live_rows(["bayes"], episodes=1, seed=0, families="space", args=V3)
    with pytest.raises(PersuasionBenchmarkError, match="memoryless"):
        live_rows(["memoryless"], episodes=1, seed=0)  # v3's persuader on the default env (v2)


def test_the_same_seed_plays_the_same_rows():
    one = live_rows(["bayes", "memoryless"], episodes=15, seed=7, families="leisure", args=V3)
    two = live_rows(["bayes", "memoryless"], episodes=15, seed=7, families="leisure", args=V3)
    assert json.dumps(one, sort_keys=True) == json.dumps(two, sort_keys=True)


def test_the_command_stores_every_episode_and_a_rerun_reads_them_back(tmp_path, capsys):
    argv = ["--env", "live", "--live-env", "tom/Persuasion-v3", "--families", "shopping", "--episodes", "6"]
    argv += ["--out", str(tmp_path), "--format", "json"]
    assert bench.run(_args(*argv)) == 0
    first = json.loads(capsys.readouterr().out)
    assert [r["policy"] for r in first] == SIX  # no --policy: every v3 persuader
    files = sorted((tmp_path / "persuasion").glob("live_*.jsonl"))
    assert len(files) == 6
    recs = [json.loads(line) for line in files[0].read_text().splitlines()]
    assert len(recs) == 6 and {"memoryless", "echo", "value_of_memory", "stake_majority"} <= set(recs[0]["references"])
    assert bench.run(_args(*argv)) == 0
    assert json.loads(capsys.readouterr().out) == first  # the random persuader's episodes too: read, not replayed
    assert all(len(f.read_text().splitlines()) == 6 for f in files)


@pytest.mark.slow
def test_played_success_matches_the_exact_value_and_the_gates_hold_at_t8():
    """Every persuader's played success within 4 standard errors of its exact value, at T = 8 (about 5 s of exact
    references, 2,400 episodes)."""
    rows = live_rows(["all"], episodes=400, seed=11, horizon=8, families="charity", args=V3)
    for r in rows:
        p = r["exact_success"] / 100
        se = 100 * (p * (1 - p) / r["episodes"]) ** 0.5
        assert abs(r["success"] - r["exact_success"]) < 4 * se + 1e-9, r["policy"]
    gates = {g["gate"]: g for g in rows[0]["gates"]}
    assert all(g["pass"] for g in gates.values()) and gates["value_of_memory"]["points"] >= 20.0
