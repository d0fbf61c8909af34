"""Live persuasion v1: persuade a simulated persuadee whose desire, belief and intention are hidden."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from tom_envs.base import TomEnv
from tom_envs.errors import InvalidAction, check_render_mode, require_bool
from tom_envs.persuasion.mind import BELIEFS, CONCERNS, HEARD, MIND_DESIRES, TONES, TOPICS, Family, obs_parts
from tom_envs.persuasion.mind_text import agree_line, leave_line, persuader_line, reply_line
from tom_envs.persuasion.mind_v2 import restrict_personas
from tom_envs.persuasion.planning import OracleTable, oracle_for
from tom_envs.persuasion.principles import PRINCIPLES, InvalidPersona
from tom_envs.persuasion.scenarios import NAMES, PROVENANCE, family_named
from tom_envs.persuasion.versions import V1, V2, MindVersion
from tom_envs.qa import DIALOGUE_HEADER
from tom_envs.tom import ToMSpec

#: 001 Table 3: the intention each principle serves (shown to LLM persuaders).
INTENTIONS: dict[str, str] = {
    "reciprocity": "make the other person feel accepted through concessions, promises or benefits",
    "scarcity": "make the other person feel the experience or object is unique or scarce",
    "consensus": "refer to what other people are doing or have already done",
    "authority": "demonstrate expertise in the domain and show authority",
    "commitment": "encourage the other person to commit to a first step and be consistent",
    "liking": "praise the other person or find common ground to improve their liking",
}


def resolve_families(families: Any, builtin: tuple[Family, ...] = V1.families) -> tuple[Family, ...]:
    """None / ``"all"`` (the five built-in families: ``builtin``, v1's by default), a name, a :class:`Family`,
    or a list of those."""
    if families is None or families == "all":
        return builtin
    items = [families] if isinstance(families, (str, Family)) else families
    if not isinstance(items, (list, tuple)) or not items:
        raise InvalidPersona(f"families is a family name, a Family or a non-empty list of those, got {families!r}")
    by_name = {f.name: f for f in builtin}
    out = tuple(f if isinstance(f, Family) else by_name[f] if f in by_name else family_named(f) for f in items)
    if len({f.name for f in out}) != len(out):
        raise InvalidPersona(f"family names repeat in {[f.name for f in out]}")
    for f in out:
        if not f.scenarios:
            raise InvalidPersona(
                f"family {f.name!r} has no scenarios (give Family(..., scenarios=(Scenario(goal, background), ...)))"
            )
    return out


#: The keys ``reset(options=...)`` of the live persuasion envs reads (another is InvalidOptions).
RESET_OPTIONS = ("family", "persona")
#: ... and the key PettingZoo's API tests pass to any AEC env's reset (read by none).
AEC_RESET_OPTIONS = (*RESET_OPTIONS, "options")


def draw_episode(env: Any, options: dict, rng: np.random.Generator) -> tuple[int, int]:
    """Draw what both live envs (single seat and two seats, of ``env.version``) draw at reset, in one order (seeds replay): the family (or
    ``options["family"]``), its model, planner and references, a scenario, the two names, then the
    persona (or ``options["persona"]``) and the initial state. Sets ``family_index``, ``family``,
    ``model``, ``planner``, ``refs``, ``scenario`` and ``names`` on ``env``; returns
    ``(state_index, opening reply)``."""
    names = [f.name for f in env.families]
    if "family" in options and options["family"] not in names:
        raise InvalidPersona(f"family {options['family']!r} is not in this env ({', '.join(names)})")
    env.family_index = names.index(options["family"]) if "family" in options else int(rng.integers(len(names)))
    env.family = env.families[env.family_index]
    version: MindVersion = env.version
    env.model = version.model(env.family)
    env.planner = version.planner(env.model, env.horizon)
    env.refs = version.references(env.model, env.horizon)
    env.scenario = env.family.scenarios[int(rng.integers(len(env.family.scenarios)))]
    a, b = rng.choice(len(NAMES), size=2, replace=False)
    env.names = {"persuader": NAMES[int(a)], "persuadee": NAMES[int(b)]}
    persona = env.family.persona_index(options["persona"]) if "persona" in options else None
    return env.model.sample_initial(rng, persona)


def parse_utterance_action(action: Any) -> tuple[int | None, str | None]:
    """``(principle or None, utterance or None)`` from an int in 0..5 or ``{"action": i, "utterance": text}``
    (either key may be left out, not both).

    Raises:
        InvalidAction: anything else, with the accepted forms.
    """
    text = None
    if isinstance(action, dict):
        unknown = set(action) - {"action", "utterance"}
        text = action.get("utterance")
        if (
            unknown
            or (text is not None and not isinstance(text, str))
            or (text is None and action.get("action") is None)
        ):
            raise InvalidAction(
                "a dict action is {'action': i, 'utterance': text} (the utterance a string; at least one "
                f"of them given), got {action!r}"
            )
        action = action.get("action")
        if action is None:
            return None, text
    if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        action = int(action)
    if (
        isinstance(action, (bool, np.bool_))
        or not isinstance(action, (int, np.integer))
        or not 0 <= int(action) < len(PRINCIPLES)
    ):
        raise InvalidAction(
            f"the action is a persuasion principle (an integer in 0..{len(PRINCIPLES) - 1}), optionally "
            f"as {{'action': i, 'utterance': text}}, or {{'utterance': text}}; got {action!r}"
        )
    return int(action), text


class LiveText:
    """What every single-seat live persuasion env renders and reveals alike: ``text`` (the prompt; a version
    gives its ``options_head``, ``_options``, ``_goal_note`` and ``_over_line``), ``render`` (that text,
    ``"ansi"``), ``tom_truth`` (the hidden state the last step acted on; empty after a reset) and
    ``tom_outcome`` (success, regret and the version's ``_references``)."""

    def _goal_note(self, persuadee: str) -> str:
        """What the persuader is told after the goal (a version's rule of play; nothing by default)."""
        return ""

    def render_text(self) -> str:
        return self.text() if self._started else ""

    def text(self) -> str:
        """The prompt for an LLM persuader: the scenario, the transcript and, while the dialogue runs, the
        turn's options (:meth:`_options`)."""
        er, ee = self.names["persuader"], self.names["persuadee"]
        lines = [
            f"Background: {self.scenario.background.format(er=er, ee=ee)}",
            f"You are {er}. You want {ee} to {self.scenario.goal}.{self._goal_note(ee)}",
            "",
            DIALOGUE_HEADER,
            *self.transcript,
            "",
        ]
        if self._done:
            return "\n".join([*lines, self._over_line()])
        return "\n".join([*lines, f"Turn {self.turn + 1} of {self.horizon}. {self.options_head}", *self._options()])

    def _over_line(self) -> str:
        return "The conversation is over."

    def _open(self, rng: np.random.Generator) -> tuple[np.ndarray, dict]:
        """The end of ``reset``: the persuadee's opening reply starts the transcript, no regret yet, no truth
        resolved; the episode runs. The reset's observation and info."""
        self.transcript = [f"{self.names['persuadee']} says: {self._reply_text(rng)}"]
        self._regrets: list[float] = []
        self._truth = {}
        self.start_episode()
        return self._obs(), self._info()

    def _info(self) -> dict[str, Any]:
        """What every reset and step tells: the case shown; with ``expose_state`` (the oracle's flag) also the
        hidden state (:meth:`_state_info`)."""
        info: dict[str, Any] = {
            "turn": self.turn,
            "horizon": self.horizon,
            "family": self.family.name,
            "names": dict(self.names),
            "goal": self.scenario.goal,
        }
        if self.expose_state:
            info.update(self._state_info())
        return info

    def tom_outcome(self) -> dict[str, Any]:
        """Success and regret so far, and the family's references (``tom_spec.outcome``); before the first
        reset no success, no regret and no references."""
        if not self._started:
            return {"success": False, "regret": 0.0, **{k: None for k in self.tom_spec.outcome[2:]}}
        return {"success": bool(self.agreed), "regret": float(sum(self._regrets)), **self._references()}

    def tom_truth(self) -> dict[str, int]:
        """The hidden state before the last step (the env's ToM targets); empty after a reset."""
        return dict(self._truth)


class MindSetup:
    """What a live-persuasion env checks and sets up at construction, by its ``version``
    (:class:`~tom_envs.persuasion.versions.MindVersion`): the constructor arguments, checked by :meth:`_setup`;
    the env builds its own spaces and state in :meth:`_build`. Shared by the single-seat and the two-seat env
    (the single-seat v2 env adds ``personas``)."""

    #: The version this env plays (a subclass of a later version sets another).
    version: MindVersion = V1
    #: What the horizon counts (in the error for a bad one).
    HORIZON_IS = "the turn budget"

    @property
    def NOT_YET_INDEX(self) -> int:  # noqa: N802 -- a constant of the version
        """The "heard" entry before the first line (one past the last strategy)."""
        return self.version.n_strategies

    def __init__(
        self,
        families: Any = None,
        horizon: int = 4,
        reader: Any = None,
        expose_state: bool = False,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self._setup(families, horizon, reader, expose_state, render_mode)
        self._build()

    def _build(self) -> None:
        """The env's own spaces and state, once the arguments are set (each env: its seats)."""
        raise NotImplementedError

    def _setup(
        self, families: Any, horizon: Any, reader: Any, expose_state: Any, render_mode: Any, personas: Any = None
    ) -> None:
        """Check and set ``families`` (restricted to ``personas`` when given), ``horizon``, ``reader``,
        ``expose_state`` and ``render_mode``; the families are compiled at once (a persona of another
        version raises here, naming the fix)."""
        if isinstance(horizon, bool) or not isinstance(horizon, (int, np.integer)) or horizon < 1:
            raise InvalidPersona(f"horizon is {self.HORIZON_IS}, a positive integer; got {horizon!r}")
        self.version.check_horizon(horizon)  # planning at reset has a limit: a named error, not a hang
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.families = resolve_families(families, self.version.families)
        if personas is not None:
            self.families = restrict_personas(self.families, personas)
        for f in self.families:
            self.version.model(f)
        self.horizon = int(horizon)
        self.reader = self.version.reader() if reader is None else reader
        if not callable(getattr(self.reader, "read", None)):
            raise InvalidPersona(f"reader needs a read(utterance, goal) method, got {self.reader!r}")
        self.expose_state = require_bool("expose_state", expose_state)
        self.render_mode = render_mode

    def _read_line(self, utterance: str) -> int:
        """The strategy the reader hears in a written line."""
        return self.version.check_reading(self.reader.read(utterance, self.scenario.goal), self.reader)

    def _reply_text(self, rng: np.random.Generator) -> str:
        return reply_line(self.tone, self.topic, rng, self.version.indirect_replies)

    def _tag(self, info: dict[str, Any]) -> dict[str, Any]:
        """``info`` with the version's number, where the version says so."""
        return {**info, "version": self.version.number} if self.version.in_info else info


#: the information rule's public part of the live persuasion envs: the observation (the persuadee's last
#: tone, the topic, what it heard, the family, the rounds left), the case shown (family, names, goal), and
#: what was said: the persuader's utterance as heard, the persuadee's reply and declaration, the outcome
MIND_PUBLIC = (
    "obs[0]",
    "obs[1]",
    "obs[2]",
    "obs[3]",
    "obs[4]",
    "info.turn",
    "info.round",
    "info.horizon",
    "info.family",
    "info.names.*",
    "info.goal",
    "info.version",
    "info.utterance",
    "info.heard",
    "info.declared",
    "info.reply",
    "info.success",
    "info.left",
)


class PersuasionMindEnv(LiveText, MindSetup, TomEnv):
    """Persuade a simulated persuadee with a hidden desire, belief and intention (seed 001's BDI).

    At every reset a scenario family, a scenario of it, two names and a persona from the family's
    prior are drawn; the persuadee's hidden state (desire, belief about the persuader, intention =
    the concern it acts on) is drawn from the persona and evolves with the strategy the persuadee
    reads in each line (:mod:`tom_envs.persuasion.mind`). Tracking that state pays: the exact
    Bayes-optimal persuader that only sees the dialogue beats the best fixed plan of principles
    by tens of points of success (:mod:`tom_envs.persuasion.planning`). Scenarios:
    :mod:`tom_envs.persuasion.scenarios` (provenance: :data:`~tom_envs.persuasion.scenarios.PROVENANCE`).

    Words matter: an integer action is a principle (the env writes a templated line for it); an
    utterance (``{"utterance": text}`` or ``{"action": i, "utterance": text}``) is read by the
    ``reader`` and the persuadee reacts to the strategy read there (``i`` is only logged). Text
    that carries no strategy moves nothing.

    ToM contract (:mod:`tom_envs.tom`): literal-ToM targets ``desire`` (``Discrete(3)``: no,
    considering, yes), ``belief`` (``Discrete(2)``: trusting, wary) and ``intention``
    (``Discrete(5)``: the concern, :data:`~tom_envs.persuasion.mind.CONCERNS`), each the state
    *before* the coming turn; ``tom_truth()`` after a step returns that state. Functional outcome:
    ``success``, ``regret`` (summed over turns: V - Q of the strategy heard, at the exact
    posterior of the Bayes-optimal fair persuader given the dialogue so far; its expectation is
    that persuader's success probability minus the policy's), and the family's exact references
    ``bayes_success``, ``oracle_success``, ``open_loop_success``. Score with ``wrappers.ToMRecorder``.

    ## Action Space
    ``Discrete(6)``: 0 reciprocity, 1 scarcity, 2 consensus, 3 authority, 4 commitment, 5 liking
    (001 Table 3), or a dict with an utterance as above.

    ## Observation Space
    ``MultiDiscrete([3, 6, 8, n_families, horizon + 1])``: the last reply's tone (0 flat, 1 cold,
    2 warm), its topic (0 none, 1 + c: concern c voiced), the strategy the persuadee read in the
    last line (0-5, 6 nothing, 7 before the first), the scenario family (index into the env's
    ``families``) and the turns left. The text form is :meth:`text` (wrap in
    ``wrappers.TextObservation``).

    ## Rewards
    1.0 on the turn the persuadee agrees, else 0.0.

    ## Episode End
    Terminates on agreement or after ``horizon`` turns. ``step`` before ``reset`` raises
    :class:`~tom_envs.errors.ResetNeeded`, after the end :class:`~tom_envs.errors.EpisodeEnded`.

    ## Arguments
    * ``families``: None (all five), a family name or a list (``health``, ``charity``,
      ``shopping``, ``leisure``, ``work``); drawn uniformly.
    * ``horizon``: the turn budget (default 4; exact planning takes about a second per family at 4,
      about 13 s at 5).
    * ``reader``: what reads utterances (default :class:`~tom_envs.persuasion.reader.ScriptedReader`;
      ``policies.persuasion.llm.LLMReader`` asks a language model).
    * ``expose_state``: default False; a bool only (anything else, e.g. the string ``"false"``,
      raises :class:`~tom_envs.errors.InvalidFlag`). True is for the oracle only: every info then carries
      ``persona``, ``state`` (``{"persona", "desire", "belief", "intention"}`` indices) and
      ``state_index``, and step infos the turn's ``regret``.
    * ``render_mode``: ``"ansi"``.

    ## Info
    ``turn``, ``horizon``, ``family``, ``names`` ({persuader, persuadee}), ``goal``; ``step`` adds
    ``utterance``, ``heard`` (the strategy read, or ``"nothing"``), ``declared`` (the principle
    given with an utterance, or None), ``reply``, ``success`` and at the end ``episode`` (the
    summary: ``family``, ``persona``, ``success``, ``turns``, ``regret``, ``bayes_success``,
    ``oracle_success``, ``open_loop_success``, ``heard``, ``oracle_regret``: V - Q of the oracle
    that knows the state, summed -- the regret of a policy that sees the state). Nothing before the end determines the
    persona or the hidden state (the information rule).

    ## Version History
    * v1: hidden desire, belief and intention; scenario families with persona priors; words read
      by a reader; exact Bayes-optimal fair, oracle and open-loop references.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1}
    episode_over = "the persuasion is over (agreement or turn budget used); call env.reset()."
    reset_options = RESET_OPTIONS
    tom_public = MIND_PUBLIC
    tom_spec = ToMSpec(
        targets={
            "desire": spaces.Discrete(len(MIND_DESIRES)),
            "belief": spaces.Discrete(len(BELIEFS)),
            "intention": spaces.Discrete(len(CONCERNS)),
        },
        outcome=("success", "regret", "bayes_success", "oracle_success", "open_loop_success"),
    )

    def _build(self) -> None:
        self.action_space = spaces.Discrete(len(PRINCIPLES))
        self.observation_space = spaces.MultiDiscrete(
            [len(TONES), len(TOPICS), self.NOT_YET_INDEX + 1, len(self.families), self.horizon + 1]
        )
        self.left = False
        self._truth: dict[str, int] = {}

    # ------------------------------------------------------------------ API
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        options = self.read_options(options)
        rng = self.np_random
        self.state_index, reply = draw_episode(self, options, rng)
        self.oracle: OracleTable = oracle_for(self.model, self.horizon)
        self.posterior = self.model.open_belief(reply)  # the fair persuader's exact belief (never returned)
        self.tone, self.topic = obs_parts(reply)
        self.heard_last = self.NOT_YET_INDEX
        self.turn, self.agreed, self.left = 0, False, False
        self._oracle_regrets: list[float] = []
        self._heard: list[str] = []
        return self._open(rng)

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        self.check_step()
        declared, utterance = parse_utterance_action(action)
        rng = self.np_random
        if utterance is None:
            strategy = int(declared)  # type: ignore[arg-type]
            utterance = persuader_line(PRINCIPLES[strategy], self.scenario.goal, rng)
            declared = None
        else:
            strategy = self._read_line(utterance)
        st = self.model.state(self.state_index)
        self._truth = {"desire": st.desire, "belief": st.belief, "intention": st.concern}
        regret = self.planner.gap(self.posterior, self.turn, strategy)
        self._regrets.append(regret)
        self._oracle_regrets.append(self.oracle.gap(self.turn, self.state_index, strategy))
        self._heard.append(self.version.heard[strategy])
        agreed, s2, reply = self.model.sample_step(self.state_index, strategy, rng)
        self.turn += 1
        self.heard_last = strategy
        self.transcript.append(f"{self.names['persuader']} says: {utterance}")
        text = self._persuadee_turn(agreed, s2, reply, strategy, rng)
        self.transcript.append(f"{self.names['persuadee']} says: {text}")
        self._done = self._over(agreed)
        info = {
            **self._info(),
            "utterance": utterance,
            "heard": self.version.heard[strategy],
            "declared": None if declared is None else PRINCIPLES[declared],
            "reply": text,
            "success": agreed,
            **self._step_extra(),
        }
        if self.expose_state:
            info["regret"] = regret
        if self._done:
            info["episode"] = self.episode_summary()
        return self._obs(), float(agreed), self._done, False, info

    # ------------------------------------------------------------------ the persuadee's turn
    def _persuadee_turn(self, agreed: bool, s2: Any, reply: Any, strategy: int, rng: np.random.Generator) -> str:
        """The persuadee's answer to the line just heard (its state moves; the belief is updated); its text."""
        if agreed:
            self.agreed = True
            return agree_line(self.scenario.goal, rng)
        if s2 is None:  # walked out (a version with walk-outs)
            self.left = True
            return leave_line(rng)
        self.state_index = int(s2)
        self.tone, self.topic = obs_parts(int(reply))
        if self.turn < self.horizon:
            self.posterior = self.model.update(self.posterior, strategy, int(reply))
        return self._reply_text(rng)

    def _over(self, agreed: bool) -> bool:
        return agreed or self.left or self.turn >= self.horizon

    def _step_extra(self) -> dict[str, Any]:
        """Keys a version adds to each step's info (``left`` where the persuadee may walk away)."""
        return {"left": self.left} if self.version.walk_outs else {}

    # ------------------------------------------------------------------ ToM contract (render, tom_truth, tom_outcome:
    # LiveText) and the text's parts
    def _references(self) -> dict[str, Any]:
        return {
            "bayes_success": self.refs.bayes,
            "oracle_success": self.refs.oracle,
            "open_loop_success": self.refs.open_loop,
        }

    #: the head of the options in :meth:`text`: the principles and their intentions
    options_head = "Persuasion principles (001, Table 3):"

    def _options(self) -> list[str]:
        return [f"{i}. {name}: {INTENTIONS[name]}" for i, name in enumerate(PRINCIPLES)]

    def _over_line(self) -> str:
        return "The conversation is over: the persuadee walked away." if self.left else "The conversation is over."

    # ------------------------------------------------------------------ summary

    def episode_summary(self) -> dict[str, Any]:
        outcome = self.tom_outcome()
        return {
            "family": self.family.name,
            "persona": self.family.personas[self.model.state(self.state_index).persona].name,
            "success": outcome["success"],
            "turns": self.turn,
            "regret": outcome["regret"],
            "bayes_success": outcome["bayes_success"],
            "oracle_success": outcome["oracle_success"],
            "open_loop_success": outcome["open_loop_success"],
            "heard": list(self._heard),
            "oracle_regret": float(sum(self._oracle_regrets)),
            **({"left": self.left} if self.version.walk_outs else {}),
            **({"bayes_upper": self.refs.bayes_upper} if self.version.bounded else {}),
        }

    # ------------------------------------------------------------------ helpers
    def _info(self) -> dict[str, Any]:
        return self._tag(super()._info())

    def _state_info(self) -> dict[str, Any]:
        st = self.model.state(self.state_index)
        return {
            "persona": self.family.personas[st.persona].name,
            "state_index": self.state_index,
            "state": {"persona": st.persona, "desire": st.desire, "belief": st.belief, "intention": st.concern},
        }

    def _obs(self) -> np.ndarray:
        return np.array(
            [self.tone, self.topic, self.heard_last, self.family_index, self.horizon - self.turn], dtype=np.int64
        )


class PersuasionMindV2Env(PersuasionMindEnv):
    """Persuade a persuadee whose words are evidence about its mind, not labels of it (v2).

    Everything of :class:`PersuasionMindEnv` (v1) holds, except (the configuration
    :data:`~tom_envs.persuasion.versions.V2`):

    * the persuadee (:mod:`tom_envs.persuasion.mind_v2`) voices its concern at persona-specific
      rates, often indirectly, sometimes not at all and sometimes misleadingly (a front concern);
      its trust shows in its tone with persona-specific noise; its concern may drift; a wary
      persuadee may walk away (the episode ends, reward 0, ``info["left"]`` True);
    * the reader (:class:`~tom_envs.persuasion.reader.ReaderV2` by default) hears negation,
      hostility, nonsense and keyword stuffing: an insult reads as ``hostile``, a pitch naming three
      principles as ``stuffed``, both with reactance; nonsense reads as ``nothing``;
    * references (:mod:`tom_envs.persuasion.planning_v2`) are bounds computed in seconds per family up to
      horizon 10: ``bayes_success`` is the guaranteed value of the point-based Bayes persuader,
      ``bayes_upper`` bounds the Bayes-optimal value from above; ``horizon`` > 10 raises
      :class:`~tom_envs.persuasion.planning_v2.UnsupportedHorizon`.

    ## Observation Space
    ``MultiDiscrete([3, 6, 10, n_families, horizon + 1])``: tone, topic (0 none, 1 + c: concern c
    voiced), the strategy read in the last line (0-5 principles, 6 nothing, 7 stuffed, 8 hostile,
    9 before the first), family, turns left.

    ## Arguments
    v1's, plus ``personas``: None (every persona of each family, the default) or persona names (a name or a
    list: thrifty, procrastinator, conformist, skeptic, cautious, busy): each family keeps only those, its
    prior renormalised over them, and the references are computed for that prior (held-out personas for
    training; :func:`~tom_envs.persuasion.mind_v2.restrict_personas`). A name no family has raises
    :class:`~tom_envs.persuasion.mind_v2.UnknownPersona`; a family left with none of them,
    :class:`~tom_envs.persuasion.principles.InvalidPersona`.

    ## Info
    v1's, plus ``version`` (2) and, in steps, ``left`` (the persuadee walked away); the episode summary adds
    ``left`` and ``bayes_upper``.

    ## Version History
    * v2: noisy, indirect and misleading replies at persona-specific rates; tone noise; concern drift;
      walking away; a reader of negation, hostility, nonsense and stuffing; bounded references to T = 10.
      Later, same dynamics and default: ``personas=`` restricts the personas drawn (issue 26).
    """

    version = V2
    episode_over = "the persuasion is over (agreement, walk-out or turn budget used); call env.reset()."

    def __init__(
        self,
        families: Any = None,
        horizon: int = 4,
        reader: Any = None,
        expose_state: bool = False,
        render_mode: str | None = None,
        personas: Any = None,
    ) -> None:
        self._setup(families, horizon, reader, expose_state, render_mode, personas)
        self._build()


__all__ = [
    "HEARD",
    "INTENTIONS",
    "LiveText",
    "MindSetup",
    "PROVENANCE",
    "PersuasionMindEnv",
    "PersuasionMindV2Env",
    "draw_episode",
    "parse_utterance_action",
    "resolve_families",
]
