"""Multi-party negotiation with an optional mediator seat (002's ProMediate as PettingZoo AEC)."""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import numpy as np
from gymnasium import logger, spaces

from tom_envs.aec import TomAECEnv
from tom_envs.errors import ResetNeeded, UnsupportedRenderMode, check_options, require_bool
from tom_envs.negotiation.actions import pairs, parse_mediator, parse_party, parse_stance_prediction, stance_table
from tom_envs.negotiation.case_rules import MAX_EPISODE_WORK, check_work
from tom_envs.negotiation.consensus import AgreementFn, AttitudeExtractor, ConsensusTracker
from tom_envs.negotiation.errors import NegotiationActionError, NegotiationConfigError
from tom_envs.negotiation.metrics import METRIC_DEFINITIONS, STRATEGIES, RuleBasedJudge
from tom_envs.negotiation.parties import ScriptedParty
from tom_envs.negotiation.render import seat_text
from tom_envs.negotiation.scenario import CONFLICT_MODES, DIFFICULTY_MODES, MAX_TURN_BUDGET, Scenario, resolve_scenario
from tom_envs.negotiation.summary import OUTCOME, EpisodeScoring
from tom_envs.negotiation.turns import MEDIATOR, MEDIATOR_NAME, TurnResolution
from tom_envs.scoring import NOT_PREDICTED
from tom_envs.tom import ToMSpec

__all__ = ["MEDIATOR", "MEDIATOR_NAME", "OUTCOME", "NegotiationEnv", "env", "parallel_env"]


class NegotiationEnv(TurnResolution, EpisodeScoring, TomAECEnv):
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
    * ``max_work``: the bound on an episode's work figure, turns x (parties x topics x (parties + 36) +
      turns x seats) (:func:`~tom_envs.negotiation.case_rules.episode_work`; default
      :data:`~tom_envs.negotiation.case_rules.MAX_EPISODE_WORK`, 20,000,000: about 5-7 s of a scripted
      episode); a larger case is a :class:`~tom_envs.negotiation.errors.CaseTooLargeError` giving its figure.

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
    * v2 (``tom/Negotiation-v2``, :class:`~tom_envs.negotiation.env_v2.NegotiationEnvV2`): the release's turn
      order (the mediator first, the party seats only when it passes) and its opening line.
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

    def __init__(
        self,
        scenario: "str | Scenario | dict" = "hopkins_hmo",
        conflict_mode: str | None = None,
        difficulty: str | None = None,
        mediator: bool = True,
        party_seats: "str | Sequence[int | str]" = (),
        turn_budget: int | None = None,
        agreement: AgreementFn | None = None,
        mi_judge: Callable[..., dict] | None = None,
        attitude_extractor: AttitudeExtractor | None = None,
        extract_from: str = "agents",
        render_mode: str | None = None,
        metrics: str = "release",
        max_work: int = MAX_EPISODE_WORK,
    ) -> None:
        super().__init__()
        if metrics not in METRIC_DEFINITIONS:
            raise NegotiationConfigError(f"metrics must be one of {METRIC_DEFINITIONS}, got {metrics!r}")
        self.metric_definitions = metrics
        self.scenario = resolve_scenario(scenario)
        unparsed = [t.name for t in self.scenario.topics if t.options_unparsed]
        if unparsed:
            raise NegotiationConfigError(
                f"topics {unparsed} have options kept as plain text (import warning); write "
                "their options and each party's ranking into the scenario file first"
            )
        self._modes = _modes(conflict_mode, difficulty, self.scenario.conflict_mode)
        if render_mode not in (None, "ansi"):
            raise UnsupportedRenderMode(f"render_mode must be 'ansi' or None, got {render_mode!r}")
        if turn_budget is not None and (
            isinstance(turn_budget, bool)
            or not isinstance(turn_budget, int)
            or not 20 <= turn_budget <= MAX_TURN_BUDGET
        ):
            raise NegotiationConfigError(
                f"turn_budget must be an integer from 20 (CC compares two 10-turn windows) to "
                f"{MAX_TURN_BUDGET}, got {turn_budget!r}"
            )
        self.render_mode = render_mode
        self.budget = turn_budget or self.scenario.budget
        max_work = self._max_work(max_work)
        self.agreement = agreement
        if attitude_extractor is not None and not callable(attitude_extractor):
            raise NegotiationConfigError(
                "attitude_extractor must be callable as extractor(party, text) -> "
                f"{{topic: option or None}}, got {type(attitude_extractor).__name__}"
            )
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
            raise NegotiationConfigError(
                "with mediator=False at least one party seat is needed "
                "(party_seats='all' or a list); for a NoAgent baseline keep the mediator "
                "seat and let it always pass"
            )
        self.possible_agents = [f"party_{i}" for i in self.external] + ([MEDIATOR] if self.has_mediator else [])
        check_work(self.scenario.source, self.n, self.m, self.budget, len(self.possible_agents), max_work)
        high = self._obs_high()
        obs_space = spaces.Box(0, high, shape=high.shape, dtype=np.int64)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        n_pairs = len(pairs(self.scenario))
        self.action_spaces = {
            a: spaces.Discrete(1 + 4 * self.m) if a == MEDIATOR else spaces.Discrete(1 + 2 * n_pairs)
            for a in self.possible_agents
        }
        self._rank_rows = {i: self._rank_row(i) for i in range(self.n)}
        # one more value per cell, starting at NOT_PREDICTED: a prediction may leave cells out
        values = np.array([[1 + len(t.options) for t in self.scenario.topics]] * self.n, dtype=np.int64)
        stances = spaces.MultiDiscrete(values, start=np.full(values.shape, NOT_PREDICTED, dtype=np.int64))
        self.tom_spec = ToMSpec(
            targets={"stances": stances}, outcome=OUTCOME, predictor=MEDIATOR if self.has_mediator else None
        )
        # the information rule (docs/architecture.md, contract 4): public, the record every seat sees -- the
        # observation's head (seat, turn, turns left, last speaker, topic, strategy), the stated stances and
        # the silences, and info["state"]; a party's own preference ranks (obs) and case (info["self"]) are
        # public to that party only, and it knows its own stances
        ranks = 6 + self.n * self.m
        rank_end = ranks + self.m * self.s_max
        self.tom_public = tuple(f"obs[{i}]" for i in [*range(ranks), *range(rank_end, len(high))]) + (
            "info.turn",
            "info.state.*",
        )
        self.tom_private = {"party_*": tuple(f"obs[{i}]" for i in range(ranks, rank_end)) + ("obs", "info.self.*")}
        self.tom_known = {"party_*": ("stances[{i},",)}

    # ------------------------------------------------------------------ spaces
    @staticmethod
    def _max_work(max_work: Any) -> int:
        if isinstance(max_work, bool) or not isinstance(max_work, int) or max_work < 1:
            raise NegotiationConfigError(
                f"max_work must be a positive integer (the bound on an episode's work "
                f"figure; default {MAX_EPISODE_WORK:,}), got {max_work!r}"
            )
        return max_work

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
        # reads no options: a dict, with at most the key PettingZoo's API tests pass to every env
        check_options(options, ("options",), type(self).__name__)
        rng = self.reseed(seed)
        self.conflict_mode = (
            self._modes[int(rng.integers(len(self._modes)))] if len(self._modes) > 1 else self._modes[0]
        )
        seeds = rng.integers(0, 2**63 - 1, size=self.n)
        self.parties = {
            i: ScriptedParty(self.scenario, i, self.conflict_mode, np.random.default_rng(int(seeds[i])))
            for i in range(self.n)
            if i not in self.external
        }
        self.tracker = ConsensusTracker(self.scenario, self.agreement)
        self.stated = np.full((self.n, self.m), -1, dtype=np.int64)
        self.silence = np.zeros(self.n, dtype=np.int64)
        self.last_statement: list[tuple[int, int] | None] = [None] * self.n
        self.repeats = np.zeros(self.n, dtype=np.int64)
        self.mentions = np.zeros(self.m, dtype=np.int64)
        self.mention_turns: list[list[int]] = [[] for _ in range(self.m)]
        self.proposals: list[dict[str, Any]] = []
        #: stances a party took on an option it blocks itself (end-of-episode only: the blocks are private)
        self.blocked_stances: list[dict[str, Any]] = []
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
            self._conclusion = conclusion_of(action, agent)
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
        speaker = (
            self.n + 1 if last is None else (self.n if last["seat"] == MEDIATOR else last.get("party", self.n + 1))
        )
        topic = self.m if last is None or last.get("topic_index") is None else last["topic_index"]
        strategy = (
            len(STRATEGIES) if last is None or last.get("strategy") is None else STRATEGIES.index(last["strategy"])
        )
        stated = np.where(self.stated < 0, self.s_max, self.stated).ravel()
        rank = self._rank_rows.get(seat) if seat < self.n else self._rank_row(None)
        head = np.array([seat, self.turn, self.budget - self.turn, speaker, topic, strategy], dtype=np.int64)
        return np.concatenate([head, stated, rank, np.minimum(self.silence, self.budget)]).astype(np.int64)

    def text(self, agent: str) -> str:
        """What an LLM in ``agent``'s seat reads now: its role, the case, the topics, its own preferences
        (party seats) and the transcript (:func:`~tom_envs.negotiation.render.seat_text`)."""
        party = None if agent == MEDIATOR else int(agent.split("_")[1])
        return seat_text(
            self.scenario, agent, party, self.events, self.budget - self.turn, getattr(self, "conflict_mode", None)
        )

    def render(self) -> str | None:
        if self.render_mode is None:
            logger.warn("render() was called without a render_mode; pass render_mode='ansi'.")
            return None
        if not self.started:
            return ""
        return "\n".join(f"[{e['turn']}] {e['speaker']}: {e['text']}" for e in self.events)

    # ------------------------------------------------------------------ literal ToM
    def hidden_preferences(self) -> np.ndarray:
        """(parties, topics): each party's currently preferred option (the literal-ToM target)."""
        out = np.array(self.tracker.attitudes, copy=True)
        for i, p in self.parties.items():
            out[i] = p.preferences_now(self.stated)
        for i in self.external:
            mv = self._pending.get(f"party_{i}")
            if mv is not None:
                out[i, mv.topic] = mv.option
        return out

    def stance_prediction(self, prediction: Mapping[Any, Mapping[Any, Any]]) -> np.ndarray:
        """A prediction in the action dict's form, ``{party: {topic: option}}`` (names, labels or
        indices), as a value of the ``stances`` target: a (parties, topics) array holding
        ``NOT_PREDICTED`` (-1) where it says nothing.

        Raises:
            NegotiationActionError: an unknown party, topic or option.
        """
        return stance_table(parse_stance_prediction(dict(prediction), self.scenario, "prediction"), self.scenario)

    # ------------------------------------------------------------------ info
    def public_state(self) -> dict[str, Any]:
        """What every seat may see: topics, parties, stated stances, silence, the typed transcript."""
        names = [t.name for t in self.scenario.topics]
        return {
            "turn": self.turn,
            "turns_left": self.budget - self.turn,
            "topics": names,
            "options": [t.labels for t in self.scenario.topics],
            "parties": self.scenario.party_names,
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


def conclusion_of(action: Any, seat: str) -> str | None:
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
