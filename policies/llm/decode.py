"""How an LLM policy turns its prompt into a choice: generation, or choice by log-probability.

* ``"generate"`` -- the model writes a reply in the prompt's answer format, which is parsed (re-asked when it
  does not parse, then a counted fallback: :class:`~policies.llm.caller.Caller`).
* ``"score"`` -- no generation: the prompt (the same chat prompt the generating policy sends) is followed by
  the answer written so far and each valid label, every such answer is scored with ``backend.score``
  (:meth:`~policies.llm.caller.Caller.score`), and the most likely label is taken (the first of equals). A
  reply in several fields (``Desire:``, then ``Belief:``, ...) is chosen field by field, each label scored
  after the labels already chosen, so every answer scored is one the prompt's format allows. The model
  always gives a valid choice, so there are no re-asks and no fallbacks; a small model that rarely keeps to
  a format still decides. This is 004's LM prompting (:class:`policies.matrix.llm.strategies.LMStrategy`)
  for policies whose answer has more than one field.

What is scored: the label's log-probability after the prompt and the answer so far (summed over the label's
tokens, :mod:`policies.llm.scoring`). Where the backend has the model's tokenizer with a chat template (the
vLLM backend always; an OpenAI-compatible server given ``--tokenizer``), the chat prompt is rendered with that
template and the answer so far appended to it as text, so each label costs one next-token request whose
prefix the engine has cached (the label's further tokens add one each). Without one, the chat messages are
sent and each label is scored as ``answer + label`` (the answer so far is the same for every label, so the
choice is the same, but its tokens are scored again for each choice: slower).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from policies.llm.caller import Caller, Owner, ScoreAsk, user
from policies.llm.errors import InvalidPolicyConfig
from policies.llm.scoring import render_chat

#: The ways an LLM policy decides (module docstring).
DECODES = ("generate", "score")


def check_decode(decode: Any) -> str:
    """``decode`` if it is one of :data:`DECODES`.

    Raises:
        InvalidPolicyConfig: another value; the message lists the choices.
    """
    if decode not in DECODES:
        raise InvalidPolicyConfig(f"decode must be one of {', '.join(DECODES)}, got {decode!r}.")
    return decode


@dataclass(frozen=True)
class Choice:
    """One choice by log-probability: the chat prompt, the answer written before the label (ending where a
    label starts, e.g. ``"Tone:"``), the labels (each appended to ``answer`` as it is, so they carry the
    separator the format wants: ``" flat"``) and whose choice it is."""

    prompt: str
    answer: str
    labels: Sequence[str]
    owner: Owner | None = None


@dataclass(frozen=True)
class Chosen:
    """What a :class:`Choice` gave: the index of the most likely label (first of equals), that label, and the
    probabilities of all labels (softmax of their log-probabilities)."""

    index: int
    label: str
    probs: np.ndarray


def rendered_prompt(tokenizer: Any, prompt: str) -> str | None:
    """The chat prompt as the model reads it (``prompt`` as one user message, the chat template and its
    generation prompt), as text to which an answer can be appended; None without a tokenizer or chat template.
    A leading BOS that the tokenizer adds again when it encodes text is left out, so it is not doubled."""
    if tokenizer is None or not getattr(tokenizer, "chat_template", None):
        return None
    text = render_chat(tokenizer, user(prompt))
    bos, bos_id = getattr(tokenizer, "bos_token", None), getattr(tokenizer, "bos_token_id", None)
    if bos and bos_id is not None and text.startswith(bos):
        ids = tokenizer.encode("a", add_special_tokens=True)
        if ids and ids[0] == bos_id:
            text = text[len(bos) :]
    return text


def score_asks(tokenizer: Any, choices: Sequence[Choice]) -> list[ScoreAsk]:
    """The score requests of ``choices`` (module docstring: the rendered prompt and answer, or chat messages)."""
    asks, rendered = [], {}  # a stage's choices mostly share one prompt: render it once
    for c in choices:
        if c.prompt not in rendered:
            rendered[c.prompt] = rendered_prompt(tokenizer, c.prompt)
        text = rendered[c.prompt]
        if text is None:
            asks.append(ScoreAsk(user(c.prompt), [c.answer + label for label in c.labels], c.owner))
        else:
            asks.append(ScoreAsk(text + c.answer, list(c.labels), c.owner))
    return asks


def choose_many(caller: Caller, stage: str, choices: Sequence[Choice]) -> list[Chosen]:
    """Every choice of one stage (counted as the owners' decisions): the first alone, then the others in one
    ``backend.score`` call. Requests of one call are computed side by side, so a prompt the engine has not
    cached yet would be computed once per request; the first choice's call caches the prompt its requests share."""
    asks = score_asks(getattr(caller.backend, "tokenizer", None), choices)
    scored = caller.score(stage, asks[:1]) + caller.score(stage, asks[1:])
    out = []
    for choice, probs in zip(choices, scored):
        i = int(np.argmax(probs))
        out.append(Chosen(i, choice.labels[i], probs))
    return out


def choose(caller: Caller, stage: str, choice: Choice) -> Chosen:
    """One choice by log-probability (:func:`choose_many` of one)."""
    return choose_many(caller, stage, [choice])[0]


__all__ = ["DECODES", "Choice", "Chosen", "check_decode", "choose", "choose_many", "rendered_prompt", "score_asks"]
