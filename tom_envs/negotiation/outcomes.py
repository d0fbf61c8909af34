"""What a negotiation episode ended with (issue 28): the agreed option per topic, each party's utility,
efficiency (Pareto, Nash product) and agreements on blocked options -- the outcome measures beside 002's
consensus metrics.

Definitions (the episode summary's keys; ``docs/negotiation.md`` lists them):

* **agreed** ``{topic: label | None}``: the option every party holds at the end (its final attitude),
  None where they differ.
* **blocked option**: an option in a party's ``unacceptable`` list (the release's "Unacceptable",
  "Block:", "Strongly against"; "barely acceptable" is acceptable). An agreement on an option some
  party blocks is **not a deal**: ``blocked_agreements`` counts those topics (``blocked_agreement_topics``
  names them), and the consensus score never counts them as full consensus
  (:mod:`tom_envs.negotiation.consensus`).
* **deal** on a topic: an agreement on an option no party blocks; ``deals`` counts them, ``full_deal``
  says whether every topic has one.
* **utilities** ``{party: u}``: the party's mean, over topics, of its acceptability (its normalised
  utility in [0, 1], :meth:`Scenario.acceptability`) of the deal, 0 on a topic without a deal (no
  agreement is the disagreement point 0).
* **nash_product**: the product of the parties' utilities (disagreement point 0);
  ``nash_product_max``: the largest over every package (one listed option per topic), so
  ``nash_product / nash_product_max`` is the share of the best balanced outcome reached.
* **pareto_efficient**: no package of listed options gives every party at least its utility and
  one party more (False whenever a topic has no deal and some package is better for all).
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: the summary keys this module adds to an episode
OUTCOME_KEYS = ("agreed", "deals", "full_deal", "blocked_agreements", "blocked_agreement_topics", "utilities",
                "nash_product", "nash_product_max", "pareto_efficient")
EPS = 1e-12
#: packages enumerated at most for Pareto efficiency (above this: None)
MAX_PACKAGES = 200_000


class OutcomeScorer:
    """The outcome measures of one scenario (the package utilities are computed once, when first needed).

    Args:
        acceptability: ``acc[i][k]``, party i's acceptability of each option of topic k.
        blocked: ``blocked[i][k]``, the option indices party i blocks on topic k.
    """

    def __init__(self, acceptability: list[list[list[float]]], blocked: list[list[frozenset[int]]]) -> None:
        self.acc = acceptability
        self.blocked = blocked
        self.n, self.m = len(acceptability), len(acceptability[0])
        self._packages: np.ndarray | None = None

    def packages(self) -> np.ndarray | None:
        """(packages, parties): each party's utility of every package of listed options (None if too many)."""
        if self._packages is None:
            sizes = [len(self.acc[0][k]) for k in range(self.m)]
            if int(np.prod(sizes)) > MAX_PACKAGES:
                return None
            per_topic = [np.array([self.acc[i][k] for i in range(self.n)]).T for k in range(self.m)]  # (S_k, n)
            total = np.zeros((1, self.n))
            for u in per_topic:
                total = (total[:, None, :] + u[None, :, :]).reshape(-1, self.n)
            self._packages = total / self.m
        return self._packages

    def score(self, attitudes: np.ndarray, topics: list[Any]) -> dict[str, Any]:
        """The outcome of final ``attitudes`` (parties x topics option indices); ``topics`` the scenario's."""
        agreed: dict[str, str | None] = {}
        deal: list[int | None] = []
        blocked_topics = []
        for k, t in enumerate(topics):
            col = attitudes[:, k]
            o = int(col[0])
            if not bool((col == o).all()):
                agreed[t.name] = None
                deal.append(None)
                continue
            agreed[t.name] = t.options[o].label
            if any(o in self.blocked[i][k] for i in range(self.n)):
                blocked_topics.append(t.name)
                deal.append(None)
            else:
                deal.append(o)
        utilities = [sum(self.acc[i][k][o] for k, o in enumerate(deal) if o is not None) / self.m
                     for i in range(self.n)]
        packages = self.packages()
        u = np.array(utilities)
        if packages is None:
            pareto, nash_max = None, None
        else:
            dominated = (packages >= u - EPS).all(axis=1) & (packages > u + EPS).any(axis=1)
            pareto = not bool(dominated.any())
            nash_max = float(np.prod(packages, axis=1).max())
        deals = sum(o is not None for o in deal)
        return {"agreed": agreed, "deals": deals, "full_deal": deals == self.m,
                "blocked_agreements": len(blocked_topics), "blocked_agreement_topics": blocked_topics,
                "utilities": utilities, "nash_product": float(np.prod(u)), "nash_product_max": nash_max,
                "pareto_efficient": pareto}


__all__ = ["OUTCOME_KEYS", "OutcomeScorer"]
