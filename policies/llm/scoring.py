"""Scoring arithmetic shared by the backends: continuation log-probabilities from token log-probabilities.

Semantics (both backends): the score of continuation ``C`` after prompt ``P`` is
``log p(P + C) - log p(P)``, each string taken in the tokenizer's own tokenization. When the
continuation starts with a single token (the usual case: ``" Rock"`` after ``"...Answer:"``) this is
the sum of the continuation tokens' log-probabilities. When the tokenizer merges the end of ``P`` with
the start of ``C`` (``"Coop"`` + ``"erate"``), the tokens from the first differing one on are
scored in both strings and the prompt's part is subtracted, so scores stay chain-rule consistent:
``score(P, A) + score(P + A, B) == score(P, A + B)``. Such a score is a difference of two sequence
log-probabilities and can even be positive; prompts that end before a space-led label (``"Answer:"``
+ ``" Rock"``) never merge.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from policies.llm.base import Messages, ScoreRequest
from policies.llm.errors import BackendError, InvalidRequest


def continuation_logprob(
    prompt_keys: Sequence[Hashable],
    full_keys: Sequence[Hashable],
    full_logprobs: Sequence[float | None],
    prompt_logprobs: Sequence[float | None] | None = None,
) -> float:
    """``log p(P + C) - log p(P)`` from the per-token log-probabilities of both tokenizations.

    Tokens are compared by key (token id, or ``(text offset, token text)`` from a server); the
    shared prefix cancels out. ``prompt_logprobs`` is needed only when the tokenizer merged the end
    of the prompt into the continuation (the prompt is not a token prefix of prompt + continuation).

    Raises:
        InvalidRequest: a needed token has no log-probability (the very first token of the sequence).
        BackendError: a merge happened but ``prompt_logprobs`` was not given.
    """
    start = _common_prefix(prompt_keys, full_keys)
    total = _sum_logprobs(full_logprobs[start:], start)
    if start < len(prompt_keys):
        if prompt_logprobs is None:
            raise BackendError("internal: the prompt's log-probabilities are needed for a merged boundary.")
        total -= _sum_logprobs(prompt_logprobs[start : len(prompt_keys)], start)
    return total


def _common_prefix(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def _sum_logprobs(values: Sequence[float | None], start: int) -> float:
    if any(v is None for v in values):
        raise InvalidRequest(
            f"token {start} has no log-probability: it is the first token of the sequence, so the prompt "
            "is empty and the tokenizer adds no BOS token. Give a non-empty prompt."
        )
    return float(sum(values))  # type: ignore[arg-type]


class _Item(NamedTuple):
    """Where one continuation's sequences are in a :class:`_TokenPlan`."""

    prompt_ids: tuple[int, ...]
    full: int  # index of prompt + continuation in ``sequences``
    prompt: int | None  # index of the prompt alone; None when it is a token prefix of the full text


@dataclass
class _TokenPlan:
    """Token ids to score for a batch of ScoreRequests, deduplicated.

    ``sequences`` are the unique id sequences to send; ``items[i][j]`` locates those of
    ``requests[i].continuations[j]``.
    """

    sequences: list[tuple[int, ...]] = field(default_factory=list)
    items: list[list[_Item]] = field(default_factory=list)
    _index: dict[tuple[int, ...], int] = field(default_factory=dict)

    def add(self, ids: tuple[int, ...]) -> int:
        if ids not in self._index:
            self._index[ids] = len(self.sequences)
            self.sequences.append(ids)
        return self._index[ids]

    def combine(self, logprobs: Sequence[Sequence[float | None]]) -> list[list[float]]:
        """Scores from the per-sequence token log-probabilities (same order as ``sequences``)."""
        out = []
        for row in self.items:
            scores = []
            for item in row:
                prompt_lps = None if item.prompt is None else logprobs[item.prompt]
                full_ids = self.sequences[item.full]
                scores.append(continuation_logprob(item.prompt_ids, full_ids, logprobs[item.full], prompt_lps))
            out.append(scores)
        return out


def _render_prompt(tokenizer: Any, request: ScoreRequest) -> tuple[str, bool]:
    """The prompt text of a score request and whether to add special tokens when encoding it.

    Chat messages are rendered with the chat template and generation prompt; the template itself
    writes BOS, so such text is encoded without special tokens.
    """
    if not request.is_chat:
        return str(request.messages_or_prompt), True
    return render_chat(tokenizer, request.messages_or_prompt), False  # type: ignore[arg-type]


def render_chat(tokenizer: Any, messages: Messages) -> str:
    """Render chat messages with the tokenizer's chat template, ending with the generation prompt."""
    if not getattr(tokenizer, "chat_template", None):
        raise InvalidRequest(
            "the tokenizer has no chat template, so chat messages cannot be rendered. Give a plain "
            "string prompt, or a model/tokenizer folder whose tokenizer_config has a chat_template."
        )
    return tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)


def plan_token_scores(tokenizer: Any, requests: Sequence[ScoreRequest]) -> _TokenPlan:
    """Tokenize every prompt and prompt + continuation, and list the sequences that must be scored."""
    plan = _TokenPlan()
    for request in requests:
        text, special = _render_prompt(tokenizer, request)
        prompt_ids = tuple(tokenizer.encode(text, add_special_tokens=special))
        row = []
        for continuation in request.continuations:
            full_ids = tuple(tokenizer.encode(text + continuation, add_special_tokens=special))
            merged = _common_prefix(prompt_ids, full_ids) < len(prompt_ids)
            row.append(_Item(prompt_ids, plan.add(full_ids), plan.add(prompt_ids) if merged else None))
        plan.items.append(row)
    return plan


def softmax(scores: Sequence[float]) -> np.ndarray:
    """Probabilities proportional to ``exp(score)`` (scores are log-probabilities)."""
    x = np.asarray(scores, dtype=np.float64)
    e = np.exp(x - x.max())
    return e / e.sum()


__all__ = ["continuation_logprob", "plan_token_scores", "render_chat", "softmax"]
