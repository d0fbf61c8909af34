"""A generic LLM answerer for the question-answering envs (any :class:`tom_envs.qa.QAEnv`).

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

* None (default, ``"ours"``): the prompts above (background, dialogue, question, options), one user
  message; a reply is read by :func:`~policies.llm.parsing.parse_letter` (an answer line, or a
  bare letter such as ``A``, ``A.``, ``A. Yes``, ``(A)``).
* a :class:`QAProtocol`: another layout, reading rule and sampling, as a family's release puts its
  questions (e.g. :class:`policies.persuasion.qa_protocol.AuthorsProtocol`). It makes each
  question's decision (its messages, the rule that reads a reply, the fallback); replies are
  generated (never scored), re-asked at the protocol's ``resample_temperature`` and capped at its
  ``max_tokens`` by default. :attr:`LLMQAAnswerer.prompt_source` names whose prompt texts are sent.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from policies.base import BasePolicy
from policies.llm.base import Backend
from policies.llm.caller import Ask, Caller, ScoreAsk
from policies.llm.errors import InvalidPolicyConfig, QAObservationError, ReplyError
from policies.llm.parsing import parse_letter
from policies.llm.slots import Slot, open_slots
from tom_envs.qa import BACKGROUND_HEADER, DIALOGUE_HEADER, LETTERS, NOTHING_SAID, QUESTION_PREFIX, option_lines

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


class QAProtocol(Protocol):
    """How a family's release puts its questions to a model, as :class:`LLMQAAnswerer` takes it.

    Attributes:
        name: names the protocol (the answerer's ``name`` ends with it).
        source: whose prompt texts are sent (e.g. ``"release"``, ``"file"``, ``"ours"``).
        max_tokens: the default cap on generated tokens.
        resample_temperature: the temperature of a re-asked reply (None: the answerer's).
        send_seed: (optional, default True) False where the protocol's requests carry no seed: a
            server then gets none (``ChatRequest.send_seed``).
    """

    name: str
    max_tokens: int
    resample_temperature: float | None

    @property
    def source(self) -> str: ...

    def ask(self, observation: dict, mode: str, owner: Slot) -> Ask:
        """The decision to generate for one question: messages, the reply's reading rule (value
        ``(index, rule)``) and the fallback."""
        ...


def _ours_ask(prompt: str, n: int, owner: Slot) -> Ask:
    labels = LETTERS[:n]

    def parse(reply: str) -> tuple[int, str]:
        index = parse_letter(reply, labels)
        if index is None:
            raise ReplyError(f"no option letter ({', '.join(labels)}): neither 'The answer is X' nor a bare letter")
        return index, "ours"

    return Ask(prompt, parse, lambda rng: (int(rng.integers(n)), "fallback"), owner)


def checked_n_choices(observation: dict, letters: str, answers: str) -> int:
    """The number of options of a question observation, checked against the letters that can name them.

    Args:
        observation: a QA env's observation.
        letters: the option letters of the prompt layout.
        answers: what the caller answers (said when a key is missing).

    Raises:
        QAObservationError: a key is missing, or the options are none or more than the letters.
    """
    missing = [k for k in ("question", "choices", "n_choices") if k not in observation]
    if missing:
        raise QAObservationError(f"the observation has no {', '.join(missing)}; {answers}")
    n = int(observation["n_choices"])
    if not 1 <= n <= len(letters):
        raise QAObservationError(
            f"n_choices must be in 1..{len(letters)} (letters {letters[0]}-{letters[-1]}), got {n}; "
            "was the episode already over?"
        )
    return n


def render_body(observation: dict) -> tuple[str, int]:
    """The question block of an observation and its number of options."""
    n = checked_n_choices(
        observation,
        LETTERS,
        "LLMQAAnswerer answers envs whose observation is a dict with 'question', 'choices' and 'n_choices' "
        "(the QA envs, tom_envs.qa.QAEnv).",
    )
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
        protocol: None (ours) or a :class:`QAProtocol` (see the module docstring);
            :attr:`prompt_source` names its texts.
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
        protocol: QAProtocol | None = None,
    ) -> None:
        super().__init__()
        if mode not in MODES:
            raise InvalidPolicyConfig(f"mode must be one of {MODES}, got {mode!r}.")
        if isinstance(protocol, str) or (protocol is not None and not callable(getattr(protocol, "ask", None))):
            raise InvalidPolicyConfig(
                f"protocol must be None (ours) or a QAProtocol object (with ask()), got {protocol!r}."
            )
        if protocol is not None and scoring and mode == "zero_shot":
            raise InvalidPolicyConfig(f"the {protocol.name!r} protocol generates replies; build it with scoring=False.")
        self.backend = backend
        self.mode = mode
        self.protocol = protocol
        #: Whose prompt texts are sent: "ours", or the protocol's source (e.g. "release", "file").
        self.prompt_source = protocol.source if protocol is not None else "ours"
        self.scoring = scoring and mode == "zero_shot" and protocol is None
        self.seed = seed
        self.name = f"llm_qa_{mode}" + ("_scored" if self.scoring else "")
        self.name += f"_{protocol.name}" if protocol is not None else ""
        default_tokens = protocol.max_tokens if protocol is not None else MAX_TOKENS[mode]
        tokens = max_tokens if max_tokens is not None else default_tokens
        self.caller = Caller(
            backend,
            max_resamples=max_resamples,
            fallback=fallback,
            temperature=temperature,
            max_tokens=tokens,
            resample_temperature=protocol.resample_temperature if protocol is not None else None,
            send_seed=bool(getattr(protocol, "send_seed", True)),
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

    def act_batch(
        self, observations: Sequence[Any], infos: Sequence[dict], slots: Sequence[int] | None = None
    ) -> list[int]:
        """One answer per slot (all, or those listed in ``slots``): one scoring call, or one generation
        call per resampling round."""
        index = list(range(len(self._slots))) if slots is None else list(slots)
        chosen: list[Slot] = self._check_batch(observations, slots)
        for i, slot in zip(index, chosen):
            slot.open_round(self.name, self._asked[i] + 1)
        todo = [i for i, s in enumerate(chosen) if "answer" not in s.cache]
        sub = [chosen[i] for i in todo]
        if self.protocol is not None:
            asks = [self.protocol.ask(observations[i], self.mode, s) for i, s in zip(todo, sub)]
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

    def predict_batch(
        self, observations: Sequence[Any], infos: Sequence[dict], slots: Sequence[int] | None = None
    ) -> list[int]:
        return self.act_batch(observations, infos, slots)

    def observe_batch(
        self, observations, rewards, terminateds, truncateds, infos, slots: Sequence[int] | None = None
    ) -> None:
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
