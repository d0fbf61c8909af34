"""The LLM option group of the command line and the settings it reads back.

:func:`add_llm_options` adds the one LLM group (``--backend --model --base-url --tokenizer
--max-model-len --fallback --max-resamples --lockstep --scoring-path --engine-arg --timeout
--max-retries --retry-budget``; a command may keep a subset, :data:`LLM_OPTIONS`), and
:func:`llm_settings` reads it back as :class:`LLMSettings`, whose :meth:`~LLMSettings.identity` is the one
run identity of an LLM run. The backend those settings name is built by :mod:`benchmarks.cli_backends`.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

from benchmarks.cli_types import MAX_LOCKSTEP, count, non_negative_int, positive_float, positive_int
from benchmarks.errors import RunnerError

BACKENDS = ("vllm", "openai")
FALLBACKS = ("raise", "random")


LLM_OPTIONS = (
    "backend",
    "model",
    "base_url",
    "tokenizer",
    "max_model_len",
    "fallback",
    "max_resamples",
    "lockstep",
    "scoring_path",
    "engine_arg",
    "timeout",
    "max_retries",
    "retry_budget",
)
#: The server options' defaults (those of :class:`policies.llm.OpenAIBackend`).
SERVER_DEFAULTS = {"timeout": 60.0, "max_retries": 6, "retry_budget": 120.0}
#: How a backend gets label log-probabilities (``policies.llm.scoring.SCORING_PATHS`` plus ``auto``).
SCORING_PATH_CHOICES = ("auto", "next-token", "prompt-logprobs")


def engine_arg(text: str) -> tuple[str, Any]:
    """``type=`` for ``--engine-arg KEY=VALUE``: the value read as JSON (true, 4096, ...), else as text."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip().isidentifier():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE with KEY a vllm.LLM argument name, got {text!r}")
    try:
        parsed = json.loads(value)
    except ValueError:
        parsed = {"True": True, "False": False}.get(value, value)
    return key.strip(), parsed


def add_llm_options(
    parser: argparse.ArgumentParser,
    *,
    title: str = "LLM policies (--policy llm)",
    lockstep: int | None = 32,
    lockstep_help: str | None = None,
    max_model_len_help: str | None = None,
    only: Sequence[str] = LLM_OPTIONS,
) -> argparse._ArgumentGroup:
    """The one LLM option group, returned so a family can add its own LLM options to it; ``only`` keeps a
    subset (names as in :data:`LLM_OPTIONS`) for commands that use fewer."""
    unknown = set(only) - set(LLM_OPTIONS)
    if unknown:
        raise RunnerError(f"unknown LLM options {sorted(unknown)}; choose from {', '.join(LLM_OPTIONS)}")
    options: dict[str, dict[str, Any]] = {  # by name: the flag is --name, with dashes
        "backend": dict(
            choices=BACKENDS,
            default="vllm",
            help="vllm: an in-process engine; openai: any OpenAI-compatible server",
        ),
        "model": dict(
            default=None,
            help="a known short name (smollm2-135m: `tom-envs model list`); vllm: "
            "a local model folder; openai: the served model name",
        ),
        "base_url": dict(
            default=None,
            help="openai: the server's base URL, e.g. http://127.0.0.1:8000/v1 (key from OPENAI_API_KEY)",
        ),
        "tokenizer": dict(default=None, help="openai: a local tokenizer for chat-template scoring"),
        "max_model_len": dict(
            type=positive_int,
            default=None,
            help=max_model_len_help or "vllm: context length (default: the model's)",
        ),
        "fallback": dict(
            choices=FALLBACKS,
            default="raise",
            help="after the bounded re-asks: raise, or a uniformly random choice (flagged and counted)",
        ),
        "max_resamples": dict(
            type=non_negative_int, default=10, help="re-asks after a reply that names no valid choice"
        ),
        "lockstep": dict(
            type=count(MAX_LOCKSTEP),
            default=lockstep,
            help=lockstep_help or "episodes stepped at once (one backend call per prompting stage)",
        ),
        "scoring_path": dict(
            choices=SCORING_PATH_CHOICES,
            default="auto",
            help=(
                "how label log-probabilities are read: next-token (max_tokens=1 requests that share the prompt's prefix "
                "cache), prompt-logprobs (the prompt's own log-probabilities; never cached), auto (next-token where the "
                "backend supports it); equal scores either way"
            ),
        ),
        "engine_arg": dict(
            action="append",
            type=engine_arg,
            default=[],
            metavar="KEY=VALUE",
            help="vllm: one more vllm.LLM argument (repeatable; values read as "
            "JSON, else text), e.g. gpu_memory_utilization=0.8",
        ),
        "timeout": dict(
            type=positive_float,
            default=SERVER_DEFAULTS["timeout"],
            metavar="SECONDS",
            help="openai: seconds per HTTP attempt",
        ),
        "max_retries": dict(
            type=non_negative_int,
            default=SERVER_DEFAULTS["max_retries"],
            help="openai: most retries of one request (timeouts, 408/409/429/5xx, garbled replies)",
        ),
        "retry_budget": dict(
            type=positive_float,
            default=SERVER_DEFAULTS["retry_budget"],
            metavar="SECONDS",
            help="openai: seconds after the start of a call during which retries may still start",
        ),
    }
    llm = parser.add_argument_group(title)
    for name in LLM_OPTIONS:
        if name in only:
            llm.add_argument("--" + name.replace("_", "-"), **options[name])
    return llm


class LLMSettings(dict):
    """The LLM options as a dict; what identifies an LLM run in results keys is :meth:`identity`."""

    def identity(self) -> dict[str, Any]:
        """Backend, model, (openai) base URL, the model's exact identity (never an API key)."""
        from benchmarks.models import run_model_identity as exact

        return {
            "backend": self["backend"],
            "model": self["model"],
            "base_url": self["base_url"] if self["backend"] == "openai" else None,
            "model_identity": exact(self["backend"], self["model"]),
        }


def llm_settings(args: argparse.Namespace) -> LLMSettings:
    """The LLM option group's values (checked when the backend is built: :func:`build_backend`)."""
    return LLMSettings(
        backend=args.backend,
        model=args.model,
        base_url=args.base_url,
        tokenizer=getattr(args, "tokenizer", None),
        max_model_len=getattr(args, "max_model_len", None),
        fallback=getattr(args, "fallback", "raise"),
        max_resamples=getattr(args, "max_resamples", 10),
        scoring_path=getattr(args, "scoring_path", "auto"),
        engine_args=dict(getattr(args, "engine_arg", None) or []),
        server={
            k: getattr(args, k, None) if getattr(args, k, None) is not None else v for k, v in SERVER_DEFAULTS.items()
        },
    )


#: The LLM group's flags (:data:`LLM_OPTIONS` as written on the command line).
LLM_FLAGS = tuple("--" + o.replace("_", "-") for o in LLM_OPTIONS)
