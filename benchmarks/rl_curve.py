"""Learning curves for ``tom-envs rl`` (docs/rl.md "Learning curves"): evaluation during training.

While a model trains, at ``RLTask.curve_points`` evenly spaced points (and before the first step and
after the last), the agent as it stands plays ``RLTask.curve_episodes`` episodes of the task's held-out
**test** split (greedy, as it is tested; episodes ``0 .. curve_episodes-1``): its functional outcome,
and its literal ToM % -- a probe fitted at that point on as many train-split episodes (seeds from
1,000,000, as :mod:`benchmarks.rl_eval` fits the final one) -- beside the same agent predicting the
probe's training majority. On envs whose action is the prediction the ToM % is the answers' and no
probe is fitted.

The curve is measured, never fed back: nothing of it reaches the learner (no early stopping, no model
selection), and the global random states (Python's, numpy's, torch's) are saved before each evaluation
and restored after it, so a model trains exactly as it would without its curve. The curve is saved
beside the model as ``<model>.curve.json`` (like ``<model>.timing.json``); a model trained before curves
existed has none.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

#: The split the curve is measured on.
CURVE_SPLIT = "test"


def curve_path(model_path: Path) -> Path:
    """Where a model's learning curve is kept: ``<model>.curve.json`` beside it."""
    return model_path.with_name(model_path.stem + ".curve.json")


class _RandomStates:
    """The global random states (Python, numpy, torch), saved on enter and restored on exit."""

    def __enter__(self) -> "_RandomStates":
        import torch

        self.states = (random.getstate(), np.random.get_state(), torch.get_rng_state())
        return self

    def __exit__(self, *exc: Any) -> None:
        import torch

        random.setstate(self.states[0])
        np.random.set_state(self.states[1])
        torch.set_rng_state(self.states[2])


def measure(task: Any, training: Any, model: Any, episodes: int, env: Any, probing: bool) -> dict[str, Any]:
    """One point of the curve: the agent as it stands on ``episodes`` episodes of ``env`` (the test split, in
    the ToM recorder; made once per training), with a probe fitted now where ``probing``."""
    from benchmarks.rl_eval import ProbePlan, episode_options, fit_on_train_split, outcome_of
    from benchmarks.runner_episodes import play
    from policies.sb3 import SB3Policy

    with _RandomStates():
        mask = env.env.mask_slice if training.algo == "maskable_ppo" else None
        probe = fit_on_train_split(task, ProbePlan(training, episodes), model) if probing else None
        point: dict[str, Any] = {"tom_majority": None}
        for name, predictor in (("tom_accuracy", probe), ("tom_majority", None if probe is None else probe.majority())):
            if name == "tom_majority" and probe is None:
                continue
            policy = SB3Policy(model, name=training.algo, probe=predictor, mask=mask)
            summaries = [
                play(env, policy, i, options=episode_options(task, training.env_id, CURVE_SPLIT, i)).summary
                for i in range(episodes)
            ]
            point[name] = _mean([s.get("tom_accuracy") for s in summaries])
            if name == "tom_accuracy":
                point[task.outcome] = _mean([outcome_of(s, task.outcome) for s in summaries])
    return point


def _mean(values: Sequence[Any]) -> float | None:
    kept = [float(v) for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


def callback(task: Any, training: Any, clock: Callable[[], float]) -> Any:
    """An SB3 callback measuring the curve along training (``points`` holds it; ``save(model_path)`` writes it
    beside the model; ``wall`` and ``cpu`` are the seconds spent measuring, ``clock()`` giving the CPU
    seconds), or None where the task asks for none (``curve_points`` 0)."""
    from stable_baselines3.common.callbacks import BaseCallback

    points_wanted, episodes = int(task.curve_points), int(task.curve_episodes)
    if points_wanted < 1 or episodes < 1:
        return None
    every = max(1, training.steps // points_wanted)

    class Curve(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.points: list[dict[str, Any]] = []
            self.next = every
            self.wall = self.cpu = 0.0  # seconds spent measuring (left out of the training's timing)

        def _measure(self) -> None:
            import time

            t0, c0 = time.perf_counter(), clock()
            self.points.append(
                {
                    "steps": int(self.model.num_timesteps),
                    **measure(task, training, self.model, episodes, self.env, self.probing),
                }
            )
            self.wall += time.perf_counter() - t0
            self.cpu += clock() - c0

        def _on_training_start(self) -> None:
            from benchmarks.rl_eval import needs_probe, recorded_env

            nonlocal episodes
            if task.split_size is not None:  # a split of distinct dialogues: each played once at most
                episodes = min(episodes, task.split_size(training.env_id, CURVE_SPLIT, **dict(training.env_kwargs)))
            with _RandomStates():
                self.env = recorded_env(task, training.env_id, CURVE_SPLIT, dict(training.env_kwargs))
                self.probing = needs_probe(task, training.env_id, dict(training.env_kwargs))
            self._measure()

        def _on_step(self) -> bool:
            if self.model.num_timesteps >= self.next and self.model.num_timesteps < training.steps:
                self._measure()
                while self.next <= self.model.num_timesteps:
                    self.next += every
            return True

        def _on_training_end(self) -> None:
            self._measure()
            self.env.close()

        def save(self, model_path: Path) -> None:
            save_curve(model_path, task, self.points, episodes)

    return Curve()


def save_curve(path: Path, task: Any, points: Sequence[Mapping[str, Any]], episodes: int) -> None:
    """Write the curve of the model saved at ``path`` beside it."""
    curve_path(path).write_text(
        json.dumps({"split": CURVE_SPLIT, "episodes": int(episodes), "outcome": task.outcome, "points": list(points)})
    )


def read_curve(model_path: Path) -> dict[str, Any] | None:
    """The curve saved beside a model, or None (a model trained before curves, or a task without them)."""
    try:
        curve = json.loads(curve_path(model_path).read_text())
        return curve if isinstance(curve.get("points"), list) else None
    except (OSError, ValueError, AttributeError):
        return None


def combined(curves: Sequence[Mapping[str, Any] | None], outcome: str) -> dict[str, Any] | None:
    """The row's curve: per evaluation point (the steps every seed's curve has), the mean and 95 % CI over
    the training seeds of the outcome, the ToM % and the majority floor; None when no seed has a curve."""
    from tom_envs.stats import mean_ci95

    have = [c for c in curves if c]
    if not have:
        return None
    steps = sorted(set.intersection(*(set(p["steps"] for p in c["points"]) for c in have)))
    out: dict[str, Any] = {
        "split": have[0].get("split"),
        "episodes": have[0].get("episodes"),
        "seeds": len(have),
        "steps": steps,
    }
    for name in (outcome, "tom_accuracy", "tom_majority"):
        means, cis = [], []
        for s in steps:
            values = [p.get(name) for c in have for p in c["points"] if p["steps"] == s and p.get(name) is not None]
            mean, ci = mean_ci95([float(v) for v in values])
            means.append(mean)
            cis.append(ci if len(values) > 1 else None)
        out[name], out[f"{name}_ci"] = means, cis
    return out
