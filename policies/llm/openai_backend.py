"""Any OpenAI-compatible server as a backend, through the async ``openai`` SDK.

The SDK is async; a private event loop in a daemon thread runs it, so sync callers (also inside
Jupyter's running loop) can use the backend. Retries with backoff and a per-call time budget live here.
"""

from __future__ import annotations

import asyncio
import os
import random
import threading
from collections.abc import Awaitable, Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from policies.llm.base import Backend, BackendStats, ChatRequest, Generation, ScoreRequest
from policies.llm.errors import BackendError, InvalidRequest, RetryBudgetExhausted, ScoringUnsupported
from policies.llm.scoring import continuation_logprob, plan_token_scores
from tom_envs.errors import import_optional

T = TypeVar("T")


class _LoopThread:
    """A private asyncio event loop in a daemon thread, so sync code (also inside Jupyter's running
    loop) can run coroutines, and the async HTTP client stays bound to one loop across calls."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="tom-envs-openai", daemon=True)
        self._thread.start()

    def run(self, coroutine: Awaitable[T]) -> T:
        future = asyncio.run_coroutine_threadsafe(coroutine, self.loop)  # type: ignore[arg-type]
        try:
            return future.result()
        except BaseException:
            future.cancel()
            raise

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join()
        self.loop.close()


@dataclass
class _Budget:
    """The retry time left to one backend call."""

    deadline: float

    def remaining(self) -> float:
        return self.deadline - asyncio.get_running_loop().time()


# HTTP statuses worth retrying: timeouts, conflicts, rate limits, and server errors except
# "not implemented" (which will not change on retry).
_RETRY_STATUSES = frozenset({408, 409, 429})
# Statuses with which a server says "I do not do echo/logprobs" to a scoring request.
_NO_SCORING_STATUSES = frozenset({400, 404, 405, 422, 501})


class OpenAIBackend(Backend):
    """Any OpenAI-compatible server (OpenAI, vLLM's ``api_server``, ...) through the async ``openai`` SDK.

    Requests of one call run concurrently, at most ``max_concurrency`` at a time. Failed attempts
    with HTTP 408/409/429/5xx, connection errors or timeouts are retried with exponential backoff
    and full jitter (honouring ``Retry-After``), at most ``max_retries`` times per request and only
    while the call's ``retry_budget_s`` lasts; so one call takes at most about
    ``retry_budget_s + timeout`` seconds.

    Scoring uses the completions endpoint with ``echo=True, logprobs=1, max_tokens=0`` and reads the
    prompt tokens' log-probabilities. Plain-string prompts are sent as text; chat prompts need
    ``tokenizer`` (the model's Hugging Face tokenizer, loaded locally) to render the chat template,
    and are then sent as token ids, exactly as :class:`VLLMBackend` scores them.

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
        tokenizer: Hugging Face tokenizer name or folder; needed to score chat prompts.
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
    ) -> None:
        _check_positive(max_concurrency=max_concurrency, timeout=timeout, backoff_max=backoff_max)
        if max_retries < 0 or retry_budget_s < 0 or backoff_base < 0:
            raise InvalidRequest("max_retries, retry_budget_s and backoff_base must be >= 0.")
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
        self._runner: _LoopThread | None = _LoopThread()
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
        return self._run(lambda budget: [self._chat(r, budget) for r in requests])

    def score(self, requests: Sequence[ScoreRequest]) -> list[list[float]]:
        """Score continuations through echoed prompt log-probabilities (see :meth:`Backend.score`)."""
        self.stats.calls += 1
        if any(r.is_chat for r in requests) and self._tokenizer is None:
            raise InvalidRequest(
                "scoring chat messages through an OpenAI-compatible server needs the model's chat template: "
                "build OpenAIBackend(..., tokenizer=<HF name or folder of the served model>), or give "
                "plain-string prompts."
            )
        if self._tokenizer is not None:
            return self._score_tokens(requests)
        return self._score_texts(requests)

    def close(self) -> None:
        """Close the HTTP client and stop the private event loop."""
        runner, self._runner = self._runner, None
        if runner is None:
            return
        try:
            runner.run(self._client.close())
        finally:
            runner.close()

    # -- scoring
    def _score_tokens(self, requests: Sequence[ScoreRequest]) -> list[list[float]]:
        plan = plan_token_scores(self._tokenizer, requests)
        logprobs = self._run(lambda budget: [self._echo(list(ids), budget) for ids in plan.sequences])
        return plan.combine([lps for _, lps in logprobs])

    def _score_texts(self, requests: Sequence[ScoreRequest]) -> list[list[float]]:
        prompts = [str(r.messages_or_prompt) for r in requests]
        texts: dict[str, int] = {}  # unique texts to echo, in first-seen order
        for prompt, r in zip(prompts, requests):
            for text in [prompt, *(prompt + c for c in r.continuations)]:
                texts.setdefault(text, len(texts))
        echoes = self._run(lambda budget: [self._echo(t, budget) for t in texts])
        out = []
        for prompt, r in zip(prompts, requests):
            prompt_keys, prompt_lps = echoes[texts[prompt]]
            row = []
            for c in r.continuations:
                full_keys, full_lps = echoes[texts[prompt + c]]
                row.append(continuation_logprob(prompt_keys, full_keys, full_lps, prompt_lps))
            out.append(row)
        return out

    async def _echo(self, prompt: str | list[int], budget: _Budget) -> tuple[list[Hashable], list[float | None]]:
        """Token keys and log-probabilities of ``prompt`` as the server tokenizes it."""
        what = "scoring request (completions with echo=True, logprobs=1)"

        async def attempt(timeout: float) -> Any:
            return await self._client.completions.create(
                model=self.model, prompt=prompt, echo=True, logprobs=1, max_tokens=0, temperature=0.0, timeout=timeout
            )

        response = await self._with_retries(attempt, budget, what, scoring=True)
        choice = response.choices[0] if response.choices else None
        lp = getattr(choice, "logprobs", None)
        if lp is None or not lp.token_logprobs:
            raise ScoringUnsupported(self._no_scoring_message(what, "the reply carries no token log-probabilities"))
        n = response.usage.prompt_tokens if response.usage else len(lp.token_logprobs)
        self.stats.add_usage(n, 0, _cached_tokens(response.usage))
        if isinstance(prompt, list):
            keys: list[Hashable] = list(prompt)
            n = len(prompt)
        else:
            keys = list(zip(lp.text_offset[:n], lp.tokens[:n]))
        if len(lp.token_logprobs) < n:
            raise BackendError(f"{what}: the server echoed {len(lp.token_logprobs)} of {n} prompt tokens.")
        return keys[:n], list(lp.token_logprobs[:n])

    # -- chat
    async def _chat(self, request: ChatRequest, budget: _Budget) -> Generation:
        optional = {k: v for k, v in (("seed", request.seed), ("stop", request.stop)) if v is not None}

        async def attempt(timeout: float) -> Any:
            return await self._client.chat.completions.create(
                model=self.model,
                messages=request.messages,
                max_tokens=request.max_tokens,
                temperature=request.temperature,
                timeout=timeout,
                **optional,
            )

        response = await self._with_retries(attempt, budget, "chat completion")
        usage = response.usage
        generation = Generation(
            text=response.choices[0].message.content or "",
            prompt_tokens=usage.prompt_tokens if usage else 0,
            completion_tokens=usage.completion_tokens if usage else 0,
        )
        self.stats.add_usage(generation.prompt_tokens, generation.completion_tokens, _cached_tokens(usage))
        return generation

    # -- running and retrying
    def _run(self, make: Callable[[_Budget], list[Awaitable[T]]]) -> list[T]:
        if self._runner is None:
            raise BackendError("this OpenAIBackend was closed; build a new one.")
        return self._runner.run(self._gather(make))

    async def _gather(self, make: Callable[[_Budget], list[Awaitable[T]]]) -> list[T]:
        budget = _Budget(asyncio.get_running_loop().time() + self.retry_budget_s)
        tasks = [asyncio.ensure_future(c) for c in make(budget)]
        try:
            return list(await asyncio.gather(*tasks))
        except BaseException:
            for task in tasks:  # the first failure ends the call: stop the rest
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise

    async def _with_retries(
        self, attempt: Callable[[float], Awaitable[T]], budget: _Budget, what: str, scoring: bool = False
    ) -> T:
        for retry in range(self.max_retries + 1):
            try:
                async with self._semaphore:
                    return await attempt(self.timeout)
            except self._openai.OpenAIError as exc:
                if not self._retryable(exc):
                    raise self._final_error(exc, what, scoring) from None
                delay = self._backoff(retry, exc)
                if retry == self.max_retries or delay > budget.remaining():
                    raise self._exhausted(exc, what, retry) from None
            self.stats.retries += 1
            await asyncio.sleep(delay)
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises

    def _retryable(self, exc: Exception) -> bool:
        if isinstance(exc, self._openai.APIConnectionError):  # includes timeouts
            return True
        status = getattr(exc, "status_code", None)
        return status is not None and (status in _RETRY_STATUSES or (status >= 500 and status != 501))

    def _backoff(self, retry: int, exc: Exception) -> float:
        delay = self._jitter.uniform(0.0, min(self.backoff_max, self.backoff_base * 2**retry))
        retry_after = _retry_after(exc)
        if retry_after is not None:
            delay = max(delay, min(retry_after, self.backoff_max))
        return delay

    def _exhausted(self, exc: Exception, what: str, retries: int) -> RetryBudgetExhausted:
        reason = (
            f"its {self.max_retries} retries"
            if retries == self.max_retries
            else f"the call's retry budget of {self.retry_budget_s:g} s"
        )
        return RetryBudgetExhausted(
            f"{what} to {self.base_url} failed {retries + 1} times and used up {reason}; last error: "
            f"{self._describe(exc)}. Check that the server is up and not overloaded, lower max_concurrency, "
            "or raise max_retries / retry_budget_s."
        )

    def _final_error(self, exc: Exception, what: str, scoring: bool) -> BackendError:
        status = getattr(exc, "status_code", None)
        if scoring and status in _NO_SCORING_STATUSES:
            return ScoringUnsupported(self._no_scoring_message(what, self._describe(exc)))
        hint = {
            401: f"check the API key in ${self.api_key_env}",
            403: f"check the API key in ${self.api_key_env} and its permissions",
            404: f"check base_url (it should end in /v1) and the model name {self.model!r}",
        }.get(status or 0, "check the request and the server's log")
        return BackendError(f"{what} to {self.base_url} failed: {self._describe(exc)}. Fix: {hint}.")

    def _no_scoring_message(self, what: str, detail: str) -> str:
        return (
            f"{what} to {self.base_url} was refused ({detail}). This strategy scores continuations by "
            "their log-probabilities and needs a scoring-capable backend: a server whose completions "
            "endpoint returns prompt logprobs with echo=True (e.g. vLLM's OpenAI server), or VLLMBackend. "
            "Otherwise pick a generation-based strategy."
        )

    def _describe(self, exc: Exception) -> str:
        status = getattr(exc, "status_code", None)
        text = f"{type(exc).__name__}" + (f" (HTTP {status})" if status else "") + f": {exc}"
        return self._scrub(text)

    def _scrub(self, text: str) -> str:
        if self._key and self._key != "EMPTY":
            text = text.replace(self._key, "***")
        return text


def _check_positive(**values: float) -> None:
    for name, value in values.items():
        if value <= 0:
            raise InvalidRequest(f"{name} must be > 0, got {value!r}.")


def _retry_after(exc: Exception) -> float | None:
    response = getattr(exc, "response", None)
    header = response.headers.get("retry-after") if response is not None else None
    try:
        return float(header) if header is not None else None
    except ValueError:  # an HTTP date; the jittered backoff is good enough then
        return None


def _cached_tokens(usage: Any) -> int | None:
    details = getattr(usage, "prompt_tokens_details", None)
    return getattr(details, "cached_tokens", None)


def _load_tokenizer(name: str) -> Any:
    transformers = import_optional("transformers", "llm-cpu", "Scoring chat prompts with OpenAIBackend")
    return transformers.AutoTokenizer.from_pretrained(name)



__all__ = ["OpenAIBackend"]
