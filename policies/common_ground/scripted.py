"""Baselines for ``tom/CommonToM-v2`` (seed 003): a prior-proportional random answerer, the two floors
(:class:`MajorityClassPolicy`: one answer to everything; :class:`QuestionOnlyPolicy`: one per certainty) and
an explicit belief-state answerer in the spirit of 003's ReCoG.

The belief-state policy reads the question (speaker chain, certainty, event), gets both speakers'
belief labels for the event -- from the env's gold labels (``info["next_labels"]`` of an env made
with ``expose_labels=True``: the oracle, which must score 100 %) or from a :class:`BeliefPredictor`
that only sees the observation -- derives the common
ground with 003's Appendix B heuristics when the labels were predicted, and answers with the same
rules that produced the released answers.
"""

from __future__ import annotations

import re
from typing import Any, Protocol, Sequence

from policies.base import BasePolicy
from tom_envs.common_ground.corpus import MARKER, QuestionRow
from tom_envs.common_ground.questions import parse_question, resolve
from tom_envs.errors import TomEnvsError

YES, NO = 1, 0
_GOLD_KEYS = ("belief_A", "belief_B", "cg_A", "cg_B")


class PriorRandomPolicy(BasePolicy):
    """Answers yes with probability ``p_yes`` (003's random row uses the training split's share).

    Args:
        p_yes: probability of answering yes, in [0, 1].
    """

    makes_predictions = True

    def __init__(self, p_yes: float = 0.5) -> None:
        super().__init__()
        if not 0.0 <= p_yes <= 1.0:
            raise TomEnvsError(f"p_yes is a probability in [0, 1], got {p_yes!r}")
        self.p_yes = float(p_yes)
        self._pending: int | None = None

    @classmethod
    def from_questions(cls, rows: Sequence[QuestionRow]) -> "PriorRandomPolicy":
        """The policy whose yes-rate is the share of "Yes" answers in ``rows`` (0.5 for no rows)."""
        rows = list(rows)
        return cls(sum(r.answer == "Yes" for r in rows) / len(rows) if rows else 0.5)

    @property
    def hyperparameters(self) -> dict[str, float]:
        return {"p_yes": self.p_yes}

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._pending = None

    def predict(self, observation: Any, info: dict) -> int:
        """The answer (1 yes, 0 no); :meth:`act` then gives the same answer for this question."""
        if self._pending is None:
            self._pending = YES if self.rng.random() < self.p_yes else NO
        return self._pending

    def act(self, observation: Any, info: dict) -> int:
        answer = self.predict(observation, info)
        self._pending = None
        return answer


class QuestionOnlyPolicy(BasePolicy):
    """The floor the question's own wording allows: the majority answer of its certainty.

    Reads only ``observation["belief_Q"]`` (the question's certainty, CT+, PS or CT-, which the
    question text states) and answers that certainty's majority answer on the training split
    (:meth:`from_questions`). No dialogue, no beliefs: whatever a policy scores above this row it
    owes to reading the conversation. On the release the training split gives CT+ -> No, PS -> Yes,
    CT- -> No (59.6 % on the test split; docs/common_ground.md).

    Args:
        answers: certainty (``"CT+"``, ``"PS"``, ``"CT-"``) -> answer (1 yes, 0 no), one per certainty.
    """

    makes_predictions = True

    def __init__(self, answers: dict[str, int]) -> None:
        super().__init__()
        from tom_envs.common_ground.env import CERTAINTIES

        if set(answers) != set(CERTAINTIES) or any(a not in (YES, NO) for a in answers.values()):
            raise TomEnvsError(
                f"QuestionOnlyPolicy needs one answer (0 or 1) for each of {CERTAINTIES}, got {answers!r}"
            )
        self.answers = {c: int(answers[c]) for c in CERTAINTIES}
        self._by_index = tuple(self.answers[c] for c in CERTAINTIES)

    @classmethod
    def from_questions(cls, rows: Sequence[QuestionRow]) -> "QuestionOnlyPolicy":
        """Each certainty's majority answer in ``rows`` (ties and certainties without rows: No).

        The certainty is read from each row's question text, as the env's observation states it."""
        from tom_envs.common_ground.env import CERTAINTIES

        yes = {c: 0 for c in CERTAINTIES}
        total = {c: 0 for c in CERTAINTIES}
        for row in rows:
            certainty = parse_question(row.question).certainty
            total[certainty] += 1
            yes[certainty] += row.answer == "Yes"
        return cls({c: YES if 2 * yes[c] > total[c] else NO for c in CERTAINTIES})

    @property
    def hyperparameters(self) -> dict[str, Any]:
        return {"answers": {c: ("Yes" if a else "No") for c, a in self.answers.items()}}

    def predict(self, observation: Any, info: dict) -> int:
        """The answer (1 yes, 0 no) of the question's certainty."""
        return self._by_index[int(observation["belief_Q"])]

    def act(self, observation: Any, info: dict) -> int:
        return self.predict(observation, info)


class MajorityClassPolicy(BasePolicy):
    """The floor that reads nothing: one answer to every question, the training split's majority answer.

    On the release the training split answers No 2,899 times and Yes 2,371 times, so the policy always
    answers No: 54.1 % on the test split (1,139 of 2,104; 003's Table 2). A policy's gain over this row
    is what it owes to reading anything at all; the question-only row adds the question's certainty.

    Args:
        answer: the answer given to every question (1 yes, 0 no).
    """

    makes_predictions = True

    def __init__(self, answer: int) -> None:
        super().__init__()
        if answer not in (YES, NO):
            raise TomEnvsError(f"MajorityClassPolicy answers 0 (no) or 1 (yes), got {answer!r}")
        self.answer = int(answer)

    @classmethod
    def from_questions(cls, rows: Sequence[QuestionRow]) -> "MajorityClassPolicy":
        """The majority answer of ``rows`` (a tie, or no rows: No)."""
        rows = list(rows)
        return cls(YES if 2 * sum(r.answer == "Yes" for r in rows) > len(rows) else NO)

    @property
    def hyperparameters(self) -> dict[str, Any]:
        return {"answer": "Yes" if self.answer else "No"}

    def predict(self, observation: Any, info: dict) -> int:
        """The one answer (1 yes, 0 no)."""
        return self.answer

    def act(self, observation: Any, info: dict) -> int:
        return self.answer


class BeliefPredictor(Protocol):
    """Predicts both speakers' belief labels about an event from the dialogue.

    A predictor may also offer ``predict_beliefs_batch(pairs)`` (a list of ``(context, event)``,
    one ``(belief_A, belief_B)`` each): :meth:`BeliefStatePolicy.prepare` then asks for all of them
    at once (one backend call for an LLM predictor).
    """

    def predict_beliefs(self, context: str, event: str) -> tuple[str, str]:
        """``(belief_A, belief_B)``, each one of CT+, PS, CT-, NB."""


def derive_common_ground(belief_a: str, belief_b: str) -> tuple[str, str]:
    """Both speakers' CG status from their beliefs: 003's Appendix B rules, first match wins.

    1. either belief CT- -> RT; 2-4. (CT+, CT+), (PS, CT+), (CT+, PS) -> JA (the rules allow JA or
    IN; the answer rules treat both alike); 5. either belief NB -> NA (the rules' NULL). The one
    pair the rules leave open, (PS, PS), is mapped to JA.
    """
    pair = (belief_a, belief_b)
    if "CT-" in pair:
        status = "RT"
    elif "NB" in pair:
        status = "NA"
    else:
        status = "JA"
    return status, status


class BeliefStatePolicy(BasePolicy):
    """Answer by tracking beliefs explicitly, then applying the answer rules (ReCoG's design).

    Args:
        predictor: where the belief labels come from; None reads the gold labels from ``info``
            (needs an env made with ``expose_labels=True``), otherwise the predictor's beliefs
            with :func:`derive_common_ground`.
        common_ground: with gold labels (``predictor=None``), ``"gold"`` uses the annotated CG
            statuses too (the exact-label oracle, 100 %) and ``"rules"`` derives them from the gold
            beliefs with 003's Appendix B rules (:func:`derive_common_ground`: the upper bound of a
            ReCoG-style system with a perfect belief predictor). A predictor always uses the rules.
    """

    makes_predictions = True

    def __init__(self, predictor: BeliefPredictor | None = None, common_ground: str = "gold") -> None:
        super().__init__()
        if common_ground not in ("gold", "rules"):
            raise TomEnvsError(f"common_ground is 'gold' or 'rules', got {common_ground!r}")
        self.predictor = predictor
        self.common_ground = "rules" if predictor is not None else common_ground
        self._cache: dict[tuple[str, str], tuple[str, str, str, str]] = {}

    @property
    def hyperparameters(self) -> dict[str, str]:
        beliefs = "gold" if self.predictor is None else getattr(self.predictor, "name", type(self.predictor).__name__)
        return {"beliefs": beliefs, "common_ground": self.common_ground}

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._cache = {}

    def prepare(self, observations: Sequence[Any]) -> int:
        """Predict the beliefs of every (context, event) of ``observations`` not predicted yet, in one
        batch when the predictor has ``predict_beliefs_batch``; returns how many were predicted.
        The cache lives until :meth:`reset`, so prepare after resetting."""
        if self.predictor is None:
            return 0
        todo = list(dict.fromkeys((o["context"], parse_question(o["question"]).event) for o in observations))
        todo = [k for k in todo if k not in self._cache]
        batch = getattr(self.predictor, "predict_beliefs_batch", None)
        beliefs = batch(todo) if batch is not None else [self.predictor.predict_beliefs(c, e) for c, e in todo]
        for key, (bel_a, bel_b) in zip(todo, beliefs):
            self._cache[key] = (bel_a, bel_b, *derive_common_ground(bel_a, bel_b))
        return len(todo)

    def labels(self, observation: Any, info: dict, event: str) -> tuple[str, str, str, str]:
        """``(belief_A, belief_B, cg_A, cg_B)`` this policy uses for the current question."""
        if self.predictor is None:
            gold = _gold_labels(info)
            return gold if self.common_ground == "gold" else (*gold[:2], *derive_common_ground(*gold[:2]))
        key = (observation["context"], event)
        if key not in self._cache:
            self.prepare([observation])
        return self._cache[key]

    def predict(self, observation: Any, info: dict) -> int:
        """The answer (1 yes, 0 no)."""
        parsed = parse_question(observation["question"])
        bel_a, bel_b, cg_a, cg_b = self.labels(observation, info, parsed.event)
        yes = resolve(parsed.order, parsed.certainty, parsed.chain, {"A": bel_a, "B": bel_b}, {"A": cg_a, "B": cg_b})
        return YES if yes else NO

    def act(self, observation: Any, info: dict) -> int:
        return self.predict(observation, info)


def _gold_labels(info: dict) -> tuple[str, str, str, str]:
    """The gold labels of the question now shown: ``info["next_labels"]`` (reset or step)."""
    if "next_labels" not in info:
        raise TomEnvsError(
            "the gold-label policy needs the labels of the question shown, which the env returns only "
            "when made with expose_labels=True (tom/CommonToM-v2)"
        )
    info = info["next_labels"]
    missing = [k for k in _GOLD_KEYS if k not in info]
    if missing:
        raise TomEnvsError(f"the gold-label policy needs {missing} in info; use it with tom/CommonToM-v2")
    return tuple(str(info[k]) for k in _GOLD_KEYS)  # type: ignore[return-value]


# ---------------------------------------------------------------------- a simple predictor of our own

_WORD = re.compile(r"[a-z']+")
_HEDGES = {"maybe", "probably", "perhaps", "might", "think", "guess", "could", "possibly", "doubt", "suppose"}
_NEGATIVE_STARTS = {"no", "nope", "nah", "not", "never"}
_STOP = {"a", "an", "the", "to", "of", "is", "was", "be", "that", "it", "and", "on", "in", "for", "will", "would"}


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


class CueBeliefPredictor:
    """Belief labels from surface cues of the dialogue up to the marked sentence.

    The source of an event is the latest sentence sharing the most content words with it. Its
    speaker holds NB when it is a question, PS when it hedges, CT+ otherwise. The other speaker's
    first later sentence decides their belief: CT- when it opens with a negative (a question then
    resolves to CT- for both), PS when it hedges, CT+ otherwise; with no reply yet they share the
    speaker's label.
    """

    def predict_beliefs(self, context: str, event: str) -> tuple[str, str]:
        lines = context.split("\n")
        at = next((i for i, line in enumerate(lines) if MARKER in line), len(lines) - 1)
        history = [line.replace(MARKER, "").strip() for line in lines[: at + 1]]
        src = self._source(history, event)
        speaker = history[src][:1]
        said = history[src].partition(":")[2]
        own = "NB" if "?" in said else ("PS" if _HEDGES & set(_words(said)) else "CT+")
        reply = next((h.partition(":")[2] for h in history[src + 1 :] if h[:1] not in ("", speaker)), None)
        other = own if reply is None else self._reply_belief(reply)
        if own == "NB" and reply is not None:
            own = other
        return (own, other) if speaker == "A" else (other, own)

    @staticmethod
    def _source(history: list[str], event: str) -> int:
        target = set(_words(event)) - _STOP - {"a", "b"}
        scores = [len(target & set(_words(h.partition(":")[2]))) for h in history]
        best = max(scores) if scores else 0
        return max(i for i, s in enumerate(scores) if s == best) if history else 0

    @staticmethod
    def _reply_belief(reply: str) -> str:
        words = _words(reply)
        if words and words[0] in _NEGATIVE_STARTS:
            return "CT-"
        return "PS" if _HEDGES & set(words) else "CT+"


def oracle_beliefs() -> BeliefStatePolicy:
    """The belief-state policy with gold labels (scores 100 % by construction).

    Make the env with ``expose_labels=True`` (the one documented way to hand gold labels to an
    oracle): every info returned with a question then carries its labels as ``next_labels``.
    """
    return BeliefStatePolicy(None)


def gold_beliefs_cg_rules() -> BeliefStatePolicy:
    """The ReCoG-style upper bound: gold beliefs (``expose_labels=True``), common ground from them by
    003's Appendix B rules, then the answer rules (below 100 % where the rules miss the annotated CG)."""
    return BeliefStatePolicy(None, common_ground="rules")


def predicted_beliefs() -> BeliefStatePolicy:
    """The belief-state policy with :class:`CueBeliefPredictor`."""
    return BeliefStatePolicy(CueBeliefPredictor())
