"""OpenAIBackend's scoring paths and bad-reply handling against a real loopback completions server
(:class:`tests.llm.scripted_server.CompletionServer`, whose made-up model gives known log-probabilities)."""

from __future__ import annotations

import pytest

from policies.llm import OpenAIBackend, ScoreRequest, ScoringUnsupported
from policies.llm.base import ChatRequest
from policies.llm.errors import InvalidReply, InvalidRequest, RetryBudgetExhausted
from tests.llm.scripted_server import CompletionServer, toy_logprob

REQUESTS = [
    ScoreRequest("Answer:", [" Rock", " Scissors", " JJJJJJJJ"]),
    ScoreRequest("You chose Coop", ["erate", " Defect"]),  # a merged boundary
    ScoreRequest([{"role": "user", "content": "Your move?"}], [" Paper"]),
]
BAD_BODIES = {
    "garbage": ("application/json", "{not json at all"),
    "html": ("text/html", "<html><body><h1>502 Bad Gateway</h1></body></html>"),
    "wrong-shape": ("application/json", '{"object": "list", "data": [{"id": "tiny"}]}'),
    "no-choices": ("application/json", '{"id": "x", "object": "text_completion", "choices": []}'),
}


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


def backend_for(server: CompletionServer, tokenizer_dir=None, **kwargs) -> OpenAIBackend:
    options = {"timeout": 5.0, "backoff_base": 0.01, "backoff_max": 0.02, "max_retries": 3,
               "tokenizer": str(tokenizer_dir) if tokenizer_dir else None}  # fmt: skip
    return OpenAIBackend(server.url, "toy", **{**options, **kwargs})


def expected_scores(tokenizer, requests) -> list[list[float]]:
    """The toy model's log p(prompt + c) - log p(prompt), computed here from token ids."""
    out = []
    for r in requests:
        if r.is_chat:
            text = tokenizer.apply_chat_template(r.messages_or_prompt, tokenize=False, add_generation_prompt=True)
            encode = lambda t: tokenizer.encode(t, add_special_tokens=False)  # noqa: E731
        else:
            text, encode = r.messages_or_prompt, tokenizer.encode
        logp = lambda ids: sum(toy_logprob(ids[:k], ids[k]) for k in range(1, len(ids)))  # noqa: E731
        out.append([logp(encode(text + c)) - logp(encode(text)) for c in r.continuations])
    return out


def test_next_token_path_sends_one_small_request_per_trie_prefix(server, tokenizer_dir):
    with backend_for(server, tokenizer_dir) as backend:
        scores = backend.score(REQUESTS)
        assert backend.last_scoring_path == "next-token"
    from transformers import AutoTokenizer

    expected = expected_scores(AutoTokenizer.from_pretrained(tokenizer_dir), REQUESTS)
    for got, want in zip(scores, expected):
        assert got == pytest.approx(want, abs=1e-9)
    bodies = [r["body"] for r in server.requests]
    assert all(b["max_tokens"] == 1 and b["logprob_token_ids"] and not b.get("echo") for b in bodies)
    first = bodies[0]["prompt"]
    assert bodies[0]["logprob_token_ids"][:2] != [] and isinstance(first, list)
    assert sum(1 for b in bodies if b["prompt"] == first) == 1  # the prompt is asked once for all its labels


def test_next_token_answers_keyed_by_token_text_are_read_too(tokenizer_dir):
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tokenizer_dir)
    server = CompletionServer(decode=lambda i: tokenizer.decode([i]))
    server.token_id_keys = False  # a server that ignores return_tokens_as_token_ids
    try:
        with backend_for(server, tokenizer_dir, scoring_path="next-token") as backend:
            scores = backend.score(REQUESTS[:1])
    finally:
        server.close()
    assert scores[0] == pytest.approx(expected_scores(tokenizer, REQUESTS[:1])[0], abs=1e-9)


def test_old_path_by_name_gives_the_same_scores(server, tokenizer_dir):
    with (
        backend_for(server, tokenizer_dir, scoring_path="prompt-logprobs") as old,
        backend_for(server, tokenizer_dir) as new,
    ):
        for row_old, row_new in zip(old.score(REQUESTS), new.score(REQUESTS)):
            assert row_new == pytest.approx(row_old, abs=1e-9)
        assert (old.last_scoring_path, new.last_scoring_path) == ("prompt-logprobs", "next-token")
    assert any(r["body"].get("echo") for r in server.requests)


@pytest.mark.parametrize("mode", ["ignore", "refuse"])
def test_auto_falls_back_to_echo_once_when_the_server_lacks_next_token_logprobs(server, tokenizer_dir, mode):
    server.next_token = mode
    with backend_for(server, tokenizer_dir) as backend:
        first = backend.score(REQUESTS[:1])
        assert backend.last_scoring_path == "prompt-logprobs"
        n = len(server.requests)
        second = backend.score(REQUESTS[:1])
    assert first == second
    assert all(r["body"].get("echo") for r in server.requests[n:])  # the refusal is remembered
    with backend_for(server, tokenizer_dir, scoring_path="next-token") as strict:
        with pytest.raises(ScoringUnsupported, match="logprob_token_ids"):
            strict.score(REQUESTS[:1])


def test_a_server_with_neither_path_is_named(server, tokenizer_dir):
    server.next_token, server.echo = "refuse", False
    with backend_for(server, tokenizer_dir) as backend:
        with pytest.raises(ScoringUnsupported, match="supports neither scoring path") as info:
            backend.score(REQUESTS[:1])
    assert "next-token" in str(info.value) and "prompt-logprobs" in str(info.value)
    server.echo = False
    with backend_for(server) as text_only:  # no tokenizer: echo only
        with pytest.raises(ScoringUnsupported, match="supports neither"):
            text_only.score([ScoreRequest("Answer:", [" J"])])


def test_without_a_tokenizer_text_prompts_are_echoed_and_next_token_asks_for_one(server):
    with backend_for(server) as backend:
        [[score]] = backend.score([ScoreRequest("Answer:", [" J"])])
        assert backend.last_scoring_path == "prompt-logprobs"
    ids = [ord(c) for c in "Answer: J"]
    assert score == pytest.approx(sum(toy_logprob(ids[:k], ids[k]) for k in (7, 8)))
    with backend_for(server, scoring_path="next-token") as strict:
        with pytest.raises(InvalidRequest, match="tokenizer="):
            strict.score([ScoreRequest("Answer:", [" J"])])
    with pytest.raises(InvalidRequest, match="unknown scoring path"):
        backend_for(server, scoring_path="trie")


# --------------------------------------------------------------------------------------------- bad 200 replies


def call(backend: OpenAIBackend, what: str, continuation: str = " J") -> object:
    if what == "chat":
        return backend.generate([ChatRequest([{"role": "user", "content": "Move?"}], 4, 0.0, 0)])[0].text
    return backend.score([ScoreRequest("Answer:", [continuation])])[0][0]  # echoes the prompt, and prompt + " J"


@pytest.mark.parametrize("what", ["chat", "score"])
@pytest.mark.parametrize("bad", sorted(BAD_BODIES))
def test_a_bad_200_is_retried_like_a_server_fault(server, what, bad):
    server.bad_replies.append(BAD_BODIES[bad])
    with backend_for(server) as backend:
        value = call(backend, what)
        assert backend.stats.retries == 1
    if what == "chat":
        assert value == "Rock" and len(server.requests) == 2
    else:
        assert value == pytest.approx(toy_logprob([ord(c) for c in "Answer:"], ord(" ")) + toy_logprob(
            [ord(c) for c in "Answer: "], ord("J")))  # fmt: skip
        assert len(server.requests) == 3


@pytest.mark.parametrize("what", ["chat", "score"])
@pytest.mark.parametrize("bad", sorted(BAD_BODIES))
def test_bad_200s_until_the_retries_run_out_raise_a_named_error_quoting_the_reply(server, what, bad):
    server.bad_default = BAD_BODIES[bad]
    with backend_for(server, max_retries=2) as backend:
        with pytest.raises(InvalidReply, match="HTTP 200 without a valid completion 3 times") as info:
            call(backend, what, continuation="")  # one request per attempt: the prompt's echo
    assert isinstance(info.value, RetryBudgetExhausted)
    assert BAD_BODIES[bad][1][:30] in str(info.value)  # says what came back
    assert len(server.requests) == 3


# --------------------------------------------------------------------------------------------- real vLLM server


@pytest.mark.slow
def test_vllm_server_scores_on_the_next_token_path_like_the_engine_s_old_path(
    openai_server, tiny_model_dir, vllm_backend
):
    from tests.llm.test_scoring_paths import label_requests

    requests = [r for _, r in label_requests()[:12]] + [ScoreRequest("You chose Coop", ["erate", " Defect"])]
    vllm_backend.scoring_path = "prompt-logprobs"
    try:
        old = vllm_backend.score(requests)
    finally:
        vllm_backend.scoring_path = "auto"
    with OpenAIBackend(openai_server, "tiny", tokenizer=str(tiny_model_dir), timeout=60.0) as backend:
        new = backend.score(requests)
        assert backend.last_scoring_path == "next-token"
        new_again = backend.score(requests)  # the same prompts again: served from the server's prefix cache
        assert backend.stats.prefix_cache_hit_tokens > 0
    for row_old, row_new, row_again in zip(old, new, new_again):
        assert row_new == pytest.approx(row_old, abs=1e-3)
        assert row_again == pytest.approx(row_new, abs=1e-4)
