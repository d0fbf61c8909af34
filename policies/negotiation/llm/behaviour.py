"""The release's behaviour scores of a mediator (monitoring, planning, simple), for our own episodes.

ProMediate-Eval's ``scripts/behavior_evaluation.py`` judges every mediator line of a finished run but
the opening: it sends the line (``speech``) and the conversation since the previous mediator line
(``conversation_prior``: a Python list of ``conversation.txt`` lines, the previous mediator line
included) to GPT-4.1 with one of three prompts (:mod:`policies.negotiation.llm.behaviour_prompts`),
after the system message "You are an expert in negotiation", temperature 0.1, up to 5000 tokens and no
seed; a reply is a JSON object with four dimensions (perception alignment, emotional dynamics,
cognitive challenges, communication breakdowns), each with ``evidence``, ``reasoning`` and a ``score``
(1-5, or -1: no such issue). ``scripts/evaluation.py`` then averages, per line, the scores that are not
-1 (0 when all are) and, over the lines, each prompt's average: ``monitoring_score``,
``planning_score``, ``simple_score``. The release's script has the monitoring and planning calls
commented out (its files hold ``[]`` for them, which its average reads as 0); ``kinds`` says which
prompts :class:`LLMBehaviourJudge` asks: ``("simple",)`` as the script runs, or all three.

:func:`judged_lines` builds what the release would send for one of our transcripts (its lines as
:func:`tom_envs.negotiation.release_logs.release_lines` writes them); :meth:`LLMBehaviourJudge.judge`
asks every line's prompts in one backend call per prompt and returns the release's
``behavior_score.json`` entries with the scores.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from policies.llm.base import Backend
from policies.llm.caller import Ask
from policies.llm.errors import InvalidPolicyConfig, ReplyError
from policies.llm.parsing import extract_json
from policies.negotiation.llm.behaviour_prompts import PROMPTS, SYSTEM
from policies.negotiation.llm.parties import LLMCaller, UsesCaller
from tom_envs.negotiation.metrics import behaviour_score
from tom_envs.negotiation.release_logs import release_lines

#: The prompts' keys in the release's ``behavior_score.json`` (and ``<kind>_score`` in its results).
KINDS = ("monitoring", "planning", "simple")
#: The four dimensions every reply scores.
DIMENSIONS = ("perception_alignment", "emotional_dynamics", "cognitive_challenges", "communication_breakdowns")
#: ``--behaviour-judge`` choices: the prompts asked.
JUDGE_KINDS = {"simple": ("simple",), "all": KINDS}
#: The release's request settings.
TEMPERATURE, MAX_TOKENS = 0.1, 5000
MEDIATOR_SEAT = "mediator_0"


def judged_lines(events: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Every mediator line of a transcript but the opening, with what the release sends for it:
    ``{"index", "turn", "speech", "conversation_prior"}`` (index: the line's place in the release's
    summary, 0 the opening; prior: the lines from the previous mediator line, the opening included, up
    to this one -- from the first line when no mediator line comes before, as in our v1 episodes, which
    have no opening)."""
    lines = release_lines(events)
    out, previous = [], 0
    for i, e in enumerate(events):
        if e.get("seat") != MEDIATOR_SEAT:
            continue
        if e.get("kind") != "opening":
            out.append({"index": i, "turn": e.get("turn"), "speech": lines[i], "conversation_prior": lines[previous:i]})
        previous = i
    return out


def parse_judgement(text: str) -> dict[str, Any]:
    """A reply as the release reads it (``json.loads`` after stripping the characters of "```json" from
    both ends), else the first JSON object in it; each of :data:`DIMENSIONS` must carry a ``score`` that is
    -1 or a number from 1 to 5 (:class:`ReplyError` otherwise: the release's script would crash on it)."""
    import json

    try:
        obj = json.loads(text.strip("```json"))
    except json.JSONDecodeError:
        obj = extract_json(text)
    if not isinstance(obj, dict):
        raise ReplyError("the reply must be a JSON object with the four dimensions")
    for dim in DIMENSIONS:
        part = obj.get(dim)
        score = part.get("score") if isinstance(part, dict) else None
        if isinstance(score, bool) or not isinstance(score, (int, float)) or not (score == -1 or 1 <= score <= 5):
            raise ReplyError(f"{dim!r} needs a 'score': -1 (no such issue) or a number from 1 to 5, got {part!r}")
    return obj


def _random_judgement(rng: np.random.Generator) -> dict[str, Any]:
    return {dim: {"score": int(rng.integers(1, 6))} for dim in DIMENSIONS}


def episode_scores(entries: Sequence[Mapping[str, Any]]) -> dict[str, float | None]:
    """``monitoring_score``, ``planning_score``, ``simple_score``: the release's average over the judged
    lines of each line's mean non -1 score (``get_average_behavior_scores``); None for a prompt not asked
    or an episode without a judged line (the release prints -1 for the latter)."""
    out: dict[str, float | None] = {}
    for kind in KINDS:
        values = [behaviour_score(e[kind]) for e in entries if e.get(kind) is not None]
        out[f"{kind}_score"] = sum(values) / len(values) if values else None
    return out


class LLMBehaviourJudge(UsesCaller):
    """The release's behaviour judge of mediator lines (module docstring) on any backend.

    Args:
        backend: the judge model.
        kinds: the prompts to ask, among :data:`KINDS` (default: ``("simple",)``, the release's script as it runs).
        **kwargs: :class:`~policies.negotiation.llm.parties.LLMCaller`'s (``fallback``, ``max_resamples``);
            temperature 0.1 and 5000 tokens unless given, no seed sent (the release's requests).
    """

    name = "llm-behaviour"

    def __init__(self, backend: Backend, kinds: Sequence[str] = ("simple",), **kwargs: Any) -> None:
        unknown = [k for k in kinds if k not in KINDS]
        if unknown or not kinds:
            raise InvalidPolicyConfig(f"behaviour judge kinds must be among {KINDS}, got {list(kinds)}")
        self.kinds = tuple(k for k in KINDS if k in kinds)
        kwargs.setdefault("temperature", TEMPERATURE)
        if kwargs.get("max_tokens") is None:  # None: the release's cap
            kwargs["max_tokens"] = MAX_TOKENS
        kwargs.setdefault("send_seed", False)
        self.caller = LLMCaller(backend, **kwargs)

    @staticmethod
    def messages(kind: str, line: Mapping[str, Any]) -> list[dict[str, str]]:
        """The release's chat for one prompt and judged line (:func:`judged_lines`)."""
        prompt = PROMPTS[kind].format(conversation_prior=list(line["conversation_prior"]), speech=line["speech"])
        return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": prompt}]

    def judge(self, events: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """The release's ``behavior_score.json`` entries of a transcript, one per judged mediator line:
        ``{"turn", "line", "monitoring", "planning", "simple"}`` (a prompt not asked: None)."""
        lines = judged_lines(events)
        entries: list[dict[str, Any]] = [
            {"turn": ln["turn"], "line": ln["index"], **dict.fromkeys(KINDS)} for ln in lines
        ]
        for kind in self.kinds:
            asks = [
                Ask(m[-1]["content"], parse_judgement, _random_judgement, messages=m)
                for m in (self.messages(kind, ln) for ln in lines)
            ]
            for entry, answer in zip(entries, self.caller.ask(f"behaviour_{kind}", asks)):
                entry[kind] = answer.value
                if answer.fallback:
                    entry.setdefault("fallback", []).append(kind)
        return entries

    def score_episode(self, events: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """The keys an episode record gets: ``behaviour`` (the entries), ``behaviour_judge`` (the prompts
        asked) and the release's ``monitoring_score``, ``planning_score``, ``simple_score``."""
        entries = self.judge(events)
        return {"behaviour": entries, "behaviour_judge": list(self.kinds), **episode_scores(entries)}


__all__ = [
    "DIMENSIONS",
    "JUDGE_KINDS",
    "KINDS",
    "LLMBehaviourJudge",
    "episode_scores",
    "judged_lines",
    "parse_judgement",
]
