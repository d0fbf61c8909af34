"""Playing an env as the checker's cheating policies do: Gymnasium, PettingZoo parallel and AEC, each step
traced as (what the policy read, the truths the step resolved, its unit, its options, the whole truth)."""

from __future__ import annotations

import time
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from tom_envs.checks.features import Reader, hashable

@dataclass
class Row:
    x: dict[str, Hashable]  # everything returned before the decision
    public: dict[str, Hashable]  # the public part of it
    target: str
    y: Hashable  # the truth the decision's step resolved
    unit: Hashable  # rows of one unit are never split between training and held-out halves
    n: int  # options (for the chance rate)
    episode: int


def _whole(base: Any) -> dict[str, Hashable]:
    return {k: hashable(v) for k, v in base.tom_truth().items()}


def _truths(base: Any) -> dict[str, Hashable]:
    """``tom_truth()``, array-valued targets split into one target per element (``stances[0, 2]``)."""
    out: dict[str, Hashable] = {}
    for k, v in base.tom_truth().items():
        arr = np.asarray(v) if isinstance(v, (list, tuple, np.ndarray)) else None
        if arr is not None and arr.ndim >= 1 and arr.size <= 64 and arr.dtype != object:
            for idx in np.ndindex(arr.shape):
                out[f"{k}{list(idx)}"] = arr[idx].item()
        else:
            out[k] = hashable(v)
    return out


def _n_options(space: Any, obs: Any) -> int:
    if isinstance(obs, dict) and "n_choices" in obs:
        return int(np.asarray(obs["n_choices"]))
    return int(getattr(space, "n", 2))


def episode_options(base: Any, episodes: int | None) -> list[dict | None]:
    """Reset options covering a dataset env's episodes one by one; None (seeded draws) otherwise."""
    known = getattr(base, "episodes", None)
    if known is not None and hasattr(base, "select_episode"):
        count = len(known) if episodes is None else min(episodes, len(known))
        return [{"episode": e} for e in range(count)]
    return [None] * (episodes or 40)


def _timed(timing: bool, call: Any, *args: Any, **kwargs: Any) -> tuple[Any, float | None]:
    start = time.perf_counter()
    out = call(*args, **kwargs)
    return out, (time.perf_counter() - start if timing else None)


@contextmanager
def _own_observation(env: Any) -> Iterator[list]:
    """``[(observation,)]``: the last observation the unwrapped env returned itself under ``env``'s
    wrappers (its ``reset`` / ``step`` tapped meanwhile); ``[None]`` for an unwrapped env."""
    base, last = env.unwrapped, [None]
    saved = {} if base is env else {name: vars(base).get(name) for name in ("reset", "step")}

    def tap(call: Any) -> Any:
        def tapped(*args: Any, **kwargs: Any) -> Any:
            last[0] = (out := call(*args, **kwargs))[:1]  # (observation,) of reset's or step's tuple
            return out
        return tapped

    for name in saved:
        setattr(base, name, tap(getattr(base, name)))
    try:
        yield last
    finally:
        for name, method in saved.items():
            delattr(base, name) if method is None else setattr(base, name, method)


def play_gym(env: Any, options: list[dict | None], repeats: int, seed: int, max_steps: int,
              history: bool, timing: bool) -> Iterator[list[tuple]]:
    base, rng = env.unwrapped, np.random.default_rng(seed)
    with _own_observation(env) as own:
        for r in range(repeats):
            for e, opt in enumerate(options):
                s = seed + 1000 * r + e
                env.action_space.seed(s)
                (obs, info), elapsed = _timed(timing, env.reset, seed=s, options=opt)
                reader, reward, trace = Reader(history, question=not history), None, []
                for _ in range(max_steps):
                    seen = reader.read(obs, info, reward, elapsed, own[0])
                    n = _n_options(env.action_space, obs)
                    action = int(rng.integers(n)) if isinstance(obs, dict) and "n_choices" in obs else env.action_space.sample()
                    turn = obs.get("turn") if isinstance(obs, dict) else None
                    (obs, reward, term, trunc, info), elapsed = _timed(timing, env.step, action)
                    trace.append((seen, _truths(base), (e, hashable(turn)), n, _whole(base)))
                    if term or trunc:
                        break
                yield trace


def play_parallel(env: Any, episodes: int, seed: int, max_steps: int, timing: bool) -> Iterator[list[tuple]]:
    for e in range(episodes):
        s = seed + e
        (obs, infos), elapsed = _timed(timing, env.reset, seed=s)
        for agent in env.possible_agents:
            env.action_space(agent).seed(s)
        reader, rewards, trace = Reader(history=True), None, []
        while env.agents and len(trace) < max_steps:
            seen = reader.read(obs, infos, rewards, elapsed)
            actions = {a: env.action_space(a).sample() for a in env.agents}
            (obs, rewards, _, _, infos), elapsed = _timed(timing, env.step, actions)
            trace.append((seen, _truths(env), (e, None), 2, _whole(env)))
        yield trace


def play_aec(env: Any, episodes: int, seed: int, max_steps: int, predictor: str | None,
              timing: bool) -> Iterator[list[tuple]]:
    """Per step of any seat: what the predictor seat (every seat, without one) last received, and the
    truths the step resolved. Other seats may know their own minds; the seat scored on ToM may not."""
    base = env.unwrapped
    for e in range(episodes):
        s = seed + e
        _, elapsed = _timed(timing, env.reset, seed=s)
        readers: dict[str, Reader] = {}
        view, trace = None, []
        for agent in env.agent_iter(max_iter=max_steps):
            obs, reward, term, trunc, info = env.last()
            if predictor is None or agent == predictor:
                view = readers.setdefault(agent, Reader(history=True)).read(obs, info, reward, elapsed)
            space = env.action_space(agent)
            space.seed(s + len(trace))
            _, elapsed = _timed(timing, env.step, None if term or trunc else space.sample())
            if view is not None:
                trace.append((view, _truths(base), (e, None), int(getattr(space, "n", 2)), _whole(base)))
        yield trace

