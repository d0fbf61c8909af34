"""Build the backend named on a command line: ``vllm`` (in-process) or ``openai`` (a server)."""

from __future__ import annotations

import os
from typing import Any

from policies.llm.base import Backend
from policies.llm.errors import BackendConfigError
from policies.llm.sources import check_source

#: The backend kinds :func:`build_backend` knows.
BACKEND_KINDS = ("vllm", "openai")


def build_backend(
    kind: str,
    model: str,
    base_url: str | None = None,
    seed: int = 0,
    tokenizer: str | None = None,
    max_model_len: int | None = None,
    **backend_kwargs: Any,
) -> Backend:
    """The LLM backend of ``kind`` serving ``model``.

    Args:
        kind: ``"vllm"`` (an in-process engine on a local model folder or Hub id) or ``"openai"``
            (an OpenAI-compatible server at ``base_url``).
        model: a known short name (``smollm2-135m``: :mod:`policies.llm.models`), a model folder / id (vllm), or
            the served model name (openai; a known short name there also names the local tokenizer).
        base_url: the server URL including ``/v1`` (openai only).
        seed: the engine seed (vllm only).
        tokenizer: the model's tokenizer name or folder, to score chat prompts (openai only).
        max_model_len: longest prompt + completion in tokens (vllm only; None for the backend's default).
        **backend_kwargs: further keyword arguments of the backend class.

    Raises:
        BackendConfigError: the model, the URL or the kind is missing or unknown.
    """
    from policies.llm.openai_backend import OpenAIBackend
    from policies.llm.vllm_backend import VLLMBackend

    # vLLM logs to stdout by default; a CLI's stdout is for the table / JSON only
    os.environ.setdefault("VLLM_LOGGING_STREAM", "ext://sys.stderr")

    from policies.llm.models import is_known, resolve_model

    check_backend_options(kind, model, base_url)
    if tokenizer is not None:
        check_source(tokenizer, "tokenizer")
    if kind == "vllm":
        sizes = {"max_model_len": max_model_len} if max_model_len else {}
        if is_known(model):  # the real model's converted folder holds float32 weights: run them as they are
            backend_kwargs.setdefault("dtype", "float32")
        return VLLMBackend(resolve_model(model), seed=seed, **sizes, **backend_kwargs)
    if tokenizer is None and is_known(model):  # a server serving a known model under its short name
        tokenizer = resolve_model(model)
    return OpenAIBackend(base_url, model, tokenizer=tokenizer, **backend_kwargs)


def check_backend_options(kind: str, model: str | None, base_url: str | None) -> None:
    """What can be told wrong before anything starts (no engine start-up, no retries against a URL that
    can never answer): a missing model, a vllm model given as a local path that does not exist, a missing
    or malformed base URL, an unknown kind.

    Raises:
        BackendConfigError: saying which and how to fix it.
    """
    from urllib.parse import urlsplit

    if not model:
        raise BackendConfigError(
            "an LLM backend needs --model (a local model folder for vllm, a served model name for openai)"
        )
    if kind == "vllm":
        from policies.llm.models import MODELS, known_model

        if model in MODELS:
            known_model(model)
            return
        if os.sep not in model and "/" not in model and not os.path.isdir(model):
            known_model(model)  # a bare name that is neither a known model nor a folder: UnknownModel
        check_source(model, "model")  # a path naming no folder, a folder without config.json
        return
    if kind == "openai":
        if not base_url:
            raise BackendConfigError("--backend openai needs --base-url (e.g. http://127.0.0.1:8000/v1)")
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise BackendConfigError(
                f"--base-url {base_url!r} is not an http(s) URL; give the server's base URL "
                "with its scheme, e.g. http://127.0.0.1:8000/v1"
            )
        return
    raise BackendConfigError(f"unknown --backend {kind!r}; choose vllm or openai")


__all__ = ["BACKEND_KINDS", "build_backend", "check_backend_options"]
