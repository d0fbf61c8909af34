"""The base of every PettingZoo AEC env of tom-envs: seeding, the per-episode bookkeeping PettingZoo
expects, the checks at the start of ``step`` and the step's ToM truth (docs/architecture.md, "Contracts").

:class:`Seats` is the part any PettingZoo env (AEC or parallel) can share: per-agent spaces kept in
dicts and one generator reseeded by ``reset(seed=...)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from tom_envs.errors import check_running


class Seats:
    """Per-agent spaces from the ``observation_spaces`` / ``action_spaces`` dicts, and the env's generator."""

    observation_spaces: dict[str, spaces.Space]
    action_spaces: dict[str, spaces.Space]

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    @property
    def np_random(self) -> np.random.Generator:
        """The env's generator (created unseeded on first use, reseeded by ``reset(seed=...)``)."""
        if getattr(self, "_np_random_gen", None) is None:
            self._np_random_gen = np.random.default_rng()
        return self._np_random_gen

    @np_random.setter
    def np_random(self, value: np.random.Generator) -> None:
        self._np_random_gen = value

    def reseed(self, seed: int | None) -> np.random.Generator:
        """A fresh generator from ``seed``; with None, the current one goes on (first use: unseeded)."""
        if seed is not None or getattr(self, "_np_random_gen", None) is None:
            self._np_random_gen = np.random.default_rng(seed)
        return self._np_random_gen


class TomAECEnv(Seats, AECEnv):
    """An :class:`~pettingzoo.AECEnv` with what the AEC envs of tom-envs share.

    Subclasses fill ``possible_agents``, ``observation_spaces`` and ``action_spaces`` in
    ``__init__``, call :meth:`reseed` and :meth:`start_episode` in ``reset``, and implement
    :meth:`play` (one live agent's action); ``step`` does the rest. A step that resolves
    literal-ToM targets says so with :meth:`resolve`; :meth:`tom_truth` then returns them until
    the next step (the ToM contract, :mod:`tom_envs.tom`).
    """

    #: what ``step`` says when it is called with no agent left
    episode_over = "the episode is over; call env.reset()."

    def __init__(self) -> None:
        super().__init__()
        self.agents: list[str] = []
        self._started = False
        self._truth: dict[str, Any] = {}

    @property
    def started(self) -> bool:
        """Whether ``reset`` has been called at least once."""
        return self._started

    def start_episode(self, first: str | None = None) -> None:
        """Every possible agent is live again, with zero rewards; ``first`` (default: the first) acts."""
        self.agents = self.possible_agents[:]
        self.agent_selection = first if first is not None else self.agents[0]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self._truth = {}
        self._started = True

    def step(self, action: Any) -> None:
        """Check the call (:meth:`begin_step`), :meth:`play` the action, accumulate the rewards."""
        self._truth = {}
        agent = self.begin_step(action)
        if agent is None:
            return
        self.play(agent, action)
        self._accumulate_rewards()

    def play(self, agent: str, action: Any) -> None:
        """Apply ``agent``'s action (a live agent: checks done, this step's rewards cleared)."""
        raise NotImplementedError

    def begin_step(self, action: Any) -> str | None:
        """The agent acting now, after the checks of an AEC ``step``; None when the step is done already.

        Raises :class:`~tom_envs.errors.ResetNeeded` before the first ``reset`` and
        :class:`~tom_envs.errors.EpisodeEnded` (with :attr:`episode_over`) when no agent is left.
        A terminated or truncated agent's step is PettingZoo's dead step (handled here; returns
        None). Otherwise the agent's cumulative reward and this step's rewards are cleared.
        """
        check_running(self._started, not self.agents, self.episode_over)
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return None
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        return agent

    def close(self) -> None:
        pass

    # ------------------------------------------------------------------ ToM contract
    def resolve(self, **truth: Any) -> None:
        """This step resolved these literal-ToM targets, with these true values."""
        self._truth = truth

    def tom_truth(self) -> dict[str, Any]:
        """The targets the last step resolved, ``{target: true value}`` (copies); empty if none."""
        return {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in self._truth.items()}
