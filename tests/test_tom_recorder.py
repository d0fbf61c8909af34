"""The ToM recorder on hand-computed episodes."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from tom_envs.errors import InvalidAction, TomEnvsError
from wrappers import ToMRecorder


def play(env: ToMRecorder, actions, predictions, seed=0):
    _, info = env.reset(seed=seed)
    infos = [info]
    for a, p in zip(actions, predictions):
        env.record_prediction(p)
        infos.append(env.step(a)[4])
    return infos


def test_rps_against_always_rock_by_hand():
    env = ToMRecorder(gym.make("tom/RPS-v0", partners="always_rock", horizon=4))
    # Paper (win), Rock (tie), Scissors (loss), Paper (win); predictions: Rock, Paper, none, a distribution
    infos = play(env, [1, 0, 2, 1], [0, 1, None, [0.2, 0.5, 0.3]])
    steps = env.records
    assert [s["reward"] for s in steps] == [1, 0, -1, 1]
    assert [s["regret"] for s in steps] == [0, 1, 2, 0]
    assert [s["correct"] for s in steps] == [True, False, None, False]
    # predicting Paper -> best response Scissors, which loses to Rock: 1 - (-1) = 2
    assert [s["tom_regret"] for s in steps] == [0, 2, None, 2]
    assert steps[3]["prediction"] == 1 and steps[3]["prediction_prob"] == pytest.approx(0.2)
    ep = infos[-1]["tom"]["episode"]
    assert infos[-1]["tom"]["steps"] == steps and env.last_record == steps[-1]
    assert ep["return"] == 1 and ep["optimal_return"] == 4 and ep["regret"] == 3 and ep["regret_per_step"] == 0.75
    assert ep["tom_steps"] == 3 and ep["tom_accuracy"] == pytest.approx(100 / 3)
    assert ep["tom_regret"] == 4 and ep["tom_regret_per_step"] == pytest.approx(4 / 3)
    assert ep["regrets"] == [0, 1, 2, 0] and ep["tom_correct"] == [True, False, None, False]
    assert all("tom" not in i for i in infos[:-1])  # out of band until the episode ends


def test_ipd_tit_for_tat_regret_is_relative_to_the_optimal_path():
    env = ToMRecorder(gym.make("tom/IPD-v0", partners="tit_for_tat", horizon=3))
    infos = play(env, [1, 1, 1], [0, 1, 1])
    steps = env.records
    # always defect earns 10, 5, 5; the optimal response (C, C, D) earns 8, 8, 10
    assert [s["optimal_reward"] for s in steps] == [8, 8, 10]
    assert [s["regret"] for s in steps] == [-2, 3, 5]
    ep = infos[-1]["tom"]["episode"]
    assert ep["regret"] == 6 and ep["tom_accuracy"] == 100.0
    assert ep["tom_regret"] == 0  # in the PD defecting is the best response to anything
    assert ep["tom_regret_stage"] == 0 and ep["tom_regret_reciprocal"] == 0  # every prediction was right


def test_tom_regret_matches_design_example():
    """docs/architecture.md: RPS vs the tit-for-tat style partner, 7 % wrong predictions x stage regret 1.5."""
    env = ToMRecorder(gym.make("tom/RPS-v0", partners="best_response_to_last", horizon=100))
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    last = None
    for t in range(100):
        truth = 0 if last is None else (last + 1) % 3  # the partner beats our last action
        wrong = t % 100 in (3, 17, 29, 41, 55, 70, 88)
        env.record_prediction((truth + (1 if t % 2 else 2)) % 3 if wrong else truth)
        a = int(rng.integers(3))
        info = env.step(a)[4]
        last = a
    ep = info["tom"]["episode"]
    assert ep["tom_accuracy"] == 93.0
    # by hand: predicting truth+1 makes us play truth+2, which loses to truth (regret 2); predicting truth+2
    # makes us play truth, a tie (regret 1). Odd rounds 3, 17, 29, 41, 55 cost 2, even rounds 70, 88 cost 1.
    wrong = {t: x for t, (x, c) in enumerate(zip(ep["tom_regrets"], ep["tom_correct"])) if not c}
    assert wrong == {3: 2.0, 17: 2.0, 29: 2.0, 41: 2.0, 55: 2.0, 70: 1.0, 88: 1.0}
    assert ep["tom_regret"] == 12.0 and ep["tom_regret_per_step"] == pytest.approx(0.12)


def test_state_is_cleared_on_reset_and_predictions_last_one_step():
    env = ToMRecorder(gym.make("tom/RPS-v0", partners="always_rock", horizon=2))
    play(env, [0, 0], [0, 0])
    _, info = env.reset(seed=1)
    assert "tom" not in info and env.records == [] and env.last_record is None
    assert env.start_record == {"partner": "always_rock", "optimal_return": 2.0}
    env.record_prediction(2)
    assert "tom" not in env.step(0)[4] and env.last_record["prediction"] == 2
    last = env.step(0)[4]["tom"]
    assert last["steps"][-1]["prediction"] is None and len(last["steps"]) == 2
    assert last["episode"]["tom_steps"] == 1 and last["episode"]["rounds"] == 2


@pytest.mark.parametrize("bad", [3, -1, 1.0, True, [0.5, 0.5], [0.5, 0.6, -0.1], [np.nan, 0.5, 0.5], "rock"])
def test_bad_predictions_are_named_errors(bad):
    env = ToMRecorder(gym.make("tom/RPS-v0"))
    env.reset(seed=0)
    with pytest.raises(InvalidAction):
        env.record_prediction(bad)


def test_recorder_needs_an_env_that_keeps_the_tom_contract():
    with pytest.raises(TomEnvsError, match="keeps the ToM contract"):
        ToMRecorder(gym.make("CartPole-v1"))


def test_recorder_reads_the_partner_from_the_env_not_from_info():
    hidden = ToMRecorder(gym.make("tom/IPD-v0", partners="tit_for_tat", horizon=3, expose_partner=False))
    shown = ToMRecorder(gym.make("tom/IPD-v0", partners="tit_for_tat", horizon=3))
    a, b = play(hidden, [1, 1, 1], [0, 1, 1]), play(shown, [1, 1, 1], [0, 1, 1])
    assert hidden.start_record == shown.start_record == {"partner": "tit_for_tat", "optimal_return": 26.0}
    assert "tom" not in a[0] and "tom" not in b[0]
    assert a[-1]["tom"] == b[-1]["tom"] and a[-1]["tom"]["episode"]["regret"] == 6


def test_a_second_prediction_in_one_step_is_a_named_error():
    env = ToMRecorder(gym.make("tom/RPS-v0"))
    env.reset(seed=0)
    env.record_prediction(0)
    with pytest.raises(TomEnvsError, match="already recorded"):
        env.record_prediction(1)
    env.record_prediction(None)  # withdrawn: a new one is fine
    env.record_prediction(1)
    env.step(0)
    assert env.last_record["prediction"] == 1


def test_an_episode_log_path_that_is_a_folder_is_a_named_error(tmp_path):
    from wrappers import JSONLEpisodeLog

    with pytest.raises(TomEnvsError, match="needs a file path"):
        JSONLEpisodeLog(gym.make("tom/RPS-v0"), tmp_path)
