"""Encoding growing prompts without re-encoding what was encoded before.

An episode's prompt at round t is its prompt at round t - 1 plus a history line, so encoding every prompt whole
makes the tokenizer's share of a round grow with the episode (measured: 0.15 s of a round at round 100 on
SmolLM2's tokenizer, 8 prompts of 2,200 tokens). :class:`IncrementalEncoder` keeps the token ids of earlier texts
cut right after a lone newline, finds the longest kept text that a new text starts with, and encodes only the rest.

That equals the whole encode when the tokenizer never merges tokens across a newline with a non-space character
on either side -- true of byte-level BPE tokenizers whose pre-tokenizer splits whitespace runs apart (GPT-2 style:
Llama 3, SmolLM, Qwen), not guaranteed for every tokenizer. So it is checked, not assumed: the first
:data:`CHECKED` encodes are also encoded whole and compared, and one mismatch turns the reuse off for that
tokenizer for good (every later encode is whole). Texts encoded with special tokens added (a BOS the tokenizer
puts in front) are always encoded whole.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from typing import Any

#: How many encodes per tokenizer are checked against a whole encode before the reuse is trusted.
CHECKED = 64
#: How many cut texts are kept per tokenizer (least recently used dropped).
KEEP = 512


class IncrementalEncoder:
    """``encode(text)`` for one tokenizer, reusing the ids of a kept text that ``text`` starts with (module doc)."""

    def __init__(self, tokenizer: Any, keep: int = KEEP, checked: int = CHECKED) -> None:
        self.tokenizer = tokenizer
        self.keep, self.to_check = keep, checked
        self.reuse = True
        self._cuts: OrderedDict[str, tuple[int, ...]] = OrderedDict()
        self.reused_chars = 0  # characters not encoded again (for the benchmark's figures)

    def encode(self, text: str, add_special_tokens: bool = False) -> tuple[int, ...]:
        whole = lambda: tuple(self.tokenizer.encode(text, add_special_tokens=add_special_tokens))  # noqa: E731
        if add_special_tokens or not self.reuse:
            return whole()
        ids = self._encode(text)
        if self.to_check > 0:
            self.to_check -= 1
            if ids != whole():
                self.reuse = False  # this tokenizer merges across our cuts: never reuse again
                self._cuts.clear()
                return whole()
        return ids

    def _encode(self, text: str) -> tuple[int, ...]:
        start, ids = self._longest_kept(text)
        cut = _last_cut(text)
        if cut > start:  # keep this text's own last cut for the next, longer text
            ids = ids + self._plain(text[start:cut])
            self._remember(text[:cut], ids)
            start = cut
        return ids + self._plain(text[start:])

    def _plain(self, piece: str) -> tuple[int, ...]:
        return tuple(self.tokenizer.encode(piece, add_special_tokens=False)) if piece else ()

    def _longest_kept(self, text: str) -> tuple[int, tuple[int, ...]]:
        end = len(text)
        while True:
            cut = _last_cut(text, end)
            if cut <= 0:
                return 0, ()
            found = self._cuts.get(text[:cut])
            if found is not None:
                self._cuts.move_to_end(text[:cut])
                self.reused_chars += cut
                return cut, found
            end = cut - 1

    def _remember(self, text: str, ids: tuple[int, ...]) -> None:
        self._cuts[text] = ids
        self._cuts.move_to_end(text)
        while len(self._cuts) > self.keep:
            self._cuts.popitem(last=False)


def _last_cut(text: str, end: int | None = None) -> int:
    """The last position in ``text[:end]`` right after a lone newline (non-space characters on both sides: a run
    of whitespace is one pre-token that may merge) (0: none)."""
    end = len(text) if end is None else end
    while True:
        at = text.rfind("\n", 0, end)
        if at <= 0:
            return 0
        if at + 1 < len(text) and not text[at + 1].isspace() and not text[at - 1].isspace():
            return at + 1
        end = at


_ENCODERS: "weakref.WeakKeyDictionary[Any, IncrementalEncoder]" = weakref.WeakKeyDictionary()


def encoder_for(tokenizer: Any) -> IncrementalEncoder:
    """The one :class:`IncrementalEncoder` of ``tokenizer`` (made on first use)."""
    try:
        found = _ENCODERS.get(tokenizer)
    except TypeError:  # a tokenizer that cannot be weakly referenced: no reuse
        return IncrementalEncoder(tokenizer, checked=0, keep=0)
    if found is None:
        found = _ENCODERS[tokenizer] = IncrementalEncoder(tokenizer)
    return found


__all__ = ["CHECKED", "IncrementalEncoder", "encoder_for"]
