"""The live rows of ``python -m benchmarks persuasion --env live``: persuaders played on the live
persuasion env by the evaluation runner, wrapped in the ToM recorder (which scores the desire and
attitude predictions). The command itself (options, QA rows) is :mod:`benchmarks.persuasion`."""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from benchmarks.cli import progress_bar
from benchmarks.runner import make_env, play
from benchmarks.stats import mean_ci95
from policies.base import BasePolicy
from policies.persuasion import BanditPersuader, OraclePersuader, RandomPersuader
from tom_envs.errors import TomEnvsError

LIVE_ENV = "tom_envs.persuasion.live:PersuasionEnv"
#: Live persuaders by name (a class's ``env_kwargs`` go to its env).
LIVE_POLICIES: dict[str, Callable[[], BasePolicy]] = {"random": RandomPersuader, "bandit": BanditPersuader,
                                                      "oracle": OraclePersuader}
LIVE_EPISODES = 300  # default episodes per persuader


class PersuasionBenchmarkError(TomEnvsError, ValueError):
    """Bad arguments to ``python -m benchmarks persuasion``."""


def policy_seed(seed: int) -> int:
    """The policy's seed for an episode seeded ``seed``: derived, so that the policy's stream
    differs from the env's (``default_rng(seed)`` would replay the env's own draws)."""
    return int(np.random.SeedSequence([seed, 0x5EED]).generate_state(1)[0])


def play_episode(env: Any, policy: BasePolicy, seed: int) -> dict[str, Any]:
    """One live episode played by the runner (the policy predicts, acts, observes; the ToM recorder
    scores its desire and attitude predictions); the env's episode summary with the recorder's
    ``desire_accuracy`` and ``attitude_accuracy`` (percent, None without predictions)."""
    from wrappers import ToMRecorder

    recorded = env if isinstance(env, ToMRecorder) else ToMRecorder(env)
    result = play(recorded, policy, seed, policy_seed=policy_seed)
    by_target = result.summary.get("tom_accuracy_by_target", {})
    return {**result.info["episode"], "desire_accuracy": by_target.get("desire"),
            "attitude_accuracy": by_target.get("attitude")}


def live_rows(policies: Sequence[str], episodes: int, seed: int, horizon: int = 5,
              progress: bool | None = False) -> list[dict[str, Any]]:
    """One row per persuader: success %, the oracle's success %, regret, literal-ToM accuracies."""
    from benchmarks.data import newest_id

    if episodes < 1:
        raise PersuasionBenchmarkError(f"--episodes must be at least 1, got {episodes}")
    rows = []
    for name in policies:
        if name not in LIVE_POLICIES:
            raise PersuasionBenchmarkError(f"unknown persuader {name!r}; choose from {', '.join(LIVE_POLICIES)}")
        factory = LIVE_POLICIES[name]
        env = make_env(newest_id(LIVE_ENV), record=True, horizon=horizon, **getattr(factory, "env_kwargs", {}))
        policy = factory()
        bar = progress_bar(episodes, f"live {name}", progress)
        eps = []
        for i in range(episodes):
            eps.append(play_episode(env, policy, seed + i))
            bar.update(1)
        bar.close()
        row: dict[str, Any] = {"env": "live", "policy": name, "episodes": len(eps), "horizon": horizon}
        row["success"], row["success_ci"] = mean_ci95([100.0 * e["success"] for e in eps])
        row["optimal_success"], row["optimal_success_ci"] = mean_ci95([100.0 * e["optimal_success"] for e in eps])
        row["regret"], row["regret_ci"] = mean_ci95([e["regret"] for e in eps])
        for key in ("desire_accuracy", "attitude_accuracy"):
            row[key], row[key + "_ci"] = mean_ci95([e[key] for e in eps if e[key] is not None])
        rows.append(row)
    return rows


def _fmt(m: float | None, ci: float | None, digits: int = 2) -> str:
    return "n/a" if m is None else f"{m:.{digits}f} ± {ci:.{digits}f}"


def format_live_table(live: Sequence[dict[str, Any]]) -> list[str]:
    """The live rows as plain-text lines (header, rule, one line per persuader)."""
    head = (f"{'persuader':<10} {'episodes':>8} {'success %':>16} {'oracle %':>8} {'regret':>14} "
            f"{'desire ToM %':>16} {'attitude ToM %':>16}")
    out = [head, "-" * len(head)]
    out += [f"{r['policy']:<10} {r['episodes']:>8} {_fmt(r['success'], r['success_ci'], 1):>16} "
            f"{r['optimal_success']:>8.1f} {_fmt(r['regret'], r['regret_ci'], 3):>14} "
            f"{_fmt(r['desire_accuracy'], r['desire_accuracy_ci'], 1):>16} "
            f"{_fmt(r['attitude_accuracy'], r['attitude_accuracy_ci'], 1):>16}" for r in live]
    return out
