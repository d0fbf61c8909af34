"""Two-seat live persuasion v1: PettingZoo API, the persuadee seat's hidden mind, reward and
literal ToM, the persuader's literal ToM and the oracle, and nothing numeric giving the mind away."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from benchmarks.persuasion.live import play_two_seat
from policies.persuasion.scripted import (
    BayesPersuader,
    MindOraclePersuader,
    MindRandomPersuader,
    SimulatedMindPersuadee,
)
from tom_envs.errors import InvalidAction
from tom_envs.persuasion.mind import WARM, obs_index, obs_parts
from tom_envs.persuasion.mind_two_seat import AGREE, FAITHFUL, PERSUADEE, PERSUADER, PersuasionMindAECEnv

with warnings.catch_warnings():
    warnings.filterwarnings(
        "ignore", message="The old environment creation API has been deprecated", category=DeprecationWarning
    )
    from pettingzoo.test import api_test, seed_test


def test_two_seat_v1_passes_the_pettingzoo_tests():
    api_test(PersuasionMindAECEnv(), num_cycles=40)
    seed_test(lambda: PersuasionMindAECEnv(), num_cycles=20)


def test_the_persuadee_prompt_holds_its_persona_and_mind_and_the_numbers_do_not():
    env = PersuasionMindAECEnv(families="health")
    env.reset(seed=3, options={"persona": "skeptic"})
    prompt = env.text(PERSUADEE)
    assert "evidence" in prompt and "Right now you are" in prompt  # the skeptic's description, its mind
    assert "evidence before" not in env.text(PERSUADER) and "Right now" not in env.text(PERSUADER)
    for agent in env.possible_agents:
        assert not {"persona", "state", "state_index"} & set(env.infos[agent])
    other = PersuasionMindAECEnv(families="health")
    other.reset(seed=3, options={"persona": "procrastinator"})
    # before the opening reply the numbers are the same whatever the persona (nothing to read the mind from)
    assert np.array_equal(env.observe(PERSUADER), other.observe(PERSUADER))
    assert np.array_equal(env.observe(PERSUADEE), other.observe(PERSUADEE))


def _episodes(persuader_cls, n: int, family: str, **kw) -> list[dict]:
    env = PersuasionMindAECEnv(families=family, **getattr(persuader_cls, "env_kwargs", {}), **kw)
    return [play_two_seat(env, persuader_cls(), SimulatedMindPersuadee(), s) for s in range(n)]


def test_a_faithful_persuadee_seat_gives_the_single_seat_values_and_full_reward():
    n = 300
    for cls, key in ((BayesPersuader, "bayes_success"), (MindOraclePersuader, "oracle_success")):
        eps = _episodes(cls, n, "work")
        rate, p = np.mean([e["success"] for e in eps]), eps[0][key]
        assert abs(rate - p) < 4 * np.sqrt(p * (1 - p) / n), (cls.__name__, rate, p)
        assert all(e["fidelity"] == 1.0 and e["persuadee_return"] == e["rounds"] for e in eps)
    bayes = _episodes(BayesPersuader, 50, "charity")
    assert all(e["regret"] == pytest.approx(0.0, abs=1e-12) for e in bayes)
    oracle = _episodes(MindOraclePersuader, 50, "charity")
    assert all(e["intention_accuracy"] == 100.0 and e["belief_accuracy"] == 100.0 for e in oracle)
    assert all(e["persuadee_strategy_accuracy"] is not None for e in oracle)


def test_the_persuadee_seat_is_rewarded_for_voicing_its_mind_only():
    env = PersuasionMindAECEnv(families="leisure", horizon=3)
    env.reset(seed=0)
    env.step(FAITHFUL)  # the opening
    env.step(0)
    drawn = env.drawn
    warm = obs_index(WARM, 0)
    wrong = 0 if drawn == AGREE or obs_parts(drawn)[0] == WARM else warm  # refuse, or the wrong tone
    env.step(wrong)
    assert env.rewards[PERSUADEE] == 0.0 and env.fidelity() == 0.0 and env.agent_selection == PERSUADER
    with pytest.raises(InvalidAction):
        env.step(99)
    env.step(0)
    env.step(FAITHFUL)
    assert env.rewards[PERSUADEE] == 1.0 and env.fidelity() == 0.5


def test_the_persuadee_seats_strategy_predictions_are_scored():
    eps = _episodes(MindRandomPersuader, 60, "shopping")
    acc = np.mean([e["persuadee_strategy_accuracy"] for e in eps])
    assert 5 < acc < 40  # a random persuader's next strategy: about 1 in 6
