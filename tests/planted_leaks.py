"""Small envs and wrappers that plant leaks (and one that plants none) for the checker's regression suite
(tests/test_planted_leaks.py).

* :class:`CoinAEC` -- a three-seat PettingZoo AEC env: a ``holder`` who knows a hidden coin (declared:
  ``tom_known``), a ``bystander`` and a ``guesser`` scored on predicting the coin; ``leak`` plants the coin
  in one place a seat reads.
* :class:`FalseBelief` -- a one-question false-belief task: the object's real location is public (declared:
  ``tom_public``) and usually equals the believer's belief, which is hidden.
* :class:`HintInOwnText` / :class:`AnswerInOwnObservation` / :class:`DesireInOwnObservation` -- envs that
  write the truth into their *own* observation (no wrapper): a note in the middle of the QA text, an extra
  observation field, an element appended to the live persuasion observation.
* Gymnasium wrappers planting a value in the info, the observation, the observation's text or the reward.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from tom_envs.common_ground.env import CommonToMEnv
from tom_envs.matrix.env import MatrixGameEnv
from tom_envs.persuasion.mind_env import PersuasionMindEnv
from tom_envs.persuasion.qa_env import PersuasiveToMEnv
from tom_envs.qa import QUESTION_PREFIX
from tom_envs.tom import ToMSpec

COIN_LEAKS = (
    "none",
    "guesser_info_before_first_guess",
    "guesser_info_own_turn",
    "guesser_info_while_others_act",
    "bystander_obs",
    "guesser_obs",
    "bystander_info",
    "guesser_reward",
    "guesser_info_at_reset_only",
    "guesser_info_noisy",
)


class CoinAEC(AECEnv):
    """Each round the holder, the bystander and the guesser act in turn; the guesser's step resolves the coin
    (0-2, drawn at reset, hidden from all but the holder). ``leak`` (one of :data:`COIN_LEAKS`) plants it."""

    metadata = {"name": "coin_v0", "is_parallelizable": True}
    render_mode = None

    def __init__(self, leak: str = "none", rounds: int = 6) -> None:
        super().__init__()
        self.leak, self.rounds = leak, rounds
        self.possible_agents = ["holder", "bystander", "guesser"]
        self.tom_spec = ToMSpec(targets={"coin": spaces.Discrete(3)}, predictor="guesser")
        self.tom_known = {"holder": ["coin"]}
        # public: the round (observation and info); the coin shown to the holder is its own (obs[1] elsewhere
        # shows 9, or the coin where ``leak`` plants it: an undeclared element of the env's own observation)
        self.tom_public = ("obs[0]", "info.round")
        self.tom_private = {"holder": ["obs[1]"]}
        self._obs_space = spaces.Box(0, 10, shape=(2,), dtype=np.int64)
        self._truth: dict = {}

    def observation_space(self, agent):
        return self._obs_space

    def action_space(self, agent):
        return spaces.Discrete(3)

    def reset(self, seed=None, options=None):
        self.np_random = np.random.default_rng(seed)
        self.coin = int(self.np_random.integers(3))
        self.agents = list(self.possible_agents)
        self.round, self._i, self._truth = 0, 0, {}
        self.agent_selection = self.agents[0]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._plant()

    def observe(self, agent):
        shown = (
            self.coin
            if (
                agent == "holder"
                or (self.leak == "guesser_obs" and agent == "guesser")
                or (self.leak == "bystander_obs" and agent == "bystander")
            )
            else 9
        )
        return np.array([self.round, shown], dtype=np.int64)

    def _plant(self) -> None:
        acting = self.agent_selection
        for a in self.agents:
            self.infos[a] = {"round": self.round}
        if self.leak == "guesser_info_own_turn" and acting == "guesser":
            self.infos["guesser"]["hint"] = self.coin
        if self.leak == "guesser_info_while_others_act" and acting != "guesser":
            self.infos["guesser"]["hint"] = self.coin
        if self.leak == "bystander_info":
            self.infos["bystander"]["hint"] = self.coin
        if self.leak == "guesser_info_before_first_guess" and self.round == 0:
            self.infos["guesser"]["hint"] = self.coin
        if self.leak == "guesser_info_at_reset_only" and self.round == 0 and self._i == 0:
            self.infos["guesser"]["hint"] = self.coin
        if self.leak == "guesser_info_noisy":
            self.infos["guesser"]["score"] = float(self.coin + self.np_random.normal(0, 0.2))

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        self._truth = {}
        if agent == "guesser":
            self._truth = {"coin": self.coin}
            self.rewards["guesser"] = float(action == self.coin)
            self.round += 1
            if self.round >= self.rounds:
                self.terminations = {a: True for a in self.agents}
        if self.leak == "guesser_reward" and agent == "bystander":
            self.rewards["guesser"] = 0.1 * self.coin
        self._i = (self._i + 1) % len(self.agents)
        self.agent_selection = self.agents[self._i]
        self._accumulate_rewards()
        self._plant()

    def tom_truth(self):
        return dict(self._truth)

    def tom_outcome(self):
        return {}


class FalseBelief(gym.Env):
    """One question per episode: the object was put at a location the believer saw; while the believer was
    away it moved with probability ``p_move``. The story's narration (the info's ``location``) tells the real
    location (public: declared in ``tom_public``); the truth is the believer's belief."""

    def __init__(self, p_move: float = 0.25, declare: bool = True, leak: bool = False) -> None:
        self.p_move, self.leak = p_move, leak
        self.observation_space = spaces.Dict({"question": spaces.Discrete(2)})
        self.action_space = spaces.Discrete(3)
        self.tom_spec = ToMSpec(targets={"belief": spaces.Discrete(3)})
        if declare:
            self.tom_public = ("info.location",)
        self._truth: dict = {}

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.belief = int(self.np_random.integers(3))
        moved = bool(self.np_random.random() < self.p_move)
        self.location = int((self.belief + 1 + self.np_random.integers(2)) % 3) if moved else self.belief
        self._truth = {}
        info = {"believer": "Sally", "location": self.location}
        if self.leak:
            info["believer_thinks"] = self.belief
        return {"question": 1}, info

    def step(self, action):
        self._truth = {"belief": self.belief}
        return {"question": 0}, float(action == self.belief), True, False, {}

    def tom_truth(self):
        return dict(self._truth)

    def tom_outcome(self):
        return {}


# ---------------------------------------------------------------------- gymnasium wrappers planting leaks
class _Plant(gym.Wrapper):
    """Plants ``value(base)`` -- read *before* the coming step -- where ``where`` says."""

    def __init__(self, env, where: str, value):
        super().__init__(env)
        self.where, self.value = where, value

    def _put(self, obs, reward, info):
        v = self.value(self.env.unwrapped, self.np_random_local)
        if self.where.startswith("info:"):
            info = {**info, self.where[5:]: v}
        elif self.where.startswith("text:"):
            obs = {**obs, "text": self.where[5:].format(text=obs["text"], v=v)}
        elif self.where == "reward" and reward is not None:
            reward = float(reward) + v
        return obs, reward, info

    def reset(self, **kwargs):
        self.np_random_local = np.random.default_rng(kwargs.get("seed"))
        obs, info = self.env.reset(**kwargs)
        obs, _, info = self._put(obs, None, info)
        return obs, info

    def step(self, action):
        obs, reward, term, trunc, info = self.env.step(action)
        if not (term or trunc):
            obs, reward, info = self._put(obs, reward, info)
        return obs, reward, term, trunc, info


def upcoming(base, rng):
    """A matrix game's partner action of the coming round (what expose_partner_action shows)."""
    return int(base._upcoming()) if base._t < base._T else 0


def answer_index(base, rng):
    """A QA env's answer of the question now shown, as the index of its shown option."""
    item = base.current_item
    return base._order.index(item.answer) if item is not None else 0


# ---------------------------------------------------------------------- envs planting in their own observation
class HintInOwnText(PersuasiveToMEnv):
    """PersuasiveToM writing the shown question's answer (its option index) into the middle of its *own*
    ``obs["text"]``, between the dialogue and the question: neither its first nor its last word."""

    def _observe(self):
        obs, info = super()._observe()
        head, sep, tail = obs["text"].partition(QUESTION_PREFIX)
        obs["text"] = f"{head}(between us: option {answer_index(self, None)} is the one)\n{sep}{tail}"
        return obs, info


class AnswerInOwnObservation(PersuasiveToMEnv):
    """PersuasiveToM with an extra observation field ``hint``: the shown question's answer index."""

    def _observe(self):
        obs, info = super()._observe()
        obs["hint"] = answer_index(self, None)
        return obs, info


class DesireInOwnObservation(PersuasionMindEnv):
    """Live persuasion appending the persuadee's hidden desire to its own observation (``obs[5]``)."""

    def _obs(self):
        return np.append(super()._obs(), self.model.state(self.state_index).desire).astype(np.int64)


class HintInOwnConversation(CommonToMEnv):
    """Common-ToM writing the shown question's answer index into the middle of its own text, as a word
    ("yes" / "no") after the conversation: a candidate only once the declared parts are cut out."""

    def _observe(self):
        obs, info = super()._observe()
        head, sep, tail = obs["text"].partition("Question")
        obs["text"] = f"{head}(psst: {('no', 'yes')[answer_index(self, None) % 2]} is right)\n{sep}{tail}"
        return obs, info


class PartnerInOwnHistory(MatrixGameEnv):
    """RPS with a two-step history whose own observation appends the partner's coming action: the whole
    observation is declared (``obs``) and so are its two history elements, but not the third."""

    def __init__(self):
        super().__init__("RPS", history=2)

    def _observation(self):
        return np.append(super()._observation(), upcoming(self, None)).astype(np.int64)
