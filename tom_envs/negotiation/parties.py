"""Scripted negotiators: utility-based parties with a conflict mode, grievances and hidden receptiveness.

A *scripted* party is a model of ours, not one of 002's LLM parties; it is built to show the
properties 002 reports of its LLM parties (§5: Easy converges "steady and incremental", Hard
"volatile, interleaved shifts between topics"; proactive mediation "can disrupt organically
developing consensus"), so that scripted runs measure something about mediation:

* **Holding.** Per topic k a party holds an *openness* ``w_k`` (how much the others' stated stances
  weigh against its own utility) and a *grievance* ``g_k`` (how upset it is about k). Its preferred
  option is::

      argmax over acceptable options o of  acc(o) + eff_k * support(o) + bonus_k(o),
      eff_k = max(0, w_k - g_k) * (0.6 if k is one of the party's priorities else 1)

  where ``support(o)`` is the share of the other parties whose last stated stance on k is o. Blocked
  (unacceptable) options are never preferred.
* **Volatility.** Openness drifts up a little every turn (concession) and takes a random step whose
  size is set by the conflict mode (competing: large). A competing party that concedes on one topic
  often *trades* it: it raises its demand on another topic (a grievance there), so agreement rises on
  one topic while it falls on another -- 002's interleaved shifts. A firm statement contradicting a
  party may make it harden (a grievance on that topic, less on the others). Grievances fade slowly.
* **Interventions help only when they address what the party holds.** A mediator move on topic k
  *fits* a party when (by strategy) facilitative: it is addressed to the party and the party is
  unheard on k or has been silent; evaluative: addressed to the party, which is a holdout on k
  (its preferred option differs from the others' plurality), and the option it points to is
  acceptable to the party; transformative: the party has a grievance on k; problem-solving: the
  party is a holdout or unheard on k and the proposed option is acceptable to it. A fitting move is
  taken up with the party's hidden per-strategy probability (*receptiveness*, halved when the move
  comes too soon after the previous one) and then helps (openness, a suggestion bonus, or a healed
  grievance). A move that does not fit does nothing -- or, if it pushes an option the party blocks,
  presses a party that already agrees, or comes too soon / too often (*mistimed*), it may provoke
  *reactance*: a grievance on k, and on every topic when the party feels crowded.

Each turn every party offers a candidate contribution -- a topic, an option and a motivation score
(Inner Thoughts); the env lets the most motivated one speak (never the same party twice in a row)
unless the mediator intervenes. Everything random comes from the party's own generator, derived
from the env's seed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from tom_envs.negotiation.metrics import STRATEGIES
from tom_envs.negotiation.scenario import Scenario


@dataclass(frozen=True)
class ModeProfile:
    """How a conflict mode shapes a scripted party (all numbers are per turn or per event)."""

    openness: float  # initial openness w
    drift: float  # openness gained every turn
    volatility: float  # standard deviation of the per-turn random step of openness
    receptiveness: float  # mean probability of taking up a fitting mediator move
    harden: float  # probability of hardening when contradicted by a firm statement
    firm: float  # probability of a firm tone when restating a first choice on a contested topic
    contest_weight: float  # motivation from a topic's disagreement (negative: avoids contested topics)
    trade: float  # probability that a spoken concession is traded for a harder demand on another topic
    reactance: float  # probability of reactance to a move that does not fit or comes too soon
    patience: int  # turns a party wants between two interventions (fewer: the move is mistimed)
    probe: float  # probability per turn of a tentative offer on a topic where the party is a holdout
    tentative: float  # per-turn decay of suggestion/offer bonuses (1: they last)
    # how each strategy lands with this mode (multiplies receptiveness)
    strategy_fit: tuple[float, float, float, float]


MODES: dict[str, ModeProfile] = {
    "competing": ModeProfile(0.30, 0.015, 0.22, 0.50, 0.35, 0.8, 0.35, 0.50, 0.45, 4, 0.12, 0.88, (0.9, 0.8, 1.2, 1.1)),
    "general": ModeProfile(0.25, 0.020, 0.08, 0.55, 0.12, 0.4, 0.20, 0.15, 0.30, 4, 0.05, 0.95, (1.0, 1.0, 1.0, 1.0)),
    "avoiding": ModeProfile(0.30, 0.020, 0.06, 0.55, 0.06, 0.2, -0.30, 0.05, 0.30, 5, 0.03, 0.97, (1.2, 0.8, 1.0, 1.0)),
    "accommodating": ModeProfile(
        0.40, 0.030, 0.03, 0.75, 0.03, 0.1, 0.15, 0.0, 0.25, 4, 0.0, 1.0, (1.0, 1.0, 1.0, 1.0)
    ),
}
MAX_OPENNESS = 2.0
GRIEVANCE_DECAY = 0.93  # per turn
REVERSION = 0.25  # per turn, how fast openness returns from a random deviation to its base
UPSET = 0.15  # a grievance above this counts as "upset about the topic"
ACCEPTABLE = 0.3  # acceptability below this: an option the party will not be pushed towards
PRIORITY_FACTOR = 0.6  # openness is scaled by this on the party's priority topics
FATIGUE_WINDOW = 10  # interventions counted over this many turns for fatigue
FATIGUE_FREE = 2  # interventions in the window before each further one adds to reactance


@dataclass(frozen=True)
class Candidate:
    """A party's candidate contribution for this turn (its "inner thought")."""

    party: int
    topic: int
    option: int
    act: str  # "propose" or "accept"
    tone: str  # "firm", "neutral" or "conciliatory"
    motivation: float


def priority_topics(scenario: Scenario, index: int) -> set[int]:
    """The topics a party names among its priorities (a priority line mentioning the topic's name)."""
    prios = [p.casefold() for p in scenario.parties[index].priorities]
    return {k for k, t in enumerate(scenario.topics) if any(t.name.casefold() in p for p in prios)}


class ScriptedParty:
    """One simulated negotiator (see the module docstring).

    Args:
        scenario: the case.
        index: the party's position in ``scenario.parties``.
        mode: conflict mode name (a key of :data:`MODES`).
        rng: the party's own generator (derived from the env's ``np_random``).
    """

    def __init__(self, scenario: Scenario, index: int, mode: str, rng: np.random.Generator) -> None:
        self.index, self.mode, self.profile = index, mode, MODES[mode]
        self.rng = rng
        m = len(scenario.topics)
        self.n_parties = len(scenario.parties)
        self.acc = [np.asarray(scenario.acceptability(index, k)) for k in range(m)]
        unacc = scenario.parties[index].preferences
        self.allowed = [
            np.array([o.label not in unacc[t.name].unacceptable for o in t.options]) for t in scenario.topics
        ]
        # plain-list copies for :meth:`preferred` (the hot path: the same float operations, without numpy's
        # per-call overhead on arrays of 2-5 options)
        self._acc_list = [a.tolist() for a in self.acc]
        self._allowed_list = [a.tolist() for a in self.allowed]
        self._prefs: tuple[int, bytes, list[int]] | None = None  # (turn, stated, preferred per topic) of candidate()
        self.top = [scenario.top_option(index, k) for k in range(m)]
        prios = priority_topics(scenario, index)
        self.priority = np.array([PRIORITY_FACTOR if k in prios else 1.0 for k in range(m)])
        self._priority_list = self.priority.tolist()
        self.openness = np.full(m, self.profile.openness)
        self.base = np.full(m, self.profile.openness)  # raised by drift and by mediator moves that help
        self.deviation = np.zeros(m)
        self.grievance = np.zeros(m)
        self.bonus = [np.zeros(len(t.options)) for t in scenario.topics]
        fit = np.asarray(self.profile.strategy_fit)
        noise = rng.uniform(-0.15, 0.15, size=len(STRATEGIES))
        #: hidden probability of taking up each mediator strategy (002: "hidden receptiveness")
        self.receptiveness = np.clip(self.profile.receptiveness * fit + noise, 0.05, 0.95)
        self.invited: int | None = None
        self.hostility = 0
        self.turn = 0
        self.intervention_turns: list[int] = []
        #: what the last mediator move did to this party: "helped", "ignored", "no_fit" or "reactance"
        self.last_reaction: str | None = None

    # ------------------------------------------------------------------ beliefs and choices
    def effective_openness(self, topic: int) -> float:
        return max(0.0, float(self.openness[topic] - self.grievance[topic])) * float(self.priority[topic])

    def preferred(self, topic: int, stated: Sequence[int | None]) -> int:
        """The option the party currently prefers on ``topic`` given the others' stated stances."""
        return self._choose(topic, stated, self.effective_openness(topic))

    def _choose(self, topic: int, stated: Sequence[int | None], eff: float) -> int:
        """argmax over allowed options of acc + eff * support + bonus (ties within 1e-9: the most
        acceptable, then the lowest index), option by option in plain floats: the same IEEE operations
        in the same order as the vectorised form, so the same choices."""
        acc, allowed, bonus = self._acc_list[topic], self._allowed_list[topic], self.bonus[topic].tolist()
        n = len(acc)
        counts = [0.0] * n
        me = self.index
        for j, s in enumerate(stated):
            if s is not None and j != me:
                counts[s] += 1
        d = float(max(1, self.n_parties - 1))
        score = [acc[o] + eff * (counts[o] / d) + bonus[o] if allowed[o] else -math.inf for o in range(n)]
        floor = max(score) - 1e-9
        choice = -1
        for o in range(n):
            if score[o] >= floor and (choice < 0 or acc[o] > acc[choice]):
                choice = o
        return choice

    def preferences_now(self, stated: np.ndarray) -> list[int]:
        """:meth:`preferred` on every topic given the (parties, topics) stated stances (-1: none); the
        values :meth:`candidate` computed this turn when it has (nothing has changed the party since)."""
        if self._prefs is not None and self._prefs[0] == self.turn and self._prefs[1] == stated.tobytes():
            return list(self._prefs[2])
        return [self.preferred(k, [None if s < 0 else int(s) for s in stated[:, k]]) for k in range(len(self.acc))]

    def candidate(self, stated: np.ndarray, silence: int, disagreement: Sequence[float]) -> Candidate:
        """This turn's candidate contribution.

        Args:
            stated: (parties, topics) last stated option, -1 where a party has not spoken on a topic.
            silence: turns since this party last spoke.
            disagreement: per topic, share of pairs of stated stances that differ.
        """
        p = self.profile
        if p.probe > 0 and self.rng.random() < p.probe:
            self._probe(stated)
        best: tuple[float, int, int] | None = None
        prefs = []
        cols = [[None if s < 0 else s for s in row] for row in stated.T.tolist()]
        grievance, openness = self.grievance.tolist(), self.openness.tolist()
        # one draw per topic, in topic order (one call for all: the same numbers as one call each)
        jitter = self.rng.uniform(0.0, 0.15, size=len(self.acc)).tolist()
        for k in range(len(self.acc)):
            col = cols[k]
            pref = self._choose(k, col, max(0.0, openness[k] - grievance[k]) * self._priority_list[k])
            prefs.append(pref)
            novelty = 1.0 if col[self.index] is None or col[self.index] != pref else 0.0
            m = 0.25 + 0.35 * novelty + p.contest_weight * disagreement[k] + 0.3 * min(1.0, grievance[k])
            if self.invited == k:
                m += 0.5
            m += 0.02 * min(silence, 10) + jitter[k]
            if best is None or m > best[0]:
                best = (m, k, pref)
        self._prefs = (self.turn, stated.tobytes(), prefs)
        motivation, k, pref = best
        others = {s for j, s in enumerate(cols[k]) if j != self.index and s is not None}
        if pref != self.top[k] and pref in others:
            act, tone = "accept", "conciliatory"
        elif pref != self.top[k]:
            act, tone = "propose", "conciliatory"
        else:
            act = "propose"
            contested = disagreement[k] > 0.3 or self.grievance[k] > UPSET
            tone = "firm" if contested and self.rng.random() < p.firm else "neutral"
        return Candidate(self.index, k, pref, act, tone, min(1.0, motivation / 1.6))

    def _probe(self, stated: np.ndarray) -> None:
        """A tentative offer: lean towards the others' plurality on a topic where we hold out (it fades
        with :attr:`ModeProfile.tentative`). Trading a concession for a harder demand is :meth:`spoke`'s."""
        holdouts = []
        for k in range(len(self.acc)):
            h = self.holds(k, stated)
            if h["holdout"] and self.allowed[k][h["plurality"]]:
                holdouts.append((k, int(h["plurality"])))
        if not holdouts:
            return
        k, o = holdouts[int(self.rng.integers(len(holdouts)))]
        self.bonus[k][o] += 0.6

    # ------------------------------------------------------------------ reactions
    def spoke(self, topic: int, option: int | None = None) -> None:
        """The party has just spoken on ``topic`` for ``option``; a competing party may trade a concession."""
        if self.invited == topic:
            self.invited = None
        m = len(self.acc)
        if option is None or option == self.top[topic] or m < 2 or self.profile.trade <= 0:
            return
        if self.rng.random() < self.profile.trade:
            # "if we give on this, we need more on that": a harder demand on another topic
            others = [k for k in range(m) if k != topic]
            k2 = others[int(self.rng.integers(len(others)))]
            self.grievance[k2] += 0.6
            self.bonus[k2] *= 0.5

    def end_of_turn(
        self, speaker: int | None, topic: int | None, option: int | None, tone: str | None, own_stance: int | None
    ) -> bool:
        """Concede a little, take the mode's random step, let grievances fade; maybe harden after a
        firm statement contradicting us. True if hardened."""
        p = self.profile
        self.turn += 1
        # openness = a rising base (concession) + a mean-reverting deviation (the mode's volatility)
        self.base = self.base + p.drift
        self.deviation = (1.0 - REVERSION) * self.deviation + p.volatility * self.rng.standard_normal(
            len(self.openness)
        )
        self.openness = np.minimum(np.maximum(self.base + self.deviation, 0.0), MAX_OPENNESS)  # np.clip, faster
        self.grievance *= GRIEVANCE_DECAY
        if p.tentative < 1.0:
            self.bonus = [b * p.tentative for b in self.bonus]
        hardened = False
        if (
            speaker is not None
            and speaker != self.index
            and tone == "firm"
            and topic is not None
            and own_stance is not None
            and own_stance != option
        ):
            if self.rng.random() < p.harden:
                self.grievance[topic] += 0.5
                self.grievance += 0.15
                self.bonus = [b * 0.5 for b in self.bonus]
                self.hostility += 1
                hardened = True
        return hardened

    # ------------------------------------------------------------------ mediator moves
    def holds(self, topic: int, stated: np.ndarray) -> dict[str, bool | int | None]:
        """What the party holds on ``topic`` now: its preferred option, the others' plurality, whether it
        is a holdout, unheard, or upset."""
        col = [None if s < 0 else int(s) for s in stated[:, topic]]
        own = self.preferred(topic, col)
        others = [s for j, s in enumerate(col) if j != self.index and s is not None]
        plural = None
        if others:
            counts = np.bincount(others, minlength=len(self.acc[topic]))
            plural = int(np.argmax(counts))
        return {
            "own": own,
            "plurality": plural,
            "holdout": plural is not None and own != plural,
            "unheard": col[self.index] is None,
            "upset": bool(self.grievance[topic] > UPSET),
        }

    def acceptable(self, topic: int, option: int | None) -> bool:
        return option is not None and bool(self.allowed[topic][option]) and self.acc[topic][option] >= ACCEPTABLE

    def mediated(
        self,
        strategy: int,
        topic: int,
        target: int | None,
        option: int | None,
        stated: np.ndarray | None = None,
        silence: int = 0,
    ) -> bool:
        """React to a mediator's intervention; returns whether the party took it up (it helped).

        ``stated`` is the (parties, topics) matrix of stated stances (-1: none yet) and ``silence``
        the turns since this party last spoke. The reaction is kept in :attr:`last_reaction`.
        """
        p = self.profile
        k, name = topic, STRATEGIES[strategy]
        if stated is None:
            stated = np.full((self.n_parties, len(self.acc)), -1, dtype=np.int64)
        h = self.holds(k, stated)
        mine = target == self.index
        last = self.intervention_turns[-1] if self.intervention_turns else None
        too_soon = last is not None and self.turn - last < p.patience
        recent = sum(1 for t in self.intervention_turns if self.turn - t < FATIGUE_WINDOW)
        self.intervention_turns.append(self.turn)
        fits = misfit = False
        if name == "facilitative":
            fits = (mine and (bool(h["unheard"]) or silence > self.n_parties)) or (
                target is None and bool(h["unheard"])
            )
            misfit = mine and not fits and silence <= 1  # pressing someone who just spoke
        elif name == "evaluative":
            fits = mine and bool(h["holdout"]) and self.acceptable(k, option)
            misfit = mine and not fits  # reality-testing a party that agrees, or pushing what it blocks
        elif name == "transformative":
            fits = bool(h["upset"]) and (target is None or mine)
        elif name == "problem_solving":
            involved = bool(h["holdout"]) or bool(h["unheard"])
            fits = involved and self.acceptable(k, option)
            misfit = involved and option is not None and not self.allowed[k][option]
        react = p.reactance * (1.0 if misfit else 0.0)
        if too_soon:
            react = max(react, 0.5 * p.reactance)
        react = min(0.95, react + 0.1 * max(0, recent - FATIGUE_FREE))
        took_up = False
        if fits and self.rng.random() < self.receptiveness[strategy] * (0.5 if too_soon else 1.0):
            took_up = True
            self._help(name, k, option)
            self.last_reaction = "helped"
        elif react > 0 and self.rng.random() < react:
            self.grievance[k] += 0.4
            if too_soon:
                self.grievance += 0.1
            self.hostility += 1
            self.last_reaction = "reactance"
        else:
            self.last_reaction = "ignored" if fits else "no_fit"
        self.base = np.minimum(MAX_OPENNESS, self.base)
        self.openness = np.minimum(np.maximum(self.base + self.deviation, 0.0), MAX_OPENNESS)  # np.clip, faster
        return took_up

    def _help(self, name: str, k: int, option: int | None) -> None:
        if name == "facilitative":
            self.invited = k
            self.base[k] += 0.20
        elif name == "evaluative":
            self.base[k] += 0.50
        elif name == "transformative":
            self.grievance[k] *= 0.2
            self.grievance *= 0.7
            self.base[k] += 0.10
            self.hostility = 0
        elif name == "problem_solving":
            self.base[k] += 0.10
            if option is not None:
                self.bonus[k][option] += 0.35
