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
* **achievable outcome**: what the parties can actually end with -- per topic a deal on an option no
  party blocks, or no deal (always possible: the parties need not agree; an agreement on a blocked option is
  no deal too). A topic whose every option someone blocks has only "no deal"; ``full_deal_possible`` says
  whether every topic has an option nobody blocks. The efficiency keys are judged over this set, never over
  packages that use a blocked option (no one can reach those).
* **nash_product**: the product of the parties' utilities (disagreement point 0);
  ``nash_product_max``: the largest over every achievable outcome, so
  ``nash_product / nash_product_max`` is the share of the best balanced outcome that could be reached.
* **pareto_efficient**: no achievable outcome gives every party at least its utility and one party more
  (so False whenever a topic has no deal although one of its options that nobody blocks is worth something
  to some party).
  Some achievable outcome always is Pareto-efficient (a finite set has a maximal element).
* ``outcome_reference``: ``"achievable"``, the set the efficiency keys are judged over (records written
  before it existed judged them over every package of listed options, blocked ones included).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

#: the summary keys this module adds to an episode
OUTCOME_KEYS = (
    "agreed",
    "deals",
    "full_deal",
    "blocked_agreements",
    "blocked_agreement_topics",
    "utilities",
    "nash_product",
    "nash_product_max",
    "pareto_efficient",
    "full_deal_possible",
    "outcome_reference",
)
#: the value of ``outcome_reference``: the efficiency keys are judged over the achievable outcomes
OUTCOME_REFERENCE = "achievable"
EPS = 1e-12
#: achievable outcomes enumerated at most for Pareto efficiency and the best Nash product (above this: None)
MAX_PACKAGES = 200_000


class OutcomeScorer:
    """The outcome measures of one scenario (the achievable outcomes' utilities are computed once, when
    first needed).

    Args:
        acceptability: ``acc[i][k]``, party i's acceptability of each option of topic k.
        blocked: ``blocked[i][k]``, the option indices party i blocks on topic k.
    """

    def __init__(self, acceptability: list[list[list[float]]], blocked: list[list[frozenset[int]]]) -> None:
        self.acc = acceptability
        self.blocked = blocked
        self.n, self.m = len(acceptability), len(acceptability[0])
        self._packages: np.ndarray | None = None
        self._nash_max: float | None = None

    @classmethod
    def from_scenario(cls, scenario: Any) -> "OutcomeScorer":
        """The scorer of a :class:`~tom_envs.negotiation.scenario.Scenario`."""
        n, m = len(scenario.parties), len(scenario.topics)
        acc = [[scenario.acceptability(i, k) for k in range(m)] for i in range(n)]
        blocked = [
            [frozenset(o for o in range(len(scenario.topics[k].options)) if scenario.blocks(i, k, o)) for k in range(m)]
            for i in range(n)
        ]
        return cls(acc, blocked)

    def dealable(self) -> list[list[int]]:
        """Per topic, the options no party blocks (a deal on one of them is possible)."""
        return [
            [o for o in range(len(self.acc[0][k])) if not any(o in self.blocked[i][k] for i in range(self.n))]
            for k in range(self.m)
        ]

    @property
    def full_deal_possible(self) -> bool:
        """Whether every topic has an option no party blocks."""
        return all(self.dealable())

    def packages(self) -> np.ndarray | None:
        """(outcomes, parties): each party's utility of every achievable outcome -- per topic a deal on an
        option no party blocks, or no deal (0 to everyone) -- or None if there are more than
        :data:`MAX_PACKAGES`."""
        if self._packages is None:
            options = self.dealable()
            if math.prod(len(o) + 1 for o in options) > MAX_PACKAGES:  # exact (np.prod wraps at 2**63)
                return None
            total = np.zeros((1, self.n))
            for k, opts in enumerate(options):
                # (choices, n): no deal (zeros) first, then each option nobody blocks
                u = np.array([[0.0] * self.n] + [[self.acc[i][k][o] for i in range(self.n)] for o in opts])
                total = (total[:, None, :] + u[None, :, :]).reshape(-1, self.n)
            self._packages = total / self.m
        return self._packages

    def nash_product_max(self) -> float | None:
        """The largest Nash product over the achievable outcomes (None if too many to enumerate)."""
        packages = self.packages()
        if packages is not None and self._nash_max is None:
            self._nash_max = float(np.prod(packages, axis=1).max())
        return self._nash_max

    def achievable(self) -> dict[str, Any]:
        """What the scenario allows: ``full_deal_possible``, ``nash_product_max`` (over the achievable
        outcomes) and ``outcomes`` (their number)."""
        return {
            "full_deal_possible": self.full_deal_possible,
            "nash_product_max": self.nash_product_max(),
            "outcomes": math.prod(len(o) + 1 for o in self.dealable()),
        }

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
        utilities = [
            sum(self.acc[i][k][o] for k, o in enumerate(deal) if o is not None) / self.m for i in range(self.n)
        ]
        packages = self.packages()
        u = np.array(utilities)
        if packages is None:
            pareto = None
        else:
            dominated = (packages >= u - EPS).all(axis=1) & (packages > u + EPS).any(axis=1)
            pareto = not bool(dominated.any())
        deals = sum(o is not None for o in deal)
        return {
            "agreed": agreed,
            "deals": deals,
            "full_deal": deals == self.m,
            "blocked_agreements": len(blocked_topics),
            "blocked_agreement_topics": blocked_topics,
            "utilities": utilities,
            "nash_product": float(np.prod(u)),
            "nash_product_max": self.nash_product_max(),
            "pareto_efficient": pareto,
            "full_deal_possible": self.full_deal_possible,
            "outcome_reference": OUTCOME_REFERENCE,
        }


__all__ = ["OUTCOME_KEYS", "OUTCOME_REFERENCE", "OutcomeScorer"]
