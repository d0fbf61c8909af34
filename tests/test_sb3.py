"""stable-baselines3 on tom-envs: the VecEnv adapter, SB3 models as policies, and two learners
through SuperSuit (``tom-envs rl`` itself: tests/test_rl.py)."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import tom_envs
from tom_envs.errors import TomEnvsError

sb3 = pytest.importorskip("stable_baselines3")
from stable_baselines3.common.vec_env import DummyVecEnv  # noqa: E402

from benchmarks.matrix.benchmark import run_episode  # noqa: E402
from policies import SB3Policy
from policies.matrix import PartnerCountModel  # noqa: E402
from wrappers import ToMRecorder  # noqa: E402
from wrappers.sb3 import SB3VecEnv  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _one_torch_thread():
    from benchmarks.rl_train import one_thread

    with one_thread():  # small networks: one thread is fastest, and shared machines stay usable
        yield


def native(n, **kw):
    return SB3VecEnv(
        gym.make_vec(
            "tom/RPS-v0",
            num_envs=n,
            vectorization_mode="vector_entry_point",
            autoreset_mode=AutoresetMode.SAME_STEP,
            **kw,
        )
    )


def test_adapter_equals_sb3s_own_vec_env_over_single_envs():
    kw = {"partners": "all", "horizon": 7}
    a = native(4, **kw)
    b = DummyVecEnv([lambda: gym.make("tom/RPS-v0", **kw) for _ in range(4)])
    a.seed(11)
    b.seed(11)
    assert np.array_equal(a.reset(), b.reset())
    rng = np.random.default_rng(0)
    for _ in range(30):
        acts = rng.integers(0, 3, 4)
        a.step_async(acts)
        b.step_async(acts)
        (oa, ra, da, ia), (ob, rb, db, ib) = a.step_wait(), b.step_wait()
        assert np.array_equal(oa, ob) and np.array_equal(ra, rb) and np.array_equal(da, db)
        for x, y in zip(ia, ib):
            assert x["partner_action"] == y["partner_action"]
            if "terminal_observation" in y:
                assert x["terminal_observation"] == y["terminal_observation"]
                assert x["TimeLimit.truncated"] is False


def test_adapter_needs_same_step_autoreset():
    with pytest.raises(TomEnvsError, match="SAME_STEP"):
        SB3VecEnv(gym.make_vec("tom/IPD-v0", num_envs=2, vectorization_mode="vector_entry_point"))


@pytest.mark.slow
def test_ppo_trains_on_the_native_vector_env_and_acts_as_a_policy():
    model = sb3.PPO("MlpPolicy", native(8, partners="single_action"), n_steps=64, seed=0, verbose=0, device="cpu")
    model.learn(1024)
    env = ToMRecorder(gym.make("tom/RPS-v0", partners="always_rock", horizon=20))
    policy = SB3Policy(model, PartnerCountModel("RPS"))
    ep = run_episode(env, policy, seed=0)
    assert ep["rounds"] == 20 and ep["tom_steps"] == 20 and ep["tom_accuracy"] >= 70  # unseen states are guesses
    assert policy.tom_source == "auxiliary count_model" and policy.name == "ppo"
    assert run_episode(env, policy, seed=0) == ep  # deterministic
    bare = SB3Policy(model)
    assert run_episode(env, bare, seed=0)["tom_steps"] == 0


@pytest.mark.slow
def test_recurrent_ppo_keeps_its_state_across_rounds():
    contrib = pytest.importorskip("sb3_contrib")
    model = contrib.RecurrentPPO(
        "MlpLstmPolicy",
        native(4, partners="tit_for_tat"),
        n_steps=32,
        seed=0,
        verbose=0,
        device="cpu",
        policy_kwargs={"lstm_hidden_size": 8, "net_arch": [8]},
    )
    model.learn(256)
    policy = SB3Policy(model, name="recurrent_ppo")
    env = ToMRecorder(gym.make("tom/RPS-v0", partners="tit_for_tat", horizon=10))
    ep = run_episode(env, policy, seed=1)
    assert ep["rounds"] == 10 and policy._state is not None


def test_sb3_policy_hands_the_probe_its_state_and_acts_once_per_step():
    model = sb3.PPO(
        "MlpPolicy", native(2, partners="tit_for_tat"), n_steps=16, batch_size=32, seed=0, verbose=0, device="cpu"
    )
    seen = []

    class Probe:
        source = "a test probe"

        def predict(self, feature):
            seen.append(feature)
            return 0

    policy = SB3Policy(model, probe=Probe())
    env = ToMRecorder(gym.make("tom/RPS-v0", partners="tit_for_tat", horizon=5))
    ep = run_episode(env, policy, seed=0)
    assert ep["tom_steps"] == 5 and policy.tom_source == "a test probe"
    assert len(seen) == 5 and all(f.shape == (64,) for f in seen)  # the actor's last latent layer


@pytest.mark.slow
def test_two_learners_train_with_shared_parameters_through_supersuit():
    ss = pytest.importorskip("supersuit")
    vec = ss.pettingzoo_env_to_vec_env_v1(tom_envs.make("tom/IPD-Parallel-v0", horizon=20))
    vec = ss.concat_vec_envs_v1(vec, 2, num_cpus=0, base_class="stable_baselines3")
    assert vec.num_envs == 4  # 2 copies x 2 seats, one shared policy
    model = sb3.PPO("MlpPolicy", vec, n_steps=32, verbose=0, device="cpu")
    model.learn(256)
    vec.close()
