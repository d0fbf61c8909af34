"""One seat of a PettingZoo ``ParallelEnv`` as a Gymnasium env: the other seats are played by given policies.

:class:`ParallelSeat` is :class:`wrappers.SingleSeat`'s counterpart for parallel envs (every live agent
acts at once): a single-agent learner (stable-baselines3, a Gymnasium tool) trains one seat against
the scripted or trained partners a benchmark names (a family's ``RLTask.make_env`` builds it for its
parallel ids). Each step asks every other live seat's policy for its action from that seat's own
last observation and info (what the parallel env returned it the step before), then steps the env
with everyone's actions at once, so no seat sees another's action of the same round. The trained
seat sees exactly what the env shows it (its observation, its info, its reward; the information
rule, docs/architecture.md), nothing of the other seats' observations, infos or the policies' state.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from tom_envs.tom import ToMSpec, tom_spec_of
from wrappers.single_seat import Seated


class ParallelSeat(Seated):
    """The Gymnasium env of ``seat`` of the parallel env ``parallel_env``, the other seats played by ``others``.

    ``step(action)`` steps the parallel env once with the seat's ``action`` and, for every other live
    agent, ``others[agent].act(observation, info)`` of that agent's own last observation and info;
    after the step, a policy with ``observe`` is shown its own result (``observe(observation, reward,
    terminated, truncated, info)``: its seat's, as the runner shows a policy its own), so a policy that
    learns within the episode (the tabular agent) learns in the other seat too.
    The reward, ``terminated`` and ``truncated`` are the seat's. When the seat is done but other
    agents are not, they play on (their policies' actions only) to the end of the episode, so
    ``tom_outcome()`` is final.

    **The ToM contract** (:mod:`tom_envs.tom`) is this env's own (it is its own ``unwrapped``), so
    :class:`wrappers.ToMRecorder` scores it as any Gymnasium env. Its ``tom_spec`` is the parallel
    env's with ``predictor`` set to the seat, and its targets those the seat predicts: a spec naming
    no predictor whose targets are named by agents (each seat predicts the others', e.g. the matrix
    games' ``player_0`` / ``player_1``: the other seat's action) keeps the other agents' targets;
    a spec whose predictor is the seat keeps them all; a spec whose predictor is another seat keeps
    them too, but the seat is not scored (``tom_truth()`` is empty, as in :class:`SingleSeat`).
    ``tom_truth()`` after a step is the parallel env's, restricted to those targets;
    ``tom_outcome()`` is the parallel env's.

    **Seeding**: ``reset(seed=s)`` resets the parallel env with ``s`` and each other seat's policy
    with :func:`wrappers.single_seat.other_seed` of ``s`` (the policies in the order of ``others``);
    ``reset()`` without a seed goes on with the env's generator and draws the policies' seeds from
    a generator seeded by the last seed given. Same seed, same actions: same trajectory.

    Args:
        parallel_env: a PettingZoo ``ParallelEnv`` (e.g. ``tom_envs.make("tom/IPD-Parallel-v0")``);
            ``seat`` and ``others`` as for :class:`wrappers.SingleSeat` (and the same
            :class:`~wrappers.single_seat.SingleSeatError` for a seat the env lacks or a seat without a policy).
    """

    def __init__(self, parallel_env: Any, seat: str, others: Mapping[str, Any]) -> None:
        self._seat(parallel_env, seat, others)
        self.par = parallel_env
        self._obs: dict[str, Any] = {}
        self._infos: dict[str, Any] = {}
        spec = tom_spec_of(parallel_env)
        self._scored = spec.predictor in (None, seat)
        targets = {k: v for k, v in spec.targets.items() if not (spec.predictor is None and k == seat)}
        self._spec = replace(spec, targets=targets, predictor=seat)

    # ------------------------------------------------------------------ Gymnasium API
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict]:
        super().reset(seed=seed)
        self._reset_others(seed)
        self._obs, self._infos = self.par.reset(seed=seed, options=options)
        self._started, self._done = True, self.seat not in self.par.agents
        return self._obs[self.seat], dict(self._infos.get(self.seat, {}))

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        self._check_step()
        obs, rewards, terms, truncs = self._step_all(action)
        terminated, truncated = bool(terms.get(self.seat, False)), bool(truncs.get(self.seat, False))
        info = dict(self._infos.get(self.seat, {}))
        self._done = terminated or truncated or self.seat not in self.par.agents
        if self._done:
            while self.par.agents:  # the others play on to the end of the episode
                self._step_all(None)
        return obs, float(rewards.get(self.seat, 0.0)), terminated, truncated, info

    # ------------------------------------------------------------------ ToM contract
    @property
    def tom_spec(self) -> ToMSpec:
        return self._spec

    # ------------------------------------------------------------------ helpers
    def _step_all(self, action: Any) -> tuple[Any, dict, dict, dict]:
        """One parallel step (the seat's ``action`` unless None: the seat is done); returns the seat's
        observation and everyone's rewards and flags."""
        actions = {} if action is None else {self.seat: action}
        for agent in self.par.agents:
            if agent != self.seat:
                actions[agent] = self.others[agent].act(self._obs.get(agent), dict(self._infos.get(agent, {})))
        obs, rewards, terms, truncs, infos = self.par.step(actions)
        for agent in actions:  # each other seat's policy observes its own result, as a runner would show it
            observe = getattr(self.others.get(agent), "observe", None)
            if agent != self.seat and agent in obs and callable(observe):
                observe(
                    obs[agent],
                    float(rewards.get(agent, 0.0)),
                    bool(terms.get(agent, False)),
                    bool(truncs.get(agent, False)),
                    dict(infos.get(agent, {})),
                )
        self._obs = {**self._obs, **obs}
        self._infos = infos
        if self._scored:
            base = getattr(self.par, "unwrapped", self.par)
            self._truth.update({k: v for k, v in base.tom_truth().items() if k in self._spec.targets})
        return self._obs.get(self.seat), rewards, terms, truncs


__all__ = ["ParallelSeat"]
