"""``wrappers.VectorizeObservation``: any observation space as a flat float Box (docs/rl.md)."""

from __future__ import annotations

import subprocess
import sys
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces

import tom_envs  # noqa: F401
from tom_envs.errors import TomEnvsError
from wrappers import VectorizeObservation, hash_text
from wrappers.vectorize import UnsupportedSpace, Vectorizer


class DictEnv(gym.Env):
    """A small env with every kind of leaf."""

    def __init__(self):
        self.observation_space = spaces.Dict(
            {
                "action_mask": spaces.MultiBinary(3),
                "count": spaces.Discrete(4, start=1),
                "grid": spaces.MultiDiscrete([2, 3]),
                "pos": spaces.Box(-1.0, 1.0, (2,), dtype=np.float32),
                "say": spaces.Text(40),
                "pair": spaces.Tuple((spaces.Discrete(2), spaces.Text(40))),
            }
        )
        self.action_space = spaces.Discrete(3)

    def _obs(self):
        return {
            "action_mask": np.array([1, 0, 1], dtype=np.int8),
            "count": 2,
            "grid": np.array([1, 2]),
            "pos": np.array([0.5, -0.5], dtype=np.float32),
            "say": "the cat sat",
            "pair": (1, "not yes"),
        }

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return self._obs(), {}

    def step(self, action):
        return self._obs(), 0.0, True, False, {}


def test_every_leaf_has_its_block_in_the_spaces_order():
    env = VectorizeObservation(DictEnv(), buckets=8)
    obs, _ = env.reset(seed=0)
    assert env.observation_space.shape == (3 + 4 + 5 + 2 + 8 + 2 + 8,) and env.observation_space.contains(obs)
    blocks = {"/".join(map(str, path)): obs[a:b] for path, _, a, b in env.layout}
    assert blocks["action_mask"].tolist() == [1, 0, 1]
    assert blocks["count"].tolist() == [0, 1, 0, 0]  # Discrete(4, start=1) holding 2
    assert blocks["grid"].tolist() == [0, 1, 0, 0, 1]
    assert blocks["pos"].tolist() == [0.5, -0.5]
    assert blocks["pair/0"].tolist() == [0, 1]
    assert np.array_equal(blocks["say"], hash_text("the cat sat", 8))
    assert env.action_masks().tolist() == [True, False, True]


def test_text_is_a_normalised_signed_hash_of_words_and_bigrams():
    v = hash_text("The cat sat", 64)
    assert v.shape == (64,) and np.isclose(np.linalg.norm(v), 1.0)
    assert np.count_nonzero(v) <= 5 and set(np.round(np.abs(v[v != 0]) * np.sqrt(5), 6)) <= {1.0, 2.0}
    assert np.array_equal(v, hash_text("the CAT, sat!", 64))  # lower-cased words
    assert not np.array_equal(v, hash_text("sat cat the", 64))  # bigrams keep some order
    assert not hash_text("", 64).any()


def test_the_hash_is_stable_across_processes():
    code = "from wrappers import hash_text; print(hash_text('a persuader asks', 32).tolist())"
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONHASHSEED": "123", "PATH": ""},
        cwd=str(__import__("pathlib").Path(__file__).parents[1]),
    )
    assert eval(out.stdout) == hash_text("a persuader asks", 32).tolist()


def test_a_top_level_discrete_is_one_hot_and_batches_agree():
    env = VectorizeObservation(gym.make("tom/IPD-v0"))
    obs, _ = env.reset(seed=0)
    assert env.observation_space.shape == (5,) and obs.tolist() == [0, 0, 0, 0, 1]
    vec = Vectorizer(spaces.Discrete(5))
    assert np.array_equal(vec.batch(np.array([4, 0])), np.stack([vec(4), vec(0)]))


@pytest.mark.parametrize("env_id, skip", [("tom/CommonToM-v2", ("text",)), ("tom/PersuasiveToM-v1", ())])
def test_qa_envs_pass_the_checkers_wrapped(env_id, skip):
    from gymnasium.utils.env_checker import check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    env = VectorizeObservation(gym.make(env_id).unwrapped, skip=skip)
    with warnings.catch_warnings():  # the checker notes that it checks a wrapper: that is the point here
        warnings.filterwarnings("ignore", message=".*different from the unwrapped version")
        check_env(env, skip_render_check=True)
    sb3_check_env(env, warn=False)
    obs, _ = env.reset(seed=1)
    assert env.action_masks().any() and env.observation_space.contains(obs)


def test_unknown_spaces_and_bad_options_are_named_errors():
    class GraphEnv(DictEnv):
        def __init__(self):
            super().__init__()
            self.observation_space = spaces.Dict({"g": spaces.Graph(spaces.Discrete(2), None)})

    with pytest.raises(UnsupportedSpace, match="Graph at g"):
        VectorizeObservation(GraphEnv())
    with pytest.raises(TomEnvsError, match="buckets must be"):
        VectorizeObservation(DictEnv(), buckets=0)
    with pytest.raises(TomEnvsError, match="skip names"):
        VectorizeObservation(DictEnv(), skip=("nosuch",))
    with pytest.raises(TomEnvsError, match="no action_mask"):
        VectorizeObservation(gym.make("tom/IPD-v0")).action_masks()
