"""PersuasiveToM's "authors" protocol for the generic LLM answerer (:class:`policies.llm.qa.LLMQAAnswerer`).

The layout of the release's ``evaluation/evaluate.py``: a system message naming persuader and
persuadee, then a user message with the dialogue, the question, the lettered options and an answer
cue (no background), generated (never scored), up to 500 tokens. The texts are data
(:class:`~tom_envs.qa.QAPrompts`): read at run time from the user's copy of the release's script
(:func:`tom_envs.persuasion.prompts.read_authors_prompts`; none of its sentences are shipped here)
or, without one, ours (:data:`~tom_envs.persuasion.prompts.OUR_PROMPTS`); :attr:`AuthorsProtocol.source`
says which (``"release"``, ``"file"``, ``"ours"``).

A reply is read by the release's rule (the text before the first punctuation mark is the letter
A-F; with ``cot``, the word after ``The answer is``), and a reply the rule rejects is sampled again
at T = 0.7 -- bounded by the answerer's ``max_resamples`` (the release loops without a bound) and
counted. The forms :func:`~policies.llm.parsing.parse_letter` accepts (``(A)``, ``The answer is A``)
are accepted too and logged as ``parse_rule == "lenient"`` (the release would have sampled again). A
letter beyond the question's options but within the env's option slots is answered (the env scores
it wrong, as the release does); the benchmark's ``--protocol authors`` gives the env six slots
(``option_slots=6``), so every letter A-F is answered; an env with fewer slots re-asks a letter beyond them. The choice order is the env's: the
benchmark's ``--protocol authors`` turns choice shuffling off (the published order).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from policies.llm.base import Messages
from policies.llm.caller import Ask
from policies.llm.errors import InvalidPolicyConfig, ReplyError
from policies.llm.parsing import AUTHORS_LETTERS, parse_authors_cot_letter, parse_authors_letter, parse_letter
from policies.llm.qa import checked_n_choices
from policies.llm.slots import Slot
from tom_envs.qa import QAPrompts

#: The release samples every reply at T = 0.7, the re-samples of an unreadable reply included.
AUTHORS_TEMPERATURE = 0.7
AUTHORS_MAX_TOKENS = 500
#: The request parameters of the release's ``evaluation/evaluate.py`` beside the messages (no seed).
AUTHORS_REQUEST = {"temperature": AUTHORS_TEMPERATURE, "max_tokens": AUTHORS_MAX_TOKENS}


def as_prompts(prompts: QAPrompts | Mapping[str, Any] | None) -> QAPrompts:
    """``prompts`` as :class:`~tom_envs.qa.QAPrompts` (given as such, or as its ``texts()`` with a ``"source"``)."""
    if prompts is None:
        raise InvalidPolicyConfig(
            "the authors' protocol needs its prompt texts (a tom_envs.qa.QAPrompts): read "
            "them from the release (tom_envs.persuasion.prompts.read_authors_prompts) or "
            "give ours (OUR_PROMPTS)"
        )
    if isinstance(prompts, QAPrompts):
        return prompts
    try:
        return QAPrompts.from_texts(prompts, str(prompts.get("source", "file")))
    except (KeyError, TypeError, AttributeError) as exc:
        raise InvalidPolicyConfig(
            f"the authors' prompts must be a QAPrompts or its texts() with a 'source', got a mapping without {exc}"
        ) from None


def authors_user_message(observation: dict, mode: str, prompts: QAPrompts) -> tuple[str, list[str]]:
    """The user message of the authors' layout and its option lines (without the line break).

    ``prompts`` are the texts (:func:`tom_envs.persuasion.prompts.read_authors_prompts` reads the
    release's; :data:`~tom_envs.persuasion.prompts.OUR_PROMPTS` are ours). The dialogue is the env's
    ``context`` with the newline the release's ``dialogue`` fields end with; the background is not
    shown (the release does not show it).
    """
    prompts = as_prompts(prompts)
    n = checked_n_choices(
        observation, AUTHORS_LETTERS, "the authors' protocol answers tom/PersuasiveToM-v1's questions"
    )
    context = observation.get("context") or ""
    dialogue = context + "\n" if context and not context.endswith("\n") else context
    choices = [str(c) for c in list(observation["choices"])[:n]]
    text = prompts.user_message(mode, dialogue, str(observation["question"]), choices, AUTHORS_LETTERS)
    lines = [prompts.option_line.format(letter=AUTHORS_LETTERS[i], choice=c).strip("\n") for i, c in enumerate(choices)]
    return text, lines


def authors_messages(observation: dict, mode: str, prompts: QAPrompts, system_in_user: bool = False) -> Messages:
    """The authors' layout: system then user message; one user message (system text first) when
    ``system_in_user`` (the release does so for models named ``o1`` or ``gemma``)."""
    prompts = as_prompts(prompts)
    text, _ = authors_user_message(observation, mode, prompts)
    system = prompts.system[mode]
    if system_in_user:
        return [{"role": "user", "content": system + "\n" + text}]
    return [{"role": "system", "content": system}, {"role": "user", "content": text}]


def authors_system_in_user(model: str) -> bool:
    """The release's rule for models whose chat template takes no system message."""
    return "o1" in model or "gemma" in model


@dataclass(frozen=True)
class AuthorsProtocol:
    """The authors' protocol as :class:`~policies.llm.qa.LLMQAAnswerer` takes it (``protocol=``; see
    :class:`policies.llm.qa.QAProtocol`).

    Attributes:
        prompts: the texts (a :class:`~tom_envs.qa.QAPrompts`, or its ``texts()`` with a ``"source"``).
        system_in_user: put the system text into the user message (:func:`authors_system_in_user`).
    """

    prompts: QAPrompts | Mapping[str, Any] | None
    system_in_user: bool = False
    name = "authors"
    max_tokens = AUTHORS_MAX_TOKENS
    resample_temperature = AUTHORS_TEMPERATURE
    #: the release's requests carry no seed: a server gets none (an in-process engine keeps it, to repeat)
    send_seed = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "prompts", as_prompts(self.prompts))
        object.__setattr__(self, "system_in_user", bool(self.system_in_user))

    @property
    def source(self) -> str:
        """Whose prompt texts are sent: ``"release"``, ``"file"`` or ``"ours"``."""
        return self.prompts.source  # type: ignore[union-attr]

    def ask(self, observation: dict, mode: str, owner: Slot) -> Ask:
        """The decision to generate for one question (its messages, the release's reading rule, the fallback)."""
        prompts: QAPrompts = self.prompts  # type: ignore[assignment]
        n, slots = int(observation["n_choices"]), len(observation["choices"])
        _, lines = authors_user_message(observation, mode, prompts)

        def parse(reply: str) -> tuple[int, str]:
            letter = parse_authors_cot_letter(reply, lines) if mode == "cot" else parse_authors_letter(reply)
            rule = "authors"
            if letter is None:
                index = parse_letter(reply, AUTHORS_LETTERS)
                if index is None:
                    raise ReplyError(
                        "no letter A-F (the release's rule reads the text before the first punctuation mark)"
                    )
                letter, rule = AUTHORS_LETTERS[index], "lenient"
            index = AUTHORS_LETTERS.index(letter)
            if index >= slots:
                raise ReplyError(
                    f"letter {letter} is beyond the env's {slots} option slots (make the env with "
                    f"option_slots=6 to have it answered and scored wrong, as the release does)"
                )
            return index, rule

        messages = authors_messages(observation, mode, prompts, self.system_in_user)
        return Ask(
            messages[-1]["content"], parse, lambda rng: (int(rng.integers(n)), "fallback"), owner, messages=messages
        )


__all__ = [
    "AUTHORS_MAX_TOKENS",
    "AUTHORS_REQUEST",
    "AUTHORS_TEMPERATURE",
    "AuthorsProtocol",
    "as_prompts",
    "authors_messages",
    "authors_system_in_user",
    "authors_user_message",
]
