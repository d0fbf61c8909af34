"""The LLM layer: model backends, the one batched caller, and the policies built on them.

* backends -- :mod:`~policies.llm.base` (request types, the :class:`Backend` interface),
  :mod:`~policies.llm.scoring`, :mod:`~policies.llm.vllm_backend`, :mod:`~policies.llm.openai_backend`
  (with :mod:`~policies.llm.openai_retry`, :mod:`~policies.llm.openai_scoring` and
  :mod:`~policies.llm.openai_replies`), and :func:`build_backend` (:mod:`~policies.llm.build`);
* the caller -- :mod:`~policies.llm.caller` (stages, bounded re-asks, fallbacks, counters), with
  :mod:`~policies.llm.parsing` and :mod:`~policies.llm.slots`; every error in :mod:`~policies.llm.errors`;
* the generic QA answerer -- :mod:`~policies.llm.qa`.

The families' LLM agents live in their own folders on top of this core (:mod:`policies.matrix.llm`,
:mod:`policies.negotiation.llm`, ...).

Importing this package is cheap: ``vllm``, ``openai`` and ``transformers`` load only when a backend
is built.
"""

from policies.llm.base import Backend, BackendStats, ChatRequest, Generation, ScoreRequest
from policies.llm.build import BACKEND_KINDS, build_backend
from policies.llm.caller import COUNTERS, FALLBACKS, Answer, Ask, Caller, EventLog, ScoreAsk, check_caller_args
from policies.llm.errors import (
    BackendConfigError,
    BackendError,
    InvalidPolicyConfig,
    InvalidReply,
    InvalidRequest,
    OracleActionUnavailable,
    QAObservationError,
    ReplyError,
    ResampleLimitReached,
    RetryBudgetExhausted,
    ScoringUnsupported,
    UnknownStrategy,
)
from policies.llm.openai_backend import OpenAIBackend
from policies.llm.qa import LLMQAAnswerer
from policies.llm.vllm_backend import VLLMBackend

__all__ = [
    "BACKEND_KINDS",
    "COUNTERS",
    "FALLBACKS",
    "Answer",
    "Ask",
    "Backend",
    "BackendConfigError",
    "BackendError",
    "BackendStats",
    "Caller",
    "ChatRequest",
    "EventLog",
    "Generation",
    "InvalidPolicyConfig",
    "InvalidReply",
    "InvalidRequest",
    "LLMQAAnswerer",
    "OpenAIBackend",
    "OracleActionUnavailable",
    "QAObservationError",
    "ReplyError",
    "ResampleLimitReached",
    "RetryBudgetExhausted",
    "ScoreAsk",
    "ScoreRequest",
    "ScoringUnsupported",
    "UnknownStrategy",
    "VLLMBackend",
    "build_backend",
    "check_caller_args",
]
