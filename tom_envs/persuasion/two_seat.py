"""Two-seat persuasion (PettingZoo AEC): the persuadee seat is taken by another agent."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import logger, spaces

from tom_envs.aec import TomAECEnv
from tom_envs.errors import UnsupportedRenderMode
from tom_envs.persuasion.live import parse_action
from tom_envs.persuasion.personas import DESIRES, NONE, PRINCIPLES, YES, InvalidPersona
from tom_envs.persuasion.replies import SCENARIOS, Scenario, opening, persuader_line, transcript_line
from tom_envs.tom import ToMSpec

PERSUADER, PERSUADEE = "persuader_0", "persuadee_0"
NO_STANCE = len(DESIRES)  # "has not answered yet"
_STANCE_REPLIES = ("No, I'd rather not.", "I'm not sure yet.", "Yes, all right, I'll do it.")


class PersuasionAECEnv(TomAECEnv):
    """A persuader and a persuadee take turns; both seats are agents (e.g. two LLMs).

    Each round the persuader picks a principle (optionally with an utterance), then the
    persuadee states its stance (no / neutral / yes, optionally with an utterance). A stance of
    yes ends the episode with success; otherwise it ends after ``horizon`` rounds. The simulated
    persuadee of :class:`~tom_envs.persuasion.live.PersuasionEnv` can fill the persuadee seat
    through ``policies.persuasion.SimulatedPersuadee``.

    ## Action Space
    ``persuader_0``: ``Discrete(6)``, a principle (Table 3 order). ``persuadee_0``: ``Discrete(3)``,
    0 no, 1 neutral, 2 yes. Either may be ``{"action": i, "utterance": text}``; the text goes into
    the transcript (:meth:`text`) in place of the templated line.

    ## Observation Space
    Both seats see the public state, an int64 ``Box`` of shape (4,) with bounds
    ``[6, 6, 3, horizon]``: the persuader's latest principle (6 none yet), the one before it,
    the persuadee's last stance (3 before its first answer) and the rounds left. (A ``Box``
    rather than ``MultiDiscrete``, as PettingZoo's API test asks.) The text form for LLMs is
    ``env.text(agent)``; wrap the env in ``wrappers.AECTextObservation`` to observe it (the text
    convention of :mod:`tom_envs.tom`).

    ## Rewards
    ``persuader_0`` 1.0 when the persuadee says yes; ``persuadee_0`` 0.0 (its objective is its own).

    ## Episode End
    Both agents terminate on a yes or after ``horizon`` rounds. ``step`` before ``reset`` raises
    :class:`~tom_envs.errors.ResetNeeded`; with no agents left,
    :class:`~tom_envs.errors.EpisodeEnded`.

    ## Arguments
    * ``horizon``: rounds (default 5). * ``render_mode``: ``"ansi"`` returns the transcript.

    ## Info
    ``round``; the persuadee's info also has its own
    ``stance`` once it has answered. The scenario is drawn from ``np_random`` at reset. The env
    keeps no hidden state of the persuadee (an agent in that seat keeps its own, e.g. a persona),
    so nothing returned can give it away; the persuader sees a stance only once it is stated.

    ## ToM contract
    :mod:`tom_envs.tom`: the predictor is ``persuader_0``; its one literal-ToM target is
    ``stance`` (``Discrete(3)``): the stance the persuadee will state in its coming answer, which
    is the state the persuadee seat reveals. ``tom_truth()`` is ``{"stance": s}`` after the
    persuadee's step, else empty. ``tom_outcome()``: ``success`` (a yes so far) and ``rounds``.
    Score with ``wrappers.AECToMRecorder``.

    ## Version History
    * v0: initial version.
    """

    metadata = {"name": "tom_persuasion_two_seat_v0", "render_modes": ["ansi"], "is_parallelizable": False}
    tom_spec = ToMSpec(targets={"stance": spaces.Discrete(len(DESIRES))}, outcome=("success", "rounds"),
                       predictor=PERSUADER)

    def __init__(self, horizon: int = 5, render_mode: str | None = None) -> None:
        super().__init__()
        if isinstance(horizon, bool) or not isinstance(horizon, (int, np.integer)) or horizon < 1:
            raise InvalidPersona(f"horizon is the number of rounds, a positive integer; got {horizon!r}")
        if render_mode not in (None, "ansi"):
            raise UnsupportedRenderMode(f"render_mode must be 'ansi' or None, got {render_mode!r}")
        self.horizon = int(horizon)
        self.render_mode = render_mode
        self.possible_agents = [PERSUADER, PERSUADEE]
        n_p = len(PRINCIPLES)
        high = np.array([n_p, n_p, len(DESIRES), self.horizon], dtype=np.int64)
        self.observation_spaces = {a: spaces.Box(0, high, shape=(4,), dtype=np.int64) for a in self.possible_agents}
        self.action_spaces = {PERSUADER: spaces.Discrete(n_p), PERSUADEE: spaces.Discrete(len(DESIRES))}

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        rng = self.reseed(seed)
        self.scenario: Scenario = SCENARIOS[int(rng.integers(len(SCENARIOS)))]
        self.start_episode(PERSUADER)
        self.round, self.principle, self.previous, self.stance = 0, NONE, NONE, NO_STANCE
        self.transcript: list[str] = []
        self.infos = {a: self._info(a) for a in self.agents}

    def observe(self, agent: str) -> np.ndarray:
        return np.array([self.principle, self.previous, self.stance, self.horizon - self.round], dtype=np.int64)

    def play(self, agent: str, action: Any) -> None:
        if agent == PERSUADER:
            self._persuader_turn(action)
        else:
            self._persuadee_turn(action)
        self.infos = {a: self._info(a) for a in self.agents}

    def text(self, agent: str) -> str:
        """What an LLM in ``agent``'s seat reads now: who it is, the scenario and the transcript."""
        head = f"You are {self.scenario.persuader}, the persuader." if agent == PERSUADER else (
            f"You are {self.scenario.persuadee}; decide whether you are convinced.")
        return "\n".join([head, opening(self.scenario), *self.transcript])

    def render(self) -> str | None:
        if self.render_mode is None:
            logger.warn("render() was called without a render_mode; pass render_mode='ansi'.")
            return None
        return "\n".join([opening(self.scenario), *self.transcript]) if self.started else ""

    # ------------------------------------------------------------------ ToM contract
    def tom_outcome(self) -> dict[str, Any]:
        """``success`` (the persuadee said yes) and the ``rounds`` played."""
        if not self.started:
            return {"success": False, "rounds": 0}
        return {"success": self.stance == YES, "rounds": self.round}

    # ------------------------------------------------------------------ turns
    def _persuader_turn(self, action: Any) -> None:
        p, text = parse_action(action, len(PRINCIPLES), "a persuasion principle")
        self.previous, self.principle = self.principle, p
        line = text if text is not None else persuader_line(p, self.scenario, self.round)
        self.transcript.append(transcript_line(self.scenario.persuader, line))
        self.agent_selection = PERSUADEE

    def _persuadee_turn(self, action: Any) -> None:
        s, text = parse_action(action, len(DESIRES), "a stance (0 no, 1 neutral, 2 yes)")
        self.stance = s
        self.resolve(stance=s)
        self.transcript.append(transcript_line(self.scenario.persuadee, text if text is not None else _STANCE_REPLIES[s]))
        self.round += 1
        if s == YES:
            self.rewards[PERSUADER] = 1.0
        if s == YES or self.round >= self.horizon:
            self.terminations = {a: True for a in self.agents}
        self.agent_selection = PERSUADER

    def _info(self, agent: str) -> dict[str, Any]:
        info: dict[str, Any] = {"round": self.round}
        if agent == PERSUADEE and self.stance != NO_STANCE:
            info["stance"] = DESIRES[self.stance]
        return info


def env(**kwargs: Any) -> PersuasionAECEnv:
    """The AEC env (PettingZoo module convention)."""
    return PersuasionAECEnv(**kwargs)
