"""The generic QA answerer on the dialogue families' envs, with the real tiny vLLM engine."""

from __future__ import annotations

import gymnasium as gym
import pytest

import tom_envs  # noqa: F401  (registers the ids)
from policies.llm.qa import LLMQAAnswerer, QAObservationError, render_body
from policies.matrix.llm.strategies import InvalidPolicyConfig, ResampleLimitReached, parse_answer


def answer_episode(env: gym.Env, answerer: LLMQAAnswerer, seed: int, max_questions: int = 3) -> list[dict]:
    answerer.reset(seed)
    obs, info = env.reset(seed=seed)
    logs = []
    for _ in range(max_questions):
        action = answerer.act(obs, info)
        assert 0 <= action < obs["n_choices"]
        logs.append(answerer.last_step_log()[0])
        obs, reward, terminated, truncated, info = env.step(action)
        answerer.observe(obs, reward, terminated, truncated, info)
        if terminated or truncated:
            break
    return logs


def test_the_prompt_shows_dialogue_question_and_lettered_options():
    obs, _ = gym.make("tom/PersuasiveToM-v1").reset(seed=0)
    body, n = render_body(obs)
    assert n == obs["n_choices"] == 2
    assert obs["question"] in body and f"A. {obs['choices'][0]}" in body and f"B. {obs['choices'][1]}" in body
    assert obs["background"] in body and obs["context"] in body


def test_cot_answers_are_read_from_the_answer_is_line():
    assert parse_answer("Let's see. A knows it.\nThe answer is B.", ["A", "B"]) == 1
    assert parse_answer("The answer is C", ["A", "B"]) is None


def test_observations_without_a_question_and_bad_modes_raise_named_errors():
    with pytest.raises(QAObservationError, match="question"):
        render_body({"text": "hello"})
    with pytest.raises(InvalidPolicyConfig, match="mode"):
        LLMQAAnswerer(None, mode="guess")


@pytest.mark.slow
@pytest.mark.parametrize("env_id", ["tom/PersuasiveToM-v1", "tom/CommonToM-v2"])
def test_zero_shot_scoring_answers_questions(env_id, vllm_backend):
    logs = answer_episode(gym.make(env_id), LLMQAAnswerer(vllm_backend, mode="zero_shot"), seed=0)
    for log in logs:
        (stage,) = log["stages"]
        assert stage["kind"] == "score" and stage["prompt"].endswith("Answer:")
        n = len(stage["continuations"])
        assert stage["continuations"] == [" " + x for x in "ABCDEFGHIJ"[:n]]
        assert log["action"] == max(range(n), key=stage["probs"].__getitem__)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["zero_shot", "cot"])
def test_generated_answers_count_failures_and_flag_the_random_fallback(mode, vllm_backend):
    answerer = LLMQAAnswerer(vllm_backend, mode=mode, scoring=False, max_resamples=1, fallback="random", max_tokens=6)
    logs = answer_episode(gym.make("tom/CommonToM-v2"), answerer, seed=1, max_questions=2)
    for log in logs:
        attempts = log["stages"][0]["attempts"]
        assert log["parse_failures"] == sum(a["parsed"] is None for a in attempts)
        assert log["fallback"] == (log["parse_failures"] == 2)
        if mode == "cot":
            assert "Let's think step by step" in attempts[0]["messages"][0]["content"]


@pytest.mark.slow
def test_raise_fallback_raises_the_named_error(vllm_backend):
    answerer = LLMQAAnswerer(vllm_backend, mode="cot", max_resamples=0, fallback="raise", max_tokens=3)
    answerer.reset(0)
    obs, info = gym.make("tom/PersuasiveToM-v1").reset(seed=0)
    with pytest.raises(ResampleLimitReached, match="max_resamples"):
        answerer.act(obs, info)


@pytest.mark.slow
def test_batched_answers_use_one_call_and_match_single_answers(vllm_backend):
    envs = [gym.make("tom/PersuasiveToM-v1") for _ in range(3)]
    obs, infos = map(list, zip(*(env.reset(seed=s) for env, s in zip(envs, range(3)))))
    batched = LLMQAAnswerer(vllm_backend)
    batched.reset_batch([0, 1, 2])
    answers = batched.act_batch(obs, infos)
    assert all(log["decisions_per_call"] == [3] for log in batched.last_step_log())
    single = LLMQAAnswerer(vllm_backend)
    for i in range(3):
        single.reset(i)
        assert single.act(obs[i], infos[i]) == answers[i]
