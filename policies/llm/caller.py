"""The one batched LLM caller: prompting stages, bounded re-asks, explicit fallbacks, one set of counters.

Every LLM decision in tom-envs (a matrix-game action, a QA answer, a negotiation party's thought, a
judge's score) is an :class:`Ask` handed to :meth:`Caller.ask` together with every other decision of
the same prompting stage. The caller makes ONE ``backend.generate`` call for all of them, parses each
reply, and re-asks only the decisions whose reply did not parse -- again one call per re-ask round --
at most ``max_resamples`` times. After the bound the configured fallback applies: ``"raise"``
(:class:`ResampleLimitReached`, naming the stage and the last problem) or ``"random"`` (the ask's
random valid value, drawn from its owner's generator, flagged in the log and counted). A reply is
never silently mapped to a default. :meth:`Caller.score` scores continuations (one ``backend.score``
call) and :meth:`Caller.text` takes free text as is.

Who an ask belongs to is its :class:`Owner`: the generator its sampling seeds and fallbacks come
from, the counters it adds to (:data:`COUNTERS`, one naming everywhere) and the log it writes. A
matrix or QA episode slot is an owner (:class:`policies.llm.slots.Slot`); a negotiation component's
default owner is an :class:`EventLog`.

Backend faults: a server client retries failed attempts (HTTP 5xx, timeouts, invalid replies) and
says after each call which request met which (:meth:`~policies.llm.base.Backend.last_faults`). The
caller adds each request's counts to its owner's counters as :data:`FAULT_COUNTERS`, only when
there are any (a run without faults keeps exactly the counters it had), so every episode knows the
retries its own requests took. :func:`split_faults` takes them out of an episode's counters again:
the runner stores them in the record as ``llm_faults`` (:mod:`benchmarks.runner`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, TypedDict

import numpy as np

from policies.llm.base import FAULT_KINDS, Backend, ChatRequest, Generation, Messages, ScoreRequest, new_faults
from policies.llm.errors import InvalidPolicyConfig, ReplyError, ResampleLimitReached
from policies.llm.scoring import softmax

#: What to do when no reply parsed within the bound.
FALLBACKS = ("raise", "random")
#: The counters every owner keeps: backend calls it took part in, prompts sent for it, decisions
#: asked, replies that did not parse, and random fallbacks.
COUNTERS = ("backend_calls", "requests", "decisions", "parse_failures", "fallbacks")
#: An owner's fault counters (present only once a request of it was retried): retried attempts, and
#: by cause (:data:`policies.llm.base.FAULT_KINDS`). A record's ``llm_faults`` holds them without the prefix.
FAULT_COUNTERS = ("llm_retries", *(f"llm_{kind}" for kind in FAULT_KINDS))
#: Sampling seeds are drawn from ``[0, SEED_BOUND)``.
SEED_BOUND = 2**31 - 1


def new_counters() -> dict[str, int]:
    """A fresh, zeroed set of :data:`COUNTERS`."""
    return dict.fromkeys(COUNTERS, 0)


def check_caller_args(
    *, max_resamples: Any, fallback: Any, temperature: Any, max_tokens: Any, bound_name: str = "max_resamples"
) -> None:
    """Validate the arguments every LLM policy and component shares.

    Args:
        max_resamples: re-asks after the first attempt (an int >= 0).
        fallback: one of :data:`FALLBACKS`.
        temperature: sampling temperature (>= 0).
        max_tokens: generation cap (an int >= 1), or None for per-stage defaults.
        bound_name: the keyword the caller of this function used for ``max_resamples``.

    Raises:
        InvalidPolicyConfig: an argument is out of range; the message names it and what is allowed.
    """
    if fallback not in FALLBACKS:
        raise InvalidPolicyConfig(f"fallback must be one of {FALLBACKS}, got {fallback!r}.")
    if isinstance(max_resamples, bool) or not isinstance(max_resamples, int) or max_resamples < 0:
        raise InvalidPolicyConfig(f"{bound_name} must be an integer >= 0, got {max_resamples!r}.")
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or temperature < 0:
        raise InvalidPolicyConfig(f"temperature must be a number >= 0, got {temperature!r}.")
    if max_tokens is not None and (isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1):
        raise InvalidPolicyConfig(f"max_tokens must be an integer >= 1 (or None), got {max_tokens!r}.")


def split_faults(stats: Any) -> tuple[Any, dict[str, int] | None]:
    """An episode's counters without the fault counters, and the faults as a record stores them.

    ``stats`` is one owner's counters (a dict with the :data:`COUNTERS`), or a mapping of such
    counters (an AEC episode's: by policy). Returns ``(stats without FAULT_COUNTERS, faults)``, the
    faults summed over every set of counters in the :func:`~policies.llm.base.new_faults` shape
    (zeros when no request was retried), or ``(stats, None)`` when ``stats`` holds no caller's
    counters (a scripted policy's, or None): only an LLM caller's episodes carry faults.
    """
    if not isinstance(stats, dict):
        return stats, None
    if _is_counters(stats):
        faults = new_faults()
        for name in FAULT_COUNTERS:
            faults[name.removeprefix("llm_")] += int(stats.get(name, 0))
        return {k: v for k, v in stats.items() if k not in FAULT_COUNTERS}, faults
    if stats and all(isinstance(v, dict) for v in stats.values()) and any(_is_counters(v) for v in stats.values()):
        total = new_faults()
        rest = {}
        for key, value in stats.items():
            rest[key], faults = split_faults(value)
            for name, count in (faults or {}).items():
                total[name] += count
        return rest, total
    return stats, None


def _is_counters(stats: dict) -> bool:
    return all(name in stats for name in COUNTERS)


def user(content: str) -> Messages:
    """One user message."""
    return [{"role": "user", "content": content}]


# --------------------------------------------------------------------------------------------- owners


class Owner(Protocol):
    """Whom a decision belongs to: where its randomness comes from, what it counts, what it logs.

    Attributes:
        rng: sampling seeds and random fallbacks are drawn from it.
        stats: the :data:`COUNTERS` the decision adds to.
        where: a few words locating the decision in error messages (e.g. " of round 3"), or "".
    """

    rng: np.random.Generator
    stats: dict[str, int]
    where: str

    def on_begin(self, stage: str, kind: str) -> None:
        """A decision of ``kind`` (``"generate"``, ``"text"``) starts."""

    def on_call(self, stage: str, size: int) -> None:
        """The decision took part in a backend call serving ``size`` decisions."""

    def on_attempt(
        self, stage: str, attempt: int, request: ChatRequest, reply: Generation, value: Any, error: str | None
    ) -> None:
        """A reply arrived; ``error`` says why it did not parse (None when it did)."""

    def on_fallback(self, stage: str, value: Any) -> None:
        """No reply parsed; ``value`` was drawn at random."""

    def on_score(
        self, stage: str, prompt: str | Messages, continuations: list[str], logprobs: list[float], probs: list[float]
    ) -> None:
        """Continuations were scored."""


@dataclass
class EventLog:
    """An owner that logs events to a list: ``{"stage", "attempt", "reply", "value" | "error"}`` per
    reply, ``{"stage", "fallback": True, "value"}`` per fallback and ``{"stage", "kind": "score",
    "prompt", "continuations", "logprobs"}`` per scoring."""

    rng: np.random.Generator
    stats: dict[str, int] = field(default_factory=new_counters)
    events: list[dict] = field(default_factory=list)
    where: str = ""

    def on_begin(self, stage: str, kind: str) -> None:
        pass

    def on_call(self, stage: str, size: int) -> None:
        pass

    def on_attempt(
        self, stage: str, attempt: int, request: ChatRequest, reply: Generation, value: Any, error: str | None
    ) -> None:
        outcome = {"error": error} if error is not None else {"value": value}
        self.events.append({"stage": stage, "attempt": attempt, "reply": reply.text, **outcome})

    def on_fallback(self, stage: str, value: Any) -> None:
        self.events.append({"stage": stage, "fallback": True, "value": value})

    def on_score(
        self, stage: str, prompt: str | Messages, continuations: list[str], logprobs: list[float], probs: list[float]
    ) -> None:
        self.events.append(
            {"stage": stage, "kind": "score", "prompt": prompt, "continuations": continuations, "logprobs": logprobs}
        )


# --------------------------------------------------------------------------------------------- asks


@dataclass
class Ask:
    """One decision to generate.

    Attributes:
        prompt: the user message.
        parse: reply text -> value; raises :class:`ReplyError` (saying why) for an unusable reply.
            None accepts the text as is (free text, never re-asked).
        random: a random valid value from a generator (the ``"random"`` fallback).
        owner: whose decision it is; None for the caller's own :class:`EventLog`.
        messages: the whole chat to send (e.g. a system message, then the user message) instead
            of ``prompt`` as one user message; None sends ``prompt``. A re-ask's note is appended
            to the last message.
    """

    prompt: str
    parse: Callable[[str], Any] | None = None
    random: Callable[[np.random.Generator], Any] | None = None
    owner: Owner | None = None
    messages: Messages | None = None


@dataclass
class ScoreAsk:
    """One prompt whose continuations are scored (log-probabilities, then their softmax).

    ``lengths`` (optional, one positive number per continuation) divides each log-probability
    before the softmax: length-normalised scoring with each continuation's token count. The log
    keeps the raw log-probabilities; the probabilities are those of the normalised scores.
    """

    prompt: str | Messages
    continuations: list[str]
    owner: Owner | None = None
    lengths: list[float] | None = None


@dataclass
class Answer:
    """How an :class:`Ask` was decided: the value, the accepted reply (None after a fallback),
    whether the fallback chose, and how many replies failed to parse."""

    value: Any
    reply: str | None
    fallback: bool = False
    failures: int = 0


# --------------------------------------------------------------------------------------------- the caller


class Caller:
    """Asks a backend for many decisions at once: one call per stage and re-ask round.

    Args:
        backend: the model.
        max_resamples: re-asks after the first attempt (total ``1 + max_resamples``; None: 10). The
            old name ``max_reasks`` is retired: passing it is a named error that says so.
        fallback: ``"raise"`` or ``"random"`` (flagged), see the module docstring.
        temperature: sampling temperature of generated replies.
        max_tokens: generation cap per reply, or None when every :meth:`ask` gives its own.
        seed: seeds the generator of the caller's own owner (sampling seeds and fallbacks of asks
            without an owner).
        reask_note: appended to the prompt of a re-ask, formatted with ``error`` (why the previous
            reply was unusable); None re-sends the prompt unchanged with a fresh seed.
        resample_temperature: sampling temperature of re-asks (attempts after the first); None
            uses ``temperature`` for every attempt.
        uncapped: requests carry no generation cap (:class:`~policies.llm.base.ChatRequest`
            ``max_tokens=None``), as a protocol whose requests name none; ``max_tokens`` must then be None.
        send_seed: False: servers get no per-request ``seed`` (in-process engines still use it, so a
            run repeats; ``ChatRequest.send_seed``).

    Attributes:
        calls: ``(stage, decisions)`` of every backend call since the last :meth:`reset`.
        stats: the counters of the caller's own owner.
        log: the events of the caller's own owner.

    Raises:
        InvalidPolicyConfig: an argument is out of range (see :func:`check_caller_args`).
    """

    def __init__(
        self,
        backend: Backend,
        *,
        max_resamples: int | None = None,
        fallback: str = "raise",
        temperature: float = 0.7,
        max_tokens: int | None = None,
        seed: int | None = None,
        reask_note: str | None = None,
        max_reasks: int | None = None,
        resample_temperature: float | None = None,
        uncapped: bool = False,
        send_seed: bool = True,
    ) -> None:
        if max_reasks is not None:
            raise InvalidPolicyConfig(
                f"max_reasks is the retired name of max_resamples: pass max_resamples={max_reasks!r} instead"
            )
        bound = 10 if max_resamples is None else max_resamples
        name = "max_resamples"
        check_caller_args(
            max_resamples=bound, fallback=fallback, temperature=temperature, max_tokens=max_tokens, bound_name=name
        )
        for flag, value in (("uncapped", uncapped), ("send_seed", send_seed)):
            if not isinstance(value, bool):
                raise InvalidPolicyConfig(f"{flag} must be True or False, got {value!r}.")
        if uncapped and max_tokens is not None:
            raise InvalidPolicyConfig(
                f"uncapped=True sends no generation cap, but max_tokens={max_tokens!r} was "
                "given: pass one or the other."
            )
        self.uncapped, self.send_seed = uncapped, send_seed
        self.backend, self.max_resamples, self.fallback = backend, bound, fallback
        if resample_temperature is not None:
            check_caller_args(
                max_resamples=bound,
                fallback=fallback,
                temperature=resample_temperature,
                max_tokens=max_tokens,
                bound_name=name,
            )
        self.temperature, self.max_tokens, self.reask_note = temperature, max_tokens, reask_note
        self.resample_temperature = resample_temperature
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Reseed the caller's own owner and clear its counters, log and call list."""
        self.owner = EventLog(np.random.default_rng(seed))
        self.calls: list[tuple[str, int]] = []

    @property
    def rng(self) -> np.random.Generator:
        """The generator of the caller's own owner."""
        return self.owner.rng

    @property
    def stats(self) -> dict[str, int]:
        """The counters of the caller's own owner."""
        return self.owner.stats

    @property
    def log(self) -> list[dict]:
        """The events of the caller's own owner."""
        return self.owner.events

    # -- generation
    def ask(self, stage: str, asks: Sequence[Ask], *, max_tokens: int | None = None) -> list[Answer]:
        """Decide every ask of one stage: one backend call per round over the asks still undecided.

        Args:
            stage: the stage's name (in logs, call lists and errors).
            asks: the decisions.
            max_tokens: cap for this stage; None for the caller's ``max_tokens``.

        Raises:
            ResampleLimitReached: a reply never parsed and the fallback is ``"raise"``.
        """
        if not asks:
            return []
        parsed = [a.parse is not None for a in asks]
        if any(parsed) != all(parsed):
            raise InvalidPolicyConfig(f"stage {stage!r} mixes parsed asks and free text; ask them in separate stages.")
        kind = "generate" if parsed[0] else "text"
        owners = [self._owner(a) for a in asks]
        for owner in owners:
            owner.stats["decisions"] += 1
            owner.on_begin(stage, kind)
        tokens = self._tokens(max_tokens)
        answers: list[Answer | None] = [None] * len(asks)
        failures = [0] * len(asks)
        errors = [""] * len(asks)
        last_replies = [""] * len(asks)
        pending = list(range(len(asks)))
        for attempt in range(self.max_resamples + 1 if kind == "generate" else 1):
            if not pending:
                break
            requests = [self._request(asks[i], owners[i], attempt, errors[i], tokens) for i in pending]
            replies = self.backend.generate(requests)
            self._count_call(stage, [owners[i] for i in pending])
            self._count_faults([owners[i] for i in pending])
            still = []
            for i, request, reply in zip(pending, requests, replies):
                value, error = _parse(asks[i].parse, reply.text)
                owners[i].on_attempt(stage, attempt, request, reply, value, error)
                if error is None:
                    answers[i] = Answer(value, reply.text, False, failures[i])
                    continue
                failures[i] += 1
                owners[i].stats["parse_failures"] += 1
                errors[i], last_replies[i] = error, reply.text
                still.append(i)
            pending = still
        for i in pending:
            problem = f"{errors[i]}; last reply: {last_replies[i][:200]!r}"
            answers[i] = self._fall_back(stage, asks[i], owners[i], failures[i], problem)
        return answers  # type: ignore[return-value]

    def text(self, stage: str, asks: Sequence[Ask], *, max_tokens: int | None = None) -> list[str]:
        """Free text, one reply per ask taken as is (one backend call; asks need no ``parse``)."""
        free = [Ask(a.prompt, None, None, a.owner, a.messages) for a in asks]
        return [a.reply or "" for a in self.ask(stage, free, max_tokens=max_tokens)]

    # -- scoring
    def score(self, stage: str, asks: Sequence[ScoreAsk]) -> list[np.ndarray]:
        """Probabilities (softmax of the log-probabilities) of each ask's continuations, one ``backend.score`` call."""
        if not asks:
            return []
        owners = [self._owner(a) for a in asks]
        rows = self.backend.score([ScoreRequest(a.prompt, list(a.continuations)) for a in asks])
        for owner in owners:
            owner.stats["decisions"] += 1
        self._count_call(stage, owners)
        self._count_faults(owners)
        out = []
        for ask, owner, row in zip(asks, owners, rows):
            probs = softmax(row if ask.lengths is None else [x / n for x, n in zip(row, ask.lengths)])
            owner.on_score(stage, ask.prompt, list(ask.continuations), [float(x) for x in row], probs.tolist())
            out.append(probs)
        return out

    # -- helpers
    def _owner(self, ask: Ask | ScoreAsk) -> Owner:
        return self.owner if ask.owner is None else ask.owner

    def _tokens(self, max_tokens: int | None) -> int | None:
        tokens = self.max_tokens if max_tokens is None else max_tokens
        if tokens is None and self.uncapped:
            return None
        if tokens is None:
            raise InvalidPolicyConfig("no max_tokens: give the Caller a max_tokens, or pass one to ask().")
        return tokens

    def _request(self, ask: Ask, owner: Owner, attempt: int, error: str, tokens: int | None) -> ChatRequest:
        note = self.reask_note.format(error=error) if attempt and self.reask_note is not None else ""
        if ask.messages is None:
            messages = user(ask.prompt + note)
        else:
            messages = [dict(m) for m in ask.messages]
            if note and messages:
                messages[-1]["content"] += note
        temperature = self.temperature
        if attempt and self.resample_temperature is not None:
            temperature = self.resample_temperature
        seed = int(owner.rng.integers(0, SEED_BOUND))
        return ChatRequest(messages, tokens, temperature, seed, send_seed=self.send_seed)

    def _count_call(self, stage: str, owners: Sequence[Owner]) -> None:
        self.calls.append((stage, len(owners)))
        counted: set[int] = set()
        for owner in owners:
            owner.on_call(stage, len(owners))
            owner.stats["requests"] += 1
            if id(owner.stats) not in counted:  # one call, counted once per set of counters
                counted.add(id(owner.stats))
                owner.stats["backend_calls"] += 1

    def _count_faults(self, owners: Sequence[Owner]) -> None:
        """Add the retries each request of the backend call just made met to its owner's counters
        (:data:`FAULT_COUNTERS`, only those that are not zero)."""
        read = getattr(self.backend, "last_faults", None)
        faults = list(read()) if callable(read) else []
        if len(faults) != len(owners):  # a backend that counts none (in-process engines)
            return
        for owner, counts in zip(owners, faults):
            for kind, count in counts.items():
                if count:
                    owner.stats[f"llm_{kind}"] = owner.stats.get(f"llm_{kind}", 0) + int(count)

    def _fall_back(self, stage: str, ask: Ask, owner: Owner, failures: int, problem: str) -> Answer:
        if self.fallback == "raise" or ask.random is None:
            raise ResampleLimitReached(
                f"stage {stage!r}{owner.where}: none of {self.max_resamples + 1} replies could be used (last "
                f"problem: {problem}). Raise max_resamples, give the model more max_tokens, or build it with "
                "fallback='random' to use a uniformly random valid answer (flagged in the log) instead."
            )
        value = ask.random(owner.rng)
        owner.stats["fallbacks"] += 1
        owner.on_fallback(stage, value)
        return Answer(value, None, True, failures)


class CallerSettings(TypedDict, total=False):
    """The settings of a model-asking object's :class:`Caller` (:class:`AsksModel`)."""

    max_resamples: int
    fallback: str
    temperature: float
    max_tokens: int | None
    seed: int | None


class AsksModel:
    """An object that asks a model through one :class:`Caller` (``self.caller``) and reports its counters
    (:attr:`stats`). Its constructor takes the backend and the caller's settings (:class:`CallerSettings`) by
    keyword; a subclass states the settings it takes and their defaults in :attr:`defaults`, and the ones it
    fixes in :attr:`fixed`. A setting passed as None takes the class's default.

    Raises:
        InvalidPolicyConfig: a setting the class does not take, or one out of range (:func:`check_caller_args`).
    """

    #: the settings the class takes and their defaults
    defaults: ClassVar[dict[str, Any]] = {
        "max_resamples": 3,
        "fallback": "raise",
        "temperature": 0.0,
        "max_tokens": None,
        "seed": 0,
    }
    #: settings the class fixes (not taken by its constructor)
    fixed: ClassVar[dict[str, Any]] = {}

    def __init__(self, backend: Backend, **settings: Any) -> None:
        unknown = sorted(set(settings) - set(self.defaults))
        if unknown:
            raise InvalidPolicyConfig(
                f"{type(self).__name__} takes the settings {', '.join(self.defaults)}; got {', '.join(unknown)}."
            )
        given = {k: v for k, v in settings.items() if v is not None}
        self.caller = Caller(backend, **{**self.defaults, **given, **self.fixed})

    @property
    def stats(self) -> dict[str, int]:
        """The caller's counters (requests, parse failures, fallbacks, ...) over every call since construction."""
        return self.caller.stats


def _parse(parse: Callable[[str], Any] | None, text: str) -> tuple[Any, str | None]:
    if parse is None:
        return text, None
    try:
        return parse(text), None
    except ReplyError as exc:
        return None, str(exc)[:200]


__all__ = [
    "AsksModel",
    "COUNTERS",
    "FAULT_COUNTERS",
    "FALLBACKS",
    "Answer",
    "Ask",
    "Caller",
    "CallerSettings",
    "EventLog",
    "Owner",
    "ScoreAsk",
    "check_caller_args",
    "new_counters",
    "split_faults",
    "user",
]
