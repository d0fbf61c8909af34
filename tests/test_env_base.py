"""The Gymnasium base class tom_envs.base.TomEnv: every built-in single-agent env derives from it, and the
call order, the reset options and the render modes are checked there, the same way for every env."""

from __future__ import annotations

import gymnasium as gym
import pytest

import tom_envs
from tests.conftest import make, make_kwargs
from tom_envs.base import TomEnv
from tom_envs.errors import EpisodeEnded, InvalidOptions, ResetNeeded, UnsupportedRenderMode
from tom_envs.registration import REGISTRY

SINGLE = [i for i in tom_envs.ids(kind="gymnasium") if REGISTRY[i].builtin]


@pytest.mark.parametrize("env_id", SINGLE)
def test_every_builtin_gymnasium_env_derives_from_the_base(env_id):
    env = make(env_id)
    assert isinstance(env.unwrapped, TomEnv)
    assert not env.unwrapped.started and not env.unwrapped.running
    env.close()


@pytest.mark.parametrize("env_id", SINGLE)
def test_the_call_order_is_the_base_s(env_id):
    env = make(env_id).unwrapped
    with pytest.raises(ResetNeeded, match=r"before reset\(\)"):
        env.step(0)
    env.reset(seed=3)
    assert env.started and env.running
    terminated = False
    for _ in range(1000):
        _, _, terminated, truncated, _ = env.step(0)
        if terminated or truncated:
            break
    assert terminated and not env.running
    with pytest.raises(EpisodeEnded, match=r"env\.reset\(\)") as err:
        env.step(0)
    assert str(err.value) == env.episode_over
    with pytest.raises(InvalidOptions, match=type(env).__name__):
        env.reset(options={"no_such_option": 1})


@pytest.mark.parametrize("env_id", SINGLE)
def test_render_modes_are_checked_against_the_metadata(env_id):
    env = make(env_id).unwrapped
    kwargs = {**gym.spec(env_id).kwargs, **make_kwargs(env_id)}
    with pytest.raises(UnsupportedRenderMode, match="render_mode must be 'ansi'"):
        type(env)(**kwargs, render_mode="rgb_array")  # the class itself (gym.make warns before it is called)
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="without a render_mode; pass render_mode='ansi'"):
        assert env.render() is None


def test_render_in_ansi_returns_the_text_and_nothing_before_a_reset():
    env = make("tom/PersuasiveToM-v1", render_mode="ansi").unwrapped
    assert env.render() == ""
    obs, _ = env.reset(seed=0)
    assert env.render() == obs["text"]
