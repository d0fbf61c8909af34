"""Two-seat live persuasion (PettingZoo AEC): the persuadee seat voices a hidden mind (v1 and v2, one core
configured by :mod:`tom_envs.persuasion.versions`)."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import logger, spaces

from tom_envs.aec import TomAECEnv
from tom_envs.errors import InvalidAction, check_options
from tom_envs.persuasion.mind import BELIEFS, CONCERN_TEXT, CONCERNS, MIND_DESIRES, N_OBS, TONES, TOPICS, obs_parts
from tom_envs.persuasion.mind_env import (
    AEC_RESET_OPTIONS,
    INTENTIONS,
    MIND_PUBLIC,
    MindSetup,
    draw_episode,
    parse_utterance_action,
)
from tom_envs.persuasion.mind_text import agree_line, leave_line, persuader_line
from tom_envs.persuasion.principles import PRINCIPLES
from tom_envs.persuasion.versions import V2
from tom_envs.qa import DIALOGUE_HEADER
from tom_envs.tom import ToMSpec

PERSUADER, PERSUADEE = "persuader_0", "persuadee_0"
AGREE = N_OBS  # the persuadee's reply "I agree"
FAITHFUL = N_OBS + 1  # "reply as my mind does": the reply the persona's dynamics drew
LEAVE = N_OBS + 2  # the persuadee's reply "I'm leaving" (the persuasion failed; versions with walk-outs)
N_REPLIES = N_OBS + 2
N_REPLIES_V2 = N_OBS + 3


class PersuadeeSeatView:
    """The persuadee seat's ToM contract (``tom_spec``, ``tom_truth``, ``tom_outcome``), for a
    :class:`wrappers.ToMScorer` built on it: its target ``strategy`` (the strategy the persuader's next
    line carries, over the version's ``heard``: v1 ``Discrete(7)``, the principles and 6 nothing -- 001's
    strategy-prediction question; v2 ``Discrete(9)``, with 7 stuffed and 8 hostile) resolves on each
    persuader step."""

    def __init__(self, env: "PersuasionMindAECEnv") -> None:
        self._env = env
        self.tom_spec = ToMSpec(
            targets={"strategy": spaces.Discrete(env.version.n_strategies)},
            outcome=("fidelity", "replies"),
            predictor=PERSUADEE,
        )

    def tom_truth(self) -> dict[str, int]:
        return dict(self._env._seat_truth)

    def tom_outcome(self) -> dict[str, Any]:
        return {"fidelity": self._env.fidelity(), "replies": len(self._env._faithful)}


class PersuasionMindAECEnv(MindSetup, TomAECEnv):
    """A persuader seat and a persuadee seat; the persuadee's mind is the v1 model's hidden state.

    At reset a family, scenario, names and a persona are drawn as in
    :class:`~tom_envs.persuasion.mind_env.PersuasionMindEnv`. The persuadee speaks first (its
    opening), then the seats alternate: a persuader line (a principle, or an utterance read by the
    ``reader``) moves the persuadee's hidden desire, belief and intention by the persona's dynamics,
    which also draw the reply the persona would give; the persuadee seat then replies. It may reply
    :data:`FAITHFUL` ("as my mind does": the drawn reply), :data:`AGREE`, or any reply index
    (tone x topic, see :mod:`tom_envs.persuasion.mind`), optionally with its own words
    (``{"action": i, "utterance": text}``). Its persona and current mind are in its prompt,
    ``text(persuadee_0)``; nothing numeric returned to either seat carries them.

    ## Action Space
    ``persuader_0``: ``Discrete(6)`` (a principle) or a dict with an utterance.
    ``persuadee_0``: ``Discrete(20)``: 0-17 a reply (tone * 6 + topic), 18 agree, 19 faithful.

    ## Observation Space
    Both seats: an int64 ``Box`` of shape (5,) with bounds ``[2, 5, 7, n_families - 1, horizon]``:
    the last reply's tone and topic, the strategy read in the last persuader line (7 none yet), the
    family index, the persuader lines left. Text: ``text(agent)`` (``wrappers.AECTextObservation``).

    ## Rewards
    ``persuader_0``: 1.0 when the persuadee seat agrees. ``persuadee_0``: 1.0 per reply that its mind
    allows (agreeing exactly when the persona agreed; otherwise a warm tone exactly when the line
    landed, and no concern but its own), else 0.0 -- its objective is to voice its persona faithfully.

    ## Episode End
    On an agreement or after ``horizon`` persuader lines and their replies.

    ## ToM contract
    Predictor ``persuader_0``: targets ``desire``, ``belief``, ``intention`` (the persuadee's state
    before each persuader line), scored by ``wrappers.AECToMRecorder``; outcome ``success``,
    ``regret`` (summed V - Q at the exact posterior given the replies seen; None once a reply the
    persona could not have given has been seen), ``bayes_success``, ``oracle_success``,
    ``open_loop_success``, ``fidelity``, ``rounds``. The persuadee seat's literal ToM:
    :meth:`seat_view` (target ``strategy``), scored by ``wrappers.ToMScorer(env.seat_view())``.

    ## Arguments
    ``families``, ``horizon`` (default 4), ``reader``, ``expose_state`` (default False, a bool only:
    anything else raises :class:`~tom_envs.errors.InvalidFlag`; True is for the oracle: the persuader's
    info carries ``state_index``, ``state`` and ``persona``), ``render_mode`` (``"ansi"``).

    ## Version History
    * v1: hidden desire, belief and intention; the persuadee seat voices them and is rewarded for it.
    """

    metadata = {"name": "tom_persuasion_two_seat_v1", "render_modes": ["ansi"], "is_parallelizable": False}
    HORIZON_IS = "the number of persuader lines"
    tom_public = MIND_PUBLIC
    tom_known = {PERSUADEE: ("desire", "belief", "intention")}  # the persuadee seat knows its own mind
    tom_spec = ToMSpec(
        targets={
            "desire": spaces.Discrete(len(MIND_DESIRES)),
            "belief": spaces.Discrete(len(BELIEFS)),
            "intention": spaces.Discrete(len(CONCERNS)),
        },
        outcome=("success", "regret", "bayes_success", "oracle_success", "open_loop_success", "fidelity", "rounds"),
        predictor=PERSUADER,
    )

    @property
    def N_REPLY_ACTIONS(self) -> int:  # noqa: N802 -- a constant of the version
        """The persuadee seat's action count (one more, :data:`LEAVE`, where the persuadee may walk away)."""
        return N_REPLIES_V2 if self.version.walk_outs else N_REPLIES

    @property
    def REPLY_FORMS(self) -> str:  # noqa: N802 -- a constant of the version
        """The persuadee seat's reply forms beside tone x topic (in the error for a bad one)."""
        forms = f"{AGREE} agree, {FAITHFUL} as its mind does"
        return f"{forms}, {LEAVE} leave" if self.version.walk_outs else forms

    def _build(self) -> None:
        self.left, self.mind_left, self._landed = False, False, False
        self.possible_agents = [PERSUADER, PERSUADEE]
        high = np.array(
            [len(TONES) - 1, len(TOPICS) - 1, self.NOT_YET_INDEX, len(self.families) - 1, self.horizon], dtype=np.int64
        )
        self.observation_spaces = {a: spaces.Box(0, high, shape=(5,), dtype=np.int64) for a in self.possible_agents}
        self.action_spaces = {
            PERSUADER: spaces.Discrete(len(PRINCIPLES)),
            PERSUADEE: spaces.Discrete(self.N_REPLY_ACTIONS),
        }
        self._truth: dict[str, int] = {}
        self._seat_truth: dict[str, int] = {}
        self._faithful: list[bool] = []

    # ------------------------------------------------------------------ AEC
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        rng = self.reseed(seed)
        options = check_options(options, AEC_RESET_OPTIONS, type(self).__name__)
        self.state_index, self.drawn = draw_episode(self, options, rng)
        self.mind_agreed, self.opening = False, True
        self.left, self.mind_left, self._landed = False, False, False
        self.tone, self.topic, self.heard_last = 0, 0, self.NOT_YET_INDEX
        self.round, self.agreed = 0, False
        self.posterior: np.ndarray | None = None
        self._regrets: list[float] = []
        self._faithful = []
        self._truth, self._seat_truth = {}, {}
        self.transcript: list[str] = []
        self.start_episode(PERSUADEE)
        self.infos = {ag: self._info(ag) for ag in self.agents}

    def observe(self, agent: str) -> np.ndarray:
        return np.array(
            [self.tone, self.topic, self.heard_last, self.family_index, self.horizon - self.round], dtype=np.int64
        )

    def play(self, agent: str, action: Any) -> None:
        if agent == PERSUADER:
            self._persuader_turn(action)
        else:
            self._persuadee_turn(action)
        self.infos = {ag: self._info(ag) for ag in self.agents}

    def seat_view(self, agent: str = PERSUADEE) -> PersuadeeSeatView:
        """The persuadee seat's ToM contract (see :class:`PersuadeeSeatView`)."""
        if agent != PERSUADEE:
            raise InvalidAction(
                f"seat_view is the persuadee seat's ({PERSUADEE}); the persuader's is the env's tom_spec"
            )
        return PersuadeeSeatView(self)

    # ------------------------------------------------------------------ ToM contract
    def tom_truth(self) -> dict[str, int]:
        """After a persuader step: the persuadee's desire, belief and intention before that line."""
        return dict(self._truth)

    def tom_outcome(self) -> dict[str, Any]:
        if not self.started:
            return {
                "success": False,
                "regret": None,
                "bayes_success": None,
                "oracle_success": None,
                "open_loop_success": None,
                "fidelity": None,
                "rounds": 0,
            }
        regret = None if self.posterior is None and self.round > 0 else float(sum(self._regrets))
        return {
            "success": self.agreed,
            "regret": regret,
            "bayes_success": self.refs.bayes,
            "oracle_success": self.refs.oracle,
            "open_loop_success": self.refs.open_loop,
            "fidelity": self.fidelity(),
            "rounds": self.round,
        }

    def fidelity(self) -> float | None:
        """Share of the persuadee seat's replies its mind allowed (None before its first)."""
        return float(np.mean(self._faithful)) if self._faithful else None

    # ------------------------------------------------------------------ text
    def text(self, agent: str) -> str:
        """The seat's prompt. The persuadee's holds its persona and its current mind."""
        er, ee = self.names["persuader"], self.names["persuadee"]
        head = [f"Background: {self.scenario.background.format(er=er, ee=ee)}"]
        if agent == PERSUADER:
            head.append(f"You are {er}. You want {ee} to {self.scenario.goal}.")
            tail = [
                "",
                "Persuasion principles (001, Table 3):",
                *[f"{i}. {n}: {INTENTIONS[n]}" for i, n in enumerate(PRINCIPLES)],
            ]
        else:
            st = self.model.state(self.state_index)
            persona = self.family.personas[st.persona]
            mind = (
                "you have decided to agree"
                if self.mind_agreed
                else f"you are {'considering it' if st.desire else 'against it'}, you feel {er} is "
                f"{'pushing you' if st.belief else 'sincere'}, and you {CONCERN_TEXT[CONCERNS[st.concern]]}"
            )
            head += [
                f"You are {ee}. {er} wants you to {self.scenario.goal}. {persona.description}",
                f"Right now {mind}.",
            ]
            tail = ["", "Reply in character (or agree only if you are convinced)."]
        return "\n".join([*head, "", DIALOGUE_HEADER, *self.transcript, *tail])

    def render(self) -> str | None:
        if self.render_mode is None:
            logger.warn("render() was called without a render_mode; pass render_mode='ansi'.")
            return None
        return "\n".join(self.transcript) if self.started else ""

    # ------------------------------------------------------------------ turns
    def _persuader_turn(self, action: Any) -> None:
        declared, utterance = parse_utterance_action(action)
        rng = self.np_random
        if utterance is None:
            strategy = int(declared)  # type: ignore[arg-type]
            utterance = persuader_line(PRINCIPLES[strategy], self.scenario.goal, rng)
        else:
            strategy = self._read_line(utterance)
        self._seat_truth = {"strategy": strategy}
        final = self._final_draw()
        if final is not None:
            self._truth = {}
            self.drawn = final
        else:
            st = self.model.state(self.state_index)
            self._truth = {"desire": st.desire, "belief": st.belief, "intention": st.concern}
            if self.posterior is not None:
                self._regrets.append(self.planner.gap(self.posterior, self.round, strategy))
            self._mind_moves(st, *self.model.sample_step(self.state_index, strategy, rng))
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
        else:
            line = self._end_line(reply, text, rng)  # type: ignore[assignment]
            if line is None:
                self.tone, self.topic = obs_parts(reply)
                line = text if text is not None else self._reply_text(rng)
                self._track(reply, opening)
        self.transcript.append(f"{self.names['persuadee']} says: {line}")
        if self._over():
            self.terminations = {a: True for a in self.agents}
        self.agent_selection = PERSUADER

    def _parse_reply(self, action: Any) -> int:
        if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
            action = int(action)
        if (
            isinstance(action, (bool, np.bool_))
            or not isinstance(action, (int, np.integer))
            or not 0 <= int(action) < self.N_REPLY_ACTIONS
        ):
            raise InvalidAction(
                f"the persuadee replies with an index in 0..{self.N_REPLY_ACTIONS - 1} (0-17 "
                f"tone * 6 + topic, {self.REPLY_FORMS}), optionally as "
                f"{{'action': i, 'utterance': text}}; got {action!r}"
            )
        return int(action)

    # ------------------------------------------------------------------ the persuadee's mind
    def _final_draw(self) -> int | None:
        """The persuadee's reply once its mind has ended the persuasion (:data:`AGREE`, :data:`LEAVE`), else None."""
        return LEAVE if self.mind_left else AGREE if self.mind_agreed else None

    def _mind_moves(self, st: Any, agreed: bool, s2: int | None, reply: int | None) -> None:
        """The persuadee's mind after a line (from state ``st``): agreed, walked out, or its next state and
        drawn reply."""
        if agreed:
            self.mind_agreed, self.drawn = True, AGREE
        elif s2 is None:  # walked out (a version with walk-outs)
            self.mind_left, self.drawn = True, LEAVE
        else:
            self._landed = self.model.state(int(s2)).desire > st.desire
            self.state_index, self.drawn = int(s2), int(reply)  # type: ignore[arg-type]

    def _end_line(self, reply: int, text: str | None, rng: np.random.Generator) -> str | None:
        """The line of a reply that ends the persuasion other than agreeing (:data:`LEAVE`), else None."""
        if reply != LEAVE:
            return None
        self.left = True
        return text if text is not None else leave_line(rng)

    def _over(self) -> bool:
        return self.agreed or self.left or self.round >= self.horizon

    def _allowed(self, reply: int) -> bool:
        """Whether the persona's mind could have given ``reply`` now."""
        if self.drawn in (AGREE, LEAVE) or reply in (AGREE, LEAVE):
            return reply == self.drawn
        st = self.model.state(self.state_index)
        return self.version.allows(self.family.personas[st.persona], st, self._landed, self.drawn, reply)

    def _track(self, reply: int, opening: bool) -> None:
        """The exact posterior of a persuader that sees this reply (None after an impossible one)."""
        if opening:
            p = self.model.initial * self.model.opening[:, reply]
        elif self.posterior is None or self.round >= self.horizon:
            return
        else:
            p = self.model.joint(self.posterior, self._strategy)[:, reply]
        self.posterior = p / p.sum() if p.sum() > 0 else None

    def _info(self, agent: str) -> dict[str, Any]:
        info: dict[str, Any] = {
            "turn": self.round,
            "round": self.round,
            "horizon": self.horizon,
            "family": self.family.name,
            "goal": self.scenario.goal,
        }
        if agent == PERSUADER and self.expose_state:
            st = self.model.state(self.state_index)
            info.update(
                persona=self.family.personas[st.persona].name,
                state_index=self.state_index,
                state={"persona": st.persona, "desire": st.desire, "belief": st.belief, "intention": st.concern},
            )
        return self._tag(info)


class PersuasionMindV2AECEnv(PersuasionMindAECEnv):
    """The two-seat twin of ``tom/Persuasion-v2``: v1's two-seat env
    (:class:`PersuasionMindAECEnv`) with v2's mind, reader, text and references (the configuration
    :data:`~tom_envs.persuasion.versions.V2`).

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
    version = V2


def env(**kwargs: Any) -> PersuasionMindAECEnv:
    """The AEC env (PettingZoo module convention)."""
    return PersuasionMindAECEnv(**kwargs)


__all__ = [
    "AGREE",
    "FAITHFUL",
    "LEAVE",
    "N_REPLIES",
    "N_REPLIES_V2",
    "PERSUADEE",
    "PERSUADER",
    "PersuadeeSeatView",
    "PersuasionMindAECEnv",
    "PersuasionMindV2AECEnv",
    "env",
]
