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

Two ways to get the token log-probabilities (a backend's ``scoring_path``, see :data:`SCORING_PATHS`):

* ``"next-token"`` (the default where the engine supports it) -- one generation request of
  ``max_tokens=1`` per distinct prefix, asking the engine for the log-probabilities of the named
  next tokens (vLLM's ``logprob_token_ids``). The prefixes form a token trie: a label that is one
  token after the prompt costs one request shared by every such label; a multi-token label adds one
  request per further token, whose prompt is the prompt plus the label's first tokens. Every request
  of a round starts with the round's prompt, and the previous round's prompt is a prefix of it, so
  the engine's prefix cache serves almost all of it.
* ``"prompt-logprobs"`` (the old path) -- prompt + continuation scored as one prompt with
  ``prompt_logprobs``. vLLM never reads its prefix cache for such requests, so each costs the whole
  prompt: an episode's scoring cost grows with the square of its length.

Both give the same numbers up to float rounding (``tests/llm/test_scoring_paths.py``).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from policies.llm.base import Messages, ScoreRequest
from policies.llm.errors import BackendError, InvalidRequest

#: The ways a backend can score continuations: next-token log-probabilities of a token trie (the
#: prefix cache serves every request of a round) or prompt log-probabilities (the old path).
SCORING_PATHS = ("next-token", "prompt-logprobs")
#: Most token ids one next-token request asks for (vLLM's ``MAX_LOGPROB_TOKEN_IDS``).
MAX_NEXT_TOKEN_IDS = 128


def check_scoring_path(path: str, allow_auto: bool = True) -> str:
    """``path`` if it names a scoring path (or ``"auto"``: next-token where supported).

    Raises:
        InvalidRequest: another name.
    """
    known = SCORING_PATHS + (("auto",) if allow_auto else ())
    if path not in known:
        raise InvalidRequest(f"unknown scoring path {path!r}; choose one of {', '.join(known)}.")
    return path


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


def _tokenize(tokenizer: Any, request: ScoreRequest) -> tuple[tuple[int, ...], list[tuple[int, ...]]]:
    """The prompt's token ids and those of prompt + each continuation."""
    from policies.llm.tokens import encoder_for

    text, special = _render_prompt(tokenizer, request)
    encode = encoder_for(tokenizer).encode  # a growing prompt is not encoded again from its start
    prompt_ids = encode(text, add_special_tokens=special)
    return prompt_ids, [encode(text + c, add_special_tokens=special) for c in request.continuations]


def plan_token_scores(tokenizer: Any, requests: Sequence[ScoreRequest]) -> _TokenPlan:
    """Tokenize every prompt and prompt + continuation, and list the sequences that must be scored
    (the ``"prompt-logprobs"`` path)."""
    plan = _TokenPlan()
    for request in requests:
        prompt_ids, fulls = _tokenize(tokenizer, request)
        row = []
        for full_ids in fulls:
            merged = _common_prefix(prompt_ids, full_ids) < len(prompt_ids)
            row.append(_Item(prompt_ids, plan.add(full_ids), plan.add(prompt_ids) if merged else None))
        plan.items.append(row)
    return plan


# --------------------------------------------------------------------------------------------- next-token path

_Term = tuple[int, int]  # (query index, token id): log p(token | the query's prefix)


@dataclass
class NextTokenPlan:
    """The ``"next-token"`` path of a batch of ScoreRequests: a token trie as engine queries.

    ``queries[q]`` is ``(prefix ids, next-token ids)``: one generation request of ``max_tokens=1``
    whose answer is ``log p(token | prefix)`` for each listed token. Distinct prefixes are one query
    each (split only past :data:`MAX_NEXT_TOKEN_IDS` tokens); every continuation's score is a sum
    of such terms, taken in the order the prompt-logprobs path sums them.
    """

    queries: list[tuple[tuple[int, ...], tuple[int, ...]]] = field(default_factory=list)
    #: ``items[i][j]``: the terms added and those subtracted for ``requests[i].continuations[j]``.
    items: list[list[tuple[list[_Term], list[_Term]]]] = field(default_factory=list)

    def combine(self, answers: Sequence[Mapping[int, float]]) -> list[list[float]]:
        """Scores from each query's ``{token id: log-probability}`` (same order as ``queries``).

        Raises:
            BackendError: an answer lacks a token its query asked for.
        """
        for (_, tokens), answer in zip(self.queries, answers):
            missing = [t for t in tokens if t not in answer]
            if missing:
                raise BackendError(f"the engine returned no log-probability for the requested token ids {missing}.")
        total = lambda terms: float(sum(answers[q][t] for q, t in terms))  # noqa: E731
        return [[total(plus) - total(minus) if minus else total(plus) for plus, minus in row] for row in self.items]


def plan_next_token_scores(
    tokenizer: Any, requests: Sequence[ScoreRequest], max_ids: int = MAX_NEXT_TOKEN_IDS
) -> NextTokenPlan:
    """Tokenize every prompt and prompt + continuation, and list the next-token queries that score them.

    Semantics are those of :func:`continuation_logprob`: tokens from the first one where prompt and
    prompt + continuation differ are added, the prompt's own tokens from there on (a merged boundary)
    subtracted.

    Raises:
        InvalidRequest: a needed token is the first of its sequence (an empty prompt without BOS).
    """
    wanted: dict[tuple[int, ...], dict[int, None]] = {}  # prefix -> next tokens, in first-seen order
    rows = []
    for request in requests:
        prompt_ids, fulls = _tokenize(tokenizer, request)
        row = []
        for full_ids in fulls:
            start = _common_prefix(prompt_ids, full_ids)
            row.append((_next_terms(full_ids, start, wanted), _next_terms(prompt_ids, start, wanted)))
        rows.append(row)
    plan = NextTokenPlan()
    where: dict[tuple[tuple[int, ...], int], int] = {}
    for prefix, tokens in wanted.items():
        ids = list(tokens)
        for lo in range(0, len(ids), max_ids):
            chunk = tuple(ids[lo : lo + max_ids])
            where.update({(prefix, t): len(plan.queries) for t in chunk})
            plan.queries.append((prefix, chunk))
    plan.items = [
        [([(where[k], k[1]) for k in plus], [(where[k], k[1]) for k in minus]) for plus, minus in row] for row in rows
    ]
    return plan


def _next_terms(
    ids: tuple[int, ...], start: int, wanted: dict[tuple[int, ...], dict[int, None]]
) -> list[tuple[tuple[int, ...], int]]:
    """The (prefix, next token) pairs of ``ids[start:]``, registered in ``wanted``."""
    if start >= len(ids):
        return []
    if start == 0:
        _sum_logprobs([None], 0)  # the first token of a sequence has no log-probability: named error
    terms = []
    for k in range(start, len(ids)):
        prefix = ids[:k]
        wanted.setdefault(prefix, {})[ids[k]] = None
        terms.append((prefix, ids[k]))
    return terms


def softmax(scores: Sequence[float]) -> np.ndarray:
    """Probabilities proportional to ``exp(score)`` (scores are log-probabilities)."""
    x = np.asarray(scores, dtype=np.float64)
    e = np.exp(x - x.max())
    return e / e.sum()


__all__ = [
    "MAX_NEXT_TOKEN_IDS",
    "SCORING_PATHS",
    "NextTokenPlan",
    "check_scoring_path",
    "continuation_logprob",
    "plan_next_token_scores",
    "plan_token_scores",
    "render_chat",
    "softmax",
]
