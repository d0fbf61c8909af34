"""The one batched caller: one backend call per stage and re-ask round, the re-ask bound, counters,
flagged random fallbacks and named errors -- through the real OpenAI backend and loopback servers."""

from __future__ import annotations

import json

import numpy as np
import pytest

from policies.llm import OpenAIBackend
from policies.llm.caller import COUNTERS, Ask, Caller, ScoreAsk, check_caller_args
from policies.llm.errors import InvalidPolicyConfig, ReplyError, ResampleLimitReached
from policies.llm.slots import Slot

from .scripted_server import scripted_backend


def vote(text: str) -> int:
    """A parser: the reply must be a JSON object with an integer "vote"."""
    try:
        value = json.loads(text)["vote"]
    except (ValueError, KeyError, TypeError):
        raise ReplyError("the reply needs a JSON object with 'vote'") from None
    return int(value)


def vote_ask(prompt: str, owner=None) -> Ask:
    return Ask(prompt, vote, lambda rng: int(rng.integers(100, 200)), owner)


def answer_when_asked_nicely(content: str, seed: int | None) -> str:
    """Well-formed for prompts containing "please", garbage otherwise."""
    return json.dumps({"vote": len(content)}) if "please" in content else "no idea"


@pytest.fixture
def served():
    with scripted_backend(answer_when_asked_nicely) as pair:
        yield pair


def test_every_stage_is_one_call_and_only_unparsed_asks_are_reasked(served):
    server, backend = served
    server.garbage = 1  # exactly one reply of the first round is garbage
    caller = Caller(backend, max_resamples=2, max_tokens=8, seed=0)
    answers = caller.ask("vote", [vote_ask("one please"), vote_ask("two please")])
    assert caller.calls == [("vote", 2), ("vote", 1)]
    assert [a.value for a in answers] == [len("one please"), len("two please")]
    assert sorted(a.failures for a in answers) == [0, 1] and not any(a.fallback for a in answers)
    assert caller.stats == {"backend_calls": 2, "requests": 3, "decisions": 2, "parse_failures": 1, "fallbacks": 0}
    assert backend.stats.calls == 2 and len(server.requests) == 3


def test_reasks_stop_at_the_bound_and_random_fallbacks_are_flagged_and_counted(served):
    server, backend = served
    caller = Caller(backend, max_resamples=2, fallback="random", max_tokens=8, seed=0)
    answers = caller.ask("vote", [vote_ask("hello"), vote_ask("hi")])
    assert caller.calls == [("vote", 2)] * 3  # 1 + max_resamples rounds, each one call for both asks
    assert all(a.fallback and a.reply is None and a.failures == 3 and 100 <= a.value < 200 for a in answers)
    assert caller.stats == {"backend_calls": 3, "requests": 6, "decisions": 2, "parse_failures": 6, "fallbacks": 2}
    fallbacks = [e for e in caller.log if e.get("fallback")]
    assert [e["value"] for e in fallbacks] == [a.value for a in answers]
    assert sum("error" in e for e in caller.log) == 6


def test_raise_fallback_names_the_stage_the_problem_and_the_fix(served):
    _, backend = served
    caller = Caller(backend, max_resamples=1, fallback="raise", max_tokens=8)
    with pytest.raises(ResampleLimitReached, match="stage 'vote'") as info:
        caller.ask("vote", [vote_ask("hello")])
    message = str(info.value)
    assert "none of 2 replies" in message and "'vote'" in message and "no idea" in message
    assert "max_resamples" in message and "fallback='random'" in message
    assert caller.stats["parse_failures"] == 2 and caller.stats["fallbacks"] == 0


def test_a_reask_note_says_what_was_wrong(served):
    server, backend = served
    caller = Caller(backend, max_resamples=1, fallback="random", max_tokens=8, reask_note="\n\nUnusable: {error}.")
    caller.ask("vote", [vote_ask("hello")])
    first, second = (r["messages"][-1]["content"] for r in server.requests)
    assert first == "hello" and second == "hello\n\nUnusable: the reply needs a JSON object with 'vote'."


def test_slots_own_their_decisions_counters_and_round_logs(served):
    _, backend = served
    caller = Caller(backend, max_resamples=1, fallback="random", max_tokens=8)
    slots = [Slot(rng=np.random.default_rng(i)) for i in range(2)]
    for slot in slots:
        slot.open_round("test", 1)
    answers = caller.ask("vote", [vote_ask("please", slots[0]), vote_ask("no", slots[1])])
    assert not answers[0].fallback and answers[1].fallback
    assert caller.calls == [("vote", 2), ("vote", 1)] and caller.stats == dict.fromkeys(COUNTERS, 0)
    ok, bad = (s.log for s in slots)
    assert slots[0].stats == {"backend_calls": 1, "requests": 1, "decisions": 1, "parse_failures": 0, "fallbacks": 0}
    assert slots[1].stats == {"backend_calls": 2, "requests": 2, "decisions": 1, "parse_failures": 2, "fallbacks": 1}
    assert ok["decisions_per_call"] == [2] and bad["decisions_per_call"] == [2, 1]
    assert ok["stages"][0]["attempts"][0]["parsed"] == len("please") and not ok["fallback"]
    assert bad["fallback"] and bad["stages"][0]["fallback_action"] == answers[1].value
    assert [a["parsed"] for a in bad["stages"][0]["attempts"]] == [None, None] and bad["parse_failures"] == 2


def test_same_seed_same_sampling_seeds(served):
    server, backend = served

    def seeds(seed: int) -> list[int]:
        server.requests.clear()
        Caller(backend, max_resamples=0, fallback="random", max_tokens=8, seed=seed).ask("vote", [vote_ask("please")])
        return [r["seed"] for r in server.requests]

    assert seeds(3) == seeds(3) != seeds(4)


def test_free_text_is_taken_as_is_without_reasks(served):
    server, backend = served
    caller = Caller(backend, max_resamples=5, max_tokens=8)
    assert caller.text("note", [Ask("hello"), Ask("hi")]) == ["no idea", "no idea"]
    assert caller.calls == [("note", 2)] and caller.stats["parse_failures"] == 0


def test_scoring_is_one_call_and_returns_probabilities(fake_openai):
    backend = OpenAIBackend(fake_openai.url, "fake", max_retries=0, timeout=10)
    try:
        caller = Caller(backend)
        # the fake server gives every character log-probability -1: " A" scores -2, " BB" -3
        (probs,) = caller.score("answer", [ScoreAsk("Answer:", [" A", " BB"])])
    finally:
        backend.close()
    np.testing.assert_allclose(probs, [np.e / (np.e + 1), 1 / (np.e + 1)])
    assert caller.calls == [("answer", 1)] and caller.stats["decisions"] == 1
    assert caller.log[0]["kind"] == "score" and caller.log[0]["logprobs"] == [-2.0, -3.0]


def test_argument_checks_name_the_argument_and_the_retired_name_is_a_named_error():
    with pytest.raises(InvalidPolicyConfig, match="fallback"):
        check_caller_args(max_resamples=1, fallback="default", temperature=0.7, max_tokens=None)
    with pytest.raises(InvalidPolicyConfig, match="max_resamples"):
        Caller(None, max_resamples=-1)  # type: ignore[arg-type]
    with pytest.raises(InvalidPolicyConfig, match="temperature"):
        Caller(None, temperature=-0.5)  # type: ignore[arg-type]
    with pytest.raises(InvalidPolicyConfig, match="max_tokens"):
        Caller(None, max_tokens=0)  # type: ignore[arg-type]
    with pytest.raises(InvalidPolicyConfig, match="max_reasks is the retired name of max_resamples"):
        Caller(None, max_reasks=4)  # type: ignore[arg-type]
    assert Caller(None, max_resamples=4).max_resamples == 4


def test_an_uncapped_caller_that_sends_no_seed_sends_neither_to_a_server():
    """A protocol whose requests name no cap and no seed (the papers' own scripts) is sent as such;
    the default request keeps both (the cap bounds the reply, the seed repeats a run)."""
    from .scripted_server import ScriptedServer

    server = ScriptedServer(lambda content, seed: "Yes")
    backend = OpenAIBackend(server.url, "scripted")
    try:
        bare = Caller(backend, max_resamples=0, temperature=1.0, uncapped=True, send_seed=False, seed=3)
        assert bare.text("t", [Ask("Q")]) == ["Yes"]
        (body,) = server.requests
        assert "max_tokens" not in body and "max_completion_tokens" not in body and "seed" not in body
        Caller(backend, max_resamples=0, max_tokens=5, seed=3).text("t", [Ask("Q")])
        assert server.requests[-1]["max_tokens"] == 5 and "seed" in server.requests[-1]
    finally:
        backend.close()
        server.close()


@pytest.mark.parametrize("kwargs", [{"uncapped": True, "max_tokens": 4}, {"uncapped": 1}, {"send_seed": "no"}])
def test_contradictory_or_malformed_request_flags_are_named_errors(kwargs):
    with pytest.raises(InvalidPolicyConfig):
        Caller(object(), **kwargs)
