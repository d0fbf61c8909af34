"""002's metrics, the episode summary, the MI judge's context and the functional outcome of a negotiation
episode (the scoring hooks of :class:`~tom_envs.negotiation.env.NegotiationEnv`)."""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import numpy as np

from tom_envs.negotiation.metrics import (
    STRATEGIES,
    InterventionContext,
    consensus_change,
    drop_events,
    mean_defined,
    mediator_effectiveness,
    mediator_frequency,
    release_consensus_change,
    release_drops,
    release_mediator_effectiveness,
    release_response_latencies,
    release_success_rate,
    release_topic_level_efficiency,
    response_latencies,
    topic_level_efficiency,
)
from tom_envs.negotiation.outcomes import OutcomeScorer

#: the functional outcome (``tom_outcome()``): overall consensus now, its change since the start, and 002's metrics
OUTCOME = ("consensus", "consensus_gain", "cc", "tle_mean", "rl_mean", "me_mean", "mi_mean")


class EpisodeScoring:
    """The scoring hooks of :class:`~tom_envs.negotiation.env.NegotiationEnv` (a mixin: it reads the env's
    state): the parties' stakes (their rewards), the functional outcome, the MI judge's context, 002's
    metrics and the episode summary."""

    def _stakes(self) -> list[float]:
        """Each party's mean acceptability of the plurality attitude per topic."""
        acc = self.tracker.acceptability
        plural = []
        for k in range(self.m):
            counts = Counter(int(s) for s in self.tracker.attitudes[:, k])
            plural.append(min(counts, key=lambda o: (-counts[o], o)))
        return [float(np.mean([acc(i, k)[plural[k]] for k in range(self.m)])) for i in range(self.n)]

    def tom_outcome(self) -> dict[str, Any]:
        """Consensus now and its gain since the start, and 002's metrics so far (:data:`OUTCOME`)."""
        if not self.started:
            return dict.fromkeys(OUTCOME)
        m = self._metrics()
        hist = self.tracker.history
        return {
            "consensus": hist[-1],
            "consensus_gain": hist[-1] - hist[0],
            "cc": m["cc"],
            "tle_mean": m["tle_mean"],
            "rl_mean": m["rl_mean"],
            "me_mean": m["me_mean"],
            "mi_mean": m["mi_mean"],
        }

    def context(self) -> InterventionContext:
        """What is going wrong now (for the MI judge; built from the env's full record)."""
        hist = self.tracker.topic_history
        now = hist[-1]
        recent = hist[-6:]
        drops = tuple(k for k in range(self.m) if max(h[k] for h in recent) - now[k] > 0.1)
        stalled = tuple(
            k
            for k in range(self.m)
            if len(hist) >= 7 and now[k] < 1.0 and all(abs(h[k] - now[k]) < 1e-12 for h in hist[-7:])
        )
        hostile = any(e.get("tone") == "firm" for e in self.events[-3:]) or any(
            t > self.turn - 3 for t in self.hardened_turns
        )
        silent = tuple(
            i
            for i in range(self.n)
            if self.turn >= self.n
            and self.silence[i] > 2 * self.n
            or (self.turn >= self.n and self.last_statement[i] is None)
        )
        repeating = tuple(int(i) for i in np.flatnonzero(self.repeats >= 1))
        return InterventionContext(tuple(now), drops, hostile, stalled, repeating, silent)

    def _opening_lines(self) -> int:
        """The transcript's lines before turn 1 (v2's opening line; v1 has none)."""
        return sum(1 for e in self.events if e["turn"] == 0)

    def _release_series(self) -> tuple[list[float], list[list[float]], int]:
        """The overall and per-topic series the release's ``scripts/evaluation.py`` reads for this episode, and
        the offset ``lead`` that turns our turn t into the turn the ``release_*`` metric functions take.

        The release's consensus pipeline stores one score per transcript line plus the initial one, so an
        opening line (v2) adds an entry, equal to the initial score since the opening states nothing:
        ``[c0] * lead + c`` with ``lead`` the lines before turn 1, and turn t is then the release's line t
        (``release_*(series, t + lead)``). v1 has no opening: the series is ours and lead 0."""
        lead = self._opening_lines()
        hist = self.tracker.history
        series = [[h[k] for h in self.tracker.topic_history] for k in range(self.m)]
        return [hist[0]] * lead + list(hist), [[s[0]] * lead + s for s in series], lead

    def _metrics(self) -> dict[str, Any]:
        """002's metrics of the episode so far (each intervention also gets its ``me``). The paper's are
        defined over the turns, the release's over the series its script reads (:meth:`_release_series`)."""
        hist = self.tracker.history
        topic_hist = self.tracker.topic_history
        names = [t.name for t in self.scenario.topics]
        series = [[h[k] for h in topic_hist] for k in range(self.m)]
        r_hist, r_series, lead = self._release_series()
        paper_tle = {
            names[k]: topic_level_efficiency(topic_hist[0][k], topic_hist[-1][k], int(self.mentions[k]))
            for k in range(self.m)
        }
        release_tle = {
            names[k]: release_topic_level_efficiency(r_series[k], [t + lead for t in self.mention_turns[k]])
            for k in range(self.m)
        }
        paper_rl = response_latencies(hist, self.mediator_turns)
        release_rl = [float(x) for x in release_response_latencies(r_hist, [t + lead for t in self.mediator_turns])]
        paper_me, release_me = [], []
        for iv in self.interventions:
            iv["me_paper"] = mediator_effectiveness(series[iv["topic_index"]], iv["turn"])
            iv["me_release"] = release_mediator_effectiveness(r_series[iv["topic_index"]], iv["turn"] + lead)
            paper_me.append(iv["me_paper"])
            release_me.append(iv["me_release"])
        finite = [x for x in paper_rl if math.isfinite(x)]
        paper = {
            "cc": consensus_change(hist),
            "tle": paper_tle,
            "tle_mean": mean_defined(list(paper_tle.values())),
            "rl": paper_rl,
            "rl_mean": float(np.mean(finite)) if finite else None,
            "rl_unanswered": len(paper_rl) - len(finite),
            "me_mean": mean_defined(paper_me),
        }
        release = {
            "cc": release_consensus_change(r_hist),
            "tle": release_tle,
            "tle_mean": float(np.mean(list(release_tle.values()))),
            "rl": release_rl,
            "rl_mean": float(np.mean(release_rl)) if release_rl else None,
            "rl_unanswered": None,
            "me_mean": mean_defined(release_me),
        }
        chosen, other = (release, paper) if self.metric_definitions == "release" else (paper, release)
        for iv in self.interventions:
            iv["me"] = iv[f"me_{self.metric_definitions}"]
        return {
            **chosen,
            "mi_mean": mean_defined([iv["mi"]["mean"] for iv in self.interventions]),
            "other": {k: v for k, v in other.items() if k not in ("tle", "rl")},
        }

    def outcome(self) -> dict[str, Any]:
        """The outcome of the final attitudes (:mod:`tom_envs.negotiation.outcomes`): agreed option per
        topic, deals, agreements on blocked options, party utilities (by name), Nash product, Pareto."""
        if getattr(self, "_outcome_scorer", None) is None:
            self._outcome_scorer = OutcomeScorer(self.tracker._acc, self.tracker.blocked)
        out = self._outcome_scorer.score(self.tracker.attitudes, self.scenario.topics)
        out["utilities"] = dict(zip(self.scenario.party_names, out["utilities"]))
        return out

    def _frequency_lines(self) -> int:
        """The mediator frequency's denominator: the turns (v1 has no opening line; v2 counts it)."""
        return self.turn

    def release_extras(self) -> dict[str, Any]:
        """The release's remaining metrics of the episode: success rate (mean, and max, of each topic's
        last 10 values >= 0.9) and the release's drop count, over the series its script reads
        (:meth:`_release_series`), mediator frequency, and the paper's drop count (beside RL)."""
        hist = self.tracker.history
        r_hist, r_series, _ = self._release_series()
        lines = len(self.mediator_turns) + (self.concluded is not None)
        return {
            "success_rate": release_success_rate(r_series),
            "success_rate_max": release_success_rate(r_series, True),
            "mediator_frequency": mediator_frequency(lines, self._frequency_lines()),
            "drops": {"release": len(release_drops(r_hist)), "paper": len(drop_events(hist))},
        }

    def episode_summary(self) -> dict[str, Any]:
        """All of 002's metrics for the episode so far (JSON-serialisable; inf latencies as None), the
        outcome (:meth:`outcome`), the release's remaining metrics (:meth:`release_extras`) and the
        stances parties took on options they block themselves (``blocked_stances``)."""
        hist = self.tracker.history
        topic_hist = self.tracker.topic_history
        names = [t.name for t in self.scenario.topics]
        m = self._metrics()
        return {
            "scenario": self.scenario.name,
            "conflict_mode": self.conflict_mode,
            "turns": self.turn,
            "concluded": self.concluded,
            "parties": self.n,
            "topics": names,
            "mediator": self.has_mediator,
            "consensus": [round(x, 6) for x in hist],
            "topic_consensus": {names[k]: [round(h[k], 6) for h in topic_hist] for k in range(self.m)},
            "metric_definitions": self.metric_definitions,
            "other_definitions": {"name": "paper" if self.metric_definitions == "release" else "release", **m["other"]},
            "cc": m["cc"],
            "tle": m["tle"],
            "tle_mean": m["tle_mean"],
            "drop_events": [list(e) for e in drop_events(hist)],
            "proposals": list(self.proposals),
            "rl": [x if math.isfinite(x) else None for x in m["rl"]],
            "rl_mean": m["rl_mean"],
            "rl_unanswered": m["rl_unanswered"],
            "interventions": [{k: v for k, v in iv.items() if k != "topic_index"} for iv in self.interventions],
            "mediator_turns": list(self.mediator_turns),
            "me_mean": m["me_mean"],
            "mi_mean": m["mi_mean"],
            "mi_judge": getattr(self.judge, "name", type(self.judge).__name__),
            "attitude_source": "stated" if self.extractor is None else f"extracted:{self.extract_from}",
            "extractor": None
            if self.extractor is None
            else getattr(self.extractor, "name", type(self.extractor).__name__),
            "extraction": dict(self.extraction) if self.extractor is not None else None,
            "receptiveness": {
                self.scenario.parties[i].name: dict(zip(STRATEGIES, map(float, p.receptiveness)))
                for i, p in self.parties.items()
            },
            "final_attitudes": {
                self.scenario.parties[i].name: {
                    names[k]: self.scenario.topics[k].options[int(o)].label for k, o in enumerate(row)
                }
                for i, row in enumerate(self.tracker.attitudes)
            },
            **self.outcome(),
            **self.release_extras(),
            "blocked_stances": list(self.blocked_stances),
            "transcript": [dict(e) for e in self.events],
        }
