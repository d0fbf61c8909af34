"""``tom-envs rl --env ID``: stable-baselines3 agents trained on any family's env, evaluated on a
held-out split with the ToM recorder, next to the family's scripted references (docs/rl.md).

A family says how it is trained through :class:`RLTask` declarations named in its
:class:`tom_envs.family.Family` (``rl=("benchmarks.<family>.rl:TASK", ...)``); this module holds
the shared part (the command, training, literal ToM for RL agents, rows) and names no family.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from benchmarks.rl_train import ALGOS, RLError

Row = dict[str, Any]

#: ``tom-envs rl --help``'s description.
DESCRIPTION = """Train stable-baselines3 / sb3-contrib agents on the train split of any family's env (observations
flattened by wrappers.VectorizeObservation; vectorized envs), test them on a held-out split with the ToM
recorder, and print one row per agent beside the family's references: the functional outcome and ToM %
(from a probe fitted on the agent's internal state on train-split episodes, or the answer itself on QA
envs), each with a 95 % CI over the training seeds. Models and records go under --out; a rerun resumes.
A wrong --env lists the ids that have an RL task. See docs/rl.md."""


@dataclass(frozen=True)
class RLTask:
    """How RL agents train and are tested on some of a family's ids.

    Attributes:
        env_ids: the registered ids this task trains on (``tom-envs rl --env ID`` finds the task
            whose ``env_ids`` hold ID).
        make_env: ``make_env(env_id, split)`` -> a single-agent Gymnasium env of the trained seat
            (an AEC id's other seats are played inside it by the family's scripted/default
            policies), drawing its partners / personas / cases / questions from ``split`` only.
            Its unwrapped env keeps the ToM contract (``tom_spec``, ``tom_truth()``,
            ``tom_outcome()``), so :class:`wrappers.ToMRecorder` scores it; its observations may
            be any space (the shared code turns dict and text observations into vectors).
        splits: split name -> what it holds (shown in ``--help`` and docs); has ``"train"`` and
            ``"test"``; rows name the split they were evaluated on.
        outcome: the key of ``tom_outcome()`` (the episode's functional outcome) rows report.
        higher_is_better: whether a larger ``outcome`` is better (False for regret).
        steps: the default training budget per training seed (``--steps``); with the default
            seeds a run finishes within 10 minutes on a 2-core machine.
        horizon: the episode length used for training and testing where the env takes one, else None.
        hyper: algorithm name -> extra stable-baselines3 keyword arguments for this task.
        seat: the trained seat's agent name for AEC ids (named in rows), None for Gymnasium ids.
        references: ``references(env_id, split, seeds)`` -> rows of the family's scripted
            references played on the same split and seeds (same keys as the RL rows), or None.
        notes: one line per thing a reader of the rows should know (shown under the table).
        episodes: the default number of evaluation episodes per training seed (``--episodes``).
        reset_options: ``reset_options(env_id, split, i)`` -> the reset options of the ``i``-th
            evaluation episode (e.g. ``{"episode": i}`` to play each dialogue of a split once), or
            None: episodes differ by their seed only.
        make_vec_env: ``make_vec_env(env_id, split, n_envs)`` -> a Gymnasium ``VectorEnv`` with
            same-step autoreset that trains faster than ``n_envs`` single envs (the matrix games'
            native vector env), or None where none applies; None: SB3's ``DummyVecEnv`` over
            ``make_env``.
        data_dir: ``make_env`` takes a ``data_dir=`` keyword (the dataset folder, ``--data-dir``).
        observation: keyword arguments of :class:`wrappers.VectorizeObservation` for this task's
            envs (e.g. ``{"skip": ("text",), "buckets": 256}``).
        n_envs: the default number of parallel training envs (``--n-envs``).
        algo_steps: algorithm -> its default ``--steps`` where it differs from ``steps`` (a
            recurrent policy's steps cost more).
        split_size: ``split_size(env_id, split, **make_env's keywords)`` -> the number of distinct
            episodes of ``split`` (dialogues, conversations), which ``reset_options`` plays in turn:
            the default ``--episodes`` then, and its most; None: episodes are drawn by seed.
        unsupported: ids of the family RL does not train on -> a sentence saying why and what to
            run instead (``tom-envs rl --env ID`` fails with it).
    """

    env_ids: tuple[str, ...]
    make_env: Callable[[str, str], Any]
    outcome: str
    splits: Mapping[str, str] = field(default_factory=lambda: {"train": "training split", "test": "held-out split"})
    higher_is_better: bool = True
    steps: int = 50_000
    horizon: int | None = None
    hyper: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    seat: str | None = None
    references: Callable[[str, str, Sequence[int]], list[Row]] | None = None
    notes: tuple[str, ...] = ()
    episodes: int = 30
    reset_options: Callable[[str, str, int], Mapping[str, Any] | None] | None = None
    make_vec_env: Callable[[str, str, int], Any] | None = None
    data_dir: bool = False
    observation: Mapping[str, Any] = field(default_factory=dict)
    n_envs: int = 8
    algo_steps: Mapping[str, int] = field(default_factory=dict)
    unsupported: Mapping[str, str] = field(default_factory=dict)
    split_size: Callable[..., int] | None = None


# ---------------------------------------------------------------------- the declared tasks
def tasks(broken: dict[str, str] | None = None) -> dict[str, tuple[str, RLTask]]:
    """Every registered id some family's :class:`RLTask` trains on -> ``(family name, task)``
    (``Family.rl``, in the families' order).

    Args:
        broken: if given, a declaration that does not import is noted here (target -> error)
            and left out, so one family's broken module does not stop another's ids; without it
            the error is raised.

    Raises:
        tom_envs.family.FamilyError: a declaration names something that is not an :class:`RLTask`.
    """
    found: dict[str, tuple[str, RLTask]] = {}
    for name, task in _declared(broken):
        for env_id in task.env_ids:
            found.setdefault(env_id, (name, task))
    return found


def _declared(broken: dict[str, str] | None) -> list[tuple[str, RLTask]]:
    from tom_envs.family import FamilyError, families, load_object

    out = []
    for fam in families():
        for target in fam.rl:
            try:
                task = load_object(target)
            except Exception as exc:  # noqa: BLE001 - a family module that fails to load, for any reason
                if broken is None:
                    raise
                broken[target] = f"{type(exc).__name__}: {exc}"
                continue
            if not isinstance(task, RLTask):
                raise FamilyError(f"family {fam.name!r}: {target} is a {type(task).__name__}, not a benchmarks.rl.RLTask")
            out.append((fam.name, task))
    return out


def task_for(env_id: str) -> tuple[str, RLTask]:
    """``(family name, task)`` of ``env_id``.

    Raises:
        RLError: no declared task trains on ``env_id`` (the message lists the ids that have one,
            and any declaration that failed to import), or the task declares the id unsupported.
    """
    import tom_envs

    broken: dict[str, str] = {}
    found = tasks(broken)
    if env_id in found:
        return found[env_id]
    for _, task in _declared({}):
        if env_id in task.unsupported:
            raise RLError(f"{env_id}: {task.unsupported[env_id]}")
    known = ", ".join(found) or "none"
    failed = "".join(f"; {t} did not import ({e})" for t, e in broken.items())
    if env_id not in tom_envs.REGISTRY:
        raise RLError(f"--env {env_id!r} is not a registered id; ids RL agents train on: {known}{failed}")
    raise RLError(f"no family declares an RL task for {env_id!r} (Family.rl); ids RL agents train on: {known}{failed}")


# ---------------------------------------------------------------------- one run
@dataclass(frozen=True)
class RLRun:
    """What ``tom-envs rl`` runs (its options; None: the task's default).

    Attributes:
        env_id: ``--env``.
        algo: ``--algo`` (one of :data:`benchmarks.rl_train.ALGOS`).
        steps: ``--steps``, training steps per training seed.
        seeds: ``--seeds``, the number of training seeds (``seed .. seed + seeds - 1``).
        seed: ``--seed``, the first training seed.
        split: ``--split``, the split evaluated on (``train`` or ``test``).
        seat: ``--seat`` (AEC ids: must be the task's seat).
        episodes: ``--episodes``, evaluation episodes per training seed.
        n_envs: ``--n-envs``, parallel training envs.
        data_dir: ``--data-dir``, the dataset folder (tasks that read one).
    """

    env_id: str
    algo: str = "ppo"
    steps: int | None = None
    seeds: int = 3
    seed: int = 0
    split: str = "test"
    seat: str | None = None
    episodes: int | None = None
    n_envs: int | None = None
    data_dir: str | None = None

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
        for name, value in (("--steps", self.steps), ("--seeds", self.seeds), ("--episodes", self.episodes),
                            ("--n-envs", self.n_envs)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise RLError(f"{name} must be an integer >= 1, got {value!r}")
        if self.split not in task.splits:
            raise RLError(f"--split {self.split!r} is not a split of {self.env_id}'s task; its splits: "
                          + "; ".join(f"{k} ({v})" for k, v in task.splits.items()))
        aec = tom_envs.REGISTRY[self.env_id].kind != "gymnasium"
        if self.seat is not None and self.seat != task.seat:
            raise RLError(f"--seat {self.seat!r}: RL agents on {self.env_id} train the seat {task.seat!r}"
                          if task.seat else f"--seat is for multi-agent ids; {self.env_id} has one seat")
        if aec and task.seat is None:
            raise RLError(f"{self.env_id}'s task names no trained seat (RLTask.seat)")
        if self.data_dir is not None and not task.data_dir:
            raise RLError(f"--data-dir: {self.env_id}'s task reads no dataset folder; leave the option out")
        if self.data_dir is not None and not Path(self.data_dir).is_dir():
            raise RLError(f"--data-dir {self.data_dir!r} is not a folder; give the dataset's folder "
                          "(tom-envs data download fetches it)")
        import_optional("stable_baselines3", "rl", "tom-envs rl")
        self._check_algo(task)
        episodes = self.episodes or task.episodes
        if task.split_size is not None:
            size = task.split_size(self.env_id, self.split, **self.env_kwargs)
            if self.episodes is not None and self.episodes > size:
                raise RLError(f"--episodes {self.episodes}: the {self.split} split of {self.env_id} has {size} "
                              f"episode(s), each evaluated once; give at most {size}")
            episodes = self.episodes or size
        return family, task, replace(self, steps=self.steps or task.algo_steps.get(self.algo, task.steps),
                                     episodes=episodes, n_envs=self.n_envs or task.n_envs)

    def _check_algo(self, task: RLTask) -> None:
        from benchmarks.rl_train import algorithm, wrapped
        from gymnasium import spaces

        algorithm(self.algo)  # sb3-contrib present for its algorithms
        env = wrapped(task.make_env(self.env_id, "train", **self.env_kwargs), task.observation)
        tested = wrapped(task.make_env(self.env_id, self.split, **self.env_kwargs), task.observation)
        tested.close()
        if env.layout != tested.layout:
            differ = sorted({"/".join(map(str, a[0])) for a, b in zip(env.layout, tested.layout) if a != b})
            env.close()
            raise RLError(f"{self.env_id}: the {self.split} split's observations flatten differently from the train "
                          f"split's (at {', '.join(differ) or 'the end'}); the task must leave those entries out "
                          "(RLTask.observation's skip)")
        try:
            if self.algo == "maskable_ppo" and env.mask_slice is None:
                raise RLError(f"--algo maskable_ppo needs an observation with an action_mask; {self.env_id}'s has "
                              "none: choose another --algo")
            if self.algo == "dqn" and not isinstance(env.action_space, spaces.Discrete):
                raise RLError(f"--algo dqn needs a Discrete action space; {self.env_id}'s is {env.action_space}")
        finally:
            env.close()

    @property
    def env_kwargs(self) -> dict[str, Any]:
        return {} if self.data_dir is None else {"data_dir": self.data_dir}


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
    from benchmarks.rl_train import Training, train
    from policies.sb3 import SB3Policy

    family, task, config = config.resolved()
    probing = needs_probe(task, config.env_id, config.env_kwargs)
    by_seed: dict[int, list[dict]] = {}
    source = "the action (the answer is the prediction)" if not probing else None
    for seed in range(config.seed, config.seed + config.seeds):
        training = Training(config.env_id, config.algo, config.steps, seed, config.n_envs, config.env_kwargs,
                            dict(task.hyper.get(config.algo, {})))
        model = train(task, training, out, log, progress)
        probe = probe_for(task, ProbePlan(training, config.episodes), model, out, log) if probing else None
        source = probe.source if probe is not None else source
        identity = {"model": training.key, "probe": None if probe is None else ProbePlan(training, config.episodes).key}

        def factory(model: Any = model, probe: Any = probe) -> Any:
            env = task.make_env(config.env_id, config.split, **config.env_kwargs)
            from benchmarks.rl_train import wrapped

            mask = wrapped(env, task.observation).mask_slice if config.algo == "maskable_ppo" else None
            env.close()
            return SB3Policy(model, name=config.algo, probe=probe, mask=mask)

        cell = RLCell(task, config.env_id, config.split, config.algo, identity, factory, config.env_kwargs)
        by_seed[seed] = evaluate(cell, config.episodes, out, progress)
    info = RowInfo(family, config.env_id, config.split, config.algo, config.algo, config.steps, source, task.seat)
    rows = [row(task, info, by_seed)]
    if task.references is not None:
        seeds = list(range(config.episodes))
        refs = task.references(config.env_id, config.split, seeds, **config.env_kwargs) if config.env_kwargs \
            else task.references(config.env_id, config.split, seeds)
        rows += [dict(r, steps=r.get("steps"), algo=r.get("algo")) for r in refs]
    from benchmarks.rl_eval import store_rows

    store_rows(rows, out)
    return rows


# ---------------------------------------------------------------------- the command
def _fmt(value: Any, ci: Any, digits: int = 3) -> str:
    if value is None:
        return "n/a"
    return f"{value:.{digits}f} ± {ci:.{digits}f}" if ci is not None else f"{value:.{digits}f}"


def format_rows(rows: Sequence[Row], task: RLTask | None = None) -> str:
    """The rows as a table (the outcome, ToM %, where the predictions come from)."""
    if not rows:
        return "(no rows)"
    outcome = rows[0]["outcome"]
    head = f"{'policy':<18} {'split':<6} {'seeds':>5} {outcome:>18} {'ToM %':>14}  ToM from"
    lines = [f"{rows[0]['env_id']} ({'higher' if rows[0]['higher_is_better'] else 'lower'} {outcome} is better)",
             head, "-" * len(head)]
    for r in rows:
        lines.append(f"{r['policy']:<18} {r['split']:<6} {len(r['seeds']) or '-':>5} "
                     f"{_fmt(r[outcome], r[outcome + '_ci']):>18} {_fmt(r['tom_accuracy'], r['tom_accuracy_ci'], 1):>14}"
                     f"  {r['tom_source'] or 'none'}")
    if task is not None:
        lines += [f"note: {n}" for n in task.notes]
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``tom-envs rl``'s options."""
    from benchmarks.cli import OneSpelling, add_format_option, count, non_negative_int, output_dir

    parser.add_argument("--env", required=True, help="a registered id some family's RL task trains on "
                        "(a wrong one lists them)")
    parser.add_argument("--algo", "--policy", dest="algo", choices=list(ALGOS), default="ppo", action=OneSpelling,
                        help="one stable-baselines3 / sb3-contrib algorithm (--policy is the same option)")
    parser.add_argument("--steps", type=count(100_000_000), default=None,
                        help="training steps per training seed (default: the task's)")
    parser.add_argument("--seeds", type=count(100), default=3, help="training seeds; rows carry CIs over them")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="the first training seed")
    parser.add_argument("--split", default="test", help="the split evaluated on: train or test (the task's splits)")
    parser.add_argument("--seat", default=None, help="multi-agent ids: the trained seat (must be the task's)")
    parser.add_argument("--episodes", type=count(1_000_000), default=None,
                        help="evaluation episodes per training seed (default: the task's)")
    parser.add_argument("--n-envs", type=count(4096), default=None, help="parallel training envs (default: the task's)")
    parser.add_argument("--data-dir", default=None,
                        help="the dataset folder of tasks that read one (default: the env's own default)")
    parser.add_argument("--out", type=output_dir, default="results",
                        help="folder of the models and result records (a rerun resumes from them)")
    add_format_option(parser)


def run_command(args: argparse.Namespace) -> int:
    """``tom-envs rl``: rows as a table, or JSON with ``--format json``."""
    quiet = args.format == "json"
    config = RLRun(args.env, args.algo, args.steps, args.seeds, args.seed, args.split, args.seat, args.episodes,
                   args.n_envs, args.data_dir)
    rows = run(config, Path(args.out), log=(lambda *a: None) if quiet else (lambda *a: print(*a, file=sys.stderr)),
               progress=False if quiet else None)
    print(json.dumps(rows, indent=2) if quiet else format_rows(rows, task_for(args.env)[1]))
    return 0
