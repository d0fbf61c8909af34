"""Legacy live persuasion v0 (retired, unregistered; see :mod:`tom_envs.persuasion.mind_env` for v1)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from tom_envs.errors import EpisodeEnded, InvalidAction, ResetNeeded, UnsupportedRenderMode, require_bool
from tom_envs.persuasion.personas import (ATTITUDES, DESIRES, NONE, PRINCIPLES, YES, InvalidPersona, Persona,
                                          PersuasionOracle, resolve_personas, solve)
from tom_envs.persuasion.persuadee import Persuadee
from tom_envs.persuasion.replies import (CUES, SCENARIOS, SILENT, Scenario, draw_cue, opening, persuader_line,
                                         reply_text, transcript_line)
from tom_envs.qa import DIALOGUE_HEADER, NOTHING_SAID
from tom_envs.scoring import prediction_matches
from tom_envs.tom import ToMSpec

_ORACLES: dict[tuple[str, int], PersuasionOracle] = {}


def oracle_for(persona: Persona, horizon: int) -> PersuasionOracle:
    """The (cached) optimal persuasion of ``persona`` within ``horizon`` turns."""
    key = (persona.model_dump_json(), horizon)
    if key not in _ORACLES:
        if len(_ORACLES) > 1024:
            _ORACLES.clear()
        _ORACLES[key] = solve(persona, horizon)
    return _ORACLES[key]


def parse_action(action: Any, n: int, what: str) -> tuple[int, str | None]:
    """An index in 0..n-1 (int, numpy integer, 0-d array) or ``{"action": i, "utterance": text}``.

    Raises:
        InvalidAction: anything else, with the accepted forms.
    """
    text = None
    if isinstance(action, dict):
        text = action.get("utterance")
        if text is not None and not isinstance(text, str):
            raise InvalidAction(f"the utterance must be a string, got {text!r}")
        action = action.get("action")
    ok_type = isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_))
    if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        ok_type, action = True, int(action)
    if not ok_type or not 0 <= int(action) < n:
        raise InvalidAction(f"the action is {what} (an integer in 0..{n - 1}), optionally as "
                            f"{{'action': i, 'utterance': text}}; got {action!r}")
    return int(action), text


def _label_index(value: Any, labels: tuple[str, ...], what: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, str) and value in labels:
        return labels.index(value)
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and 0 <= value < len(labels):
        return int(value)
    raise InvalidAction(f"a {what} prediction is one of {labels} or its index, got {value!r}")


class PersuasionEnv(gym.Env):
    """Persuade a simulated persuadee within a turn budget, one principle per turn (seed 001).

    The focal agent is the persuader. At every reset a persona (hidden traits: receptiveness to
    each of 001's six persuasion principles, reluctance, stubbornness; see
    :mod:`tom_envs.persuasion.personas`) and a scenario are drawn. The persuadee's desire
    (no / neutral / yes) moves stochastically when a principle lands or backfires; its attitude
    is the direction of the last move (:class:`~tom_envs.persuasion.persuadee.Persuadee`).
    Replies come from templates whose tone only hints at the hidden state
    (:mod:`tom_envs.persuasion.replies`).

    ToM contract (:mod:`tom_envs.tom`): literal-ToM targets ``desire`` and ``attitude``, each
    ``Discrete(3)`` -- the persuadee's state *before* the coming turn; ``tom_truth()`` after a
    step returns that state (the step resolved it). Functional outcome (``tom_outcome()``):
    ``success``, ``regret`` (summed, against the oracle persuader that knows the persona and sees
    the desire: dynamic programming, :func:`~tom_envs.persuasion.personas.solve`) and
    ``optimal_success``. Score with ``wrappers.ToMRecorder``.

    ## Action Space
    ``Discrete(6)``: the principle of this turn, in the order of Table 3 -- 0 reciprocity,
    1 scarcity, 2 consensus, 3 authority, 4 commitment & consistency, 5 liking. An LLM persuader
    may pass ``{"action": i, "utterance": text}``: the text is logged in the transcript and shown
    in place of the templated line. Anything else raises :class:`~tom_envs.errors.InvalidAction`.

    ## Observation Space
    ``MultiDiscrete([7, 7, horizon + 1])``: the tone of the persuadee's last reply (0 silent,
    1 annoyed, 2 dismissive, 3 deflecting, 4 hedging, 5 curious, 6 agreeing), the previous
    principle (6 before the first turn) and the turns left. The text form for LLMs is ``env.text()``
    (background, transcript, the list of principles): wrap the env in ``wrappers.TextObservation``
    to observe it (the text convention of :mod:`tom_envs.tom`).

    ## Rewards
    1.0 on the turn the persuadee agrees (desire reaches yes), else 0.0.

    ## Episode End
    Terminates on success or after ``horizon`` turns; never truncated by the env. ``step`` before
    ``reset`` raises :class:`~tom_envs.errors.ResetNeeded`, after the end
    :class:`~tom_envs.errors.EpisodeEnded`.

    ## Arguments
    * ``personas``: None / ``"archetypes"`` (the six built-in personas, drawn uniformly), a
      persona name, a dict of :class:`Persona` fields, or a list of those.
    * ``horizon``: the turn budget (default 5; 001's dialogues average 4.9 turns).
    * ``clarity``: probability that a reply's tone fits the hidden state (default 0.7).
    * ``expose_state``: default False; a bool only (anything else raises
      :class:`~tom_envs.errors.InvalidFlag`). True is for oracle baselines only
      (``policies.persuasion.OraclePersuader``): the infos then also carry the hidden persona,
      the oracle and the persuadee's current state (see Info), which break the information rule.
    * ``render_mode``: ``"ansi"`` (``render()`` returns the transcript).

    ## Info
    ``reset``: ``turn``, ``previous_principle`` (the text, once ``text`` here, is :meth:`text`).
    ``step`` adds ``principle`` (name), ``utterance``, ``reply``, ``cue``, ``success`` and, at the
    end, ``episode``: ``persona``, ``success``, ``turns``, ``optimal_success``, ``regret`` (the sum
    over the turns of V - Q of the chosen principle at the state it was chosen in: 0 for optimal
    choices, with the expected value optimal - achieved success probability), ``desire_accuracy``, ``attitude_accuracy``
    (percent of predicted turns; None without predictions), ``predictions``, ``scored`` (each turn's
    prediction handed to the deprecated :meth:`record_prediction`, scored; None for a turn without
    one). A turn's score is held back until then: whether a guess of the desire was right would
    tell the policy the hidden desire (the information rule). Nothing returned
    before the end determines the persona or the current desire and attitude (the information
    rule; a turn's regret would: it is a function of the persona's oracle). With
    ``expose_state=True`` the reset info also has ``partner`` (persona name), ``persona`` (its
    traits), ``oracle`` (:class:`PersuasionOracle`), ``optimal_success``; every info has
    ``persuadee`` (``{"desire", "attitude"}`` indices of the current state) and every step's info
    the turn's ``regret``. ``reset(options={"persona": name})`` forces a persona of the
    distribution.

    ## Version History
    * v0: initial version. Retired (no longer registered): knowing the persuadee's state is worth
      nothing over the best fixed plan of principles, so it does not test theory of mind. Use
      ``tom/Persuasion-v1`` (:class:`tom_envs.persuasion.mind_env.PersuasionMindEnv`). The
      deprecated :meth:`record_prediction` scores, once in each step's ``info["tom"]``, now come back
      only with the end, in ``info["episode"]["scored"]`` (issue 24: they told the desire).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1}
    tom_spec = ToMSpec(targets={"desire": spaces.Discrete(len(DESIRES)), "attitude": spaces.Discrete(len(ATTITUDES))},
                       outcome=("success", "regret", "optimal_success"))

    def __init__(self, personas: Any = None, horizon: int = 5, clarity: float = 0.7, expose_state: bool = False,
                 render_mode: str | None = None) -> None:
        if isinstance(horizon, bool) or not isinstance(horizon, (int, np.integer)) or horizon < 1:
            raise InvalidPersona(f"horizon is the turn budget, a positive integer; got {horizon!r}")
        if not 0.0 <= float(clarity) <= 1.0:
            raise InvalidPersona(f"clarity is a probability in [0, 1], got {clarity!r}")
        if render_mode not in (None, "ansi"):
            raise UnsupportedRenderMode(f"render_mode must be 'ansi' or None, got {render_mode!r}")
        self.distribution = resolve_personas(personas)
        self.horizon = int(horizon)
        self.clarity = float(clarity)
        self.expose_state = require_bool("expose_state", expose_state)
        self.render_mode = render_mode
        self.action_space = spaces.Discrete(len(PRINCIPLES))
        self.observation_space = spaces.MultiDiscrete([len(CUES), len(PRINCIPLES) + 1, self.horizon + 1])
        self._started = False
        self._done = True
        self._pending: dict[str, int] | None = None
        self._truth: dict[str, int] = {}

    # ------------------------------------------------------------------ API
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        self.persona = self._pick_persona(options)
        self.scenario: Scenario = SCENARIOS[int(self.np_random.integers(len(SCENARIOS)))]
        self.oracle = oracle_for(self.persona, self.horizon)
        self.persuadee = Persuadee(self.persona, self.np_random)
        self.cue, self.turn = SILENT, 0
        self.transcript: list[str] = []
        self._regrets: list[float] = []
        self._hits: dict[str, list[bool]] = {"desire": [], "attitude": []}
        self._scored: list[dict[str, Any] | None] = []
        self._truth = {}
        self._pending = None
        self._started, self._done = True, False
        info = self._state_info()
        if self.expose_state:
            info.update(partner=self.persona.name, persona=self.persona.model_dump(), oracle=self.oracle,
                        optimal_success=self.oracle.success_probability)
        return self._obs(), info

    def record_prediction(self, desire: Any = None, attitude: Any = None) -> None:
        """Deprecated: wrap the env in ``wrappers.ToMRecorder`` and hand it ``{"desire", "attitude"}``.

        The agent's literal-ToM guess of the persuadee's *current* desire and attitude, scored
        against the state before the next step; the scores come back only with the episode's end
        (``info["episode"]["scored"]``, the accuracies). Call it before :meth:`step`; either part may
        be None.
        Labels (``"no"``, ``"neutral"``, ``"yes"``; ``"resistant"``, ``"unmoved"``,
        ``"receptive"``) or indices are accepted.
        """
        guesses = {"desire": _label_index(desire, DESIRES, "desire"),
                   "attitude": _label_index(attitude, ATTITUDES, "attitude")}
        self._pending = {k: v for k, v in guesses.items() if v is not None}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        if not self._started:
            raise ResetNeeded("step() was called before reset(); call env.reset(seed=...) first.")
        if self._done:
            raise EpisodeEnded("the persuasion is over (success or turn budget used); call env.reset().")
        principle, utterance = parse_action(action, len(PRINCIPLES), "a persuasion principle")
        p = self.persuadee
        self._truth = {"desire": p.desire, "attitude": p.attitude}
        regret = self.oracle.gap(self.turn, p.desire, p.previous, principle)
        self._regrets.append(regret)
        p.hear(principle, self.np_random)
        self.turn += 1
        self._scored.append(self._score_pending())
        utterance = utterance if utterance is not None else persuader_line(principle, self.scenario, self.turn)
        self.cue = draw_cue(p.desire, p.attitude, self.clarity, self.np_random)
        reply = reply_text(self.cue, int(self.np_random.integers(2)))
        self.transcript += [transcript_line(self.scenario.persuader, utterance),
                            transcript_line(self.scenario.persuadee, reply)]
        success = p.convinced
        self._done = success or self.turn >= self.horizon
        info = {"principle": PRINCIPLES[principle], "utterance": utterance, "reply": reply, "cue": CUES[self.cue],
                "success": success, **self._state_info()}
        if self.expose_state:
            info["regret"] = regret
        if self._done:
            info["episode"] = self.episode_summary()
        return self._obs(), float(success), self._done, False, info

    def render(self) -> str | None:
        if self.render_mode is None:
            gym.logger.warn("render() was called without a render_mode; pass render_mode='ansi'.")
            return None
        return self.text() if self._started else ""

    # ------------------------------------------------------------------ ToM contract
    def tom_truth(self) -> dict[str, int]:
        """The persuadee's desire and attitude before the last step (what a prediction made then was
        about); empty after a reset."""
        return dict(self._truth)

    def tom_outcome(self) -> dict[str, Any]:
        """``success`` so far, the summed ``regret`` and the oracle's ``optimal_success``."""
        if not self._started:
            return {"success": False, "regret": 0.0, "optimal_success": None}
        return {"success": self.persuadee.convinced, "regret": float(sum(self._regrets)),
                "optimal_success": self.oracle.success_probability}

    # ------------------------------------------------------------------ text and summary
    def text(self) -> str:
        """The prompt for an LLM persuader: scenario, transcript, principles to choose from."""
        lines = [opening(self.scenario), "", DIALOGUE_HEADER]
        lines += self.transcript or [NOTHING_SAID]
        if self._done:
            return "\n".join(lines + ["", "The conversation is over."])
        lines += ["", f"Turn {self.turn + 1} of {self.horizon}. Choose the principle of your next line:"]
        lines += [f"{i}. {name}" for i, name in enumerate(PRINCIPLES)]
        return "\n".join(lines)

    def episode_summary(self) -> dict[str, Any]:
        """Metrics of the episode so far (also ``info["episode"]`` at the end)."""
        outcome = self.tom_outcome()
        return {"persona": self.persona.name, "success": outcome["success"], "turns": self.turn,
                "optimal_success": outcome["optimal_success"], "regret": outcome["regret"],
                "desire_accuracy": _pct(self._hits["desire"]), "attitude_accuracy": _pct(self._hits["attitude"]),
                "predictions": len(self._hits["desire"]) + len(self._hits["attitude"]),
                "scored": list(self._scored)}

    # ------------------------------------------------------------------ helpers
    def _pick_persona(self, options: dict | None) -> Persona:
        if options and "persona" in options:
            for p in self.distribution.personas:
                if p.name == options["persona"]:
                    return p
            raise InvalidPersona(f"persona {options['persona']!r} is not in this env's distribution "
                                 f"({', '.join(p.name for p in self.distribution.personas)})")
        return self.distribution.draw(self.np_random)

    def _score_pending(self) -> dict[str, Any] | None:
        """The deprecated :meth:`record_prediction` path: score the pending guess against the truth."""
        pending, self._pending = self._pending, None
        if pending is None:
            return None
        out: dict[str, Any] = {f"{t}_prediction": pending.get(t) for t in self._hits}
        for target, hits in self._hits.items():
            correct = None if target not in pending else prediction_matches(pending[target], self._truth[target])[0] == 1
            out[f"{target}_correct"] = correct
            if correct is not None:
                hits.append(correct)
        return out

    def _state_info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"turn": self.turn, "previous_principle": self.persuadee.previous}
        if self.expose_state:
            info["persuadee"] = {"desire": self.persuadee.desire, "attitude": self.persuadee.attitude}
        return info

    def _obs(self) -> np.ndarray:
        return np.array([self.cue, self.persuadee.previous, self.horizon - self.turn], dtype=np.int64)


def _pct(hits: list[bool]) -> float | None:
    return 100.0 * sum(hits) / len(hits) if hits else None
