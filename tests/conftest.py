"""Shared fixtures and helpers for the test suite."""

from __future__ import annotations

import os

import gymnasium as gym
import pytest

# one policy entropy for the whole session (and the commands it starts): two runs of a stochastic policy compare
# equal, as two runs of a user who pins it do (benchmarks.policy_seeds)
os.environ.setdefault("TOM_ENVS_POLICY_ENTROPY", "0x7E57")

import tom_envs  # noqa: F401  (registers the ids)
from tom_envs.registration import REGISTRY


def make_kwargs(env_id: str) -> dict:
    """Arguments needed to make a registered id (e.g. the example game of MatrixGame-v0)."""
    return dict(REGISTRY[env_id].example_kwargs)


def make(env_id: str, **kwargs) -> gym.Env:
    return gym.make(env_id, **{**make_kwargs(env_id), **kwargs})


def rollout(env: gym.Env, seed: int, steps: int = 250) -> list:
    """A trajectory with actions drawn from the (seeded) action space, across episode ends."""
    env.action_space.seed(seed)
    obs, info = env.reset(seed=seed)
    out = [("reset", _plain(obs), _plain(info))]
    for _ in range(steps):
        action = env.action_space.sample()
        obs, reward, terminated, truncated, info = env.step(action)
        out.append((int(action), _plain(obs), reward, terminated, truncated, _plain(info)))
        if terminated or truncated:
            obs, info = env.reset()
            out.append(("reset", _plain(obs), _plain(info)))
    return out


def _plain(x):
    """A comparable form of observations and infos (arrays and oracle solutions by value)."""
    import numpy as np

    from tom_envs.matrix.oracle import OracleSolution

    if isinstance(x, np.ndarray):
        return ("array", x.dtype.str, x.tolist())
    if isinstance(x, OracleSolution):
        return ("oracle", x.optimal_return, x.optimal_rewards.tolist(), x.policy.tolist())
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (tuple, list)):
        return type(x)(_plain(v) for v in x)
    return x


@pytest.fixture(params=["RPS", "IBS", "IPD"])
def game_name(request) -> str:
    return request.param
