"""One seat of a PettingZoo AEC env as a Gymnasium env: the other seats are played by given policies.

:class:`SingleSeat` is how a single-agent learner (stable-baselines3, a Gymnasium tool) trains one
seat of a multi-seat env against the scripted or trained partners a benchmark names (a family's
``RLTask.make_env`` builds it for its AEC ids).
The seat sees exactly what the AEC env shows it (``env.last()`` at its turn: its observation, its
info, its reward; the information rule, docs/architecture.md) and nothing of the other seats'
observations, infos or the policies' state.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fnmatch import fnmatchcase
from typing import Any

import numpy as np

from tom_envs.base import TomEnv
from tom_envs.errors import TomEnvsError
from tom_envs.tom import ToMSpec, tom_spec_of


class SingleSeatError(TomEnvsError, ValueError):
    """A :class:`SingleSeat` built on a seat the env lacks, or without a policy for another seat."""


def other_seed(seed: int, index: int) -> int:
    """The seed of the ``index``-th other seat's policy in an episode seeded ``seed`` (an independent stream,
    so a policy's draws never replay the env's)."""
    return int(np.random.SeedSequence([seed, 0x5EA7, index]).generate_state(1)[0])


def check_seats(env: Any, seat: str, others: Any) -> None:
    """Check that ``seat`` is an agent of the PettingZoo env ``env`` (AEC or parallel) and that ``others``
    maps every other agent, and only those, to a policy with ``reset(seed)`` and ``act(observation, info)``.

    Raises:
        SingleSeatError: naming what is wrong and what to pass instead.
    """
    agents = list(env.possible_agents)
    if seat not in agents:
        raise SingleSeatError(f"seat {seat!r} is not an agent of {type(env).__name__} ({', '.join(agents)})")
    if not isinstance(others, Mapping):
        raise SingleSeatError(f"others maps each other agent to its policy, got {type(others).__name__}")
    stray = [a for a in others if a not in agents or a == seat]
    if stray:
        raise SingleSeatError(
            f"others names {', '.join(map(repr, stray))}: give policies for the other agents "
            f"of the env only ({', '.join(a for a in agents if a != seat)})"
        )
    missing = [a for a in agents if a != seat and a not in others]
    if missing:
        raise SingleSeatError(
            f"no policy for {', '.join(map(repr, missing))}; a seat wrapper plays every other seat "
            "with a policy (others={agent: policy})"
        )
    for a, pol in others.items():
        if not callable(getattr(pol, "act", None)) or not callable(getattr(pol, "reset", None)):
            raise SingleSeatError(
                f"the policy for {a!r} needs reset(seed) and act(observation, info) "
                f"(policies.base.Policy), got {type(pol).__name__}"
            )


class Seated(TomEnv):
    """What :class:`SingleSeat` and :class:`wrappers.parallel_seat.ParallelSeat` share: the seat, the
    other seats' policies (each reset with its own seed stream), the seat's spaces, the call-order
    checks of ``step`` (:class:`tom_envs.base.TomEnv`'s), and what passes through to the inner env
    (``render``, ``close``, ``tom_outcome``)."""

    metadata = {"render_modes": ["ansi"]}

    def _seat(self, env: Any, seat: str, others: Mapping[str, Any]) -> None:
        check_seats(env, seat, others)
        self._env = env
        self.seat = seat
        self.others = dict(others)
        self.observation_space = env.observation_space(seat)
        self.action_space = env.action_space(seat)
        self.render_mode = getattr(env, "render_mode", None)
        self._seeds = np.random.default_rng()
        self._truth: dict[str, Any] = {}

    # ------------------------------------------------------------------ what the seat may read (contract 4)
    def _declared_inner(self) -> Any:
        inner = getattr(self, "aec", None) or getattr(self, "par", None)
        return getattr(inner, "unwrapped", inner)

    @property
    def tom_public(self) -> tuple[str, ...]:
        """The seat's observation is the inner env's for this seat: what the inner env declares public, and
        what it declares private to this seat (its own), is public to the one policy this env serves."""
        inner = self._declared_inner()
        own = [
            p
            for s, ps in dict(getattr(inner, "tom_private", {}) or {}).items()
            if fnmatchcase(self.seat, s)
            for p in ps
        ]
        return tuple(getattr(inner, "tom_public", ())) + tuple(own)

    @property
    def tom_composed(self) -> dict[str, tuple[str, ...]]:
        return dict(getattr(self._declared_inner(), "tom_composed", {}) or {})

    @property
    def tom_known(self) -> dict[str, tuple[str, ...]]:
        """What the seat knows of itself (the inner env's ``tom_known`` for this seat, its ``{i}`` resolved)."""
        index = (re.findall(r"\d+", self.seat) or [""])[-1]
        known = dict(getattr(self._declared_inner(), "tom_known", {}) or {})
        mine = [p.format(i=index) for s, ps in known.items() if fnmatchcase(self.seat, s) for p in ps]
        return {self.seat: tuple(mine)} if mine else {}

    def _reset_others(self, seed: int | None) -> None:
        """Reset every other seat's policy: from ``seed`` (independent streams), else from the
        generator the last seeded reset left."""
        if seed is not None:
            self._seeds = np.random.default_rng(np.random.SeedSequence([int(seed), 0x5EA7]))
            seeds = [other_seed(int(seed), k) for k in range(len(self.others))]
        else:
            seeds = [int(s) for s in self._seeds.integers(2**63 - 1, size=len(self.others))]
        for pol, s in zip(self.others.values(), seeds):
            pol.reset(s)
        self._truth = {}

    @property
    def episode_over(self) -> str:  # type: ignore[override]
        return f"the seat {self.seat!r} is done; call env.reset()."

    def _check_step(self) -> None:
        self.check_step()
        self._truth = {}

    # ------------------------------------------------------------------ passed through to the inner env
    def render(self) -> Any:
        return self._env.render()

    def close(self) -> None:
        self._env.close()

    def tom_truth(self) -> dict[str, Any]:
        """What the inner env's steps since the seat's last action resolved for the seat's targets (empty
        when the seat is not scored)."""
        return dict(self._truth)

    def tom_outcome(self) -> dict[str, Any]:
        inner = self._env
        return inner.unwrapped.tom_outcome() if hasattr(inner, "unwrapped") else inner.tom_outcome()


class SingleSeat(Seated):
    """The Gymnasium env of ``seat`` of the AEC env ``aec_env``, the other seats played by ``others``.

    A ``step(action)`` plays the seat's action, then every other seat's turn (each asked with
    ``act(observation, info)``, its own view from ``env.last()``; a finished seat's dead step is taken)
    until the seat is to act again or is done. The reward is the sum of the seat's rewards over
    those steps; ``terminated`` / ``truncated`` are the seat's flags. When the seat is done the
    episode is played to its end (the other seats may still act), so ``tom_outcome()`` is final.

    **The ToM contract** (:mod:`tom_envs.tom`) is this env's own (it is its own ``unwrapped``), so
    :class:`wrappers.ToMRecorder` scores it as any Gymnasium env: ``tom_spec`` is the AEC env's (its
    ``predictor`` is the seat whose predictions are scored); ``tom_truth()`` after a step is what the
    underlying steps resolved since the seat's action (merged; empty when the seat is not the
    predictor: a seat that is not scored has nothing to predict); ``tom_outcome()`` is the AEC env's.
    ``text()`` is the AEC env's ``text(seat)`` where it has one (for
    :class:`wrappers.TextObservation`).

    **Seeding**: ``reset(seed=s)`` resets the AEC env with ``s`` and each other seat's policy with
    :func:`other_seed` of ``s`` (the policies in the order of ``others``); ``reset()`` without a seed
    goes on with the env's generator and draws the policies' seeds from a generator seeded by the
    last seed given. Same seed, same actions: same trajectory.

    Args:
        aec_env: a PettingZoo AEC env (e.g. ``tom_envs.make_aec(id)``).
        seat: the agent name of the trained seat (one of ``aec_env.possible_agents``).
        others: agent name -> a policy (the suite's Policy protocol, ``policies/base.py``: ``reset(seed)`` and
            ``act(observation, info)``, as :func:`benchmarks.runner.play_aec` calls them) for every other agent.

    Raises:
        SingleSeatError: ``seat`` is not an agent of the env, or an agent other than ``seat`` has no
            policy, or ``others`` names the seat itself or an agent the env lacks.
    """

    def __init__(self, aec_env: Any, seat: str, others: Mapping[str, Any]) -> None:
        self._seat(aec_env, seat, others)
        self.aec = aec_env

    # ------------------------------------------------------------------ Gymnasium API
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict]:
        super().reset(seed=seed)
        self._reset_others(seed)
        self.aec.reset(seed=seed, options=options)
        self._started, self._done = True, False
        obs, reward, terminated, truncated, info = self._advance()
        if terminated or truncated:  # the seat never got a turn
            self._done = True
        return obs, info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        self._check_step()
        self._step_aec(action)
        reward = self._seat_reward()
        obs, more, terminated, truncated, info = self._advance()
        self._done = terminated or truncated
        return obs, reward + more, terminated, truncated, info

    # ------------------------------------------------------------------ ToM contract and text
    @property
    def tom_spec(self) -> ToMSpec:
        return tom_spec_of(self.aec)

    def text(self) -> str:
        text = getattr(self.aec, "text", None)
        if text is None:
            raise TomEnvsError(f"{type(self.aec).__name__} has no text(agent) for language models")
        return text(self.seat)

    # ------------------------------------------------------------------ helpers
    def _step_aec(self, action: Any) -> None:
        self.aec.step(action)
        if self.tom_spec.predictor == self.seat:
            self._truth.update(self.aec.unwrapped.tom_truth())

    def _seat_reward(self) -> float:
        return float(getattr(self.aec, "rewards", {}).get(self.seat, 0.0))

    def _advance(self) -> tuple[Any, float, bool, bool, dict]:
        """Play the other seats until the seat acts or is done: its observation, the reward it got on the way,
        its flags and info. When the seat is done, the rest of the episode is played out."""
        env, reward = self.aec, 0.0
        while env.agents:
            agent = env.agent_selection
            if agent == self.seat:
                obs, _, terminated, truncated, info = env.last()
                if not (terminated or truncated):
                    return obs, reward, False, False, info
                self._finish()
                return obs, reward, bool(terminated), bool(truncated), info
            self._play_other(agent)
            reward += self._seat_reward()
        # the seat left the env without a turn of its own being done (every agent removed at once)
        obs = env.observe(self.seat)
        info = dict(getattr(env, "infos", {}).get(self.seat, {}))
        terminated, truncated = env.terminations.get(self.seat, True), env.truncations.get(self.seat, False)
        return obs, reward, bool(terminated), bool(truncated), info

    def _play_other(self, agent: str) -> None:
        obs, _, terminated, truncated, info = self.aec.last()
        if terminated or truncated:
            self._step_aec(None)
            return
        self._step_aec(self.others[agent].act(obs, info))

    def _finish(self) -> None:
        """The seat is done: take its dead step and play the others to the end of the episode."""
        env = self.aec
        while env.agents:
            agent = env.agent_selection
            if agent == self.seat:
                self._step_aec(None)
            else:
                self._play_other(agent)


__all__ = ["SingleSeat", "SingleSeatError", "check_seats", "other_seed"]
