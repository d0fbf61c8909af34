"""The persuasion envs keep the ToM contract: one recorder scores them, with the values the
deprecated entry points publish; nothing returned gives the persuadee's hidden state away."""

from __future__ import annotations

import numpy as np
import pytest

from policies.persuasion import BanditPersuader, RandomPersuader, SimulatedPersuadee
from tom_envs.persuasion.live import PersuasionEnv
from tom_envs.persuasion.personas import ARCHETYPES, DESIRES, NONE, YES, resolve_personas
from tom_envs.persuasion.persuadee import Persuadee
from tom_envs.persuasion.two_seat import PERSUADEE, PERSUADER, PersuasionAECEnv
from tom_envs.tom import ToMEnv, tom_spec_of
from wrappers.tom_recorder import AECToMRecorder, ToMRecorder


def _episode(env, policy, seed: int, predict) -> dict:
    """One episode; ``predict(env, prediction)`` hands the policy's guess to whichever entry point."""
    policy.reset(seed)
    obs, info = env.reset(seed=seed)
    while True:
        predict(env, policy.predict(obs, info))
        obs, reward, term, trunc, info = env.step(policy.act(obs, info))
        policy.observe(obs, reward, term, trunc, info)
        if term or trunc:
            return info


@pytest.mark.parametrize("policy", [RandomPersuader, BanditPersuader])
def test_recorder_scores_the_live_env_as_its_deprecated_record_prediction_did(policy):
    old_env, recorded = PersuasionEnv(), ToMRecorder(PersuasionEnv())
    for seed in range(40):
        old = _episode(old_env, policy(), seed, lambda env, p: env.record_prediction(**p))["episode"]
        new = _episode(recorded, policy(), seed, lambda env, p: env.record_prediction(p))["tom"]["episode"]
        assert new["tom_accuracy_by_target"] == {"desire": old["desire_accuracy"], "attitude": old["attitude_accuracy"]}
        assert new["tom_steps"] == old["turns"] and new["outcome"] == {
            "success": old["success"], "regret": old["regret"], "optimal_success": old["optimal_success"]}


def test_live_env_keeps_the_contract_without_predictions():
    env = PersuasionEnv()
    assert isinstance(env, ToMEnv) and tom_spec_of(env).targets["desire"].n == len(DESIRES)
    recorded = ToMRecorder(env)
    info = _episode(recorded, RandomPersuader(), 0, lambda env, p: None)
    assert info["tom"]["episode"]["tom_accuracy"] is None and recorded.last_record["prediction"] == {
        "desire": None, "attitude": None}
    assert info["tom"]["steps"] == recorded.records and recorded.records[-1] is recorded.last_record


def test_the_recorder_hands_the_persuader_no_truth_before_the_episode_ends():
    """The per-step records (the persuadee's true desire and attitude) stay with the recorder; the
    policy's infos carry none of them until the last step (the information rule, issue 24)."""
    recorded = ToMRecorder(PersuasionEnv(horizon=6))
    policy = RandomPersuader()
    for seed in range(10):
        policy.reset(seed)
        obs, info = recorded.reset(seed=seed)
        assert "tom" not in info and recorded.records == []
        while True:
            recorded.record_prediction(policy.predict(obs, info))
            obs, _, term, trunc, info = recorded.step(policy.act(obs, info))
            assert {"desire", "attitude"} <= set(recorded.last_record)
            if term or trunc:
                break
            assert "tom" not in info
        assert [r["round"] for r in info["tom"]["steps"]] == list(range(1, len(recorded.records) + 1))


def _two_seat_episode(env, persuadee: SimulatedPersuadee, seed: int, guess) -> list:
    """Principle 0, 1, 2, ...; the persuader predicts ``guess(round)``; returns what it was shown."""
    env.reset(seed=seed)
    persuadee.reset(seed)
    shown = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        if agent == PERSUADER:
            shown.append((obs.tolist(), {k: v for k, v in info.items() if k != "tom"}, env.unwrapped.text(agent)))
            if hasattr(env, "record_prediction"):
                env.record_prediction(guess(info["round"]))
            env.step(info["round"] % 6)
        else:
            env.step(persuadee.act(obs, info))
    return shown


def test_two_seat_env_is_scored_by_the_aec_recorder_on_the_stances_stated():
    env = AECToMRecorder(PersuasionAECEnv(horizon=4))
    assert env.predictor == PERSUADER
    persuadee = SimulatedPersuadee(personas={"receptiveness": [1.0] * 6, "reluctance": 1.0, "stubbornness": 0.0})
    _two_seat_episode(env, persuadee, 0, lambda r: 1)  # stances: neutral, then yes
    ep = env.episode_summary()
    assert [r["stance"] for r in env.records] == [1, YES] and ep["tom_correct"] == [True, False]
    assert ep["tom_accuracy"] == 50.0 and ep["outcome"] == {"success": True, "rounds": 2}


def test_two_seat_persuader_sees_nothing_of_the_persuadees_hidden_persona_before_it_answers():
    """Two persuadees, one sure to say yes at once and one sure never to: the persuader's first view
    is the same; the first stance shows up only after the persuadee has stated it."""
    easy = {"name": "p", "receptiveness": [1.0] * 6, "reluctance": 0.0, "stubbornness": 0.0}
    stubborn = {"name": "p", "receptiveness": [0.0] * 6, "reluctance": 1.0, "stubbornness": 1.0}
    views = [_two_seat_episode(PersuasionAECEnv(horizon=3), SimulatedPersuadee(p), 7, None) for p in (easy, stubborn)]
    assert views[0][0] == views[1][0] and len(views[0]) == 1 and len(views[1]) == 3
    assert np.array_equal(views[0][0][0], [6, 6, 3, 3])


def test_simulated_persuadee_and_the_live_env_share_one_persuadee_dynamics():
    """The seat-filling agent states the desire of a :class:`Persuadee` moved with its own generator:
    the same trajectory as a Persuadee driven by a generator in the same state."""
    persona = ARCHETYPES[1]
    for seed in range(20):
        agent = SimulatedPersuadee(personas=persona.name)
        agent.reset(seed)
        rng = np.random.default_rng(seed)
        twin = Persuadee(resolve_personas(persona.name).draw(rng), rng)
        previous = NONE
        for principle in (2, 2, 3, 0, 5):
            stance = agent.act(np.array([principle, previous, 0, 5]), {})
            twin.hear(principle, rng, previous=previous)
            assert stance == twin.desire
            previous = principle
