"""LLM answerers for Common-ToM (seed 003) through the one LLM core (:mod:`policies.llm.caller`).

Two ways to use a model besides the generic :class:`~policies.llm.qa.LLMQAAnswerer` (``--policy
llm``, our scored A/B prompt):

* :class:`ReleaseZeroShot` -- 003's zero-shot protocol: the release's own prompt file
  (``data/prompts/gpt-zero-shot``: read and stripped as the release reads it, filled with the
  question's context and question text), one user message, sampled at temperature 1.0 (003,
  Appendix C), one reply per question (no re-asks), read as the release's evaluation reads it: the
  reply with its periods removed must be exactly ``Yes`` or ``No`` (surrounding whitespace
  ignored); anything else is an unparsed answer and counts as wrong, as a label that matches
  neither answer does in the authors' scoring.
* :class:`LLMBeliefPredictor` -- the belief predictor of a ReCoG-style pipeline (003's method):
  the model names both speakers' belief labels (CT+, PS, CT-, NB) about the question's event at
  the marked sentence; :class:`policies.common_ground.scripted.BeliefStatePolicy` derives the common
  ground with Appendix B's rules and answers with the answer rules. :func:`belief_prompt` and
  :func:`belief_target` are also what ``--export-beliefs`` writes, so a model fine-tuned on the
  export is asked exactly as it was trained.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from policies.llm.caller import Ask, AsksModel, Caller, EventLog, check_caller_args
from policies.llm.errors import InvalidPolicyConfig, ReplyError
from tom_envs.common_ground.prompts import (
    RELEASE_PROMPT_FILE,
    PromptFileError,
    load_release_prompt,
    release_prompt_path,
)

#: 003's decoding for the GPT and Mistral zero-shot rows (Appendix C).
RELEASE_TEMPERATURE = 1.0
#: The release's requests (``bin/openai_zero_shot.py``) carry no generation cap and no seed, so by
#: default neither do ours (``max_tokens=None``). A cap of a few tokens loses nothing under the
#: authors' reading (an answer is exactly "Yes" or "No", so a longer reply is wrong however it ends):
#: ``--max-tokens 16`` is a cheaper run that scores the same.
RELEASE_MAX_TOKENS = None
RELEASE_ANSWERS = ("No", "Yes")  # action 0, 1
BELIEF_LABELS = ("CT+", "PS", "CT-", "NB")


# ---------------------------------------------------------------------- the release's zero-shot prompt
def release_prompt(template: str, context: str, question: str) -> str:
    """The prompt of one question, as the release fills its template."""
    return template.format(context=context, question=question)


def parse_release_reply(text: str) -> str | None:
    """``"Yes"``, ``"No"``, or None: the reply with its periods removed, as the release's evaluation
    reads it (surrounding whitespace ignored), must be exactly one of the two answers."""
    label = text.replace(".", "").strip()
    return label if label in RELEASE_ANSWERS else None


class ReleaseZeroShot:
    """003's zero-shot protocol on any backend (see the module docstring).

    Args:
        backend: the model (:mod:`policies.llm.base`).
        template: the prompt template (:func:`load_release_prompt`).
        temperature: sampling temperature (003: 1.0).
        max_tokens: generation cap per reply, or None (default) for none, as the release's requests.
        seed: with an episode seed, seeds the sampling seeds of that episode's questions. The seed is
            not sent to a server (the release's requests carry none); an in-process engine uses it.

    Attributes:
        stats: the caller's counters over all episodes answered.
    """

    name = "release-zero-shot"

    def __init__(
        self,
        backend: Any,
        template: str,
        *,
        temperature: float = RELEASE_TEMPERATURE,
        max_tokens: int | None = RELEASE_MAX_TOKENS,
        seed: int = 0,
    ) -> None:
        check_caller_args(max_resamples=0, fallback="raise", temperature=temperature, max_tokens=max_tokens)
        self.template, self.seed = template, int(seed)
        self.caller = Caller(
            backend,
            max_resamples=0,
            fallback="raise",
            temperature=temperature,
            max_tokens=max_tokens,
            seed=seed,
            uncapped=max_tokens is None,
            send_seed=False,
        )

    def owner(self, episode_seed: int) -> EventLog:
        """The owner of one episode's questions (its sampling seeds come from (seed, episode seed))."""
        return EventLog(np.random.default_rng([self.seed, int(episode_seed)]))

    def answer(self, observations: Sequence[dict], owners: Sequence[EventLog]) -> list[dict[str, Any]]:
        """One backend call for every observation: per question ``{"action", "label", "reply",
        "unparsed"}``; an unparsed reply gets action 0 and ``unparsed`` True (count it wrong)."""
        if len(owners) != len(observations):
            raise InvalidPolicyConfig(f"one owner per observation, got {len(owners)} for {len(observations)}")
        asks = [
            Ask(release_prompt(self.template, o["context"], o["question"]), parse_release_reply, None, w)
            for o, w in zip(observations, owners)
        ]
        out = []
        for ans in self.caller.ask("release_zero_shot", asks):
            label = ans.value
            out.append(
                {
                    "action": RELEASE_ANSWERS.index(label) if label is not None else 0,
                    "label": label,
                    "reply": ans.reply,
                    "unparsed": label is None,
                }
            )
        return out


# ---------------------------------------------------------------------- the belief predictor
_BELIEF_PROMPT = """\
Here is part of a telephone conversation between speaker A and speaker B. The sentence marked with \
\U0001f6d1 is the present moment.

{context}

Event: {event}

What does each speaker believe about this event at the present moment? Give each speaker one label:
CT+ = certain that it is true
PS = thinks it is possibly true
CT- = certain that it is not true
NB = has shown no belief about it

Answer with two lines and nothing else:
A: <label>
B: <label>"""

_LABEL = r"(CT\s*\+|CT\s*[-\u2212]|PS|NB)(?![A-Za-z0-9])"


def belief_prompt(context: str, event: str) -> str:
    """The belief predictor's prompt for ``event`` with the dialogue ``context`` (one sentence
    marked with 🛑)."""
    return _BELIEF_PROMPT.format(context=context, event=event)


def belief_target(belief_a: str, belief_b: str) -> str:
    """The reply :func:`parse_beliefs` reads as ``(belief_a, belief_b)`` (the export's target)."""
    return f"A: {belief_a}\nB: {belief_b}"


def _norm(label: str) -> str:
    label = re.sub(r"\s+", "", label).replace("\u2212", "-")
    return label


def parse_beliefs(text: str) -> tuple[str, str]:
    """``(belief_A, belief_B)`` from a reply naming ``A: <label>`` and ``B: <label>`` (the first of
    each; markdown emphasis and the word "Speaker" are allowed).

    Raises:
        ReplyError: a speaker's label is missing.
    """
    found = []
    for who in ("A", "B"):
        m = re.search(rf"(?<![A-Za-z])(?:speaker\s+)?{who}\W{{0,3}}\s*[:=\-]\s*\**\s*{_LABEL}", text, re.IGNORECASE)
        if m is None:
            raise ReplyError(
                f"no label for speaker {who}; answer with the lines 'A: <label>' and 'B: <label>', "
                f"each label one of {', '.join(BELIEF_LABELS)}"
            )
        found.append(_norm(m.group(1)).upper())
    return found[0], found[1]


def _random_beliefs(rng: np.random.Generator) -> tuple[str, str]:
    a, b = rng.integers(0, len(BELIEF_LABELS), size=2)
    return BELIEF_LABELS[int(a)], BELIEF_LABELS[int(b)]


class LLMBeliefPredictor(AsksModel):
    """Both speakers' belief labels about an event, predicted by a model (a
    :class:`policies.common_ground.scripted.BeliefPredictor` with a batched form).

    Args:
        backend: the model.
        settings: the caller's (:class:`~policies.llm.caller.AsksModel`): ``temperature`` (0: greedy, as a
            fine-tuned predictor decodes), ``max_tokens`` (24), ``max_resamples`` (10: re-asks after a reply naming
            no labels), ``fallback`` (``"raise"``, or ``"random"``: uniform labels, counted in
            ``stats["fallbacks"]``), ``seed`` (0: the sampling seeds and fallbacks).
    """

    name = "llm"
    defaults: ClassVar[dict[str, Any]] = {
        "temperature": 0.0,
        "max_tokens": 24,
        "max_resamples": 10,
        "fallback": "raise",
        "seed": 0,
    }

    def predict_beliefs_batch(self, pairs: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
        """One backend call (plus re-ask rounds) for every ``(context, event)``."""
        asks = [Ask(belief_prompt(c, e), parse_beliefs, _random_beliefs) for c, e in pairs]
        return [tuple(a.value) for a in self.caller.ask("beliefs", asks)]  # type: ignore[misc]

    def predict_beliefs(self, context: str, event: str) -> tuple[str, str]:
        return self.predict_beliefs_batch([(context, event)])[0]


__all__ = [
    "BELIEF_LABELS",
    "RELEASE_MAX_TOKENS",
    "RELEASE_PROMPT_FILE",
    "RELEASE_TEMPERATURE",
    "LLMBeliefPredictor",
    "PromptFileError",
    "ReleaseZeroShot",
    "belief_prompt",
    "belief_target",
    "load_release_prompt",
    "parse_beliefs",
    "parse_release_reply",
    "release_prompt",
    "release_prompt_path",
]
