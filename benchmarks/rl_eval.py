"""Evaluation for ``tom-envs rl`` (:mod:`benchmarks.rl`): the probe's training episodes, the
evaluation cells (resumable, keyed records through :mod:`benchmarks.results`) and the rows with
their confidence intervals over training seeds."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from benchmarks.results import config_key
from benchmarks.rl_probe import PROBE_SETTINGS, Probe, fit_probe, probe_source, target_layout
from benchmarks.rl_train import Training, wrapped
from benchmarks.runner import Cell, run_cell
from benchmarks.runner_episodes import EpisodeResult, play
from tom_envs.stats import mean_ci95
from tom_envs.tom import tom_spec_of

Row = dict[str, Any]
#: Seeds of the probe's train-split episodes start here (the test episodes' at 0).
PROBE_SEED0 = 1_000_000


def recorded_env(task: Any, env_id: str, split: str, env_kwargs: Mapping[str, Any], vectorize: bool = True) -> Any:
    """The task's env on ``split`` (vector observations unless ``vectorize`` is False), in the ToM recorder."""
    import wrappers

    env = task.make_env(env_id, split, **dict(env_kwargs))
    return wrappers.ToMRecorder(wrapped(env, task.observation) if vectorize else env)


def episode_options(task: Any, env_id: str, split: str, index: int) -> Mapping[str, Any] | None:
    """The reset options of the ``index``-th episode of ``split`` (the task's ``reset_options``)."""
    return None if task.reset_options is None else task.reset_options(env_id, split, index)


def needs_probe(task: Any, env_id: str, env_kwargs: Mapping[str, Any]) -> bool:
    """Whether RL agents need a probe on this env (no, where the action is the prediction)."""
    env = task.make_env(env_id, "train", **dict(env_kwargs))
    try:
        return not tom_spec_of(env.unwrapped).action_is_prediction
    finally:
        env.close()


# ---------------------------------------------------------------------- the probe
@dataclass(frozen=True)
class ProbePlan:
    """The probe of one trained model: fitted on ``episodes`` train-split episodes (seeds from
    :data:`PROBE_SEED0`)."""

    training: Training
    episodes: int

    @property
    def seeds(self) -> list[int]:
        return list(range(PROBE_SEED0, PROBE_SEED0 + self.episodes))

    @property
    def key(self) -> str:
        return config_key({"model": self.training.key, "episodes": self.episodes, "settings": PROBE_SETTINGS})

    def path(self, out: Path) -> Path:
        return self.training.path(out).with_name(self.training.path(out).stem + f"_probe_{self.key}.npz")


def probe_for(task: Any, plan: ProbePlan, model: Any, out: Path, log: Callable[..., Any] = print) -> Probe:
    """The fitted probe (loaded when an identical earlier run saved it): the agent plays the train
    split's episodes greedily; each decision's :func:`~policies.sb3.agent_state` is paired with
    the truth the recorder records for that step."""
    from benchmarks.rl_train import one_thread

    path = plan.path(out)
    if path.exists():
        probe = Probe.load(path)
        if "majority" in probe.trained_on:
            return probe
        log(f"refitting {path.name}: saved before probes kept their train split's majority class")
    with one_thread():
        probe = fit_on_train_split(task, plan, model)
    probe.save(path)
    log(
        f"fitted the probe on {sum(probe.trained_on['rows'].values())} decisions of {plan.episodes} train-split "
        "episodes"
    )
    return probe


def fit_on_train_split(task: Any, plan: ProbePlan, model: Any) -> Probe:
    """A probe of ``model`` fitted now on the plan's train-split episodes (nothing saved or loaded)."""
    from policies.sb3 import SB3Policy, is_recurrent

    training = plan.training
    env = recorded_env(task, training.env_id, "train", training.env_kwargs)
    try:
        return fitted_probe(
            env,
            SB3Policy(model, name=training.algo, mask=env.env.mask_slice),
            plan.seeds,
            probe_source(is_recurrent(model), plan.episodes),
            {"split": "train", "env_id": training.env_id, "episodes": plan.seeds},
            options=lambda i: episode_options(task, training.env_id, "train", i),
        )
    finally:
        env.close()


def fitted_probe(
    env: Any,
    policy: Any,
    seeds: Sequence[int],
    source: str,
    trained_on: Mapping[str, Any],
    options: Callable[[int], Mapping[str, Any] | None] | None = None,
) -> Probe:
    """A probe fitted on ``policy`` (an :class:`~policies.sb3.SB3Policy`) playing the episodes ``seeds`` of
    ``env`` (in the ToM recorder): each decision's agent state paired with the truth the recorder records for
    that step (:func:`benchmarks.rl_probe.fit_probe`, ``source`` and ``trained_on`` as it takes them);
    ``options(i)``: the ``i``-th episode's reset options."""
    layout = target_layout(tom_spec_of(env.unwrapped))
    policy.keep_features = True
    features: list[np.ndarray] = []
    truths: list[dict[str, Any]] = []

    def keep(step: Any) -> None:
        features.append(policy.last_feature)
        truths.append({name: step.record.get(name) for name in layout})

    for i, seed in enumerate(seeds):
        play(env, policy, seed, options=None if options is None else options(i), on_step=keep)
    return fit_probe(features, truths, layout, source, dict(trained_on))


# ---------------------------------------------------------------------- evaluation cells
@dataclass(frozen=True, eq=False)
class RLCell(Cell):
    """One evaluated agent on one split: a trained model (by its key, and its probe's) or a reference.

    ``identity`` holds what determines its episodes besides the env, the split and the seed (the
    model's and probe's keys); ``factory`` builds its policy (only when an episode must be played).
    """

    family: ClassVar[str] = "rl"
    task: Any
    env_id: str
    split: str
    policy: str
    identity: Mapping[str, Any]
    factory: Callable[[], Any] = field(repr=False)
    env_kwargs: Mapping[str, Any] = field(default_factory=dict)
    vectorize: bool = True

    def config(self) -> dict[str, Any]:
        return {
            "env_id": self.env_id,
            "split": self.split,
            "policy": self.policy,
            "env_kwargs": dict(self.env_kwargs),
            "vectorize": self.vectorize,
            **dict(self.identity),
        }

    def slug(self) -> str:
        return f"{self.policy}_{self.env_id.replace('/', '-')}_{self.split}"

    def make_env(self) -> Any:
        return recorded_env(self.task, self.env_id, self.split, self.env_kwargs, self.vectorize)

    def make_policy(self) -> Any:
        return self.factory()

    def play(self, env: Any, policy: Any, seed: int) -> EpisodeResult:
        return play(env, policy, seed, options=episode_options(self.task, self.env_id, self.split, seed))

    def record(self, seed: int, result: EpisodeResult) -> dict[str, Any]:
        rec = super().record(seed, result)
        # per-step lists (correctness, regrets per round) are large and summarised already
        rec["episode"] = {k: v for k, v in rec["episode"].items() if not isinstance(v, list)}
        return rec


def evaluate(cell: RLCell, episodes: int, out: Path, progress: bool | None = False) -> list[dict]:
    """The cell's records for evaluation episodes ``0 .. episodes-1`` (only the missing ones played)."""
    return run_cell(cell, list(range(episodes)), out, progress)


# ---------------------------------------------------------------------- rows
def outcome_of(summary: Mapping[str, Any], name: str) -> Any:
    """The functional outcome ``name`` of an episode summary (under ``outcome``, or at the top level
    where a family's scorer puts it there)."""
    inner = summary.get("outcome")
    if isinstance(inner, Mapping) and name in inner:
        return inner[name]
    return summary.get(name)


def _mean_ci(values: Sequence[Any]) -> tuple[float | None, float | None]:
    """Mean and 95 % CI half-width; no CI (None) from a single value, where there is no spread to measure."""
    mean, ci = mean_ci95(values)
    return mean, ci if len([v for v in values if v is not None]) > 1 else None


def _episode_values(task: Any, records: Sequence[dict]) -> tuple[list[float], list[float]]:
    outcomes = [outcome_of(r["episode"], task.outcome) for r in records]
    toms = [r["episode"].get("tom_accuracy") for r in records]
    return [float(v) for v in outcomes if v is not None], [float(v) for v in toms if v is not None]


@dataclass(frozen=True)
class RowInfo:
    """What a row says besides its numbers."""

    family: str
    env_id: str
    split: str
    policy: str
    algo: str | None
    steps: int | None
    tom_source: str | None
    seat: str | None = None


def row(task: Any, info: RowInfo, by_seed: Mapping[int, Sequence[dict]]) -> Row:
    """The row of one agent: its outcome and ToM % averaged over episodes per training seed, then
    mean and 95 % CI over the training seeds (one seed, or a reference: the CI over episodes; None from
    one value)."""
    per_seed = []
    for seed, records in by_seed.items():
        outcomes, toms = _episode_values(task, records)
        per_seed.append(
            {
                "seed": seed,
                task.outcome: mean_ci95(outcomes)[0],
                "tom_accuracy": mean_ci95(toms)[0],
                "episodes": len(records),
            }
        )
    if len(per_seed) > 1:
        outcome = _mean_ci([s[task.outcome] for s in per_seed])
        tom = _mean_ci([s["tom_accuracy"] for s in per_seed])
    else:
        outcomes, toms = _episode_values(task, next(iter(by_seed.values())))
        outcome, tom = _mean_ci(outcomes), _mean_ci(toms)
    return {
        "family": info.family,
        "env_id": info.env_id,
        "algo": info.algo,
        "steps": info.steps,
        "split": info.split,
        "seeds": [s["seed"] for s in per_seed] if info.algo else [],
        "policy": info.policy,
        "episodes": sum(s["episodes"] for s in per_seed),
        "outcome": task.outcome,
        "higher_is_better": task.higher_is_better,
        task.outcome: outcome[0],
        f"{task.outcome}_ci": outcome[1],
        "tom_accuracy": tom[0],
        "tom_accuracy_ci": tom[1],
        "tom_source": info.tom_source,
        "seat": info.seat,
        "per_seed": per_seed if info.algo else [],
    }


def reference_rows(
    task: Any,
    env_id: str,
    split: str,
    seeds: Sequence[int],
    policies: Mapping[str, tuple[Any, str | None]],
    family: str,
    env_kwargs: Mapping[str, Any] | None = None,
) -> list[Row]:
    """Rows of scripted references (name -> ``(policy factory, tom_source)``) played on the task's
    env of ``split`` with its own observations, episodes ``seeds`` (reset options as the RL agents'),
    in memory: for a family's ``RLTask.references``."""
    rows = []
    kwargs = dict(env_kwargs or {})
    for name, (factory, source) in policies.items():
        env = recorded_env(task, env_id, split, kwargs, vectorize=False)
        policy = factory()
        records = [
            {"episode": play(env, policy, s, options=episode_options(task, env_id, split, s)).summary} for s in seeds
        ]
        env.close()
        seat = (
            kwargs.get("seat") if task.seats else task.seat
        )  # a task with seats: the chosen one, none on its Gymnasium ids
        rows.append(row(task, RowInfo(family, env_id, split, name, None, None, source, seat), {0: records}))
    return rows


#: The files of each run's rows under ``--out/rl/`` (what the report's RL section reads): one per env id,
#: split and algorithm, so a run with other code sets aside only its own earlier rows.
ROWS_PREFIX = "rows_"


def row_key(r: Mapping[str, Any]) -> str:
    """A row's identity: its env, split, policy, algorithm, budget, seeds and episodes (and its
    ``env_kwargs``, in the rows of runs given ``--env-kwargs``)."""
    keys = ("env_id", "split", "policy", "algo", "steps", "seeds", "episodes") + (
        ("env_kwargs",) if "env_kwargs" in r else ()
    )
    return config_key({k: r.get(k) for k in keys})


def rows_path(out: Path, env_id: str, split: str, algo: str, seat: str | None = None) -> Path:
    """The rows file of one run's configuration (tasks whose seat is chosen: one per seat)."""
    env = env_id.replace("/", "-") + ("" if seat is None else f"_{seat}")
    return Path(out) / RLCell.family / f"{ROWS_PREFIX}{algo}_{env}_{split}.jsonl"


def store_rows(rows: Sequence[Row], out: Path, seat: str | None = None) -> None:
    """Keep a run's ``rows`` (the RL row first) in its rows file (one record per row identity; a
    rerun's identical rows are not appended again), for the report; ``seat``: the chosen seat of a
    task with ``seats`` (its own file)."""
    from benchmarks.results import ResultsFile

    first = rows[0]
    with ResultsFile(
        rows_path(out, first["env_id"], first["split"], first["algo"], seat),
        key=lambda rec: rec["key"],
        check=lambda rec: rec["row"]["env_id"],
    ) as results:
        for r in rows:
            if row_key(r) not in results:
                results.append({"key": row_key(r), "row": dict(r)})
