"""The reference of ``tom-envs perf llm``'s speed figure: a plain transformers loop, as a user would write it.

:class:`TransformersLoop` is a :class:`~policies.llm.base.Backend` that serves every request alone, in order,
with nothing but transformers on the same model folder: ``model.generate`` per chat request (the model's chat
template, greedy or sampled as asked, the request's token cap and stop strings), and for a score request one
forward pass per prompt + continuation, reading each continuation's token log-probabilities. No batching, no
KV-cache reuse across requests, no prefix cache: what the suite's batched vLLM path is measured against
(``speedup_vs_transformers``). It is a benchmark reference, not a backend to evaluate with.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from policies.llm.base import Backend, BackendStats, ChatRequest, Generation, ScoreRequest
from policies.llm.scoring import plan_token_scores, render_chat


class TransformersLoop(Backend):
    """One request at a time through transformers (see the module doc); ``folder``: a model folder."""

    def __init__(self, folder: str) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self._torch = torch
        self.model = folder
        self.tokenizer = AutoTokenizer.from_pretrained(folder)
        self._model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32).eval()
        self.stats = BackendStats()

    def generate(self, requests: Sequence[ChatRequest]) -> list[Generation]:
        self.stats.calls += 1
        out = []
        for request in requests:
            ids = self.tokenizer(
                render_chat(self.tokenizer, request.messages), return_tensors="pt", add_special_tokens=False
            )["input_ids"]
            sample = request.temperature > 0
            if sample and request.seed is not None:
                self._torch.manual_seed(request.seed)
            with self._torch.no_grad():
                full = self._model.generate(
                    ids,
                    max_new_tokens=request.max_tokens or 256,
                    do_sample=sample,
                    temperature=request.temperature if sample else None,
                    top_p=None,
                    top_k=None,
                    pad_token_id=self.tokenizer.pad_token_id,
                )
            new = full[0, ids.shape[1] :]
            text = self.tokenizer.decode(new, skip_special_tokens=True)
            for stop in request.stop or []:
                text = text.split(stop, 1)[0]
            self.stats.requests += 1
            self.stats.add_usage(int(ids.shape[1]), int(new.shape[0]), None)
            out.append(Generation(text=text, prompt_tokens=int(ids.shape[1]), completion_tokens=int(new.shape[0])))
        return out

    def score(self, requests: Sequence[ScoreRequest]) -> list[list[float]]:
        self.stats.calls += 1
        out = []
        for request in requests:  # one request at a time, one forward pass per sequence it needs
            plan = plan_token_scores(self.tokenizer, [request])
            logprobs = [self._logprobs(ids) for ids in plan.sequences]
            out.extend(plan.combine(logprobs))
        return out

    def _logprobs(self, ids: Sequence[int]) -> list[float | None]:
        torch = self._torch
        tensor = torch.tensor([list(ids)])
        with torch.no_grad():
            logits = self._model(tensor).logits[0].float()
        picked = torch.log_softmax(logits[:-1], dim=-1).gather(1, tensor[0, 1:, None])[:, 0]
        self.stats.requests += 1
        self.stats.add_usage(len(ids), 0, None)
        return [None, *picked.tolist()]

    def close(self) -> None:
        self._model = None


def time_decisions(play: Any, decisions: int) -> float:
    """Decisions per second of ``play()`` (which makes ``decisions`` decisions)."""
    started = time.perf_counter()
    play()
    return decisions / (time.perf_counter() - started)


__all__ = ["TransformersLoop", "time_decisions"]
