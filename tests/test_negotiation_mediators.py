"""Mediator-seat mechanics of issue 16: the mediator may close the session with a conclusion."""

from __future__ import annotations

import pytest

from tom_envs.negotiation import NegotiationActionError
from tom_envs.negotiation.env import MEDIATOR, NegotiationEnv


def test_a_conclusion_ends_the_episode_with_the_mediator_s_words():
    env = NegotiationEnv(scenario="ias", conflict_mode="general")
    env.reset(seed=0)
    for _ in range(4):
        env.step(0)
    env.step({"conclude": True, "utterance": "We have settled every topic; thank you all."})
    assert env.terminations[MEDIATOR] and env.turn == 5
    ep = env.infos[MEDIATOR]["episode"]
    assert ep["concluded"] == 5 and ep["turns"] == 5 and len(ep["consensus"]) == 6
    last = env.events[-1]
    assert (last["kind"], last["seat"], last["text"]) == (
        "conclusion",
        MEDIATOR,
        "We have settled every topic; thank you all.",
    )
    assert not ep["interventions"]  # a conclusion is not an intervention (no ME, no MI)


def test_a_conclusion_needs_its_words_and_a_plain_episode_runs_its_budget():
    env = NegotiationEnv(scenario="ias")
    env.reset(seed=0)
    with pytest.raises(NegotiationActionError, match="conclude"):
        env.step({"conclude": True})
    env.reset(seed=0)
    while env.agents:
        env.step(None if env.terminations[MEDIATOR] else 0)
    assert env.episode_summary()["concluded"] is None and env.turn == env.budget
