"""Model backends for LLM policies (a re-export module; the code lives by concern).

* :mod:`policies.llm.base` -- request types, usage counters, the :class:`Backend` interface;
* :mod:`policies.llm.scoring` -- continuation log-probabilities, token planning, chat rendering;
* :mod:`policies.llm.vllm_backend` -- :class:`VLLMBackend` (in-process engine);
* :mod:`policies.llm.openai_backend` -- :class:`OpenAIBackend` (any OpenAI-compatible server).

Heavy packages (``vllm``, ``openai``, ``transformers``) are imported only when a backend is built.
"""

from __future__ import annotations

from policies.llm.base import Backend, BackendStats, ChatRequest, Generation, Messages, ScoreRequest
from policies.llm.openai_backend import OpenAIBackend
from policies.llm.scoring import continuation_logprob, render_chat
from policies.llm.vllm_backend import VLLMBackend

__all__ = [
    "Backend",
    "BackendStats",
    "ChatRequest",
    "Generation",
    "Messages",
    "OpenAIBackend",
    "ScoreRequest",
    "VLLMBackend",
    "continuation_logprob",
    "render_chat",
]
