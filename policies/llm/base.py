"""What every model backend offers: the request types, the usage counters and the :class:`Backend` interface.

A strategy talks to a :class:`Backend` only through two batched calls:

* :meth:`Backend.generate` -- sample one reply per :class:`ChatRequest`;
* :meth:`Backend.score` -- the log-probability of each continuation of a prompt
  (:class:`ScoreRequest`), the basis of 004's "LM prompting" (score every action label, no sampling).

Each call serves a whole batch, so an evaluation that steps many episodes in lockstep makes one
backend call per prompting stage. The implementations live in :mod:`policies.llm.vllm_backend` and
:mod:`policies.llm.openai_backend`; the scoring arithmetic they share in :mod:`policies.llm.scoring`.
"""

from __future__ import annotations

import abc
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Self

from policies.llm.errors import InvalidRequest

Messages = list[dict[str, Any]]

#: Why a backend retried a request; every retry has exactly one: an HTTP status worth retrying
#: (408/409/429 are ``http_4xx``, 500/502/503/... ``http_5xx``), an attempt that timed out
#: (``timeout``), a connection that failed (``connection``), or an HTTP 200 whose body was not a
#: valid completion (``invalid_reply``).
FAULT_KINDS = ("http_4xx", "http_5xx", "timeout", "connection", "invalid_reply")


def new_faults() -> dict[str, int]:
    """Zeroed fault counts of one request (or episode): ``retries`` and one count per :data:`FAULT_KINDS`
    (``retries`` is their sum)."""
    return {"retries": 0, **dict.fromkeys(FAULT_KINDS, 0)}


def add_faults(into: dict[str, int], faults: Mapping[str, int]) -> dict[str, int]:
    """Add the counts of ``faults`` (the :func:`new_faults` shape) to ``into``; returns ``into``."""
    for key, value in faults.items():
        into[key] = into.get(key, 0) + int(value)
    return into


@dataclass(frozen=True)
class ChatRequest:
    """One chat completion to sample.

    Attributes:
        messages: OpenAI-style chat messages (``{"role": ..., "content": ...}``).
        max_tokens: upper bound on generated tokens (>= 1), or None for no cap: a server gets no
            ``max_tokens`` (its own default applies, as in a request that names none), an in-process
            engine generates up to the model's length.
        temperature: sampling temperature (0 = greedy).
        seed: per-request sampling seed; the same seed gives the same text on vLLM.
        stop: strings that end generation (not included in the text).
        send_seed: False: a server gets no ``seed`` (a request exactly as a protocol that sends none,
            e.g. the papers' own scripts); an in-process engine, to which nothing is sent, still
            samples with ``seed`` so that a run repeats.
    """

    messages: Messages
    max_tokens: int | None
    temperature: float
    seed: int | None
    stop: list[str] | None = None
    send_seed: bool = True

    def __post_init__(self) -> None:
        check_messages(self.messages, "ChatRequest.messages")
        if self.max_tokens is not None and (
            isinstance(self.max_tokens, bool) or not isinstance(self.max_tokens, int) or self.max_tokens < 1
        ):
            raise InvalidRequest(f"ChatRequest.max_tokens must be an int >= 1 or None, got {self.max_tokens!r}.")
        if not isinstance(self.send_seed, bool):
            raise InvalidRequest(f"ChatRequest.send_seed must be a bool, got {self.send_seed!r}.")
        if self.temperature < 0:
            raise InvalidRequest(f"ChatRequest.temperature must be >= 0, got {self.temperature!r}.")


@dataclass(frozen=True)
class Generation:
    """A sampled reply and its token usage."""

    text: str
    prompt_tokens: int
    completion_tokens: int


@dataclass(frozen=True)
class ScoreRequest:
    """Log-probability of each continuation appended to one prompt.

    Attributes:
        messages_or_prompt: a plain string (encoded as the tokenizer encodes text, e.g. with BOS),
            or chat messages, rendered with the model's chat template and generation prompt.
        continuations: the strings to score, appended verbatim (include a leading space if the
            label should follow one).
    """

    messages_or_prompt: str | Messages
    continuations: list[str]

    def __post_init__(self) -> None:
        if not isinstance(self.messages_or_prompt, str):
            check_messages(self.messages_or_prompt, "ScoreRequest.messages_or_prompt")
        if isinstance(self.continuations, str) or not all(isinstance(c, str) for c in self.continuations):
            raise InvalidRequest(
                "ScoreRequest.continuations must be a list of strings, e.g. [' Rock', ' Paper'], "
                f"got {self.continuations!r}."
            )

    @property
    def is_chat(self) -> bool:
        """Whether the prompt is chat messages (rendered with the chat template)."""
        return not isinstance(self.messages_or_prompt, str)


@dataclass
class BackendStats:
    """Counters a backend accumulates over its lifetime.

    Attributes:
        calls: ``generate``/``score`` calls.
        requests: prompts sent to the engine or server (retries not counted).
        prompt_tokens: prompt tokens processed.
        completion_tokens: tokens generated.
        prefix_cache_hit_tokens: prompt tokens served from the prefix cache, or None when the
            engine or server does not report it.
        retries: retried HTTP attempts (OpenAI backend).
        faults: the retried attempts by cause (:data:`FAULT_KINDS`); they add up to ``retries``.
    """

    calls: int = 0
    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    prefix_cache_hit_tokens: int | None = None
    retries: int = 0
    faults: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FAULT_KINDS, 0))

    def add_fault(self, kind: str) -> None:
        """Count one retried attempt caused by ``kind`` (one of :data:`FAULT_KINDS`)."""
        self.retries += 1
        self.faults[kind] = self.faults.get(kind, 0) + 1

    def add_usage(self, prompt: int, completion: int, cached: int | None) -> None:
        """Count one served request."""
        self.requests += 1
        self.prompt_tokens += prompt
        self.completion_tokens += completion
        if cached is not None:
            self.prefix_cache_hit_tokens = (self.prefix_cache_hit_tokens or 0) + cached


def charge_faults(faults: list[dict[str, int]], uses: Sequence[set[int]], sent: Sequence[dict[str, int]]) -> None:
    """Add the faults of each prompt a call sent (``sent[q]``) to the first request that needed it.

    ``faults[i]`` are request ``i``'s counts and ``uses[i]`` the prompts it needed (a scoring call
    sends a prompt shared by several requests once): its retries are the first such request's."""
    seen: set[int] = set()
    for i, used in enumerate(uses):
        for q in sorted(used - seen):
            add_faults(faults[i], sent[q])
        seen |= used


def check_messages(messages: Any, what: str) -> None:
    """Raise :class:`InvalidRequest` unless ``messages`` is a non-empty list of role/content dicts."""
    ok = isinstance(messages, list) and len(messages) > 0
    ok = ok and all(isinstance(m, dict) and "role" in m and "content" in m for m in messages)
    if not ok:
        raise InvalidRequest(
            f"{what} must be a non-empty list of {{'role': ..., 'content': ...}} dicts, got {messages!r}."
        )


# --------------------------------------------------------------------------------------------- interface


class Backend(abc.ABC):
    """What LLM strategies need from a model: batched sampling and batched scoring.

    Backends are context managers; :meth:`close` releases the engine or connections.

    A backend that retries failed attempts (a server client) says, after each call, what every
    request of it met on the way (:meth:`last_faults`), so the caller can count them where the
    request belongs (an episode's counters): retries never change a reply, only how it was obtained.
    """

    stats: BackendStats

    @abc.abstractmethod
    def generate(self, requests: Sequence[ChatRequest]) -> list[Generation]:
        """Sample one reply per request, all in one batched engine call.

        Args:
            requests: the chats to complete.

        Returns:
            One :class:`Generation` per request, in order.
        """

    @abc.abstractmethod
    def score(self, requests: Sequence[ScoreRequest]) -> list[list[float]]:
        """Log-probability (natural log, summed over tokens) of every continuation of every request.

        Args:
            requests: prompts with their continuations.

        Returns:
            ``result[i][j]`` is the score of ``requests[i].continuations[j]``.

        Backends may offer several ways to get there (``scoring_path``: next-token requests served by
        the prefix cache, or prompt log-probabilities; :mod:`policies.llm.scoring`); all give these
        same scores.

        Raises:
            ScoringUnsupported: the backend cannot return the log-probabilities it needs.
        """

    def last_faults(self) -> list[dict[str, int]]:
        """Per request of the last :meth:`generate` or :meth:`score` call made from this thread, in
        order, its retries and their causes (:func:`new_faults`); ``[]`` when that call met none that
        the backend counts (an in-process engine retries nothing) or no call was made. A scoring call
        may send one prompt for several requests: its retries count for the first request that needed it."""
        local = self.__dict__.get("_fault_local")
        return list(getattr(local, "faults", [])) if local is not None else []

    def _note_faults(self, faults: list[dict[str, int]]) -> None:
        """Keep ``faults`` (one entry per request of the call just made) for :meth:`last_faults` (per thread)."""
        local = self.__dict__.get("_fault_local")
        if local is None:
            local = self.__dict__.setdefault("_fault_local", threading.local())
        local.faults = faults

    @abc.abstractmethod
    def close(self) -> None:
        """Release the engine or the connections; the backend is unusable afterwards."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = [
    "FAULT_KINDS",
    "Backend",
    "BackendStats",
    "ChatRequest",
    "Generation",
    "Messages",
    "ScoreRequest",
    "add_faults",
    "charge_faults",
    "check_messages",
    "new_faults",
]
