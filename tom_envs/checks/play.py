"""Playing an env as the checker's cheating policies do: Gymnasium, PettingZoo parallel and AEC, each step
traced as (what the policy read, the truths the step resolved, its unit, its options, the whole truth)."""

from __future__ import annotations

import copy
import re
import time
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from tom_envs.checks.channels import Declared
from tom_envs.checks.features import Reader, hashable, pattern


@dataclass
class Row:
    x: dict[str, Hashable]  # everything returned before the decision
    public: dict[str, Hashable]  # the public part of it
    target: str
    y: Hashable  # the truth the decision's step resolved
    unit: Hashable  # rows of one unit are never split between training and held-out halves
    n: int  # options (for the chance rate)
    episode: int
    suffix: str = ""  # the target element's index as a path suffix ("[0][2]" for stances[0, 2])
    planted: dict[str, Hashable] | None = None  # the positive control: the step's whole truth, "control.*"


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


def element_suffix(target: str) -> str:
    """The element index of a target as a path suffix (``stances[0, 2]`` → ``"[0][2]"``; ``answer`` → ``""``)."""
    return "".join(f"[{i}]" for i in re.findall(r"-?\d+", target.partition("[")[2]))


def readable(prefix: str, target: str) -> str:
    """The path under which a channel hands a policy the truth of ``target`` (``passes.answer``), an element
    of an array target as the probes read an element (``stances[0, 2]`` → ``shadow.stances[0][2]``)."""
    return f"{prefix}.{target.partition('[')[0]}{element_suffix(target)}"


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


@dataclass
class Plan:
    """How one run plays: ``seed`` the first env seed, ``repeats`` plays of each episode under other seeds,
    ``passes`` plays of the whole run with the same seeds (the runner's passes), ``remember`` whether a
    policy keeps, across passes, the truths revealed when each episode ended (keyed by what it was shown),
    ``shadow`` the env seed a policy could rebuild from its own seed (None: no shadow; see
    :mod:`tom_envs.checks.channels`), ``declared`` public path patterns, ``history`` / ``question`` as
    :class:`~tom_envs.checks.features.Reader`."""

    seed: int = 0
    repeats: int = 1
    max_steps: int = 10_000
    timing: bool = False
    passes: int = 1
    remember: bool = False
    shadow: Any = None  # Callable[[int], int] | None: env seed → the seed a policy could rebuild it with
    declared: Declared = Declared()
    history: bool = False
    question: bool = False

    def reader(self, seat: str | None = None) -> Reader:
        """A fresh reader for ``seat``'s view: what is public to it (:meth:`Declared.for_seat`)."""
        composed = {path: pattern(parts) for path, parts in self.declared.composed.items()}
        return Reader(self.history, self.question, pattern(self.declared.for_seat(seat)), composed)


def _memory_key(public: dict[str, Hashable]) -> Hashable:
    return tuple(sorted((p, v) for p, v in public.items() if not p.startswith(("mem.", "shadow."))))


class _Passes:
    """What a policy remembers across passes: per item shown -- its place in the run (episode, and the
    decision's index in it: a policy counts) and what it was shown there (its public part) -- the truths
    revealed when its episode ended. Call :meth:`start` at each episode, :meth:`read` at each decision in
    order, :meth:`reveal` with the episode's trace (one entry per decision read)."""

    def __init__(self, plan: Plan) -> None:
        self.plan, self.known = plan, {}
        self.episode: Hashable = None
        self.step = 0

    def start(self, episode: Hashable) -> None:
        self.episode, self.step = episode, 0

    def _key(self, public: dict[str, Hashable], step: int) -> Hashable:
        return self.episode, step, _memory_key(public)

    def read(self, seen: dict) -> None:
        if self.plan.remember:
            for target, y in self.known.get(self._key(seen["public"], self.step), {}).items():
                seen["all"][readable("passes", target)] = y
        self.step += 1

    def reveal(self, trace: list[tuple]) -> None:
        if self.plan.remember:
            for step, (seen, truths, *_) in enumerate(trace):
                self.known.setdefault(self._key(seen["public"], step), {}).update(truths)


class _Shadow:
    """A copy of the env a policy rebuilds from its own seed and steps ahead with the action it is about to
    take: its truths (``shadow.<target>``) are what the policy would know (runner channel: seeds). The
    public part reads the same copy rebuilt from a seed no policy shares (what anyone can simulate: a
    dataset env's fixed labels), so that only what the policy's seed adds counts."""

    def __init__(self, env: Any, plan: Plan) -> None:
        self.copies = (
            []
            if plan.shadow is None
            else [(copy.deepcopy(env), plan.shadow, "all"), (copy.deepcopy(env), _unshared, "public")]
        )
        self.live = [False] * len(self.copies)

    def reset(self, seed: int, options: Any = None) -> None:
        kwargs = {} if options is None else {"options": options}
        for k, (env, derive, _) in enumerate(self.copies):
            env.reset(seed=int(derive(seed)), **kwargs)
            self.live[k] = True

    def step(self, action: Any, seens: list[dict], agent: str | None = None) -> None:
        for k, (env, _, part) in enumerate(self.copies):
            if self.live[k]:
                self.live[k] = _step_copy(env, action, agent)
            if self.live[k]:
                for target, y in _truths(env.unwrapped).items():
                    for seen in seens:
                        seen[part][readable("shadow", target)] = y


def _unshared(seed: int) -> int:
    return (seed * 7919 + 104_729) % 2**31


def _step_copy(env: Any, action: Any, agent: str | None) -> bool:
    """Step a shadow copy; False once it ended or diverged (another seat to play, a refused action)."""
    try:
        if agent is None:
            *_, term, trunc, _ = env.step(action)
            return not (term or trunc)
        if env.agent_selection != agent:
            return False
        env.step(action)
        return bool(env.agents)
    except Exception:  # noqa: BLE001 -- a shadow that diverged tells nothing more
        return False


def play_gym(env: Any, options: list[dict | None], plan: Plan) -> Iterator[tuple[str | None, list[tuple]]]:
    base, rng = env.unwrapped, np.random.default_rng(plan.seed)
    shadow, passes = _Shadow(env, plan), _Passes(plan)
    with _own_observation(env) as own:
        for _ in range(plan.passes):
            for r in range(plan.repeats):
                for e, opt in enumerate(options):
                    s = plan.seed + 1000 * r + e
                    env.action_space.seed(s)
                    (obs, info), elapsed = _timed(plan.timing, env.reset, seed=s, options=opt)
                    shadow.reset(s, opt)
                    passes.start((r, e))
                    reader, reward, trace = plan.reader(), None, []
                    for _ in range(plan.max_steps):
                        seen = reader.read(obs, info, reward, elapsed, own[0])
                        passes.read(seen)
                        n = _n_options(env.action_space, obs)
                        qa = isinstance(obs, dict) and "n_choices" in obs
                        action = int(rng.integers(n)) if qa else env.action_space.sample()
                        shadow.step(action, [seen])
                        turn = obs.get("turn") if isinstance(obs, dict) else None
                        (obs, reward, term, trunc, info), elapsed = _timed(plan.timing, env.step, action)
                        trace.append((seen, _truths(base), (e, hashable(turn)), n, _whole(base)))
                        if term or trunc:
                            break
                    passes.reveal(trace)
                    yield None, trace


def play_parallel(env: Any, episodes: int, plan: Plan) -> Iterator[tuple[str | None, list[tuple]]]:
    """Per joint step, for every seat: its observation, info and reward (what the parallel API hands it).
    One trace per seat and episode, as :func:`play_aec`."""
    base = getattr(env, "unwrapped", env)
    memory = {a: _Passes(plan) for a in env.possible_agents}  # what each seat's policy keeps across passes
    for e in (e for _ in range(plan.passes) for e in range(episodes)):
        s = plan.seed + e
        (obs, infos), elapsed = _timed(plan.timing, env.reset, seed=s)
        for agent in env.possible_agents:
            env.action_space(agent).seed(s)
            memory[agent].start(e)
        readers = {a: plan.reader(a) for a in env.possible_agents}
        traces: dict[str, list[tuple]] = {a: [] for a in env.possible_agents}
        rewards: dict = {}
        for _ in range(plan.max_steps):
            if not env.agents:
                break
            views = {a: readers[a].read(obs.get(a), infos.get(a, {}), rewards.get(a), elapsed) for a in env.agents}
            for a, seen in views.items():
                memory[a].read(seen)
            actions = {a: env.action_space(a).sample() for a in env.agents}
            (obs, rewards, _, _, infos), elapsed = _timed(plan.timing, env.step, actions)
            truths, whole = _truths(base), _whole(base)
            for a, seen in views.items():
                traces[a].append((seen, truths, (e, None), 2, whole))
        for a in env.possible_agents:
            memory[a].reveal(traces[a])
            yield a, traces[a]


def _seat_dict(env: Any, name: str) -> dict:
    """``env.infos`` / ``env.rewards`` as the outermost wrapper shows them (the unwrapped env's where a
    wrapper does not forward them; empty where neither has them)."""
    for holder in (env, getattr(env, "unwrapped", env)):
        try:
            found = getattr(holder, name)
        except AttributeError:
            continue
        if isinstance(found, dict):
            return found
    return {}


def play_aec(env: Any, episodes: int, plan: Plan, seats: list[str]) -> Iterator[tuple[str | None, list[tuple]]]:
    """Per step of any seat, for each of ``seats``: everything that seat has received by then -- its
    observation, its ``infos`` entry and reward as they stand after every step of every seat (what
    ``aec_to_parallel`` and ``last()`` hand it) -- and the truths the step resolved. One trace per seat
    and episode; which targets a seat may know itself is decided by the caller."""
    base = env.unwrapped
    shadow = _Shadow(env, plan)
    wrapped = base is not env and callable(getattr(base, "observe", None))  # else: no own observation to read
    memory = {a: _Passes(plan) for a in seats}  # what each seat's policy keeps across passes
    for e in (e for _ in range(plan.passes) for e in range(episodes)):
        s = plan.seed + e
        _, elapsed = _timed(plan.timing, env.reset, seed=s)
        shadow.reset(s)
        for a in seats:
            memory[a].start(e)
        readers = {a: plan.reader(a) for a in seats}
        traces: dict[str, list[tuple]] = {a: [] for a in seats}
        draws = np.random.default_rng([s, 0xC4EC])  # the actions' seeds: no two episodes share a sequence
        for agent in env.agent_iter(max_iter=plan.max_steps):
            views = {}
            obs, reward, term, trunc, info = env.last()
            infos, rewards = _seat_dict(env, "infos"), _seat_dict(env, "rewards")
            for a in seats:
                own = (base.observe(a),) if wrapped and a in env.agents else None  # the env's own, under wrappers
                if a == agent:  # its turn: what last() hands it, and its infos entry as aec_to_parallel reads it
                    views[a] = readers[a].read(obs, {**dict(infos.get(a, {})), **dict(info)}, reward, elapsed, own)
                elif a in env.agents:  # another seat acts: what aec_to_parallel hands this one meanwhile
                    views[a] = readers[a].read(env.observe(a), dict(infos.get(a, {})), rewards.get(a), elapsed, own)
            space = env.action_space(agent)
            space.seed(int(draws.integers(2**31)))
            action = None if term or trunc else space.sample()
            for a, seen in views.items():
                memory[a].read(seen)
            shadow.step(action, list(views.values()), agent)
            _, elapsed = _timed(plan.timing, env.step, action)
            truths, whole, n = _truths(base), _whole(base), int(getattr(space, "n", 2))
            for a, seen in views.items():
                traces[a].append((seen, truths, (e, None), n, whole))
        for a in seats:
            memory[a].reveal(traces[a])
            yield a, traces[a]
