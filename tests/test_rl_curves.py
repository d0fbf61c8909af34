"""Learning curves and default seed counts of ``tom-envs rl`` (docs/rl.md "Learning curves"): evaluation
during training, saved beside the model, carried by the row and drawn in the report's RL section."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from benchmarks.matrix.rl import TASK
from benchmarks.rl import RLRun, run
from benchmarks.rl_curve import callback, combined, curve_path, read_curve
from benchmarks.rl_train import Training, cpu_seconds, train

pytest.importorskip("stable_baselines3")

#: Two evaluations along 512 steps (one PPO update of 2 envs x 256 steps), 2 episodes each.
SMALL = replace(TASK, curve_points=2, curve_episodes=2)


def _quiet(*args):
    pass


def _training(seed=0):
    return Training("tom/IPD-v0", "ppo", 512, seed, 2, {}, dict(TASK.hyper["ppo"]))


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    out = tmp_path_factory.mktemp("curves")
    return out, train(SMALL, _training(), out, _quiet, curve=callback(SMALL, _training(), cpu_seconds))


def test_the_curve_is_saved_beside_the_model(trained):
    out, _ = trained
    curve = read_curve(_training().path(out))
    assert curve_path(_training().path(out)).is_file()
    assert curve["split"] == "test" and curve["episodes"] == 2 and curve["outcome"] == "regret"
    steps = [p["steps"] for p in curve["points"]]
    assert steps[0] == 0 and steps[-1] == 512 and steps == sorted(steps)
    for p in curve["points"]:
        assert 0 <= p["tom_accuracy"] <= 100 and 0 <= p["tom_majority"] <= 100 and p["regret"] >= 0


def test_measuring_the_curve_does_not_change_what_is_trained(trained, tmp_path):
    import torch

    out, model = trained
    assert callback(replace(TASK, curve_points=0), _training(), cpu_seconds) is None
    bare = train(TASK, _training(), tmp_path, _quiet)  # no curve measured
    assert read_curve(_training().path(tmp_path)) is None
    mine, theirs = model.policy.state_dict(), bare.policy.state_dict()
    assert all(torch.equal(mine[k], theirs[k]) for k in mine)


def test_the_same_seed_gives_the_same_curve(trained, tmp_path):
    out, _ = trained
    train(SMALL, _training(), tmp_path, _quiet, curve=callback(SMALL, _training(), cpu_seconds))
    assert read_curve(_training().path(tmp_path)) == read_curve(_training().path(out))


def test_the_rows_curve_is_the_mean_over_seeds_with_its_ci():
    a = {
        "split": "test",
        "episodes": 2,
        "points": [
            {"steps": 0, "regret": 10.0, "tom_accuracy": 50.0, "tom_majority": 60.0},
            {"steps": 8, "regret": 4.0, "tom_accuracy": 70.0, "tom_majority": 60.0},
        ],
    }
    b = {
        "split": "test",
        "episodes": 2,
        "points": [{"steps": 0, "regret": 20.0, "tom_accuracy": 60.0, "tom_majority": 60.0}],
    }
    both = combined([a, b, None], "regret")
    assert both["steps"] == [0] and both["seeds"] == 2  # only the points every seed has
    assert both["regret"] == [15.0] and both["regret_ci"][0] > 0 and both["tom_majority_ci"] == [0.0]
    alone = combined([a], "regret")
    assert alone["tom_accuracy"] == [50.0, 70.0] and alone["tom_accuracy_ci"] == [None, None]
    assert combined([None], "regret") is None


def test_five_seeds_by_default_unless_the_task_says_why_not():
    assert RLRun("tom/IPD-v0").resolved()[2].seeds == 5
    assert RLRun("tom/IPD-v0", seeds=2).resolved()[2].seeds == 2
    _, task, config = RLRun("tom/Persuasion-v2", "recurrent_ppo").resolved()
    assert config.seeds == 3 and "11 min" in task.algo_seeds["recurrent_ppo"][1]


@pytest.mark.slow
def test_the_report_draws_the_rl_learning_curves(tmp_path):
    from benchmarks.report import build_report

    rows = run(
        RLRun("tom/IPD-v0", "ppo", steps=512, seeds=2, episodes=2, n_envs=2, curve_points=2), tmp_path, log=_quiet
    )
    assert rows[0]["curve"]["seeds"] == 2 and rows[0]["curve"]["steps"][0] == 0
    report = build_report(tmp_path, tmp_path / "report")
    md = report["markdown"].read_text()
    assert "majority %" in md and "CPU s per 1M steps" in md
    curves = tmp_path / "report" / "rl" / "curves.png"
    assert curves.is_file()
    drawn = json.loads((tmp_path / "report" / "rl" / "curves.figure.json").read_text())
    assert "tom/IPD-v0" in json.dumps(drawn)
