"""``tom-envs rl``: train a stable-baselines3 agent on one partner population and
evaluate it, with the ToM recorder, on the same and on held-out partners, next to the tabular
agent (generalisation to new partners, as Melting Pot evaluates it)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import gymnasium as gym
from gymnasium.vector import AutoresetMode

import tom_envs
from benchmarks.matrix.cells import Cell, make_cell, run_cell, summarise
from benchmarks.results import code_stamp, config_key
from benchmarks.runner import env_id_for, progress_bar
from policies import SB3Policy
from policies.matrix import PartnerCountModel
from tom_envs.errors import TomEnvsError, import_optional
from tom_envs.matrix.partners import resolve_partners

ALGOS = ("ppo", "a2c", "dqn", "recurrent_ppo")


class RLError(TomEnvsError, ValueError):
    """Bad arguments to the RL benchmark."""


def algorithm(name: str) -> tuple[Any, str]:
    """The SB3 class and policy name for ``--algo``."""
    if name == "recurrent_ppo":
        contrib = import_optional("sb3_contrib", "rl", "--algo recurrent_ppo")
        return contrib.RecurrentPPO, "MlpLstmPolicy"
    if name not in ALGOS:
        raise RLError(f"unknown --algo {name!r}; choose from {', '.join(ALGOS)}")
    sb3 = import_optional("stable_baselines3", "rl", "Training RL baselines")
    return {"ppo": sb3.PPO, "a2c": sb3.A2C, "dqn": sb3.DQN}[name], "MlpPolicy"


def training_env(env_id: str, partners: str, n_envs: int, seed: int, horizon: int) -> tuple[Any, str]:
    """An SB3 VecEnv over the native vector env when every training partner is an automaton,
    otherwise over single envs; returns it and which kind it is."""
    game = tom_envs.REGISTRY[env_id].kwargs.get("game")
    vectorizable = all(p.automaton() is not None for p in resolve_partners(game, partners).partners)
    if vectorizable and gym.registry[env_id].vector_entry_point:
        from wrappers.sb3 import SB3VecEnv

        venv = gym.make_vec(env_id, num_envs=n_envs, vectorization_mode="vector_entry_point", partners=partners,
                            horizon=horizon, autoreset_mode=AutoresetMode.SAME_STEP)
        env, kind = SB3VecEnv(venv), "native vector env"
    else:
        vec_env = import_optional("stable_baselines3.common.vec_env", "rl", "Training RL baselines")
        env = vec_env.DummyVecEnv([lambda: gym.make(env_id, partners=partners, horizon=horizon) for _ in range(n_envs)])
        kind = "single envs (DummyVecEnv)"
    env.seed(seed)
    return env, kind


@dataclass(frozen=True)
class Training:
    """What is trained (``tom-envs rl``'s options): the SB3 algorithm on a built-in single-agent
    matrix game id against one training partner distribution, for ``steps`` steps over ``n_envs``
    parallel envs of ``horizon`` rounds, seeded with ``seed``."""

    algo: str = "ppo"
    env_id: str = "tom/IPD-v0"
    partners: str = "single_action,tit_for_tat"
    steps: int = 200_000
    seed: int = 0
    n_envs: int = 8
    horizon: int = 100

    def check(self) -> str:
        """Raise :class:`RLError` for a bad option; returns the game of ``env_id``."""
        for name, value in (("--steps", self.steps), ("--n-envs", self.n_envs), ("--horizon", self.horizon)):
            _check_count(name, value)
        env_id = self.env_id
        if env_id not in tom_envs.REGISTRY or tom_envs.REGISTRY[env_id].kind != "gymnasium":
            raise RLError(f"--env must be a single-agent tom id, got {env_id!r}; choose from "
                          f"{', '.join(tom_envs.ids(kind='gymnasium'))}")
        game = tom_envs.REGISTRY[env_id].kwargs.get("game")
        if not isinstance(game, str) or env_id != env_id_for("matrix", game=game):
            raise RLError(f"--env must be one of the built-in matrix games ({', '.join(_builtin_games())}), "
                          f"got {env_id!r}")
        return game


def _check_count(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise RLError(f"{name} must be an integer >= 1, got {value!r}")


def train(training: Training, out: Path, log: Any = print, progress: bool | None = False) -> tuple[Any, str]:
    """Train (or load the model saved by an identical earlier run of the same code); returns the
    model and its hash. The hash covers the configuration and :func:`~benchmarks.results.code_stamp`,
    so a model trained by other code is never reused."""
    algo, env_id, steps, seed, n_envs = training.algo, training.env_id, training.steps, training.seed, training.n_envs
    config = {"algo": algo, "env_id": env_id, "train_partners": training.partners, "steps": steps, "seed": seed,
              "n_envs": n_envs, "horizon": training.horizon, "version": 1, "code": code_stamp()}
    key = config_key(config)
    path = out / "rl" / "models" / f"{algo}_{env_id.replace('/', '-')}_{key}.zip"
    cls, policy_name = algorithm(algo)
    if path.exists():
        log(f"loading {path} (trained earlier with the same configuration)")
        return cls.load(path, device="cpu"), key
    env, kind = training_env(env_id, training.partners, n_envs, seed, training.horizon)
    kwargs: dict[str, Any] = {"seed": seed, "verbose": 0, "device": "cpu"}
    if algo != "dqn":
        kwargs["n_steps"] = max(8, 1024 // n_envs) if algo != "a2c" else 5
    model = cls(policy_name, env, **kwargs)
    t0 = time.perf_counter()
    model.learn(total_timesteps=steps, callback=_progress_callback(steps, f"training {algo}", progress))
    log(f"trained {algo} for {steps} steps on {kind} in {time.perf_counter() - t0:.1f} s")
    path.parent.mkdir(parents=True, exist_ok=True)
    model.save(path)
    return model, key


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


def _builtin_games() -> list[str]:
    return [r.id for r in tom_envs.REGISTRY.values() if r.family == "matrix" and r.kind == "gymnasium" and r.builtin
            and isinstance(r.kwargs.get("game"), str)]


def run(training: Training, test_partners: Sequence[str], episodes: int, out: Path, log: Any = print,
        progress: bool | None = False) -> list[dict[str, Any]]:
    """Train, then evaluate the agent and the tabular agent on every test cell (``progress``: bars
    for training and evaluation; None: only on a terminal)."""
    _check_count("--episodes", episodes)
    game = training.check()
    algo, seed, horizon, train_partners = training.algo, training.seed, training.horizon, training.partners
    trained_on = set(resolve_partners(game, train_partners).names)
    tests = {pop: set(resolve_partners(game, pop).names) for pop in test_partners}  # bad names fail before training
    model, key = train(training, out, log, progress)
    seeds = list(range(seed, seed + episodes))
    rows = []
    for pop in test_partners:
        held_out = not tests[pop] <= trained_on
        sb3_cell = Cell(game, pop, algo, horizon, {"model": key, "predictor": "count_model"})
        recs = run_cell(sb3_cell, seeds, out, progress, factory=lambda: SB3Policy(model, PartnerCountModel(game), name=algo))
        tab_cell = make_cell(game, pop, "tabular", horizon)
        for cell, records, source in ((sb3_cell, recs, "auxiliary count model"),
                                      (tab_cell, run_cell(tab_cell, seeds, out, progress), "own count model")):
            row = summarise(cell, records)
            row.update(game=game, env_id=training.env_id, held_out=held_out, train_partners=train_partners,
                       steps=training.steps, algo=algo, tom_source=source)
            rows.append(row)
    return rows


def format_rows(rows: Sequence[dict]) -> str:
    head = (f"{'policy':<14} {'test partners':<28} {'held out':>8} {'ΔFunctional/T':>16} {'ToM %':>13} {'return':>14}  ToM from")
    lines = [head, "-" * len(head)]
    for r in rows:
        reg = "n/a" if r["regret_per_step"] is None else f"{r['regret_per_step']:.3f} ± {r['regret_per_step_ci']:.3f}"
        tom = "n/a" if r["tom_accuracy"] is None else f"{r['tom_accuracy']:.1f} ± {r['tom_accuracy_ci']:.1f}"
        ret = f"{r['return']:.1f} ± {r['return_ci']:.1f}"
        lines.append(f"{r['policy']:<14} {r['partners'][:28]:<28} {'yes' if r['held_out'] else 'no':>8} {reg:>16} {tom:>13} {ret:>14}  {r['tom_source']}")
    return "\n".join(lines)
