"""Multi-party negotiation with an optional mediator seat (002's ProMediate as PettingZoo AEC)."""

from __future__ import annotations

import math
from collections import Counter
from typing import Any, Callable, Mapping, Sequence

import numpy as np
from gymnasium import logger, spaces

from tom_envs.aec import TomAECEnv
from tom_envs.errors import ResetNeeded, UnsupportedRenderMode, require_bool
from tom_envs.negotiation.actions import (MediatorMove, PartyMove, pairs, parse_mediator, parse_party,
                                          parse_stance_prediction, stance_table)
from tom_envs.negotiation.consensus import AgreementFn, AttitudeExtractor, ConsensusTracker, check_attitudes_full
from tom_envs.negotiation.errors import NegotiationActionError, NegotiationConfigError
from tom_envs.negotiation.metrics import (METRIC_DEFINITIONS, STRATEGIES, InterventionContext, RuleBasedJudge,
                                          consensus_change, drop_events, mean_defined, mediator_effectiveness,
                                          release_consensus_change, release_mediator_effectiveness,
                                          release_response_latencies, release_topic_level_efficiency,
                                          response_latencies, topic_level_efficiency)
from tom_envs.negotiation.parties import Candidate, ScriptedParty
from tom_envs.negotiation.render import seat_text
from tom_envs.negotiation.scenario import (CONFLICT_MODES, DIFFICULTY_MODES, MAX_TURN_BUDGET, Scenario,
                                          resolve_scenario)
from tom_envs.negotiation.templates import mediator_line, party_line
from tom_envs.scoring import NOT_PREDICTED
from tom_envs.tom import ToMSpec

MEDIATOR = "mediator_0"
MEDIATOR_NAME = "Mediator"
#: the functional outcome (``tom_outcome()``): overall consensus now, its change since the start, and 002's metrics
OUTCOME = ("consensus", "consensus_gain", "cc", "tle_mean", "rl_mean", "me_mean", "mi_mean")


class NegotiationEnv(TomAECEnv):
    """N parties negotiate M topics; an optional mediator seat decides when and how to intervene.

    Every conversation turn, each party offers a candidate contribution (a topic, an option, a
    motivation score: Inner Thoughts turn taking; the score stays private, only the line is
    public). Then the mediator seat decides whether to intervene, with one of 002's four
    strategies on one topic. If it does, it speaks and the parties wait; otherwise the most
    motivated party speaks (ties: lowest index; a scripted party never right after itself, as in
    the release's turn allocation) and its stated option becomes its attitude on that topic -- or, with an ``attitude_extractor``, the options its spoken
    text supports on every topic it addresses. Parties not given to external agents are scripted
    utility-based negotiators (:mod:`tom_envs.negotiation.parties`) whose conflict mode sets how
    they concede, and who take up mediator moves with a hidden per-strategy receptiveness. Consensus
    is tracked after every turn (:mod:`tom_envs.negotiation.consensus`).

    ## Agents
    ``party_i`` for each party in ``party_seats`` (default none: all parties scripted), then
    ``mediator_0`` when ``mediator=True`` (default). In every turn the seats act once, in that
    order; the turn is resolved after the last seat acts.

    ## Action Space
    ``party_i``: ``Discrete(1 + 2K)`` over the K (topic, option) pairs; ``mediator_0``:
    ``Discrete(1 + 4M)``. Both also accept structured dicts with an utterance; see
    :mod:`tom_envs.negotiation.actions`. An intervention without an option (every integer code)
    points to the plurality of the parties' *stated* stances on its topic (ties: lowest index), and
    to no option when nobody has stated one yet -- as ProMediate-Eval's mediator, which knows only
    the conversation. The mediator's literal-ToM prediction is not an action: it goes to
    ``wrappers.AECToMRecorder.record_prediction`` (the v0 ``prediction`` key is an error). A
    malformed action raises :class:`~tom_envs.negotiation.errors.NegotiationActionError`.

    ## Observation Space
    The same int64 ``Box`` for every seat, a vector of: seat (N = mediator), turn, turns left,
    last speaker (N mediator, N+1 nobody), last topic (M none), last strategy (4 none), the N*M
    last stated options (S = not stated yet; S = most options of a topic), the seat's own rank of
    every option as M*S entries (S for "no such option" and for the mediator), and for each party
    the turns since it last spoke. The text form for LLMs is ``env.text(agent)``; wrap the env in
    ``wrappers.AECTextObservation`` to observe it (the text convention of :mod:`tom_envs.tom`).

    ## Rewards
    Given once, on the step that resolves the last turn (0 before): ``mediator_0`` gets the
    final minus the initial overall consensus; ``party_i`` the final minus the initial mean
    acceptability, to it, of the group's plurality attitude per topic (ties: lowest index). The
    returns are those of v0's per-turn changes; a per-turn change would tell a seat the hidden
    first choices of parties who have not spoken yet (the information rule).

    ## Episode End
    All seats terminate after the turn budget (``scenario.budget``: proportional to parties x
    topics, at least 20), or after the turn in which the mediator closes the session with a
    conclusion (``{"conclude": true, "utterance": ...}``; the summary's ``concluded`` is that turn). ``step`` before ``reset`` raises :class:`~tom_envs.errors.ResetNeeded`;
    with no agents left, :class:`~tom_envs.errors.EpisodeEnded`.

    ## Arguments
    * ``scenario``: a built-in name (default ``"hopkins_hmo"``), a file path, a dict or a
      :class:`~tom_envs.negotiation.scenario.Scenario`.
    * ``conflict_mode``: ``"accommodating"``, ``"avoiding"``, ``"general"`` or ``"competing"``
      for every scripted party; else ``difficulty`` (``"easy"``: drawn at each reset from
      accommodating / avoiding; ``"medium"``: general; ``"hard"``: competing); else the
      scenario's default mode.
    * ``mediator``: whether the ``mediator_0`` seat exists (default True; without it at least one
      party seat is needed). A bool only (else :class:`~tom_envs.errors.InvalidFlag`).
    * ``party_seats``: ``"all"`` or indices / names of parties played by external agents.
    * ``turn_budget``: overrides the scenario's budget (>= 20).
    * ``agreement``: a pairwise agreement function replacing the structural formula.
    * ``attitude_extractor``: ``extractor(party, text) -> {topic: option | None}`` reading the
      attitudes from what a party said (an LLM judge such as
      :class:`policies.negotiation.llm.LLMAttitudeExtractor`, or the rule-based
      :class:`~tom_envs.negotiation.consensus.KeywordAttitudeExtractor`). Default None: the
      structured stance is the attitude (exact).
    * ``extract_from``: whose lines go through the extractor: ``"agents"`` (default; text that a
      party seat's agent wrote itself, the other lines keep their exact stance) or ``"all"`` (also
      the scripted parties' template lines, to audit an extractor against known stances).
    * ``mi_judge``: a mediator-intelligence judge (default :class:`RuleBasedJudge`, rule based);
      called after the intervention is in ``events``, with its ``text`` in the intervention dict.
    * ``metrics``: ``"release"`` (default: the definitions of ProMediate-Eval's
      ``scripts/evaluation.py``) or ``"paper"`` (002's §3.3 text) for the ``cc``, ``tle``, ``rl``,
      ``me`` keys; the summary names the choice (``metric_definitions``) and gives the other one's
      values under ``other_definitions`` (see :mod:`tom_envs.negotiation.metrics`).
    * ``render_mode``: ``"ansi"`` returns the transcript.

    ## Info
    Every seat: ``turn``, ``state`` (public: topics, options, parties, stated stances, silence, the
    typed transcript ``events`` with speaker, seat, kind (act), topic, option (None for an
    intervention pointing to none), strategy, target, tone, text; with an extractor, a party line's
    event also has ``attitudes``: the extracted option label per addressed topic). Party seats also
    get ``self`` (their own profile). Nothing a seat is given before the end -- observation, info,
    reward, text -- shows another party's private preferences or unstated first choices, its
    currently preferred options, or a party's internal scores (motivation, receptiveness, grievance,
    openness): the information rule. The mediator's literal-ToM score is the recorder's, out of
    band. The seat's text for LLMs (once ``text`` here) is :meth:`text`. When the
    episode ends every seat gets ``episode``: the consensus trajectories, CC, TLE, drop events, RL,
    per-intervention ME and MI (with the judge's name, each party's uptake and reactance), the
    final attitudes and hidden receptiveness of each scripted party, the attitude source, and with
    an extractor its audit
    ``extraction``: lines read, and how often the extracted option on the line's own topic agreed
    with the structured stance, differed, or was missing.

    ## ToM contract
    :mod:`tom_envs.tom`: the predictor is ``mediator_0`` (None without a mediator seat); its one
    literal-ToM target is ``stances``, ``MultiDiscrete`` of shape (parties, topics): each party's
    currently preferred option per topic (:meth:`hidden_preferences`) at the start of the turn;
    a prediction holds ``NOT_PREDICTED`` (-1) in the cells it leaves out (:meth:`stance_prediction`
    converts the action dict's form).
    ``tom_truth()`` is ``{"stances": array}`` after the step that resolves a turn, else empty.
    ``tom_outcome()``: :data:`OUTCOME` -- overall ``consensus`` now, ``consensus_gain`` since the
    start, and 002's ``cc``, ``tle_mean``, ``rl_mean``, ``me_mean``, ``mi_mean`` so far (as in
    ``episode``). Score with ``wrappers.AECToMRecorder``.

    ## Version History
    * v1: the information rule (issue 24). An intervention without an option points to the plurality
      of the *stated* stances, or to none when nobody has stated one (v0 filled it from the parties'
      hidden first choices and published it in the event and the line); party lines no longer carry
      the speaker's motivation score; the action dict's ``prediction`` key and its correct/total
      feedback in the mediator's ``info["tom"]`` (and the summary's ``tom_accuracy`` /
      ``tom_predictions``) are gone -- score predictions with ``wrappers.AECToMRecorder``; rewards come
      once, at the end (same returns); ``mediator`` takes a bool only.
    * v0: initial version (002's scenarios, conflict modes, strategies and metrics).
    """

    metadata = {"name": "tom_negotiation_v1", "render_modes": ["ansi"], "is_parallelizable": True}
    episode_over = "the negotiation is over; call env.reset() to start another."

    def __init__(self, scenario: "str | Scenario | dict" = "hopkins_hmo", conflict_mode: str | None = None,
                 difficulty: str | None = None, mediator: bool = True, party_seats: "str | Sequence[int | str]" = (),
                 turn_budget: int | None = None, agreement: AgreementFn | None = None,
                 mi_judge: Callable[..., dict] | None = None, attitude_extractor: AttitudeExtractor | None = None,
                 extract_from: str = "agents", render_mode: str | None = None, metrics: str = "release") -> None:
        super().__init__()
        if metrics not in METRIC_DEFINITIONS:
            raise NegotiationConfigError(f"metrics must be one of {METRIC_DEFINITIONS}, got {metrics!r}")
        self.metric_definitions = metrics
        self.scenario = resolve_scenario(scenario)
        unparsed = [t.name for t in self.scenario.topics if t.options_unparsed]
        if unparsed:
            raise NegotiationConfigError(f"topics {unparsed} have options kept as plain text (import warning); write "
                                         "their options and each party's ranking into the scenario file first")
        self._modes = _modes(conflict_mode, difficulty, self.scenario.conflict_mode)
        if render_mode not in (None, "ansi"):
            raise UnsupportedRenderMode(f"render_mode must be 'ansi' or None, got {render_mode!r}")
        if turn_budget is not None and (isinstance(turn_budget, bool) or not isinstance(turn_budget, int)
                                        or not 20 <= turn_budget <= MAX_TURN_BUDGET):
            raise NegotiationConfigError(f"turn_budget must be an integer from 20 (CC compares two 10-turn windows) to "
                                         f"{MAX_TURN_BUDGET}, got {turn_budget!r}")
        self.render_mode = render_mode
        self.budget = turn_budget or self.scenario.budget
        self.agreement = agreement
        if attitude_extractor is not None and not callable(attitude_extractor):
            raise NegotiationConfigError("attitude_extractor must be callable as extractor(party, text) -> "
                                         f"{{topic: option or None}}, got {type(attitude_extractor).__name__}")
        if extract_from not in ("agents", "all"):
            raise NegotiationConfigError(f"extract_from must be 'agents' or 'all', got {extract_from!r}")
        self.extractor = attitude_extractor
        self.extract_from = extract_from
        self.judge = mi_judge or RuleBasedJudge()
        self.n, self.m = len(self.scenario.parties), len(self.scenario.topics)
        self.s_max = max(len(t.options) for t in self.scenario.topics)
        self.external = _seats(party_seats, self.scenario)
        self.has_mediator = require_bool("mediator", mediator)
        if not self.has_mediator and not self.external:
            raise NegotiationConfigError("with mediator=False at least one party seat is needed "
                                         "(party_seats='all' or a list); for a NoAgent baseline keep the mediator "
                                         "seat and let it always pass")
        self.possible_agents = [f"party_{i}" for i in self.external] + ([MEDIATOR] if self.has_mediator else [])
        high = self._obs_high()
        obs_space = spaces.Box(0, high, shape=high.shape, dtype=np.int64)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        n_pairs = len(pairs(self.scenario))
        self.action_spaces = {a: spaces.Discrete(1 + 4 * self.m) if a == MEDIATOR else spaces.Discrete(1 + 2 * n_pairs)
                              for a in self.possible_agents}
        self._rank_rows = {i: self._rank_row(i) for i in range(self.n)}
        # one more value per cell, starting at NOT_PREDICTED: a prediction may leave cells out
        values = np.array([[1 + len(t.options) for t in self.scenario.topics]] * self.n, dtype=np.int64)
        stances = spaces.MultiDiscrete(values, start=np.full(values.shape, NOT_PREDICTED, dtype=np.int64))
        self.tom_spec = ToMSpec(targets={"stances": stances}, outcome=OUTCOME,
                                predictor=MEDIATOR if self.has_mediator else None)

    # ------------------------------------------------------------------ spaces
    def _obs_high(self) -> np.ndarray:
        n, m, s, t = self.n, self.m, self.s_max, self.budget
        return np.array([n, t, t, n + 1, m, len(STRATEGIES)] + [s] * (n * m) + [s] * (m * s) + [t] * n, dtype=np.int64)

    def _rank_row(self, party: int | None) -> np.ndarray:
        row = np.full((self.m, self.s_max), self.s_max, dtype=np.int64)
        if party is not None:
            for k in range(self.m):
                ranks = self.scenario.rank_matrix(party, k)
                row[k, : len(ranks)] = ranks
        return row.ravel()

    # ------------------------------------------------------------------ reset / step
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        rng = self.reseed(seed)
        self.conflict_mode = self._modes[int(rng.integers(len(self._modes)))] if len(self._modes) > 1 else self._modes[0]
        seeds = rng.integers(0, 2**63 - 1, size=self.n)
        self.parties = {i: ScriptedParty(self.scenario, i, self.conflict_mode, np.random.default_rng(int(seeds[i])))
                        for i in range(self.n) if i not in self.external}
        self.tracker = ConsensusTracker(self.scenario, self.agreement)
        self.stated = np.full((self.n, self.m), -1, dtype=np.int64)
        self.silence = np.zeros(self.n, dtype=np.int64)
        self.last_statement: list[tuple[int, int] | None] = [None] * self.n
        self.repeats = np.zeros(self.n, dtype=np.int64)
        self.mentions = np.zeros(self.m, dtype=np.int64)
        self.mention_turns: list[list[int]] = [[] for _ in range(self.m)]
        self.proposals: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []
        self.interventions: list[dict[str, Any]] = []
        self.mediator_turns: list[int] = []
        self.hardened_turns: list[int] = []
        self.extraction = {"lines": 0, "agree": 0, "other_option": 0, "not_addressed": 0, "extra_topics": 0}
        self.turn = 0
        self.concluded: int | None = None  # the turn the mediator closed the session with a conclusion
        self._conclusion: str | None = None
        self._pending: dict[str, Any] = {}
        # the values the rewards start from (the rewards come back once, when the episode ends)
        self._start_consensus = self.tracker.overall
        self._start_stakes = self._stakes()
        self.start_episode()
        self.infos = {a: self._info(a) for a in self.agents}

    def play(self, agent: str, action: Any) -> None:
        if agent == MEDIATOR:
            self._conclusion = _conclusion(action, agent)
            self._pending[agent] = parse_mediator(action, self.scenario, agent)
        else:
            self._pending[agent] = parse_party(action, self.scenario, agent)
        order = self.agents
        idx = order.index(agent)
        if idx + 1 < len(order):
            self.agent_selection = order[idx + 1]
        else:
            self._resolve_turn()
            self.agent_selection = order[0]

    def last(self, observe: bool = True) -> tuple:
        """PettingZoo's ``last``; before the first ``reset`` a :class:`~tom_envs.errors.ResetNeeded`."""
        if not self.started:
            raise ResetNeeded("last() was called before reset(); call env.reset(seed=...) first.")
        return super().last(observe)

    def observe(self, agent: str) -> np.ndarray:
        if not self.started:
            raise ResetNeeded("observe() was called before reset(); call env.reset(seed=...) first.")
        seat = self.n if agent == MEDIATOR else int(agent.split("_")[1])
        last = self.events[-1] if self.events else None
        speaker = self.n + 1 if last is None else (self.n if last["seat"] == MEDIATOR else last.get("party", self.n + 1))
        topic = self.m if last is None or last.get("topic_index") is None else last["topic_index"]
        strategy = len(STRATEGIES) if last is None or last.get("strategy") is None else STRATEGIES.index(last["strategy"])
        stated = np.where(self.stated < 0, self.s_max, self.stated).ravel()
        rank = self._rank_rows.get(seat) if seat < self.n else self._rank_row(None)
        head = np.array([seat, self.turn, self.budget - self.turn, speaker, topic, strategy], dtype=np.int64)
        return np.concatenate([head, stated, rank, np.minimum(self.silence, self.budget)]).astype(np.int64)

    def text(self, agent: str) -> str:
        """What an LLM in ``agent``'s seat reads now: its role, the case, the topics, its own preferences
        (party seats) and the transcript (:func:`~tom_envs.negotiation.render.seat_text`)."""
        party = None if agent == MEDIATOR else int(agent.split("_")[1])
        return seat_text(self.scenario, agent, party, self.events, self.budget - self.turn,
                         getattr(self, "conflict_mode", None))

    def render(self) -> str | None:
        if self.render_mode is None:
            logger.warn("render() was called without a render_mode; pass render_mode='ansi'.")
            return None
        if not self.started:
            return ""
        return "\n".join(f"[{e['turn']}] {e['speaker']}: {e['text']}" for e in self.events)

    # ------------------------------------------------------------------ a turn
    def _resolve_turn(self) -> None:
        cands = self._candidates()
        move: MediatorMove = self._pending.get(MEDIATOR) or MediatorMove()
        self.resolve(stances=self.hidden_preferences())
        t = self.turn + 1
        if self._conclusion is not None:
            # the mediator closes the session (002's social mediator ends with a conclusion)
            self.events.append({"turn": t, "speaker": MEDIATOR_NAME, "seat": MEDIATOR, "kind": "conclusion",
                                "topic": None, "topic_index": None, "text": self._conclusion})
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
                self.rewards[a] = float(self.tracker.overall - self._start_consensus if i is None
                                        else after[i] - self._start_stakes[i])
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
        self._external_text = {i: self._pending[f"party_{i}"].utterance for i in self.external
                               if self._pending.get(f"party_{i}") is not None}
        return out

    def _disagreement(self) -> list[float]:
        out = []
        for k in range(self.m):
            col = [int(s) for s in self.stated[:, k] if s >= 0]
            if len(col) < 2:
                out.append(0.5)
                continue
            pairs_ = [(a, b) for x, a in enumerate(col) for b in col[x + 1:]]
            out.append(sum(a != b for a, b in pairs_) / len(pairs_))
        return out

    def _party_speaks(self, cands: Sequence[Candidate | None], t: int) -> None:
        last = self.events[-1] if self.events else None
        previous = last.get("party") if last is not None else None
        # a scripted party never speaks twice in a row (the release's turn allocation; a seat's own agent
        # decides for itself: the LLM parties' team applies the same rule)
        live = [c for c in cands if c is not None and (c.party != previous or c.party in self.external)]
        if not live:
            self.events.append({"turn": t, "speaker": "(nobody)", "seat": "", "kind": "silence", "topic": None,
                                "topic_index": None, "text": "(a pause; nobody speaks)"})
            self.silence += 1
            self._end_of_turn(None, None, None, None)
            return
        c = max(live, key=lambda c: (c.motivation, -c.party))
        i, k, o = c.party, c.topic, c.option
        topic = self.scenario.topics[k]
        own = self._external_text.get(i)
        text = own or party_line(c.act, c.tone, topic.name, topic.option_text(o), t)
        event = {"turn": t, "speaker": self.scenario.parties[i].name, "seat": f"party_{i}", "party": i,
                 "kind": c.act, "topic": topic.name, "topic_index": k, "option": topic.options[o].label,
                 "tone": c.tone, "text": text}
        stances = {k: o}
        if self.extractor is not None and (own is not None or self.extract_from == "all"):
            stances = self._extract(i, k, o, text, event)
        self.events.append(event)
        self.repeats[i] = self.repeats[i] + 1 if self.last_statement[i] == (k, o) else 0
        self.last_statement[i] = (k, o)
        for kk, oo in stances.items():
            self.stated[i, kk] = oo
            self.tracker.update(i, kk, oo)
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
            self.proposals += [{"turn": event["turn"], "party": event["speaker"],
                                "topic": self.scenario.topics[kk].name, "text": p} for kk, p in proposed.items()]
            self.extraction["proposals"] = self.extraction.get("proposals", 0) + len(proposed)
        ex = self.extraction
        ex["lines"] += 1
        ex["agree" if stances.get(k) == o else "not_addressed" if k not in stances else "other_option"] += 1
        ex["extra_topics"] += len(set(stances) - {k})
        event["attitudes"] = {self.scenario.topics[kk].name: self.scenario.topics[kk].options[oo].label
                              for kk, oo in stances.items()}
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
        text = move.utterance or mediator_line(STRATEGIES[s], topic.name,
                                               None if option is None else topic.option_text(option),
                                               target_name or "", t)
        uptake = {self.scenario.parties[i].name: p.mediated(s, k, move.target, option, self.stated, int(self.silence[i]))
                  for i, p in self.parties.items()}
        reactance = [self.scenario.parties[i].name for i, p in self.parties.items() if p.last_reaction == "reactance"]
        self.events.append({"turn": t, "speaker": MEDIATOR_NAME, "seat": MEDIATOR, "kind": "intervention",
                            "strategy": STRATEGIES[s], "topic": topic.name, "topic_index": k, "target": target_name,
                            "option": None if option is None else topic.options[option].label, "text": text})
        # the judge sees the intervention's words (in events, and as "text")
        mi = self.judge({"topic": k, "strategy": STRATEGIES[s], "target": move.target, "text": text}, ctx)
        self.interventions.append({"turn": t, "topic": topic.name, "topic_index": k, "strategy": STRATEGIES[s],
                                   "target": target_name, "mi": mi, "uptake": uptake, "reactance": reactance})
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

    def _stakes(self) -> list[float]:
        """Each party's mean acceptability of the plurality attitude per topic."""
        acc = self.tracker.acceptability
        plural = []
        for k in range(self.m):
            counts = Counter(int(s) for s in self.tracker.attitudes[:, k])
            plural.append(min(counts, key=lambda o: (-counts[o], o)))
        return [float(np.mean([acc(i, k)[plural[k]] for k in range(self.m)])) for i in range(self.n)]

    # ------------------------------------------------------------------ literal ToM
    def hidden_preferences(self) -> np.ndarray:
        """(parties, topics): each party's currently preferred option (the literal-ToM target)."""
        out = np.array(self.tracker.attitudes, copy=True)
        for i, p in self.parties.items():
            for k in range(self.m):
                out[i, k] = p.preferred(k, [None if s < 0 else int(s) for s in self.stated[:, k]])
        for i in self.external:
            mv = self._pending.get(f"party_{i}")
            if mv is not None:
                out[i, mv.topic] = mv.option
        return out

    def tom_outcome(self) -> dict[str, Any]:
        """Consensus now and its gain since the start, and 002's metrics so far (:data:`OUTCOME`)."""
        if not self.started:
            return dict.fromkeys(OUTCOME)
        m = self._metrics()
        hist = self.tracker.history
        return {"consensus": hist[-1], "consensus_gain": hist[-1] - hist[0], "cc": m["cc"], "tle_mean": m["tle_mean"],
                "rl_mean": m["rl_mean"], "me_mean": m["me_mean"], "mi_mean": m["mi_mean"]}

    def stance_prediction(self, prediction: Mapping[Any, Mapping[Any, Any]]) -> np.ndarray:
        """A prediction in the action dict's form, ``{party: {topic: option}}`` (names, labels or
        indices), as a value of the ``stances`` target: a (parties, topics) array holding
        ``NOT_PREDICTED`` (-1) where it says nothing.

        Raises:
            NegotiationActionError: an unknown party, topic or option.
        """
        return stance_table(parse_stance_prediction(dict(prediction), self.scenario, "prediction"), self.scenario)

    # ------------------------------------------------------------------ context and summary
    def context(self) -> InterventionContext:
        """What is going wrong now (for the MI judge; built from the env's full record)."""
        hist = self.tracker.topic_history
        now = hist[-1]
        recent = hist[-6:]
        drops = tuple(k for k in range(self.m) if max(h[k] for h in recent) - now[k] > 0.1)
        stalled = tuple(k for k in range(self.m) if len(hist) >= 7 and now[k] < 1.0
                        and all(abs(h[k] - now[k]) < 1e-12 for h in hist[-7:]))
        hostile = any(e.get("tone") == "firm" for e in self.events[-3:]) or any(
            t > self.turn - 3 for t in self.hardened_turns)
        silent = tuple(i for i in range(self.n) if self.turn >= self.n and self.silence[i] > 2 * self.n
                       or (self.turn >= self.n and self.last_statement[i] is None))
        repeating = tuple(int(i) for i in np.flatnonzero(self.repeats >= 1))
        return InterventionContext(tuple(now), drops, hostile, stalled, repeating, silent)

    def _metrics(self) -> dict[str, Any]:
        """002's metrics of the episode so far (each intervention also gets its ``me``)."""
        hist = self.tracker.history
        topic_hist = self.tracker.topic_history
        names = [t.name for t in self.scenario.topics]
        series = [[h[k] for h in topic_hist] for k in range(self.m)]
        paper_tle = {names[k]: topic_level_efficiency(topic_hist[0][k], topic_hist[-1][k], int(self.mentions[k]))
                     for k in range(self.m)}
        release_tle = {names[k]: release_topic_level_efficiency(series[k], self.mention_turns[k]) for k in range(self.m)}
        paper_rl = response_latencies(hist, self.mediator_turns)
        release_rl = [float(x) for x in release_response_latencies(hist, self.mediator_turns)]
        paper_me, release_me = [], []
        for iv in self.interventions:
            iv["me_paper"] = mediator_effectiveness(series[iv["topic_index"]], iv["turn"])
            iv["me_release"] = release_mediator_effectiveness(series[iv["topic_index"]], iv["turn"])
            paper_me.append(iv["me_paper"])
            release_me.append(iv["me_release"])
        finite = [x for x in paper_rl if math.isfinite(x)]
        paper = {"cc": consensus_change(hist), "tle": paper_tle, "tle_mean": mean_defined(list(paper_tle.values())),
                 "rl": paper_rl, "rl_mean": float(np.mean(finite)) if finite else None,
                 "rl_unanswered": len(paper_rl) - len(finite), "me_mean": mean_defined(paper_me)}
        release = {"cc": release_consensus_change(hist), "tle": release_tle,
                   "tle_mean": float(np.mean(list(release_tle.values()))), "rl": release_rl,
                   "rl_mean": float(np.mean(release_rl)) if release_rl else None, "rl_unanswered": None,
                   "me_mean": mean_defined(release_me)}
        chosen, other = (release, paper) if self.metric_definitions == "release" else (paper, release)
        for iv in self.interventions:
            iv["me"] = iv[f"me_{self.metric_definitions}"]
        return {**chosen, "mi_mean": mean_defined([iv["mi"]["mean"] for iv in self.interventions]),
                "other": {k: v for k, v in other.items() if k not in ("tle", "rl")}}

    def episode_summary(self) -> dict[str, Any]:
        """All of 002's metrics for the episode so far (JSON-serialisable; inf latencies as None)."""
        hist = self.tracker.history
        topic_hist = self.tracker.topic_history
        names = [t.name for t in self.scenario.topics]
        m = self._metrics()
        return {
            "scenario": self.scenario.name, "conflict_mode": self.conflict_mode, "turns": self.turn,
            "concluded": self.concluded,
            "parties": self.n, "topics": names, "mediator": self.has_mediator,
            "consensus": [round(x, 6) for x in hist],
            "topic_consensus": {names[k]: [round(h[k], 6) for h in topic_hist] for k in range(self.m)},
            "metric_definitions": self.metric_definitions,
            "other_definitions": {"name": "paper" if self.metric_definitions == "release" else "release",
                                  **m["other"]},
            "cc": m["cc"], "tle": m["tle"], "tle_mean": m["tle_mean"],
            "drop_events": [list(e) for e in drop_events(hist)],
            "proposals": list(self.proposals),
            "rl": [x if math.isfinite(x) else None for x in m["rl"]],
            "rl_mean": m["rl_mean"], "rl_unanswered": m["rl_unanswered"],
            "interventions": [{k: v for k, v in iv.items() if k != "topic_index"} for iv in self.interventions],
            "mediator_turns": list(self.mediator_turns),
            "me_mean": m["me_mean"], "mi_mean": m["mi_mean"],
            "mi_judge": getattr(self.judge, "name", type(self.judge).__name__),
            "attitude_source": "stated" if self.extractor is None else f"extracted:{self.extract_from}",
            "extractor": None if self.extractor is None else getattr(self.extractor, "name",
                                                                      type(self.extractor).__name__),
            "extraction": dict(self.extraction) if self.extractor is not None else None,
            "receptiveness": {self.scenario.parties[i].name: dict(zip(STRATEGIES, map(float, p.receptiveness)))
                              for i, p in self.parties.items()},
            "final_attitudes": {self.scenario.parties[i].name: {names[k]: self.scenario.topics[k].options[int(o)].label
                                                                for k, o in enumerate(row)}
                                for i, row in enumerate(self.tracker.attitudes)},
        }

    # ------------------------------------------------------------------ info
    def public_state(self) -> dict[str, Any]:
        """What every seat may see: topics, parties, stated stances, silence, the typed transcript."""
        names = [t.name for t in self.scenario.topics]
        return {
            "turn": self.turn, "turns_left": self.budget - self.turn, "topics": names,
            "options": [t.labels for t in self.scenario.topics], "parties": self.scenario.party_names,
            "stated": [[int(s) for s in row] for row in self.stated],
            "silence": [int(s) for s in self.silence],
            "events": [dict(e) for e in self.events],
        }

    def _info(self, agent: str) -> dict[str, Any]:
        party = None if agent == MEDIATOR else int(agent.split("_")[1])
        info: dict[str, Any] = {"turn": self.turn, "state": self.public_state()}
        if party is not None:
            info["self"] = self.scenario.parties[party].model_dump()
        return info


def _conclusion(action: Any, seat: str) -> str | None:
    """The closing words of a mediator dict ``{"conclude": true, "utterance": ...}``, else None."""
    if not isinstance(action, dict) or not action.get("conclude"):
        return None
    text = action.get("utterance")
    if not isinstance(text, str) or not text.strip():
        raise NegotiationActionError(f"{seat}: 'conclude' needs the conclusion as a non-empty 'utterance'")
    return text.strip()


def _modes(conflict_mode: str | None, difficulty: str | None, default: str) -> tuple[str, ...]:
    if conflict_mode is not None:
        if conflict_mode not in CONFLICT_MODES:
            raise NegotiationConfigError(f"conflict_mode must be one of {CONFLICT_MODES}, got {conflict_mode!r}")
        return (conflict_mode,)
    if difficulty is not None:
        if difficulty not in DIFFICULTY_MODES:
            raise NegotiationConfigError(f"difficulty must be one of {tuple(DIFFICULTY_MODES)}, got {difficulty!r}")
        return DIFFICULTY_MODES[difficulty]
    return (default,)


def _seats(party_seats: "str | Sequence[int | str]", scenario: Scenario) -> list[int]:
    if party_seats == "all":
        return list(range(len(scenario.parties)))
    if isinstance(party_seats, str):
        party_seats = [party_seats]
    from tom_envs.negotiation.actions import party_index

    from tom_envs.negotiation.errors import NegotiationActionError

    try:
        out = sorted({party_index(scenario, p, "party_seats") for p in party_seats})
    except NegotiationActionError as exc:
        raise NegotiationConfigError(str(exc)) from None
    return out


def env(**kwargs: Any) -> NegotiationEnv:
    """The AEC env (PettingZoo module convention)."""
    return NegotiationEnv(**kwargs)


def parallel_env(**kwargs: Any) -> Any:
    """The parallel view (PettingZoo's ``aec_to_parallel``): every seat acts once per turn."""
    from pettingzoo.utils.conversions import aec_to_parallel

    return aec_to_parallel(NegotiationEnv(**kwargs))
