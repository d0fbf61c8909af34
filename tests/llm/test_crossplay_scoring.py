"""The LLM agents' choice by log-probability (``decode="score"``, policies/llm/decode.py): the persuasion persuader
and persuadee and the negotiation mediator score every valid label after the prompt the generating agents send,
through the real OpenAI backend and a loopback completion server (its toy model's log-probabilities), and take the
most likely; ``tom-envs crossplay --decode score`` seats them. No reply is generated, so none can miss the format."""

from __future__ import annotations

import json

import numpy as np
import pytest

from policies.llm import OpenAIBackend
from tests.llm.scripted_server import CompletionServer


@pytest.fixture(scope="module")
def tokenizer_dir(tmp_path_factory):
    from tests.llm.tiny_model import build_tokenizer

    folder = tmp_path_factory.mktemp("tiny-tokenizer")
    build_tokenizer(folder)
    return folder


@pytest.fixture
def server():
    server = CompletionServer()
    yield server
    server.close()


@pytest.fixture
def backend(server, tokenizer_dir):
    backend = OpenAIBackend(server.url, "toy", timeout=10.0, max_retries=0, tokenizer=str(tokenizer_dir))
    yield backend
    backend.close()


def scored(log: list[dict]) -> list[dict]:
    return [e for e in log if e.get("kind") == "score"]


def chosen(event: dict) -> str:
    """The continuation of a score event with the highest log-probability (the first of equals)."""
    return event["continuations"][int(np.argmax(event["logprobs"]))]


def value(label: str) -> str:
    """A JSON string's value from its label after the opening quote (closing quote left out or not:
    mediator_scored.string_labels)."""
    return json.loads('"' + label + ("" if label.endswith('"') else '"'))


def check_chain(events: list[dict], fields: list[str]) -> list[str]:
    """Each event scores one field's labels after the prompt and the argmax labels of the fields before it (the
    rendered chat prompt, then ``Field:``); returns each event's argmax label, stripped."""
    answer = ""
    out = []
    for event, field in zip(events, fields):
        assert event["prompt"].endswith(answer + f"{field}:")
        assert all(c.startswith(" ") for c in event["continuations"])
        out.append(chosen(event).strip())
        answer += f"{field}:{chosen(event)}\n"
    return out


def test_choose_takes_the_argmax_of_the_scores(backend):
    from policies.llm.caller import Caller
    from policies.llm.decode import Choice, choose

    caller = Caller(backend, max_tokens=4)
    labels = [" flat", " cold", " warm", " agree"]
    got = choose(caller, "tone", Choice("How do you reply?", "Tone:", labels))
    (event,) = scored(caller.log)
    raw = event["logprobs"]
    assert got.index == int(np.argmax(raw)) and got.label == labels[got.index]
    assert np.allclose(got.probs, np.exp(raw) / np.exp(raw).sum())
    assert len(set(raw)) > 1  # the toy model tells the labels apart: the argmax is a real choice
    assert event["prompt"].endswith("<|assistant|>\nTone:")  # the chat prompt as rendered, then the answer so far


def test_json_labels_leave_out_the_closing_quote_only_where_no_value_starts_another():
    from policies.negotiation.llm.mediator_scored import string_labels

    assert string_labels(["a", "b"]) == ["a", "b"]
    assert string_labels(["a", "ab"]) == ['a"', 'ab"']


def test_the_rendered_prompt_is_the_chat_prompt_the_model_reads(tokenizer_dir):
    """Scoring the rendered text reads the same tokens as the chat request: the template's BOS is not doubled."""
    from transformers import AutoTokenizer

    from policies.llm.caller import user
    from policies.llm.decode import rendered_prompt

    tokenizer = AutoTokenizer.from_pretrained(str(tokenizer_dir))
    text = rendered_prompt(tokenizer, "Which one?")
    chat = tokenizer.apply_chat_template(user("Which one?"), tokenize=True, add_generation_prompt=True)
    assert tokenizer.encode(text, add_special_tokens=True) == list(getattr(chat, "input_ids", chat))


def test_a_bad_decode_is_a_named_error(backend):
    from benchmarks.negotiation.parts import llm_mediator_factory
    from policies.llm.errors import InvalidPolicyConfig
    from policies.negotiation.llm.mediator import LLMMediator
    from policies.persuasion.llm import LLMPersuader
    from tom_envs.negotiation.scenario import resolve_scenario

    with pytest.raises(InvalidPolicyConfig, match="decode must be one of generate, score"):
        LLMPersuader(backend, decode="sample")
    with pytest.raises(InvalidPolicyConfig, match="decode must be one of"):
        LLMMediator(backend, resolve_scenario("hopkins_hmo"), decode="beam")
    with pytest.raises(InvalidPolicyConfig, match="llm-social-paper .* only generates"):
        llm_mediator_factory(backend, decode="score")("llm-social-paper", resolve_scenario("hopkins_hmo"))


def test_the_scoring_persuader_plays_an_episode_without_generating(backend, server):
    """The persuader scores field by field after the generating persuader's prompt; no chat request is sent,
    and its predictions are scored by the recorder."""
    import tom_envs
    from benchmarks.persuasion.live import play_two_seat
    from policies.persuasion.llm import LLMPersuader
    from policies.persuasion.scripted import SimulatedMindPersuadee
    from tom_envs.persuasion.principles import PRINCIPLES

    persuader = LLMPersuader(backend, decode="score")
    out = play_two_seat(
        tom_envs.make_aec("tom/Persuasion-TwoSeat-v1", horizon=2), persuader, SimulatedMindPersuadee(), 3
    )
    assert not [r for r in server.requests if r["path"].endswith("/chat/completions")]
    events = scored(persuader.caller.log)
    assert out["rounds"] >= 1 and len(events) == 4 * out["rounds"] and persuader.stats["fallbacks"] == 0
    first = check_chain(events[:4], ["Desire", "Belief", "Intention", "Line"])
    assert "Desire: no | considering" in events[0]["prompt"]  # the generating persuader's prompt
    assert first[-1] in PRINCIPLES
    assert out["desire_accuracy"] is not None


def test_the_scoring_persuadee_replies_by_argmax(backend, server):
    """The persuadee scores its tone, then its concern (unless it agrees), then its guess of the next principle,
    after the generating persuadee's prompt."""
    import tom_envs
    from benchmarks.persuasion.live import play_two_seat
    from policies.persuasion.llm import LLMPersuadee
    from policies.persuasion.scripted import MIND_PERSUADERS

    persuadee = LLMPersuadee(backend, decode="score")
    play_two_seat(tom_envs.make_aec("tom/Persuasion-TwoSeat-v1", horizon=2), MIND_PERSUADERS["bayes"](), persuadee, 3)
    assert not [r for r in server.requests if r["path"].endswith("/chat/completions")]
    mine = scored(persuadee.caller.log)
    assert mine and "Tone: flat | cold | warm | agree" in mine[0]["prompt"]
    fields = ["Tone", "Next"] if chosen(mine[0]) == " agree" else ["Tone", "Concern", "Next"]
    check_chain(mine[: len(fields)], fields)
    assert persuadee.stats["decisions"] == len(mine) and persuadee.stats["fallbacks"] == 0


def test_the_persuader_choice_is_the_argmax_it_acts_on(backend):
    import tom_envs
    from policies.persuasion.llm import LLMPersuader
    from tom_envs.persuasion.principles import PRINCIPLES
    from wrappers import TextObservation

    env = TextObservation(tom_envs.make("tom/Persuasion-v1"))
    obs, info = env.reset(seed=5)
    persuader = LLMPersuader(backend, decode="score")
    persuader.reset(5)
    guesses = persuader.predict(obs, info)
    action = persuader.act(obs, info)
    desire, belief, intention, line = check_chain(
        scored(persuader.caller.log), ["Desire", "Belief", "Intention", "Line"]
    )
    assert action == PRINCIPLES.index(line)
    assert guesses == {
        "desire": ["no", "considering"].index(desire),
        "belief": ["trusting", "wary"].index(belief),
        "intention": ["cost", "timing", "fit", "doubt", "effort"].index(intention),
    }


@pytest.mark.slow  # two decisions on negotiation prompts of thousands of toy tokens over loopback HTTP (~25 s)
def test_the_scoring_mediator_predicts_every_stance_and_moves_by_argmax(backend, server):
    """Two decisions of the social mediator on the text env: the 15 stance cells (each the JSON reply's start for
    its party and topic, then the option labels; the first cell alone, then the others in one call), then the
    decision field by field."""
    from benchmarks.runner_envs import make_env
    from policies.negotiation.llm.mediator import LLMMediator
    from tom_envs.negotiation.metrics import STRATEGIES
    from tom_envs.negotiation.scenario import resolve_scenario
    from wrappers import AECTextObservation

    scenario = resolve_scenario("hopkins_hmo")
    env = AECTextObservation(make_env("tom/Negotiation-v1", conflict_mode="general", turn_budget=20))
    mediator = LLMMediator(backend, scenario, variant="social", decode="score")
    env.reset(seed=0)
    mediator.reset(0)
    acted = 0
    for _agent in env.agent_iter(max_iter=200):
        obs, _reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        start = len(mediator.caller.log)
        prediction = mediator.predict(obs, info)["stances"]
        move = mediator.act(obs, info)
        events = scored(mediator.caller.log[start:])
        cells = [e for e in events if e["stage"] == "predict"]
        assert len(cells) == len(scenario.parties) * len(scenario.topics)
        for n, event in enumerate(cells):
            i, k = divmod(n, len(scenario.topics))
            party, topic = scenario.parties[i].name, scenario.topics[k].name
            assert event["prompt"].endswith(f'{{"predictions": {{"{party}": {{"{topic}": "')
            label = value(chosen(event))
            assert prediction[i, k] == [o.label for o in scenario.topics[k].options].index(label)
        decide = [e for e in events if e["stage"].startswith("decide")]
        intervene = chosen(decide[0]) == " true"
        assert move["intervene"] is intervene and len(decide) == (4 if intervene else 1)
        if intervene:
            strategy = value(chosen(decide[1]))
            assert move["strategy"] == strategy and strategy in STRATEGIES
            assert decide[2]["prompt"].endswith(f'{{"intervene": true, "strategy": "{strategy}", "topic": "')
            assert scenario.topics[move["topic"]].name == value(chosen(decide[2]))
        env.step(move)
        acted += 1
        if acted == 2:
            break
    assert acted == 2 and mediator.stats["fallbacks"] == 0
    assert not [r for r in server.requests if r["path"].endswith("/chat/completions")]


@pytest.mark.slow  # 49 pairings, 13 of them with a scoring LLM seat, twice (~35 s)
def test_crossplay_decode_score_seats_the_scoring_agents(server, tokenizer_dir, tmp_path, capsys):
    """``--decode score`` through the command: the LLM agents' identity says they score, they predict, no chat
    request is sent, and a rerun sends no request at all."""
    from benchmarks.__main__ import main

    llm = ["--backend", "openai", "--base-url", server.url, "--model", "toy", "--tokenizer", str(tokenizer_dir)]
    argv = ["crossplay", "--env", "tom/Persuasion-TwoSeat-v1", "--horizon", "1", "--episodes", "1"]
    argv += ["--learner-steps", "0", *llm, "--decode", "score", "--out", str(tmp_path), "--format", "json"]
    assert main(argv) == 0
    rows = json.loads(capsys.readouterr().out)
    asked = len(server.requests)
    assert asked and not [r for r in server.requests if r["path"].endswith("/chat/completions")]
    rated = {r["agent"]: r for r in rows["ratings"]}
    assert rated["llm_persuader"]["tom"] is not None and rated["llm_persuadee"]["seat"] == "persuadee_0"
    record = json.loads(next(tmp_path.glob("crossplay/*_llm_persuader_vs_persona_busy_*.jsonl")).read_text())
    assert record["cell"]["row"]["identity"]["decode"] == "score"
    assert main(argv) == 0 and len(server.requests) == asked  # resumed from the records
    capsys.readouterr()


def test_crossplay_refuses_a_decode_that_makes_no_sense(server, tokenizer_dir, tmp_path, capsys):
    from benchmarks.__main__ import main

    llm = ["--backend", "openai", "--base-url", server.url, "--model", "toy", "--tokenizer", str(tokenizer_dir)]
    base = ["crossplay", "--env", "tom/RPS-Parallel-v0", "--horizon", "1", "--episodes", "1", "--learner-steps", "0"]
    assert main([*base, *llm, "--decode", "sample", "--out", str(tmp_path)]) == 2
    assert "--decode takes generate or score, not 'sample'" in capsys.readouterr().err
    assert main([*base, *llm, "--decode", "score", "--strategy", "social_qa", "--out", str(tmp_path)]) == 2
    assert "give --strategy lm" in capsys.readouterr().err
    assert main([*base, "--decode", "score", "--out", str(tmp_path)]) == 2  # no LLM agent without --model
    assert "--decode" in capsys.readouterr().err
    assert not list(tmp_path.rglob("*.jsonl"))  # nothing played
