"""Two-seat live persuasion v2 (PettingZoo AEC, ``tom/Persuasion-TwoSeat-v2``): v2's persuadee in a seat."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from tom_envs.persuasion.mind import N_OBS
from tom_envs.persuasion.mind_env_v2 import V2Setup, check_reading_v2
from tom_envs.persuasion.mind_text_v2 import leave_line, reply_line_v2
from tom_envs.persuasion.mind_two_seat import (AGREE, FAITHFUL, PERSUADEE, PersuadeeSeatView,
                                               PersuasionMindAECEnv)
from tom_envs.persuasion.mind_v2 import HEARD_V2, reply_v2
from tom_envs.tom import ToMSpec

LEAVE = N_OBS + 2  # the persuadee's reply "I'm leaving" (the persuasion failed)
N_REPLIES_V2 = N_OBS + 3
PERSUADEE_SPEC_V2 = ToMSpec(targets={"strategy": spaces.Discrete(len(HEARD_V2))}, outcome=("fidelity", "replies"),
                            predictor=PERSUADEE)


class PersuadeeSeatViewV2(PersuadeeSeatView):
    """The persuadee seat's ToM contract on v2: ``strategy`` is ``Discrete(9)`` (principles, nothing,
    stuffed, hostile)."""

    def __init__(self, env: "PersuasionMindV2AECEnv") -> None:
        super().__init__(env)
        self.tom_spec = PERSUADEE_SPEC_V2


class PersuasionMindV2AECEnv(V2Setup, PersuasionMindAECEnv):
    """The two-seat twin of ``tom/Persuasion-v2``: v1's two-seat env
    (:class:`~tom_envs.persuasion.mind_two_seat.PersuasionMindAECEnv`) with v2's mind, reader, text and
    references (:mod:`tom_envs.persuasion.mind_env_v2`).

    ## Action Space
    ``persuader_0``: as v1. ``persuadee_0``: ``Discrete(21)``: 0-17 a reply (tone * 6 + topic), 18 agree,
    19 faithful ("as my mind does"), 20 leave (walk away: the episode ends, the persuasion failed).

    ## Observation Space
    As v1, the strategy read ranging over 0-8 (8 hostile, 7 stuffed, 6 nothing) and 9 before the first line.

    ## Rewards
    ``persuadee_0``: 1.0 per reply its mind allows: agreeing or leaving exactly when the persona did;
    otherwise any reply the persona's v2 reply distribution gives positive probability (tone noise,
    misleading fronts and silence included).

    ## Version History
    * v2: v2's persuadee (:mod:`tom_envs.persuasion.mind_v2`), reader and bounded references; walk-outs.
    """

    metadata = {"name": "tom_persuasion_two_seat_v2", "render_modes": ["ansi"], "is_parallelizable": False}
    N_REPLY_ACTIONS = N_REPLIES_V2
    REPLY_FORMS = f"{AGREE} agree, {FAITHFUL} as its mind does, {LEAVE} leave"
    SEAT_VIEW = PersuadeeSeatViewV2

    def __init__(self, families: Any = None, horizon: int = 4, reader: Any = None, expose_state: bool = False,
                 render_mode: str | None = None) -> None:
        super().__init__(families, horizon, reader, expose_state, render_mode)
        self.left, self.mind_left, self._landed = False, False, False

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        super().reset(seed, options)
        self.left, self.mind_left, self._landed = False, False, False

    # ------------------------------------------------------------------ what v2 changes in a turn
    def _read_line(self, utterance: str) -> int:
        return check_reading_v2(self.reader.read(utterance, self.scenario.goal), self.reader)

    def _final_draw(self) -> int | None:
        return LEAVE if self.mind_left else super()._final_draw()

    def _mind_moves(self, st: Any, agreed: bool, s2: int | None, reply: int | None) -> None:
        if not agreed and s2 is None:  # the persuadee walks out
            self.mind_left, self.drawn = True, LEAVE
            return
        if not agreed:
            self._landed = self.model.state(int(s2)).desire > st.desire  # type: ignore[arg-type]
        super()._mind_moves(st, agreed, s2, reply)

    def _end_line(self, reply: int, text: str | None, rng: np.random.Generator) -> str | None:
        if reply != LEAVE:
            return None
        self.left = True
        return text if text is not None else leave_line(rng)

    def _reply_text(self, rng: np.random.Generator) -> str:
        return reply_line_v2(self.tone, self.topic, rng)

    def _over(self) -> bool:
        return self.agreed or self.left or self.round >= self.horizon

    def _allowed(self, reply: int) -> bool:
        """Whether the persona's v2 mind could have given ``reply`` now."""
        if self.drawn in (AGREE, LEAVE) or reply in (AGREE, LEAVE):
            return reply == self.drawn
        st = self.model.state(self.state_index)
        return bool(reply_v2(self.family.personas[st.persona], self._landed, st.belief, st.concern)[reply] > 0)

    def _info(self, agent: str) -> dict[str, Any]:
        return {**super()._info(agent), "version": 2}


def env(**kwargs: Any) -> PersuasionMindV2AECEnv:
    """The AEC env (PettingZoo module convention)."""
    return PersuasionMindV2AECEnv(**kwargs)


__all__ = ["LEAVE", "N_REPLIES_V2", "PersuasionMindV2AECEnv", "PersuadeeSeatViewV2", "env"]
