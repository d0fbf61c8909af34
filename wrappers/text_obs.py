"""Text observations for language models: the one text convention for envs with numeric observations.

Envs whose observation is a dict carry their prompt as ``obs["text"]`` (the QA envs); envs whose
observation is numeric are wrapped so that they observe text (:mod:`tom_envs.tom`, "Text for
language models"): Gymnasium envs in :class:`TextObservation`, which observes the unwrapped env's
``text()``; PettingZoo AEC envs (negotiation, two-seat persuasion)
in :class:`AECTextObservation`, where each seat observes the unwrapped env's ``text(agent)``.
"""

from __future__ import annotations

import string
from typing import Any

import gymnasium as gym
from gymnasium import spaces
from pettingzoo.utils.wrappers import BaseWrapper

from tom_envs.errors import TomEnvsError

#: Longest text an env without ``text_space()`` may render unless it states ``text_max_length``.
DEFAULT_MAX_LENGTH = 100_000


class TextObservation(gym.Wrapper):
    """Replaces the numeric observation by the text a language model reads for the same decision:
    the unwrapped env's ``text(**text_options)`` after every reset and step.

    The space is the env's ``text_space(**text_options)`` when it has one (the matrix games: rules
    and history in one of 004's label sets, ``TextObservation(env, label_set="letters")``), else
    ``Text`` up to the env's ``text_max_length`` (default :data:`DEFAULT_MAX_LENGTH`) over printable
    characters and the env's ``text_charset``, if it states one (e.g. ``tom/Persuasion-v1``).

    Args:
        env: any env whose unwrapped env has a ``text()`` method.
        **text_options: keyword arguments of the env's ``text()`` (and ``text_space()``), e.g. a
            matrix game's ``label_set``.

    Raises:
        TomEnvsError: the env has no text form, or it takes no ``text_options``.
    """

    def __init__(self, env: gym.Env, **text_options: Any) -> None:
        super().__init__(env)
        base = env.unwrapped
        if not callable(getattr(base, "text", None)):
            raise TomEnvsError(f"TextObservation needs an env with a text() method, got {base!r}")
        self.text_options = dict(text_options)
        if callable(getattr(base, "text_space", None)):
            try:
                self.observation_space = base.text_space(**self.text_options)
            except TypeError as exc:  # an option the env's text form does not have
                raise TomEnvsError(
                    f"{type(base).__name__}'s text form does not take these options "
                    f"({', '.join(self.text_options)}): {exc}; see {type(base).__name__}.text for the "
                    "ones it takes"
                ) from None
        elif self.text_options:
            raise TomEnvsError(
                f"{type(base).__name__} renders one text and takes no text options; got "
                f"{', '.join(self.text_options)} (leave them out)"
            )
        else:
            self.observation_space = _text_space(base)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[str, dict]:
        _, info = self.env.reset(seed=seed, options=options)
        return self.env.unwrapped.text(**self.text_options), info

    def step(self, action: Any) -> tuple[str, Any, bool, bool, dict]:
        _, reward, terminated, truncated, info = self.env.step(action)
        return self.env.unwrapped.text(**self.text_options), reward, terminated, truncated, info


def _text_space(base: Any) -> spaces.Text:
    """``Text`` up to the env's ``text_max_length`` over printable characters and its ``text_charset``."""
    charset = frozenset(string.printable) | frozenset(getattr(base, "text_charset", ""))
    return spaces.Text(
        max_length=int(getattr(base, "text_max_length", DEFAULT_MAX_LENGTH)), min_length=0, charset=charset
    )


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
