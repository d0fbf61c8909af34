"""Step 1 of the "add a family" tutorial (docs/tutorial_add_a_family.md): the environment.

A Sally-Anne false-belief task as a Gymnasium env (the ``tom_envs`` layer of the plugin: it imports
``tom_envs`` only). The agent watches a room: a marble sits in one of two boxes, Anne sometimes moves
it, and Sally steps out and back in. Each turn the agent answers: where will Sally look for the
marble? Sally looks where she last saw it, so while she is out her belief goes stale -- the classic
false belief. The agent sees where the marble is, but only a noisy cue of whether Sally is in the
room; after each answer it sees where she looked.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from tom_envs.errors import InvalidAction, TomEnvsError, UnsupportedRenderMode, check_options, check_running
from tom_envs.tom import ToMSpec

BOXES = ("basket", "box")
#: What the cue shows: the door, closed (Sally seems out) or open (Sally seems in).
CUES = ("door closed", "door open")


class FalseBeliefError(TomEnvsError, ValueError):
    """Bad arguments to :class:`FalseBeliefEnv`."""


class FalseBeliefEnv(gym.Env):
    """Where will Sally look for the marble?

    At reset the marble is put in a box drawn from the seed while Sally watches. Before each turn
    the world moves on: Sally leaves or comes back with probability ``p_leave``, and Anne moves the
    marble to the other box with probability ``p_move``; Sally sees the marble whenever she is in
    the room. The agent then answers where Sally will look (her belief: the box she last saw the
    marble in); after the answer Sally looks, and the agent is told where.

    ## Action Space
    ``Discrete(2)``: the box Sally will look in (0 basket, 1 box).

    ## Observation Space
    ``MultiDiscrete([2, 2, 3, turns + 1])``: where the marble is now, the cue (0 door closed, 1 door
    open: right with probability ``cue_accuracy``), where Sally looked last turn (2 before the first
    turn) and the turns left.

    ## Rewards
    1.0 when the answer is where Sally looks, else 0.0.

    ## Episode End
    After ``turns`` answers. ``step`` before ``reset`` raises ``ResetNeeded``, after the end
    ``EpisodeEnded``; an action outside the space raises ``InvalidAction``.

    ## Arguments
    * ``turns``: answers per episode (default 6).
    * ``p_leave``: probability that Sally leaves or comes back before a turn (default 0.35).
    * ``p_move``: probability that Anne moves the marble before a turn (default 0.5).
    * ``cue_accuracy``: probability that the door shows where Sally is (default 0.8).
    * ``render_mode``: ``"ansi"`` or None.

    ## Info
    ``turn``; after a step also ``looked`` (where Sally looked) and ``correct``.

    ## ToM contract
    Target ``looks`` (``Discrete(2)``: where Sally will look), resolved by each step; outcome
    ``accuracy`` (share of turns answered right) and ``false_belief_turns`` (turns on which Sally's belief
    was wrong, where answering with the marble's place fails).

    ## Version History
    * v0: the tutorial's env.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1}
    tom_spec = ToMSpec(targets={"looks": spaces.Discrete(2)}, outcome=("accuracy", "false_belief_turns"))
    #: what a policy may read: the whole observation and the info (the information rule's public part)
    tom_public = ("obs[0]", "obs[1]", "obs[2]", "obs[3]", "info.turn", "info.looked", "info.correct")

    def __init__(
        self,
        turns: int = 6,
        p_leave: float = 0.35,
        p_move: float = 0.5,
        cue_accuracy: float = 0.8,
        render_mode: str | None = None,
    ) -> None:
        if isinstance(turns, bool) or not isinstance(turns, (int, np.integer)) or turns < 1:
            raise FalseBeliefError(f"turns is a positive integer, got {turns!r}")
        for name, p in (("p_leave", p_leave), ("p_move", p_move), ("cue_accuracy", cue_accuracy)):
            if not 0.0 <= float(p) <= 1.0:
                raise FalseBeliefError(f"{name} is a probability in [0, 1], got {p!r}")
        if render_mode not in (None, "ansi"):
            raise UnsupportedRenderMode(f"render_mode must be 'ansi' or None, got {render_mode!r}")
        self.turns, self.p_leave, self.p_move = int(turns), float(p_leave), float(p_move)
        self.cue_accuracy, self.render_mode = float(cue_accuracy), render_mode
        self.action_space = spaces.Discrete(2)
        self.observation_space = spaces.MultiDiscrete([2, 2, 3, self.turns + 1])
        self._started, self._done = False, True
        self._truth: dict[str, int] = {}

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        check_options(options, (), type(self).__name__)
        self.marble = int(self.np_random.integers(2))
        self.present, self.belief, self.looked = True, self.marble, 2
        self.turn, self.hits, self.false_turns = 0, 0, 0
        self._truth = {}
        self._started, self._done = True, False
        self._world_moves()
        return self._obs(), {"turn": self.turn}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        check_running(self._started, self._done, "the episode is over (every turn answered); call env.reset().")
        if not self.action_space.contains(action):
            raise InvalidAction(f"the action is a box index, 0 (basket) or 1 (box); got {action!r}")
        self._truth = {"looks": self.belief}
        correct = int(action) == self.belief
        self.hits += correct
        self.false_turns += self.belief != self.marble
        self.looked, self.turn = self.belief, self.turn + 1
        self._done = self.turn >= self.turns
        if not self._done:
            self._world_moves()
        return (
            self._obs(),
            float(correct),
            self._done,
            False,
            {"turn": self.turn, "looked": self.looked, "correct": correct},
        )

    def _world_moves(self) -> None:
        """Sally may leave or come back, Anne may move the marble, and Sally sees it if she is in."""
        rng = self.np_random
        if rng.random() < self.p_leave:
            self.present = not self.present
        if rng.random() < self.p_move:
            self.marble = 1 - self.marble
        if self.present:
            self.belief = self.marble
        self.cue = int(self.present) if rng.random() < self.cue_accuracy else int(not self.present)

    def _obs(self) -> np.ndarray:
        return np.array([self.marble, self.cue, self.looked, self.turns - self.turn], dtype=np.int64)

    # ------------------------------------------------------------------ ToM contract
    def tom_truth(self) -> dict[str, int]:
        """Where Sally looked on the last step (empty after a reset)."""
        return dict(self._truth)

    def tom_outcome(self) -> dict[str, Any]:
        answered = self.turn if self._started else 0
        return {
            "accuracy": self.hits / answered if answered else None,
            "false_belief_turns": self.false_turns if self._started else 0,
        }

    # ------------------------------------------------------------------ text
    def text(self) -> str:
        """The question in words (for a language model), rendered from the observation only."""
        marble, cue, looked, left = (int(v) for v in self._obs())
        seen = "" if looked == 2 else f" Last time Sally looked in the {BOXES[looked]}."
        return (
            f"The marble is in the {BOXES[marble]}; the {CUES[cue]}.{seen} {left} question(s) left. "
            "Where will Sally look for the marble? Answer 0 (basket) or 1 (box)."
        )

    def render(self) -> str | None:
        if self.render_mode is None:
            gym.logger.warn("render() was called without a render_mode; pass render_mode='ansi'.")
            return None
        return self.text() if self._started else ""
