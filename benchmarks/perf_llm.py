"""``tom-envs perf llm``: what lockstep batching and prefix caching buy an LLM policy.

On one backend, in one process:

* **speed** -- ``episodes`` matrix-game episodes stepped in lockstep by one
  :class:`~policies.llm.policy.LLMMatrixPolicy` (one backend call per round serves every episode)
  against the very same decisions made one request at a time (each episode alone, one call per
  decision). Both use 004's LM prompting (label scoring), whose decisions are deterministic, so
  both runs make identical decisions (checked: ``same_decisions``).
* **prefix cache** -- the share of prompt tokens served from the prefix cache over one long
  episode (``cache_horizon`` rounds, 100 by default). Every round's prompt is the previous round's
  prompt plus one history line, so nearly all of it can be reused. vLLM serves prompt-logprob
  (scoring) requests without the prefix cache, so the LM path reports 0 there
  (``lm_scoring_prefix_cache_share``); ``prefix_cache_share`` is measured on the generation path
  with the same prompt structure (QA prompting, one generated token per decision). Rounds stop early,
  and ``cache_rounds`` says where, if the prompt outgrows the backend's context length.

The targets of issue 4 (speedup >= 5 on the tiny CPU model, prefix-cache share >= 0.8) are
reported, not asserted.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import gymnasium as gym

import tom_envs  # noqa: F401  (registers the ids)
from benchmarks.matrix import matrix_env_id
from benchmarks.runner import make_env, play_lockstep
from policies.llm.backends import Backend
from policies.llm.errors import InvalidRequest
from policies.llm.policy import LLMMatrixPolicy, make_llm_policy

TARGETS = {"speedup": 5.0, "prefix_cache_share": 0.8}


def _lockstep(policy: LLMMatrixPolicy, game: str, horizon: int, seeds: Sequence[int]) -> list[list[int]]:
    """Run the episodes in lockstep (:func:`benchmarks.runner.play_lockstep`, no recorder: act only);
    the actions per episode."""
    envs = [make_env(matrix_env_id(game), record=False, horizon=horizon) for _ in seeds]
    return [result.steps for result in play_lockstep(envs, policy, seeds, on_step=lambda step: step.action)]


def _cache_share(backend: Backend, strategy: str, game: str, horizon: int, **kwargs: Any) -> tuple[float | None, int]:
    """Prefix-cache share of prompt tokens over one episode, and the rounds played."""
    policy = make_llm_policy(strategy, backend, game, horizon=horizon, **kwargs)
    env = gym.make(matrix_env_id(game), horizon=horizon)
    policy.reset(0)
    obs, info = env.reset(seed=0)
    before = (backend.stats.prompt_tokens, backend.stats.prefix_cache_hit_tokens or 0)
    rounds = 0
    for _ in range(horizon):
        try:
            action = policy.act(obs, info)
        except InvalidRequest:  # the prompt outgrew the context length
            break
        obs, reward, terminated, truncated, info = env.step(action)
        policy.observe(obs, reward, terminated, truncated, info)
        rounds += 1
    prompt = backend.stats.prompt_tokens - before[0]
    if backend.stats.prefix_cache_hit_tokens is None or prompt == 0:
        return None, rounds
    return (backend.stats.prefix_cache_hit_tokens - before[1]) / prompt, rounds


def perf_llm(
    backend: Backend,
    episodes: int = 30,
    horizon: int = 10,
    *,
    game: str = "RPS",
    cache_horizon: int = 100,
) -> dict[str, Any]:
    """Lockstep vs one-request-at-a-time decisions/s and the prefix-cache share on ``backend``.

    Args:
        backend: the engine (the same one serves both runs).
        episodes: episodes stepped in lockstep (and then one by one).
        horizon: rounds per episode of the speed runs.
        game: the matrix game.
        cache_horizon: rounds of the prefix-cache episode (004's T = 100).

    Returns:
        JSON-ready figures: ``batched_decisions_per_s``, ``sequential_decisions_per_s``,
        ``speedup``, ``decisions_per_call`` (batched run), ``prefix_cache_share`` (0-1, generation
        path; None if the backend does not report cache hits), ``lm_scoring_prefix_cache_share``,
        ``cache_rounds``, ``same_decisions``, ``decisions``, ``episodes``, ``horizon``, ``targets``.
    """
    seeds = list(range(episodes))
    decisions = episodes * horizon
    _lockstep(make_llm_policy("lm", backend, game, horizon=horizon), game, 1, [0])  # warm-up

    policy = make_llm_policy("lm", backend, game, horizon=horizon)
    calls0 = backend.stats.calls
    t0 = time.perf_counter()
    batched = _lockstep(policy, game, horizon, seeds)
    batched_s = time.perf_counter() - t0
    batched_calls = backend.stats.calls - calls0

    t0 = time.perf_counter()
    sequential = [
        _lockstep(make_llm_policy("lm", backend, game, horizon=horizon), game, horizon, [s])[0] for s in seeds
    ]
    sequential_s = time.perf_counter() - t0

    lm_share, _ = _cache_share(backend, "lm", game, min(cache_horizon, 10))
    share, rounds = _cache_share(backend, "qa", game, cache_horizon, max_resamples=0, fallback="random", max_tokens=1)
    batched_rate = decisions / batched_s
    sequential_rate = decisions / sequential_s
    return {
        "batched_decisions_per_s": batched_rate,
        "sequential_decisions_per_s": sequential_rate,
        "speedup": batched_rate / sequential_rate,
        "decisions_per_call": decisions / max(batched_calls, 1),
        "prefix_cache_share": share,
        "lm_scoring_prefix_cache_share": lm_share,
        "cache_rounds": rounds,
        "same_decisions": batched == sequential,
        "decisions": decisions,
        "episodes": episodes,
        "horizon": horizon,
        "game": game,
        "model": getattr(backend, "model", type(backend).__name__),
        "targets": TARGETS,
    }
