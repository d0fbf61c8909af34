"""Running an OpenAI-compatible backend's calls: a private event loop, bounded concurrency and retries.

:class:`LoopThread` runs the async SDK in a daemon thread, so sync callers (also inside Jupyter's running
loop) can use the backend. :class:`RetryingCalls` is the part of
:class:`~policies.llm.openai_backend.OpenAIBackend` that runs one call's requests concurrently and
retries failed attempts (HTTP 408/409/429/5xx, connection errors, timeouts, 200s that are not
completions) with jittered exponential backoff within the call's time budget (:class:`Budget`),
counting every retry by cause, and that turns a final failure into a named error saying how to fix it.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from policies.llm.base import add_faults
from policies.llm.errors import BackendError, InvalidReply, RetryBudgetExhausted, ScoringUnsupported
from policies.llm.openai_replies import BadReply, read_reply

T = TypeVar("T")


class LoopThread:
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
class Budget:
    """The retry time left to one backend call."""

    deadline: float

    def remaining(self) -> float:
        return self.deadline - asyncio.get_running_loop().time()


# HTTP statuses worth retrying: timeouts, conflicts, rate limits, and server errors except
# "not implemented" (which will not change on retry).
_RETRY_STATUSES = frozenset({408, 409, 429})
# Statuses with which a server says "I do not do echo/logprobs" to a scoring request.
_NO_SCORING_STATUSES = frozenset({400, 404, 405, 422, 501})
# What raises the retry bounds, in the API and on the command line.
_RAISE_HINT = (
    "raise max_retries / retry_budget_s (on the tom-envs command line: --max-retries N / --retry-budget SECONDS)"
)
_TIMEOUT_HINT = "; the attempts timed out: raise timeout (--timeout SECONDS, the seconds one attempt may take)"


class RetryingCalls:
    """Running and retrying the requests of one backend call (a mixin of
    :class:`~policies.llm.openai_backend.OpenAIBackend`, which sets the attributes read here: the retry
    settings, ``stats``, ``_runner``, ``_semaphore``, ``_jitter``, ``_openai`` and the key ``_key``)."""

    def _run(self, make: Callable[[Budget], list[Awaitable[T]]]) -> list[T]:
        if self._runner is None:
            raise BackendError("this OpenAIBackend was closed; build a new one.")
        return self._runner.run(self._gather(make))

    async def _gather(self, make: Callable[[Budget], list[Awaitable[T]]]) -> list[T]:
        budget = Budget(asyncio.get_running_loop().time() + self.retry_budget_s)
        tasks = [asyncio.ensure_future(c) for c in make(budget)]
        try:
            return list(await asyncio.gather(*tasks))
        except BaseException:
            for task in tasks:  # the first failure ends the call: stop the rest
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise

    async def _with_retries(
        self,
        attempt: Callable[[float], Awaitable[Any]],
        budget: Budget,
        what: str,
        kind: str,
        faults: dict[str, int],
        scoring: bool = False,
    ) -> dict:
        """The JSON body of the first valid reply to ``attempt``, retrying server faults and bad 200s;
        every retry is counted by its cause in ``stats`` and in ``faults`` (the request's)."""
        for retry in range(self.max_retries + 1):
            try:
                async with self._semaphore:
                    raw = await attempt(self.timeout)
                return read_reply(raw.text, kind)
            except self._openai.OpenAIError as exc:
                if not self._retryable(exc):
                    raise self._final_error(exc, what, scoring) from None
                delay = self._backoff(retry, exc)
                if retry == self.max_retries or delay > budget.remaining():
                    raise self._exhausted(exc, what, retry) from None
                cause = self._fault_kind(exc)
            except BadReply as bad:
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

    def _describe(self, exc: Exception) -> str:
        status = getattr(exc, "status_code", None)
        text = f"{type(exc).__name__}" + (f" (HTTP {status})" if status else "") + f": {exc}"
        return self._scrub(text)

    def _scrub(self, text: str) -> str:
        if self._key and self._key != "EMPTY":
            text = text.replace(self._key, "***")
        return text


def _retry_after(exc: Exception) -> float | None:
    response = getattr(exc, "response", None)
    header = response.headers.get("retry-after") if response is not None else None
    try:
        return float(header) if header is not None else None
    except ValueError:  # an HTTP date; the jittered backoff is good enough then
        return None
