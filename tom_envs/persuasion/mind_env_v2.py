"""Live persuasion v2: a persuadee that must be read, not echoed (``tom/Persuasion-v2``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from tom_envs.persuasion.mind_env import MindSetup, PersuasionMindEnv
from tom_envs.persuasion.mind_text_v2 import leave_line, reply_line_v2
from tom_envs.persuasion.mind_v2 import HEARD_V2, N_STRATEGIES_V2, model_v2_for, restrict_personas
from tom_envs.persuasion.planning_v2 import MAX_HORIZON, check_horizon_v2, point_planner_for, references_v2
from tom_envs.persuasion.reader import ReaderError
from tom_envs.persuasion.reader_v2 import ReaderV2
from tom_envs.persuasion.scenarios import FAMILIES_V2

NOT_YET_V2 = N_STRATEGIES_V2  # the "heard" entry before the first line


@dataclass(frozen=True)
class MindVersion:
    """What a live-persuasion version compiles and plans with (read by ``draw_episode``)."""

    model: Callable[[Any], Any]
    planner: Callable[[Any, int], Any]
    references: Callable[[Any, int], Any]


V2 = MindVersion(model_v2_for, point_planner_for, references_v2)


def check_reading_v2(value: object, reader: object = None) -> int:
    """A reader's output as an int in 0..8 (the principles, nothing, stuffed, hostile).

    Raises:
        ReaderError: anything else, naming the reader and what came back.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
            or not 0 <= value < N_STRATEGIES_V2:
        raise ReaderError(f"the reader {type(reader).__name__} returned {value!r}; a v2 reader returns 0..5 (a "
                          "principle), 6 (nothing), 7 (stuffed) or 8 (hostile)")
    return int(value)


class V2Setup(MindSetup):
    """v2's construction (both v2 envs): v2's families (compiled at once: a v1 persona raises, naming the fix),
    horizon 1..:data:`MAX_HORIZON`, :class:`~tom_envs.persuasion.reader_v2.ReaderV2` by default, v2's strategies."""

    BUILTIN_FAMILIES = FAMILIES_V2
    NOT_YET_INDEX = NOT_YET_V2
    mind_version = V2

    def _check_horizon(self, horizon: Any) -> None:
        check_horizon_v2(horizon)

    def _check_families(self) -> None:
        for f in self.families:
            model_v2_for(f)

    @staticmethod
    def _default_reader() -> Any:
        return ReaderV2()


class PersuasionMindV2Env(V2Setup, PersuasionMindEnv):
    """Persuade a persuadee whose words are evidence about its mind, not labels of it (v2).

    Everything of :class:`~tom_envs.persuasion.mind_env.PersuasionMindEnv` (v1) holds, except:

    * the persuadee (:mod:`tom_envs.persuasion.mind_v2`) voices its concern at persona-specific
      rates, often indirectly, sometimes not at all and sometimes misleadingly (a front concern);
      its trust shows in its tone with persona-specific noise; its concern may drift; a wary
      persuadee may walk away (the episode ends, reward 0, ``info["left"]`` True);
    * the reader (:class:`~tom_envs.persuasion.reader_v2.ReaderV2` by default) hears negation,
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

    episode_over = "the persuasion is over (agreement, walk-out or turn budget used); call env.reset()."

    def __init__(self, families: Any = None, horizon: int = 4, reader: Any = None, expose_state: bool = False,
                 render_mode: str | None = None, personas: Any = None) -> None:
        super().__init__(families, horizon, reader, expose_state, render_mode)
        if personas is not None:
            self.families = restrict_personas(self.families, personas)
            self._check_families()
        self.left = False

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        self.left = False
        return super().reset(seed=seed, options=options)

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        return super().step(action)

    # ------------------------------------------------------------------ what v2 changes in a step
    HEARD_NAMES = HEARD_V2

    def _read_line(self, utterance: str) -> int:
        return check_reading_v2(self.reader.read(utterance, self.scenario.goal), self.reader)

    def _reply_text(self, rng: np.random.Generator) -> str:
        return reply_line_v2(self.tone, self.topic, rng)

    def _persuadee_turn(self, agreed: bool, s2: Any, reply: Any, strategy: int, rng: np.random.Generator) -> str:
        if not agreed and s2 is None:  # the persuadee walks out
            self.left = True
            return leave_line(rng)
        return super()._persuadee_turn(agreed, s2, reply, strategy, rng)

    def _over(self, agreed: bool) -> bool:
        return agreed or self.left or self.turn >= self.horizon

    def _step_extra(self) -> dict[str, Any]:
        return {"left": self.left}

    def text(self) -> str:
        out = super().text()
        if self.left:
            out = out.replace("The conversation is over.", "The conversation is over: the persuadee walked away.")
        return out

    def episode_summary(self) -> dict[str, Any]:
        return {**super().episode_summary(), "left": self.left, "bayes_upper": self.refs.bayes_upper}

    def _info(self) -> dict[str, Any]:
        return {**super()._info(), "version": 2}


__all__ = ["MAX_HORIZON", "MindVersion", "NOT_YET_V2", "PersuasionMindV2Env", "V2", "V2Setup",
           "check_reading_v2"]
