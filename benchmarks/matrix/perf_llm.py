"""``tom-envs perf llm``: what lockstep batching and prefix caching buy an LLM policy.

On one backend, in one process, for each scoring path the backend offers (``scoring_path``:
``"next-token"``, the default, and ``"prompt-logprobs"``, the old path; see
:mod:`policies.llm.scoring`):

* **speed** -- ``episodes`` matrix-game episodes stepped in lockstep by one
  :class:`~policies.matrix.llm.policy.LLMMatrixPolicy` (one backend call per round serves every episode)
  against the very same decisions made one request at a time (each episode alone, one call per
  decision). Both use 004's LM prompting (label scoring), whose decisions are deterministic, so
  both runs make identical decisions (checked: ``same_decisions``).
* **one long episode** (``cache_horizon`` rounds, 004's T = 100 by default; ``--cache-horizon`` a few for a
  CPU run) of LM prompting, from a cold prefix
  cache: the share of prompt tokens served from the prefix cache, prompt tokens sent and computed
  (sent minus cached) per decision, and how the cost of a round grows along the episode:
  ``cost_growth`` is the mean computed prompt tokens per round over the 10 rounds up to round
  ``growth_at[1]`` (the last round, 100) divided by the same over the rounds up to ``growth_at[0]`` (10, or half
  the long episode when it is shorter than 20 rounds: :func:`growth_rounds`), round 1 (a cold cache) left out; ``time_growth`` is the same ratio of seconds per round. Every round's
  prompt is the previous round's plus one history line, so with the prefix cache a round costs about
  the same at round 100 as at round 10, and without it the cost grows with the prompt (T² per episode).
  The two paths' scores of the long episode are compared round by round (``lm_scoring_equal_to_old_path``).

``prefix_cache_share`` is measured on the generation path with the same prompt structure (QA
prompting, one generated token per decision). Rounds stop early, and ``cache_rounds`` /
``rounds`` say where, if the prompt outgrows the backend's context length: build the tiny model with
enough positions (``python tests/llm/tiny_model.py DIR 8192``) and pass ``--max-model-len 8192``.

The top-level speed figures and ``lm_scoring_*`` are those of the backend's default path. Targets
(issue 4: speedup >= 5, prefix-cache share >= 0.8; issue 18: LM-scoring cache share >= 0.8, cost
growth <= 2) are reported, not asserted.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import gymnasium as gym

import tom_envs  # noqa: F401  (registers the ids)
from benchmarks.matrix.perf import PerfRun
from benchmarks.matrix.cells import matrix_env_id
from benchmarks.runner_envs import make_env
from benchmarks.runner_episodes import play_lockstep
from policies.llm import Backend
from policies.llm.base import ChatRequest, Generation, ScoreRequest
from policies.llm.errors import InvalidRequest, ScoringUnsupported
from policies.matrix.llm.policy import LLMMatrixPolicy, make_llm_policy
from policies.llm.scoring import SCORING_PATHS
from tom_envs.errors import TomEnvsError

TARGETS = {
    "speedup": 5.0,
    "speedup_vs_transformers": 5.0,
    "qa_speedup_vs_transformers": 5.0,
    "lm_scoring_time_growth": 2.0,
    "prefix_cache_share": 0.8,
    "lm_scoring_prefix_cache_share": 0.8,
    "lm_scoring_cost_growth": 2.0,
}
#: Largest difference between the two paths' scores (natural log) still counted as equal.
SCORE_TOLERANCE = 1e-3
#: Rounds averaged for the cost of a round at a given round.
GROWTH_WINDOW = 10
#: The shortest long episode: round 1 (a cold cache) is left out, and the cost grows from one later round to another.
MIN_CACHE_HORIZON = 3


class PerfLLMError(TomEnvsError, ValueError):
    """A size ``perf llm`` cannot measure with (a long episode too short to compare two rounds)."""


def growth_rounds(cache_horizon: int, growth_at: tuple[int, int] | None = None) -> tuple[int, int]:
    """The two rounds whose cost per round ``cost_growth`` compares: ``growth_at``, or by default the round
    :data:`GROWTH_WINDOW` (half the long episode when that is shorter than 20 rounds, at least round 2) and the
    long episode's last round (``(10, 100)`` at 004's T = 100).

    Raises:
        PerfLLMError: ``cache_horizon`` is not an int >= :data:`MIN_CACHE_HORIZON`, or ``growth_at`` is not two
            rounds ``2 <= low < high <= cache_horizon``.
    """
    if isinstance(cache_horizon, bool) or not isinstance(cache_horizon, int) or cache_horizon < MIN_CACHE_HORIZON:
        raise PerfLLMError(
            f"cache_horizon (--cache-horizon) must be an int >= {MIN_CACHE_HORIZON}, the rounds of the long episode "
            f"(round 1, a cold cache, is left out of the cost growth), got {cache_horizon!r}; 004's is 100"
        )
    if growth_at is None:
        return max(2, min(GROWTH_WINDOW, cache_horizon // 2)), cache_horizon
    low, high = growth_at
    if not 2 <= low < high <= cache_horizon:
        raise PerfLLMError(
            f"growth_at must be two rounds 2 <= low < high <= cache_horizon ({cache_horizon}), got {growth_at!r}"
        )
    return low, high


class _Recorder(Backend):
    """Forwards every call to a backend and keeps each ``score`` call's requests and results."""

    def __init__(self, inner: Backend) -> None:
        self.inner = inner
        self.stats = inner.stats
        self.scored: list[tuple[list[ScoreRequest], list[list[float]]]] = []

    def generate(self, requests: Sequence[ChatRequest]) -> list[Generation]:
        return self.inner.generate(requests)

    def score(self, requests: Sequence[ScoreRequest]) -> list[list[float]]:
        out = self.inner.score(requests)
        self.scored.append((list(requests), out))
        return out

    def close(self) -> None:  # the caller owns the inner backend
        pass

    def __getattr__(self, name: str) -> Any:  # tokenizer, model, ...
        return getattr(self.inner, name)


def _lockstep(policy: LLMMatrixPolicy, game: str, horizon: int, seeds: Sequence[int]) -> list[list[int]]:
    """Run the episodes in lockstep (:func:`benchmarks.runner.play_lockstep`, no recorder: act only);
    the actions per episode."""
    envs = [make_env(matrix_env_id(game), record=False, horizon=horizon) for _ in seeds]
    return [result.steps for result in play_lockstep(envs, policy, seeds, on_step=lambda step: step.action)]


def _episode(
    backend: Backend, strategy: str, game: str, horizon: int, seed: int = 0, **kwargs: Any
) -> list[dict[str, float]]:
    """One episode from a cold prefix cache; per round: prompt tokens sent, of them cached, seconds."""
    reset = getattr(backend, "reset_prefix_cache", None)
    if reset is not None:
        reset()
    policy = make_llm_policy(strategy, backend, game, horizon=horizon, **kwargs)
    env = gym.make(matrix_env_id(game), horizon=horizon)
    policy.reset(seed)
    obs, info = env.reset(seed=seed)
    rounds = []
    stats = backend.stats
    for _ in range(horizon):
        before = (stats.prompt_tokens, stats.prefix_cache_hit_tokens or 0)
        t0 = time.perf_counter()
        try:
            action = policy.act(obs, info)
        except InvalidRequest:  # the prompt outgrew the context length
            break
        seconds = time.perf_counter() - t0
        cached = None if stats.prefix_cache_hit_tokens is None else stats.prefix_cache_hit_tokens - before[1]
        rounds.append({"prompt": stats.prompt_tokens - before[0], "cached": cached, "seconds": seconds})
        obs, reward, terminated, truncated, info = env.step(action)
        policy.observe(obs, reward, terminated, truncated, info)
    return rounds


def _share(rounds: list[dict[str, float]]) -> float | None:
    prompt = sum(r["prompt"] for r in rounds)
    if not rounds or prompt == 0 or any(r["cached"] is None for r in rounds):
        return None
    return sum(r["cached"] for r in rounds) / prompt


def _at(rounds: list[dict[str, float]], t: int, key: str) -> float | None:
    """Mean ``key`` per round over the :data:`GROWTH_WINDOW` rounds up to round ``t`` (round 1 left out)."""
    window = rounds[max(1, t - GROWTH_WINDOW) : t]
    if len(rounds) < t or not window:
        return None
    return sum(r[key] for r in window) / len(window)


def _computed(rounds: list[dict[str, float]]) -> list[dict[str, float]]:
    return [{**r, "computed": r["prompt"] - (r["cached"] or 0)} for r in rounds]


def _ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None or b == 0 else a / b


def _speed(backend: Backend, game: str, episodes: int, horizon: int, seed: int = 0) -> dict[str, Any]:
    seeds = list(range(seed, seed + episodes))
    decisions = episodes * horizon
    _lockstep(make_llm_policy("lm", backend, game, horizon=horizon), game, 1, [seed])  # warm-up

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
    return {
        "batched_decisions_per_s": decisions / batched_s,
        "sequential_decisions_per_s": decisions / sequential_s,
        "speedup": sequential_s / batched_s,
        "decisions_per_call": decisions / max(batched_calls, 1),
        "same_decisions": batched == sequential,
        "decisions_made": batched,
    }


def _long_episode(
    backend: Backend, game: str, horizon: int, growth_at: tuple[int, int], seed: int = 0
) -> dict[str, Any]:
    rounds = _computed(_episode(backend, "lm", game, horizon, seed))
    n = max(len(rounds), 1)
    low, high = growth_at
    cost = (_at(rounds, low, "computed"), _at(rounds, high, "computed"))
    seconds = (_at(rounds, low, "seconds"), _at(rounds, high, "seconds"))
    return {
        "prefix_cache_share": _share(rounds),
        "prompt_tokens_per_decision": sum(r["prompt"] for r in rounds) / n,
        "computed_prompt_tokens_per_decision": sum(r["computed"] for r in rounds) / n,
        f"computed_prompt_tokens_per_round_at_{low}": cost[0],
        f"computed_prompt_tokens_per_round_at_{high}": cost[1],
        "cost_growth": _ratio(cost[1], cost[0]),
        f"seconds_per_round_at_{low}": seconds[0],
        f"seconds_per_round_at_{high}": seconds[1],
        "time_growth": _ratio(seconds[1], seconds[0]),
        "rounds": len(rounds),
    }


_Scored = list[tuple[list[ScoreRequest], list[list[float]]]]


def _compare(a: _Scored, b: _Scored) -> tuple[int, float]:
    """Rounds whose requests are identical in both runs, and the largest score difference among them."""
    compared, diff = 0, 0.0
    for (req_a, out_a), (req_b, out_b) in zip(a, b):
        if req_a != req_b:
            break
        compared += 1
        diff = max([diff] + [abs(x - y) for ra, rb in zip(out_a, out_b) for x, y in zip(ra, rb)])
    return compared, diff


@dataclass(frozen=True)
class LLMPerfOptions:
    """What else ``perf llm`` measures: ``reference_folder`` (a model folder: time a plain transformers loop on it
    for ``reference_episodes`` episodes, :func:`versus_transformers`; None leaves that reference out) and
    ``scoring_paths`` (the paths to measure; None: every path the backend has)."""

    reference_folder: str | None = None
    reference_episodes: int = 2
    scoring_paths: tuple[str, ...] | None = None


def versus_transformers(
    backend: Backend, folder: str, game: str, episodes: int, horizon: int, reference_episodes: int, seed: int = 0
) -> dict[str, Any]:
    """Decisions/s of the suite's batched path (``episodes`` in lockstep on ``backend``) against a plain
    transformers loop on the same model folder (:class:`~benchmarks.matrix.perf_transformers.TransformersLoop`,
    ``reference_episodes`` one after the other, one request at a time), for LM prompting (label scoring) and
    QA prompting (one generated reply per decision, no re-asks)."""
    from benchmarks.matrix.perf_transformers import TransformersLoop, time_decisions

    qa = {"max_resamples": 0, "fallback": "random", "max_tokens": 16}
    seeds, ref_seeds = list(range(seed, seed + episodes)), list(range(seed, seed + reference_episodes))
    reference = TransformersLoop(folder)
    out: dict[str, Any] = {
        "reference": "transformers, one request at a time (generate / one forward per label)",
        "reference_episodes": reference_episodes,
    }
    for name, kwargs in (("lm", {}), ("qa", qa)):
        batched = time_decisions(
            lambda: _lockstep(make_llm_policy(name, backend, game, horizon=horizon, **kwargs), game, horizon, seeds),
            episodes * horizon,
        )
        plain = time_decisions(
            lambda: [
                _lockstep(make_llm_policy(name, reference, game, horizon=horizon, **kwargs), game, horizon, [s])
                for s in ref_seeds
            ],
            reference_episodes * horizon,
        )
        prefix = "" if name == "lm" else "qa_"
        out.update(
            {
                f"{prefix}batched_decisions_per_s": batched,
                f"{prefix}transformers_decisions_per_s": plain,
                f"{prefix}speedup_vs_transformers": batched / plain,
            }
        )
    reference.close()
    return out


def perf_llm(
    backend: Backend,
    episodes: int = 30,
    horizon: int = 10,
    *,
    game: str = "RPS",
    cache_horizon: int = 100,
    growth_at: tuple[int, int] | None = None,
    run: PerfRun = PerfRun(),
    options: LLMPerfOptions = LLMPerfOptions(),
) -> dict[str, Any]:
    """Lockstep vs one-request-at-a-time decisions/s, prefix-cache shares and cost growth on ``backend``,
    for each of its scoring paths.

    Args:
        backend: the engine (the same one serves every run).
        episodes: episodes stepped in lockstep (and then one by one).
        horizon: rounds per episode of the speed runs.
        game: the matrix game.
        cache_horizon: rounds of the long episode (004's T = 100).
        growth_at: the two rounds whose cost per round is compared (``cost_growth``; default:
            :func:`growth_rounds`).
        run: ``--seed`` (the episodes' seeds: ``seed .. seed + episodes - 1``; the long episodes' ``seed``) and
            where each path's figures go the moment they are measured (:class:`~benchmarks.matrix.perf.PerfRun`).
        options: the transformers reference and the scoring paths to measure (:class:`LLMPerfOptions`).

    Returns:
        JSON-ready figures. Top level (the default scoring path): ``batched_decisions_per_s``,
        ``sequential_decisions_per_s``, ``speedup``, ``decisions_per_call``, ``same_decisions``,
        ``lm_scoring_prefix_cache_share``, ``lm_scoring_computed_prompt_tokens_per_decision``,
        ``lm_scoring_cost_growth``, ``lm_scoring_equal_to_old_path`` (and ``lm_scoring_max_abs_diff``,
        ``lm_scoring_compared_rounds``), ``scoring_path``; ``prefix_cache_share`` and ``cache_rounds``
        (generation path; None if the backend does not report cache hits); ``scoring_paths``: every
        figure per path (``{"error": ...}`` for a path the backend cannot serve); ``decisions``,
        ``episodes``, ``horizon``, ``game``, ``model``, ``targets``.

    Raises:
        PerfLLMError: a ``cache_horizon`` or ``growth_at`` it cannot measure with (:func:`growth_rounds`).
    """
    growth_at = growth_rounds(cache_horizon, growth_at)
    original = getattr(backend, "scoring_path", None)
    paths = list(options.scoring_paths or SCORING_PATHS) if original is not None else ["default"]
    if original in SCORING_PATHS:  # the backend's own path first, so the top level is its figures
        paths.sort(key=lambda p: p != original)
    per_path: dict[str, dict[str, Any]] = {}
    scored: dict[str, list] = {}
    try:
        for path in paths:
            if original is not None:
                backend.scoring_path = path
            recorder = _Recorder(backend)
            try:
                figures = _speed(backend, game, episodes, horizon, run.seed)
                figures.update(_long_episode(recorder, game, cache_horizon, growth_at, run.seed))
            except ScoringUnsupported as exc:
                per_path[path] = {"error": str(exc)}
                run.emit(f"scoring_paths.{path}", per_path[path])
                continue
            per_path[path] = figures
            run.emit(f"scoring_paths.{path}", {k: v for k, v in figures.items() if k != "decisions_made"})
            scored[path] = recorder.scored
    finally:
        if original is not None:
            backend.scoring_path = original
    generation = _episode(
        backend, "qa", game, cache_horizon, run.seed, max_resamples=0, fallback="random", max_tokens=1
    )
    share, rounds = _share(generation), len(generation)
    run.emit("prefix_cache_share", share)
    served = [p for p in paths if "error" not in per_path[p]]
    if not served:
        raise ScoringUnsupported(f"perf llm: the backend cannot score on any path: {per_path}")
    main_path = served[0]  # the backend's own path, or the first it serves ("auto")
    main = per_path[main_path]
    decisions_made = {p: f.pop("decisions_made") for p, f in per_path.items() if "decisions_made" in f}
    result: dict[str, Any] = {
        **{
            k: main[k]
            for k in (
                "batched_decisions_per_s",
                "sequential_decisions_per_s",
                "speedup",
                "decisions_per_call",
                "same_decisions",
            )
        },  # fmt: skip
        "prefix_cache_share": share,
        "lm_scoring_prefix_cache_share": main["prefix_cache_share"],
        "lm_scoring_computed_prompt_tokens_per_decision": main["computed_prompt_tokens_per_decision"],
        "lm_scoring_cost_growth": main["cost_growth"],
        "lm_scoring_time_growth": main["time_growth"],
        "scoring_path": main_path,
        "cache_rounds": rounds,
    }
    if options.reference_folder is not None:
        versus = versus_transformers(
            backend, options.reference_folder, game, episodes, horizon, options.reference_episodes, run.seed
        )
        run.emit("versus_transformers", versus)
        result.update(versus)
    old = "prompt-logprobs"
    if main_path != old and old in scored:
        compared, diff = _compare(scored[main_path], scored[old])
        result["lm_scoring_compared_rounds"] = compared
        result["lm_scoring_max_abs_diff"] = diff
        result["lm_scoring_equal_to_old_path"] = (
            compared == min(len(scored[main_path]), len(scored[old])) > 0
            and diff <= SCORE_TOLERANCE
            and decisions_made.get(main_path) == decisions_made.get(old)
        )
    result.update({
        "scoring_paths": per_path,
        "decisions": episodes * horizon,
        "episodes": episodes,
        "horizon": horizon,
        "cache_horizon": cache_horizon,
        "growth_at": list(growth_at),
        "game": game,
        "seed": run.seed,
        "model": getattr(backend, "model", type(backend).__name__),
        "targets": TARGETS,
    })  # fmt: skip
    return result
