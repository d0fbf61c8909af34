"""The text convention for AEC envs with numeric observations (docs/architecture.md, "Contracts" 6):
``wrappers.AECTextObservation`` makes every seat observe the env's ``text(agent)``; infos carry no text."""

from __future__ import annotations

import pytest

import tom_envs
from benchmarks.runner_aec import play_aec
from policies.negotiation.scripted import make_mediator
from tom_envs.errors import TomEnvsError
from tom_envs.negotiation.env import MEDIATOR
from wrappers import AECTextObservation, AECToMRecorder

TEXT_IDS = ["tom/Negotiation-v1", "tom/Persuasion-TwoSeat-v1"]


@pytest.mark.parametrize("env_id", TEXT_IDS)
def test_every_seat_observes_its_text_and_infos_carry_none(env_id):
    env = AECTextObservation(tom_envs.make_aec(env_id))
    env.reset(seed=3)
    for agent in env.possible_agents:  # seeded actions: the same episode every run
        env.action_space(agent).seed(3)
    seen = 0
    for agent in env.agent_iter(60):
        obs, _, terminated, truncated, info = env.last()
        assert isinstance(obs, str) and obs == env.unwrapped.text(agent) and "text" not in info
        space = env.observation_space(agent)
        assert space.contains(obs) and env.observation_spaces[agent] is space
        seen += 1
        env.step(None if terminated or truncated else env.action_space(agent).sample())
    assert seen > len(env.possible_agents)


def test_the_runner_plays_the_text_form_and_finds_the_recorder_inside():
    scripted = make_mediator("social")  # reads info["state"], not the observation: text or not, the same episode
    plain = play_aec(AECToMRecorder(tom_envs.make_aec("tom/Negotiation-v1")), {MEDIATOR: scripted}, seed=2)
    wrapped = AECTextObservation(AECToMRecorder(tom_envs.make_aec("tom/Negotiation-v1")))
    text = play_aec(wrapped, {MEDIATOR: scripted}, seed=2)
    assert text.summary == plain.summary and text.summary["tom_steps"] > 0


def test_an_env_without_text_is_a_named_error():
    with pytest.raises(TomEnvsError, match=r"text\(agent\)"):
        AECTextObservation(tom_envs.make_aec("tom/RPS-Parallel-v0"))
