"""The single-agent repeated matrix game: a focal learner against a scripted partner."""

from __future__ import annotations

from typing import Any, SupportsFloat

import numpy as np
from gymnasium import spaces

from tom_envs.base import TomEnv
from tom_envs.errors import InvalidAction, InvalidGame, InvalidPartner, require_bool
from tom_envs.matrix.config import CustomGame, build_game, check_env_args
from tom_envs.matrix.games import LABEL_SETS, MatrixGame
from tom_envs.matrix.oracle import OracleSolution, solve
from tom_envs.matrix.partners import Partner, PartnerDistribution, resolve_partners
from tom_envs.matrix.rng import PARTNER_DRAW, episode_base, key_from, round_uniforms, uniform
from tom_envs.matrix.text import render_state, text_space
from tom_envs.tom import ToMSpec


#: The keys ``reset(options=...)`` reads: ``partner`` forces a member of the partner distribution.
RESET_OPTIONS = frozenset({"partner"})


class MatrixGameEnv(TomEnv):
    """A repeated two-player matrix game against a partner drawn from a distribution (seed 004).

    The focal agent (this env's agent) picks a row of the payoff table every round; the partner,
    drawn from ``partners`` at every reset, picks a column. Built-in partners are finite automata,
    so the exact optimal T-step response -- and hence the functional-ToM regret ΔFunctional --
    is known (see :mod:`tom_envs.matrix.oracle` and the ``ToMRecorder`` wrapper).

    ## Action Space
    ``Discrete(n_a)``: the index of the focal action (RPS: 0 Rock, 1 Paper, 2 Scissors; IBS: 0
    Fight, 1 Ballet; IPD: 0 Cooperate, 1 Defect). Python ints, numpy integers and 0-d integer
    arrays are accepted; anything else raises :class:`~tom_envs.errors.InvalidAction`.

    ## Observation Space
    With the defaults, ``Discrete(n_a * n_b + 1)``: the last joint action encoded as
    ``a * n_b + b`` (see ``game.joint_code`` / ``game.decode_joint``), or the start symbol
    ``n_a * n_b`` before the first round. With ``history=k > 1`` it is ``MultiDiscrete`` of the
    last k joint-action codes, newest first, padded with the start symbol; ``include_round=True``
    appends the number of rounds already played (0..T) as a last entry (``MultiDiscrete`` too).
    The partner's identity is never in the observation.

    ## Rewards
    The focal entry of the payoff table for the joint action. RPS: win +1, tie 0, loss -1. IBS:
    (Fight, Fight) 10, (Ballet, Ballet) 7, otherwise 0. IPD: (C, C) 8, (C, D) 0, (D, C) 10,
    (D, D) 5.

    ## Starting State
    No round played; the partner is drawn from the partner distribution. All randomness comes
    from ``np_random``: seeding draws a stream key from it, and episode ``e`` after that seed uses
    the counter-based stream of :mod:`tom_envs.matrix.rng` (the partner draw, then one number per
    round for a stochastic partner; a black-box partner gets a generator seeded from the stream).
    The vectorized env evaluates the same streams, so it reproduces single envs exactly.

    ## Episode End
    The episode terminates after ``horizon`` rounds (default 100): the repeated game has a known,
    fixed length. It is never truncated by the env itself. Stepping after the end raises
    :class:`~tom_envs.errors.EpisodeEnded`; stepping before the first reset raises
    :class:`~tom_envs.errors.ResetNeeded` (a subclass of Gymnasium's). Because the env checks the
    call order itself, its ids are registered without ``OrderEnforcing`` and the passive checker
    (``self_checked`` in the registry); the conformance tests run the full ``check_env`` instead.

    ## Arguments
    * ``game``: ``"RPS"``, ``"IBS"``, ``"IPD"``, a :class:`MatrixGame`, or a dict of its fields.
      Alternatively ``payoffs=`` and ``action_labels=`` (plus optional ``name=``,
      ``partner_action_labels=``) define a custom game (``tom/MatrixGame-v0``).
    * ``partners``: partner names, population names, a classifier query (dict), Partner objects,
      a list of those, or a :class:`PartnerDistribution`; default: 004's ``single_action`` and
      ``tit_for_tat`` populations with equal weight (see ``resolve_partners``).
    * ``horizon``: number of rounds T (default 100).
    * ``history``: number of past joint actions in the observation (default 1).
    * ``include_round``: append the round counter to the observation (default False).
    * ``expose_partner_action``: put the partner's upcoming action in ``info`` (for 004's Oracle
      prompting; default False).
    * ``expose_partner``: put the drawn partner's identity in the reset's ``info`` (``partner``,
      ``partner_classifier``, ``oracle``, ``optimal_return``), for oracle baselines only
      (``OracleBestResponsePolicy.env_kwargs``). Default False: the partner is the hidden state the
      agent has to infer (with its name, the next action of a deterministic partner is known), so the
      information rule keeps it out of ``info``; the ToM recorder reads the partner and its oracle from
      the env (:attr:`partner`, :attr:`oracle`).
    * ``label_set``: action labels used by ``render()`` (``canonical``, ``letters``, ``neutral``,
      ``repeated``, ``nonsense``).
    * ``render_mode``: ``"ansi"`` (``render()`` returns the text) or ``"human"`` (prints it).

    ## Info
    ``reset`` with ``expose_partner=True``: ``partner`` (name), ``partner_classifier``
    (dict), ``oracle`` (the :class:`OracleSolution`, or None for black-box partners),
    ``optimal_return`` (float or None); by default none of these (an empty dict).
    ``step``: ``partner_action`` (the partner's action this round). With
    ``expose_partner_action=True`` both also carry ``partner_next_action`` (the action the partner
    will play in the coming round; absent once the episode has ended).
    ``reset(options={"partner": name})`` forces a member of the distribution (for evaluation).

    ## ToM contract (:mod:`tom_envs.tom`)
    ``tom_spec``: target ``partner_action`` (``Discrete(n_b)``: the partner's action in the coming
    round), outcome ``return``, ``optimal_return``, ``regret``. ``tom_truth()``: the partner's
    action of the round just played. ``tom_outcome()``: the focal return so far, the optimal
    response's expected return over the same rounds and their difference (ΔFunctional; both
    None for black-box partners). Text for LLMs: :meth:`text` (used by
    :class:`wrappers.TextObservation`).

    ## Version History
    * v0: initial version (payoffs and partners of seed 004). Since the spine release, the reset's
      ``info`` names the partner only with ``expose_partner=True`` (dynamics and rewards unchanged).
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 4}
    reset_options = RESET_OPTIONS

    def __init__(
        self,
        game: "str | MatrixGame | dict | None" = None,
        *,
        partners: Any = None,
        horizon: int = 100,
        history: int = 1,
        include_round: bool = False,
        expose_partner_action: bool = False,
        expose_partner: bool = False,
        label_set: str = "canonical",
        render_mode: str | None = None,
        **custom_game: Any,
    ) -> None:
        # payoffs=, action_labels=, partner_action_labels=, name=: a custom game (config.CustomGame)
        self.game: MatrixGame = build_game(game, CustomGame.from_kwargs("MatrixGameEnv.__init__", custom_game))
        check_env_args(horizon, history, render_mode, self.metadata["render_modes"])
        if label_set not in LABEL_SETS:
            raise InvalidGame(f"unknown label_set {label_set!r}; choose one of {', '.join(LABEL_SETS)}")
        self.horizon = int(horizon)
        self.history_length = int(history)
        self.include_round = require_bool("include_round", include_round)
        self.expose_partner_action = require_bool("expose_partner_action", expose_partner_action)
        self.expose_partner = require_bool("expose_partner", expose_partner)
        self.label_set = label_set
        self.render_mode = render_mode
        self.partner_distribution: PartnerDistribution = resolve_partners(self.game, partners)
        # the information rule's public part: the joint actions played (and the round), the partner's action
        # of the step just played
        self.tom_public = (
            "obs",
            *(f"obs[{i}]" for i in range(self.history_length + self.include_round)),
            "info.partner_action",
        )
        self.tom_spec = ToMSpec(
            targets={"partner_action": spaces.Discrete(self.game.n_partner_actions)},
            outcome=("return", "optimal_return", "regret"),
            scorer="wrappers.matrix.scorer:MatrixToMScorer",
        )  # + 004's ΔToM and ΔFunctional

        n_a, n_b = self.game.n_actions, self.game.n_partner_actions
        self._start = n_a * n_b
        self.action_space = spaces.Discrete(n_a)
        self._scalar_obs = self.history_length == 1 and not self.include_round
        if self._scalar_obs:
            self.observation_space = spaces.Discrete(self._start + 1)
        else:
            nvec = [self._start + 1] * self.history_length + ([self.horizon + 1] if self.include_round else [])
            self.observation_space = spaces.MultiDiscrete(nvec)
        self._n_actions = n_a
        self._tables = [self._partner_tables(p) for p in self.partner_distribution.partners]
        self._oracles: list[OracleSolution | None] = [None] * len(self.partner_distribution)

        # episode state (the call order: TomEnv's flags; _done is set by the step that plays round _T)
        self._t = 0
        self._T = 0
        self._s = 0
        self._codes: list[int] = []
        self._u: list[float] = []
        self._idx = 0
        self._partner: Partner | None = None
        self._key: int | None = None  # stream key, drawn from np_random when seeded
        self._episode = 0
        self._next_b = -1
        self._rows: list | None = None
        self._det: list[int] = []
        self._cdf: list[list[float]] = []
        self._plain = self._scalar_obs and not self.expose_partner_action and render_mode != "human"

    # ------------------------------------------------------------------ tables
    def _partner_tables(self, partner: Partner) -> tuple | None:
        """Per-state lookup tables for an automaton partner (None for a black box).

        ``rows[s][a][b] = (next state, observation code, reward)``; ``det[s]`` is the state's
        action or -1 when it is stochastic; ``cdf[s]`` its cumulative distribution.
        """
        aut = partner.automaton()
        if aut is None:
            return None
        if aut.n_focal_actions != self.game.n_actions or aut.n_partner_actions != self.game.n_partner_actions:
            raise InvalidPartner(f"partner {partner.name!r} does not fit the {self.game.name} action spaces")
        R = self.game.focal_payoffs.tolist()
        n_b = self.game.n_partner_actions
        rows = [
            [
                [(int(aut.transition[s, a, b]), a * n_b + b, R[a][b]) for b in range(n_b)]
                for a in range(self.game.n_actions)
            ]
            for s in range(aut.n_states)
        ]
        return rows, list(aut.deterministic_actions), aut.cdf.tolist(), aut.initial_state, not aut.is_deterministic

    # ------------------------------------------------------------------ API
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict]:
        super().reset(seed=seed)
        if seed is not None or self._key is None:
            self._key, self._episode = key_from(self.np_random), 0
        else:
            self._episode += 1
        # the episode's random stream (tom_envs.matrix.rng): counter 0 draws the partner, 1 + t round t
        base = episode_base(self._key, self._episode)
        dist = self.partner_distribution
        forced = self.read_options(options).get("partner")
        if forced is None:
            idx = dist.index_for(uniform(base, PARTNER_DRAW))
        elif forced in dist.names:
            idx = dist.names.index(forced)
        else:
            raise InvalidPartner(
                f"options['partner']={forced!r} is not in this env's partners: {', '.join(dist.names)}"
            )
        partner = dist.partners[idx]
        self._idx, self._partner = idx, partner
        self._t, self._T = 0, self.horizon
        self._codes = [0] * self.horizon  # joint-action codes; the first _t entries are played
        tables = self._tables[idx]
        if tables is None:  # a black box gets a numpy generator seeded from the episode stream
            partner.reset(np.random.default_rng(base), self.horizon)
            self._rows = None
            oracle = None
            self._next_b = partner.next_action()
        else:
            self._rows, self._det, self._cdf, self._s, stochastic = tables
            self._u = round_uniforms(base, self.horizon) if stochastic else []
            if self._oracles[idx] is None:
                self._oracles[idx] = solve(self.game, partner.automaton(), self.horizon)
            oracle = self._oracles[idx]
        info: dict[str, Any] = {}
        if self.expose_partner:
            info.update(
                partner=partner.name,
                partner_classifier=dict(partner.classifier),
                oracle=oracle,
                optimal_return=None if oracle is None else oracle.optimal_return,
            )
        if self.expose_partner_action:
            info["partner_next_action"] = self._upcoming()
        self.start_episode()
        return self._observation(), info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict]:
        if self._done:  # the hot loop tests the flag itself (TomEnv.check_step is a call more)
            raise self.order_error()
        t = self._t
        if type(action) is int and 0 <= action < self._n_actions:
            a = action
        else:
            a = self._coerce(action)
        rows = self._rows
        if rows is not None:  # automaton partner: table lookups only
            s = self._s
            b = self._det[s]
            if b < 0:
                b = _draw(self._cdf[s], self._u[t])
            self._s, code, reward = rows[s][a][b]
        else:  # black-box partner (e.g. an Axelrod strategy)
            b = self._next_b
            self._partner.observe(a, b)
            code = a * self.game.n_partner_actions + b
            reward = self.game.payoffs[a][b][0]
            if t + 1 < self._T:
                self._next_b = self._partner.next_action()
        self._codes[t] = code
        self._t = t = t + 1
        self._done = terminated = t == self._T
        if self._plain:  # the common case: scalar observation, nothing extra in info
            return code, reward, terminated, False, {"partner_action": b}
        info = {"partner_action": b}
        if self.expose_partner_action and not terminated:
            info["partner_next_action"] = self._upcoming()
        if self.render_mode == "human":
            self.render()
        return (code if self._scalar_obs else self._observation()), reward, terminated, False, info

    def render_text(self) -> str:
        return render_state(self.game, self.history, self.horizon, self.label_set)

    def text(self, label_set: str | None = None) -> str:
        """The game state for a language model (rules, history, round) in ``label_set`` (default:
        this env's). With ``expose_partner_action=True`` it also says which action the partner will
        choose (004's Oracle prompting), exactly what ``info["partner_next_action"]`` gives."""
        label_set = self._label_set(label_set)
        upcoming = self._upcoming() if self.expose_partner_action and self._t < self._T else None
        return render_state(self.game, self.history, self.horizon, label_set, upcoming)

    def text_space(self, label_set: str | None = None) -> spaces.Text:
        """The space of :meth:`text` in ``label_set`` (default: this env's)."""
        return text_space(self.game, self.horizon, self._label_set(label_set))

    def _label_set(self, label_set: str | None) -> str:
        if label_set is None:
            return self.label_set
        if label_set not in LABEL_SETS:
            raise InvalidGame(f"unknown label_set {label_set!r}; choose one of {', '.join(LABEL_SETS)}")
        return label_set

    # ------------------------------------------------------------------ ToM contract
    def tom_truth(self) -> dict[str, Any]:
        """``{"partner_action": b}`` for the round just played; empty before the first round."""
        t = self._t
        return {"partner_action": self._codes[t - 1] % self.game.n_partner_actions} if t else {}

    def tom_outcome(self) -> dict[str, Any]:
        """Focal return so far, the optimal response's expected return over those rounds, regret."""
        t = self._t
        R = self.game.focal_payoffs
        n_b = self.game.n_partner_actions
        ret = float(sum(R[c // n_b][c % n_b] for c in self._codes[:t]))
        oracle = self.oracle
        optimal = None if oracle is None else float(oracle.optimal_rewards[:t].sum())
        return {"return": ret, "optimal_return": optimal, "regret": None if optimal is None else optimal - ret}

    @property
    def episode_over(self) -> str:  # the EpisodeEnded sentence (TomEnv)
        return (
            f"step() was called after the episode ended (all {self.horizon} rounds were played); "
            "call env.reset() to start a new episode."
        )

    @property
    def scalar_observation(self) -> bool:
        """Whether an observation is the last joint-action code alone (``history=1`` without the
        round), rather than a vector."""
        return self._scalar_obs

    # ------------------------------------------------------------------ ground truth (read-only)
    @property
    def partner(self) -> Partner | None:
        """The partner of the current episode."""
        return self._partner

    @property
    def oracle(self) -> OracleSolution | None:
        """The exact optimal response to the current partner (None for black boxes)."""
        return self._oracles[self._idx] if self._partner is not None else None

    @property
    def partner_state(self) -> int | None:
        """The current automaton state of the partner (None for black boxes)."""
        if self._partner is None or self._rows is None:
            return None
        return self._s

    @property
    def round(self) -> int:
        """Number of rounds played in the current episode."""
        return self._t

    @property
    def history(self) -> list[tuple[int, int]]:
        """Joint actions (focal, partner) of the rounds played so far."""
        n_b = self.game.n_partner_actions
        return [divmod(c, n_b) for c in self._codes[: self._t]]

    # ------------------------------------------------------------------ helpers
    def _upcoming(self) -> int:
        if self._rows is None:
            return self._next_b
        b = self._det[self._s]
        return b if b >= 0 else _draw(self._cdf[self._s], self._u[self._t])

    def _observation(self) -> Any:
        t = self._t
        if self._scalar_obs:
            return self._codes[t - 1] if t else self._start
        k = self.history_length
        last = self._codes[max(0, t - k) : t][::-1]
        obs = last + [self._start] * (k - len(last))
        if self.include_round:
            obs.append(self._t)
        return np.array(obs, dtype=np.int64)

    def _coerce(self, action: Any) -> int:
        """Numpy integers and 0-d integer arrays (what RL libraries pass); anything else raises."""
        if (
            isinstance(action, (np.integer, np.ndarray))
            and np.ndim(action) == 0
            and np.issubdtype(np.asarray(action).dtype, np.integer)
        ):
            a = int(action)
            if 0 <= a < self._n_actions:
                return a
        raise InvalidAction(
            f"action {action!r} is not in the action space Discrete({self.game.n_actions}); pass an integer in "
            f"0..{self.game.n_actions - 1} ({', '.join(f'{i}={l}' for i, l in enumerate(self.game.action_labels))})."
        )


def _draw(cdf: list[float], u: float) -> int:
    """Inverse-CDF draw (matches ``Automaton.sample``)."""
    b = 0
    while u >= cdf[b]:
        b += 1
    return b
