"""The backend layer: batched generation and scoring on a real vLLM engine and a real vLLM server,
and the OpenAI client's concurrency bound, retries and error handling against loopback servers."""

from __future__ import annotations

import asyncio
import json
import os
import time
import traceback
import urllib.request

import pytest

from policies.llm import (
    BackendError,
    ChatRequest,
    InvalidRequest,
    OpenAIBackend,
    RetryBudgetExhausted,
    ScoreRequest,
    ScoringUnsupported,
)
from policies.llm.scoring import continuation_logprob, render_chat

SECRET = "sk-test-0123456789abcdef-never-print-me"
LABELS = [" Rock", " Paper", " Scissors"]
CHAT = [
    {"role": "system", "content": "You play Rock Paper Scissors for points."},
    {"role": "user", "content": "Round 3. Your partner played Paper. What do you choose?"},
]
PROMPTS = ["You played Rock, your partner played", "Cooperate or Defect? Answer:"]


def chat(content: str, seed: int | None = 0, temperature: float = 1.0, max_tokens: int = 12) -> ChatRequest:
    return ChatRequest(
        [{"role": "user", "content": content}], max_tokens=max_tokens, temperature=temperature, seed=seed
    )


@pytest.fixture
def server_backend(openai_server: str, tiny_model_dir) -> OpenAIBackend:
    backend = OpenAIBackend(openai_server, "tiny", tokenizer=str(tiny_model_dir), timeout=30.0)
    yield backend
    backend.close()


def fast_retry_backend(url: str, **kwargs) -> OpenAIBackend:
    """Short backoffs so fault tests take about a second each. The timeout is long enough that a
    loaded 2-core machine never turns a quick scripted answer into a client timeout (an extra,
    uncounted attempt); the test of the timeout itself passes its own, shorter one."""
    options = {"timeout": 5.0, "backoff_base": 0.01, "backoff_max": 0.05, "retry_budget_s": 10.0}
    return OpenAIBackend(url, "fake", **{**options, **kwargs})


# --------------------------------------------------------------------------------------------- vLLM in-process


@pytest.mark.slow
def test_vllm_generates_a_batch_in_one_call_and_counts_tokens(vllm_backend):
    requests = [chat("Choose Rock Paper or Scissors.", seed=s) for s in range(3)] + [ChatRequest(CHAT, 5, 0.0, None)]
    before = vllm_backend.stats.calls, vllm_backend.stats.requests, vllm_backend.stats.completion_tokens
    generations = vllm_backend.generate(requests)
    assert len(generations) == 4
    assert vllm_backend.stats.calls == before[0] + 1 and vllm_backend.stats.requests == before[1] + 4
    tokenizer = vllm_backend.tokenizer
    for request, generation in zip(requests, generations):
        expected = len(tokenizer.encode(render_chat(tokenizer, request.messages), add_special_tokens=False))
        assert generation.prompt_tokens == expected  # BOS comes from the template only, not twice
        assert 1 <= generation.completion_tokens <= request.max_tokens
        assert isinstance(generation.text, str)
    assert vllm_backend.stats.completion_tokens - before[2] == sum(g.completion_tokens for g in generations)


@pytest.mark.slow
def test_vllm_same_seed_gives_same_text_and_other_seeds_differ(vllm_backend):
    first = vllm_backend.generate([chat("Pick a move.", seed=7), chat("Pick a move.", seed=8)])
    again = vllm_backend.generate([chat("Pick a move.", seed=7)])
    assert again[0].text == first[0].text
    assert first[0].text != first[1].text


SHARED_PREFIX = {"role": "system", "content": " ".join(["Rock Paper Scissors round points score."] * 60)}


@pytest.mark.slow
@pytest.mark.parametrize("which", ["vllm_backend", "server_backend"])
def test_prefix_cache_hits_are_reported_for_a_shared_long_prefix(which, request):
    backend = request.getfixturevalue(which)
    requests = [ChatRequest([SHARED_PREFIX, {"role": "user", "content": q}], 2, 0.0, 0) for q in ("J?", "F?")]
    backend.generate(requests[:1])
    before = backend.stats.prefix_cache_hit_tokens or 0
    backend.generate(requests[1:])
    assert backend.stats.prefix_cache_hit_tokens - before >= 128  # at least one full KV block (128 on CPU)


@pytest.mark.slow
def test_vllm_rejects_a_prompt_longer_than_the_model(vllm_backend):
    with pytest.raises(InvalidRequest, match="max_model_len"):
        vllm_backend.score([ScoreRequest("Rock " * 3000, [" Paper"])])


# --------------------------------------------------------------------------------------------- scoring


@pytest.mark.slow
def test_score_is_chain_rule_consistent_at_a_plain_boundary(vllm_backend, openai_server):
    known_total = echoed_total(openai_server, "ABC")  # the server's own log p("ABC" | BOS)
    whole, first, rest = vllm_backend.score(
        [ScoreRequest("", ["ABC"]), ScoreRequest("", ["A"]), ScoreRequest("A", ["BC"])]
    )
    assert whole[0] == pytest.approx(known_total, abs=1e-3)
    assert first[0] + rest[0] == pytest.approx(known_total, abs=1e-3)


@pytest.mark.slow
def test_score_subtracts_the_prompt_part_of_a_token_merged_across_the_boundary(vllm_backend, openai_server):
    tokenizer = vllm_backend.tokenizer
    prompt, continuation = "You chose Coop", "erate"
    prompt_ids = tokenizer.encode(prompt)
    full_ids = tokenizer.encode(prompt + continuation)
    assert full_ids[: len(prompt_ids)] != prompt_ids, "precondition: the tokenizer merges across the boundary"
    known_total = echoed_total(openai_server, prompt + continuation) - echoed_total(openai_server, prompt)
    [[score]] = vllm_backend.score([ScoreRequest(prompt, [continuation])])
    assert score == pytest.approx(known_total, abs=1e-3)
    [[split_score]] = vllm_backend.score([ScoreRequest(prompt, ["era"])])
    [[tail]] = vllm_backend.score([ScoreRequest(prompt + "era", ["te"])])
    assert split_score + tail == pytest.approx(score, abs=1e-3)


@pytest.mark.slow
def test_scores_agree_between_in_process_engine_and_server(vllm_backend, server_backend, openai_server):
    merged = ScoreRequest("You chose Coop", ["erate", " Defect"])  # one continuation merges, one does not
    requests = [ScoreRequest(p, LABELS) for p in PROMPTS] + [merged, ScoreRequest(CHAT, LABELS + [" J"])]
    local = vllm_backend.score(requests)
    remote = server_backend.score(requests)  # chat rendered locally, sent as token ids
    text_only = OpenAIBackend(openai_server, "tiny")  # plain prompts sent as text, server tokenizes
    try:
        remote_text = text_only.score(requests[:3])
    finally:
        text_only.close()
    for got in (remote, remote_text):
        for row_local, row_remote in zip(local, got):
            assert row_remote == pytest.approx(row_local, abs=1e-3)
    assert len({round(s, 3) for s in local[0]}) == len(LABELS)  # the scores do tell the labels apart


def test_continuation_logprob_subtracts_only_a_merged_prompt_tail():
    assert continuation_logprob([1, 2], [1, 2, 3, 4], [None, -1.0, -2.0, -3.0]) == -5.0
    merged = continuation_logprob([1, 2], [1, 5], [None, -4.0], prompt_logprobs=[None, -1.5])
    assert merged == -2.5
    with pytest.raises(InvalidRequest, match="non-empty prompt"):
        continuation_logprob([], [7, 8], [None, -1.0])


def echoed_total(base_url: str, text: str) -> float:
    """Sum of the server's echoed prompt log-probabilities of ``text`` (raw HTTP, no backend code)."""
    payload = {"model": "tiny", "prompt": text, "echo": True, "logprobs": 0, "max_tokens": 0}
    request = urllib.request.Request(
        f"{base_url}/completions", json.dumps(payload).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        logprobs = json.load(response)["choices"][0]["logprobs"]["token_logprobs"]
    return sum(lp for lp in logprobs if lp is not None)


# --------------------------------------------------------------------------------------------- vLLM server


@pytest.mark.slow
def test_server_generates_a_batch_with_token_counts_like_the_engine(server_backend, vllm_backend):
    requests = [chat("Choose J F or B.", seed=s) for s in range(4)]
    remote = server_backend.generate(requests)
    local = vllm_backend.generate(requests)
    assert [g.prompt_tokens for g in remote] == [g.prompt_tokens for g in local]
    assert all(1 <= g.completion_tokens <= 12 for g in remote)
    assert server_backend.stats.requests == 4 and server_backend.stats.calls == 1


@pytest.mark.slow
def test_server_same_seed_gives_same_text(server_backend):
    first = server_backend.generate([chat("Pick a move.", seed=11)])
    again = server_backend.generate([chat("Pick a move.", seed=11)])  # a second call reuses the loop
    assert first[0].text == again[0].text


# --------------------------------------------------------------------------------------------- fault handling


def test_concurrency_never_exceeds_the_bound(fake_openai):
    fake_openai.delay_s = 0.1
    backend = fast_retry_backend(fake_openai.url, max_concurrency=3)
    try:
        generations = backend.generate([chat(f"q{i}") for i in range(10)])
    finally:
        backend.close()
    assert len(generations) == 10 and fake_openai.max_in_flight == 3


def test_retries_rate_limit_server_error_and_timeout_then_succeeds(fake_openai):
    fake_openai.script.extend([429, 500, "hang", "ok"])
    fake_openai.hang_s = 30.0  # released when the server closes; the client gives up after 1 s
    backend = fast_retry_backend(fake_openai.url, max_retries=6, timeout=1.0)
    try:
        [generation] = backend.generate([chat("Pick a move.")])
    finally:
        backend.close()
    assert generation.text == "Rock" and (generation.prompt_tokens, generation.completion_tokens) == (7, 1)
    assert backend.stats.retries == 3 and len(fake_openai.requests) == 4
    assert fake_openai.requests[0]["body"]["seed"] == 0


def test_retry_budget_exhaustion_raises_quickly(fake_openai):
    fake_openai.default = 503
    backend = fast_retry_backend(fake_openai.url, max_retries=1000, retry_budget_s=0.3)
    start = time.monotonic()
    try:
        with pytest.raises(RetryBudgetExhausted, match="retry budget"):
            backend.generate([chat("a"), chat("b")])
    finally:
        backend.close()
    assert time.monotonic() - start < 8.0  # the 0.3 s budget, not 1000 retries' backoff (about 50 s)
    assert len(fake_openai.requests) < 100


def test_max_retries_bounds_the_attempts_per_request(fake_openai):
    fake_openai.default = 429
    backend = fast_retry_backend(fake_openai.url, max_retries=2)
    try:
        with pytest.raises(RetryBudgetExhausted, match="2 retries"):
            backend.generate([chat("a")])
    finally:
        backend.close()
    assert len(fake_openai.requests) == 3 and backend.stats.retries == 2


def test_client_errors_are_not_retried(fake_openai):
    fake_openai.default = 404
    backend = fast_retry_backend(fake_openai.url)
    try:
        with pytest.raises(BackendError, match="base_url"):
            backend.generate([chat("a")])
    finally:
        backend.close()
    assert len(fake_openai.requests) == 1


def test_api_key_is_sent_but_never_shown(fake_openai, monkeypatch):
    monkeypatch.setenv("TOM_TEST_KEY", SECRET)
    fake_openai.default = 401
    fake_openai.error_body = {"error": {"message": f"Incorrect API key provided: {SECRET}"}}  # a chatty server
    backend = fast_retry_backend(fake_openai.url, api_key_env="TOM_TEST_KEY")
    try:
        with pytest.raises(BackendError) as info:
            backend.generate([chat("a")])
        shown = [repr(backend), str(info.value), repr(info.value), "".join(traceback.format_exception(info.value))]
        shown.append(repr(backend.stats))
    finally:
        backend.close()
    assert fake_openai.requests[0]["authorization"] == f"Bearer {SECRET}"
    assert "TOM_TEST_KEY" in str(info.value)  # the hint names the variable, not its value
    assert all(SECRET not in text for text in shown)


def test_missing_key_variable_sends_placeholder(fake_openai, monkeypatch):
    monkeypatch.delenv("TOM_TEST_KEY", raising=False)
    backend = fast_retry_backend(fake_openai.url, api_key_env="TOM_TEST_KEY")
    try:
        backend.generate([chat("a")])
    finally:
        backend.close()
    assert fake_openai.requests[0]["authorization"] == "Bearer EMPTY"


def test_scoring_against_a_server_without_echo_names_the_need(fake_openai):
    fake_openai.default = 400
    fake_openai.error_body = {"error": {"message": "echo is not supported with logprobs"}}
    backend = fast_retry_backend(fake_openai.url)
    try:
        with pytest.raises(ScoringUnsupported, match="scoring-capable backend"):
            backend.score([ScoreRequest("Answer:", LABELS)])
    finally:
        backend.close()


def test_text_scoring_through_a_server_uses_its_echoed_tokens(fake_openai):
    backend = fast_retry_backend(fake_openai.url)  # the fake scores every character -1
    try:
        scores = backend.score([ScoreRequest("Answer:", [" J", " Rock"]), ScoreRequest("Answer:", [""])])
        again = backend.score([ScoreRequest("Go", ["!"])])  # a later call on the same private loop
    finally:
        backend.close()
    assert scores == [[-2.0, -5.0], [0.0]] and again == [[-1.0]]
    assert {r["body"]["echo"] for r in fake_openai.requests} == {True}
    assert backend.stats.calls == 2


def test_chat_scoring_without_tokenizer_asks_for_one(fake_openai):
    backend = fast_retry_backend(fake_openai.url)
    try:
        with pytest.raises(InvalidRequest, match="tokenizer="):
            backend.score([ScoreRequest(CHAT, LABELS)])
    finally:
        backend.close()
    assert fake_openai.requests == []


def test_sync_calls_work_inside_a_running_event_loop(fake_openai):
    backend = fast_retry_backend(fake_openai.url)  # e.g. called from a notebook cell

    async def notebook_cell() -> list:
        return backend.generate([chat("a"), chat("b")])

    try:
        generations = asyncio.run(notebook_cell())
    finally:
        backend.close()
    assert [g.text for g in generations] == ["Rock", "Rock"]


def test_closed_backend_says_so(fake_openai):
    backend = fast_retry_backend(fake_openai.url)
    backend.close()
    backend.close()  # idempotent
    with pytest.raises(BackendError, match="closed"):
        backend.generate([chat("a")])


@pytest.mark.parametrize(
    "make",
    [
        lambda: ChatRequest([], 5, 1.0, 0),
        lambda: ChatRequest([{"role": "user", "content": "x"}], 0, 1.0, 0),
        lambda: ChatRequest([{"role": "user", "content": "x"}], 5, -1.0, 0),
        lambda: ScoreRequest("x", " Rock"),
        lambda: ScoreRequest([{"content": "no role"}], [" Rock"]),
    ],
)
def test_malformed_requests_raise_a_named_error(make):
    with pytest.raises(InvalidRequest):
        make()


def test_importing_the_package_loads_no_heavy_dependency():
    code = "import sys, policies.llm; print(sorted(m for m in ('vllm', 'openai', 'torch') if m in sys.modules))"
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=dict(os.environ))
    assert out.stdout.strip() == "[]"
