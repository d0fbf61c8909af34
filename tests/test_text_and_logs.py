"""Text rendering for language models, the text-observation wrapper and JSONL episode logs."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

from tom_envs.errors import TomEnvsError
from tom_envs.matrix.games import IBS, IPD, RPS
from tom_envs.matrix.text import render_rules, render_state
from wrappers import JSONLEpisodeLog, TextObservation, ToMRecorder


def test_rps_rules_speak_of_scores_and_the_others_of_points():
    rps = render_rules(RPS, 100, "letters")
    assert (
        "If you choose R and the other player chooses S, you receive a score of +1 and the other player receives a score of -1."
        in rps
    )
    ipd = render_rules(IPD, 100, "canonical")
    assert (
        "If you choose Cooperate and the other player chooses Defect, you win 0 points and the other player wins 10 points."
        in ipd
    )
    assert "repeats for 100 rounds" in ipd


def test_state_names_the_round_and_uses_the_label_set():
    text = render_state(IBS, [(0, 1), (1, 1)], 100, "repeated")
    assert "This is round 3 of 100." in text
    assert f"Round 2: you chose {'F' * 21} and the other player chose {'F' * 21}; you won 7 points" in text
    assert "The game is over" in render_state(IBS, [(0, 0)], 1)


@pytest.mark.parametrize("label_set", ["canonical", "letters", "neutral", "repeated", "nonsense"])
def test_text_observation_wrapper(label_set):
    env = TextObservation(gym.make("tom/RPS-v0", partners="always_rock", horizon=3), label_set=label_set)
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs) and "round 1 of 3" in obs
    for _ in range(3):
        obs, *_ = env.step(1)
        assert env.observation_space.contains(obs)
    labels = RPS.labels(label_set)
    assert f"you chose {labels[1]} and the other player chose {labels[0]}" in obs


def test_text_observation_announces_the_partner_action_for_oracle_prompting():
    env = TextObservation(
        gym.make("tom/IPD-v0", partners="always_defect", expose_partner_action=True), label_set="canonical"
    )
    obs, _ = env.reset(seed=0)
    assert "The other player will choose Defect in this round." in obs


def test_jsonl_log_writes_each_episode_as_it_ends(tmp_path):
    path = tmp_path / "logs" / "episodes.jsonl"
    env = JSONLEpisodeLog(
        ToMRecorder(gym.make("tom/RPS-v0", partners="always_rock", horizon=3, expose_partner=True)), path
    )
    env.reset(seed=5)
    env.step(1)
    assert not path.exists()  # nothing until the episode ends
    env.step(1)
    env.step(0)
    lines = path.read_text().splitlines()
    assert len(lines) == 1
    rec = json.loads(lines[0])
    assert rec["env_id"] == "tom/RPS-v0" and rec["seed"] == 5 and rec["episode"] == 0 and rec["rounds"] == 3
    assert rec["reset_info"]["partner"] == "always_rock" and "oracle" not in rec["reset_info"]
    assert rec["reset_info"]["partner_classifier"]["populations"] == ["all", "single_action"]
    assert [s["action"] for s in rec["steps"]] == [1, 1, 0] and rec["return"] == 2.0
    assert rec["steps"][-1]["info"]["tom"]["episode"]["regret"] == 1.0
    env.reset()
    for _ in range(3):
        env.step(2)
    assert [json.loads(x)["episode"] for x in path.read_text().splitlines()] == [0, 1]


def test_text_observation_renders_any_env_with_a_text_method():
    env = TextObservation(gym.make("tom/Persuasion-v1"))
    obs, _ = env.reset(seed=0)
    assert isinstance(obs, str) and obs == env.unwrapped.text() and env.observation_space.contains(obs)
    obs, *_ = env.step(0)
    assert obs == env.unwrapped.text() and env.observation_space.contains(obs)


def test_text_observation_refuses_an_env_without_text():
    with pytest.raises(TomEnvsError, match="text"):
        TextObservation(gym.make("CartPole-v1"))
