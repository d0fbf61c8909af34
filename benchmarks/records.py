"""Episode records of LLM policies: per-round logs with every prompt stored once, as a delta.

A 100-round episode's prompts grow with the round (rules + the whole history), so storing each in
full makes an episode's log grow with T². Here every prompt is stored once, as a delta from an
earlier prompt of the same episode (usually the previous round's prompt of the same stage, which
differs by one history line and the round number): ``{"p": i, "k": kept prefix, "e": kept end,
"s": the new middle}`` rebuilds the text as ``table[i][:k] + s + table[i][len(table[i]) - e:]``
(``p`` None: ``s`` is the whole text). Prompts are numbered in the order they were sent, across the
episode's rounds; a round log keeps the deltas it added (``prompt_table``) and refers to prompts by
number (``{"$prompt": n}``) where the policy's log held the text.

* :class:`PromptEncoder` -- per episode, encodes each round log as it comes (:meth:`~PromptEncoder.encode`);
* :func:`decode_steps` -- the reader: the round logs with every prompt rebuilt, in the policy's own
  log shape (``prompts``, ``stages[i]["prompt"]``, ``stages[i]["attempts"][j]["messages"]``);
* :data:`STEPS_FORMAT` names the format in each record (``record["steps_format"]``).

The old home of the results-file helpers (they live in :mod:`benchmarks.results`) is kept importable.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from typing import Any

from benchmarks.results import ResultsFileWarning, append_record, read_records

__all__ = [
    "STEPS_FORMAT",
    "PromptEncoder",
    "ResultsFileWarning",
    "append_record",
    "decode_steps",
    "read_records",
    "read_steps",
]

#: The name of the per-round log format in ``record["steps_format"]``.
STEPS_FORMAT = "rounds+prompt-deltas/1"
#: How many earlier prompts a new one is compared with to find its closest reference.
CANDIDATES = 8
_REF = "$prompt"


def _common_prefix(a: str, b: str) -> int:
    """Length of the common prefix of ``a`` and ``b`` (binary search on slice equality: C speed)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: str, b: str, limit: int) -> int:
    lo, hi = 0, min(len(a), len(b), limit)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[len(a) - mid :] == b[len(b) - mid :]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _delta(text: str, ref: str) -> tuple[int, int, str]:
    keep = _common_prefix(text, ref)
    end = _common_suffix(text, ref, min(len(text), len(ref)) - keep)
    return keep, end, text[keep : len(text) - end]


def _as_text(prompt: Any) -> tuple[str, bool] | None:
    """A prompt as (text, is_chat): a plain string, or one user message; None for other shapes."""
    if isinstance(prompt, str):
        return prompt, False
    if (
        isinstance(prompt, list)
        and len(prompt) == 1
        and isinstance(prompt[0], dict)
        and set(prompt[0]) == {"role", "content"}
        and prompt[0]["role"] == "user"
        and isinstance(prompt[0]["content"], str)
    ):
        return prompt[0]["content"], True
    return None


class PromptEncoder:
    """Encodes one episode's round logs, each prompt stored once as a delta from an earlier one."""

    def __init__(self) -> None:
        self.texts: list[str] = []  # every prompt text so far, by number
        self._index: dict[tuple[str, bool], int] = {}

    def _add(self, prompt: Any, table: list[dict]) -> dict:
        as_text = _as_text(prompt)
        if as_text is None:  # an unusual shape: stored whole
            table.append({"raw": prompt})
            self.texts.append("")
            return {_REF: len(self.texts) - 1}
        text, chat = as_text
        known = self._index.get((text, chat))
        if known is not None:
            return {_REF: known}
        best: dict[str, Any] = {"p": None, "k": 0, "e": 0, "s": text}
        for i in range(max(0, len(self.texts) - CANDIDATES), len(self.texts)):
            keep, end, middle = _delta(text, self.texts[i])
            if len(middle) < len(best["s"]):
                best = {"p": i, "k": keep, "e": end, "s": middle}
        if chat:
            best["chat"] = True
        table.append(best)
        self.texts.append(text)
        self._index[(text, chat)] = len(self.texts) - 1
        return {_REF: len(self.texts) - 1}

    def encode(self, log: dict) -> dict:
        """The compact form of one round's log (the policy's ``last_step_log()`` entry)."""
        out = copy.deepcopy(log)
        table: list[dict] = []
        out.pop("prompts", None)  # rebuilt from the stages by the reader
        for stage in out.get("stages", []):
            if "prompt" in stage:
                stage["prompt"] = self._add(stage["prompt"], table)
            for attempt in stage.get("attempts", []):
                if "messages" in attempt:
                    attempt["messages"] = self._add(attempt["messages"], table)
        out["prompt_table"] = table
        return out

    def absorb(self, encoded: dict) -> None:
        """Take in an already encoded round (resuming an episode), so later rounds can refer to it."""
        _Decoder(self).round(encoded)


class _Decoder:
    def __init__(self, encoder: PromptEncoder | None = None) -> None:
        self.enc = encoder or PromptEncoder()
        self.raw: dict[int, Any] = {}
        self.chat: dict[int, bool] = {}

    def round(self, encoded: dict) -> dict:
        enc = self.enc
        for entry in encoded.get("prompt_table", []):
            n = len(enc.texts)
            if "raw" in entry:
                self.raw[n] = entry["raw"]
                enc.texts.append("")
                continue
            if entry["p"] is None:
                text = entry["s"]
            else:
                ref = enc.texts[entry["p"]]
                text = ref[: entry["k"]] + entry["s"] + ref[len(ref) - entry["e"] :]
            enc.texts.append(text)
            self.chat[n] = bool(entry.get("chat"))
            enc._index[(text, self.chat[n])] = n
        return encoded

    def prompt(self, ref: Any) -> Any:
        n = ref[_REF]
        if n in self.raw:
            return copy.deepcopy(self.raw[n])
        text = self.enc.texts[n]
        return [{"role": "user", "content": text}] if self.chat.get(n) else text

    def full(self, encoded: dict) -> dict:
        self.round(encoded)
        log = copy.deepcopy(encoded)
        log.pop("prompt_table", None)
        prompts = []
        for stage in log.get("stages", []):
            if isinstance(stage.get("prompt"), dict) and _REF in stage["prompt"]:
                stage["prompt"] = self.prompt(stage["prompt"])
                prompts.append(stage["prompt"])
            for attempt in stage.get("attempts", []):
                if isinstance(attempt.get("messages"), dict) and _REF in attempt["messages"]:
                    attempt["messages"] = self.prompt(attempt["messages"])
                    prompts.append(attempt["messages"])
        log["prompts"] = prompts
        return log


def decode_steps(steps: Iterable[dict]) -> list[dict]:
    """Round logs in the policy's own shape (every prompt in full), from their encoded form."""
    decoder = _Decoder()
    return [decoder.full(s) for s in steps]


def read_steps(record: dict) -> list[dict]:
    """The per-round logs of an episode record, every prompt in full, whatever form they were stored in
    (``record["steps_format"]`` == :data:`STEPS_FORMAT`; records without it hold the logs as they are)."""
    steps: Sequence[dict] = record.get("steps", [])
    if record.get("steps_format") == STEPS_FORMAT:
        return decode_steps(steps)
    return list(steps)
