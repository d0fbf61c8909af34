"""What a 200 reply of an OpenAI-compatible server must look like, read from its raw body.

:func:`read_reply` parses a chat or completion reply and raises :class:`BadReply` (quoting the start of
the body) for one that is not a valid completion; :class:`~policies.llm.openai_backend.OpenAIBackend`
retries such a reply like a server fault. :func:`cached_tokens` reads the prompt tokens a server's
prefix cache served from a reply's ``usage``.
"""

from __future__ import annotations

import json
from typing import Any

# How much of a bad reply an error message quotes.
_QUOTE_CHARS = 200


class BadReply(Exception):
    """An HTTP 200 whose body is not a valid completion (retried like a server fault)."""


def cached_tokens(usage: dict) -> int | None:
    details = usage.get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    return cached if isinstance(cached, int) else None


def read_reply(text: str, kind: str) -> dict:
    """The body of a 200 reply as a dict, if it is a valid ``kind`` ("chat" or "completion") reply.

    Raises:
        BadReply: what is wrong, quoting the start of the body.
    """
    quote = repr(text[:_QUOTE_CHARS]) + (f" ... ({len(text)} characters)" if len(text) > _QUOTE_CHARS else "")
    try:
        data = json.loads(text)
    except ValueError:
        raise BadReply(f"a body that is not JSON: {quote}") from None
    problem = _reply_problem(data, kind)
    if problem:
        raise BadReply(f"{problem}: {quote}")
    return data


def _reply_problem(data: Any, kind: str) -> str | None:
    if not isinstance(data, dict):
        return f"JSON that is not an object but a {type(data).__name__}"
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        return "no choices (choices: [])" if choices == [] else "JSON without a 'choices' list"
    choice = choices[0]
    if not isinstance(choice, dict):
        return "a choice that is not an object"
    usage = data.get("usage")
    if usage is not None and not (isinstance(usage, dict) and isinstance(usage.get("prompt_tokens", 0), int)):
        return "a malformed 'usage'"
    if kind == "chat":
        message = choice.get("message")
        if not isinstance(message, dict) or not isinstance(message.get("content", ""), (str, type(None))):
            return "a chat choice without a message"
        return None
    if not isinstance(choice.get("text"), str):
        return "a completion choice without text"
    logprobs = choice.get("logprobs")
    if logprobs is None:
        return None
    if not isinstance(logprobs, dict):
        return "logprobs that are not an object"
    for key in ("tokens", "token_logprobs", "text_offset", "top_logprobs"):
        if not isinstance(logprobs.get(key, []), (list, type(None))):
            return f"logprobs.{key} that is not a list"
    return None
