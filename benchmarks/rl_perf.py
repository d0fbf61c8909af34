"""``tom-envs perf rl``'s shared part: env-steps per second of every declared RL task's training
loop (:mod:`benchmarks.rl`), one line per task, measured in one run.

For each task (its first id of each env class, the train split, its default number of envs) it times the training
envs exactly as ``tom-envs rl`` builds them (:func:`benchmarks.rl_train.training_env`: vector
observations, the task's native vector env where it has one) stepped with random actions, and SB3
PPO learning on them (after one untimed warm-up rollout). Where a task has a native vector env,
the same is measured over single envs (SB3's ``DummyVecEnv``) as its reference, and the ratio given.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks.rl import tasks
from benchmarks.rl_train import Training, one_thread, sb3_kwargs, training_env
from benchmarks.runner import progress_bar
from tom_envs.errors import import_optional


def env_steps_per_s(venv: Any, seconds: float, seed: int = 0) -> float:
    """Env-steps per second of an SB3 ``VecEnv`` stepped with (fixed, seeded) random actions."""
    venv.action_space.seed(seed)
    actions = [np.array([venv.action_space.sample() for _ in range(venv.num_envs)]) for _ in range(16)]
    venv.reset()
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for act in actions:
            venv.step_async(act)
            venv.step_wait()
        n += len(actions) * venv.num_envs
    return n / (time.perf_counter() - t0)


def train_steps_per_s(venv: Any, training: Training) -> float:
    """Env-steps per second of SB3 PPO learning ``training.steps`` steps on ``venv``."""
    sb3 = import_optional("stable_baselines3", "rl", "perf rl")
    kwargs = sb3_kwargs("ppo", venv.num_envs, training.steps, training.hyper)
    model = sb3.PPO("MlpPolicy", venv, seed=training.seed, verbose=0, device="cpu", **kwargs)
    model.learn(total_timesteps=model.n_steps * venv.num_envs)  # warm-up (torch's first calls are slow), not timed
    t0 = time.perf_counter()
    model.learn(total_timesteps=training.steps)
    return training.steps / (time.perf_counter() - t0)


def _measure(task: Any, training: Training, seconds: float) -> tuple[str, float, float]:
    venv, kind = training_env(task, training)
    try:
        return kind, env_steps_per_s(venv, seconds, training.seed), train_steps_per_s(venv, training)
    finally:
        venv.close()


def perf_tasks(
    steps: int = 8192,
    seconds: float = 1.0,
    progress: bool | None = False,
    seed: int = 0,
    emit: Callable[[dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """One line per declared RL task (``progress``: a bar over the tasks; None: only on a terminal), each
    handed to ``emit`` the moment it is measured; ``seed``: PPO's, the training envs' and the random actions'."""
    import tom_envs

    declared: dict[tuple[int, str], tuple[str, str, Any]] = {}
    for env_id, (family, task) in tasks().items():  # a task's first id of each env class (e.g. a Parallel id's seat)
        declared.setdefault((id(task), str(tom_envs.REGISTRY[env_id].entry_point)), (family, env_id, task))
    bar = progress_bar(len(declared), "perf rl", progress)
    lines = []
    with one_thread():
        for family, env_id, task in declared.values():
            training = Training(env_id, "ppo", steps, seed, task.n_envs, {}, dict(task.hyper.get("ppo", {})))
            kind, env_sps, train_sps = _measure(task, training, seconds)
            line: dict[str, Any] = {
                "family": family,
                "env_id": env_id,
                "envs": kind,
                "n_envs": task.n_envs,
                "env_steps_per_s": env_sps,
                "train_steps_per_s": train_sps,
            }
            if task.make_vec_env is not None and kind.startswith("native"):  # (a Parallel id's seat has none)
                _, ref_env, ref_train = _measure(dataclasses.replace(task, make_vec_env=None), training, seconds)
                line.update(
                    reference="single envs (DummyVecEnv)",
                    reference_env_steps_per_s=ref_env,
                    reference_train_steps_per_s=ref_train,
                    env_vs_reference=env_sps / ref_env,
                    train_vs_reference=train_sps / ref_train,
                )
            lines.append(line)
            if emit is not None:
                emit(line)
            bar.update(1)
    bar.close()
    return lines


def format_lines(lines: list[dict[str, Any]]) -> list[str]:
    """The per-task lines as text."""
    out = [f"{'task':<24} {'training envs':<28} {'env-steps/s':>12} {'PPO steps/s':>12}  vs reference"]
    for line in lines:
        ratio = ""
        if "reference" in line:
            ratio = (
                f"{line['env_vs_reference']:.1f}x env, {line['train_vs_reference']:.2f}x training "
                f"(vs {line['reference']}: {line['reference_env_steps_per_s']:,.0f} / "
                f"{line['reference_train_steps_per_s']:,.0f})"
            )
        out.append(
            f"{line['env_id']:<24} {line['envs'] + ' x' + str(line['n_envs']):<28} "
            f"{line['env_steps_per_s']:>12,.0f} {line['train_steps_per_s']:>12,.0f}  {ratio}"
        )
    return out
