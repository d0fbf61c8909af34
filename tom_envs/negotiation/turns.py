"""How a negotiation turn is resolved (the turn-taking half of :class:`~tom_envs.negotiation.env.NegotiationEnv`):
every party offers a candidate, then the mediator's move (a conclusion or an intervention) or the most
motivated party's line goes into the transcript, consensus and the scripted parties' states move, and
the episode's rewards and summary come on the last turn."""

from __future__ import annotations

from collections import Counter
from typing import Any, Sequence

from tom_envs.negotiation.actions import MediatorMove, PartyMove
from tom_envs.negotiation.consensus import check_attitudes_full
from tom_envs.negotiation.metrics import STRATEGIES
from tom_envs.negotiation.parties import Candidate
from tom_envs.negotiation.templates import mediator_line, party_line

MEDIATOR = "mediator_0"
MEDIATOR_NAME = "Mediator"


class TurnResolution:
    """The turn resolution of :class:`~tom_envs.negotiation.env.NegotiationEnv` (a mixin: it works on the
    env's state, set by its ``reset``)."""

    def _resolve_turn(self) -> None:
        cands = self._candidates()
        move: MediatorMove = self._pending.get(MEDIATOR) or MediatorMove()
        self.resolve(stances=self.hidden_preferences())
        t = self.turn + 1
        if self._conclusion is not None:
            # the mediator closes the session (002's social mediator ends with a conclusion)
            self.events.append(
                {
                    "turn": t,
                    "speaker": MEDIATOR_NAME,
                    "seat": MEDIATOR,
                    "kind": "conclusion",
                    "topic": None,
                    "topic_index": None,
                    "text": self._conclusion,
                }
            )
            self.silence += 1
            self.concluded = t
            self._conclusion = None
        elif move.strategy is not None:
            self._intervene(move, t)
        else:
            self._party_speaks(cands, t)
        self.tracker.record()
        self.turn = t
        self._pending = {}
        ended = self.turn >= self.budget or self.concluded is not None
        if ended:
            # one reward per seat, when the episode ends: a per-turn change would depend on the attitudes
            # of parties who have not spoken yet (their hidden first choices; the information rule)
            after = self._stakes()
            for a in self.agents:
                i = None if a == MEDIATOR else int(a.split("_")[1])
                self.rewards[a] = float(
                    self.tracker.overall - self._start_consensus if i is None else after[i] - self._start_stakes[i]
                )
            self.terminations = {a: True for a in self.agents}
        self.infos = {a: self._info(a) for a in self.agents}
        if ended:
            summary = self.episode_summary()
            for a in self.agents:
                self.infos[a]["episode"] = summary

    def _candidates(self) -> list[Candidate | None]:
        disagreement = self._disagreement()
        out: list[Candidate | None] = []
        for i in range(self.n):
            if i in self.parties:
                out.append(self.parties[i].candidate(self.stated, int(self.silence[i]), disagreement))
            else:
                mv: PartyMove | None = self._pending.get(f"party_{i}")
                out.append(None if mv is None else Candidate(i, mv.topic, mv.option, mv.act, mv.tone, mv.motivation))
        self._external_text = {
            i: self._pending[f"party_{i}"].utterance
            for i in self.external
            if self._pending.get(f"party_{i}") is not None
        }
        return out

    def _disagreement(self) -> list[float]:
        out = []
        for k in range(self.m):
            col = [int(s) for s in self.stated[:, k] if s >= 0]
            if len(col) < 2:
                out.append(0.5)
                continue
            pairs_ = [(a, b) for x, a in enumerate(col) for b in col[x + 1 :]]
            out.append(sum(a != b for a, b in pairs_) / len(pairs_))
        return out

    def _party_speaks(self, cands: Sequence[Candidate | None], t: int) -> None:
        last = self.events[-1] if self.events else None
        previous = last.get("party") if last is not None else None
        # a scripted party never speaks twice in a row (the release's turn allocation; a seat's own agent
        # decides for itself: the LLM parties' team applies the same rule)
        live = [c for c in cands if c is not None and (c.party != previous or c.party in self.external)]
        if not live:
            self.events.append(
                {
                    "turn": t,
                    "speaker": "(nobody)",
                    "seat": "",
                    "kind": "silence",
                    "topic": None,
                    "topic_index": None,
                    "text": "(a pause; nobody speaks)",
                }
            )
            self.silence += 1
            self._end_of_turn(None, None, None, None)
            return
        c = max(live, key=lambda c: (c.motivation, -c.party))
        i, k, o = c.party, c.topic, c.option
        topic = self.scenario.topics[k]
        own = self._external_text.get(i)
        text = own or party_line(c.act, c.tone, topic.name, topic.option_text(o), t)
        event = {
            "turn": t,
            "speaker": self.scenario.parties[i].name,
            "seat": f"party_{i}",
            "party": i,
            "kind": c.act,
            "topic": topic.name,
            "topic_index": k,
            "option": topic.options[o].label,
            "tone": c.tone,
            "text": text,
        }
        stances = {k: o}
        if self.extractor is not None and (own is not None or self.extract_from == "all"):
            stances = self._extract(i, k, o, text, event)
        self.events.append(event)
        self.repeats[i] = self.repeats[i] + 1 if self.last_statement[i] == (k, o) else 0
        self.last_statement[i] = (k, o)
        for kk, oo in stances.items():
            self.stated[i, kk] = oo
            self.tracker.update(i, kk, oo)
            if oo in self.tracker.blocked[i][kk]:  # kept for the summary; never in the public event
                self.blocked_stances.append(
                    {
                        "turn": t,
                        "party": event["speaker"],
                        "topic": self.scenario.topics[kk].name,
                        "option": self.scenario.topics[kk].options[oo].label,
                    }
                )
        for kk in set(stances) | {k} | set(event.get("proposal_topics", ())):
            self.mentions[kk] += 1
            self.mention_turns[kk].append(t)
        self.silence += 1
        self.silence[i] = 0
        if i in self.parties:
            self.parties[i].spoke(k, o)
        self._end_of_turn(i, k, int(self.tracker.attitudes[i, k]), c.tone)

    def _extract(self, i: int, k: int, o: int, text: str, event: dict[str, Any]) -> dict[int, int]:
        """The attitudes ``text`` supports, by the extractor; audited against the structured stance."""
        name = getattr(self.extractor, "name", type(self.extractor).__name__)
        got, proposed = check_attitudes_full(self.scenario, self.extractor(i, text), f"attitude_extractor {name!r}")
        stances = {kk: oo for kk, oo in got.items() if oo is not None}
        if proposed:  # options proposed mid-conversation, in the party's words (no label of the scenario)
            event["proposals"] = {self.scenario.topics[kk].name: p for kk, p in proposed.items()}
            event["proposal_topics"] = sorted(proposed)
            self.proposals += [
                {"turn": event["turn"], "party": event["speaker"], "topic": self.scenario.topics[kk].name, "text": p}
                for kk, p in proposed.items()
            ]
            self.extraction["proposals"] = self.extraction.get("proposals", 0) + len(proposed)
        ex = self.extraction
        ex["lines"] += 1
        ex["agree" if stances.get(k) == o else "not_addressed" if k not in stances else "other_option"] += 1
        ex["extra_topics"] += len(set(stances) - {k})
        event["attitudes"] = {
            self.scenario.topics[kk].name: self.scenario.topics[kk].options[oo].label for kk, oo in stances.items()
        }
        return stances

    def _end_of_turn(self, speaker: int | None, topic: int | None, option: int | None, tone: str | None) -> None:
        for j, party in self.parties.items():
            own = None if topic is None else int(self.tracker.attitudes[j, topic])
            if party.end_of_turn(speaker, topic, option, tone, own):
                self.hardened_turns.append(self.turn + 1)

    def _intervene(self, move: MediatorMove, t: int) -> None:
        k, s = move.topic, move.strategy
        ctx = self.context()
        option = move.option if move.option is not None else self._stated_plurality(k)
        topic = self.scenario.topics[k]
        target_name = None if move.target is None else self.scenario.parties[move.target].name
        text = move.utterance or mediator_line(
            STRATEGIES[s], topic.name, None if option is None else topic.option_text(option), target_name or "", t
        )
        uptake = {
            self.scenario.parties[i].name: p.mediated(s, k, move.target, option, self.stated, int(self.silence[i]))
            for i, p in self.parties.items()
        }
        reactance = [self.scenario.parties[i].name for i, p in self.parties.items() if p.last_reaction == "reactance"]
        self.events.append(
            {
                "turn": t,
                "speaker": MEDIATOR_NAME,
                "seat": MEDIATOR,
                "kind": "intervention",
                "strategy": STRATEGIES[s],
                "topic": topic.name,
                "topic_index": k,
                "target": target_name,
                "option": None if option is None else topic.options[option].label,
                "text": text,
            }
        )
        # the judge sees the intervention's words (in events, and as "text")
        mi = self.judge({"topic": k, "strategy": STRATEGIES[s], "target": move.target, "text": text}, ctx)
        self.interventions.append(
            {
                "turn": t,
                "topic": topic.name,
                "topic_index": k,
                "strategy": STRATEGIES[s],
                "target": target_name,
                "mi": mi,
                "uptake": uptake,
                "reactance": reactance,
            }
        )
        self.mediator_turns.append(t)
        self.mentions[k] += 1
        self.mention_turns[k].append(t)
        self.silence += 1
        self._end_of_turn(None, None, None, None)

    def _stated_plurality(self, k: int) -> int | None:
        """The option an intervention without one points to: the plurality of the parties' *stated*
        stances on topic ``k`` (ties: lowest index), None when nobody has stated one (never a hidden
        first choice: the information rule)."""
        col = [int(s) for s in self.stated[:, k] if s >= 0]
        if not col:
            return None
        counts = Counter(col)
        return min(counts, key=lambda o: (-counts[o], o))
