"""004's prompting strategies as LLM policies: prompts, parsing, resampling, fallbacks, seeding and
lockstep batching, end to end on the real tiny vLLM engine and the real vLLM server."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import tom_envs  # noqa: F401  (registers the ids)
from benchmarks.matrix.benchmark import run_episode
from policies.llm import OpenAIBackend
from policies.matrix.llm.policy import LLMMatrixPolicy, make_llm_policy
from policies.matrix.llm.strategies import (
    STRATEGIES,
    GameText,
    OracleActionUnavailable,
    ResampleLimitReached,
    Slot,
    UnknownStrategy,
    build_strategy,
    extract_section,
    parse_answer,
)
from tom_envs.matrix.games import get_game
from wrappers import ToMRecorder

FAST = {"max_resamples": 1, "fallback": "random", "max_tokens": 6}  # the random model never answers well
GAME_OF = {name: ("RPS", "IBS", "IPD")[i % 3] for i, name in enumerate(STRATEGIES)}


def make_env(game: str = "RPS", horizon: int = 3, partners: str = "single_action") -> ToMRecorder:
    return ToMRecorder(gym.make(f"tom/{game}-v0", horizon=horizon, partners=partners, expose_partner_action=True))


def slot_with(history: list[tuple[int, int]], info: dict | None = None) -> Slot:
    slot = Slot(rng=np.random.default_rng(0), history=list(history), info=info or {})
    slot.open_round("test")
    return slot


def run_lockstep(policy: LLMMatrixPolicy, envs: list[ToMRecorder], seeds: list[int]) -> list[dict]:
    """The lockstep loop of the evaluation runner: every stage is one batched call."""
    policy.reset_batch(seeds)
    obs, infos = map(list, zip(*(env.reset(seed=s) for env, s in zip(envs, seeds))))
    logs = []
    while True:
        for env, p in zip(envs, policy.predict_batch(obs, infos)):
            env.record_prediction(p)
        actions = policy.act_batch(obs, infos)
        steps = [env.step(a) for env, a in zip(envs, actions)]
        obs, rewards, terms, truncs, infos = map(list, zip(*steps))
        policy.observe_batch(obs, rewards, terms, truncs, infos)
        logs.append(policy.last_step_log())  # the round's log, with any post-round step
        if all(terms):
            return logs


@pytest.fixture(scope="module")
def server_backend(openai_server: str, tiny_model_dir):
    backend = OpenAIBackend(openai_server, "tiny", tokenizer=str(tiny_model_dir), timeout=60.0)
    yield backend
    backend.close()


# --------------------------------------------------------------------------------------------- prompts and parsing


def test_answer_parsing_takes_the_last_answer_line_and_never_defaults():
    labels = ["J", "F", "B"]
    assert parse_answer("I think so.\nAnswer: F", labels) == 1
    assert parse_answer("Answer: J ... no wait. Answer: **b**", labels) == 2
    assert parse_answer("The answer is J.", labels) == 0
    assert parse_answer("F", labels) is None  # no answer line
    assert parse_answer("Answer: Rock", labels) is None  # not a label
    assert parse_answer("Answer: " + "J" * 21, ["J" * 21, "F" * 21]) == 0  # the repeated label set


def test_plans_and_insights_sections_are_extracted():
    reply = "Plan: keep playing F\nInsights: they always play J\nAnswer: F"
    assert extract_section(reply, "plan") == "keep playing F"
    assert extract_section(reply, "insights") == "they always play J"
    assert extract_section("nothing", "plan") == ""


@pytest.mark.parametrize(("game", "words"), [("RPS", "a score of +1"), ("IBS", "10 points"), ("IPD", "8 points")])
def test_prompts_state_rules_payoffs_round_history_and_labels(game, words):
    text = GameText(get_game(game), 100, "neutral")
    slot = slot_with([(0, 1)] * 4)
    content = build_strategy("qa").content(text, slot, "act")
    assert words in content and "round 5 of 100" in content and "Round 4: you chose J" in content
    assert "which action do you choose in round 5?" in content.lower()
    assert "one of: " + ", ".join(text.labels) in content


def test_label_sets_change_the_words_in_the_prompt():
    text = GameText(get_game("IPD"), 10, "nonsense")
    content = build_strategy("cot").content(text, slot_with([(1, 0)]), "act")
    assert "Pasta" in content and "Rice" in content and "Cooperate" not in content


def test_three_shot_examples_are_customised_to_each_game():
    texts = {
        g: build_strategy("cot3").content(GameText(get_game(g), 100, "neutral"), slot_with([]), "act")
        for g in ("RPS", "IBS", "IPD")
    }
    assert "+1" in texts["RPS"].split("Now your turn")[0]
    assert "7 points" in texts["IBS"].split("Now your turn")[0]
    assert "5 points" in texts["IPD"].split("Now your turn")[0]
    assert all(t.count("Example ") == 3 for t in texts.values())


def test_oracle_variants_drop_history_or_payoffs_and_state_the_partner_action():
    text = GameText(get_game("IBS"), 10, "neutral")
    slot = slot_with([(0, 0)], {"partner_next_action": 1})
    full = build_strategy("oracle_max").content(text, slot, "act")
    assert "will choose F in this round" in full and "highest reward" in full and "History" in full
    assert "History" not in build_strategy("oracle_max_no_history").content(text, slot, "act")
    no_pay = build_strategy("oracle_max_no_payoffs").content(text, slot, "act")
    assert "points" not in no_pay and "History" in no_pay
    assert "highest reward" not in build_strategy("oracle").content(text, slot, "act")


def test_oracle_without_exposed_partner_action_raises_a_named_error():
    policy = make_llm_policy("oracle", backend=None, game="RPS", horizon=3)  # fails before any backend call
    policy.reset(0)
    with pytest.raises(OracleActionUnavailable, match="expose_partner_action=True"):
        policy.act(9, {})


def test_unknown_strategy_and_bad_arguments_raise_named_errors():
    with pytest.raises(UnknownStrategy, match="choose one of"):
        make_llm_policy("telepathy", None, "RPS")
    with pytest.raises(UnknownStrategy, match="1 to 3"):
        build_strategy("reflexion", memory=5)
    with pytest.raises(ValueError, match="fallback"):
        make_llm_policy("qa", None, "RPS", fallback="guess")


# --------------------------------------------------------------------------------------------- real engines


@pytest.mark.slow
@pytest.mark.parametrize("which", ["vllm_backend", "server_backend"])
@pytest.mark.parametrize("strategy", [s for s in STRATEGIES if s not in ("reflexion1", "reflexion2", "reflexion3")])
def test_every_strategy_plays_a_short_episode_end_to_end(strategy, which, request):
    backend = request.getfixturevalue(which)
    game = GAME_OF[strategy]
    policy = make_llm_policy(strategy, backend, game, horizon=3, **FAST)
    episode = run_episode(make_env(game), policy, seed=1)
    assert episode["rounds"] == 3
    assert episode["tom_steps"] == (3 if policy.makes_predictions else 0)
    log = policy.last_step_log()[0]
    assert log["round"] == 3 and log["prompts"] and log["action"] is not None
    assert all(n == 1 for n in log["decisions_per_call"])
    stats = policy.episode_stats()[0]
    assert stats["rounds"] == 3 and stats["backend_calls"] >= 3


@pytest.mark.slow
def test_lm_scores_agree_between_engine_and_server(vllm_backend, server_backend):
    logs = {}
    for name, backend in (("vllm", vllm_backend), ("server", server_backend)):
        policy = make_llm_policy("lm", backend, "RPS", horizon=3)
        env = make_env("RPS")
        obs, info = env.reset(seed=3)
        policy.reset(3)
        policy.predict(obs, info)
        logs[name] = policy.last_step_log()[0]
    for a, b in zip(logs["vllm"]["stages"], logs["server"]["stages"]):
        assert a["prompt"] == b["prompt"]
        np.testing.assert_allclose(a["logprobs"], b["logprobs"], atol=1e-3)
    assert logs["vllm"]["action"] == logs["server"]["action"] or logs["vllm"]["action"] is None


@pytest.mark.slow
def test_lm_predict_is_agent_first_and_act_reuses_the_decided_action(vllm_backend):
    policy = make_llm_policy("lm", vllm_backend, "IBS", horizon=3)
    policy.reset(0)
    env = make_env("IBS")
    obs, info = env.reset(seed=0)
    prediction = policy.predict(obs, info)
    assert prediction.shape == (2,) and np.isclose(prediction.sum(), 1.0)
    action = policy.act(obs, info)
    log = policy.last_step_log()[0]
    assert [s["stage"] for s in log["stages"]] == ["act", "predict"]  # act was not scored twice
    assert f"I take {policy.text.labels[action]} and the other player takes" in log["stages"][1]["prompt"]


@pytest.mark.slow
def test_failed_parses_are_counted_and_random_fallback_is_flagged(vllm_backend):
    policy = make_llm_policy("qa", vllm_backend, "RPS", horizon=3, max_resamples=2, fallback="random", max_tokens=4)
    env = make_env("RPS")
    obs, info = env.reset(seed=0)
    policy.reset(0)
    policy.act(obs, info)
    log = policy.last_step_log()[0]
    attempts = log["stages"][0]["attempts"]
    failures = sum(a["parsed"] is None for a in attempts)
    assert log["parse_failures"] == failures == policy.episode_stats()[0]["parse_failures"]
    assert len(log["replies"]) == len(attempts) and len({a["seed"] for a in attempts}) == len(attempts)
    if log["fallback"]:  # the random model found no valid answer in 3 tries
        assert failures == 3 and log["stages"][0]["fallback_action"] == log["action"]
        assert policy.episode_stats()[0]["fallbacks"] == 1


@pytest.mark.slow
def test_raise_fallback_raises_the_named_error(vllm_backend):
    policy = make_llm_policy("cot", vllm_backend, "IPD", horizon=3, max_resamples=0, fallback="raise", max_tokens=3)
    policy.reset(0)
    obs, info = make_env("IPD").reset(seed=0)
    with pytest.raises(ResampleLimitReached, match="fallback='random'"):
        policy.act(obs, info)


@pytest.mark.slow
@pytest.mark.parametrize("strategy", ["qa", "reflexion"])
def test_same_seed_repeats_the_run_exactly_and_another_seed_does_not(strategy, vllm_backend):
    def run(seed: int) -> list:
        policy = make_llm_policy(strategy, vllm_backend, "RPS", horizon=3, seed=seed, **FAST)
        logs = run_lockstep(policy, [make_env("RPS")], [5])
        return [(lg[0]["replies"], lg[0]["action"]) for lg in logs]

    assert run(0) == run(0)
    assert run(0) != run(1)


@pytest.mark.slow
def test_lockstep_batch_equals_sequential_episodes_for_lm(vllm_backend):
    seeds = [0, 1, 2, 3]
    batched = make_llm_policy("lm", vllm_backend, "RPS", horizon=3)
    logs = run_lockstep(batched, [make_env("RPS") for _ in seeds], seeds)
    assert all(lg[i]["decisions_per_call"] == [4, 4] for lg in logs for i in range(4))  # act, then predict
    for i, seed in enumerate(seeds):
        single = make_llm_policy("lm", vllm_backend, "RPS", horizon=3)
        seq = run_lockstep(single, [make_env("RPS")], [seed])
        for t in range(3):
            assert seq[t][0]["action"] == logs[t][i]["action"]
            np.testing.assert_allclose(seq[t][0]["prediction"], logs[t][i]["prediction"], atol=1e-4)


@pytest.mark.slow
def test_social_makes_one_call_for_all_predictions_then_one_for_all_actions(vllm_backend):
    policy = make_llm_policy(
        "social_lm", vllm_backend, "IPD", horizon=2, max_resamples=0, fallback="random", max_tokens=4
    )
    logs = run_lockstep(policy, [make_env("IPD", horizon=2) for _ in range(3)], [0, 1, 2])
    for log in logs[0]:
        assert [s["stage"] for s in log["stages"]] == ["predict", "act"]
        assert log["decisions_per_call"] == [3, 3]
        predicted = policy.text.partner_labels[int(np.argmax(log["prediction"]))]
        assert f"will choose {predicted} in this round" in log["prompts"][1][0]["content"]


@pytest.mark.slow
def test_reflexion_reflects_after_each_round_and_keeps_its_memory_size(vllm_backend):
    policy = make_llm_policy("reflexion", vllm_backend, "IBS", horizon=3, memory=2, **FAST)
    logs = run_lockstep(policy, [make_env("IBS"), make_env("IBS")], [0, 1])
    assert [s["stage"] for s in logs[0][0]["stages"]][-1] == "reflect"  # round 1's reflection
    assert "reflect" not in [s["stage"] for s in logs[-1][0]["stages"]]  # none after the last round
    assert len(policy._slots[0].memory["reflections"]) == 2
    assert "Your notes from earlier rounds" in logs[-1][0]["prompts"][-1][0]["content"]
