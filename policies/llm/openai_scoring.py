"""Scoring continuations on an OpenAI-compatible server: the next-token and prompt-logprobs paths.

:class:`ServerScoring` is the part of :class:`~policies.llm.openai_backend.OpenAIBackend` that picks a
scoring path (``scoring_path``, see :mod:`policies.llm.scoring`) and sends its requests: one
``max_tokens=1`` completion per prefix of the token trie (``logprob_token_ids``, vLLM's OpenAI server), or
``echo=True`` completions reading the prompt tokens' log-probabilities, as token ids with a tokenizer
and as text without one; a server that does neither raises
:class:`~policies.llm.errors.ScoringUnsupported` naming both.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from policies.llm.base import ScoreRequest, charge_faults, new_faults
from policies.llm.errors import BackendError, InvalidRequest, ScoringUnsupported
from policies.llm.openai_replies import cached_tokens
from policies.llm.openai_retry import Budget
from policies.llm.scoring import check_scoring_path, continuation_logprob, plan_next_token_scores, plan_token_scores


class ServerScoring:
    """Scoring on the server (a mixin of :class:`~policies.llm.openai_backend.OpenAIBackend`, which sets
    ``scoring_path``, ``_tokenizer``, ``_client``, ``model``, ``base_url``, ``stats``, ``last_scoring_path``
    and ``_next_token_refused``, and runs the requests with :class:`~policies.llm.openai_retry.RetryingCalls`,
    whose ``_run``, ``_with_retries`` and ``_no_scoring_message`` it uses)."""

    def _score(self, requests: Sequence[ScoreRequest], faults: list[dict[str, int]]) -> list[list[float]]:
        check_scoring_path(self.scoring_path)
        if any(r.is_chat for r in requests) and self._tokenizer is None:
            raise InvalidRequest(
                "scoring chat messages through an OpenAI-compatible server needs the model's chat template: "
                "build OpenAIBackend(..., tokenizer=<HF name or folder of the served model>), or give "
                "plain-string prompts."
            )
        if self.scoring_path == "next-token" and self._tokenizer is None:
            raise InvalidRequest(
                "the next-token scoring path builds a token trie, so it needs the served model's tokenizer: "
                "build OpenAIBackend(..., tokenizer=<HF name or folder>), or use scoring_path='prompt-logprobs'."
            )
        if self._tokenizer is not None and self.scoring_path != "prompt-logprobs":
            if self.scoring_path == "next-token" or self._next_token_refused is None:
                try:
                    scores = self._score_next_token(requests, faults)
                except ScoringUnsupported as exc:
                    if self.scoring_path == "next-token":
                        raise
                    self._next_token_refused = str(exc)  # "auto": remember, and echo from now on
                else:
                    self.last_scoring_path = "next-token"
                    return scores
        try:
            if self._tokenizer is not None:
                scores = self._score_tokens(requests, faults)
            else:
                scores = self._score_texts(requests, faults)
        except ScoringUnsupported as exc:
            if self.scoring_path == "auto":
                raise ScoringUnsupported(self._neither_message(str(exc))) from None
            raise
        self.last_scoring_path = "prompt-logprobs"
        return scores

    def _score_next_token(self, requests: Sequence[ScoreRequest], faults: list[dict[str, int]]) -> list[list[float]]:
        plan = plan_next_token_scores(self._tokenizer, requests)
        uses = [{q for plus, minus in row for q, _ in (*plus, *minus)} for row in plan.items]
        sent = [new_faults() for _ in plan.queries]
        try:
            answers = self._run(
                lambda budget: [self._next_token(list(p), list(t), budget, f) for (p, t), f in zip(plan.queries, sent)]
            )
        finally:
            charge_faults(faults, uses, sent)
        return plan.combine(answers)

    def _score_tokens(self, requests: Sequence[ScoreRequest], faults: list[dict[str, int]]) -> list[list[float]]:
        plan = plan_token_scores(self._tokenizer, requests)
        uses = [{n for item in row for n in (item.full, item.prompt) if n is not None} for row in plan.items]
        sent = [new_faults() for _ in plan.sequences]
        try:
            logprobs = self._run(
                lambda budget: [self._echo(list(ids), budget, f) for ids, f in zip(plan.sequences, sent)]
            )
        finally:
            charge_faults(faults, uses, sent)
        return plan.combine([lps for _, lps in logprobs])

    def _score_texts(self, requests: Sequence[ScoreRequest], faults: list[dict[str, int]]) -> list[list[float]]:
        prompts = [str(r.messages_or_prompt) for r in requests]
        texts: dict[str, int] = {}  # unique texts to echo, in first-seen order
        for prompt, r in zip(prompts, requests):
            for text in [prompt, *(prompt + c for c in r.continuations)]:
                texts.setdefault(text, len(texts))
        uses = [{texts[t] for t in [p, *(p + c for c in r.continuations)]} for p, r in zip(prompts, requests)]
        sent = [new_faults() for _ in texts]
        try:
            echoes = self._run(lambda budget: [self._echo(t, budget, f) for t, f in zip(texts, sent)])
        finally:
            charge_faults(faults, uses, sent)
        out = []
        for prompt, r in zip(prompts, requests):
            prompt_keys, prompt_lps = echoes[texts[prompt]]
            row = []
            for c in r.continuations:
                full_keys, full_lps = echoes[texts[prompt + c]]
                row.append(continuation_logprob(prompt_keys, full_keys, full_lps, prompt_lps))
            out.append(row)
        return out

    async def _next_token(
        self, prefix: list[int], tokens: list[int], budget: Budget, faults: dict[str, int]
    ) -> dict[int, float]:
        """``{token id: log p(token | prefix)}`` for ``tokens``, from one ``max_tokens=1`` completion."""
        what = "scoring request (completions with max_tokens=1, logprobs=1, logprob_token_ids)"
        extra = {"logprob_token_ids": tokens, "return_tokens_as_token_ids": True}

        async def attempt(timeout: float) -> Any:
            return await self._client.completions.with_raw_response.create(
                model=self.model, prompt=prefix, max_tokens=1, temperature=0.0, logprobs=1, extra_body=extra,
                timeout=timeout,
            )  # fmt: skip

        data = await self._with_retries(attempt, budget, what, "completion", faults, scoring=True)
        logprobs = data["choices"][0].get("logprobs") or {}
        steps = logprobs.get("top_logprobs") or []
        step = steps[0] if steps and isinstance(steps[0], dict) else {}
        found = self._read_next_token(step, tokens)
        missing = [t for t in tokens if t not in found]
        if missing:
            detail = (
                f"the reply has no log-probability for the requested token ids {missing[:8]}: the server ignores "
                "logprob_token_ids"
            )
            raise ScoringUnsupported(self._no_next_token_message(what, detail))
        usage = data.get("usage") or {}
        self.stats.add_usage(usage.get("prompt_tokens") or len(prefix), 0, cached_tokens(usage))
        return found

    def _read_next_token(self, step: dict, tokens: list[int]) -> dict[int, float]:
        """Log-probabilities of ``tokens`` from one ``top_logprobs`` entry, keyed ``token_id:N`` (vLLM's
        ``return_tokens_as_token_ids``) or, where a server ignores that, by each token's unique text."""
        step = {k: float(v) for k, v in step.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
        found = {}
        for key, value in step.items():
            if key.startswith("token_id:") and key[9:].isdigit():
                found[int(key[9:])] = value
        texts = {t: self._tokenizer.decode([t]) for t in tokens if t not in found}
        counts: dict[str, int] = {}
        for text in texts.values():
            counts[text] = counts.get(text, 0) + 1
        for t, text in texts.items():
            if counts[text] == 1 and "\ufffd" not in text and text in step:
                found[t] = step[text]
        return found

    async def _echo(
        self, prompt: str | list[int], budget: Budget, faults: dict[str, int]
    ) -> tuple[list[Hashable], list[float | None]]:
        """Token keys and log-probabilities of ``prompt`` as the server tokenizes it."""
        what = "scoring request (completions with echo=True, logprobs=1)"

        async def attempt(timeout: float) -> Any:
            return await self._client.completions.with_raw_response.create(
                model=self.model, prompt=prompt, echo=True, logprobs=1, max_tokens=0, temperature=0.0, timeout=timeout
            )

        data = await self._with_retries(attempt, budget, what, "completion", faults, scoring=True)
        lp = data["choices"][0].get("logprobs") or {}
        token_logprobs = lp.get("token_logprobs")
        if not token_logprobs:
            raise ScoringUnsupported(self._no_scoring_message(what, "the reply carries no token log-probabilities"))
        usage = data.get("usage") or {}
        n = usage.get("prompt_tokens") or len(token_logprobs)
        self.stats.add_usage(n, 0, cached_tokens(usage))
        if isinstance(prompt, list):
            keys: list[Hashable] = list(prompt)
            n = len(prompt)
        else:
            keys = list(zip(lp.get("text_offset") or [], lp.get("tokens") or []))[:n]
            if len(keys) < n:
                raise BackendError(f"{what}: the server echoed log-probabilities but not the {n} prompt tokens.")
        if len(token_logprobs) < n:
            raise BackendError(f"{what}: the server echoed {len(token_logprobs)} of {n} prompt tokens.")
        return keys[:n], list(token_logprobs[:n])

    def _no_next_token_message(self, what: str, detail: str) -> str:
        return (
            f"{what} to {self.base_url} was refused ({detail}). The next-token scoring path needs a server that "
            "returns the log-probabilities of requested next tokens (vLLM's OpenAI server: logprob_token_ids); "
            "use scoring_path='prompt-logprobs' (echo) or 'auto' with other servers."
        )

    def _neither_message(self, echo_detail: str) -> str:
        tried = (
            f"next-token: {self._next_token_refused}; "
            if self._next_token_refused
            else ("next-token: not tried, it needs tokenizer=; ")
        )
        return (
            f"{self.base_url} supports neither scoring path ({tried}prompt-logprobs: {echo_detail}). Score with "
            "vLLM's OpenAI server or VLLMBackend, or pick a generation-based strategy."
        )
