"""A generic LLM answerer for the question-answering envs (persuasion, common ground).

Any env whose observation carries ``question``, ``choices`` and ``n_choices`` (and optionally
``background`` and ``context``; see :class:`tom_envs.qa.QAEnv`) can be answered. Options are shown
with letters A, B, ...; the action is the chosen option's index.

Modes:

* ``"zero_shot"`` with ``scoring=True``: the letters are scored by log-probability after
  ``Answer:`` (no sampling; needs a scoring-capable backend);
* ``"zero_shot"`` with ``scoring=False``: a short reply must say ``The answer is X``;
* ``"cot"``: "let's think step by step", and the answer is read from ``The answer is X``.

Generated replies that name no valid letter are re-asked up to ``max_resamples`` times and counted;
then the fallback applies (raise, or a uniformly random option flagged in the log). Batched forms
make one backend call per stage over every episode slot (questions with different numbers of
options included), through the one caller (:class:`policies.llm.caller.Caller`).

Protocols (``protocol=``):

* ``"ours"`` (default): the prompts above (background, dialogue, question, options), one user
  message; a reply is read by :func:`~policies.llm.parsing.parse_letter` (an answer line, or a
  bare letter such as ``A``, ``A.``, ``A. Yes``, ``(A)``).
* ``"authors"``: the layout of PersuasiveToM's release (``evaluation/evaluate.py``): a system
  message naming persuader and persuadee, then a user message with the dialogue, the question, the
  lettered options and an answer cue (no background), generated (never scored), up to 500 tokens.
  The texts are data (:class:`~tom_envs.persuasion.prompts.QAPrompts`): read at run time from the
  user's copy of the release's script (``authors_prompts=``; none of its sentences are shipped
  here) or, without one, ours (:data:`~tom_envs.persuasion.prompts.OUR_PROMPTS`);
  :attr:`LLMQAAnswerer.prompt_source` says which (``"release"``, ``"file"``, ``"ours"``). A reply
  is read by the release's rule (the text before the first punctuation mark is the letter A-F;
  with ``cot``, the word after ``The answer is``), and a reply the rule rejects is sampled again at
  T = 0.7 -- bounded by ``max_resamples`` (the release loops without a bound) and counted. The
  forms :func:`parse_letter` accepts (``(A)``, ``The answer is A``) are accepted too and logged as
  ``parse_rule == "lenient"`` (the release would have sampled again). A letter beyond the
  question's options but within the env's option slots is answered (the env scores it wrong, as
  the release does); beyond the slots it is re-asked. The choice order is the env's: the
  benchmark's ``--protocol authors`` turns choice shuffling off (the published order).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from collections.abc import Mapping
from typing import Any

import numpy as np

from policies.base import BasePolicy
from policies.llm.base import Backend, Messages
from policies.llm.caller import Ask, Caller, ScoreAsk
from policies.llm.errors import InvalidPolicyConfig, QAObservationError, ReplyError
from policies.llm.parsing import AUTHORS_LETTERS, parse_authors_cot_letter, parse_authors_letter, parse_letter
from policies.llm.slots import Slot, open_slots
from tom_envs.qa import QAPrompts, BACKGROUND_HEADER, DIALOGUE_HEADER, LETTERS, NOTHING_SAID, QUESTION_PREFIX, option_lines

MODES = ("zero_shot", "cot")

#: Prompt templates (data), worded with the env's pieces (:mod:`tom_envs.qa`). Fields: ``body``
#: (background, dialogue, question, options), ``letters``.
QA_BODY_BACKGROUND = BACKGROUND_HEADER + "\n{background}\n\n"
QA_BODY = "{background}" + DIALOGUE_HEADER + "\n{context}\n\n" + QUESTION_PREFIX + "{question}\nOptions:\n{options}"
QA_SCORE = "{body}\n\nAnswer:"
QA_DIRECT = "{body}\n\nReply only with a line of the form 'The answer is X', where X is one of {letters}."
QA_COT = (
    "{body}\n\nLet's think step by step about what each person knows, wants and believes. "
    "Then finish with a line of the form 'The answer is X', where X is one of {letters}."
)
MAX_TOKENS = {"zero_shot": 16, "cot": 256}

PROTOCOLS = ("ours", "authors")
#: The release samples every reply at T = 0.7, the re-samples of an unreadable reply included.
AUTHORS_TEMPERATURE = 0.7
AUTHORS_MAX_TOKENS = 500


def _prompts(prompts: QAPrompts | Mapping[str, Any] | None) -> QAPrompts:
    if prompts is None:
        raise InvalidPolicyConfig("protocol='authors' needs the protocol's prompt texts as authors_prompts= (a "
                                  "tom_envs.qa.QAPrompts): the family defining the protocol reads them from its "
                                  "release or gives its own (e.g. OUR_PROMPTS in its prompts module)")
    if isinstance(prompts, QAPrompts):
        return prompts
    try:
        return QAPrompts.from_texts(prompts, str(prompts.get("source", "file")))
    except (KeyError, TypeError, AttributeError) as exc:
        raise InvalidPolicyConfig(f"authors_prompts must be a QAPrompts or its texts() with a 'source', got a "
                                  f"mapping without {exc}") from None


def authors_user_message(observation: dict, mode: str, prompts: QAPrompts) -> tuple[str, list[str]]:
    """The user message of the authors' layout and its option lines (without the line break).

    ``prompts`` are the texts (:func:`tom_envs.persuasion.prompts.read_authors_prompts` reads the
    release's; :data:`~tom_envs.persuasion.prompts.OUR_PROMPTS` are ours). The dialogue is the env's
    ``context`` with the newline the release's ``dialogue`` fields end with; the background is not
    shown (the release does not show it).
    """
    prompts = _prompts(prompts)
    missing = [k for k in ("question", "choices", "n_choices") if k not in observation]
    if missing:
        raise QAObservationError(f"the observation has no {', '.join(missing)}; the authors' protocol answers "
                                 "tom/PersuasiveToM-v1's questions")
    n = int(observation["n_choices"])
    if not 1 <= n <= len(AUTHORS_LETTERS):
        raise QAObservationError(f"n_choices must be in 1..{len(AUTHORS_LETTERS)} for the authors' protocol "
                                 f"(letters A-F), got {n}")
    context = observation.get("context") or ""
    dialogue = context + "\n" if context and not context.endswith("\n") else context
    choices = [str(c) for c in list(observation["choices"])[:n]]
    text = prompts.user_message(mode, dialogue, str(observation["question"]), choices, AUTHORS_LETTERS)
    lines = [prompts.option_line.format(letter=AUTHORS_LETTERS[i], choice=c).strip("\n")
             for i, c in enumerate(choices)]
    return text, lines


def authors_messages(observation: dict, mode: str, prompts: QAPrompts, system_in_user: bool = False) -> Messages:
    """The authors' layout: system then user message; one user message (system text first) when
    ``system_in_user`` (the release does so for models named ``o1`` or ``gemma``)."""
    prompts = _prompts(prompts)
    text, _ = authors_user_message(observation, mode, prompts)
    system = prompts.system[mode]
    if system_in_user:
        return [{"role": "user", "content": system + "\n" + text}]
    return [{"role": "system", "content": system}, {"role": "user", "content": text}]


def authors_system_in_user(model: str) -> bool:
    """The release's rule for models whose chat template takes no system message."""
    return "o1" in model or "gemma" in model


def _ours_ask(prompt: str, n: int, owner: Slot) -> Ask:
    labels = LETTERS[:n]

    def parse(reply: str) -> tuple[int, str]:
        index = parse_letter(reply, labels)
        if index is None:
            raise ReplyError(f"no option letter ({', '.join(labels)}): neither 'The answer is X' nor a bare letter")
        return index, "ours"

    return Ask(prompt, parse, lambda rng: (int(rng.integers(n)), "fallback"), owner)


def _authors_ask(observation: dict, mode: str, system_in_user: bool, owner: Slot, prompts: QAPrompts) -> Ask:
    n, slots = int(observation["n_choices"]), len(observation["choices"])
    _, lines = authors_user_message(observation, mode, prompts)

    def parse(reply: str) -> tuple[int, str]:
        letter = parse_authors_cot_letter(reply, lines) if mode == "cot" else parse_authors_letter(reply)
        rule = "authors"
        if letter is None:
            index = parse_letter(reply, AUTHORS_LETTERS)
            if index is None:
                raise ReplyError("no letter A-F (the release's rule reads the text before the first punctuation mark)")
            letter, rule = AUTHORS_LETTERS[index], "lenient"
        index = AUTHORS_LETTERS.index(letter)
        if index >= slots:
            raise ReplyError(f"letter {letter} is beyond the env's {slots} option slots")
        return index, rule

    messages = authors_messages(observation, mode, prompts, system_in_user)
    return Ask(messages[-1]["content"], parse, lambda rng: (int(rng.integers(n)), "fallback"), owner,
               messages=messages)


def render_body(observation: dict) -> tuple[str, int]:
    """The question block of an observation and its number of options."""
    missing = [k for k in ("question", "choices", "n_choices") if k not in observation]
    if missing:
        raise QAObservationError(
            f"the observation has no {', '.join(missing)}; LLMQAAnswerer answers envs whose observation is a dict "
            "with 'question', 'choices' and 'n_choices' (tom/PersuasiveToM-v1, tom/CommonToM-v2, ...)."
        )
    n = int(observation["n_choices"])
    if not 1 <= n <= len(LETTERS):
        raise QAObservationError(f"n_choices must be in 1..{len(LETTERS)}, got {n}; was the episode already over?")
    options = "\n".join(option_lines(list(observation["choices"])[:n]))
    background = observation.get("background") or ""
    body = QA_BODY.format(
        background=QA_BODY_BACKGROUND.format(background=background) if background else "",
        context=observation.get("context") or NOTHING_SAID,
        question=observation["question"],
        options=options,
    )
    return body, n


class LLMQAAnswerer(BasePolicy):
    """Answers multiple-choice and yes/no questions with a model backend.

    Args:
        backend: the model.
        mode: ``"zero_shot"`` or ``"cot"``.
        scoring: zero-shot only: score the letters by log-probability (True) or parse a reply (False).
        seed: the policy seed; episode generators derive from it and the episode seed.
        max_resamples: extra attempts after the first for a reply naming no valid letter.
        fallback: ``"raise"`` or ``"random"`` after the bound.
        temperature: sampling temperature of generated replies.
        max_tokens: cap on generated tokens, or None for the mode's (or protocol's) default.
        protocol: ``"ours"`` or ``"authors"`` (see the module docstring).
        system_in_user: authors' protocol: put the system text into the user message (the release
            does so for ``o1`` and ``gemma`` models; :func:`authors_system_in_user`).
        authors_prompts: authors' protocol: the prompt texts (a
            :class:`~tom_envs.persuasion.prompts.QAPrompts`, e.g. read from the release's
            ``evaluation/evaluate.py``, or its ``texts()`` with a ``"source"``; ours are
            :data:`~tom_envs.persuasion.prompts.OUR_PROMPTS`); needed with ``protocol="authors"``.
            :attr:`prompt_source` names them.
    """

    makes_predictions = True

    def __init__(
        self,
        backend: Backend,
        *,
        mode: str = "zero_shot",
        scoring: bool = True,
        seed: int = 0,
        max_resamples: int = 10,
        fallback: str = "raise",
        temperature: float = 0.7,
        max_tokens: int | None = None,
        protocol: str = "ours",
        system_in_user: bool = False,
        authors_prompts: QAPrompts | Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__()
        if mode not in MODES:
            raise InvalidPolicyConfig(f"mode must be one of {MODES}, got {mode!r}.")
        if protocol not in PROTOCOLS:
            raise InvalidPolicyConfig(f"protocol must be one of {PROTOCOLS}, got {protocol!r}.")
        if protocol == "authors" and scoring and mode == "zero_shot":
            raise InvalidPolicyConfig("the authors' protocol generates replies (the release samples at T=0.7); "
                                      "build it with scoring=False.")
        self.backend = backend
        self.mode = mode
        self.protocol = protocol
        self.system_in_user = bool(system_in_user)
        self.authors_prompts = _prompts(authors_prompts) if protocol == "authors" else None
        #: Whose prompt texts are sent: "release", "file" or "ours" (see tom_envs.persuasion.prompts).
        self.prompt_source = self.authors_prompts.source if self.authors_prompts is not None else "ours"
        self.scoring = scoring and mode == "zero_shot" and protocol == "ours"
        self.seed = seed
        self.name = f"llm_qa_{mode}" + ("_scored" if self.scoring else "")
        self.name += "_authors" if protocol == "authors" else ""
        default_tokens = AUTHORS_MAX_TOKENS if protocol == "authors" else MAX_TOKENS[mode]
        tokens = max_tokens if max_tokens is not None else default_tokens
        self.caller = Caller(
            backend, max_resamples=max_resamples, fallback=fallback, temperature=temperature, max_tokens=tokens,
            resample_temperature=AUTHORS_TEMPERATURE if protocol == "authors" else None,
        )
        self._resets = 0
        self._slots: list[Slot] = []  # type: ignore[assignment]
        self._asked: list[int] = []

    # ------------------------------------------------------------------ single episode
    def reset(self, seed: int | None = None) -> None:
        self.reset_batch([seed])

    def act(self, observation: Any, info: dict) -> int:
        return self.act_batch([observation], [info])[0]

    def predict(self, observation: Any, info: dict) -> int:
        """The answer is the literal-ToM prediction in a QA env (same as :meth:`act`)."""
        return self.predict_batch([observation], [info])[0]

    def observe(self, observation: Any, reward: float, terminated: bool, truncated: bool, info: dict) -> None:
        self.observe_batch([observation], [reward], [terminated], [truncated], [info])

    # ------------------------------------------------------------------ batched
    def reset_batch(self, seeds: Sequence[int | None]) -> None:
        self._slots = open_slots(self.seed, self._resets, list(seeds))  # type: ignore[assignment]
        self._asked = [0] * len(seeds)
        self._resets += 1

    def act_batch(self, observations: Sequence[Any], infos: Sequence[dict],
                  slots: Sequence[int] | None = None) -> list[int]:
        """One answer per slot (all, or those listed in ``slots``): one scoring call, or one generation
        call per resampling round."""
        index = list(range(len(self._slots))) if slots is None else list(slots)
        chosen: list[Slot] = self._check_batch(observations, slots)
        for i, slot in zip(index, chosen):
            slot.open_round(self.name, self._asked[i] + 1)
        todo = [i for i, s in enumerate(chosen) if "answer" not in s.cache]
        sub = [chosen[i] for i in todo]
        if self.protocol == "authors":
            asks = [_authors_ask(observations[i], self.mode, self.system_in_user, s, self.authors_prompts)
                    for i, s in zip(todo, sub)]
            for slot, answer in zip(sub, self.caller.ask("answer", asks)):
                slot.cache["answer"], slot.log["parse_rule"] = answer.value
        elif self.scoring:
            bodies = [render_body(observations[i]) for i in todo]
            asks = [
                ScoreAsk(QA_SCORE.format(body=b), [" " + x for x in LETTERS[:n]], s) for (b, n), s in zip(bodies, sub)
            ]
            for slot, probs in zip(sub, self.caller.score("answer", asks)):
                slot.cache["answer"] = int(np.argmax(probs))
                slot.log["parse_rule"] = "scored"
        else:
            bodies = [render_body(observations[i]) for i in todo]
            template = QA_COT if self.mode == "cot" else QA_DIRECT
            asks = [
                _ours_ask(template.format(body=b, letters=", ".join(LETTERS[:n])), n, s)
                for (b, n), s in zip(bodies, sub)
            ]
            for slot, answer in zip(sub, self.caller.ask("answer", asks)):
                slot.cache["answer"], slot.log["parse_rule"] = answer.value
        answers = [int(s.cache["answer"]) for s in chosen]
        for slot, a in zip(chosen, answers):
            slot.log["action"] = a
        return answers

    def predict_batch(self, observations: Sequence[Any], infos: Sequence[dict],
                      slots: Sequence[int] | None = None) -> list[int]:
        return self.act_batch(observations, infos, slots)

    def observe_batch(self, observations, rewards, terminateds, truncateds, infos,
                      slots: Sequence[int] | None = None) -> None:
        picked = self._check_batch(observations, slots)
        for i, slot in zip(range(len(self._slots)) if slots is None else slots, picked):
            slot.cache = {}
            self._asked[i] += 1

    def last_step_log(self) -> list[dict]:
        """Per slot, the log of the latest question (same keys as the matrix policy's log)."""
        return [copy.deepcopy(s.log) for s in self._slots]

    def episode_stats(self) -> list[dict]:
        """Per slot, the caller's counters (``parse_failures``, ``fallbacks``, ``requests``,
        ``backend_calls``, ``decisions``) and ``questions``."""
        return [{**s.stats, "questions": q} for s, q in zip(self._slots, self._asked)]
