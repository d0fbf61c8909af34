"""Any OpenAI-compatible server as a backend, through the async ``openai`` SDK.

The SDK is async; a private event loop in a daemon thread runs it, so sync callers (also inside
Jupyter's running loop) can use the backend. Retries with backoff and a per-call time budget live here.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import threading
from collections.abc import Awaitable, Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from policies.llm.base import (Backend, BackendStats, ChatRequest, Generation, ScoreRequest, add_faults,
                               charge_faults, new_faults)
from policies.llm.errors import BackendError, InvalidReply, InvalidRequest, RetryBudgetExhausted, ScoringUnsupported
from policies.llm.scoring import check_scoring_path, continuation_logprob, plan_next_token_scores, plan_token_scores
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
# How much of a bad reply an error message quotes.
_QUOTE_CHARS = 200
# What raises the retry bounds, in the API and on the command line.
_RAISE_HINT = ("raise max_retries / retry_budget_s (on the tom-envs command line: --max-retries N / "
               "--retry-budget SECONDS)")
_TIMEOUT_HINT = ("; the attempts timed out: raise timeout (--timeout SECONDS, "
                 "the seconds one attempt may take)")


class _BadReply(Exception):
    """An HTTP 200 whose body is not a valid completion (retried like a server fault)."""


class OpenAIBackend(Backend):
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

    def _score(self, requests: Sequence[ScoreRequest], faults: list[dict[str, int]]) -> list[list[float]]:
        check_scoring_path(self.scoring_path)
        if any(r.is_chat for r in requests) and self._tokenizer is None:
            raise InvalidRequest(
                "scoring chat messages through an OpenAI-compatible server needs the model's chat template: "
                "build OpenAIBackend(..., tokenizer=<HF name or folder of the served model>), or give "
                "plain-string prompts."
            )
        if self.scoring_path == "next-token" and self._tokenizer is None:
            raise InvalidRequest(
                "the next-token scoring path builds a token trie, so it needs the served model's tokenizer: "
                "build OpenAIBackend(..., tokenizer=<HF name or folder>), or use scoring_path='prompt-logprobs'."
            )
        if self._tokenizer is not None and self.scoring_path != "prompt-logprobs":
            if self.scoring_path == "next-token" or self._next_token_refused is None:
                try:
                    scores = self._score_next_token(requests, faults)
                except ScoringUnsupported as exc:
                    if self.scoring_path == "next-token":
                        raise
                    self._next_token_refused = str(exc)  # "auto": remember, and echo from now on
                else:
                    self.last_scoring_path = "next-token"
                    return scores
        try:
            if self._tokenizer is not None:
                scores = self._score_tokens(requests, faults)
            else:
                scores = self._score_texts(requests, faults)
        except ScoringUnsupported as exc:
            if self.scoring_path == "auto":
                raise ScoringUnsupported(self._neither_message(str(exc))) from None
            raise
        self.last_scoring_path = "prompt-logprobs"
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

    # -- scoring
    def _score_next_token(self, requests: Sequence[ScoreRequest], faults: list[dict[str, int]]) -> list[list[float]]:
        plan = plan_next_token_scores(self._tokenizer, requests)
        uses = [{q for plus, minus in row for q, _ in (*plus, *minus)} for row in plan.items]
        sent = [new_faults() for _ in plan.queries]
        try:
            answers = self._run(lambda budget: [self._next_token(list(p), list(t), budget, f)
                                                for (p, t), f in zip(plan.queries, sent)])
        finally:
            charge_faults(faults, uses, sent)
        return plan.combine(answers)

    def _score_tokens(self, requests: Sequence[ScoreRequest], faults: list[dict[str, int]]) -> list[list[float]]:
        plan = plan_token_scores(self._tokenizer, requests)
        uses = [{n for item in row for n in (item.full, item.prompt) if n is not None} for row in plan.items]
        sent = [new_faults() for _ in plan.sequences]
        try:
            logprobs = self._run(lambda budget: [self._echo(list(ids), budget, f)
                                                 for ids, f in zip(plan.sequences, sent)])
        finally:
            charge_faults(faults, uses, sent)
        return plan.combine([lps for _, lps in logprobs])

    def _score_texts(self, requests: Sequence[ScoreRequest], faults: list[dict[str, int]]) -> list[list[float]]:
        prompts = [str(r.messages_or_prompt) for r in requests]
        texts: dict[str, int] = {}  # unique texts to echo, in first-seen order
        for prompt, r in zip(prompts, requests):
            for text in [prompt, *(prompt + c for c in r.continuations)]:
                texts.setdefault(text, len(texts))
        uses = [{texts[t] for t in [p, *(p + c for c in r.continuations)]} for p, r in zip(prompts, requests)]
        sent = [new_faults() for _ in texts]
        try:
            echoes = self._run(lambda budget: [self._echo(t, budget, f) for t, f in zip(texts, sent)])
        finally:
            charge_faults(faults, uses, sent)
        out = []
        for prompt, r in zip(prompts, requests):
            prompt_keys, prompt_lps = echoes[texts[prompt]]
            row = []
            for c in r.continuations:
                full_keys, full_lps = echoes[texts[prompt + c]]
                row.append(continuation_logprob(prompt_keys, full_keys, full_lps, prompt_lps))
            out.append(row)
        return out

    async def _next_token(self, prefix: list[int], tokens: list[int], budget: _Budget,
                          faults: dict[str, int]) -> dict[int, float]:
        """``{token id: log p(token | prefix)}`` for ``tokens``, from one ``max_tokens=1`` completion."""
        what = "scoring request (completions with max_tokens=1, logprobs=1, logprob_token_ids)"
        extra = {"logprob_token_ids": tokens, "return_tokens_as_token_ids": True}

        async def attempt(timeout: float) -> Any:
            return await self._client.completions.with_raw_response.create(
                model=self.model, prompt=prefix, max_tokens=1, temperature=0.0, logprobs=1, extra_body=extra,
                timeout=timeout,
            )  # fmt: skip

        data = await self._with_retries(attempt, budget, what, "completion", faults, scoring=True)
        logprobs = data["choices"][0].get("logprobs") or {}
        steps = logprobs.get("top_logprobs") or []
        step = steps[0] if steps and isinstance(steps[0], dict) else {}
        found = self._read_next_token(step, tokens)
        missing = [t for t in tokens if t not in found]
        if missing:
            detail = (
                f"the reply has no log-probability for the requested token ids {missing[:8]}: the server ignores "
                "logprob_token_ids"
            )
            raise ScoringUnsupported(self._no_next_token_message(what, detail))
        usage = data.get("usage") or {}
        self.stats.add_usage(usage.get("prompt_tokens") or len(prefix), 0, _cached_tokens(usage))
        return found

    def _read_next_token(self, step: dict, tokens: list[int]) -> dict[int, float]:
        """Log-probabilities of ``tokens`` from one ``top_logprobs`` entry, keyed ``token_id:N`` (vLLM's
        ``return_tokens_as_token_ids``) or, where a server ignores that, by each token's unique text."""
        step = {k: float(v) for k, v in step.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
        found = {}
        for key, value in step.items():
            if key.startswith("token_id:") and key[9:].isdigit():
                found[int(key[9:])] = value
        texts = {t: self._tokenizer.decode([t]) for t in tokens if t not in found}
        counts: dict[str, int] = {}
        for text in texts.values():
            counts[text] = counts.get(text, 0) + 1
        for t, text in texts.items():
            if counts[text] == 1 and "\ufffd" not in text and text in step:
                found[t] = step[text]
        return found

    async def _echo(self, prompt: str | list[int], budget: _Budget,
                    faults: dict[str, int]) -> tuple[list[Hashable], list[float | None]]:
        """Token keys and log-probabilities of ``prompt`` as the server tokenizes it."""
        what = "scoring request (completions with echo=True, logprobs=1)"

        async def attempt(timeout: float) -> Any:
            return await self._client.completions.with_raw_response.create(
                model=self.model, prompt=prompt, echo=True, logprobs=1, max_tokens=0, temperature=0.0, timeout=timeout
            )

        data = await self._with_retries(attempt, budget, what, "completion", faults, scoring=True)
        lp = data["choices"][0].get("logprobs") or {}
        token_logprobs = lp.get("token_logprobs")
        if not token_logprobs:
            raise ScoringUnsupported(self._no_scoring_message(what, "the reply carries no token log-probabilities"))
        usage = data.get("usage") or {}
        n = usage.get("prompt_tokens") or len(token_logprobs)
        self.stats.add_usage(n, 0, _cached_tokens(usage))
        if isinstance(prompt, list):
            keys: list[Hashable] = list(prompt)
            n = len(prompt)
        else:
            keys = list(zip(lp.get("text_offset") or [], lp.get("tokens") or []))[:n]
            if len(keys) < n:
                raise BackendError(f"{what}: the server echoed log-probabilities but not the {n} prompt tokens.")
        if len(token_logprobs) < n:
            raise BackendError(f"{what}: the server echoed {len(token_logprobs)} of {n} prompt tokens.")
        return keys[:n], list(token_logprobs[:n])

    # -- chat
    async def _chat(self, request: ChatRequest, budget: _Budget, faults: dict[str, int]) -> Generation:
        # only what the request names: no cap and no seed where the caller sends none (ChatRequest)
        sent = (("max_tokens", request.max_tokens), ("seed", request.seed if request.send_seed else None),
                ("stop", request.stop))
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
        self, attempt: Callable[[float], Awaitable[Any]], budget: _Budget, what: str, kind: str,
        faults: dict[str, int], scoring: bool = False,
    ) -> dict:
        """The JSON body of the first valid reply to ``attempt``, retrying server faults and bad 200s;
        every retry is counted by its cause in ``stats`` and in ``faults`` (the request's)."""
        for retry in range(self.max_retries + 1):
            try:
                async with self._semaphore:
                    raw = await attempt(self.timeout)
                return _read_reply(raw.text, kind)
            except self._openai.OpenAIError as exc:
                if not self._retryable(exc):
                    raise self._final_error(exc, what, scoring) from None
                delay = self._backoff(retry, exc)
                if retry == self.max_retries or delay > budget.remaining():
                    raise self._exhausted(exc, what, retry) from None
                cause = self._fault_kind(exc)
            except _BadReply as bad:
                delay = self._backoff(retry, None)
                if retry == self.max_retries or delay > budget.remaining():
                    raise self._invalid_reply(str(bad), what, retry) from None
                cause = "invalid_reply"
            self.stats.add_fault(cause)
            add_faults(faults, {"retries": 1, cause: 1})
            await asyncio.sleep(delay)
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises

    def _retryable(self, exc: Exception) -> bool:
        if isinstance(exc, self._openai.APIConnectionError):  # includes timeouts
            return True
        status = getattr(exc, "status_code", None)
        return status is not None and (status in _RETRY_STATUSES or (status >= 500 and status != 501))

    def _fault_kind(self, exc: Exception) -> str:
        """The cause of a retried attempt (:data:`~policies.llm.base.FAULT_KINDS`)."""
        if isinstance(exc, self._openai.APITimeoutError):
            return "timeout"
        if isinstance(exc, self._openai.APIConnectionError):
            return "connection"
        return "http_4xx" if (getattr(exc, "status_code", None) or 500) < 500 else "http_5xx"

    def _backoff(self, retry: int, exc: Exception | None) -> float:
        delay = self._jitter.uniform(0.0, min(self.backoff_max, self.backoff_base * 2**retry))
        retry_after = _retry_after(exc) if exc is not None else None
        if retry_after is not None:
            delay = max(delay, min(retry_after, self.backoff_max))
        return delay

    def _used_up(self, retries: int) -> str:
        if retries == self.max_retries:
            return f"its {self.max_retries} retries"
        return f"the call's retry budget of {self.retry_budget_s:g} s"

    def _invalid_reply(self, detail: str, what: str, retries: int) -> InvalidReply:
        return InvalidReply(
            f"{what} to {self.base_url} got HTTP 200 without a valid completion {retries + 1} times and used up "
            f"{self._used_up(retries)}; last reply: {self._scrub(detail)}. Check that base_url points at an "
            "OpenAI-compatible API (ending in /v1), not a web page or a proxy's error page, and the server's log; "
            f"{_RAISE_HINT}."
        )

    def _exhausted(self, exc: Exception, what: str, retries: int) -> RetryBudgetExhausted:
        reason = self._used_up(retries)
        return RetryBudgetExhausted(
            f"{what} to {self.base_url} failed {retries + 1} times and used up {reason}; last error: "
            f"{self._describe(exc)}. Check that the server is up and not overloaded, lower max_concurrency, "
            f"or {_RAISE_HINT}{_TIMEOUT_HINT if self._fault_kind(exc) == 'timeout' else ''}."
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

    def _no_next_token_message(self, what: str, detail: str) -> str:
        return (
            f"{what} to {self.base_url} was refused ({detail}). The next-token scoring path needs a server that "
            "returns the log-probabilities of requested next tokens (vLLM's OpenAI server: logprob_token_ids); "
            "use scoring_path='prompt-logprobs' (echo) or 'auto' with other servers."
        )

    def _neither_message(self, echo_detail: str) -> str:
        tried = f"next-token: {self._next_token_refused}; " if self._next_token_refused else (
            "next-token: not tried, it needs tokenizer=; ")
        return (
            f"{self.base_url} supports neither scoring path ({tried}prompt-logprobs: {echo_detail}). Score with "
            "vLLM's OpenAI server or VLLMBackend, or pick a generation-based strategy."
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


def _cached_tokens(usage: dict) -> int | None:
    details = usage.get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    return cached if isinstance(cached, int) else None


def _read_reply(text: str, kind: str) -> dict:
    """The body of a 200 reply as a dict, if it is a valid ``kind`` ("chat" or "completion") reply.

    Raises:
        _BadReply: what is wrong, quoting the start of the body.
    """
    quote = repr(text[:_QUOTE_CHARS]) + (f" ... ({len(text)} characters)" if len(text) > _QUOTE_CHARS else "")
    try:
        data = json.loads(text)
    except ValueError:
        raise _BadReply(f"a body that is not JSON: {quote}") from None
    problem = _reply_problem(data, kind)
    if problem:
        raise _BadReply(f"{problem}: {quote}")
    return data


def _reply_problem(data: Any, kind: str) -> str | None:
    if not isinstance(data, dict):
        return f"JSON that is not an object but a {type(data).__name__}"
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        return "no choices (choices: [])" if choices == [] else "JSON without a 'choices' list"
    choice = choices[0]
    if not isinstance(choice, dict):
        return "a choice that is not an object"
    usage = data.get("usage")
    if usage is not None and not (isinstance(usage, dict) and isinstance(usage.get("prompt_tokens", 0), int)):
        return "a malformed 'usage'"
    if kind == "chat":
        message = choice.get("message")
        if not isinstance(message, dict) or not isinstance(message.get("content", ""), (str, type(None))):
            return "a chat choice without a message"
        return None
    if not isinstance(choice.get("text"), str):
        return "a completion choice without text"
    logprobs = choice.get("logprobs")
    if logprobs is None:
        return None
    if not isinstance(logprobs, dict):
        return "logprobs that are not an object"
    for key in ("tokens", "token_logprobs", "text_offset", "top_logprobs"):
        if not isinstance(logprobs.get(key, []), (list, type(None))):
            return f"logprobs.{key} that is not a list"
    return None


def _load_tokenizer(name: str) -> Any:
    transformers = import_optional("transformers", "llm-cpu", "Scoring chat prompts with OpenAIBackend")
    return transformers.AutoTokenizer.from_pretrained(name)



__all__ = ["OpenAIBackend"]
