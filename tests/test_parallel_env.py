"""The two-learner parallel matrix env: PettingZoo conformance, trajectories, perspective, errors."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from gymnasium import spaces

import tom_envs
from tom_envs.errors import EpisodeEnded, InvalidAction, InvalidGame, ResetNeeded
from tom_envs.matrix.games import IBS, IPD
from tom_envs.matrix.parallel_env import MatrixGameParallelEnv, env, parallel_env
from tom_envs.registration import REGISTRY

# Importing pettingzoo.test (1.27) loads its classic connect_four_v3 module for a fixture when
# pytest is installed, which emits a DeprecationWarning about the old creation API at import time;
# markers cannot filter warnings raised during collection, so silence just that one here.
with warnings.catch_warnings():
    warnings.filterwarnings(
        "ignore", message="The old environment creation API has been deprecated", category=DeprecationWarning
    )
    from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

PARALLEL_IDS = tom_envs.ids(kind="parallel")
P0, P1 = "player_0", "player_1"


def make(env_id: str, **kwargs) -> MatrixGameParallelEnv:
    return tom_envs.make(env_id, **{**REGISTRY[env_id].example_kwargs, **kwargs})


def make_aec(env_id: str, **kwargs):
    return tom_envs.make_aec(env_id, **{**REGISTRY[env_id].example_kwargs, **kwargs})


def play(env: MatrixGameParallelEnv, joint_actions):
    return [env.step({P0: a, P1: b}) for a, b in joint_actions]


# ---------------------------------------------------------------------- PettingZoo conformance
def test_every_matrix_game_has_a_parallel_id():
    assert {"tom/RPS-Parallel-v0", "tom/IBS-Parallel-v0", "tom/IPD-Parallel-v0", "tom/MatrixGame-Parallel-v0"} <= set(
        PARALLEL_IDS
    )


@pytest.mark.parametrize("env_id", PARALLEL_IDS)
@pytest.mark.parametrize("history", [1, 3])
def test_parallel_api(env_id, history):
    parallel_api_test(make(env_id, horizon=20, history=history), num_cycles=50)


# api_test warns "Observation is not a NumPy array" for a Discrete observation given as a numpy
# scalar (np.int64, the space's dtype) rather than a 0-d array; PettingZoo's own rps_v2 allocates a
# 0-d array per observation instead, which we avoid to keep step cheap. Nothing else may warn.
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array:UserWarning")
@pytest.mark.parametrize("env_id", PARALLEL_IDS)
def test_aec_api(env_id):
    api_test(make_aec(env_id, horizon=20), num_cycles=50)


# With history > 1 the observation is MultiDiscrete, for which api_test recommends Box/Discrete,
# and it flags an observation that is all zeros, which is a legitimate history here (joint action
# code 0, e.g. (Cooperate, Cooperate), played k rounds in a row).
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be:UserWarning")
@pytest.mark.filterwarnings("ignore:Observation numpy array is all zeros:UserWarning")
@pytest.mark.parametrize("env_id", PARALLEL_IDS)
def test_aec_api_with_history(env_id):
    api_test(make_aec(env_id, horizon=20, history=3), num_cycles=50)


@pytest.mark.parametrize("env_id", PARALLEL_IDS)
def test_seeded_runs_are_identical(env_id):
    seed_test(lambda: make_aec(env_id, horizon=30), num_cycles=100)
    parallel_seed_test(lambda: make(env_id, horizon=30), num_cycles=100)


def test_module_functions_follow_pettingzoo_conventions():
    par = parallel_env(game="IPD", horizon=2)
    assert isinstance(par, MatrixGameParallelEnv)
    aec = env(game="IPD", horizon=2)
    assert isinstance(aec.unwrapped, MatrixGameParallelEnv)
    aec.reset(seed=0)
    assert aec.agent_selection == P0


def test_spaces_are_cached_and_sized_for_each_seat():
    par = make(
        "tom/MatrixGame-Parallel-v0",
        payoffs=[[[1, 0], [0, 1], [2, 2]], [[0, 0], [3, 1], [1, 1]]],
        action_labels=["U", "D"],
        partner_action_labels=["L", "C", "R"],
    )
    assert par.possible_agents == [P0, P1]
    assert par.action_space(P0) == spaces.Discrete(2) and par.action_space(P1) == spaces.Discrete(3)
    for agent in par.possible_agents:
        assert par.observation_space(agent) is par.observation_space(agent) == spaces.Discrete(7)
        assert par.action_space(agent) is par.action_space(agent)
    assert par.metadata["name"] == "tom_matrix_parallel_v0" and par.metadata["is_parallelizable"] is True


# ---------------------------------------------------------------------- dynamics
def test_ipd_trajectory_is_exact_and_terminates_at_the_horizon():
    par = tom_envs.make("tom/IPD-Parallel-v0", horizon=3)
    obs, infos = par.reset(seed=0)
    assert obs == {P0: 4, P1: 4} and infos == {P0: {}, P1: {}} and par.agents == [P0, P1]
    # (C, D), (D, D), (D, C): player_1 sees its own action first
    expected = [
        ({P0: 1, P1: 2}, {P0: 0.0, P1: 10.0}, False),
        ({P0: 3, P1: 3}, {P0: 5.0, P1: 5.0}, False),
        ({P0: 2, P1: 1}, {P0: 10.0, P1: 0.0}, True),
    ]
    for (a, b), (want_obs, want_rew, done) in zip([(0, 1), (1, 1), (1, 0)], expected):
        obs, rew, term, trunc, info = par.step({P0: a, P1: b})
        assert obs == want_obs and rew == want_rew
        assert term == {P0: done, P1: done} and trunc == {P0: False, P1: False}
        assert info == {P0: {"other_action": b}, P1: {"other_action": a}}
        assert par.agents == ([] if done else [P0, P1])
    assert par.history == [(0, 1), (1, 1), (1, 0)] and par.round == 3
    assert IPD.decode_joint(2) == (1, 0)


def test_default_horizon_is_100():
    par = tom_envs.make("tom/RPS-Parallel-v0")
    par.reset(seed=0)
    rounds = 0
    while par.agents:
        par.step({P0: 0, P1: 1})
        rounds += 1
    assert rounds == 100


def test_player_1_observes_from_its_own_seat_in_an_asymmetric_game():
    par = tom_envs.make("tom/IBS-Parallel-v0", horizon=5)
    par.reset(seed=0)
    obs, rew, *_ = par.step({P0: 0, P1: 1})  # row Fight, column Ballet
    assert IBS.decode_joint(obs[P0]) == (0, 1)
    assert IBS.transposed().decode_joint(obs[P1]) == (1, 0)  # own action (Ballet) first
    assert rew == {P0: 0.0, P1: 0.0}
    _, rew, *_ = par.step({P0: 1, P1: 1})  # both Ballet: the column player's favourite
    assert rew == {P0: 7.0, P1: 10.0}


def test_player_1_sees_the_transposed_game_in_a_non_square_game():
    par = make(
        "tom/MatrixGame-Parallel-v0",
        payoffs=[[[1, 2], [3, 4], [5, 6]], [[7, 8], [9, 10], [11, 12]]],
        action_labels=["U", "D"],
        partner_action_labels=["L", "C", "R"],
        horizon=2,
    )
    par.reset(seed=0)
    obs, rew, *_ = par.step({P0: 1, P1: 2})
    assert obs == {P0: 1 * 3 + 2, P1: 2 * 2 + 1} and rew == {P0: 11.0, P1: 12.0}


def test_history_observation_is_newest_first_and_padded():
    par = tom_envs.make("tom/IPD-Parallel-v0", horizon=4, history=3)
    obs, _ = par.reset(seed=0)
    assert par.observation_space(P0) == spaces.MultiDiscrete([5, 5, 5])
    assert obs[P0].tolist() == [4, 4, 4] and obs[P1].tolist() == [4, 4, 4]
    play(par, [(1, 0)])  # (D, C): row code 2, column code 1
    obs, *_ = par.step({P0: 0, P1: 1})  # (C, D): row code 1, column code 2
    assert obs[P0].tolist() == [1, 2, 4] and obs[P1].tolist() == [2, 1, 4]
    assert all(par.observation_space(agent).contains(obs[agent]) for agent in par.possible_agents)


def test_custom_game_through_the_registry():
    par = tom_envs.make(
        "tom/MatrixGame-Parallel-v0", payoffs=[[3, 0], [5, 1]], action_labels=["C", "D"], name="PD", horizon=2
    )
    assert par.game.name == "PD" and par.game.action_labels == ("C", "D")
    par.reset(seed=0)
    _, rew, *_ = par.step({P0: 1, P1: 0})  # symmetric table: column payoff is payoffs[b][a]
    assert rew == {P0: 5.0, P1: 0.0}
    with pytest.raises(InvalidGame, match="needs payoffs="):
        tom_envs.make("tom/MatrixGame-Parallel-v0")


@pytest.mark.parametrize("action", [1, np.int64(1), np.int8(1), np.array(1)])
def test_integer_like_actions_are_accepted(action):
    par = tom_envs.make("tom/RPS-Parallel-v0")
    par.reset(seed=0)
    _, rew, *_ = par.step({P0: action, P1: action})
    assert rew == {P0: 0.0, P1: 0.0}


def test_pickled_env_continues_identically():
    par = tom_envs.make("tom/IPD-Parallel-v0", horizon=6, history=2)
    par.reset(seed=3)
    play(par, [(0, 0), (1, 0)])
    clone = pickle.loads(pickle.dumps(par))
    rest = [(1, 1), (0, 1), (0, 0), (1, 0)]
    for a, b in rest:
        got, want = clone.step({P0: a, P1: b}), par.step({P0: a, P1: b})
        assert [{k: np.asarray(v).tolist() for k, v in got[0].items()}, *got[1:]] == [
            {k: np.asarray(v).tolist() for k, v in want[0].items()},
            *want[1:],
        ]
    assert clone.history == par.history and clone.agents == par.agents == []


def test_reset_seeds_np_random():
    one, two = tom_envs.make("tom/RPS-Parallel-v0"), tom_envs.make("tom/RPS-Parallel-v0")
    one.reset(seed=7)
    two.reset(seed=7)
    assert one.np_random.integers(1 << 30) == two.np_random.integers(1 << 30)


def test_render_shows_the_history():
    par = tom_envs.make("tom/IPD-Parallel-v0", horizon=2, render_mode="ansi")
    par.reset(seed=0)
    assert par.render() == "No rounds have been played yet."
    par.step({P0: 0, P1: 1})
    assert "Round 1: you chose Cooperate and the other player chose Defect" in par.render()


def test_render_without_a_mode_warns():
    par = tom_envs.make("tom/IPD-Parallel-v0")
    par.reset(seed=0)
    with pytest.warns(UserWarning, match="without a render_mode"):
        assert par.render() is None


# ---------------------------------------------------------------------- named errors
def test_step_before_reset_is_a_named_error():
    with pytest.raises(ResetNeeded, match="before reset"):
        tom_envs.make("tom/IPD-Parallel-v0").step({P0: 0, P1: 0})


def test_step_after_the_end_is_a_named_error():
    par = tom_envs.make("tom/IPD-Parallel-v0", horizon=2)
    par.reset(seed=0)
    play(par, [(0, 0), (0, 0)])
    with pytest.raises(EpisodeEnded, match="call env.reset"):
        par.step({P0: 0, P1: 0})


@pytest.mark.parametrize("action", [3, -1, 1.5, "R", None, True, np.array([1]), np.array(7), np.float64(1.0)])
def test_action_outside_the_space_is_a_named_error(action):
    par = tom_envs.make("tom/RPS-Parallel-v0")
    par.reset(seed=0)
    with pytest.raises(InvalidAction, match=r"0\.\.2 \(0=Rock, 1=Paper, 2=Scissors\)"):
        par.step({P0: 0, P1: action})


def test_missing_agent_action_is_a_named_error():
    par = tom_envs.make("tom/IPD-Parallel-v0")
    par.reset(seed=0)
    with pytest.raises(InvalidAction, match="no action for 'player_1'"):
        par.step({P0: 0})
    with pytest.raises(InvalidAction, match="unknown agents"):
        par.step({P0: 0, P1: 0, "player_2": 0})
    with pytest.raises(InvalidAction, match="dict of actions"):
        par.step([0, 0])
    assert par.round == 0  # a rejected step changes nothing


@pytest.mark.parametrize("kwargs", [{"horizon": 0}, {"horizon": 2.5}, {"history": 0}, {"render_mode": "rgb_array"}])
def test_bad_arguments_are_rejected(kwargs):
    with pytest.raises(ValueError):
        tom_envs.make("tom/IPD-Parallel-v0", **kwargs)


def test_human_render_prints_after_every_round(capsys):
    par = tom_envs.make("tom/IBS-Parallel-v0", horizon=2, render_mode="human")
    par.reset(seed=0)
    par.step({P0: 1, P1: 1})
    assert "Round 1: you chose Ballet and the other player chose Ballet" in capsys.readouterr().out


def test_tom_contract_names_one_target_per_seat():
    env = MatrixGameParallelEnv("IBS", horizon=2)
    assert env.tom_spec.targets == {"player_0": spaces.Discrete(2), "player_1": spaces.Discrete(2)}
    assert env.tom_spec.predictor is None  # both seats predict the other
    env.reset(seed=0)
    assert env.tom_truth() == {}
    env.step({"player_0": 0, "player_1": 0})
    env.step({"player_0": 1, "player_1": 0})
    assert env.tom_truth() == {"player_0": 1, "player_1": 0}
    assert env.tom_outcome() == {"return_player_0": 10.0, "return_player_1": 7.0}
