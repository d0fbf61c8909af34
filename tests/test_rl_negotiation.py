"""The negotiation mediator's RL task (benchmarks.negotiation.rl:TASK): splits, the case mix, SB3 training."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from benchmarks.negotiation import rl
from policies.negotiation.scripted import make_mediator
from tom_envs.negotiation.scenario import BUILTIN_SCENARIOS
from tom_envs.errors import InvalidAction
from wrappers import ToMRecorder


def test_splits_are_disjoint_and_name_built_in_cases():
    assert set(rl.TRAIN_CASES).isdisjoint(rl.TEST_CASES)
    assert set(rl.TRAIN_CASES) | set(rl.TEST_CASES) == set(BUILTIN_SCENARIOS)
    assert set(rl.TASK.env_ids) == set(rl.MODES) and rl.TASK.seat == "mediator_0" and rl.TASK.outcome == "cc"
    for env_id, (train_modes, held) in rl.MODES.items():
        train = rl.split_pairs(env_id, "train")
        test = rl.split_pairs(env_id, "test")
        assert {c for c, _ in train}.isdisjoint({c for c, _ in test})
        if held is not None:
            assert held not in train_modes
            assert {m for _, m in rl.split_pairs(env_id, "test-mode")} == {held}
        else:
            with pytest.raises(rl.UnknownCase, match="one conflict mode"):
                rl.split_pairs(env_id, "test-mode")


def test_unknown_names_are_named_errors():
    with pytest.raises(rl.UnknownCase, match="'atlantis'"):
        rl.case_pairs(["ias", "atlantis"], ["general"])
    with pytest.raises(rl.UnknownCase, match="'stubborn'"):
        rl.case_pairs(["ias"], ["stubborn"])
    with pytest.raises(rl.UnknownCase, match="validation"):
        rl.make_env("tom/Negotiation-v1", "validation")
    with pytest.raises(rl.UnknownCase, match="not a negotiation id"):
        rl.make_env("tom/Persuasion-v2", "train")


@pytest.mark.parametrize("env_id", rl.IDS)
def test_every_id_builds_train_and_test_envs_on_their_cases(env_id):
    for split in ("train", "test"):
        env = rl.make_env(env_id, split)
        pairs = set(rl.split_pairs(env_id, split))
        obs, _ = env.reset(seed=1)
        assert env.observation_space.contains(obs) and (env.case, env.mode) in pairs
        obs, reward, terminated, truncated, _ = env.step(env.action_space.n - 1)  # the last topic slot: may pass
        assert env.observation_space.contains(obs) and not terminated
        env.close()


def test_case_mix_keeps_gymnasium_checks_seeds_and_the_action_code():
    from gymnasium.utils.env_checker import check_env

    env = rl.make_env("tom/Negotiation-v1", "train")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env, skip_render_check=True)

    def run(seed):
        obs, _ = env.reset(seed=seed)
        out, rng = [obs.tolist()], np.random.default_rng(seed)
        done = False
        while not done:
            obs, reward, terminated, truncated, _ = env.step(int(rng.integers(env.action_space.n)))
            out.append((obs.tolist(), reward))
            done = terminated or truncated
        return out, env.case, env.mode, env.tom_outcome()["cc"]

    assert run(4) == run(4)
    assert len({(c, m) for _, c, m, _ in (run(s) for s in range(8))}) > 1
    env.reset(seed=0)
    assert env.action_space.n == 1 + len(rl.MOVES) and env._move(0) == 0
    assert env._move({"strategy": "facilitative", "topic": 0}) == {"strategy": "facilitative", "topic": 0}
    with pytest.raises(InvalidAction, match="invite"):
        env._move(env.action_space.n)


def test_moves_are_aimed_by_public_rules_and_wait_their_gap():
    from benchmarks.negotiation.rl_moves import MIN_GAP, Moves, plurality, proxy

    stated = np.array([[0, -1], [1, -1], [1, 2]])  # 3 parties, 2 topics; -1: not stated
    assert proxy(stated).tolist() == pytest.approx([1 / 3, 0.5]) and plurality(stated[:, 0]) == 1
    assert plurality(stated[:, 0], exclude=1) == 0 and plurality(stated[:, 1], exclude=2) is None
    moves = Moves(3, 2, 3)
    obs = np.concatenate([[3, 5, 25, 1, 0, 4], np.where(stated < 0, 3, stated).ravel(), [3] * 6, [4, 1, 0]])
    moves.see(obs)
    assert moves.move("invite") == {"strategy": "facilitative", "topic": 1}  # two parties unheard on topic 1
    assert moves.move("draw_out") == {"strategy": "facilitative", "topic": 1, "target": 0}  # the quietest party
    # party 1 spoke last and holds 1 on topic 0, where the others split 0 / 1 (plurality: the lower, 0)
    assert moves.move("reality_test") == {"strategy": "evaluative", "topic": 0, "target": 1, "option": 0}
    assert moves.move("problem_solve") == {"strategy": "problem_solving", "topic": 0, "option": 1}
    assert moves.move("transform") == {"strategy": "transformative", "topic": 0}  # no fall yet: the last topic
    features = moves.features()
    assert features.shape == (rl.N_MOVE_FEATURES,) and features.min() >= 0 and features.max() <= 1
    moves.intervened()
    for gap in range(1, MIN_GAP + 1):
        obs[1], obs[2] = 5 + gap, 25 - gap
        moves.see(obs)
        assert (moves.move("transform") is None) == (gap < MIN_GAP)


def test_the_training_split_rewards_each_turns_consensus_change_summing_to_the_envs_reward():
    rewards = {}
    for split in ("train", "test"):
        env = rl.make_env("tom/Negotiation-Hard-v1", split)
        env.pairs = (("ias", "competing"),)
        env.reset(seed=3)
        got, done = [], False
        while not done:
            _, reward, terminated, truncated, info = env.step(5)
            got.append(reward)
            done = terminated or truncated
        rewards[split] = got
        assert sum(got) == pytest.approx(env.tom_outcome()["consensus_gain"]) == pytest.approx(info["episode"]["r"])
    assert rewards["test"][:-1] == [0.0] * (len(rewards["test"]) - 1)  # the env's reward: once, at the end
    assert sum(1 for r in rewards["train"] if r != 0) > 1


def test_features_read_only_the_mediators_observation():
    """Two envs of the same case whose scripted parties differ only in private receptiveness give the same
    features until a party says something different: the features are a function of the observation."""
    env = rl.make_env("tom/Negotiation-v1", "test")
    obs, _ = env.reset(seed=2)
    base = env.current.aec.unwrapped
    again = rl.mediator_features(base.observe("mediator_0"), base.n, base.m, base.s_max)
    assert np.array_equal(obs[: rl.N_FEATURES], again)
    assert obs.min() >= 0.0 and obs.max() <= 1.0 and obs.shape == (rl.N_FEATURES + rl.N_MOVE_FEATURES,)
    own = rl.N_FEATURES + 2 * len(rl.MOVES)
    assert obs[own : own + 3].tolist() == [1.0, 0.0, 0.0]  # no move of its own yet
    obs, *_ = env.step(1 + rl.MOVES.index("invite"))  # nobody has spoken: every party is unheard
    assert obs[own : own + 3].tolist() == pytest.approx([0.1, 1 / 3, 1.0])
    assert env.current.aec.unwrapped.events[-1]["strategy"] == "facilitative"


def test_the_recorder_scores_padded_stance_predictions():
    env = ToMRecorder(rl.make_env("tom/Negotiation-v1", "test"))
    policy = rl.PaddedPredictions(make_mediator("social"))
    policy.reset(0)
    obs, info = env.reset(seed=0)
    done = False
    while not done:
        env.record_prediction(policy.predict(obs, info))
        obs, _, terminated, truncated, info = env.step(policy.act(obs, info))
        done = terminated or truncated
    summary = env.episode_summary()
    assert summary["tom_accuracy"] is not None and "cc" in summary["outcome"]
    padded = rl.pad_stances(np.ones((2, 3))).reshape(rl.MAX_PARTIES, rl.MAX_TOPICS)
    assert padded[:2, :3].min() == 1 and (padded[2:] == -1).all() and (padded[:, 3:] == -1).all()


@pytest.mark.slow
def test_sb3_trains_a_few_hundred_steps_on_the_train_split():
    from stable_baselines3 import PPO
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        venv = DummyVecEnv([lambda: Monitor(rl.make_env("tom/Negotiation-Hard-v1", "train"))] * 2)
        venv.seed(0)
        model = PPO(
            "MlpPolicy", venv, seed=0, device="cpu", **{**rl.TASK.hyper["ppo"], "n_steps": 128, "batch_size": 64}
        )
        model.learn(256)
    env = rl.make_env("tom/Negotiation-Hard-v1", "test")
    obs, _ = env.reset(seed=0)
    action, _ = model.predict(obs, deterministic=True)
    assert env.action_space.contains(int(action)) and np.isfinite(env.step(int(action))[1])


def test_reference_rows_are_the_scripted_mediators_on_the_split():
    rows = rl.references("tom/Negotiation-Hard-v1", "test", [0])
    assert [r["policy"] for r in rows] == list(rl.REFERENCES)
    assert all(r["split"] == "test" and r["outcome"] == "cc" and r["cc"] is not None for r in rows)
    assert next(r for r in rows if r["policy"] == "social")["tom_accuracy"] is not None


def test_intervention_rates_count_the_mediators_moves(tmp_path):
    from benchmarks.negotiation import rl_interventions as ri

    blind = make_mediator("blind")
    got = ri.rates("tom/Negotiation-Hard-v1", "test", lambda env, obs, info: blind.act(obs, info), [0])
    turns = rl.make_env("tom/Negotiation-Hard-v1", "test")
    turns.reset(seed=0)
    budget = turns.current.aec.unwrapped.budget
    assert got["rate"] == pytest.approx(((budget - 1) // 3) / budget) and got["strategies"] == {"transformative": 1.0}
    assert ri.rates("tom/Negotiation-Hard-v1", "test", lambda env, obs, info: 0, [0])["rate"] == 0.0
    models = tmp_path / "rl" / "models"
    models.mkdir(parents=True)
    for name in (
        "ppo_tom-Negotiation-Hard-v1_s0_aaaa.zip",
        "ppo_tom-Negotiation-Hard-v1_s0_aaaa_probe_bb.npz",
        "ppo_tom-Negotiation-Hard-v1_s1_cccc.zip",
        "ppo_tom-Negotiation-v1_s0_dddd.zip",
    ):
        (models / name).write_bytes(b"")
    assert {s: p.name for s, p in ri.saved_models("tom/Negotiation-Hard-v1", tmp_path).items()} == {
        0: "ppo_tom-Negotiation-Hard-v1_s0_aaaa.zip",
        1: "ppo_tom-Negotiation-Hard-v1_s1_cccc.zip",
    }
