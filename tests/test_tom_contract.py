"""The ToM contract (tom_envs.tom) on every registered id, and the one recorder scoring it."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces

import tom_envs
from tom_envs.errors import InvalidAction
from tom_envs.registration import REGISTRY
from tom_envs.tom import ToMContractError, ToMSpec, tom_spec_of
from wrappers import AECToMRecorder, ToMRecorder, ToMScorer


def _in_space(space: spaces.Space, value) -> bool:
    return space.contains(np.asarray(value) if isinstance(space, (spaces.MultiDiscrete, spaces.Box)) else value)


def _check_step(base, spec: ToMSpec) -> None:
    truth = base.tom_truth()
    assert set(truth) <= set(spec.targets)
    for name, value in truth.items():
        assert _in_space(spec.targets[name], value), (name, value)
    assert set(base.tom_outcome()) == set(spec.outcome)


@pytest.mark.parametrize("env_id", list(REGISTRY))
def test_every_id_states_targets_truth_and_outcome(env_id):
    rec = REGISTRY[env_id]
    if rec.kind == "gymnasium":
        env = tom_envs.make(env_id, **rec.example_kwargs)
        spec = tom_spec_of(env)
        env.reset(seed=0)
        assert env.unwrapped.tom_truth() == {}
        env.action_space.seed(0)
        for _ in range(30):
            _, _, term, trunc, _ = env.step(env.action_space.sample())
            _check_step(env.unwrapped, spec)
            if term or trunc:
                break
    elif rec.kind == "parallel":
        env = tom_envs.make(env_id, **rec.example_kwargs)
        spec = tom_spec_of(env)
        env.reset(seed=0)
        assert env.tom_truth() == {}
        while env.agents:
            env.step({a: env.action_space(a).sample() for a in env.agents})
            _check_step(env, spec)
    else:
        env = tom_envs.make_aec(env_id, **rec.example_kwargs)
        spec = tom_spec_of(env)
        assert spec.predictor in env.possible_agents
        env.reset(seed=0)
        assert env.unwrapped.tom_truth() == {}
        for agent in env.agent_iter(max_iter=200):
            _, _, term, trunc, _ = env.last()
            space = env.action_space(agent)
            space.seed(0)
            env.step(None if term or trunc else space.sample())
            _check_step(env.unwrapped, spec)


# ---------------------------------------------------------------------- QA envs through the recorder
@pytest.mark.parametrize("feedback", ["episode", "step"])
def test_qa_answers_are_the_predictions_scored_per_question_type(feedback):
    """The recorder scores every answer as it is given, out of band (``records``), under either feedback
    mode; nothing of the recorder's is in an info before the last step, which holds every step's
    record and the episode summary."""
    env = ToMRecorder(gym.make("tom/PersuasiveToM-v1", feedback=feedback))
    _, info = env.reset(seed=0, options={"episode": 0})
    assert "tom" not in info
    base = env.unwrapped
    hits: dict[str, list[bool]] = {}
    expected, step, done, total = [], 0, False, 0.0
    while not done:
        item = base.current_item
        right = base.current_answer
        choice = right if step % 3 else (right + 1) % len(item.choices)
        _, reward, done, _, info = env.step(choice)
        total += reward
        expected.append((right, choice, choice == right))
        hits.setdefault(item.qtype, []).append(choice == right)
        step += 1
        rec = env.last_record
        assert rec["answer"] == right and rec["prediction"] == choice and rec["correct"] == (choice == right)
        if not done:
            assert "tom" not in info
            assert feedback == "step" or (reward == 0.0 and "correct" not in info)
    recs = info["tom"]["steps"]
    assert recs == env.records and [(r["answer"], r["prediction"], r["correct"]) for r in recs] == expected
    assert [r["round"] for r in recs] == list(range(1, step + 1))
    assert total == sum(c for *_, c in expected)  # the same return either way
    ep = info["tom"]["episode"]
    assert ep["rounds"] == step and ep["tom_steps"] == step and ep["return"] == total
    assert ep["tom_accuracy"] == pytest.approx(100 * sum(map(sum, hits.values())) / step)
    assert ep["tom_accuracy_by_qtype"] == {q: pytest.approx(100 * sum(h) / len(h)) for q, h in sorted(hits.items())}
    assert ep["outcome"] == {
        "accuracy": pytest.approx(ep["tom_accuracy"]),
        "answered": step,
        "correct": sum(map(sum, hits.values())),
    }
    env.reset(seed=1)
    env.step(0)
    assert env.episode_summary()["rounds"] == 1 and len(env.records) == 1  # state cleared on reset
    rounds, done = 1, False  # the end hands back this episode's records only
    while not done:
        _, _, done, _, info = env.step(0)
        rounds += 1
    assert [r["round"] for r in info["tom"]["steps"]] == list(range(1, rounds + 1))
    assert info["tom"]["episode"]["rounds"] == rounds


def test_a_tom_spec_names_when_truths_come_back():
    with pytest.raises(ToMContractError, match="reveal"):
        ToMSpec(targets={"x": spaces.Discrete(2)}, reveal="later")
    assert tom_spec_of(gym.make("tom/CommonToM-v2")).reveal == "episode"
    assert tom_spec_of(gym.make("tom/CommonToM-v2", feedback="step")).reveal == "step"


def test_an_explicit_qa_prediction_wins_over_the_action():
    env = ToMRecorder(gym.make("tom/CommonToM-v2", feedback="step"))
    env.reset(seed=0)
    right = env.unwrapped.current_answer
    env.record_prediction(right)
    env.step(1 - right)
    assert env.last_record["prediction"] == right and env.last_record["correct"] is True


# ---------------------------------------------------------------------- several targets
def test_parallel_matrix_seats_predict_each_other():
    env = tom_envs.make("tom/IPD-Parallel-v0", horizon=3)
    col = ToMScorer(env)  # player_1 predicts player_0's action
    env.reset(seed=0)
    col.start()
    for a, guess in ((0, 0), (1, 0), (1, 1)):
        col.record_prediction({"player_0": guess})
        env.step({"player_0": a, "player_1": 0})
        rec = col.score()
        assert rec["player_0"] == a and rec["prediction"] == {"player_0": guess, "player_1": None}
    ep = col.summary()
    assert ep["tom_accuracy_by_target"] == {"player_0": pytest.approx(200 / 3), "player_1": None}
    assert ep["outcome"] == {"return_player_0": 8.0 + 10.0 + 10.0, "return_player_1": 8.0}
    with pytest.raises(InvalidAction, match="several targets"):
        col.record_prediction(1)
    with pytest.raises(InvalidAction, match="unknown prediction targets"):
        col.record_prediction({"player_2": 0})
    with pytest.raises(InvalidAction):
        col.record_prediction({"player_0": 2})


def test_scorer_refuses_an_env_without_the_contract():
    with pytest.raises(ToMContractError):
        ToMScorer(gym.make("CartPole-v1"))


# ---------------------------------------------------------------------- AEC predictor seats
@pytest.mark.parametrize("env_id", [i for i in REGISTRY if REGISTRY[i].kind == "aec"])
def test_aec_recorder_scores_the_predictor_seat(env_id):
    env = AECToMRecorder(tom_envs.make_aec(env_id, **REGISTRY[env_id].example_kwargs))
    spec = env.tom_spec
    env.reset(seed=3)
    assert env.records == [] and env.last_record is None
    for agent in env.possible_agents:  # seeded actions: an unseeded draw could end the episode before any prediction
        env.action_space(agent).seed(3)
    name, space = next(iter(spec.targets.items()))
    space.seed(3)
    for agent in env.agent_iter(max_iter=300):
        _, _, term, trunc, info = env.last()
        assert "tom" not in info  # the scorer is out of band: no seat reads the recorder's records
        if agent == spec.predictor:
            env.record_prediction({name: space.sample()})
        env.step(None if term or trunc else env.action_space(agent).sample())
    summary = env.episode_summary()
    assert summary["tom_steps"] >= 1 and env.last_record == env.records[-1]
    assert summary["rounds"] == len(env.records) and set(summary["outcome"]) == set(spec.outcome)
    assert 0.0 <= summary["tom_accuracy"] <= 100.0
    env.reset(seed=4)
    assert env.records == [] and env.episode_summary()["tom_steps"] == 0


def test_the_recorder_scores_the_scored_questions_only():
    """Common-ToM's unscored fillers resolve no truth on the scorer's channel: the recorder's ToM % is over
    exactly the release's questions (``tom_outcome()``'s, Table 3's), whatever is answered to the fillers."""
    env = ToMRecorder(gym.make("tom/CommonToM-v2", split="all"))
    base = env.unwrapped
    for episode in range(len(base.episodes)):
        env.reset(seed=episode, options={"episode": episode})
        done, k = False, 0
        while not done:
            _, _, done, _, info = env.step(base.current_answer if k % 3 else 1 - base.current_answer)
            k += 1
        ep = info["tom"]["episode"]
        scored = [a for a in info["answers"] if a["scored"]]
        assert len(scored) < k and ep["tom_steps"] == ep["outcome"]["answered"] == len(scored)
        assert ep["tom_accuracy"] == pytest.approx(ep["outcome"]["accuracy"])
        assert sum(r["correct"] is not None for r in info["tom"]["steps"]) == len(scored)


def test_an_env_names_its_scorer_in_its_spec():
    """The recorder builds the scorer the spec names (the matrix games: seed 004's metrics), not one it
    guesses from the env's attributes; a malformed name is a named error."""
    from wrappers.matrix.scorer import MatrixToMScorer

    assert tom_spec_of(gym.make("tom/IPD-v0")).scorer == "wrappers.matrix.scorer:MatrixToMScorer"
    assert type(ToMScorer.for_env(gym.make("tom/IPD-v0"))) is MatrixToMScorer
    assert type(ToMScorer.for_env(gym.make("tom/PersuasiveToM-v1"))) is ToMScorer
    with pytest.raises(ToMContractError, match="module:Class"):
        ToMSpec(targets={"x": spaces.Discrete(2)}, scorer="MatrixToMScorer")
