"""Rounds and checkpoints of ``tom-envs selfplay`` (:mod:`benchmarks.selfplay`; docs/selfplay.md).

Every learner's state after every round is a saved snapshot (``--out/selfplay/models/``, keyed by the
run's configuration, the training seed, the seat, the round and the code's stamp). Each round starts
from the snapshot on disk, in a fresh run and in a resumed one alike, with the random state seeded from
(seed, seat, round): a resumed run trains exactly what an uninterrupted one does. Checkpoint records go
through :class:`benchmarks.results.ResultsFile` (one per seed, seat and round), written as produced.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.results import ResultsFile, code_stamp, config_key, results_path
from benchmarks.rl_eval import PROBE_SEED0
from benchmarks.rl_train import algorithm, cpu_seconds, default_hyper, one_thread, timing_path, wrapped
from benchmarks.selfplay import FOLDER, SelfplayError, SelfplayRun, SelfplayTask
from benchmarks.runner_episodes import play


# ---------------------------------------------------------------------- the opponents
class FrozenLearner:
    """A saved learner playing a seat: its seat's raw observation flattened as in training, actions
    sampled from its policy with its own generator (seeded by ``reset``; never torch's global one, which
    the learner being trained draws from), its LSTM state carried within the episode; no predictions."""

    makes_predictions = False

    def __init__(self, model: Any, space: Any, observation: Mapping[str, Any]) -> None:
        from policies.sb3 import is_recurrent
        from wrappers.vectorize import Vectorizer

        self.model, self.vector = model, Vectorizer(space, **dict(observation))
        self.recurrent = is_recurrent(model)
        self.rng = np.random.default_rng(0)
        self.lstm: Any = None

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        self.lstm = None

    def act(self, observation: Any, info: dict) -> int:
        import torch

        policy = self.model.policy
        obs, _ = policy.obs_to_tensor(np.asarray(self.vector(observation)))
        with torch.no_grad():
            if self.recurrent:
                start = torch.tensor([1.0 if self.lstm is None else 0.0])
                if self.lstm is None:
                    shape = (policy.lstm_actor.num_layers, 1, policy.lstm_actor.hidden_size)
                    self.lstm = (torch.zeros(shape), torch.zeros(shape))
                dist, self.lstm = policy.get_distribution(obs, self.lstm, start)
            else:
                dist = policy.get_distribution(obs)
        probs = dist.distribution.probs.reshape(-1).numpy().astype(np.float64)
        return int(self.rng.choice(len(probs), p=probs / probs.sum()))

    def observe(self, observation: Any, reward: float, terminated: bool, truncated: bool, info: dict) -> None:
        return None


class DrawnMember:
    """The frozen population as one policy: each episode, one member drawn with the policy's own seed
    (never the env's), then reset with a seed drawn after it."""

    makes_predictions = False

    def __init__(self, members: Sequence[tuple[str, Callable[[], Any]]]) -> None:
        if not members:
            raise SelfplayError("the task's frozen population is empty; declare at least one agent")
        self.names = [name for name, _ in members]
        self.policies = [build() for _, build in members]
        self.current: Any = None

    def reset(self, seed: int | None = None) -> None:
        rng = np.random.default_rng(seed)
        self.current = self.policies[int(rng.integers(len(self.policies)))]
        self.current.reset(int(rng.integers(2**31 - 1)))

    def act(self, observation: Any, info: dict) -> Any:
        return self.current.act(observation, info)

    def observe(self, observation: Any, reward: float, terminated: bool, truncated: bool, info: dict) -> None:
        self.current.observe(observation, reward, terminated, truncated, info)


# ---------------------------------------------------------------------- one run
class Run:
    """One training seed of a resolved :class:`~benchmarks.selfplay.SelfplayRun`: its snapshots and opponents."""

    def __init__(self, task: SelfplayTask, config: SelfplayRun, seed: int, out: Path, log: Callable[..., Any]) -> None:
        self.task, self.config, self.seed, self.out, self.log = task, config, seed, Path(out), log
        self.key = config_key({**config.config(task), "seed": seed, "code": code_stamp()})
        self.cls, self.policy_name = algorithm(config.algo)
        self._models: dict[Path, Any] = {}

    def other(self, seat: str) -> str:
        return self.task.seats[1] if seat == self.task.seats[0] else self.task.seats[0]

    def snapshot(self, seat: str, rnd: int) -> Path:
        env = self.config.env_id.replace("/", "-")
        return (
            self.out
            / FOLDER
            / "models"
            / f"{self.config.algo}_{env}_{self.config.mode}_s{self.seed}_{seat}_r{rnd}_{self.key}.zip"
        )

    def model(self, seat: str, rnd: int) -> Any:
        path = self.snapshot(seat, rnd)
        if path not in self._models:
            self._models[path] = self.cls.load(path, device="cpu")
        return self._models[path]

    def opponent(self, seat: str, rnd: int) -> Any:
        """The policy in the other seat of ``seat``'s env at round ``rnd``: the other learner's snapshot
        (self-play) or the frozen population."""
        other = self.other(seat)
        if self.config.mode == "selfplay":
            return FrozenLearner(
                self.model(other, rnd), self.task.seat_space(self.config.env_id, other), self.task.observation
            )
        return DrawnMember(self.task.population(self.config.env_id, other))

    def round_seed(self, seat: str, rnd: int) -> int:
        return int(np.random.SeedSequence([self.seed, self.task.seats.index(seat), rnd]).generate_state(1)[0] % 2**31)

    # ------------------------------------------------------------------ training
    def _vec_env(self, seat: str, opponent: Callable[[], Any]) -> Any:
        from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

        task = self.task
        make = lambda: wrapped(task.make_env(self.config.env_id, seat, opponent()), task.observation)  # noqa: E731
        return VecMonitor(DummyVecEnv([make] * task.n_envs))

    def train(self, seat: str, rnd: int) -> None:
        """The snapshot of ``seat`` after round ``rnd`` (round 0: the untrained network), unless it is saved."""
        path = self.snapshot(seat, rnd)
        if path.exists():
            return
        seed = self.round_seed(seat, rnd)
        if rnd == 0:  # the untrained network; its env's opponent never plays (nothing is learned)
            env = self._vec_env(seat, lambda: DrawnMember(self.task.population(self.config.env_id, self.other(seat))))
            kwargs = {
                **default_hyper(self.config.algo, self.task.n_envs),
                **dict(self.task.hyper.get(self.config.algo, {})),
            }
            model = self.cls(self.policy_name, env, seed=seed, verbose=0, device="cpu", **kwargs)
            wall = cpu = 0.0
        else:
            env = self._vec_env(seat, lambda: self.opponent(seat, rnd - 1))
            model = self.cls.load(self.snapshot(seat, rnd - 1), env=env, device="cpu")
            model.set_random_seed(seed)
            env.seed(seed)
            t0, c0 = time.perf_counter(), cpu_seconds()
            model.learn(total_timesteps=self.config.steps, reset_num_timesteps=True)
            wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
            self.log(
                f"seed {self.seed} {seat} round {rnd}: {self.config.steps} steps in {wall:.1f} s ({cpu:.1f} CPU s)"
            )
        env.close()
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.stem + ".partial.zip")
        model.save(tmp)
        timing_path(path).write_text(
            json.dumps({"steps": self.config.steps if rnd else 0, "wall_s": wall, "cpu_s": cpu})
        )
        tmp.replace(path)  # a killed run leaves no half-written snapshot under the real name

    # ------------------------------------------------------------------ a checkpoint
    def checkpoint(self, seat: str, rnd: int) -> dict[str, Any]:
        """The record of ``seat``'s learner after round ``rnd`` against its opponent of that checkpoint."""
        import wrappers
        from benchmarks.rl_eval import fitted_probe, outcome_of
        from policies.sb3 import SB3Policy, is_recurrent

        task, config = self.task, self.config
        env = wrappers.ToMRecorder(
            wrapped(task.make_env(config.env_id, seat, self.opponent(seat, rnd)), task.observation)
        )
        model = self.model(seat, rnd)
        probe_seeds = list(range(PROBE_SEED0, PROBE_SEED0 + int(config.probe_episodes or 0)))
        state = "LSTM hidden state" if is_recurrent(model) else "policy network's last latent layer"
        probe = fitted_probe(
            env,
            SB3Policy(model, name=config.algo, deterministic=False),  # as it plays: sampling its policy
            probe_seeds,
            f"probe on the {state} (logistic regression fitted on {len(probe_seeds)} other episodes of the pairing)",
            {"split": "probe episodes", "env_id": config.env_id, "episodes": probe_seeds},
        )
        seeds = list(range(int(config.episodes or 0)))
        played = [
            play(env, SB3Policy(model, name=config.algo, probe=probe, deterministic=False), s).summary for s in seeds
        ]
        floor = [
            play(env, SB3Policy(model, name=config.algo, probe=probe.majority(), deterministic=False), s).summary
            for s in seeds
        ]  # the same episodes: same seeds, so the same sampled actions
        env.close()
        own, other = task.outcome.format(seat=seat), task.outcome.format(seat=self.other(seat))
        returns = [float(outcome_of(s, own)) for s in played]
        toms = [s.get("tom_accuracy") for s in played]
        floors = [s.get("tom_accuracy") for s in floor]
        tom, maj = _mean(toms), _mean(floors)
        try:
            cpu = float(json.loads(timing_path(self.snapshot(seat, rnd)).read_text())["cpu_s"])
        except (OSError, ValueError, KeyError):
            cpu = None
        return {
            "key": f"{self.seed}/{seat}/{rnd}",
            "env_id": config.env_id,
            "algo": config.algo,
            "mode": config.mode,
            "seed": self.seed,
            "seat": seat,
            "other": self.other(seat),
            "round": rnd,
            "steps": rnd * int(config.steps or 0),
            "tom_accuracy": tom,
            "tom_majority": maj,
            "tom_gain": None if tom is None or maj is None else tom - maj,
            "return": _mean(returns),
            "return_other": _mean([float(outcome_of(s, other)) for s in played]),
            "episodes": len(seeds),
            "probe_rows": probe.trained_on["rows"],
            "tom_source": probe.source,
            "tom_per_episode": toms,
            "return_per_episode": returns,
            "train_cpu_s": cpu,
            "opponent": (
                f"{self.other(seat)}'s snapshot after round {rnd}"
                if config.mode == "selfplay"
                else "population: " + ", ".join(n for n, _ in task.population(config.env_id, self.other(seat)))
            ),
        }


def _mean(values: Sequence[Any]) -> float | None:
    kept = [float(v) for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


def records_path(out: Path, task: SelfplayTask, config: SelfplayRun) -> Path:
    """The checkpoint records of one configuration (every training seed)."""
    stem = f"curves_{config.algo}_{config.env_id.replace('/', '-')}_{config.mode}"
    return results_path(Path(out) / FOLDER, stem, config.config(task))


def run(config: SelfplayRun, out: Path, log: Callable[..., Any] = print) -> list[dict[str, Any]]:
    """Train (or load) both learners round by round for every seed and measure every checkpoint; returns
    the checkpoint records of the run's seeds (torch on one thread meanwhile, as ``tom-envs rl``)."""
    task, config = config.resolved()
    with one_thread():
        return _run(task, config, Path(out), log)


def _run(task: SelfplayTask, config: SelfplayRun, out: Path, log: Callable[..., Any]) -> list[dict[str, Any]]:
    path = records_path(out, task, config)
    path.parent.mkdir(parents=True, exist_ok=True)
    wanted = [
        (seed, seat, rnd)
        for seed in range(config.seed, config.seed + config.seeds)
        for rnd in range(int(config.rounds or 0) + 1)
        for seat in task.seats
    ]
    with ResultsFile(path, key=lambda rec: rec["key"], check=lambda rec: (rec["round"], rec["seat"])) as results:
        missing = set(results.missing([f"{s}/{seat}/{r}" for s, seat, r in wanted]))
        for seed in range(config.seed, config.seed + config.seeds):
            learners = Run(task, config, seed, out, log)
            for rnd in range(int(config.rounds or 0) + 1):
                for seat in task.seats:  # simultaneous: both train on the snapshots of round rnd - 1
                    learners.train(seat, rnd)
                for seat in task.seats:
                    if f"{seed}/{seat}/{rnd}" in missing:
                        results.append(learners.checkpoint(seat, rnd))
        return [results[f"{s}/{seat}/{r}"] for s, seat, r in wanted]
