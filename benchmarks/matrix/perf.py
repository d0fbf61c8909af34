"""``tom-envs perf matrix``: steps per second of the matrix envs, as ratios
against a minimal plain Gymnasium IPD env written here and measured in the same run.

Every ``perf`` suite takes ``--seed`` (env resets, the stepping loops' random actions, PPO's seed, the LLM
episodes' seeds: :class:`PerfRun`) and ``--out DIR``: each figure is appended to ``DIR/perf/<suite>.jsonl``
the moment it is measured (:func:`figure_log`), so a run stopped half-way keeps what it measured."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

import tom_envs  # noqa: F401  (registers the ids)
from benchmarks.results import append_record
from benchmarks.runner import progress_bar
from benchmarks.runner_envs import env_id_for

Emit = Callable[[str, Any], None]


def _no_log(figure: str, value: Any) -> None:
    pass


@dataclass(frozen=True)
class PerfRun:
    """What every ``perf`` suite shares: ``seed`` (``--seed``) and ``emit(figure, value)``, called the moment
    each figure is measured (:func:`figure_log`; by default it keeps nothing)."""

    seed: int = 0
    emit: Emit = field(default=_no_log)


def figure_log(out: str | Path | None, suite: str, seed: int) -> Emit:
    """``emit(figure, value)`` appending ``{"suite", "run", "seed", "figure", "value"}`` to
    ``out/perf/<suite>.jsonl`` at once (stamped and synced: :func:`benchmarks.results.append_record`);
    ``run`` (the UTC start time) groups one run's lines, the file keeps every run's. Without ``out``
    nothing is written. The returned function's ``path`` is the file (None without ``out``)."""
    if out is None:

        def emit(figure: str, value: Any) -> None:
            pass

        emit.path = None  # type: ignore[attr-defined]
        return emit
    path = Path(out) / "perf" / f"{suite}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    run = datetime.now(timezone.utc).isoformat(timespec="microseconds")

    def write(figure: str, value: Any) -> None:
        append_record(path, {"suite": suite, "run": run, "seed": seed, "figure": figure, "value": value})

    write.path = path  # type: ignore[attr-defined]
    return write


def _ipd() -> str:
    """The IPD's single-agent id, from the registry."""
    return env_id_for("matrix", game="IPD")


class ReferenceIPD(gym.Env):
    """The reference: the smallest sensible Gymnasium IPD env against tit-for-tat.

    Same observation (last joint action code with a start symbol), same rewards, same horizon;
    no partner distribution, no oracle, no validation beyond a dict lookup.
    """

    def __init__(self, horizon: int = 100) -> None:
        self.action_space = spaces.Discrete(2)
        self.observation_space = spaces.Discrete(5)
        self._payoff = ((8.0, 0.0), (10.0, 5.0))
        self._horizon = horizon
        self._valid = {0: 0, 1: 1}
        self._t = horizon
        self._last = 0

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[int, dict]:
        super().reset(seed=seed)
        self._t = 0
        self._last = 0  # tit-for-tat cooperates first
        return 4, {}

    def step(self, action: Any) -> tuple[int, float, bool, bool, dict]:
        if self._t >= self._horizon:
            raise RuntimeError("reset needed")
        a = self._valid[action]
        b = self._last
        self._last = a
        self._t += 1
        return a * 2 + b, self._payoff[a][b], self._t == self._horizon, False, {"partner_action": b}


def steps_per_second(env: Any, seconds: float, repeats: int = 3, action: int = 1, seed: int = 0) -> float:
    """Best of ``repeats`` timed runs of about ``seconds`` each (resetting at episode ends)."""
    env.reset(seed=seed)
    step, reset = env.step, env.reset
    best = 0.0
    for _ in range(repeats):
        n, chunk = 0, 10_000
        t0 = time.perf_counter()
        while True:
            for _ in range(chunk):
                if step(action)[2]:
                    reset()
            n += chunk
            dt = time.perf_counter() - t0
            if dt >= seconds:
                break
        best = max(best, n / dt)
    return best


def oracle_ms(repeats: int = 20) -> float:
    """Milliseconds to solve one uncached T=100 oracle, averaged over IPD tit-for-tat and RPS
    best-response-to-last (deterministic) and RPS biased (stochastic) partners."""
    from tom_envs.matrix import oracle as oracle_mod
    from tom_envs.matrix.games import GAMES
    from tom_envs.matrix.partners import get_partner

    cases = [(GAMES["IPD"], "tit_for_tat"), (GAMES["RPS"], "best_response_to_last"), (GAMES["RPS"], "biased_rock")]
    t0 = time.perf_counter()
    for _ in range(repeats):
        for game, name in cases:
            oracle_mod.clear_cache()
            oracle_mod.solve(game, get_partner(game, name).automaton(), 100)
    return (time.perf_counter() - t0) / (repeats * len(cases)) * 1e3


def pettingzoo_rps_rounds_per_s(seconds: float, seed: int = 0) -> float | None:
    """Rounds per second of PettingZoo's own RPS parallel env (None if it cannot be imported)."""
    try:
        from pettingzoo.classic import rps_v2
    except Exception:  # its extra is optional
        return None
    return parallel_rounds_per_s(rps_v2.parallel_env(max_cycles=100), 0, seconds, seed)


def parallel_rounds_per_s(env: Any, action: int, seconds: float, seed: int = 0) -> float:
    """Rounds per second of a PettingZoo parallel env, every agent playing ``action`` (resetting at the end)."""
    env.reset(seed=seed)
    acts = {a: action for a in env.possible_agents}
    step, reset = env.step, env.reset
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for _ in range(1000):
            step(acts)
            if not env.agents:
                reset()
        n += 1000
    return n / (time.perf_counter() - t0)


def vector_steps_per_s(num_envs: int, seconds: float, seed: int = 0) -> float:
    """Env-steps per second of the native vector env (IPD vs tit-for-tat, default copy semantics:
    every step returns fresh arrays)."""
    venv = gym.make_vec(_ipd(), num_envs=num_envs, vectorization_mode="vector_entry_point", partners="tit_for_tat")
    venv.reset(seed=seed)
    actions = np.ones(num_envs, dtype=np.int64)
    best = 0.0
    for _ in range(3):
        n, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            for _ in range(101):  # whole episodes, autoreset step included
                venv.step(actions)
            n += 101
        best = max(best, n * num_envs / (time.perf_counter() - t0))
    return best


def numpy_bound_steps_per_s(num_envs: int, seconds: float, seed: int = 0) -> float:
    """The lockstep bound: one payoff lookup per env-step (``payoffs.take(joint_codes)``)."""
    payoffs = np.array([8.0, 0.0, 10.0, 5.0])
    codes = np.random.default_rng(seed).integers(0, 4, num_envs)
    best = 0.0
    for _ in range(3):
        n, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            for _ in range(100):
                payoffs.take(codes)
            n += 100
        best = max(best, n * num_envs / (time.perf_counter() - t0))
    return best


def perf_matrix(seconds: float = 0.5, progress: bool | None = False, run: PerfRun = PerfRun()) -> dict[str, Any]:
    """All figures of ``perf matrix`` in one run (``progress``: a bar over the measurements; None:
    only on a terminal; ``run``: the seed, and where each figure goes as it is measured)."""
    bar = progress_bar(10, "perf matrix", progress)
    seed = run.seed

    def measured(figure: str, value: Any) -> Any:
        bar.update(1)
        run.emit(figure, value)
        return value

    ref = measured("reference_steps_per_s", steps_per_second(ReferenceIPD(), seconds, seed=seed))
    made = gym.make(_ipd(), partners="tit_for_tat")
    make_sps = measured("make_steps_per_s", steps_per_second(made, seconds, seed=seed))
    unwrapped_sps = measured("unwrapped_steps_per_s", steps_per_second(made.unwrapped, seconds, seed=seed))
    parallel_id = env_id_for("matrix", kind="parallel", game="IPD")
    parallel_sps = measured(
        "parallel_rounds_per_s", parallel_rounds_per_s(tom_envs.make(parallel_id), 1, seconds, seed)
    )
    pz = measured("pettingzoo_rps_rounds_per_s", pettingzoo_rps_rounds_per_s(seconds, seed))
    vector = {n: measured(f"vector_{n}_steps_per_s", vector_steps_per_s(n, seconds, seed)) for n in (1, 1024, 65536)}
    bound = measured("numpy_bound_65536_steps_per_s", numpy_bound_steps_per_s(65536, seconds, seed))
    oracle = measured("oracle_ms_per_episode", oracle_ms())
    bar.close()
    return {
        "env_id": _ipd(),
        "seed": seed,
        "parallel_env_id": parallel_id,
        "partner": "tit_for_tat",
        "make_steps_per_s": make_sps,
        "unwrapped_steps_per_s": unwrapped_sps,
        "reference_steps_per_s": ref,
        "make_vs_reference": make_sps / ref,
        "unwrapped_vs_reference": unwrapped_sps / ref,
        "parallel_rounds_per_s": parallel_sps,
        "pettingzoo_rps_rounds_per_s": pz,
        "parallel_vs_pettingzoo_rps": None if pz is None else parallel_sps / pz,
        "oracle_ms_per_episode": oracle,
        "vector_1_steps_per_s": vector[1],
        "vector_1024_steps_per_s": vector[1024],
        "vector_65536_steps_per_s": vector[65536],
        "numpy_bound_65536_steps_per_s": bound,
        "vector_65536_vs_numpy_bound": vector[65536] / bound,
        "targets": {
            "make_steps_per_s": 2_000_000,
            "make_vs_reference": 0.5,
            "oracle_ms_per_episode": 1.0,
            "vector_65536_steps_per_s": 300_000_000,
            "parallel_vs_pettingzoo_rps": 20.0,
        },
        "numpy": np.__version__,
        "gymnasium": gym.__version__,
    }


def format_table(res: dict[str, Any]) -> str:
    rows = [
        (f"gymnasium.make('{res['env_id']}') vs tit_for_tat", res["make_steps_per_s"], res["make_vs_reference"]),
        ("  its unwrapped env", res["unwrapped_steps_per_s"], res["unwrapped_vs_reference"]),
        ("reference: minimal plain IPD env", res["reference_steps_per_s"], 1.0),
        (
            f"{res.get('parallel_env_id', 'tom/IPD-Parallel-v0')} (two learners)",
            res["parallel_rounds_per_s"],
            res["parallel_rounds_per_s"] / res["reference_steps_per_s"],
        ),
    ]
    if res["pettingzoo_rps_rounds_per_s"] is not None:
        rows.append(
            (
                "PettingZoo rps_v2 parallel env",
                res["pettingzoo_rps_rounds_per_s"],
                res["pettingzoo_rps_rounds_per_s"] / res["reference_steps_per_s"],
            )
        )
    for n in (1, 1024, 65536):
        rows.append(
            (
                f"native vector env, {n:,} envs",
                res[f"vector_{n}_steps_per_s"],
                res[f"vector_{n}_steps_per_s"] / res["reference_steps_per_s"],
            )
        )
    rows.append(
        (
            "numpy bound (payoff lookup), 65,536 envs",
            res["numpy_bound_65536_steps_per_s"],
            res["numpy_bound_65536_steps_per_s"] / res["reference_steps_per_s"],
        )
    )
    width = max(len(r[0]) for r in rows)
    lines = [f"{'env':<{width}}  {'steps/s':>12}  {'vs reference':>12}"]
    lines += [f"{name:<{width}}  {sps:>12,.0f}  {ratio:>11.2f}x" for name, sps, ratio in rows]
    lines.append(f"oracle: {res['oracle_ms_per_episode']:.3f} ms per uncached T=100 solution (target < 1 ms)")
    lines.append(f"vector env at 65,536 envs: {res['vector_65536_vs_numpy_bound']:.2f}x the numpy bound")
    if res["parallel_vs_pettingzoo_rps"] is not None:
        lines.append(
            f"two-learner parallel env: {res['parallel_vs_pettingzoo_rps']:.0f}x PettingZoo's RPS parallel env"
        )
    return "\n".join(lines)


def perf_rl(
    steps: int = 8192, n_envs: int = 8, progress: bool | None = False, seconds: float = 1.0, run: PerfRun = PerfRun()
) -> dict[str, Any]:
    """``perf rl``: env-steps/s of every declared RL task's training loop (one line each,
    :func:`benchmarks.rl_perf.perf_tasks`), SB3 PPO training throughput on single envs
    (DummyVecEnv) vs the native vector env (IPD vs tit-for-tat, the keys of earlier versions), and
    the native vector env at 65,536 envs against the numpy bound, measured in the same run
    (``progress``: a bar over the measurements; None: only on a terminal; ``run``: PPO's seed and the
    stepping loops', and where each figure goes as it is measured)."""
    from gymnasium.vector import AutoresetMode

    from benchmarks.rl_perf import perf_tasks
    from benchmarks.rl_train import one_thread
    from tom_envs.errors import import_optional
    from wrappers.sb3 import SB3VecEnv

    sb3 = import_optional("stable_baselines3", "rl", "perf rl")
    vec_env = import_optional("stable_baselines3.common.vec_env", "rl", "perf rl")
    env_id = _ipd()
    single = vec_env.DummyVecEnv([lambda: gym.make(env_id, partners="tit_for_tat") for _ in range(n_envs)])
    native = SB3VecEnv(
        gym.make_vec(
            env_id,
            num_envs=n_envs,
            vectorization_mode="vector_entry_point",
            partners="tit_for_tat",
            autoreset_mode=AutoresetMode.SAME_STEP,
        )
    )
    out: dict[str, Any] = {"algo": "ppo", "env_id": env_id, "n_envs": n_envs, "steps": steps, "seed": run.seed}
    bar = progress_bar(4, "perf rl", progress)
    with one_thread():
        for name, env in (("single_env", single), ("vector_env", native)):
            model = sb3.PPO("MlpPolicy", env, n_steps=max(8, 1024 // n_envs), seed=run.seed, verbose=0, device="cpu")
            model.learn(total_timesteps=2048)  # warm-up (torch's first calls are slow), not timed
            t0 = time.perf_counter()
            model.learn(total_timesteps=steps)
            out[f"{name}_train_steps_per_s"] = steps / (time.perf_counter() - t0)
            run.emit(f"{name}_train_steps_per_s", out[f"{name}_train_steps_per_s"])
            bar.update(1)
    out["vector_vs_single"] = out["vector_env_train_steps_per_s"] / out["single_env_train_steps_per_s"]
    out["vector_65536_steps_per_s"] = vector_steps_per_s(65536, seconds / 2, run.seed)
    out["numpy_bound_65536_steps_per_s"] = numpy_bound_steps_per_s(65536, seconds / 2, run.seed)
    out["vector_65536_vs_numpy_bound"] = out["vector_65536_steps_per_s"] / out["numpy_bound_65536_steps_per_s"]
    for key in ("vector_65536_steps_per_s", "numpy_bound_65536_steps_per_s"):
        run.emit(key, out[key])
    bar.update(1)
    out["tasks"] = perf_tasks(
        steps, seconds, progress=False, seed=run.seed, emit=lambda line: run.emit(f"task {line['env_id']}", line)
    )
    bar.update(1)
    bar.close()
    return out


def format_rl(res: dict[str, Any]) -> str:
    """``perf rl`` as text: one line per task, then the matrix vector env's figures."""
    from benchmarks.rl_perf import format_lines

    lines = format_lines(res["tasks"])
    lines.append(
        f"PPO on {res['env_id']} vs tit_for_tat, {res['n_envs']} envs: native vector env "
        f"{res['vector_env_train_steps_per_s']:,.0f} steps/s, single envs {res['single_env_train_steps_per_s']:,.0f} "
        f"({res['vector_vs_single']:.2f}x)"
    )
    lines.append(
        f"native vector env at 65,536 envs: {res['vector_65536_steps_per_s']:,.0f} steps/s, "
        f"{res['vector_65536_vs_numpy_bound']:.2f}x the numpy bound ({res['numpy_bound_65536_steps_per_s']:,.0f})"
    )
    return "\n".join(lines)
