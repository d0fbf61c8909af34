"""LLM judges for the negotiation env's hooks (seed 002), on the one caller.

* :class:`LLMAttitudeExtractor` -- a party's attitude per topic from its text; the env's
  ``attitude_extractor=`` hook.
* :class:`LLMAgreementJudge` -- the env's ``agreement=`` hook: pairwise agreement in [0, 1] as the
  mean of five 1-5 dimensions mapped by ``(s - 1) / 4``. 002 names shared goals, common
  understanding, agreement on terms, tone and willingness; our copy of the text loses the fifth, so
  we use *position compatibility* (can each live with the other's option) as the fifth.
* :class:`LLMMIJudge` -- the env's ``mi_judge=`` hook: 1-5 on 002's four MI dimensions
  (perceptual, emotional, cognitive, communicative), each only when applicable, and their mean.

Keyword arguments of each go to :class:`~policies.negotiation.llm.parties.LLMCaller`. Prompts are in
:mod:`policies.negotiation.llm.prompts`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from policies.negotiation.llm import prompts as P
from policies.llm.base import Backend
from policies.llm.caller import Answer, Ask
from policies.llm.errors import ReplyError
from policies.negotiation.llm.common import reply_option
from policies.negotiation.llm.parties import LLMCaller, UsesCaller, checked, topics_text
from policies.llm.parsing import extract_json, score_1_5
from tom_envs.negotiation.actions import party_index, topic_index
from tom_envs.negotiation.consensus import ProposedOption
from tom_envs.negotiation.metrics import MI_DIMENSIONS, InterventionContext
from tom_envs.negotiation.scenario import Scenario

AGREEMENT_DIMENSIONS = (
    "shared_goals",
    "common_understanding",
    "agreement_on_terms",
    "tone_and_willingness",
    "position_compatibility",
)
PairKey = tuple[int, int, int, int, int]


class LLMAttitudeExtractor(UsesCaller):
    """A party's attitude per topic from its text: an option index, None (not addressed), or a
    :class:`~tom_envs.negotiation.consensus.ProposedOption` (an option the party proposed in its own
    words, none of the listed ones; the env records it and keeps the tracked option).

    ``extract(party, text) -> {topic: option | None}``; :meth:`extract_many` does several texts in
    one backend call. Plugs into the env's ``attitude_extractor=`` hook (called as
    ``extractor(party, text)``), so consensus tracking follows what parties said rather than their
    structured stances.
    """

    name = "llm-attitude"

    def __init__(self, backend: Backend, scenario: Scenario, **kwargs: Any) -> None:
        self.scenario = scenario
        self.caller = LLMCaller(backend, **kwargs)

    def _ask(self, party: int | str, text: str) -> Ask:
        sc = self.scenario
        i = party_index(sc, party, "extractor")
        prompt = P.ATTITUDE.format(topics=topics_text(sc), party=sc.parties[i].name, statement=text)

        def parse(reply: str) -> dict[int, int | ProposedOption | None]:
            obj = extract_json(reply).get("attitudes")
            if not isinstance(obj, dict):
                raise ReplyError("the JSON object needs 'attitudes': {topic: option or null}")
            out: dict[int, int | ProposedOption | None] = {}
            for t, o in obj.items():
                k = checked(topic_index, sc, t, "attitudes")
                if isinstance(o, dict):  # an option proposed mid-conversation, in the party's words
                    text = o.get("proposal")
                    if set(o) != {"proposal"} or not isinstance(text, str) or not text.strip():
                        raise ReplyError(f'attitudes[{t!r}]: a proposed option is {{"proposal": "<text>"}}, got {o!r}')
                    out[k] = ProposedOption(text.strip())
                else:
                    out[k] = None if o is None else reply_option(sc, k, o, "attitudes")
            missing = [t.name for k, t in enumerate(sc.topics) if k not in out]
            if missing:
                raise ReplyError(f"attitudes missing for topics {missing}")
            return out

        def rand(rng: np.random.Generator) -> dict[int, int | None]:
            return {k: int(rng.integers(len(t.options))) for k, t in enumerate(sc.topics)}

        return Ask(prompt, parse, rand)

    def extract_many(self, items: Sequence[tuple[int | str, str]]) -> list[dict[int, int | ProposedOption | None]]:
        return [a.value for a in self.caller.ask("attitude", [self._ask(p, t) for p, t in items])]

    def extract(self, party: int | str, text: str) -> dict[int, int | ProposedOption | None]:
        return self.extract_many([(party, text)])[0]

    __call__ = extract


class LLMAgreementJudge(UsesCaller):
    """The env's ``agreement=`` hook: an LLM rates two parties' agreement on a topic over five dimensions.

    ``judge(scenario, i, j, k, s_i, s_j) -> float`` in [0, 1]: the mean of the five 1-5 scores of
    :data:`AGREEMENT_DIMENSIONS` mapped by ``(s - 1) / 4``. Results are cached per
    ``(i, j, k, s_i, s_j)`` (the tracker asks for every pair and topic after every turn);
    :meth:`prefetch` judges every uncached pair of an attitude matrix in one backend call.
    """

    name = "llm-agreement"

    def __init__(self, backend: Backend, **kwargs: Any) -> None:
        self.caller = LLMCaller(backend, **kwargs)
        self.cache: dict[PairKey, float] = {}
        self.scores: dict[PairKey, dict[str, int] | None] = {}

    def reset(self, seed: int | None = None) -> None:
        """Reseed and forget the cached ratings (an episode's scores never depend on the episodes before it)."""
        super().reset(seed)
        self.cache.clear()
        self.scores.clear()

    def _key(self, i: int, j: int, k: int, s_i: int, s_j: int) -> PairKey:
        return (i, j, k, s_i, s_j) if i <= j else (j, i, k, s_j, s_i)

    def _ask(self, sc: Scenario, i: int, j: int, k: int, s_i: int, s_j: int) -> Ask:
        t = sc.topics[k]

        def stance(party: int, option: int) -> str:
            p, o = sc.parties[party], t.options[option]
            return P.AGREEMENT_STANCE.format(name=p.name, role=p.role, goal=p.goal, label=o.label, option=o.text)

        prompt = P.AGREEMENT.format(
            title=sc.title or sc.name, background=sc.background, topic=t.name, question=t.question,
            stance_a=stance(i, s_i), stance_b=stance(j, s_j),
            fields=", ".join(P.AGREEMENT_FIELD.format(name=d) for d in AGREEMENT_DIMENSIONS),
        )  # fmt: skip

        def parse(reply: str) -> dict[str, int]:
            obj = extract_json(reply)
            return {d: score_1_5(obj.get(d), f"'{d}'") for d in AGREEMENT_DIMENSIONS}

        return Ask(prompt, parse, lambda rng: {d: int(rng.integers(1, 6)) for d in AGREEMENT_DIMENSIONS})

    def _store(self, key: PairKey, answer: Answer) -> None:
        self.scores[key] = None if answer.fallback else answer.value
        self.cache[key] = float(np.mean([(v - 1) / 4.0 for v in answer.value.values()]))

    def prefetch(self, scenario: Scenario, attitudes: np.ndarray) -> int:
        """Judge every uncached (pair, topic) of an attitudes matrix (parties x topics) in one call."""
        todo: dict[PairKey, None] = {}
        n, m = attitudes.shape
        for i in range(n):
            for j in range(i + 1, n):
                for k in range(m):
                    key = self._key(i, j, k, int(attitudes[i, k]), int(attitudes[j, k]))
                    if key not in self.cache:
                        todo.setdefault(key, None)
        keys = list(todo)
        for key, ans in zip(keys, self.caller.ask("agreement", [self._ask(scenario, *key) for key in keys])):
            self._store(key, ans)
        return len(keys)

    def __call__(self, scenario: Scenario, i: int, j: int, k: int, s_i: int, s_j: int) -> float:
        key = self._key(i, j, k, s_i, s_j)
        if key not in self.cache:
            self._store(key, self.caller.ask("agreement", [self._ask(scenario, *key)])[0])
        return self.cache[key]


class LLMMIJudge(UsesCaller):
    """The env's ``mi_judge=`` hook: an LLM scores an intervention 1-5 on 002's four MI dimensions.

    Each dimension is scored only when applicable (the reply may give null); ``mean`` averages
    the scored ones (perceptual is always required). Give it the env (``judge.bind(env)``) to show
    the judge the recent transcript; otherwise it sees the scenario and the context summary.
    """

    name = "llm-mi"

    def __init__(self, backend: Backend, scenario: Scenario, *, transcript_turns: int = 8, **kwargs: Any) -> None:
        self.scenario = scenario
        self.transcript_turns = transcript_turns
        self.caller = LLMCaller(backend, **kwargs)
        self.env: Any = None

    def bind(self, env: Any) -> LLMMIJudge:
        self.env = env
        return self

    def _prompt(self, intervention: dict[str, Any], ctx: InterventionContext) -> str:
        sc = self.scenario
        names = [t.name for t in sc.topics]
        target = intervention.get("target")
        lines = []
        if self.env is not None:
            lines = [P.TRANSCRIPT_LINE.format(**e) for e in self.env.events[-self.transcript_turns :]]
        situation = {
            "topic_agreement": {names[x]: round(v, 3) for x, v in enumerate(ctx.topic_agreement)},
            "recent_drop_topics": [names[x] for x in ctx.recent_drop_topics],
            "hostile": ctx.hostile,
            "stalled_topics": [names[x] for x in ctx.stalled_topics],
            "repeating_parties": [sc.parties[x].name for x in ctx.repeating_parties],
            "silent_parties": [sc.parties[x].name for x in ctx.silent_parties],
        }
        return P.MI.format(
            title=sc.title or sc.name, transcript="\n".join(lines) or P.NO_TRANSCRIPT,
            situation=json.dumps(situation), strategy=intervention["strategy"], topic=names[intervention["topic"]],
            target=P.MI_TARGET.format(party=sc.parties[target].name) if target is not None else "",
            words=P.MI_WORDS.format(text=intervention["text"]) if intervention.get("text") else "",
        )  # fmt: skip

    def __call__(self, intervention: dict[str, Any], ctx: InterventionContext) -> dict[str, float]:
        def parse(reply: str) -> dict[str, float]:
            obj = extract_json(reply)
            out: dict[str, float] = {}
            for d in MI_DIMENSIONS:
                if obj.get(d) is None and d != "perceptual":
                    continue
                out[d] = float(score_1_5(obj.get(d), f"'{d}'"))
            return out

        def rand(rng: np.random.Generator) -> dict[str, float]:
            return {d: float(rng.integers(1, 6)) for d in MI_DIMENSIONS}

        ans = self.caller.ask("mi", [Ask(self._prompt(intervention, ctx), parse, rand)])[0]
        scores = dict(ans.value)
        scores["mean"] = float(np.mean([scores[d] for d in MI_DIMENSIONS if d in scores]))
        if ans.fallback:
            scores["fallback"] = True
        return scores


__all__ = ["AGREEMENT_DIMENSIONS", "LLMAgreementJudge", "LLMAttitudeExtractor", "LLMMIJudge"]
