"""The suite's episode, turned inside out: the model's replies come from outside, one at a time.

The suite's LLM policies call a backend and wait (``backend.generate(requests)``); RL trainers
(verifiers, TRL over OpenEnv) do the opposite: they hold the model, ask the environment for the next
prompt and hand it the reply. :class:`SteppedEpisode` joins the two without a second prompt builder
or parser: it runs the family's own play (its Inspect episode or question, the suite's runner,
scripted partners inside) in a worker thread whose model is a :class:`HandoffBackend`. Each request
the policy makes comes out as a :class:`Turn`; the reply given to :meth:`SteppedEpisode.reply` goes
back to the policy, which parses it with the suite's parser (re-asking the way the family's command
does) and steps the env until it needs the model again or the episode ends.

A batch of several requests (a policy that asks two things per step) comes out one request per turn,
in order; the policy gets the whole batch's replies together.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from benchmarks.train.errors import TrainEnvError
from policies.llm.base import Backend, BackendStats, ChatRequest, Generation, ScoreRequest
from policies.llm.errors import ScoringUnsupported

__all__ = ["HandoffBackend", "SteppedEpisode", "Turn"]


@dataclass(frozen=True)
class Turn:
    """One request the policy makes: the chat messages the suite's prompt builder wrote and the
    sampling settings the family's command would send with them."""

    messages: list[dict[str, Any]]
    max_tokens: int | None
    temperature: float
    stop: list[str] | None


class _Abandoned(BaseException):
    """Raised inside the worker when the episode is closed before it ends (not an ``Exception``, so
    that no policy's error handling turns it into a fallback answer)."""


class HandoffBackend(Backend):
    """A backend whose replies come from the thread that drives the episode (the trainer's model)."""

    name = "handoff"

    def __init__(self) -> None:
        self.stats = BackendStats()
        self.requests: queue.Queue[Any] = queue.Queue()
        self.replies: queue.Queue[Any] = queue.Queue()

    def generate(self, requests: Sequence[ChatRequest]) -> list[Generation]:
        out = []
        self.stats.calls += 1
        for request in requests:
            self.requests.put(
                Turn(
                    [dict(m) for m in request.messages],
                    request.max_tokens,
                    float(request.temperature),
                    list(request.stop) if request.stop else None,
                )
            )
            text = self.replies.get()
            if text is _Abandoned:
                raise _Abandoned()
            out.append(Generation(str(text), 0, 0))
        return out

    def score(self, requests: Sequence[ScoreRequest]) -> list[list[float]]:
        raise ScoringUnsupported(
            "a trained model answers in text; pick a generating strategy (qa, cot, ...), not "
            "one that scores labels by log-probability"
        )

    def close(self) -> None:
        """Nothing to release (the episode's worker owns the queues)."""


_DONE = object()


class SteppedEpisode:
    """One episode (or question) of the suite played by replies given from outside.

    Args:
        play: ``play(backend) -> record``: the family's own play on ``backend`` (run in a worker thread).

    Use: ``turn = ep.start()``; while ``turn`` is not None: ``turn = ep.reply(model(turn.messages))``;
    then ``ep.record`` is the family's record of the episode. :meth:`close` ends an episode left
    unfinished (its worker stops at its next request).
    """

    def __init__(self, play: Callable[[Backend], dict[str, Any]]) -> None:
        self._play = play
        self.backend = HandoffBackend()
        self.record: dict[str, Any] | None = None
        self.turns: list[Turn] = []
        self.replies: list[str] = []
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None
        self._pending = False

    def _run(self) -> None:
        try:
            self.record = self._play(self.backend)
        except _Abandoned:
            return
        except BaseException as error:  # handed to the driving thread, which raises it
            self._error = error
        self.backend.requests.put(_DONE)

    def _next(self) -> Turn | None:
        got = self.backend.requests.get()
        if got is _DONE:
            self._pending = False
            if self._error is not None:
                raise self._error
            return None
        self._pending = True
        self.turns.append(got)
        return got

    def start(self) -> Turn | None:
        """Start the play; the first request, or None when the episode needed no model."""
        if self._thread is not None:
            raise TrainEnvError("this episode has started already: call reply(text) with the model's reply")
        self._thread = threading.Thread(target=self._run, daemon=True, name="tom-envs-episode")
        self._thread.start()
        return self._next()

    def reply(self, text: str) -> Turn | None:
        """Give the model's reply to the last request; the next request, or None at the episode's end."""
        if not self._pending:
            raise TrainEnvError(
                "no request is waiting for a reply: start() the episode first, and stop when a "
                "call returned None (the episode ended)"
            )
        if not isinstance(text, str):
            raise TrainEnvError(f"a reply is the model's text (str), got {type(text).__name__}")
        self.replies.append(text)
        self.backend.replies.put(text)
        return self._next()

    @property
    def done(self) -> bool:
        """True once the play returned (its record is set)."""
        return self._thread is not None and not self._pending

    def close(self) -> None:
        """Stop an unfinished episode's worker (no record is made)."""
        if self._pending:
            self._pending = False
            self.backend.replies.put(_Abandoned)
