"""Training for ``tom-envs rl`` (:mod:`benchmarks.rl`): the algorithms, the vectorized training
envs of an :class:`~benchmarks.rl.RLTask` and the saved models (a rerun loads them)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.results import code_stamp, config_key
from benchmarks.runner import progress_bar
from tom_envs.errors import TomEnvsError, import_optional

#: ``--algo`` values: the stable-baselines3 / sb3-contrib algorithm each names, and its policy.
ALGOS: dict[str, tuple[str, str, str]] = {
    "ppo": ("stable_baselines3", "PPO", "MlpPolicy"),
    "a2c": ("stable_baselines3", "A2C", "MlpPolicy"),
    "dqn": ("stable_baselines3", "DQN", "MlpPolicy"),
    "recurrent_ppo": ("sb3_contrib", "RecurrentPPO", "MlpLstmPolicy"),
    "maskable_ppo": ("sb3_contrib", "MaskablePPO", "MlpPolicy"),
}
#: Bump when what a saved model or probe means changes (it keys their files).
MODEL_VERSION = 2


class RLError(TomEnvsError, ValueError):
    """Bad options or combinations for ``tom-envs rl``."""


def algorithm(name: str) -> tuple[Any, str]:
    """The SB3 class and policy name for ``--algo``.

    Raises:
        RLError: an unknown name (the message lists the known ones).
    """
    if name not in ALGOS:
        raise RLError(f"unknown --algo {name!r}; choose one of {', '.join(ALGOS)}")
    module, cls, policy = ALGOS[name]
    lib = import_optional(module, "rl", f"--algo {name}")
    return getattr(lib, cls), policy


@dataclass(frozen=True)
class Training:
    """One trained model: the task's env id, the algorithm, the budget and the training seed.

    Attributes:
        env_id: the registered id trained on (its task's ``make_env(env_id, "train")``).
        algo: an ``--algo`` value.
        steps: training env steps.
        seed: the training seed (SB3's ``seed``; sub-env ``i`` is reset with ``seed + i``).
        n_envs: parallel training envs.
        env_kwargs: what else the task's ``make_env`` takes (``data_dir``), part of the model's key.
        hyper: extra SB3 keyword arguments (the task's ``hyper[algo]``).
    """

    env_id: str
    algo: str
    steps: int
    seed: int
    n_envs: int
    env_kwargs: Mapping[str, Any] = field(default_factory=dict)
    hyper: Mapping[str, Any] = field(default_factory=dict)

    def config(self) -> dict[str, Any]:
        """What determines the model (its file's key; the code stamp included, so a model trained by
        other code is never reused)."""
        return {
            "env_id": self.env_id,
            "algo": self.algo,
            "steps": self.steps,
            "seed": self.seed,
            "n_envs": self.n_envs,
            "env_kwargs": dict(self.env_kwargs),
            "hyper": dict(self.hyper),
            "version": MODEL_VERSION,
            "code": code_stamp(),
        }

    @property
    def key(self) -> str:
        return config_key(self.config())

    def path(self, out: Path) -> Path:
        return Path(out) / "rl" / "models" / f"{self.algo}_{self.env_id.replace('/', '-')}_s{self.seed}_{self.key}.zip"


@contextmanager
def one_thread() -> Iterator[None]:
    """Torch on one thread inside the block (restored after): SB3's small networks train fastest so,
    and on a shared 2-core machine torch's default threads made PPO 20x slower (measured: 50 vs
    1,090 steps/s)."""
    torch = import_optional("torch", "rl", "Training RL baselines")
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def wrapped(env: Any, observation: Mapping[str, Any]) -> Any:
    """``env`` with flat vector observations (:class:`wrappers.VectorizeObservation`)."""
    from wrappers.vectorize import VectorizeObservation

    return VectorizeObservation(env, **dict(observation))


def training_env(task: Any, training: Training) -> tuple[Any, str]:
    """An SB3 ``VecEnv`` of ``training.n_envs`` train-split envs: the task's native vector env where it
    has one (``make_vec_env``), else SB3's ``DummyVecEnv`` over ``make_env`` with vector
    observations; returns it and which kind it is.

    Either way it is wrapped in SB3's ``VecMonitor``, which writes ``info["episode"] = {"r", "l", "t"}``
    at every episode end: SB3 logs ``info["episode"]["r"]`` of any info holding an ``"episode"`` key,
    and some envs put their own episode summary there (live persuasion v1, negotiation), which made
    SB3 fail with ``KeyError: 'r'`` in envs built without a Monitor."""
    vec_env = import_optional("stable_baselines3.common.vec_env", "rl", "Training RL baselines")
    kwargs = dict(training.env_kwargs)
    make_vec = task.make_vec_env(training.env_id, "train", training.n_envs, **kwargs) if task.make_vec_env else None
    if make_vec is not None:
        from wrappers.sb3 import SB3VecEnv, VecVectorizeObservation

        env, kind = VecVectorizeObservation(SB3VecEnv(make_vec), **dict(task.observation)), "native vector env"
    else:
        make: Callable[[], Any] = lambda: wrapped(task.make_env(training.env_id, "train", **kwargs), task.observation)
        env, kind = vec_env.DummyVecEnv([make] * training.n_envs), "single envs (DummyVecEnv)"
    env = vec_env.VecMonitor(env)
    env.seed(training.seed)
    return env, kind


#: PPO's default rollout (env-steps over all training envs), and the SB3 classes' own mini-batch sizes
PPO_ROLLOUT = 1024
PPO_BATCH = {"ppo": 64, "maskable_ppo": 64, "recurrent_ppo": 128}


def sb3_kwargs(algo: str, n_envs: int, steps: int, hyper: Mapping[str, Any]) -> dict[str, Any]:
    """The SB3 keyword arguments of a training of ``steps`` env-steps: :func:`default_hyper` under the task's
    ``hyper``, with a PPO rollout no longer than the training (SB3 collects whole rollouts: a task's 1,024-step
    rollout would make ``--steps 128`` train 1,024 steps) and a mini-batch no larger than the rollout."""
    kwargs = {**default_hyper(algo, n_envs), **dict(hyper)}
    if algo in PPO_BATCH and kwargs["n_steps"] * n_envs > steps:
        kwargs["n_steps"] = max(8, steps // n_envs)
    if algo in PPO_BATCH and kwargs.get("batch_size", PPO_BATCH[algo]) > kwargs["n_steps"] * n_envs:
        kwargs["batch_size"] = kwargs["n_steps"] * n_envs
    return kwargs


def default_hyper(algo: str, n_envs: int) -> dict[str, Any]:
    """The SB3 keyword arguments used unless the task's ``hyper`` says otherwise (:func:`sb3_kwargs` fits them to
    the training's length)."""
    if algo in PPO_BATCH:
        return {"n_steps": max(8, PPO_ROLLOUT // n_envs)}
    if algo == "a2c":
        return {"n_steps": 5}
    return {}


def train(
    task: Any,
    training: Training,
    out: Path,
    log: Callable[..., Any] = print,
    progress: bool | None = False,
    curve: Any = None,
) -> Any:
    """Train (or load the model an identical earlier run saved under ``out``); returns the model.

    ``curve``: an SB3 callback measuring the learning curve along training (:func:`benchmarks.rl_curve.callback`),
    or None; its ``save(model_path)`` writes the curve beside the model, and its measuring time (``wall``,
    ``cpu``) is left out of the training's."""
    cls, policy_name = algorithm(training.algo)
    path = training.path(out)
    if path.exists():
        log(f"loading {path} (trained earlier with the same configuration)")
        return cls.load(path, device="cpu")
    with one_thread():
        return _train(task, training, path, cls, policy_name, log, progress, curve)


def _train(
    task: Any,
    training: Training,
    path: Path,
    cls: Any,
    policy_name: str,
    log: Callable[..., Any],
    progress: bool | None,
    curve: Any = None,
) -> Any:
    env, kind = training_env(task, training)
    kwargs: dict[str, Any] = {
        "seed": training.seed,
        "verbose": 0,
        "device": "cpu",
        **sb3_kwargs(training.algo, training.n_envs, training.steps, training.hyper),
    }
    model = cls(policy_name, env, **kwargs)
    from stable_baselines3.common.callbacks import CallbackList

    t0, c0 = time.perf_counter(), cpu_seconds()
    model.learn(
        total_timesteps=training.steps,
        callback=CallbackList(
            [
                _progress_callback(training.steps, f"training {training.algo} seed {training.seed}", progress),
                *([curve] if curve is not None else []),
            ]
        ),
    )
    wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
    if curve is not None:  # the evaluations along training are not the training's time
        wall, cpu = wall - curve.wall, cpu - curve.cpu
    log(
        f"trained {training.algo} (seed {training.seed}) for {training.steps} steps on {kind} in "
        f"{wall:.1f} s ({cpu:.1f} CPU s, {cpu * 1e6 / training.steps:,.0f} CPU s per million steps)"
    )
    env.close()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.stem + ".partial.zip")
    model.save(tmp)
    timing_path(path).write_text(json.dumps({"steps": training.steps, "wall_s": wall, "cpu_s": cpu, "envs": kind}))
    if curve is not None:
        curve.save(path)
    tmp.replace(path)  # a killed run leaves no half-written model behind under the real name
    return model


def cpu_seconds() -> float:
    """CPU seconds (user + system) of this process and of its finished children (subprocess vector envs)."""
    import resource

    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timing_path(model_path: Path) -> Path:
    """Where a model's training time is kept: ``<model>.timing.json`` beside it."""
    return model_path.with_name(model_path.stem + ".timing.json")


def training_cpu_seconds(training: Training, out: Path) -> float | None:
    """The CPU seconds the saved model of ``training`` took to train (None for a model saved before
    training was timed)."""
    path = timing_path(training.path(out))
    try:
        return float(json.loads(path.read_text())["cpu_s"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _progress_callback(steps: int, desc: str, enabled: bool | None) -> Any:
    """An SB3 callback moving a progress bar (on a terminal) through the training steps."""
    from stable_baselines3.common.callbacks import BaseCallback

    class Progress(BaseCallback):
        def _on_training_start(self) -> None:
            self.bar = progress_bar(steps, desc, enabled)

        def _on_step(self) -> bool:
            self.bar.update(self.training_env.num_envs)
            return True

        def _on_training_end(self) -> None:
            self.bar.close()

    return Progress()
