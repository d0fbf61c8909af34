"""Two-seat live persuasion v2 (PettingZoo AEC, ``tom/Persuasion-TwoSeat-v2``): v2's persuadee in a seat."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from tom_envs.errors import InvalidAction
from tom_envs.persuasion.mind import N_OBS, TONES, TOPICS, obs_parts
from tom_envs.persuasion.mind_env import parse_utterance_action, resolve_families
from tom_envs.persuasion.mind_env_v2 import NOT_YET_V2, V2, check_reading_v2
from tom_envs.persuasion.mind_text import agree_line, persuader_line
from tom_envs.persuasion.mind_text_v2 import leave_line, reply_line_v2
from tom_envs.persuasion.mind_two_seat import (AGREE, FAITHFUL, PERSUADEE, PERSUADER, PersuadeeSeatView,
                                               PersuasionMindAECEnv)
from tom_envs.persuasion.mind_v2 import HEARD_V2, model_v2_for, reply_v2
from tom_envs.persuasion.planning_v2 import check_horizon_v2
from tom_envs.persuasion.principles import PRINCIPLES
from tom_envs.persuasion.reader_v2 import ReaderV2
from tom_envs.persuasion.scenarios import FAMILIES_V2
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


class PersuasionMindV2AECEnv(PersuasionMindAECEnv):
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
    mind_version = V2

    def __init__(self, families: Any = None, horizon: int = 4, reader: Any = None, expose_state: bool = False,
                 render_mode: str | None = None) -> None:
        check_horizon_v2(horizon)
        super().__init__(families, horizon, ReaderV2() if reader is None else reader, expose_state, render_mode)
        self.families = resolve_families(families, FAMILIES_V2)
        for f in self.families:
            model_v2_for(f)
        high = np.array([len(TONES) - 1, len(TOPICS) - 1, NOT_YET_V2, len(self.families) - 1, self.horizon],
                        dtype=np.int64)
        self.observation_spaces = {a: spaces.Box(0, high, shape=(5,), dtype=np.int64) for a in self.possible_agents}
        self.action_spaces = {PERSUADER: spaces.Discrete(len(PRINCIPLES)), PERSUADEE: spaces.Discrete(N_REPLIES_V2)}
        self.left, self.mind_left, self._landed = False, False, False

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        super().reset(seed, options)
        self.heard_last = NOT_YET_V2
        self.left, self.mind_left, self._landed = False, False, False

    def seat_view(self, agent: str = PERSUADEE) -> PersuadeeSeatViewV2:
        if agent != PERSUADEE:
            raise InvalidAction(f"seat_view is the persuadee seat's ({PERSUADEE}); the persuader's is the env's tom_spec")
        return PersuadeeSeatViewV2(self)

    def _persuader_turn(self, action: Any) -> None:
        declared, utterance = parse_utterance_action(action)
        rng = self.np_random
        if utterance is None:
            strategy = int(declared)  # type: ignore[arg-type]
            utterance = persuader_line(PRINCIPLES[strategy], self.scenario.goal, rng)
        else:
            strategy = check_reading_v2(self.reader.read(utterance, self.scenario.goal), self.reader)
        self._seat_truth = {"strategy": strategy}
        if self.mind_agreed or self.mind_left:
            self._truth = {}
            self.drawn = AGREE if self.mind_agreed else LEAVE
        else:
            st = self.model.state(self.state_index)
            self._truth = {"desire": st.desire, "belief": st.belief, "intention": st.concern}
            if self.posterior is not None:
                self._regrets.append(self.planner.gap(self.posterior, self.round, strategy))
            agreed, s2, reply = self.model.sample_step(self.state_index, strategy, rng)
            if agreed:
                self.mind_agreed, self.drawn = True, AGREE
            elif s2 is None:
                self.mind_left, self.drawn = True, LEAVE
            else:
                self._landed = self.model.state(int(s2)).desire > st.desire
                self.state_index, self.drawn = int(s2), int(reply)  # type: ignore[arg-type]
        self._strategy = strategy
        self.heard_last = strategy
        self.transcript.append(f"{self.names['persuader']} says: {utterance}")
        self.agent_selection = PERSUADEE

    def _persuadee_turn(self, action: Any) -> None:
        if isinstance(action, dict):
            reply, text = self._parse_reply(action.get("action", FAITHFUL)), action.get("utterance")
            if text is not None and not isinstance(text, str):
                raise InvalidAction(f"the utterance must be a string, got {text!r}")
        else:
            reply, text = self._parse_reply(action), None
        if reply == FAITHFUL:
            reply = self.drawn
        allowed = self._allowed(reply)
        self._truth, self._seat_truth = {}, {}
        rng = self.np_random
        opening, self.opening = self.opening, False
        if not opening:
            self._faithful.append(allowed)
            self.rewards[PERSUADEE] = float(allowed)
            self.round += 1
        if reply == AGREE:
            self.agreed = True
            line = text if text is not None else agree_line(self.scenario.goal, rng)
            self.rewards[PERSUADER] = 1.0
        elif reply == LEAVE:
            self.left = True
            line = text if text is not None else leave_line(rng)
        else:
            self.tone, self.topic = obs_parts(reply)
            line = text if text is not None else reply_line_v2(self.tone, self.topic, rng)
            self._track(reply, opening)
        self.transcript.append(f"{self.names['persuadee']} says: {line}")
        if self.agreed or self.left or self.round >= self.horizon:
            self.terminations = {a: True for a in self.agents}
        self.agent_selection = PERSUADER

    def _parse_reply(self, action: Any) -> int:
        if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
            action = int(action)
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)) \
                or not 0 <= int(action) < N_REPLIES_V2:
            raise InvalidAction(f"the persuadee replies with an index in 0..{N_REPLIES_V2 - 1} (0-17 tone * 6 + topic, "
                                f"{AGREE} agree, {FAITHFUL} as its mind does, {LEAVE} leave), optionally as "
                                f"{{'action': i, 'utterance': text}}; got {action!r}")
        return int(action)

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
