"""Any OpenAI-compatible server as a backend, through the async ``openai`` SDK.

:class:`OpenAIBackend` is the client: its settings, chat generation and the public calls. How its calls
run and are retried (a private event loop in a daemon thread, so sync callers, also inside Jupyter's
running loop, can use it; backoff within a per-call time budget) is in :mod:`policies.llm.openai_retry`;
what a valid reply is, in :mod:`policies.llm.openai_replies`; scoring on the server, in
:mod:`policies.llm.openai_scoring`.
"""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import Sequence
from typing import Any

from policies.llm.base import Backend, BackendStats, ChatRequest, Generation, ScoreRequest, new_faults
from policies.llm.errors import InvalidRequest
from policies.llm.openai_replies import cached_tokens
from policies.llm.openai_retry import Budget, LoopThread, RetryingCalls
from policies.llm.openai_scoring import ServerScoring
from policies.llm.scoring import check_scoring_path
from tom_envs.errors import import_optional


def _check_base_url(base_url: object) -> None:
    """An http(s) URL with a host (what the openai client needs), else :class:`InvalidRequest` at construction
    (not a connection error on the first request)."""
    from urllib.parse import urlsplit

    parts = urlsplit(base_url) if isinstance(base_url, str) else None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidRequest(
            f"base_url {base_url!r} is not an http(s) URL with a host; give the server's URL, "
            "e.g. http://127.0.0.1:8000/v1"
        )


class OpenAIBackend(ServerScoring, RetryingCalls, Backend):
    """Any OpenAI-compatible server (OpenAI, vLLM's ``api_server``, ...) through the async ``openai`` SDK.

    Requests of one call run concurrently, at most ``max_concurrency`` at a time. Failed attempts
    with HTTP 408/409/429/5xx, connection errors or timeouts are retried with exponential backoff
    and full jitter (honouring ``Retry-After``), at most ``max_retries`` times per request and only
    while the call's ``retry_budget_s`` lasts; so one call takes at most about
    ``retry_budget_s + timeout`` seconds. A reply with HTTP 200 whose body is not a valid completion
    (not JSON, HTML, a wrong shape, ``choices: []``) counts as a failed attempt too; when the retries
    run out it raises :class:`~policies.llm.errors.InvalidReply`, quoting what came back. Every retry
    is counted by cause (:data:`~policies.llm.base.FAULT_KINDS`) in ``stats`` and, per request of the
    call, in :meth:`last_faults` (what the caller adds to each request's episode).

    Scoring (``scoring_path``, see :mod:`policies.llm.scoring`) uses the completions endpoint:

    * ``"next-token"``: token-id prompts with ``max_tokens=1, logprobs=1`` and the extra fields
      ``logprob_token_ids`` / ``return_tokens_as_token_ids`` (vLLM's OpenAI server), one request per
      prefix of the token trie, so the server's prefix cache serves them. Needs ``tokenizer``.
    * ``"prompt-logprobs"``: ``echo=True, logprobs=1, max_tokens=0``, reading the prompt tokens'
      log-probabilities. Plain-string prompts are sent as text when there is no ``tokenizer``.
    * ``"auto"`` (default): next-token when a ``tokenizer`` is given and the server answers it,
      otherwise prompt-logprobs; a server that does neither raises
      :class:`~policies.llm.errors.ScoringUnsupported` naming both. ``last_scoring_path`` says
      which path the last :meth:`score` call took.

    Chat prompts need ``tokenizer`` (the model's Hugging Face tokenizer, loaded locally) to render
    the chat template, and are then sent as token ids, exactly as :class:`VLLMBackend` scores them.

    Args:
        base_url: server URL including ``/v1``, e.g. ``"http://127.0.0.1:8000/v1"``.
        model: model name as the server knows it.
        api_key_env: environment variable holding the API key ("EMPTY" is sent when unset, as local
            servers expect). The key is never put in reprs, errors or logs.
        max_concurrency: most requests in flight at once.
        timeout: seconds per HTTP attempt.
        max_retries: most retries per request.
        retry_budget_s: seconds after the start of a call during which retries may still start.
        backoff_base: first backoff cap in seconds (doubles per retry).
        backoff_max: largest backoff in seconds.
        tokenizer: Hugging Face tokenizer name or folder; needed to score chat prompts and for the
            next-token scoring path.
        scoring_path: ``"auto"``, ``"next-token"`` or ``"prompt-logprobs"`` (see above).
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key_env: str = "OPENAI_API_KEY",
        max_concurrency: int = 8,
        timeout: float = 60.0,
        max_retries: int = 6,
        retry_budget_s: float = 120.0,
        backoff_base: float = 0.5,
        backoff_max: float = 8.0,
        tokenizer: str | None = None,
        scoring_path: str = "auto",
    ) -> None:
        self.scoring_path = check_scoring_path(scoring_path)
        #: The path the last :meth:`score` call took (None before the first).
        self.last_scoring_path: str | None = None
        self._next_token_refused: str | None = None  # why the server refused the next-token path ("auto")
        _check_positive(max_concurrency=max_concurrency, timeout=timeout, backoff_max=backoff_max)
        if max_retries < 0 or retry_budget_s < 0 or backoff_base < 0:
            raise InvalidRequest("max_retries, retry_budget_s and backoff_base must be >= 0.")
        _check_base_url(base_url)
        if not isinstance(model, str) or not model.strip():
            raise InvalidRequest(
                f"model must be the served model's name (as the server's /v1/models lists it), got {model!r}"
            )
        openai = import_optional("openai", "llm-cpu", "OpenAIBackend")
        self.base_url = base_url
        self.model = model
        self.api_key_env = api_key_env
        self.max_concurrency = max_concurrency
        self.timeout = timeout
        self.max_retries = max_retries
        self.retry_budget_s = retry_budget_s
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.tokenizer_name = tokenizer
        self.stats = BackendStats()
        self._openai = openai
        self._key = os.environ.get(api_key_env) or "EMPTY"
        self._client = openai.AsyncOpenAI(base_url=base_url, api_key=self._key, max_retries=0, timeout=timeout)
        self._tokenizer = _load_tokenizer(tokenizer) if tokenizer else None
        self._jitter = random.Random()  # only spreads retries in time; never affects results
        self._runner: LoopThread | None = LoopThread()
        self._semaphore = asyncio.Semaphore(max_concurrency)  # binds to the private loop on first use

    def __repr__(self) -> str:
        return (
            f"OpenAIBackend(base_url={self.base_url!r}, model={self.model!r}, api_key_env={self.api_key_env!r}, "
            f"max_concurrency={self.max_concurrency}, timeout={self.timeout}, max_retries={self.max_retries}, "
            f"retry_budget_s={self.retry_budget_s})"
        )

    # -- public API
    def generate(self, requests: Sequence[ChatRequest]) -> list[Generation]:
        """Chat completions, run concurrently (see :meth:`Backend.generate`)."""
        self.stats.calls += 1
        faults = [new_faults() for _ in requests]
        self._note_faults([])
        generations = self._run(lambda budget: [self._chat(r, budget, f) for r, f in zip(requests, faults)])
        self._note_faults(faults)
        return generations

    @property
    def tokenizer(self) -> Any:
        """The served model's Hugging Face tokenizer (``tokenizer=``), or None when none was given."""
        return self._tokenizer

    def score(self, requests: Sequence[ScoreRequest]) -> list[list[float]]:
        """Score continuations on the backend's scoring path (see the class docstring and :meth:`Backend.score`)."""
        self.stats.calls += 1
        self._note_faults([])
        faults = [new_faults() for _ in requests]
        scores = self._score(requests, faults)
        self._note_faults(faults)
        return scores

    def close(self) -> None:
        """Close the HTTP client and stop the private event loop."""
        runner, self._runner = self._runner, None
        if runner is None:
            return
        try:
            runner.run(self._client.close())
        finally:
            runner.close()

    # -- chat
    async def _chat(self, request: ChatRequest, budget: Budget, faults: dict[str, int]) -> Generation:
        # only what the request names: no cap and no seed where the caller sends none (ChatRequest)
        sent = (
            ("max_tokens", request.max_tokens),
            ("seed", request.seed if request.send_seed else None),
            ("stop", request.stop),
        )
        optional = {k: v for k, v in sent if v is not None}

        async def attempt(timeout: float) -> Any:
            return await self._client.chat.completions.with_raw_response.create(
                model=self.model,
                messages=request.messages,
                temperature=request.temperature,
                timeout=timeout,
                **optional,
            )

        data = await self._with_retries(attempt, budget, "chat completion", "chat", faults)
        usage = data.get("usage") or {}
        generation = Generation(
            text=data["choices"][0]["message"].get("content") or "",
            prompt_tokens=usage.get("prompt_tokens") or 0,
            completion_tokens=usage.get("completion_tokens") or 0,
        )
        self.stats.add_usage(generation.prompt_tokens, generation.completion_tokens, cached_tokens(usage))
        return generation


def _check_positive(**values: float) -> None:
    for name, value in values.items():
        if value <= 0:
            raise InvalidRequest(f"{name} must be > 0, got {value!r}.")


def _load_tokenizer(name: str) -> Any:
    from policies.llm.sources import check_source

    check_source(name, "tokenizer", "tokenizer")
    transformers = import_optional("transformers", "llm-cpu", "Scoring chat prompts with OpenAIBackend")
    return transformers.AutoTokenizer.from_pretrained(name)


__all__ = ["OpenAIBackend"]
