"""``tom-envs rl --env ID``: stable-baselines3 agents trained on any family's env, evaluated on a
held-out split with the ToM recorder, next to the family's scripted references (docs/rl.md).

A family says how it is trained through :class:`RLTask` declarations named in its
:class:`tom_envs.family.Family` (``rl=("benchmarks.<family>.rl:TASK", ...)``; the declaration and its lookup
live in :mod:`benchmarks.rl_task` and are imported from here); this module holds the shared part (one run:
its options checked, training, literal ToM for RL agents, rows; and the command) and names no family.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from benchmarks.rl_task import RLTask, Row, task_for, tasks  # noqa: F401 - families and tests import them from here
from benchmarks.rl_train import ALGOS, RLError

#: ``tom-envs rl --help``'s description.
DESCRIPTION = """Train stable-baselines3 / sb3-contrib agents on the train split of any family's env (observations
flattened by wrappers.VectorizeObservation; vectorized envs), test them on a held-out split with the ToM
recorder, and print one row per agent beside the family's references: the functional outcome and ToM %
(from a probe fitted on the agent's internal state on train-split episodes, or the answer itself on QA
envs), each with a 95 % CI over the training seeds. Models and records go under --out; a rerun resumes.
A wrong --env lists the ids that have an RL task. See docs/rl.md."""


# ---------------------------------------------------------------------- one run
@dataclass(frozen=True)
class RLRun:
    """What ``tom-envs rl`` runs (its options; None: the task's default).

    Attributes:
        env_id: ``--env``.
        algo: ``--algo`` (one of :data:`benchmarks.rl_train.ALGOS`).
        steps: ``--steps``, training steps per training seed.
        seeds: ``--seeds``, the number of training seeds (``seed .. seed + seeds - 1``; None: the task's,
            :attr:`RLTask.seeds` or its ``algo_seeds``).
        seed: ``--seed``, the first training seed.
        split: ``--split``, the split evaluated on (``train`` or ``test``).
        seat: ``--seat`` (multi-agent ids: the task's seat, or one of its ``seats``).
        episodes: ``--episodes``, evaluation episodes per training seed.
        n_envs: ``--n-envs``, parallel training envs.
        data_dir: ``--data-dir``, the dataset folder (tasks that read one).
        env_kwargs: ``--env-kwargs``, the env's own keyword arguments (tasks with ``env_kwargs``).
        curve_points: ``--curve-points``, evaluations along training (None: the task's; 0: no learning curve).
    """

    env_id: str
    algo: str = "ppo"
    steps: int | None = None
    seeds: int | None = None
    seed: int = 0
    split: str = "test"
    seat: str | None = None
    episodes: int | None = None
    n_envs: int | None = None
    data_dir: str | None = None
    env_kwargs: Mapping[str, Any] | None = None
    curve_points: int | None = None

    def resolved(self) -> tuple[str, RLTask, "RLRun"]:
        """The family, the task and this run with the task's defaults filled in.

        Raises:
            RLError: a bad option or combination (before anything is trained).
        """
        import tom_envs
        from tom_envs.errors import import_optional

        family, task = task_for(self.env_id)
        if self.algo not in ALGOS:
            raise RLError(f"unknown --algo {self.algo!r}; choose one of {', '.join(ALGOS)}")
        for name, value in (
            ("--steps", self.steps),
            ("--seeds", self.seeds),
            ("--episodes", self.episodes),
            ("--n-envs", self.n_envs),
        ):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise RLError(f"{name} must be an integer >= 1, got {value!r}")
        if self.split not in task.splits:
            raise RLError(
                f"--split {self.split!r} is not a split of {self.env_id}'s task; its splits: "
                + "; ".join(f"{k} ({v})" for k, v in task.splits.items())
            )
        multi = tom_envs.REGISTRY[self.env_id].kind != "gymnasium"
        if self.seat is not None and not multi:
            raise RLError(f"--seat is for multi-agent ids; {self.env_id} has one seat")
        if self.seat is not None and self.seat != task.seat and self.seat not in task.seats:
            raise RLError(
                f"--seat {self.seat!r}: RL agents on {self.env_id} train "
                + (f"one of the seats {', '.join(task.seats)}" if task.seats else f"the seat {task.seat!r}")
            )
        if multi and task.seat is None:
            raise RLError(f"{self.env_id}'s task names no trained seat (RLTask.seat)")
        check_env_kwargs(self.env_id, task, self.env_kwargs)
        if self.data_dir is not None and not task.data_dir:
            raise RLError(f"--data-dir: {self.env_id}'s task reads no dataset folder; leave the option out")
        if self.data_dir is not None and not Path(self.data_dir).is_dir():
            raise RLError(
                f"--data-dir {self.data_dir!r} is not a folder; give the dataset's folder "
                "(tom-envs data download fetches it)"
            )
        import_optional("stable_baselines3", "rl", "tom-envs rl")
        self._check_algo(task)
        episodes = self.episodes or task.episodes
        if task.split_size is not None:
            size = task.split_size(self.env_id, self.split, **self.make_kwargs(task))
            if self.episodes is not None and self.episodes > size:
                raise RLError(
                    f"--episodes {self.episodes}: the {self.split} split of {self.env_id} has {size} "
                    f"episode(s), each evaluated once; give at most {size}"
                )
            episodes = self.episodes or size
        return (
            family,
            task,
            replace(
                self,
                steps=self.steps or task.algo_steps.get(self.algo, task.steps),
                seeds=self.seeds or task.algo_seeds.get(self.algo, (task.seeds, ""))[0],
                episodes=episodes,
                n_envs=self.n_envs or task.n_envs,
                seat=(self.seat or task.seat) if multi else None,
            ),
        )

    def _check_algo(self, task: RLTask) -> None:
        from benchmarks.rl_train import algorithm, wrapped
        from gymnasium import spaces

        algorithm(self.algo)  # sb3-contrib present for its algorithms
        env = wrapped(_made(task, self.env_id, "train", self.make_kwargs(task), self.env_kwargs), task.observation)
        tested = wrapped(task.make_env(self.env_id, self.split, **self.make_kwargs(task)), task.observation)
        tested.close()
        if env.layout != tested.layout:
            differ = sorted({"/".join(map(str, a[0])) for a, b in zip(env.layout, tested.layout) if a != b})
            env.close()
            raise RLError(
                f"{self.env_id}: the {self.split} split's observations flatten differently from the train "
                f"split's (at {', '.join(differ) or 'the end'}); the task must leave those entries out "
                "(RLTask.observation's skip)"
            )
        try:
            if self.algo == "maskable_ppo" and env.mask_slice is None:
                raise RLError(
                    f"--algo maskable_ppo needs an observation with an action_mask; {self.env_id}'s has "
                    "none: choose another --algo"
                )
            if self.algo == "dqn" and not isinstance(env.action_space, spaces.Discrete):
                raise RLError(f"--algo dqn needs a Discrete action space; {self.env_id}'s is {env.action_space}")
        finally:
            env.close()

    def make_kwargs(self, task: RLTask) -> dict[str, Any]:
        """What the task's ``make_env`` (and ``references``) take besides the id and the split: the
        dataset folder, the seat (tasks with ``seats``) and the env kwargs; part of every key."""
        import tom_envs

        out: dict[str, Any] = {} if self.data_dir is None else {"data_dir": self.data_dir}
        if task.seats and tom_envs.REGISTRY[self.env_id].kind != "gymnasium":
            out["seat"] = self.seat or task.seat
        return {**out, **dict(self.env_kwargs or {})}


def check_env_kwargs(env_id: str, task: RLTask, env_kwargs: Mapping[str, Any] | None) -> None:
    """``--env-kwargs`` checked against the task and the env's constructor, before anything is made.

    Raises:
        RLError: not a mapping of names, a task that takes none, a name the task sets itself or the
            env's constructor does not take, a value that contradicts the id (a pinned keyword such
            as ``game``), or kwargs an id needs (a custom game's payoffs) missing.
    """
    import inspect

    from tom_envs.errors import ContradictoryKwargs
    from tom_envs.registration import load, record

    rec = record(env_id)
    needed = [k for k in task.needs_kwargs.get(env_id, ()) if k not in (env_kwargs or {})]
    if needed:
        example = json.dumps({k: v for k, v in rec.example_kwargs.items()}, separators=(",", ":"))
        raise RLError(
            f"{env_id} needs {', '.join(needed)} in --env-kwargs (a JSON object of the env's keyword "
            f"arguments), e.g. --env-kwargs '{example}'"
        )
    if env_kwargs is not None and (
        not isinstance(env_kwargs, Mapping) or not all(isinstance(k, str) for k in env_kwargs)
    ):
        raise RLError(f"--env-kwargs is a JSON object of the env's keyword arguments, got {env_kwargs!r}")
    if not env_kwargs:  # none, or {}: nothing to pass on
        return
    if not task.env_kwargs:
        raise RLError(f"--env-kwargs: {env_id}'s task passes no keyword arguments to its env; leave the option out")
    own = sorted(set(env_kwargs) & {"seat", "data_dir"})
    if own:
        raise RLError(
            f"--env-kwargs names {', '.join(own)}: give {' and '.join('--' + k.replace('_', '-') for k in own)} instead"
        )
    fixed = sorted(set(env_kwargs) & set(task.task_kwargs))
    if fixed:
        raise RLError(
            f"--env-kwargs names {', '.join(fixed)}, which {env_id}'s task sets itself (its splits and "
            "horizon); leave them out"
        )
    params = inspect.signature(load(rec.entry_point)).parameters
    if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        unknown = sorted(
            set(env_kwargs) - {n for n, p in params.items() if p.kind is not inspect.Parameter.VAR_POSITIONAL}
        )
        if unknown:
            raise RLError(
                f"--env-kwargs names {', '.join(unknown)}, which {env_id}'s env does not take; it takes "
                + ", ".join(n for n in params if n not in task.task_kwargs)
            )
    try:
        rec.check_kwargs(dict(env_kwargs))
    except ContradictoryKwargs as err:
        raise RLError(f"--env-kwargs: {err}") from None


def _made(
    task: RLTask, env_id: str, split: str, kwargs: Mapping[str, Any], env_kwargs: Mapping[str, Any] | None
) -> Any:
    """The task's env, an env that rejects ``--env-kwargs`` (an unknown name, a bad game) as an :class:`RLError`."""
    from tom_envs.errors import TomEnvsError

    if not env_kwargs:
        return task.make_env(env_id, split, **kwargs)
    try:
        return task.make_env(env_id, split, **kwargs)
    except TypeError as err:
        raise RLError(f"--env-kwargs: {env_id}'s env does not take them ({err})") from None
    except TomEnvsError as err:
        raise RLError(f"--env-kwargs: {env_id}'s env rejects them: {err}") from None


def run(config: RLRun, out: Path, log: Callable[..., Any] = print, progress: bool | None = False) -> list[Row]:
    """Train ``config.seeds`` agents (or load the saved ones), fit their probes on the train split,
    evaluate them on ``config.split``; returns the RL row and the task's reference rows.

    Torch runs on one thread meanwhile: SB3's small networks train fastest so, and on a shared
    2-core machine torch's default threads made PPO 20x slower (measured: 50 vs 1,090 steps/s)."""
    from benchmarks.rl_train import one_thread

    with one_thread():
        return _run(config, out, log, progress)


def _run(config: RLRun, out: Path, log: Callable[..., Any], progress: bool | None) -> list[Row]:
    from benchmarks.rl_eval import RLCell, RowInfo, evaluate, needs_probe, row, ProbePlan, probe_for
    from benchmarks.rl_curve import callback, combined, read_curve
    from benchmarks.rl_train import Training, cpu_seconds, train, training_cpu_seconds
    from policies.sb3 import SB3Policy

    family, task, config = config.resolved()
    if config.curve_points is not None:  # the learning curve's points (not part of any key: it changes no model)
        task = replace(task, curve_points=config.curve_points)
    kwargs = config.make_kwargs(task)
    probing = needs_probe(task, config.env_id, kwargs)
    by_seed: dict[int, list[dict]] = {}
    floor_by_seed: dict[int, list[dict]] = {}  # the same agent, predicting the train split's majority class
    cpu: list[float] = []
    curves: list[dict | None] = []  # each seed's learning curve (benchmarks.rl_curve), None for a model without one
    source = "the action (the answer is the prediction)" if not probing else None
    for seed in range(config.seed, config.seed + config.seeds):
        training = Training(
            config.env_id, config.algo, config.steps, seed, config.n_envs, kwargs, dict(task.hyper.get(config.algo, {}))
        )
        model = train(task, training, out, log, progress, curve=callback(task, training, cpu_seconds))
        probe = probe_for(task, ProbePlan(training, config.episodes), model, out, log) if probing else None
        source = probe.source if probe is not None else source
        identity = {"model": training.key, "probe": None if probe is None else ProbePlan(training, config.episodes).key}

        def factory(model: Any = model, probe: Any = probe) -> Any:
            env = task.make_env(config.env_id, config.split, **kwargs)
            from benchmarks.rl_train import wrapped

            mask = wrapped(env, task.observation).mask_slice if config.algo == "maskable_ppo" else None
            env.close()
            return SB3Policy(model, name=config.algo, probe=probe, mask=mask)

        cell = RLCell(task, config.env_id, config.split, config.algo, identity, factory, kwargs)
        by_seed[seed] = evaluate(cell, config.episodes, out, progress)
        if probe is not None:  # the same greedy agent (same episodes), predicting the majority class instead
            floor = RLCell(
                task,
                config.env_id,
                config.split,
                config.algo,
                {**identity, "tom_from": "train_majority"},
                lambda factory=factory, probe=probe: factory(probe=probe.majority()),
                kwargs,
            )
            floor_by_seed[seed] = evaluate(floor, config.episodes, out, progress)
        cpu.append(training_cpu_seconds(training, out))
        curves.append(read_curve(training.path(out)))
    info = RowInfo(family, config.env_id, config.split, config.algo, config.algo, config.steps, source, config.seat)
    rows = [
        with_floor(
            row(task, info, by_seed), row(task, info, floor_by_seed) if floor_by_seed else None, cpu, config.steps
        )
    ]
    rows[0]["curve"] = combined(curves, task.outcome)
    if config.algo in task.algo_seeds and config.seeds == task.algo_seeds[config.algo][0]:
        rows[0]["seeds_note"] = task.algo_seeds[config.algo][1]
    if task.references is not None:
        seeds = list(range(config.episodes))
        refs = (
            task.references(config.env_id, config.split, seeds, **kwargs)
            if kwargs
            else task.references(config.env_id, config.split, seeds)
        )
        rows += [dict(r, steps=r.get("steps"), algo=r.get("algo")) for r in refs]
    if config.env_kwargs:  # rows of a run with --env-kwargs say so (and are keyed by them)
        rows = [dict(r, env_kwargs=dict(config.env_kwargs)) for r in rows]
    from benchmarks.rl_eval import store_rows

    store_rows(rows, out, config.seat if task.seats and "seat" in kwargs else None)
    return rows


def with_floor(agent: Row, floor: Row | None, cpu: Sequence[float | None], steps: int) -> Row:
    """The agent's row with what it is read against: ``tom_majority`` (± ``tom_majority_ci``), the ToM % of
    the same agent on the same episodes predicting its train split's majority class, and ``tom_gain`` (the
    probe's ToM % minus it; None where no probe is needed); ``seed_count``; and ``cpu_s_per_million_steps``,
    the training's CPU seconds per million env steps (mean over the seeds whose training was timed)."""
    timed = [c for c in cpu if c is not None]
    out = dict(
        agent,
        seed_count=len(agent.get("seeds") or []),
        cpu_s_per_million_steps=(sum(timed) / len(timed) * 1e6 / steps) if timed and steps else None,
        tom_majority=None,
        tom_majority_ci=None,
        tom_gain=None,
    )
    if floor is not None and floor.get("tom_accuracy") is not None:
        out.update(tom_majority=floor["tom_accuracy"], tom_majority_ci=floor["tom_accuracy_ci"])
        if agent.get("tom_accuracy") is not None:
            out["tom_gain"] = agent["tom_accuracy"] - floor["tom_accuracy"]
    return out


# ---------------------------------------------------------------------- the command
def _fmt(value: Any, ci: Any, digits: int = 3) -> str:
    if value is None:
        return "n/a"
    return f"{value:.{digits}f} ± {ci:.{digits}f}" if ci is not None else f"{value:.{digits}f}"


def format_rows(rows: Sequence[Row], task: RLTask | None = None, data_dir: str | None = None) -> str:
    """The rows as a table (the outcome, ToM %, where the predictions come from), with the task's notes; a note
    about running without ``--data-dir`` gives way to the folder used when ``data_dir`` is given."""
    if not rows:
        return "(no rows)"
    outcome = rows[0]["outcome"]
    head = (
        f"{'policy':<18} {'split':<6} {'seeds':>5} {outcome:>18} {'ToM %':>14} {'majority %':>14} "
        f"{'CPU s/1M':>9}  ToM from"
    )
    lines = [
        f"{rows[0]['env_id']} ({'higher' if rows[0]['higher_is_better'] else 'lower'} {outcome} is better)",
        head,
        "-" * len(head),
    ]
    for r in rows:
        cpu = r.get("cpu_s_per_million_steps")
        lines.append(
            f"{r['policy']:<18} {r['split']:<6} {len(r['seeds']) or '-':>5} "
            f"{_fmt(r[outcome], r[outcome + '_ci']):>18} {_fmt(r['tom_accuracy'], r['tom_accuracy_ci'], 1):>14}"
            f" {_fmt(r.get('tom_majority'), r.get('tom_majority_ci'), 1) if r.get('tom_majority') is not None else '-':>14}"
            f" {'-' if cpu is None else f'{cpu:,.0f}':>9}  {r['tom_source'] or 'none'}"
        )
    if any(r.get("tom_majority") is not None for r in rows):
        lines.append(
            "majority %: the same agent on the same episodes predicting its train split's majority class "
            "(the floor a probe is read against; tom_gain in the JSON rows is the difference)"
        )
    if task is not None:
        notes = [n for n in task.notes if not (data_dir and n.startswith("without --data-dir"))]
        lines += [f"note: {n}" for n in notes] + ([f"note: data from --data-dir {data_dir}"] if data_dir else [])
    return "\n".join(lines)


def json_object(text: str) -> dict[str, Any]:
    """``--env-kwargs``: a JSON object (argparse says what is wrong with anything else)."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as err:
        raise argparse.ArgumentTypeError(
            f"is not JSON ({err.msg} at character {err.pos}): give a JSON object such as "
            '\'{"payoffs": [[[3, 3], [0, 5]], [[5, 0], [1, 1]]], "action_labels": '
            '["C", "D"]}\''
        ) from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(
            f'must be a JSON object of keyword arguments ({{"name": value, ...}}), got {type(value).__name__} {text!r}'
        )
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``tom-envs rl``'s options."""
    from benchmarks.cli import OneSpelling
    from benchmarks.cli_training import add_output_options
    from benchmarks.cli_types import count, non_negative_int

    parser.add_argument(
        "--env", required=True, help="a registered id some family's RL task trains on (a wrong one lists them)"
    )
    parser.add_argument(
        "--algo",
        "--policy",
        dest="algo",
        choices=list(ALGOS),
        default="ppo",
        action=OneSpelling,
        help="one stable-baselines3 / sb3-contrib algorithm (--policy is the same option)",
    )
    parser.add_argument(
        "--steps", type=count(100_000_000), default=None, help="training steps per training seed (default: the task's)"
    )
    parser.add_argument(
        "--seeds",
        type=count(100),
        default=None,
        help="training seeds; rows carry CIs over them (default: the task's, 5 where its default budget fits)",
    )
    parser.add_argument("--seed", type=non_negative_int, default=0, help="the first training seed")
    parser.add_argument("--split", default="test", help="the split evaluated on: train or test (the task's splits)")
    parser.add_argument(
        "--seat",
        default=None,
        help="multi-agent ids: the trained seat, the task's or one of the seats "
        "it lets you choose (default: the task's; a wrong one lists them)",
    )
    parser.add_argument(
        "--episodes",
        type=count(1_000_000),
        default=None,
        help="evaluation episodes per training seed (default: the task's)",
    )
    parser.add_argument("--n-envs", type=count(4096), default=None, help="parallel training envs (default: the task's)")
    parser.add_argument(
        "--data-dir", default=None, help="the dataset folder of tasks that read one (default: the env's own default)"
    )
    parser.add_argument(
        "--env-kwargs",
        type=json_object,
        default=None,
        metavar="JSON",
        help="the env's own keyword arguments as a JSON object, for tasks that pass them on (a custom "
        "game's payoffs and action labels, which its id needs: without them the error says what to "
        'pass), e.g. \'{"payoffs": [[[3, 3], [0, 5]], [[5, 0], [1, 1]]], "action_labels": '
        "[\"C\", \"D\"]}'; part of every model's, record's and row's key",
    )
    parser.add_argument(
        "--curve-points",
        type=non_negative_int,
        default=None,
        help="evaluations along training, each on a few test-split episodes (the learning curve "
        "saved beside the model; default: the task's, 10; 0: none)",
    )
    add_output_options(parser, "models and result records")


def run_command(args: argparse.Namespace) -> int:
    """``tom-envs rl``: rows as a table, or JSON with ``--format json``."""
    from benchmarks.cli_training import run_config

    quiet = args.format == "json"
    config = run_config(RLRun, args, env_id=args.env)
    rows = run(
        config,
        Path(args.out),
        log=(lambda *a: None) if quiet else (lambda *a: print(*a, file=sys.stderr)),
        progress=False if quiet else None,
    )
    print(json.dumps(rows, indent=2) if quiet else format_rows(rows, task_for(args.env)[1], args.data_dir))
    return 0
