"""Seed 004's prompting strategies for the repeated matrix games, as small batched objects.

A strategy builds prompts and reads replies; it never talks to a backend directly. It gets a
:class:`StageRunner`, whose three calls each make exactly ONE backend call over every episode slot
handed to it (one call per resampling round for generation):

* :meth:`StageRunner.score` -- 004's LM prompting: every action label is scored by log-probability;
* :meth:`StageRunner.choose` -- generate a reply that must end in ``Answer: <label>``; invalid
  replies are re-asked up to ``max_resamples`` times with fresh seeds, every failure is counted,
  and after the bound the configured fallback applies (raise :class:`ResampleLimitReached`, or a
  uniformly random action flagged ``fallback=True`` in the step log) -- never a silent default;
* :meth:`StageRunner.text` -- free text accepted as is (reflections, S2A summaries).

Every prompt sent, reply received, failure and fallback lands in the slot's per-round log.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from policies.llm import prompts as P
from policies.llm.backends import Backend, ChatRequest, ScoreRequest
from policies.llm.errors import InvalidPolicyConfig, OracleActionUnavailable, ResampleLimitReached, UnknownStrategy
from tom_envs.matrix.games import MatrixGame
from tom_envs.matrix.text import render_history, render_rules

FALLBACKS = ("raise", "random")
#: Default ``max_tokens`` per generation stage kind.
MAX_TOKENS = {"qa": 16, "cot": 256, "plans": 256, "reflect": 128, "s2a": 256}


# --------------------------------------------------------------------------------------------- parsing

_ANSWER_RE = re.compile(r"answer\s*(?:is)?\s*[:=\-]?\s*[\*\"'`\[(<]*\s*([A-Za-z][A-Za-z0-9_]*)", re.IGNORECASE)


def parse_answer(reply: str, labels: Sequence[str]) -> int | None:
    """The index of the label named on the reply's last ``Answer: <label>`` line, or None.

    The match is case-insensitive on the whole word; anything else (no answer line, a word that is
    not a label) is a failed parse, never a default.
    """
    found = _ANSWER_RE.findall(reply)
    if not found:
        return None
    word = found[-1].lower()
    lowered = [label.lower() for label in labels]
    return lowered.index(word) if word in lowered else None


def extract_section(reply: str, name: str) -> str:
    """The text after ``<name>:`` up to the next ``Word:`` header line (stripped), or ""."""
    match = re.search(rf"{name}\s*:\s*(.*?)(?=\n\s*[A-Z][A-Za-z ]{{0,20}}:|\Z)", reply, re.IGNORECASE | re.DOTALL)
    return match.group(1).strip() if match else ""


def softmax(scores: Sequence[float]) -> np.ndarray:
    """Probabilities proportional to ``exp(score)`` (scores are log-probabilities)."""
    x = np.asarray(scores, dtype=np.float64)
    e = np.exp(x - x.max())
    return e / e.sum()


# --------------------------------------------------------------------------------------------- episode slots


@dataclass
class Slot:
    """One episode's state inside an :class:`~policies.llm.policy.LLMMatrixPolicy`.

    Attributes:
        rng: the slot's generator; sampling seeds and fallback actions are drawn from it.
        history: (focal, partner) joint actions played so far.
        rewards: the focal rewards received so far.
        info: the env info of the latest reset/step (Oracle strategies read it).
        done: the episode has ended.
        memory: text carried across rounds (plans, insights, reflections).
        cache: decisions of the current round (prediction, action, summaries), cleared by observe.
        log: the current round's log (see :meth:`StageRunner`).
        totals: counters over the episode (parse failures, fallbacks, backend calls, decisions).
    """

    rng: np.random.Generator
    history: list[tuple[int, int]] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)
    info: dict = field(default_factory=dict)
    done: bool = False
    memory: dict[str, Any] = field(default_factory=dict)
    cache: dict[str, Any] = field(default_factory=dict)
    log: dict[str, Any] = field(default_factory=dict)
    totals: dict[str, int] = field(
        default_factory=lambda: {"parse_failures": 0, "fallbacks": 0, "requests": 0, "backend_calls": 0}
    )

    @property
    def t(self) -> int:
        """Rounds played so far (the coming round is ``t + 1``)."""
        return len(self.history)

    def next_seed(self) -> int:
        """A fresh sampling seed from the slot's generator."""
        return int(self.rng.integers(0, 2**31 - 1))

    def open_round(self, strategy: str, round_no: int | None = None) -> None:
        """Start the log of the coming round (default ``t + 1``) unless it is already open."""
        round_no = self.t + 1 if round_no is None else round_no
        if self.log.get("round") != round_no:
            self.log = {
                "round": round_no, "strategy": strategy, "stages": [], "prompts": [], "replies": [],
                "parse_failures": 0, "fallback": False, "decisions_per_call": [], "prompt_tokens": 0,
                "completion_tokens": 0, "action": None, "prediction": None,
            }  # fmt: skip


# --------------------------------------------------------------------------------------------- game text


class GameText:
    """Renders the parts of a prompt for one game, horizon and label set."""

    def __init__(self, game: MatrixGame, horizon: int, label_set: str) -> None:
        self.game = game
        self.horizon = horizon
        self.label_set = label_set
        self.labels = game.labels(label_set, "focal")
        self.partner_labels = game.labels(label_set, "partner")
        self.rules = render_rules(game, horizon, label_set)
        self.rules_no_payoffs = P.RULES_NO_PAYOFFS.format(
            T=horizon, labels=", ".join(self.labels), partner_labels=", ".join(self.partner_labels)
        )

    def context(self, slot: Slot, *, history: bool = True, payoffs: bool = True) -> str:
        """Rules (with or without payoffs) and, unless left out, the history of play."""
        rules = self.rules if payoffs else self.rules_no_payoffs
        if not history:
            return rules
        if payoffs:
            past = render_history(self.game, slot.history, self.label_set)
        else:
            lines = [
                P.HISTORY_LINE_NO_REWARDS.format(i=i, mine=self.labels[a], theirs=self.partner_labels[b])
                for i, (a, b) in enumerate(slot.history, start=1)
            ]
            past = "\n".join(lines) or P.NO_HISTORY_YET
        return P.CONTEXT.format(rules=rules, history=past)

    def fields(self, slot: Slot, **extra: Any) -> dict[str, Any]:
        """The common template fields for the coming round."""
        t = slot.t + 1
        base = {"t": t, "T": self.horizon, "round": P.ROUND.format(t=t, T=self.horizon), "context": self.context(slot)}
        return {**base, **extra}

    def answer_format(self, role: str) -> str:
        labels = self.labels if role == "act" else self.partner_labels
        return P.ANSWER_FORMAT.format(options=", ".join(labels))

    def question(self, role: str, slot: Slot) -> str:
        return (P.ACT_QUESTION if role == "act" else P.TOM_QUESTION).format(t=slot.t + 1)


# --------------------------------------------------------------------------------------------- stage runner


def user(content: str) -> list[dict[str, str]]:
    """One user message."""
    return [{"role": "user", "content": content}]


class StageRunner:
    """Runs prompting stages over many episode slots; each stage is one backend call per round.

    Args:
        backend: the model.
        max_resamples: extra attempts after the first for a reply that does not parse (total
            attempts ``1 + max_resamples``).
        fallback: after the bound, ``"raise"`` (:class:`ResampleLimitReached`) or ``"random"``
            (a uniformly random action from the slot's generator, flagged in the log).
        temperature: sampling temperature of generation stages.
        max_tokens: one cap for every generation stage, or None for :data:`MAX_TOKENS`.
    """

    def __init__(
        self, backend: Backend, *, max_resamples: int, fallback: str, temperature: float, max_tokens: int | None
    ) -> None:
        self.backend = backend
        self.max_resamples = max_resamples
        self.fallback = fallback
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.calls: list[int] = []  # batch size of every backend call since the last reset_calls()

    def _tokens(self, kind: str) -> int:
        return self.max_tokens if self.max_tokens is not None else MAX_TOKENS[kind]

    def _count_call(self, slots: Sequence[Slot], n: int) -> None:
        self.calls.append(n)
        for slot in slots:
            slot.log["decisions_per_call"].append(n)
            slot.totals["backend_calls"] += 1
            slot.totals["requests"] += 1

    # -- scoring
    def score(
        self, slots: Sequence[Slot], stage: str, prompts: Sequence[str], labels: Sequence[str]
    ) -> list[np.ndarray]:
        """Probabilities of every label after each slot's prompt (one ``backend.score`` call)."""
        if not slots:
            return []
        continuations = [" " + label for label in labels]
        requests = [ScoreRequest(p, list(continuations)) for p in prompts]
        scores = self.backend.score(requests)
        self._count_call(slots, len(slots))
        out = []
        for slot, prompt, row in zip(slots, prompts, scores):
            probs = softmax(row)
            slot.log["prompts"].append(prompt)
            slot.log["stages"].append(
                {
                    "stage": stage,
                    "kind": "score",
                    "prompt": prompt,
                    "continuations": continuations,
                    "logprobs": [float(x) for x in row],
                    "probs": probs.tolist(),
                }
            )
            out.append(probs)
        return out

    # -- generation that must name an action
    def choose(
        self, slots: Sequence[Slot], stage: str, contents: Sequence[str], labels: Sequence[str], kind: str
    ) -> list[tuple[int, str | None]]:
        """Each slot's choice among ``labels`` from a generated reply, with resampling and fallback.

        Returns:
            ``(index, accepted reply)`` per slot; the reply is None when the fallback chose.
        """
        results: list[tuple[int, str | None] | None] = [None] * len(slots)
        entries = []
        for slot in slots:
            entry = {"stage": stage, "kind": "generate", "attempts": [], "fallback": False}
            slot.log["stages"].append(entry)
            entries.append(entry)
        pending = list(range(len(slots)))
        for _ in range(self.max_resamples + 1):
            if not pending:
                break
            requests = []
            for i in pending:
                seed = slots[i].next_seed()
                requests.append(ChatRequest(user(contents[i]), self._tokens(kind), self.temperature, seed))
            replies = self.backend.generate(requests)
            self._count_call([slots[i] for i in pending], len(pending))
            still = []
            for i, request, reply in zip(pending, requests, replies):
                slot = slots[i]
                parsed = parse_answer(reply.text, labels)
                self._record(slot, entries[i], request, reply, parsed)
                if parsed is None:
                    slot.log["parse_failures"] += 1
                    slot.totals["parse_failures"] += 1
                    still.append(i)
                else:
                    results[i] = (parsed, reply.text)
            pending = still
        for i in pending:
            results[i] = self._fall_back(slots[i], entries[i], stage, labels)
        return results  # type: ignore[return-value]

    def _record(self, slot: Slot, entry: dict, request: ChatRequest, reply: Any, parsed: int | None) -> None:
        slot.log["prompts"].append(request.messages)
        slot.log["replies"].append(reply.text)
        slot.log["prompt_tokens"] += reply.prompt_tokens
        slot.log["completion_tokens"] += reply.completion_tokens
        entry["attempts"].append(
            {"messages": request.messages, "seed": request.seed, "reply": reply.text, "parsed": parsed}
        )

    def _fall_back(self, slot: Slot, entry: dict, stage: str, labels: Sequence[str]) -> tuple[int, None]:
        attempts = self.max_resamples + 1
        if self.fallback == "raise":
            last = entry["attempts"][-1]["reply"] if entry["attempts"] else ""
            raise ResampleLimitReached(
                f"stage {stage!r} of round {slot.log.get('round')}: none of {attempts} replies named one of "
                f"{', '.join(labels)} on an 'Answer: <choice>' line (last reply: {last[:200]!r}). Raise "
                "max_resamples, give the model more max_tokens, or build the policy with fallback='random' "
                "to play a uniformly random action (flagged in the step log) instead."
            )
        choice = int(slot.rng.integers(len(labels)))
        entry["fallback"] = True
        entry["fallback_action"] = choice
        slot.log["fallback"] = True
        slot.totals["fallbacks"] += 1
        return choice, None

    # -- free text
    def text(self, slots: Sequence[Slot], stage: str, contents: Sequence[str], kind: str) -> list[str]:
        """One generated reply per slot, accepted as is (one ``backend.generate`` call)."""
        if not slots:
            return []
        requests = [
            ChatRequest(user(c), self._tokens(kind), self.temperature, s.next_seed()) for s, c in zip(slots, contents)
        ]
        replies = self.backend.generate(requests)
        self._count_call(slots, len(slots))
        for slot, request, reply in zip(slots, requests, replies):
            entry = {"stage": stage, "kind": "text", "attempts": []}
            slot.log["stages"].append(entry)
            self._record(slot, entry, request, reply, None)
        return [r.text for r in replies]


# --------------------------------------------------------------------------------------------- strategies


class MatrixStrategy:
    """Base of the strategies: how to act, how to predict, what to do after a round.

    Attributes:
        name: the strategy's name in :data:`STRATEGIES`.
        makes_predictions: whether it has a literal-ToM prompt (``predict`` returns None otherwise).
        needs_scoring: whether it needs ``backend.score`` (LM prompting).
    """

    name = "base"
    makes_predictions = True
    needs_scoring = False

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


def cot_examples(text: GameText) -> str:
    """The three worked examples for the game, in the chosen label set."""
    game = text.game
    names = {f"a{i}": label for i, label in enumerate(text.labels)}
    if game.name in P.COT_EXAMPLES and len(text.labels) == len(game.action_labels):
        examples = P.COT_EXAMPLES[game.name]
        filled = [{k: v.format(**names) for k, v in ex.items()} for ex in examples]
    else:  # another game: best responses to partners that repeat one action
        filled = []
        for i in range(3):
            b = i % game.n_partner_actions
            a = game.focal_best_responses[b]
            f = {"b": text.partner_labels[b], "a": text.labels[a], "k": 3 + i, "t": 4 + i}
            filled.append({k: v.format(**f) for k, v in P.GENERIC_EXAMPLE.items()})
    return "\n\n".join(P.COT_EXAMPLE.format(i=i + 1, **ex) for i, ex in enumerate(filled))


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
        predicted = int(np.argmax(slot.cache["prediction"]))
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
