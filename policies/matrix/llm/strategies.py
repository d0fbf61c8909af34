"""Seed 004's prompting strategies for the repeated matrix games, as small batched objects.

A strategy builds prompts and reads replies; it never talks to a backend directly. It gets a
:class:`StageRunner`, the matrix adapter of the one caller (:class:`policies.llm.caller.Caller`),
whose three calls each make exactly ONE backend call over every episode slot handed to it (one call
per resampling round for generation):

* :meth:`StageRunner.score` -- 004's LM prompting: every action label is scored by log-probability;
* :meth:`StageRunner.choose` -- generate a reply that must end in ``Answer: <label>``; invalid
  replies are re-asked up to ``max_resamples`` times with fresh seeds, every failure is counted,
  and after the bound the configured fallback applies (raise :class:`ResampleLimitReached`, or a
  uniformly random action flagged ``fallback=True`` in the step log) -- never a silent default;
* :meth:`StageRunner.text` -- free text accepted as is (reflections, S2A summaries).

Every prompt sent, reply received, failure and fallback lands in the slot's per-round log.
Adding a strategy: one :class:`MatrixStrategy` subclass and one line in :data:`STRATEGY_BUILDERS`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from policies.matrix.llm import prompts as P
from policies.llm.base import Backend
from policies.llm.caller import FALLBACKS, Ask, Caller, ScoreAsk, user
from policies.llm.errors import InvalidPolicyConfig, OracleActionUnavailable, ResampleLimitReached, UnknownStrategy
from policies.matrix.llm.text import GameText, cot_examples
from policies.llm.parsing import choice_ask, extract_section, parse_answer
from policies.llm.scoring import softmax
from policies.llm.slots import Slot

#: Default ``max_tokens`` per generation stage kind.
MAX_TOKENS = {"qa": 16, "cot": 256, "plans": 256, "reflect": 128, "s2a": 256}
#: How LM prompting compares labels: summed token log-probabilities (004) or their per-token mean.
SCORING = ("sum", "mean")


def backend_tokenizer(backend: Any) -> Any:
    """The backend's Hugging Face tokenizer, or None (an OpenAI backend built without ``tokenizer``)."""
    return getattr(backend, "tokenizer", None)


# --------------------------------------------------------------------------------------------- stage runner


class StageRunner:
    """The matrix strategies' view of the :class:`~policies.llm.caller.Caller`: stages over episode slots.

    Args:
        backend: the model.
        max_resamples: extra attempts after the first for a reply that does not parse (total
            attempts ``1 + max_resamples``).
        fallback: after the bound, ``"raise"`` (:class:`ResampleLimitReached`) or ``"random"``
            (a uniformly random action from the slot's generator, flagged in the log).
        temperature: sampling temperature of generation stages.
        max_tokens: one cap for every generation stage, or None for :data:`MAX_TOKENS`.
        scoring: ``"sum"`` (summed label log-probabilities, 004) or ``"mean"`` (each divided by the
            label's token count under the backend's tokenizer: length-normalised), see :data:`SCORING`.
    """

    def __init__(
        self,
        backend: Backend,
        *,
        max_resamples: int,
        fallback: str,
        temperature: float,
        max_tokens: int | None,
        scoring: str = "sum",
    ) -> None:
        if scoring not in SCORING:
            raise InvalidPolicyConfig(f"scoring must be one of {SCORING}, got {scoring!r}.")
        self.caller = Caller(
            backend, max_resamples=max_resamples, fallback=fallback, temperature=temperature, max_tokens=max_tokens
        )
        self.scoring = scoring
        self._label_tokens: dict[str, int] = {}

    backend = property(lambda self: self.caller.backend, doc="The model.")
    max_resamples = property(lambda self: self.caller.max_resamples, doc="Re-asks after the first attempt.")
    fallback = property(lambda self: self.caller.fallback, doc='"raise" or "random".')
    temperature = property(lambda self: self.caller.temperature, doc="Sampling temperature.")
    max_tokens = property(lambda self: self.caller.max_tokens, doc="The one generation cap, or None.")

    def tokens(self, kind: str) -> int:
        """The generation cap of a stage kind."""
        return self.max_tokens if self.max_tokens is not None else MAX_TOKENS[kind]

    def score(
        self, slots: Sequence[Slot], stage: str, prompts: Sequence[str], labels: Sequence[str]
    ) -> list[np.ndarray]:
        """Probabilities of every label after each slot's prompt (one ``backend.score`` call)."""
        continuations = [" " + label for label in labels]
        lengths = self.label_tokens(continuations) if self.scoring == "mean" else None
        return self.caller.score(stage, [ScoreAsk(p, continuations, s, lengths) for s, p in zip(slots, prompts)])

    def label_tokens(self, continuations: Sequence[str]) -> list[float]:
        """Each continuation's token count under the backend's tokenizer (length-normalised scoring)."""
        missing = [c for c in continuations if c not in self._label_tokens]
        if missing:
            tokenizer = backend_tokenizer(self.backend)
            if tokenizer is None:
                raise InvalidPolicyConfig(
                    "length-normalised scoring (scoring='mean') counts each label's tokens with the model's "
                    "tokenizer, and this backend has none: the vllm backend always has it; for an OpenAI-compatible "
                    "server give the tokenizer (--tokenizer / OpenAIBackend(..., tokenizer=...)), or use scoring='sum'."
                )
            for c in missing:
                self._label_tokens[c] = max(1, len(tokenizer.encode(c, add_special_tokens=False)))
        return [float(self._label_tokens[c]) for c in continuations]

    def choose(
        self, slots: Sequence[Slot], stage: str, contents: Sequence[str], labels: Sequence[str], kind: str
    ) -> list[tuple[int, str | None]]:
        """Each slot's choice among ``labels`` from a generated reply, with resampling and fallback.

        Returns:
            ``(index, accepted reply)`` per slot; the reply is None when the fallback chose.
        """
        asks = [choice_ask(c, labels, s) for s, c in zip(slots, contents)]
        return [(a.value, a.reply) for a in self.caller.ask(stage, asks, max_tokens=self.tokens(kind))]

    def text(self, slots: Sequence[Slot], stage: str, contents: Sequence[str], kind: str) -> list[str]:
        """One generated reply per slot, accepted as is (one ``backend.generate`` call)."""
        asks = [Ask(c, owner=s) for s, c in zip(slots, contents)]
        return self.caller.text(stage, asks, max_tokens=self.tokens(kind))


# --------------------------------------------------------------------------------------------- strategies


class MatrixStrategy:
    """Base of the strategies: how to act, how to predict, what to do after a round.

    Attributes:
        name: the strategy's name in :data:`STRATEGIES`.
        makes_predictions: whether it has a literal-ToM prompt (``predict`` returns None otherwise).
        needs_scoring: whether it needs ``backend.score`` (LM prompting).
        generates: whether it samples replies (everything but LM prompting).
    """

    name = "base"
    makes_predictions = True
    needs_scoring = False
    #: Whether it samples replies (so temperature, generation caps, re-asks and fallbacks matter to it).
    generates = True

    def act(self, run: StageRunner, text: GameText, slots: Sequence[Slot]) -> list[int]:  # pragma: no cover
        raise NotImplementedError

    def predict(self, run: StageRunner, text: GameText, slots: Sequence[Slot]) -> list[Any]:
        return [None] * len(slots)

    def after_round(self, run: StageRunner, text: GameText, slots: Sequence[Slot]) -> None:
        """Called by ``observe`` with the slots whose episode goes on."""

    @staticmethod
    def _todo(slots: Sequence[Slot], key: str) -> list[Slot]:
        return [s for s in slots if key not in s.cache]


class LMStrategy(MatrixStrategy):
    """004's LM prompting: score every action label and take the most likely (or sample ∝ probability).

    Literal ToM (004 Fig. 2, agent first): the agent's own action is decided first, then the
    partner's labels are scored after it; ``predict`` returns that distribution.
    """

    name = "lm"
    needs_scoring = True
    generates = False

    def __init__(self, sample: bool = False) -> None:
        self.sample = sample

    def act(self, run: StageRunner, text: GameText, slots: Sequence[Slot]) -> list[int]:
        todo = self._todo(slots, "action")
        prompts = [P.LM_ACT.format(**text.fields(s)) for s in todo]
        for slot, probs in zip(todo, run.score(todo, "act", prompts, text.labels)):
            slot.cache["action"] = int(slot.rng.choice(len(probs), p=probs)) if self.sample else int(np.argmax(probs))
        return [s.cache["action"] for s in slots]

    def predict(self, run: StageRunner, text: GameText, slots: Sequence[Slot]) -> list[Any]:
        todo = self._todo(slots, "prediction")
        actions = self.act(run, text, todo)
        prompts = [
            P.LM_TOM_AGENT_FIRST.format(**text.fields(s, my_action=text.labels[a])) for s, a in zip(todo, actions)
        ]
        for slot, probs in zip(todo, run.score(todo, "predict", prompts, text.partner_labels)):
            slot.cache["prediction"] = probs
        return [s.cache["prediction"] for s in slots]


class QAStrategy(MatrixStrategy):
    """004's QA prompting (Fig. 4-5), and with ``cot=True`` CoT prompting (Fig. 6-7)."""

    name = "qa"

    def __init__(self, cot: bool = False) -> None:
        self.cot = cot
        self.kind = "cot" if cot else "qa"
        self.style = P.COT_STYLE if cot else P.QA_STYLE

    def content(self, text: GameText, slot: Slot, role: str) -> str:
        return P.QA.format(
            **text.fields(slot),
            question=text.question(role, slot),
            style=self.style,
            answer_format=text.answer_format(role),
        )

    def _choose(self, run: StageRunner, text: GameText, slots: Sequence[Slot], role: str) -> list[int]:
        key = "action" if role == "act" else "prediction"
        todo = self._todo(slots, key)
        labels = text.labels if role == "act" else text.partner_labels
        contents = [self.content(text, s, role) for s in todo]
        for slot, (choice, reply) in zip(todo, run.choose(todo, role, contents, labels, self.kind)):
            slot.cache[key] = choice
            self.accepted(slot, role, reply)
        return [s.cache[key] for s in slots]

    def accepted(self, slot: Slot, role: str, reply: str | None) -> None:
        """Hook: an accepted reply (None after a fallback)."""

    def act(self, run: StageRunner, text: GameText, slots: Sequence[Slot]) -> list[int]:
        return self._choose(run, text, slots, "act")

    def predict(self, run: StageRunner, text: GameText, slots: Sequence[Slot]) -> list[Any]:
        return self._choose(run, text, slots, "predict")


class CoTShotStrategy(QAStrategy):
    """004's CoT + 3-shot (Fig. 13): three worked examples customised to the game, then CoT.

    The literal-ToM prompt is plain CoT (004 describes no 3-shot prediction prompt).
    """

    name = "cot3"

    def __init__(self) -> None:
        super().__init__(cot=True)

    def content(self, text: GameText, slot: Slot, role: str) -> str:
        if role != "act":
            return super().content(text, slot, role)
        return P.COT_SHOT.format(
            **text.fields(slot),
            examples=cot_examples(text),
            question=text.question(role, slot),
            style=self.style,
            answer_format=text.answer_format(role),
        )


class PlansInsightsStrategy(QAStrategy):
    """004's Plans + Insights (Fig. 8-9): the reply also writes a plan and insights, shown next round.

    Acting and predicting each carry their own plan and insights.
    """

    name = "plans_insights"

    def __init__(self) -> None:
        super().__init__(cot=False)
        self.kind = "plans"

    def content(self, text: GameText, slot: Slot, role: str) -> str:
        notes = slot.memory.get(role, {})
        return P.PLANS_INSIGHTS.format(
            **text.fields(slot),
            plan=notes.get("plan") or P.NO_NOTE,
            insights=notes.get("insights") or P.NO_NOTE,
            question=text.question(role, slot),
            answer_format=text.answer_format(role),
        )

    def accepted(self, slot: Slot, role: str, reply: str | None) -> None:
        if reply is not None:  # a fallback keeps the previous notes
            slot.memory[role] = {"plan": extract_section(reply, "plan"), "insights": extract_section(reply, "insights")}


class ReflexionStrategy(QAStrategy):
    """004's Reflexion (Fig. 10-12): after every round a reflection step writes a plan, the newest
    ``memory`` of which are shown to the acting and predicting prompts."""

    name = "reflexion"

    def __init__(self, memory: int = 1) -> None:
        if memory not in (1, 2, 3):
            raise UnknownStrategy(f"Reflexion keeps 1 to 3 memories (004 §4.1), got memory={memory!r}.")
        super().__init__(cot=False)
        self.memory = memory

    def memories(self, slot: Slot) -> str:
        notes = slot.memory.get("reflections", [])[-self.memory :]
        return "\n".join(f"- {n}" for n in notes) if notes else P.NO_NOTE

    def content(self, text: GameText, slot: Slot, role: str) -> str:
        return P.REFLEXION.format(
            **text.fields(slot),
            memories=self.memories(slot),
            question=text.question(role, slot),
            style=self.style,
            answer_format=text.answer_format(role),
        )

    def after_round(self, run: StageRunner, text: GameText, slots: Sequence[Slot]) -> None:
        contents = [P.REFLECT.format(context=text.context(s), memories=self.memories(s), t_done=s.t) for s in slots]
        for slot, reply in zip(slots, run.text(slots, "reflect", contents, "reflect")):
            note = extract_section(reply, "plan") or reply.strip()
            slot.memory.setdefault("reflections", []).append(note)
            del slot.memory["reflections"][: -self.memory]


class SocialStrategy(QAStrategy):
    """004's Social prompting (Fig. 18): predict the partner first -- by QA (Social QA, Fig. 5) or by
    LM partner-first scoring (Social LM, Fig. 3) -- then act on a prompt that states the prediction."""

    def __init__(self, lm: bool) -> None:
        super().__init__(cot=False)
        self.lm = lm
        self.name = "social_lm" if lm else "social_qa"
        self.needs_scoring = lm

    def predict(self, run: StageRunner, text: GameText, slots: Sequence[Slot]) -> list[Any]:
        if not self.lm:
            return super().predict(run, text, slots)
        todo = self._todo(slots, "prediction")
        prompts = [P.LM_TOM_PARTNER_FIRST.format(**text.fields(s)) for s in todo]
        for slot, probs in zip(todo, run.score(todo, "predict", prompts, text.partner_labels)):
            slot.cache["prediction"] = probs
        return [s.cache["prediction"] for s in slots]

    def act(self, run: StageRunner, text: GameText, slots: Sequence[Slot]) -> list[int]:
        self.predict(run, text, slots)
        return self._choose(run, text, slots, "act")

    def content(self, text: GameText, slot: Slot, role: str) -> str:
        if role != "act":
            return super().content(text, slot, role)
        prediction = slot.cache["prediction"]  # an index (Social QA) or a distribution (Social LM)
        predicted = int(prediction) if np.ndim(prediction) == 0 else int(np.argmax(prediction))
        return P.SOCIAL.format(
            **text.fields(slot),
            their_action=text.partner_labels[predicted],
            question=text.question(role, slot),
            style=self.style,
            answer_format=text.answer_format(role),
        )


class S2AStrategy(QAStrategy):
    """004's System 2 Attention (Fig. 16-17): a first reply rewrites rules and history, and replaces
    them in the QA (S2A) or CoT (S2A + CoT) prompt that follows. Acting and predicting each have theirs."""

    def __init__(self, cot: bool) -> None:
        super().__init__(cot=cot)
        self.name = "s2a_cot" if cot else "s2a"

    def _choose(self, run: StageRunner, text: GameText, slots: Sequence[Slot], role: str) -> list[int]:
        key = f"summary_{role}"
        todo = [s for s in self._todo(slots, key) if ("action" if role == "act" else "prediction") not in s.cache]
        template = P.S2A_ACT if role == "act" else P.S2A_TOM
        contents = [template.format(**text.fields(s)) for s in todo]
        for slot, summary in zip(todo, run.text(todo, f"s2a_{role}", contents, "s2a")):
            slot.cache[key] = summary
        return super()._choose(run, text, slots, role)

    def content(self, text: GameText, slot: Slot, role: str) -> str:
        summary = P.S2A_CONTEXT.format(summary=slot.cache[f"summary_{role}"])
        return P.QA.format(
            **text.fields(slot, context=summary),
            question=text.question(role, slot),
            style=self.style,
            answer_format=text.answer_format(role),
        )


class OracleStrategy(QAStrategy):
    """004's Oracle prompting (Fig. 14-15, §4.2): the partner's true next action is in the prompt.

    Variants: ``maximize`` adds the emphasis on maximising reward; ``history=False`` leaves the
    history out; ``payoffs=False`` leaves the payoff table out. Needs an env built with
    ``expose_partner_action=True``. There is no literal-ToM prompt: ``predict`` returns None.
    """

    makes_predictions = False

    def __init__(self, maximize: bool = False, history: bool = True, payoffs: bool = True) -> None:
        super().__init__(cot=False)
        self.maximize, self.history, self.payoffs = maximize, history, payoffs
        self.name = (
            "oracle"
            + ("_max" if maximize else "")
            + ("" if history else "_no_history")
            + ("" if payoffs else "_no_payoffs")
        )

    def predict(self, run: StageRunner, text: GameText, slots: Sequence[Slot]) -> list[Any]:
        return [None] * len(slots)

    def content(self, text: GameText, slot: Slot, role: str) -> str:
        if "partner_next_action" not in slot.info:
            raise OracleActionUnavailable(
                f"strategy {self.name!r} puts the partner's next action in the prompt, but info has no "
                "'partner_next_action'. Build the env with expose_partner_action=True, e.g. "
                "gymnasium.make('tom/RPS-v0', expose_partner_action=True), and pass each step's info to act()."
            )
        their = text.partner_labels[int(slot.info["partner_next_action"])]
        line = P.ORACLE_LINE.format(their_action=their)
        if self.maximize:
            line += " " + P.MAX_LINE.format(their_action=their)
        context = text.context(slot, history=self.history, payoffs=self.payoffs)
        return P.ORACLE.format(
            **text.fields(slot, context=context),
            oracle_line=line,
            question=text.question(role, slot),
            style=self.style,
            answer_format=text.answer_format(role),
        )


#: Strategy names and their builders (keyword arguments: ``lm_sample`` for LM, ``memory`` for Reflexion).
STRATEGY_BUILDERS: dict[str, Callable[..., MatrixStrategy]] = {
    "lm": lambda lm_sample=False, **_: LMStrategy(sample=lm_sample),
    "qa": lambda **_: QAStrategy(cot=False),
    "cot": lambda **_: _named(QAStrategy(cot=True), "cot"),
    "cot3": lambda **_: CoTShotStrategy(),
    "plans_insights": lambda **_: PlansInsightsStrategy(),
    "reflexion": lambda memory=1, **_: ReflexionStrategy(memory),
    "reflexion1": lambda **_: _named(ReflexionStrategy(1), "reflexion1"),
    "reflexion2": lambda **_: _named(ReflexionStrategy(2), "reflexion2"),
    "reflexion3": lambda **_: _named(ReflexionStrategy(3), "reflexion3"),
    "social_qa": lambda **_: SocialStrategy(lm=False),
    "social_lm": lambda **_: SocialStrategy(lm=True),
    "s2a": lambda **_: S2AStrategy(cot=False),
    "s2a_cot": lambda **_: S2AStrategy(cot=True),
    "oracle": lambda **_: OracleStrategy(),
    "oracle_max": lambda **_: OracleStrategy(maximize=True),
    "oracle_max_no_history": lambda **_: OracleStrategy(maximize=True, history=False),
    "oracle_max_no_payoffs": lambda **_: OracleStrategy(maximize=True, payoffs=False),
}
#: The strategy names the runner accepts (``--strategies``).
STRATEGIES: tuple[str, ...] = tuple(STRATEGY_BUILDERS)


def _named(strategy: MatrixStrategy, name: str) -> MatrixStrategy:
    strategy.name = name
    return strategy


def build_strategy(name: str, **kwargs: Any) -> MatrixStrategy:
    """The strategy called ``name`` (see :data:`STRATEGIES`)."""
    if name not in STRATEGY_BUILDERS:
        raise UnknownStrategy(f"unknown strategy {name!r}; choose one of: {', '.join(STRATEGIES)}.")
    return STRATEGY_BUILDERS[name](**kwargs)


# Names kept importable from here for older code (they live in the caller, parsing, errors and slots modules).
__all__ = [
    "FALLBACKS",
    "MAX_TOKENS",
    "SCORING",
    "STRATEGIES",
    "STRATEGY_BUILDERS",
    "CoTShotStrategy",
    "GameText",
    "InvalidPolicyConfig",
    "LMStrategy",
    "MatrixStrategy",
    "OracleActionUnavailable",
    "OracleStrategy",
    "PlansInsightsStrategy",
    "QAStrategy",
    "ReflexionStrategy",
    "ResampleLimitReached",
    "S2AStrategy",
    "Slot",
    "SocialStrategy",
    "StageRunner",
    "UnknownStrategy",
    "backend_tokenizer",
    "build_strategy",
    "cot_examples",
    "extract_section",
    "parse_answer",
    "softmax",
    "user",
]
