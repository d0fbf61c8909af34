"""The single-agent matrix env: observations, info, options and named errors."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import tom_envs

from tom_envs.errors import EpisodeEnded, InvalidAction, InvalidGame, InvalidPartner, ResetNeeded
from tom_envs.matrix.env import MatrixGameEnv
from tom_envs.matrix.games import IPD, RPS
from tom_envs.matrix.text import render_state


def test_observation_is_the_last_joint_action_with_a_start_symbol():
    env = gym.make("tom/RPS-v0", partners="always_scissors", horizon=3)
    obs, _ = env.reset(seed=0)
    assert obs == 9 and env.observation_space == gym.spaces.Discrete(10)
    obs, reward, terminated, truncated, info = env.step(0)
    assert RPS.decode_joint(obs) == (0, 2) and reward == 1.0 and info == {"partner_action": 2}
    assert not terminated and not truncated


def test_history_and_round_observation():
    env = gym.make("tom/IPD-v0", partners="tit_for_tat", horizon=4, history=3, include_round=True)
    obs, _ = env.reset(seed=0)
    assert env.observation_space == gym.spaces.MultiDiscrete([5, 5, 5, 5])
    assert obs.tolist() == [4, 4, 4, 0]
    env.step(1)  # (D, C) = 2
    obs, *_ = env.step(0)  # (C, D) = 1
    assert obs.tolist() == [1, 2, 4, 2]
    obs, *_ = env.step(0)  # (C, C) = 0
    assert obs.tolist() == [0, 1, 2, 3]
    assert env.observation_space.contains(obs)


def test_episode_terminates_at_the_horizon():
    env = gym.make("tom/IBS-v0", horizon=5)
    env.reset(seed=1)
    flags = [env.step(0)[2] for _ in range(5)]
    assert flags == [False] * 4 + [True]
    assert env.unwrapped.round == 5 and len(env.unwrapped.history) == 5


def test_default_horizon_is_100():
    env = gym.make("tom/RPS-v0")
    env.reset(seed=0)
    n = 1
    while not env.step(0)[2]:
        n += 1
    assert n == 100


def test_reset_info_carries_ground_truth_only_when_exposed():
    assert gym.make("tom/IPD-v0", partners="tit_for_tat").reset(seed=0)[1] == {}
    env = gym.make("tom/IPD-v0", partners="tit_for_tat", expose_partner=True)
    _, info = env.reset(seed=0)
    assert info["partner"] == "tit_for_tat"
    assert info["partner_classifier"]["memory_depth"] == 1 and info["partner_classifier"]["stochastic"] is False
    assert info["optimal_return"] == 802.0 and info["oracle"].optimal_return == 802.0
    assert env.unwrapped.partner.name == "tit_for_tat" and env.unwrapped.partner_state == 0


def test_expose_partner_action_announces_the_coming_round():
    env = gym.make("tom/RPS-v0", partners="uniform_random", horizon=30, expose_partner_action=True)
    _, info = env.reset(seed=4)
    for _ in range(30):
        upcoming = info["partner_next_action"]
        _, _, terminated, _, info = env.step(1)
        assert info["partner_action"] == upcoming
    assert terminated and "partner_next_action" not in info
    plain = gym.make("tom/RPS-v0", partners="uniform_random", horizon=30)
    _, info = plain.reset(seed=4)
    assert "partner_next_action" not in info and "partner_next_action" not in plain.step(0)[4]


def test_options_force_a_partner_of_the_distribution():
    env = gym.make("tom/RPS-v0", expose_partner=True)
    for name in ("always_rock", "best_response_to_last"):
        assert env.reset(seed=0, options={"partner": name})[1]["partner"] == name
    with pytest.raises(InvalidPartner, match="not in this env's partners"):
        env.reset(seed=0, options={"partner": "grim_trigger"})


def test_step_before_reset_is_a_named_error():
    with pytest.raises(ResetNeeded, match="before reset"):
        MatrixGameEnv("RPS").step(0)
    with pytest.raises(gym.error.ResetNeeded):  # also Gymnasium's error class
        gym.make("tom/RPS-v0").step(0)


def test_step_after_the_end_is_a_named_error():
    for env in (gym.make("tom/IPD-v0", horizon=2), MatrixGameEnv("IPD", horizon=2)):
        env.reset(seed=0)
        env.step(0)
        env.step(0)
        with pytest.raises(EpisodeEnded, match="call env.reset"):
            env.step(0)


@pytest.mark.parametrize("action", [3, -1, 1.5, "R", None, np.array([1]), np.array(7), np.float64(1.0)])
def test_action_outside_the_space_is_a_named_error(action):
    env = MatrixGameEnv("RPS")
    env.reset(seed=0)
    with pytest.raises(InvalidAction, match=r"0=Rock, 1=Paper, 2=Scissors"):
        env.step(action)


@pytest.mark.parametrize("action", [1, np.int64(1), np.int8(1), np.array(1)])
def test_integer_like_actions_are_accepted(action):
    env = MatrixGameEnv("RPS", partners="always_rock")
    env.reset(seed=0)
    assert env.step(action)[1] == 1.0


@pytest.mark.parametrize("kwargs", [{"horizon": 0}, {"horizon": 2.5}, {"history": 0}, {"horizon": True}])
def test_bad_sizes_are_rejected(kwargs):
    with pytest.raises(ValueError):
        MatrixGameEnv("IPD", **kwargs)


def test_bad_label_set_and_render_mode_are_rejected():
    with pytest.raises(InvalidGame, match="label_set"):
        MatrixGameEnv("IPD", label_set="emoji")
    with pytest.raises(ValueError, match="render_mode"):
        MatrixGameEnv("IPD", render_mode="rgb_array")


def test_render_ansi_is_the_text_state():
    env = gym.make("tom/IBS-v0", partners="always_ballet", render_mode="ansi", label_set="neutral")
    env.reset(seed=0)
    env.step(0)
    text = env.render()
    assert "Round 1: you chose J and the other player chose F" in text and "This is round 2 of 100." in text


def test_render_without_mode_warns():
    env = MatrixGameEnv("IPD")
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert env.render() is None


def test_human_render_prints(capsys):
    env = gym.make("tom/IPD-v0", render_mode="human", horizon=2)
    env.reset(seed=0)
    env.step(1)
    assert "Round 1: you chose Defect" in capsys.readouterr().out


def test_custom_game_by_object_and_by_dict():
    game = IPD.model_copy()
    assert MatrixGameEnv(game).game == IPD
    env = MatrixGameEnv(
        {"name": "Coord", "payoffs": [[1, 0], [0, 1]], "action_labels": ["L", "R"]}, partners="always_r"
    )
    env.reset(seed=0)
    assert env.step(1)[1] == 1.0


def test_tom_contract_truth_is_the_round_just_played_and_outcome_the_regret_so_far():
    env = MatrixGameEnv("IPD", partners="tit_for_tat", horizon=3)
    assert env.tom_spec.targets == {"partner_action": gym.spaces.Discrete(2)}
    env.reset(seed=0)
    assert env.tom_truth() == {} and env.tom_outcome() == {"return": 0.0, "optimal_return": 0.0, "regret": 0.0}
    truths = []
    for a in (1, 1, 1):  # always defect against tit-for-tat: partner plays C, D, D
        env.step(a)
        truths.append(env.tom_truth())
    assert truths == [{"partner_action": 0}, {"partner_action": 1}, {"partner_action": 1}]
    # earned 10, 5, 5; the optimal response (C, C, D) earns 8, 8, 10
    assert env.tom_outcome() == {"return": 20.0, "optimal_return": 26.0, "regret": 6.0}


def test_text_is_the_state_in_the_envs_label_set():
    env = MatrixGameEnv("RPS", partners="always_rock", horizon=2, label_set="letters")
    env.reset(seed=0)
    env.step(1)
    assert env.text() == render_state(RPS, [(1, 0)], 2, "letters") and "round 2 of 2" in env.text()


def test_expose_partner_false_keeps_the_drawn_partner_out_of_info():
    env = MatrixGameEnv("IPD", partners="tit_for_tat", expose_partner=False)
    _, info = env.reset(seed=0)
    assert info == {} and env.partner.name == "tit_for_tat" and env.oracle.optimal_return == 802.0
    vec = gym.make_vec("tom/IPD-v0", num_envs=2, vectorization_mode="vector_entry_point", expose_partner=False)
    _, vinfo = vec.reset(seed=0)
    assert not {"partner", "partner_index", "optimal_return"} & set(vinfo)


def test_the_oracle_policy_says_which_flag_it_needs():
    from policies.matrix.scripted import OracleBestResponsePolicy, OracleUnavailable

    env = MatrixGameEnv("IPD", partners="tit_for_tat", expose_partner=False)
    obs, info = env.reset(seed=0)
    with pytest.raises(OracleUnavailable, match="expose_partner=True"):
        OracleBestResponsePolicy().act(obs, info)


@pytest.mark.parametrize(
    "options, message", [("partner", "takes a dict"), ({"partnr": "tit_for_tat"}, "unknown options")]
)
def test_bad_reset_options_are_named_errors(options, message):
    from tom_envs.errors import InvalidOptions

    envs = [gym.make("tom/IPD-v0"), gym.make_vec("tom/IPD-v0", num_envs=2, vectorization_mode="vector_entry_point")]
    if isinstance(options, str):  # PettingZoo envs take any dict (its API test passes keys they don't read)
        envs.append(tom_envs.make("tom/IPD-Parallel-v0"))
    for env in envs:
        with pytest.raises(InvalidOptions, match=message):
            env.reset(seed=0, options=options)
