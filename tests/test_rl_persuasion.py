"""Live persuasion's RL task (benchmarks.persuasion.rl:LIVE): splits, envs, the personas= kwarg, SB3 training."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tom_envs
from benchmarks.persuasion import rl
from tom_envs.persuasion.mind_v2 import UnknownPersona, restrict_personas
from tom_envs.persuasion.principles import InvalidPersona
from tom_envs.persuasion.scenarios import FAMILIES, FAMILIES_V2


def test_splits_are_disjoint_and_cover_every_family():
    assert set(rl.TRAIN_PERSONAS).isdisjoint(rl.TEST_PERSONAS)
    assert set(rl.TRAIN_FAMILIES).isdisjoint(rl.TEST_FAMILIES)
    assert set(rl.LIVE.splits) == set(rl.SPLITS) >= {"train", "test"}
    assert set(rl.LIVE.env_ids) == {
        "tom/Persuasion-v2",
        "tom/Persuasion-v1",
        "tom/Persuasion-TwoSeat-v2",
        "tom/Persuasion-TwoSeat-v1",
    }
    for personas, families in rl.SPLITS.values():
        kept = {f.name: f for f in restrict_personas(FAMILIES_V2, list(personas))}  # no family left empty
        assert all(kept[name].personas for name in families)


@pytest.mark.slow
@pytest.mark.parametrize("env_id", rl.LIVE_IDS)
def test_every_id_builds_each_split_and_draws_only_its_personas_and_families(env_id):
    for split, (personas, families) in rl.SPLITS.items():
        env = rl.make_env(env_id, split)
        assert env.unwrapped.tom_spec.targets.keys() == {"desire", "belief", "intention"}
        seen = set()
        for seed in range(5):
            obs, _ = env.reset(seed=seed)
            assert env.observation_space.contains(obs)
            done = False
            while not done:
                obs, _, terminated, truncated, info = env.step(5)
                done = terminated or truncated
            out = env.unwrapped.tom_outcome()
            assert 0.0 <= out["open_loop_success"] <= out["bayes_success"] <= out["oracle_success"] <= 1.0
            base = env.unwrapped
            base = getattr(base, "aec", base).unwrapped
            seen.add((base.family.name, base.family.personas[base.model.state(base.state_index).persona].name))
        assert {f for f, _ in seen} <= set(families) and {p for _, p in seen} <= set(personas), (split, seen)
        env.close()


def test_the_observation_keeps_every_family_in_its_place():
    for split in rl.SPLITS:
        base = rl.make_env("tom/Persuasion-v2", split).unwrapped
        assert [f.name for f in base.families] == [f.name for f in FAMILIES_V2]


def test_personas_kwarg_default_is_unchanged_and_restricts_the_prior():
    def run(env, seed):
        obs, info = env.reset(seed=seed)
        out = [obs.tolist()]
        for a in (0, 3, 5, 1):
            obs, r, terminated, truncated, info = env.step(a)
            out.append((obs.tolist(), r, info["reply"]))
            if terminated or truncated:
                break
        return out, env.unwrapped.tom_outcome()

    plain = tom_envs.make("tom/Persuasion-v2", families="health")
    every = tom_envs.make("tom/Persuasion-v2", families="health", personas=["skeptic", "cautious", "procrastinator"])
    assert all(run(plain, s) == run(every, s) for s in range(8))
    one = tom_envs.make("tom/Persuasion-v2", families="health", personas="cautious")
    assert [p.name for p in one.unwrapped.families[0].personas] == ["cautious"]
    one.reset(seed=0)
    assert one.unwrapped.refs.bayes != plain.unwrapped.refs.bayes  # references of the restricted prior


def test_unknown_or_empty_personas_are_named_errors():
    with pytest.raises(UnknownPersona, match="'stoic'"):
        tom_envs.make("tom/Persuasion-v2", personas=["stoic"])
    with pytest.raises(UnknownPersona):
        restrict_personas(FAMILIES, ["cautious", "nobody"])
    with pytest.raises(InvalidPersona, match="has none of the personas"):
        tom_envs.make("tom/Persuasion-v2", families=["health", "charity"], personas=["thrifty"])
    with pytest.raises(InvalidPersona, match="non-empty list"):
        tom_envs.make("tom/Persuasion-v2", personas=[])
    with pytest.raises(rl.UnknownSplit, match="validation"):
        rl.make_env("tom/Persuasion-v2", "validation")


def test_split_draws_replay_with_the_seed():
    env = rl.make_env("tom/Persuasion-v2", "train")
    first = [(env.reset(seed=s)[0].tolist(), env.unwrapped.family.name) for s in range(10)]
    again = [(env.reset(seed=s)[0].tolist(), env.unwrapped.family.name) for s in range(10)]
    assert first == again and len({f for _, f in first}) > 1


@pytest.mark.slow
def test_sb3_trains_a_few_hundred_steps_on_the_train_split():
    from stable_baselines3 import PPO
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for env_id in ("tom/Persuasion-v2", "tom/Persuasion-TwoSeat-v2"):
            venv = DummyVecEnv([lambda: Monitor(rl.make_env(env_id, "train"))] * 2)
            venv.seed(0)
            model = PPO("MlpPolicy", venv, seed=0, device="cpu", **{**rl.LIVE.hyper["ppo"], "n_steps": 64})
            model.learn(256)
            env = rl.make_env(env_id, "test")
            obs, _ = env.reset(seed=0)
            action, _ = model.predict(obs, deterministic=True)
            assert env.action_space.contains(int(action))
            assert np.isfinite(env.step(int(action))[1])


def test_reference_rows_carry_the_exact_references_and_the_scripted_persuaders():
    rows = rl.references("tom/Persuasion-v2", "test", [0, 1])
    names = [r["policy"] for r in rows]
    assert names == [*rl.EXACT.values(), *rl.REFERENCES]
    exact = {r["policy"]: r["success"] for r in rows[:3]}
    assert exact["exact best open-loop"] < exact["exact bayes (lower bound)"] < exact["exact oracle"]
    assert all(r["split"] == "test" and r["env_id"] == "tom/Persuasion-v2" and r["outcome"] == "success" for r in rows)


def test_env_kwargs_reach_the_task_envs_and_reference_rows_and_bad_ones_are_named_errors():
    """``--env-kwargs`` on live persuasion (e.g. ``expose_state``, the oracle setting): the train and test
    envs and the reference rows are made with them; the task's own kwargs and bad values are RLError."""
    from benchmarks.rl import RLError, RLRun

    env = rl.make_env("tom/Persuasion-v2", "test", expose_state=True)
    _, info = env.reset(seed=0)
    assert "state" in info and env.unwrapped.expose_state is True
    rows = rl.references("tom/Persuasion-v2", "test", [0, 1], expose_state=True)
    assert [r["policy"] for r in rows] == [*rl.EXACT.values(), *rl.REFERENCES]
    for given, says in [
        ({"horizon": 3}, "horizon"),
        ({"expose_state": "yes"}, "expose_state"),
        ({"nosuch": 1}, "nosuch"),
    ]:
        with pytest.raises(RLError, match=says):
            RLRun("tom/Persuasion-v2", "ppo", env_kwargs=given).resolved()
