"""An Inspect AI model as the suite's LLM backend (:class:`policies.llm.base.Backend`).

The suite's policies are synchronous: they hand a batch of :class:`~policies.llm.base.ChatRequest`
to ``backend.generate`` and wait. Inspect's models are asynchronous and live on the eval's event
loop. :class:`InspectBackend` joins the two: a solver runs the suite's code in a worker thread
(:func:`run_in_worker`), and each ``generate`` there sends its whole batch back to the event loop
(``anyio.from_thread.run``), where the requests go to the Inspect model concurrently. Each model
call is then an ordinary Inspect model call: it is logged in the sample's transcript, counted in
the eval's usage, retried and rate-limited by Inspect, and bound to whatever model the user named
(``--model``, or a model role: ``--model-role NAME=MODEL``).

Requests carry what the suite's own backends send: the messages, ``temperature``, ``max_tokens``
(None: the provider's default), ``stop`` and the per-request ``seed`` (unless the request says not
to send one, as the papers' own scripts send none). Log-probability scoring is not offered
(:class:`~policies.llm.errors.ScoringUnsupported`): the strategies that score labels need a vLLM
engine or a server with ``echo``; generating strategies work on any Inspect model.

Offline: Inspect's ``mockllm`` fills in the usage of a reply that has none by counting the prompt with
tiktoken's ``o200k_base`` encoding, which tiktoken downloads on first use (no network: the eval fails).
Its usage is made up anyway (it counts a reply's characters as its tokens), so on ``mockllm`` the backend
has it count a prompt as one token per :data:`CHARS_PER_TOKEN` characters, which needs no download:
``inspect eval tom_envs/<task> --model mockllm/model`` runs offline (``HF_HUB_OFFLINE=1``, no tiktoken
cache). Other models are left as they are.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from policies.llm.base import Backend, BackendStats, ChatRequest, Generation, ScoreRequest
from policies.llm.errors import ScoringUnsupported

T = TypeVar("T")

#: Characters per token of the count given to Inspect's ``mockllm`` (offline, instead of tiktoken's).
CHARS_PER_TOKEN = 4

__all__ = ["InspectBackend", "chat_messages", "run_in_worker"]


def chat_messages(messages: Sequence[dict[str, Any]]) -> list[Any]:
    """OpenAI-style ``{"role", "content"}`` messages as Inspect chat messages."""
    from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser

    kinds = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}
    out = []
    for m in messages:
        if m["role"] not in kinds:
            raise ValueError(f"a chat message's role must be one of {', '.join(kinds)}, got {m['role']!r}")
        out.append(kinds[m["role"]](content=str(m["content"])))
    return out


class InspectBackend(Backend):
    """The suite's backend protocol on an Inspect model (``inspect_ai.model.Model``).

    Only usable from a thread started by :func:`run_in_worker` (or ``anyio.to_thread.run_sync``)
    inside an Inspect eval, where the model's event loop runs.

    Args:
        model: the Inspect model (``get_model()``, ``get_model(role=...)``).
        role: the model role it was bound as (for logs and errors), or None for the eval's model.

    Attributes:
        stats: calls, requests and token usage as Inspect reported them.
        replies: every reply text in the order received (the solver stores them with the sample).
    """

    def __init__(self, model: Any, role: str | None = None) -> None:
        self.model = model
        self.role = role
        _count_offline_if_mock(model)
        self.stats = BackendStats()
        self.replies: list[str] = []

    @property
    def name(self) -> str:
        """The model's name as Inspect gives it (``provider/model``)."""
        return str(self.model)

    def generate(self, requests: Sequence[ChatRequest]) -> list[Generation]:
        from anyio import from_thread

        if not requests:
            return []
        self.stats.calls += 1
        outputs = from_thread.run(self._generate_all, list(requests))
        gens = []
        for out in outputs:
            usage = out.usage
            prompt = int(usage.input_tokens) if usage is not None else 0
            completion = int(usage.output_tokens) if usage is not None else 0
            self.stats.add_usage(prompt, completion, None)
            gens.append(Generation(out.completion, prompt, completion))
            self.replies.append(out.completion)
        return gens

    async def _generate_all(self, requests: list[ChatRequest]) -> list[Any]:
        import anyio

        outputs: list[Any] = [None] * len(requests)

        async def one(i: int, request: ChatRequest) -> None:
            outputs[i] = await self.model.generate(chat_messages(request.messages), config=_config(request))

        async with anyio.create_task_group() as group:
            for i, request in enumerate(requests):
                group.start_soon(one, i, request)
        return outputs

    def score(self, requests: Sequence[ScoreRequest]) -> list[list[float]]:
        raise ScoringUnsupported(
            "an Inspect model generates replies; it does not return the log-probabilities the label-scoring "
            "strategies need. Pick a generating strategy or prompt (the Inspect task's parameters), or run "
            "the suite's own command on a vLLM engine (--backend vllm) for scoring."
        )

    def close(self) -> None:
        """Nothing to release: Inspect owns the model and closes it with the eval."""


def _count_offline_if_mock(model: Any) -> None:
    """On Inspect's ``mockllm``, count text without tiktoken (whose encoding is a download)."""
    api = getattr(model, "api", None)
    if type(api).__name__ == "MockLLM" and type(api).__module__.startswith("inspect_ai."):
        # ModelAPI.count_text_tokens is Inspect's documented place for a model's own token count
        api.count_text_tokens = _count_text_offline


async def _count_text_offline(text: str) -> int:
    return max(1, math.ceil(len(text) / CHARS_PER_TOKEN))


def _config(request: ChatRequest) -> Any:
    from inspect_ai.model import GenerateConfig

    return GenerateConfig(
        temperature=request.temperature,
        max_tokens=request.max_tokens,
        stop_seqs=list(request.stop) if request.stop else None,
        seed=request.seed if request.send_seed else None,
    )


async def run_in_worker(fn: Callable[[], T]) -> T:
    """Run the suite's synchronous ``fn`` in a worker thread, from which an :class:`InspectBackend`
    reaches the model on this event loop; the sample's context (its transcript) goes with it."""
    import contextvars

    import anyio

    context = contextvars.copy_context()
    return await anyio.to_thread.run_sync(context.run, fn)
