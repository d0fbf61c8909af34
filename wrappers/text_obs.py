"""Text observations for language models: the one text convention for envs with numeric observations.

Envs whose observation is a dict carry their prompt as ``obs["text"]`` (the QA envs); envs whose
observation is numeric are wrapped so that they observe text (:mod:`tom_envs.tom`, "Text for
language models"): Gymnasium envs (matrix games, live persuasion) in :class:`TextObservation`, which
renders the unwrapped env's state as text; PettingZoo AEC envs (negotiation, two-seat persuasion)
in :class:`AECTextObservation`, where each seat observes the unwrapped env's ``text(agent)``.
"""

from __future__ import annotations

import string
from typing import Any

import gymnasium as gym
from gymnasium import spaces
from pettingzoo.utils.wrappers import BaseWrapper

from tom_envs.errors import TomEnvsError
from tom_envs.matrix.games import LABEL_SETS
from tom_envs.matrix.text import render_history, render_rules, render_state

#: Longest text a non-matrix env may render unless it states ``text_max_length``.
DEFAULT_MAX_LENGTH = 100_000


class TextObservation(gym.Wrapper):
    """Replaces the numeric observation by the text a language model reads for the same decision.

    Matrix games: rules, history and round in one of 004's label sets. If the env exposes the
    partner's upcoming action (``expose_partner_action=True``), the text says which action the
    other player will choose (004's Oracle prompting). Any other env: the unwrapped env's
    ``text()`` (e.g. ``tom/Persuasion-v1``); the space is ``Text`` up to the env's
    ``text_max_length`` (default :data:`DEFAULT_MAX_LENGTH`) over printable characters and the
    env's ``text_charset``, if it states one.

    Args:
        env: a matrix-game env (``tom/RPS-v0`` ...) or any env with a ``text()`` method.
        label_set: matrix games only: ``canonical``, ``letters``, ``neutral``, ``repeated`` or
            ``nonsense``.

    Raises:
        TomEnvsError: the env has no text form, or the label set is unknown.
    """

    def __init__(self, env: gym.Env, label_set: str = "neutral") -> None:
        super().__init__(env)
        base = env.unwrapped
        self.label_set = label_set
        self._matrix = hasattr(base, "game") and hasattr(base, "history")
        if self._matrix:
            self._init_matrix(base, label_set)
        elif callable(getattr(base, "text", None)):
            self.observation_space = _text_space(base)
        else:
            raise TomEnvsError(f"TextObservation needs a matrix-game env or an env with a text() method, got {base!r}")

    def _init_matrix(self, base: Any, label_set: str) -> None:
        if label_set not in LABEL_SETS:
            raise TomEnvsError(f"unknown label_set {label_set!r}; choose one of {', '.join(LABEL_SETS)}")
        self.game = base.game
        self.horizon = base.horizon
        labels = set("".join(self.game.labels(label_set, "focal") + self.game.labels(label_set, "partner")))
        charset = frozenset(string.printable) | labels
        worst = max(((a, b) for a in range(self.game.n_actions) for b in range(self.game.n_partner_actions)),
                    key=lambda ab: len(render_history(self.game, [ab], label_set)))
        longest = len(render_rules(self.game, self.horizon, label_set)) + self.horizon * (
            len(render_history(self.game, [worst], label_set)) + len(str(self.horizon)) + 2) + 200
        self.observation_space = spaces.Text(max_length=longest, min_length=1, charset=charset)

    def _text(self, info: dict) -> str:
        base = self.env.unwrapped
        if not self._matrix:
            return base.text()
        return render_state(self.game, base.history, self.horizon, self.label_set, info.get("partner_next_action"))

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[str, dict]:
        _, info = self.env.reset(seed=seed, options=options)
        return self._text(info), info

    def step(self, action: Any) -> tuple[str, Any, bool, bool, dict]:
        _, reward, terminated, truncated, info = self.env.step(action)
        return self._text(info), reward, terminated, truncated, info


def _text_space(base: Any) -> spaces.Text:
    """``Text`` up to the env's ``text_max_length`` over printable characters and its ``text_charset``."""
    charset = frozenset(string.printable) | frozenset(getattr(base, "text_charset", ""))
    return spaces.Text(max_length=int(getattr(base, "text_max_length", DEFAULT_MAX_LENGTH)), min_length=0,
                       charset=charset)


class AECTextObservation(BaseWrapper):
    """A PettingZoo AEC env whose seats observe text: ``observe(agent)`` is the unwrapped env's
    ``text(agent)``, what a language model in that seat reads (e.g. ``tom/Negotiation-v1``,
    ``tom/Persuasion-TwoSeat-v1``). Everything else (infos, rewards, the seat order) is the env's.

    The observation space of every seat is ``Text`` up to the env's ``text_max_length`` (default
    :data:`DEFAULT_MAX_LENGTH`) over printable characters and the env's ``text_charset``, if it
    states one.

    Args:
        env: an AEC env (possibly wrapped, e.g. in :class:`~wrappers.AECToMRecorder`) whose
            unwrapped env has a ``text(agent)`` method.

    Raises:
        TomEnvsError: the env has no ``text(agent)`` method.
    """

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        if not callable(getattr(env.unwrapped, "text", None)):
            raise TomEnvsError(f"AECTextObservation needs an AEC env with a text(agent) method, got {env.unwrapped!r}")
        self._space = _text_space(env.unwrapped)
        self.observation_spaces = dict.fromkeys(env.possible_agents, self._space)

    def observation_space(self, agent: str) -> spaces.Text:
        return self._space

    def observe(self, agent: str) -> str:
        return self.env.unwrapped.text(agent)
