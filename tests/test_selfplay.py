"""``tom-envs selfplay`` (docs/selfplay.md): learners on both seats of the Parallel matrix ids, their
checkpoint records (probe ToM beside the majority floor, return), resume and determinism."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import tom_envs
import wrappers
from benchmarks.__main__ import main
from benchmarks.selfplay import SelfplayError, SelfplayRun, curve_rows, pays, tasks
from benchmarks.selfplay_train import DrawnMember, records_path, run

pytest.importorskip("stable_baselines3")

#: One round of 200 steps (SB3 collects one 1,024-step rollout at least), 2 probe and 2 evaluation episodes.
TINY = dict(rounds=1, steps=200, seeds=1, episodes=2, probe_episodes=2)


def _quiet(*args):
    pass


@pytest.fixture(scope="module")
def ipd(tmp_path_factory):
    out = tmp_path_factory.mktemp("selfplay")
    config = SelfplayRun("tom/IPD-Parallel-v0", **TINY)
    return out, config, run(config, out, log=_quiet)


@pytest.mark.slow  # trains 4 tiny learners (about 10 CPU s)
def test_a_tiny_selfplay_run_measures_both_seats_at_every_checkpoint(ipd):
    out, config, records = ipd
    assert [(r["seat"], r["round"]) for r in records] == [
        ("player_0", 0),
        ("player_1", 0),
        ("player_0", 1),
        ("player_1", 1),
    ]
    for r in records:
        assert r["other"] != r["seat"] and r["steps"] == 200 * r["round"]
        assert 0 <= r["tom_accuracy"] <= 100 and 0 <= r["tom_majority"] <= 100
        assert r["tom_gain"] == pytest.approx(r["tom_accuracy"] - r["tom_majority"])
        assert len(r["tom_per_episode"]) == len(r["return_per_episode"]) == 2
        assert r["probe_rows"] == {r["other"]: 200}  # 2 probe episodes of 100 rounds, the other seat's action
        assert r["opponent"] == f"{r['other']}'s snapshot after round {r['round']}"
    models = sorted(p.name for p in (out / "selfplay" / "models").glob("*.zip"))
    assert len(models) == 4 and all("_selfplay_s0_player_" in m for m in models)
    rows = curve_rows(records)
    assert [(r["seat"], r["round"]) for r in rows] == [
        ("player_0", 0),
        ("player_0", 1),
        ("player_1", 0),
        ("player_1", 1),
    ]
    assert rows[0]["tom_accuracy_ci"] is None  # one seed: no spread to measure


@pytest.mark.slow
def test_a_rerun_resumes_from_the_records_and_snapshots(ipd):
    out, config, records = ipd
    stamps = {p: p.stat().st_mtime_ns for p in (out / "selfplay" / "models").glob("*.zip")}
    lines = records_path(out, *config.resolved()).read_text().splitlines()
    again = run(config, out, log=_quiet)
    assert again == records
    assert {p: p.stat().st_mtime_ns for p in stamps} == stamps
    assert records_path(out, *config.resolved()).read_text().splitlines() == lines


@pytest.mark.slow
def test_the_same_seed_trains_and_measures_the_same_curve(ipd, tmp_path):
    out, config, records = ipd
    fresh = run(config, tmp_path, log=_quiet)
    keys = ("tom_per_episode", "return_per_episode", "tom_accuracy", "tom_majority", "return_other")
    assert [{k: r[k] for k in keys} for r in fresh] == [{k: r[k] for k in keys} for r in records]


@pytest.mark.slow
def test_a_resumed_run_trains_what_an_uninterrupted_one_does(ipd, tmp_path):
    out, config, records = ipd
    first = run(
        SelfplayRun("tom/IPD-Parallel-v0", **{**TINY, "rounds": 0}), tmp_path, log=_quiet
    )  # killed after round 0
    assert [r["round"] for r in first] == [0, 0]
    resumed = run(config, tmp_path, log=_quiet)
    assert [r["tom_per_episode"] for r in resumed] == [r["tom_per_episode"] for r in records]


@pytest.mark.slow
def test_population_mode_plays_the_crossplay_population_in_the_other_seat(tmp_path):
    config = SelfplayRun("tom/RPS-Parallel-v0", mode="population", **{**TINY, "rounds": 0})
    records = run(config, tmp_path, log=_quiet)
    assert records[0]["opponent"].startswith("population: always_rock, copy_last")
    assert "tabular" in records[0]["opponent"] and "ppo" not in records[0]["opponent"]


def test_the_tabular_agent_learns_in_the_other_seat():
    """ParallelSeat shows the other seat's policy its own results (observe), so RMax learns there."""
    task = tasks()["tom/IPD-Parallel-v0"]
    seen = []
    tabular = dict(task.population("tom/IPD-Parallel-v0", "player_1"))["tabular"]()
    observe = tabular.observe
    tabular.observe = lambda *a: (seen.append(a[1]), observe(*a))
    env = task.make_env("tom/IPD-Parallel-v0", "player_0", tabular)
    env.reset(seed=0)
    for _ in range(5):
        env.step(1)
    assert len(seen) == 5 and set(seen) <= {0.0, 1.0, 3.0, 5.0}


def test_the_population_member_is_drawn_from_the_policys_seed_only():
    task = tasks()["tom/IPD-Parallel-v0"]
    drawn = DrawnMember(task.population("tom/IPD-Parallel-v0", "player_1"))
    picks = []
    for seed in (1, 2, 3, 1):
        drawn.reset(seed)
        picks.append(drawn.current)
    assert picks[0] is picks[3]
    with pytest.raises(SelfplayError, match="population is empty"):
        DrawnMember([])


def test_a_wrong_id_lists_the_ids_that_self_play(capsys):
    with pytest.raises(SelfplayError, match="tom/IPD-Parallel-v0"):
        SelfplayRun("tom/IPD-v0").resolved()
    assert main(["selfplay", "--env", "tom/IPD-v0"]) == 2
    assert "no family declares self-play on it" in capsys.readouterr().err


@pytest.mark.slow
def test_the_command_prints_the_curve_rows_as_json(ipd, capsys):
    out, config, records = ipd
    assert (
        main(
            [
                "selfplay",
                "--env",
                "tom/IPD-Parallel-v0",
                "--rounds",
                "1",
                "--steps",
                "200",
                "--seeds",
                "1",
                "--episodes",
                "2",
                "--probe-episodes",
                "2",
                "--out",
                str(out),
                "--format",
                "json",
            ]
        )
        == 0
    )
    shown = json.loads(capsys.readouterr().out)
    assert shown["rows"] == json.loads(json.dumps(curve_rows(records)))
    assert set(shown["pays"]) == {"spearman", "points"}


def test_prediction_pays_is_a_rank_correlation_with_ties_shared():
    base = {"round": 1, "seat": "player_0"}
    flat = [dict(base, tom_gain=0.0, **{"return": float(i)}) for i in range(4)]
    assert pays(flat)["spearman"] is None  # no spread in the gain: nothing to correlate
    rising = [dict(base, tom_gain=float(i), **{"return": float(10 * i)}) for i in range(4)]
    assert pays(rising)["spearman"] == pytest.approx(1.0)
    assert pays(rising[:2]) == {"spearman": None, "points": 2}
    assert pays([dict(r, round=0) for r in rising])["points"] == 0  # the untrained checkpoint is left out


def test_every_selfplay_id_is_a_two_seat_id_of_its_task():
    for env_id, task in tasks().items():
        par = tom_envs.make(env_id)
        assert set(par.possible_agents) == set(task.seats)
        seat = task.make_env(env_id, task.seats[0], DrawnMember(task.population(env_id, task.seats[1])))
        assert isinstance(seat, wrappers.ParallelSeat)
        assert Path(str(env_id)).name  # ids are registered names


RECORDS = Path(__file__).resolve().parents[1] / "docs" / "results" / "records"


def test_the_report_draws_the_committed_selfplay_records_as_tom_curves(tmp_path):
    """The committed records of `tom-envs selfplay` (docs/results/records/selfplay) give the report's section: a
    checkpoint table per id with each seat's ToM % beside the majority floor, and the curves."""
    import shutil

    from benchmarks.report import build_report

    shutil.copytree(RECORDS / "selfplay", tmp_path / "results" / "selfplay")
    report = build_report(tmp_path / "results", tmp_path / "report")
    md = report["markdown"].read_text()
    for env_id in ("tom/IPD-Parallel-v0", "tom/RPS-Parallel-v0"):
        assert f"**{env_id}, ppo, selfplay (3 training seed(s)); does prediction pay?" in md
    assert "| seat | round | steps | seeds | ToM % | majority % | gain | return | other's return |" in md
    drawn = json.loads((tmp_path / "report" / "selfplay" / "tom_curves.figure.json").read_text())
    titles = [p["title"] for p in drawn["panels"]]
    assert "tom/IPD-Parallel-v0 ppo selfplay: ToM %" in titles and "tom/RPS-Parallel-v0 ppo selfplay: return" in titles
    tom = next(p for p in drawn["panels"] if p["title"] == "tom/RPS-Parallel-v0 ppo selfplay: ToM %")
    assert {(s["agent"], s["variant"]) for s in tom["series"]} == {
        (f"ppo {seat}", v) for seat in ("player_0", "player_1") for v in ("probe", "majority floor")
    }
