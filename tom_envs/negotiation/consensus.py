"""Consensus tracking (002 §3.1, Algorithm 1) with a structural agreement score.

Attitudes: every party starts with its first choice on every topic (002: the initial profile is
complete); a party's attitude on a topic changes only when it states a stance on that topic.

Agreement of parties i and j on topic k (the default structural formula)::

    A_ijk = 1                                   if s_i == s_j and neither i nor j blocks it
    A_ijk = 0.5 * (acc_i(s_j) + acc_j(s_i)) / 2  otherwise

where ``s`` are the current attitudes and ``acc_i(o)`` is i's acceptability of option o
(:meth:`Scenario.acceptability`: ``(S-1-rank)/(S-1)``, or normalised utilities, 0 if
unacceptable). So agreeing on the same option scores 1, and different options score at most 0.5,
more when each finds the other's option tolerable. Topic consensus is the mean over pairs; overall
consensus the mean over topics. Any callable ``agreement(scenario, i, j, k, s_i, s_j) -> float``
can replace the formula (e.g. an LLM judge over 002's five dimensions).

**Blocked options** (issue 28). An option a party blocks (``TopicPreference.unacceptable``: the release's
"Unacceptable", "Block:", "Strongly against" ...; "barely acceptable" is acceptable) is never consensus
for that party: when i and j hold the same option and either of them blocks it, the pair scores as two
different options would, ``(acc_i(o) + acc_j(o)) / 4`` (at most 0.25, the blocking party's
acceptability being 0). This holds for a custom ``agreement`` too (the pair's score is the lower of
the two), so a topic on which the parties "agree" on an option one of them blocks is never full
consensus. Scripted parties never state an option they block, so their runs score as before; LLM
and external parties may, and those stances are counted (the summary's ``blocked_stances``).

Attitudes from text: an *attitude extractor* ``extractor(party, text) -> {topic: option | None}``
reads a spoken line and says which option it supports on each topic (None: not addressed).
:class:`KeywordAttitudeExtractor` is the rule-based one (option wording found in the text); the
LLM judge is :class:`policies.negotiation.llm.LLMAttitudeExtractor`. :func:`check_attitudes`
validates what an extractor returns. The env uses one through its ``attitude_extractor=`` hook.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations
from typing import Any, Callable

import numpy as np

from tom_envs.negotiation.errors import AttitudeExtractionError
from tom_envs.negotiation.scenario import Scenario

AgreementFn = Callable[[Scenario, int, int, int, int, int], float]
#: ``extractor(party_index, text) -> {topic_index: option_index | None}``
AttitudeExtractor = Callable[[int, str], Mapping[int, "int | None"]]


def structural_agreement(
    scenario: Scenario, i: int, j: int, topic: int, s_i: int, s_j: int, _cache: dict | None = None
) -> float:
    """The default pairwise agreement (module docstring) of parties i, j on ``topic``."""
    acc_i = scenario.acceptability(i, topic)
    acc_j = scenario.acceptability(j, topic)
    if s_i == s_j and not (scenario.blocks(i, topic, s_i) or scenario.blocks(j, topic, s_j)):
        return 1.0
    return 0.25 * (acc_i[s_j] + acc_j[s_i])


class ConsensusTracker:
    """Attitudes per party and topic, and consensus recorded after every turn.

    ``topic_history[t][k]`` and ``history[t]`` hold the values after turn t; index 0 is the
    initial state (before the first turn).
    """

    def __init__(self, scenario: Scenario, agreement: AgreementFn | None = None) -> None:
        self.scenario = scenario
        n, m = len(scenario.parties), len(scenario.topics)
        self.pairs = list(combinations(range(n), 2))
        self.attitudes = np.array([[scenario.top_option(i, k) for k in range(m)] for i in range(n)], dtype=np.int64)
        self._custom = agreement
        # precomputed acceptability: acc[i][k] is a list over options
        self._acc = [[scenario.acceptability(i, k) for k in range(m)] for i in range(n)]
        #: blocked[i][k]: the option indices party i blocks on topic k
        self.blocked = [
            [frozenset(o for o in range(len(scenario.topics[k].options)) if scenario.blocks(i, k, o)) for k in range(m)]
            for i in range(n)
        ]
        self.topic_history: list[list[float]] = []
        self.history: list[float] = []
        # topic consensus is recomputed only for the topics whose attitudes changed since the last record
        self._topic_now: list[float | None] = [None] * m
        self.record()

    def acceptability(self, party: int, topic: int) -> list[float]:
        """``party``'s acceptability of each option of ``topic`` (precomputed; do not modify)."""
        return self._acc[party][topic]

    def pair_agreement(self, i: int, j: int, k: int) -> float:
        s_i, s_j = int(self.attitudes[i, k]), int(self.attitudes[j, k])
        blocked = s_i == s_j and (s_i in self.blocked[i][k] or s_j in self.blocked[j][k])
        structural = 0.25 * (self._acc[i][k][s_j] + self._acc[j][k][s_i]) if s_i != s_j or blocked else 1.0
        if self._custom is not None:
            custom = float(self._custom(self.scenario, i, j, k, s_i, s_j))
            return min(custom, structural) if blocked else custom
        return structural

    def topic_consensus(self) -> list[float]:
        """Current consensus per topic (mean pairwise agreement)."""
        m = len(self.scenario.topics)
        return [self._topic(k) for k in range(m)]

    def _topic(self, k: int) -> float:
        return float(np.mean([self.pair_agreement(i, j, k) for i, j in self.pairs]))

    def update(self, party: int, topic: int, option: int) -> None:
        """A party stated ``option`` on ``topic``."""
        if self.attitudes[party, topic] != option:
            self._topic_now[topic] = None
        self.attitudes[party, topic] = option

    def blocked_agreement(self, k: int) -> bool:
        """Whether every party holds the same option on topic ``k`` and some party blocks it."""
        col = self.attitudes[:, k]
        o = int(col[0])
        return bool((col == o).all()) and any(o in row[k] for row in self.blocked)

    def record(self) -> None:
        """Append the current topic and overall consensus to the history (a custom agreement is asked
        again every turn; the structural score only for the topics whose attitudes changed)."""
        if self._custom is not None:
            topics = self.topic_consensus()
        else:
            topics = [self._topic(k) if v is None else v for k, v in enumerate(self._topic_now)]
            self._topic_now = list(topics)
        self.topic_history.append(topics)
        self.history.append(float(np.mean(topics)))

    @property
    def overall(self) -> float:
        return self.history[-1]


@dataclass(frozen=True)
class ProposedOption:
    """An attitude that is none of the scenario's options: an option a party proposed mid-conversation,
    in its own words (002's extractor keeps attitudes as free text). An extractor returns it (or
    ``{"proposal": text}``) for a topic; the env records it in the event's ``proposals`` and the
    episode's ``proposals``, counts the topic as mentioned, and leaves the party's tracked option
    on that topic unchanged (the structural agreement score is defined over the listed options)."""

    text: str

    def __post_init__(self) -> None:
        if not isinstance(self.text, str) or not self.text.strip():
            raise AttitudeExtractionError("a proposed option needs its text (a non-empty string)")


def check_attitudes(scenario: Scenario, result: Any, source: str) -> dict[int, int | None]:
    """``result`` as ``{topic index: option index | None}`` over every topic; else a named error.

    Keys may be topic indices or names, options indices or labels (so an extractor may answer in
    the scenario's words). Topics left out count as not addressed; a proposed option
    (:class:`ProposedOption`) counts as not addressed here (see :func:`check_attitudes_full`).
    """
    return check_attitudes_full(scenario, result, source)[0]


def check_attitudes_full(scenario: Scenario, result: Any, source: str) -> tuple[dict[int, int | None], dict[int, str]]:
    """:func:`check_attitudes` and the options proposed in free text, ``{topic index: text}``."""
    if not isinstance(result, Mapping):
        raise AttitudeExtractionError(
            f"{source} must return a mapping {{topic: option or None}}, got {type(result).__name__}"
        )
    names = [t.name for t in scenario.topics]
    out: dict[int, int | None] = {k: None for k in range(len(names))}
    proposed: dict[int, str] = {}
    for key, value in result.items():
        if isinstance(key, str) and key in names:
            k = names.index(key)
        elif isinstance(key, (int, np.integer)) and not isinstance(key, bool) and 0 <= int(key) < len(names):
            k = int(key)
        else:
            raise AttitudeExtractionError(
                f"{source} returned an unknown topic {key!r}; use a topic index 0..{len(names) - 1} or one of {names}"
            )
        if value is None:
            continue
        if isinstance(value, Mapping) and set(value) == {"proposal"}:
            value = ProposedOption(value["proposal"])
        if isinstance(value, ProposedOption):
            proposed[k] = value.text.strip()
            continue
        labels = scenario.topics[k].labels
        if isinstance(value, str) and value in labels:
            out[k] = labels.index(value)
        elif isinstance(value, (int, np.integer)) and not isinstance(value, bool) and 0 <= int(value) < len(labels):
            out[k] = int(value)
        else:
            raise AttitudeExtractionError(
                f"{source} returned option {value!r} for topic {names[k]!r}; use None, "
                f"an index 0..{len(labels) - 1}, one of the labels {labels}, or "
                '{"proposal": "<text>"} for an option proposed in the conversation'
            )
    return out, proposed


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text.casefold()).strip()


class KeywordAttitudeExtractor:
    """Rule-based attitude extractor: the option whose wording appears in the text.

    For each topic, the options whose wording occurs in the line as whole words are candidates;
    one quoted with its marker (``"(b) Dual"``, as the templates write it) wins, then the longest.
    A topic counts as addressed when it has a candidate and either its name occurs in the line or
    no other topic has a candidate (so an option wording shared by two topics needs the topic's
    name). Exact on the scripted parties' template
    lines, which quote the option; a baseline, not a reader of free paraphrase.
    """

    name = "keyword"

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self._topics = [_words(t.name) for t in scenario.topics]
        # per topic, per option: the quoted form "(label) text" and the bare wording
        self._options = [
            [(_words(f"({o.label}) {o.text}"), _words(o.text)) for o in t.options] for t in scenario.topics
        ]

    def __call__(self, party: int, text: str) -> dict[int, int | None]:
        line = _norm(text)
        found: dict[int, int] = {}
        for k, options in enumerate(self._options):
            hits = [
                (quoted.search(line) is not None, len(bare.pattern), -x)
                for x, (quoted, bare) in enumerate(options)
                if bare.search(line)
            ]
            if hits:
                found[k] = -max(hits)[2]
        addressed = {k: o for k, o in found.items() if self._topics[k].search(line) or len(found) == 1}
        return {k: addressed.get(k) for k in range(len(self._options))}


def _words(text: str) -> re.Pattern[str]:
    """``text`` (normalised) as a pattern that matches whole words only."""
    return re.compile(r"(?<!\w)" + re.escape(_norm(text)) + r"(?!\w)")
