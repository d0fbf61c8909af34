"""wrappers.single_seat.SingleSeat: one AEC seat as a Gymnasium env, the other seats played by policies."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tom_envs
from policies.persuasion.scripted import EchoPersuader, SimulatedMindPersuadee
from wrappers import ToMRecorder
from wrappers.single_seat import SingleSeat, SingleSeatError

TWO_SEAT = "tom/Persuasion-TwoSeat-v2"


def _aec():
    return tom_envs.make_aec(TWO_SEAT, families="health")  # one family: its planning once per test run


def _persuader_env() -> SingleSeat:
    return SingleSeat(_aec(), "persuader_0", {"persuadee_0": SimulatedMindPersuadee()})


def _play(env, seed: int) -> list:
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = [(np.asarray(obs).tolist(), sorted(info))]
    while True:
        obs, reward, terminated, truncated, info = env.step(int(rng.integers(6)))
        out.append((np.asarray(obs).tolist(), reward, terminated, truncated, info.get("utterance")))
        if terminated or truncated:
            return out + [env.unwrapped.tom_outcome()]


def test_gymnasium_check_env_passes_on_both_seats():
    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(_persuader_env(), skip_render_check=True)
        persuadee = SingleSeat(_aec(), "persuadee_0", {"persuader_0": EchoPersuader()})
        check_env(persuadee, skip_render_check=True)
    env = _persuader_env()
    aec = _aec()
    assert env.observation_space == aec.observation_space("persuader_0")
    assert env.action_space == aec.action_space("persuader_0")


def test_same_seed_same_trajectory_and_seeds_differ():
    env = _persuader_env()
    runs = [_play(env, s) for s in (3, 4, 3)]
    assert runs[0] == runs[2]
    assert _play(_persuader_env(), 3) == runs[0]  # a fresh env too
    assert any(_play(env, s) != runs[0] for s in range(5, 10))


def test_the_seat_gets_exactly_what_the_aec_env_shows_it():
    """Played by hand on the AEC env (the same seeds for the env and the persuadee), the persuader seat's
    observations, infos and rewards are the wrapper's."""
    from wrappers.single_seat import other_seed

    seed = 11
    env = _persuader_env()
    obs, info = env.reset(seed=seed)
    wrapped = [(np.asarray(obs).tolist(), info)]
    actions = [0, 3, 5, 1, 2]
    for a in actions:
        obs, reward, terminated, truncated, info = env.step(a)
        wrapped.append((np.asarray(obs).tolist(), info, reward))
        if terminated or truncated:
            break
    aec = _aec()
    persuadee = SimulatedMindPersuadee()
    persuadee.reset(other_seed(seed, 0))
    aec.reset(seed=seed)
    by_hand, todo = [], list(actions)
    while aec.agents:
        agent = aec.agent_selection
        obs, reward, terminated, truncated, info = aec.last()
        if agent == "persuader_0":
            entry = (np.asarray(obs).tolist(), info) if not by_hand else (np.asarray(obs).tolist(), info, reward)
            by_hand.append(entry)
            if terminated or truncated:
                break
            aec.step(todo.pop(0))
        else:
            aec.step(None if terminated or truncated else persuadee.act(obs, info))
    assert len(by_hand) == len(wrapped)
    for mine, theirs in zip(wrapped, by_hand):
        assert mine[0] == theirs[0] and mine[1].keys() == theirs[1].keys()
        assert {k: v for k, v in mine[1].items() if k != "episode"} == {
            k: v for k, v in theirs[1].items() if k != "episode"
        }
        assert mine[2:] == theirs[2:]


def test_tom_recorder_scores_the_predictor_seat():
    env = ToMRecorder(_persuader_env())
    assert env.unwrapped.tom_spec.predictor == "persuader_0"
    env.reset(seed=2)
    done = False
    while not done:
        env.record_prediction({"desire": 0, "belief": 0, "intention": 0})
        _, _, terminated, truncated, _ = env.step(5)
        done = terminated or truncated
    summary = env.episode_summary()
    assert summary["tom_steps"] >= 1 and summary["tom_accuracy"] is not None
    assert set(summary["outcome"]) >= {"success", "bayes_success", "open_loop_success", "oracle_success"}
    # a seat that is not the predictor gets no truths (it predicts nothing that is scored)
    persuadee = SingleSeat(_aec(), "persuadee_0", {"persuader_0": EchoPersuader()})
    persuadee.reset(seed=2)
    persuadee.step(19)
    assert persuadee.tom_truth() == {}


def test_misuse_is_a_named_error():
    aec = _aec()
    with pytest.raises(SingleSeatError, match="not an agent"):
        SingleSeat(aec, "judge_0", {})
    with pytest.raises(SingleSeatError, match="no policy for 'persuadee_0'"):
        SingleSeat(aec, "persuader_0", {})
    with pytest.raises(SingleSeatError, match="other agents"):
        SingleSeat(aec, "persuader_0", {"persuader_0": EchoPersuader(), "persuadee_0": SimulatedMindPersuadee()})
    with pytest.raises(SingleSeatError, match="act"):
        SingleSeat(aec, "persuader_0", {"persuadee_0": object()})
    env = _persuader_env()
    with pytest.raises(tom_envs.errors.ResetNeeded):
        env.step(0)
    env.reset(seed=0)
    done = False
    while not done:
        _, _, terminated, truncated, _ = env.step(5)
        done = terminated or truncated
    with pytest.raises(tom_envs.errors.EpisodeEnded):
        env.step(0)


@pytest.mark.slow
def test_the_information_checker_passes_on_the_wrapped_seat():
    from tom_envs.checks import check_information_rule

    check_information_rule(_persuader_env, episodes=80)  # raises InformationLeak naming a leak
