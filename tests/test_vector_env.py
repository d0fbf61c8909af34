"""The native vector env reproduces N single envs exactly, autoreset included."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import tom_envs
from tom_envs.errors import InvalidAction, ResetNeeded
from tom_envs.matrix.vector_env import MatrixGameVectorEnv, NotVectorizable

VECTOR_IDS = [i for i in tom_envs.ids(kind="gymnasium") if gym.registry[i].vector_entry_point]


def make_vec(env_id, n, **kw):
    kw = {**tom_envs.REGISTRY[env_id].example_kwargs, **kw}
    return gym.make_vec(env_id, num_envs=n, vectorization_mode="vector_entry_point", **kw)


def singles(env_id, n, **kw):
    kw = {**tom_envs.REGISTRY[env_id].example_kwargs, **kw}
    return [gym.make(env_id, **kw) for _ in range(n)]


def compare(env_id, n=7, steps=230, seed=3, **kw):
    """Step the vector env and N single envs with the same random actions (NEXT_STEP autoreset)."""
    kw = {"expose_partner": True, **kw}  # compare the drawn partners too
    venv, envs = make_vec(env_id, n, **kw), singles(env_id, n, **kw)
    rng = np.random.default_rng(0)
    obs, info = venv.reset(seed=seed)
    single = [e.reset(seed=seed + i) for i, e in enumerate(envs)]
    assert np.array_equal(obs, np.array([o for o, _ in single]))
    assert list(info["partner"]) == [i["partner"] for _, i in single]
    assert np.array_equal(info["optimal_return"], [i["optimal_return"] for _, i in single])
    done = np.zeros(n, dtype=bool)
    for _ in range(steps):
        actions = rng.integers(0, venv.single_action_space.n, n)
        obs, reward, term, trunc, info = venv.step(actions)
        if done.all():  # the vector env's autoreset step; singles reset without a seed
            out = [e.reset() for e in envs]
            assert np.array_equal(obs, np.array([o for o, _ in out]))
            assert list(info["partner"]) == [i["partner"] for _, i in out]
            assert not term.any() and (reward == 0).all()
            done[:] = False
            continue
        out = [e.step(int(a)) for e, a in zip(envs, actions)]
        assert np.array_equal(obs, np.array([o[0] for o in out]))
        assert np.array_equal(reward, [o[1] for o in out])
        assert np.array_equal(term, [o[2] for o in out]) and not trunc.any()
        assert np.array_equal(info["partner_action"], [o[4]["partner_action"] for o in out])
        if "partner_next_action" in out[0][4]:
            assert np.array_equal(info["partner_next_action"], [o[4]["partner_next_action"] for o in out])
        done = term


@pytest.mark.parametrize("env_id", VECTOR_IDS)
def test_vector_env_equals_single_envs(env_id):
    compare(env_id, horizon=20)


@pytest.mark.parametrize("partners", ["all", "random", "single_action,tit_for_tat"])
def test_vector_env_equals_single_envs_with_stochastic_partners(partners):
    compare("tom/RPS-v0", n=11, horizon=15, partners=partners)
    compare("tom/IBS-v0", n=5, horizon=10, partners=partners)


def test_vector_env_equals_single_envs_with_history_round_and_exposed_actions():
    compare("tom/IPD-v0", n=6, horizon=12, partners="all", history=3, include_round=True, expose_partner_action=True)


def test_make_vec_builds_the_native_env_and_spaces():
    venv = make_vec("tom/IPD-v0", 4)
    assert isinstance(venv.unwrapped, MatrixGameVectorEnv)
    assert venv.observation_space == gym.spaces.MultiDiscrete([5] * 4)
    assert venv.action_space == gym.spaces.MultiDiscrete([2] * 4)
    obs, _ = venv.reset(seed=0)
    assert venv.observation_space.contains(obs)


def test_same_step_autoreset_reports_final_observations():
    venv = MatrixGameVectorEnv(3, "IPD", partners="tit_for_tat", horizon=2, autoreset_mode=AutoresetMode.SAME_STEP)
    venv.reset(seed=0)
    venv.step(np.array([1, 1, 1]))
    obs, reward, term, _, info = venv.step(np.array([1, 0, 1]))
    assert term.all() and (obs == 4).all()  # already the next episode's start observation
    assert info["final_obs"].tolist() == [3, 1, 3] and reward.tolist() == [5.0, 0.0, 5.0]
    assert info["final_info"]["partner_action"].tolist() == [1, 1, 1]
    obs, *_ = venv.step(np.array([0, 0, 0]))
    assert obs.tolist() == [0, 0, 0]


def test_oracle_values_are_lookups():
    venv = MatrixGameVectorEnv(4, "IPD", partners="single_action,tit_for_tat", horizon=100, expose_partner=True)
    _, info = venv.reset(seed=1)
    rewards = venv.optimal_rewards()
    assert rewards.shape == (4, 100)
    assert np.allclose(rewards.sum(axis=1), info["optimal_return"])


def test_black_box_partners_are_refused_with_a_pointer_to_the_single_env():
    pytest.importorskip("axelrod")
    with pytest.raises(NotVectorizable, match="axelrod:Tit For Tat.*vectorization_mode='sync'"):
        MatrixGameVectorEnv(2, "IPD", partners="axelrod:Tit For Tat")


def test_misuse_raises_named_exceptions():
    venv = MatrixGameVectorEnv(3, "RPS")
    with pytest.raises(ResetNeeded):
        venv.step(np.zeros(3, dtype=int))
    venv.reset(seed=0)
    with pytest.raises(InvalidAction, match="sub-envs \\[1\\]"):
        venv.step(np.array([0, 3, 1]))
    with pytest.raises(InvalidAction, match="one per sub-env"):
        venv.step(np.array([0, 1]))
    with pytest.raises(InvalidAction, match="integers"):
        venv.step(np.array([0.0, 1.0, 2.0]))
    with pytest.raises(ValueError, match="num_envs"):
        MatrixGameVectorEnv(0, "RPS")


def test_disabled_autoreset_waits_for_reset():
    from tom_envs.errors import EpisodeEnded

    venv = MatrixGameVectorEnv(2, "IPD", horizon=1, autoreset_mode=AutoresetMode.DISABLED)
    venv.reset(seed=0)
    assert venv.step(np.array([0, 1]))[2].all()
    with pytest.raises(EpisodeEnded, match="call envs.reset"):
        venv.step(np.array([0, 1]))
    venv.reset()
    venv.step(np.array([0, 1]))
