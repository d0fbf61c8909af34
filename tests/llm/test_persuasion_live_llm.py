"""Live persuasion v1 with language models: the LLM persuader and the LLM reader on the scripted
loopback server (real OpenAIBackend and HTTP stack) and on the real tiny vLLM engine."""

from __future__ import annotations

import argparse
import json

import numpy as np
import pytest

from benchmarks.persuasion import benchmark as bench
from benchmarks.persuasion.live import play_episode
from policies.persuasion.llm import LLMPersuader, LLMReader, parse_persuader_reply, parse_reading
from tom_envs.persuasion.mind import NOTHING
from tom_envs.persuasion.mind_env import PersuasionMindEnv
from wrappers import TextObservation

from .scripted_server import ScriptedServer, scripted_backend


@pytest.fixture(autouse=True)
def _results_in_tmp(tmp_path, monkeypatch):
    """The live command stores its episodes under --out (default results/ in the working directory): run each
    test in its own temporary folder, so nothing lands in the checkout and no test reads another's episodes."""
    monkeypatch.chdir(tmp_path)


ARGUE = (
    "Desire: no\nBelief: trusting\nIntention: doubt\nLine: Experts recommend it, and the research evidence is solid."
)
BLAH = "Desire: considering\nBelief: wary\nIntention: cost\nLine: blah blah irrelevant text"


def _reader_rule(content: str) -> str:
    line = content.split("Line:")[-1].lower()
    return "authority" if "expert" in line else "none"


def _rule(reply: str):
    def answer(content: str, seed) -> str:
        return _reader_rule(content) if content.startswith("Which persuasion principle") else reply

    return answer


def _cli(capsys, *argv) -> list[dict]:
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    assert bench.run(parser.parse_args(["--format", "json", *argv])) == 0
    return json.loads(capsys.readouterr().out)


def test_replies_are_parsed_into_a_line_and_predictions():
    assert parse_persuader_reply(ARGUE) == (
        "Experts recommend it, and the research evidence is solid.",
        {"desire": 0, "belief": 0, "intention": 3},
    )
    assert parse_persuader_reply("Come on, it'll be fun!") == ("Come on, it'll be fun!", {})
    assert parse_reading("Authority.") == 3 and parse_reading("none of them") == NOTHING
    for bad in ("", "Line:   "):
        with pytest.raises(Exception, match="line"):
            parse_persuader_reply(bad)


def test_the_llm_persuader_runs_on_the_loopback_server_and_its_words_are_read(capsys):
    server = ScriptedServer(_rule(ARGUE), garbage=2, bad_reply="")
    try:
        rows = _cli(
            capsys,
            "--env",
            "live",
            "--live-env",
            "tom/Persuasion-v1",
            "--policy",
            "llm,bayes",
            "--episodes",
            "6",
            "--families",
            "health",
            "--backend",
            "openai",
            "--base-url",
            server.url,
            "--model",
            "scripted",
            "--max-resamples",
            "3",
        )
    finally:
        server.close()
    llm = rows[0]
    assert llm["policy"] == "llm" and llm["model"] == "scripted" and llm["episodes"] == 6
    assert llm["llm_stats"]["parse_failures"] == 2 and llm["llm_stats"]["fallbacks"] == 0
    assert llm["intention_accuracy"] is not None and llm["by_family"]["health"]["bayes"] > 0.7
    assert llm["fair_regret"] > 0  # always authority: not the Bayes-optimal plan


def test_max_tokens_caps_the_persuaders_lines_and_keys_the_run_only_when_set(capsys, tmp_path):
    server = ScriptedServer(_rule(ARGUE))
    base = [
        "--env",
        "live",
        "--live-env",
        "tom/Persuasion-v1",
        "--policy",
        "llm",
        "--episodes",
        "2",
        "--families",
        "health",
        "--backend",
        "openai",
        "--base-url",
        server.url,
        "--model",
        "scripted",
    ]
    try:
        _cli(capsys, *base, "--max-tokens", "24", "--out", str(tmp_path / "a"))
        capped = list(server.requests)
        _cli(capsys, *base, "--out", str(tmp_path / "b"))
    finally:
        server.close()
    assert capped and {r.get("max_tokens") for r in capped} == {24}
    assert {r.get("max_tokens") for r in server.requests[len(capped) :]} == {160}  # the persuader's own default
    names = [sorted(p.name for p in (tmp_path / d).rglob("*.jsonl")) for d in "ab"]
    assert names[0] and names[0] != names[1]  # a capped run is its own cell


def test_an_llm_reader_with_persuaders_that_never_speak_is_a_named_error(capsys):
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    args = parser.parse_args(
        [
            "--format",
            "json",
            "--env",
            "live",
            "--policy",
            "bayes,bayes-plain",
            "--reader",
            "llm",
            "--backend",
            "openai",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--model",
            "x",
        ]
    )
    with pytest.raises(Exception, match="bayes act by principle index.*bayes-plain"):
        bench.run(args)


def test_a_model_that_says_nothing_useful_scores_nothing():
    with scripted_backend(_rule(BLAH)) as (server, backend):
        env = TextObservation(PersuasionMindEnv(families="charity"))
        eps = [play_episode(env, LLMPersuader(backend), s) for s in range(8)]
    assert all(not e["success"] and e["heard"] == ["nothing"] * 4 for e in eps)
    assert np.mean([e["regret"] for e in eps]) > 0.5


def test_the_llm_reader_decides_what_the_persuadee_hears():
    with scripted_backend(lambda content, seed: _reader_rule(content)) as (server, backend):
        reader = LLMReader(backend)
        env = PersuasionMindEnv(reader=reader)
        env.reset(seed=0)
        _, _, _, _, info = env.step({"utterance": "An expert told me so."})
        assert info["heard"] == "authority"
        _, _, _, _, info = env.step({"utterance": "Experts? No: everyone is doing it."})  # the model says authority
        assert info["heard"] == "authority" and reader.stats["decisions"] == 2
        _, _, _, _, info = env.step({"utterance": "Lovely weather."})
        assert info["heard"] == "nothing"


@pytest.mark.slow
def test_the_llm_persuader_runs_on_the_tiny_vllm_engine(vllm_backend):
    """The tiny random model writes noise: the line is whatever it says (mostly heard as nothing);
    the episode runs end to end and the caller's counters add up."""
    env = TextObservation(PersuasionMindEnv(families="work", horizon=2))
    policy = LLMPersuader(vllm_backend, max_tokens=24, fallback="random", max_resamples=1)
    eps = [play_episode(env, policy, s) for s in range(2)]
    assert all(e["turns"] >= 1 for e in eps) and policy.stats["decisions"] >= 2
    assert policy.stats["decisions"] == sum(e["turns"] for e in eps)
    reader = LLMReader(vllm_backend, fallback="random", max_resamples=1)
    assert 0 <= reader.read("Experts recommend it.", "join the club") <= NOTHING


def _two_llm_rule(content: str, seed) -> str:
    if content.startswith("Which persuasion principle"):
        return _reader_rule(content)
    if "Reply in character" in content:  # the persuadee seat: voices the concern its prompt names
        from tom_envs.persuasion.mind import CONCERN_TEXT

        concern = next((c for c, text in CONCERN_TEXT.items() if text in content), "none")
        return f"Tone: flat\nConcern: {concern}\nNext: authority\nSay: Hmm, I'm not sure about that."
    return ARGUE


def test_two_language_models_take_both_seats_of_the_two_seat_env():
    from benchmarks.persuasion.live import play_two_seat
    from policies.persuasion.llm import LLMPersuadee, parse_persuadee_reply
    from tom_envs.persuasion.mind_two_seat import AGREE, PersuasionMindAECEnv

    assert parse_persuadee_reply("Tone: agree\nSay: Fine.") == (AGREE, "Fine.", None)
    with pytest.raises(Exception, match="tone"):
        parse_persuadee_reply("Whatever you say.")
    with scripted_backend(_two_llm_rule) as (server, backend):
        env = PersuasionMindAECEnv(families="work")
        eps = [play_two_seat(env, LLMPersuader(backend), LLMPersuadee(backend), s) for s in range(4)]
    assert all(e["rounds"] == 4 and not e["success"] for e in eps)  # a persuadee that never warms or agrees
    assert all(e["persuadee_strategy_accuracy"] is not None for e in eps)  # it predicted "authority" each time
    assert all(e["intention_accuracy"] is not None for e in eps)
    fidelity = [e["fidelity"] for e in eps]
    assert all(0.0 <= f <= 1.0 for f in fidelity)  # flat when the line landed is unfaithful: scored, not hidden
