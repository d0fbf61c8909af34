"""002's metrics (§3.3) as plain functions of recorded sequences, in two definitions.

The env reports the **release's** definitions by default (``metrics="release"``): the code of
github.com/microsoft/ProMediate-Eval (``scripts/evaluation.py``) that produced 002's numbers, in the
``release_*`` functions below. The **paper's** text definitions (``metrics="paper"``) are the
functions listed here. Where they differ: CC's first window includes the initial score in the
release; TLE is a windowed mean (first/last fifth of the scores after the turns that mention the
topic) per mention in the release, the end-to-end change per mention in the text; ME is an
endpoint slope over 5 turns in the release, a least-squares slope in the text; RL counts every
overlapping 10-turn drop index in the release, each fall once in the text.

Conventions: a consensus series ``c`` has ``c[0]`` = the state before the first turn and ``c[t]``
the state after turn t (``t = 1..T``); "turn" below always means this index. The ``release_*`` functions
take the series the release reads, one value per transcript line plus the initial one: for a transcript
with an opening line (``tom/Negotiation-v2``) the env passes ``[c[0]] + c`` and turn ``t + 1`` for our
turn t (:meth:`~tom_envs.negotiation.summary.EpisodeScoring._release_series`). Values are fractions
(the benchmark prints CC, TLE and ME as percentages, like 002's Table 1).

* **CC** (consensus change): ``mean(c[T-9..T]) - mean(c[1..10])`` -- the mean over the last 10
  turns minus the mean over the first 10 (windows shrink to the available turns if T < 10).
* **TLE** (topic-level efficiency) of topic k: ``(a_k[T] - a_k[0]) / n_k``, the change in the
  topic's agreement over the episode divided by the number of turns that mentioned it; undefined
  (None) for a topic never mentioned. The episode's TLE is the mean over defined topics.
* **Drop event**: a turn t such that some d in (t, t+10] has ``c[d] < c[t] - 0.1``; the drop happens
  at the first such d. Scanning resumes at d, so one fall is counted once.
* **RL** (response latency) of a drop event: ``m - d`` for the first mediator turn m > d;
  ``inf`` if the mediator never speaks again.
* **ME** (mediator effectiveness) of an intervention at turn m on topic k: the least-squares slope
  of ``a_k`` over turns m+1..m+5 minus its slope over turns m-5..m-1 (windows clipped to the
  episode; None if either has fewer than 2 points).
* **MI** (mediator intelligence): mean of 1-5 scores over 002's four dimensions (perceptual,
  emotional, cognitive, communicative) from a judge; see :class:`RuleBasedJudge`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

WINDOW = 10
DROP_TAU = 0.1
ME_WINDOW = 5
MI_DIMENSIONS = ("perceptual", "emotional", "cognitive", "communicative")
STRATEGIES = ("facilitative", "evaluative", "transformative", "problem_solving")


def consensus_change(series: Sequence[float], window: int = WINDOW) -> float:
    """CC: mean of the last ``window`` turns minus the mean of the first ``window`` turns."""
    turns = list(series[1:])
    if not turns:
        return 0.0
    w = min(window, len(turns))
    return float(np.mean(turns[-w:]) - np.mean(turns[:w]))


def topic_level_efficiency(initial: float, final: float, mentions: int) -> float | None:
    """TLE of one topic: change in agreement per turn that mentioned the topic (None if none did)."""
    if mentions <= 0:
        return None
    return (final - initial) / mentions


def mean_defined(values: Sequence[float | None]) -> float | None:
    """Mean of the values that are not None (None if there are none)."""
    xs = [v for v in values if v is not None]
    return float(np.mean(xs)) if xs else None


def drop_events(series: Sequence[float], tau: float = DROP_TAU, window: int = WINDOW) -> list[tuple[int, int]]:
    """(start turn t, drop turn d) pairs, as defined in the module docstring."""
    events = []
    t, n = 0, len(series)
    while t < n - 1:
        drop = next((d for d in range(t + 1, min(n, t + window + 1)) if series[d] < series[t] - tau), None)
        if drop is None:
            t += 1
        else:
            events.append((t, drop))
            t = drop
    return events


def response_latencies(
    series: Sequence[float], mediator_turns: Sequence[int], tau: float = DROP_TAU, window: int = WINDOW
) -> list[float]:
    """RL of every drop event: turns from the drop until the mediator next speaks (inf if never)."""
    out = []
    for _, d in drop_events(series, tau, window):
        nxt = [m for m in mediator_turns if m > d]
        out.append(float(min(nxt) - d) if nxt else math.inf)
    return out


def slope(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Least-squares slope of ys on xs."""
    x = np.asarray(xs, dtype=float)
    y = np.asarray(ys, dtype=float)
    xc = x - x.mean()
    return float((xc * (y - y.mean())).sum() / (xc * xc).sum())


def mediator_effectiveness(topic_series: Sequence[float], turn: int, window: int = ME_WINDOW) -> float | None:
    """ME of one intervention at ``turn`` on a topic with agreement series ``topic_series``."""
    n = len(topic_series)
    pre = [t for t in range(turn - window, turn) if 0 <= t < n]
    post = [t for t in range(turn + 1, turn + window + 1) if 0 <= t < n]
    if len(pre) < 2 or len(post) < 2:
        return None
    return slope(post, [topic_series[t] for t in post]) - slope(pre, [topic_series[t] for t in pre])


# ---------------------------------------------------------------------- the release's definitions
#: Which definitions the env's ``cc``/``tle``/``rl``/``me`` keys use: ``"release"`` (the code of
#: github.com/microsoft/ProMediate-Eval, ``scripts/evaluation.py``; default) or ``"paper"`` (002's
#: §3.3 text, the functions above).
METRIC_DEFINITIONS: tuple[str, ...] = ("release", "paper")


def release_consensus_change(series: Sequence[float], window: int = WINDOW) -> float | None:
    """CC as the release computes it (``evaluate_consensus_change``): the mean of the last
    ``window`` values minus the mean of the first ``window`` values of the series *including* the
    initial score ``c[0]`` (so the first window is ``c[0..9]``); None for fewer than ``window`` values."""
    if len(series) < window:
        return None
    return float(sum(series[-window:]) / window - sum(series[:window]) / window)


def release_topic_level_efficiency(topic_series: Sequence[float], mention_turns: Sequence[int]) -> float:
    """TLE of one topic as the release computes it (``evaluate_topic_level_efficiency``).

    The topic's scores after each turn that mentions it (``topic_series[t]`` for t in
    ``mention_turns``, in order) form a sub-series of n values; with ``w = n // 5`` it is
    ``(mean(last w) - mean(first w)) / n``; 0 when no turn mentions the topic or n < 5 (the release
    averages these zeros in)."""
    sel = [float(topic_series[t]) for t in mention_turns]
    n, w = len(sel), len(sel) // 5
    first = sum(sel[:w]) / w if w > 0 else 0.0
    last = sum(sel[-w:]) / w if w > 0 else 0.0
    return (last - first) / n if n > 0 else 0.0


def _release_index(turn: int) -> int:
    """Our turn t (1-based) as the release's conversation-line index (0-based): t - 1. The release
    reads ``scores[i]`` at a mediator line i, i.e. our ``c[t - 1]``, the state before that turn."""
    return turn - 1


def release_mediator_effectiveness(topic_series: Sequence[float], turn: int, window: int = ME_WINDOW) -> float | None:
    """ME of one intervention on one topic as the release computes it (``intervene_yield``):
    the endpoint slope after minus the endpoint slope before, ``(s[i+5] - s[i])/5 - (s[i] - s[i-5])/5``
    at the mediator's line index ``i = turn - 1`` over the series including the initial score; None
    (the release's -1) when ``i <= 5`` or ``i >= T - 5`` for T turns (``len(topic_series) - 1``)."""
    i, n_turns = _release_index(turn), len(topic_series) - 1
    if i <= window or i >= n_turns - window:
        return None
    s = topic_series
    return float((s[i + window] - s[i]) / window - (s[i] - s[i - window]) / window)


def release_response_latencies(
    series: Sequence[float], mediator_turns: Sequence[int], tau: float = DROP_TAU, window: int = WINDOW
) -> list[int]:
    """RL as the release computes it (``response_latency``): every index j >= ``window`` of the
    series (initial score included) with ``c[j - window] - c[j] > tau`` is a drop (overlapping: a
    long fall counts at every j); its latency is ``i - j`` for the first mediator line index
    ``i = turn - 1 > j``; drops with no later mediator line are not counted (the release returns -1
    when there are none)."""
    lines = sorted(_release_index(t) for t in mediator_turns)
    out = []
    for j in range(window, len(series)):
        if series[j - window] - series[j] > tau:
            nxt = next((i for i in lines if i > j), None)
            if nxt is not None:
                out.append(nxt - j)
    return out


def release_drops(series: Sequence[float], tau: float = DROP_TAU, window: int = WINDOW) -> list[int]:
    """The drop indices RL is computed over in the release: every j >= ``window`` with
    ``c[j - window] - c[j] > tau`` (overlapping). Their count is ``drops["release"]`` (RL is only
    defined when one is followed by a mediator line)."""
    return [j for j in range(window, len(series)) if series[j - window] - series[j] > tau]


SUCCESS_THRESHOLD = 0.9


def release_success_rate(
    topic_series: Sequence[Sequence[float]],
    use_max: bool = False,
    threshold: float = SUCCESS_THRESHOLD,
    window: int = WINDOW,
) -> float:
    """The release's success rate (``evaluate_success_rate``; ``evaluate_success_rate_max`` with
    ``use_max``): the share of topics whose mean (max) agreement over the last ``window`` values of
    its series (initial score included) is at least ``threshold``; topics with fewer values are left
    out, and 0 when none is left."""
    done = [s for s in topic_series if len(s) >= window]
    if not done:
        return 0.0
    hits = sum(1 for s in done if (max(s[-window:]) if use_max else sum(s[-window:]) / window) >= threshold)
    return hits / len(done)


def release_mediator_frequency(speakers: Sequence[str]) -> float:
    """The release's mediator frequency (``evaluate_frequency``) over a conversation's speaker names, one
    per line: (lines whose speaker name contains "Mediator" - 1) / lines -- the release's conversations
    open with a mediator line, which the -1 leaves out; 0 for no line."""
    if not speakers:
        return 0
    return (sum(1 for s in speakers if "Mediator" in s) - 1) / len(speakers)


def mediator_frequency(mediator_lines: int, turns: int) -> float | None:
    """Our episodes' mediator frequency: mediator lines (interventions and a conclusion) per turn (our
    episodes have no opening line, so nothing is subtracted); None for no turn."""
    return mediator_lines / turns if turns else None


def behaviour_score(scores: dict[str, Any]) -> float:
    """The release's ``get_average_behavior_scores``: the mean of the dimensions' ``score`` values that are
    not -1 (the judge's "no such issue"), 0 when none is."""
    vals = [v["score"] for v in scores.values() if isinstance(v, dict) and v.get("score") != -1]
    return sum(vals) / len(vals) if vals else 0


# ---------------------------------------------------------------------- mediator intelligence
@dataclass(frozen=True)
class InterventionContext:
    """What was wrong in the conversation when the mediator spoke (computed by the env).

    Attributes:
        topic_agreement: consensus per topic at the intervention.
        recent_drop_topics: topics whose agreement fell by more than 0.1 over the last 5 turns.
        hostile: a firm (positional) statement or a hardening happened in the last 3 turns.
        stalled_topics: topics unchanged for the last 6 turns while below full agreement.
        repeating_parties: parties that restated the same stance on the same topic twice in a row.
        silent_parties: parties that have not spoken for more than ``2 * parties`` turns (or never,
            after the first ``parties`` turns).
    """

    topic_agreement: tuple[float, ...]
    recent_drop_topics: tuple[int, ...] = ()
    hostile: bool = False
    stalled_topics: tuple[int, ...] = ()
    repeating_parties: tuple[int, ...] = ()
    silent_parties: tuple[int, ...] = ()


class RuleBasedJudge:
    """A *rule-based* stand-in for 002's LLM judge of mediator intelligence, for scripted runs.

    It is not an LLM judge: it checks whether the intervention addressed a problem that was
    present (:class:`InterventionContext`) with a fitting strategy. Each of 002's four dimensions
    is scored 1-5 only when applicable (the problem was present; perceptual always is):

    * perceptual: targets the least-agreed topic 5, a below-average topic 3, otherwise 1;
    * emotional (hostility or a recent drop): transformative 5, facilitative 4, problem-solving 2,
      evaluative 1;
    * cognitive (stalled topics or repetition): problem-solving / evaluative on such a topic 5,
      another strategy on it 3, a different topic 1;
    * communicative (a silent party): facilitative addressed to a silent party 5, another strategy
      addressed to one 3, facilitative to nobody in particular 2, otherwise 1.
    """

    name = "rule-based (scripted runs; not an LLM judge)"

    def __call__(self, intervention: dict[str, Any], ctx: InterventionContext) -> dict[str, float]:
        k, strategy, target = intervention["topic"], intervention["strategy"], intervention.get("target")
        agree = ctx.topic_agreement
        scores: dict[str, float] = {}
        if agree[k] <= min(agree) + 1e-9:
            scores["perceptual"] = 5.0
        elif agree[k] < float(np.mean(agree)):
            scores["perceptual"] = 3.0
        else:
            scores["perceptual"] = 1.0
        if ctx.hostile or ctx.recent_drop_topics:
            scores["emotional"] = {
                "transformative": 5.0,
                "facilitative": 4.0,
                "problem_solving": 2.0,
                "evaluative": 1.0,
            }[strategy]
        if ctx.stalled_topics or ctx.repeating_parties:
            if k in ctx.stalled_topics:
                scores["cognitive"] = 5.0 if strategy in ("problem_solving", "evaluative") else 3.0
            else:
                scores["cognitive"] = 1.0
        if ctx.silent_parties:
            if target in ctx.silent_parties:
                scores["communicative"] = 5.0 if strategy == "facilitative" else 3.0
            else:
                scores["communicative"] = 2.0 if strategy == "facilitative" and target is None else 1.0
        scores["mean"] = float(np.mean([scores[d] for d in MI_DIMENSIONS if d in scores]))
        return scores
