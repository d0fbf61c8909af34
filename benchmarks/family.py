"""Benchmark declarations: a family's benchmark says what it evaluates, and nothing else.

A :class:`Benchmark` names its command, its policies (the family's one name → factory table), its
cells (by default every registered env id of the family × every ``--policy``), the metrics of its
rows, its table and its published reference numbers. :func:`register` adds it to :data:`REGISTRY`,
and ``tom-envs`` (:mod:`benchmarks.__main__`) builds one subcommand per registered declaration with
the shared options (:func:`benchmarks.cli.add_run_options`: ``--episodes --seed --out --format
--plot --policy``, plus ``--env`` to pick ids, and on every benchmark command ``--executor`` with the
Ray options, :func:`benchmarks.cli.add_executor_options`); the runner (:mod:`benchmarks.runner`) plays the
cells and the results module (:mod:`benchmarks.results`) makes them resumable. A new family is its
env module, one ``tom_envs.register`` call and one declaration::

    register(Benchmark(
        name="toy", help="the toy family", family="toy",
        policies={"first": lambda cell: FirstPolicy()},
        metrics=("return", "tom_accuracy"),
        published={("tom/Toy-v0", "first"): {"return": 1.0}},
    ))

A factory may return one policy, or for a PettingZoo AEC env a mapping seat → policy (the runner's
:func:`~benchmarks.runner.play_aec` and :func:`~benchmarks.runner.play_aec_lockstep` take either):
the policy's name then names the whole table, typically the policy under test in the predictor seat
with the family's scripted seats around it. Policies named in ``llm_policies`` are built on the LLM
options of the command line (``--backend --model --base-url ...``): their cells carry the run's
identity in ``policy_params`` and the options in :attr:`EnvCell.llm`, and the factory takes the
backend from :meth:`EnvCell.backend`.

Families whose command is not a grid of (cell, seed) episodes (several tables, LLM runs that share
one engine) keep the declaration's ``run`` hook for the command and still use the shared pieces.
"""

from __future__ import annotations

import argparse
import atexit
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.cli import add_executor_options, add_run_options, not_applicable, refuse_options
from benchmarks.cli_backends import backend_from_args
from benchmarks.cli_llm import LLM_FLAGS, LLM_OPTIONS, add_llm_options, llm_settings
from benchmarks.cli_types import MAX_LOCKSTEP, comma_list, count, split_list
from benchmarks.errors import RunnerError
from benchmarks.distributed_scope import current_executor
from benchmarks.results import fault_columns
from benchmarks.runner import Cell, run_cell
from benchmarks.runner_envs import make_env
from tom_envs.stats import mean_ci95

PolicyFactory = Callable[["EnvCell"], Any]
Row = dict[str, Any]


@dataclass(frozen=True)
class EnvCell(Cell):
    """A cell of a declared benchmark: one registered env id (with kwargs) × one named policy.

    ``llm`` holds how to build an LLM policy's backend (the LLM options of the command line, see
    :func:`llm_fields`); it is not part of :meth:`config` (what identifies the run, backend kind,
    model, base URL, re-asks and fallback, is in ``policy_params``) and empty for other policies.
    """

    family: str
    env_id: str
    policy: str
    env_kwargs: Mapping[str, Any] = field(default_factory=dict)
    policy_params: Mapping[str, Any] = field(default_factory=dict)
    llm: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def config(self) -> dict[str, Any]:
        from benchmarks.results import RESULTS_VERSION

        from tom_envs.family import plugin_identity

        config = {"version": RESULTS_VERSION, "family": self.family, "env_id": self.env_id, "policy": self.policy,
                  "env_kwargs": dict(self.env_kwargs), "policy_params": dict(self.policy_params)}
        plugin = plugin_identity(self.family)  # a plugin's code in the key: change it and its results are fresh
        return config if plugin is None else {**config, "plugin": plugin}

    def slug(self) -> str:
        return f"{self.env_id.removeprefix('tom/')}_{self.policy}"

    def make_env(self) -> Any:
        return make_env(self.env_id, **self.env_kwargs)

    def make_policy(self) -> Any:
        return get(self.family).policies[self.policy](self)

    def backend(self) -> Any:
        """The LLM backend of :attr:`llm` (built once per process and options; closed at exit).

        Raises:
            RunnerError: the cell has no LLM options (its policy is not one of ``llm_policies``).
        """
        if not self.llm.get("model"):
            raise RunnerError(f"policy {self.policy!r} of {self.env_id} needs an LLM backend: pass --model (and "
                              "--backend/--base-url)")
        key = json.dumps(dict(self.llm), sort_keys=True, default=str)
        if key not in _BACKENDS:
            if not _BACKENDS:
                atexit.register(close_backends)
            _BACKENDS[key] = backend_from_args(argparse.Namespace(**self.llm))
        return _BACKENDS[key]


#: The backends :meth:`EnvCell.backend` built, by their options.
_BACKENDS: dict[str, Any] = {}


def close_backends() -> None:
    """Close every backend :meth:`EnvCell.backend` built (at exit; tests may call it sooner)."""
    while _BACKENDS:
        _BACKENDS.popitem()[1].close()


#: The LLM options a declared benchmark's command adds for its ``llm_policies`` (``--lockstep`` is the command's own).
DECLARED_LLM_OPTIONS = tuple(o for o in LLM_OPTIONS if o != "lockstep")


def llm_fields(args: argparse.Namespace, policy: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(policy_params, llm)`` of a cell of the LLM policy ``policy``: the run's identity (backend,
    model, base URL for openai, ``max_resamples``, ``fallback``; it keys the results file) and the LLM
    options that build its backend (:attr:`EnvCell.llm`).

    Raises:
        RunnerError: no ``--model``.
    """
    settings = llm_settings(args)
    if not settings["model"]:
        raise RunnerError(f"policy {policy!r} needs an LLM backend: pass --model (and --backend/--base-url)")
    params = {**settings.identity(), "max_resamples": settings["max_resamples"], "fallback": settings["fallback"]}
    llm = {name: getattr(args, name, None) for name in DECLARED_LLM_OPTIONS}
    llm["engine_arg"] = [list(pair) for pair in (llm.get("engine_arg") or [])]
    return params, {**llm, "seed": args.seed}


@dataclass(frozen=True)
class Benchmark:
    """One family's benchmark, as the command line and the runner read it.

    Attributes:
        name: the subcommand (``tom-envs NAME``).
        help: one line for ``tom-envs --help``.
        family: the registry family of its env ids (default: ``name``).
        policies: name → factory(cell) of every policy the family knows (its one table).
        default_policy: ``--policy`` default (default: the first of ``policies``).
        metrics: keys of the episode summary, or of its functional ``outcome``, averaged into each
            row (mean and ``_ci``).
        env_ids: the ids evaluated by default (default: every registered id of ``family``).
        cells: ``cells(args) -> [Cell]`` when a cell is more than id × policy (default: :meth:`default_cells`).
        table: ``table(rows, benchmark) -> str`` (default: :func:`format_rows`).
        published: the paper's reference numbers: (env id, policy) or any row identity → {metric: value}.
        description: the command's ``--help`` text (default: ``help``).
        episodes: ``--episodes`` default.
        plot: ``plot(records by cell key, folder) -> written paths``: the family's figures (adds ``--plot DIR``).
        arguments: ``arguments(parser)`` adds family options to the generated command.
        llm_policies: names in ``policies`` that are LLM policies: the generated command adds the LLM
            options, and their cells carry them (:func:`llm_fields`, :meth:`EnvCell.backend`).
        run: ``run(args) -> exit status`` replaces the generated command's body (families whose
            command is not a grid of episodes); it still gets the shared options.
    """

    name: str
    help: str
    policies: Mapping[str, PolicyFactory] = field(default_factory=dict)
    family: str | None = None
    default_policy: str | None = None
    metrics: Sequence[str] = ("return",)
    env_ids: Sequence[str] = ()
    cells: Callable[[argparse.Namespace], Sequence[Cell]] | None = None
    table: Callable[[Sequence[Row], "Benchmark"], str] | None = None
    published: Mapping[Any, Mapping[str, float]] = field(default_factory=dict)
    description: str | None = None
    episodes: int = 30
    plot: Callable[[Mapping[str, list[dict]], Path], list[Path]] | None = None
    arguments: Callable[[argparse.ArgumentParser], None] | None = None
    run: Callable[[argparse.Namespace], int] | None = None
    llm_policies: Sequence[str] = ()

    @property
    def family_name(self) -> str:
        return self.family or self.name

    def ids(self) -> list[str]:
        """The env ids evaluated by default."""
        if self.env_ids:
            return list(self.env_ids)
        import tom_envs

        return tom_envs.ids(family=self.family_name)

    def default_cells(self, args: argparse.Namespace) -> list[Cell]:
        """Every ``--env`` id × every ``--policy`` (a policy of ``llm_policies`` with the LLM options)."""
        ids = split_list(args.env) if getattr(args, "env", None) else self.ids()
        policies = split_list(args.policy)
        fields = {pol: llm_fields(args, pol) if pol in self.llm_policies else ({}, {}) for pol in policies}
        return [EnvCell(self.family_name, env_id, pol, policy_params=fields[pol][0], llm=fields[pol][1])
                for env_id in ids for pol in policies]


REGISTRY: dict[str, Benchmark] = {}


def register(benchmark: Benchmark) -> Benchmark:
    """Add ``benchmark`` (replacing one of the same name); returns it."""
    if not benchmark.run and not benchmark.policies:
        raise RunnerError(f"benchmark {benchmark.name!r} declares no policies (and no run hook)")
    unknown = [p for p in benchmark.llm_policies if p not in benchmark.policies]
    if unknown:
        raise RunnerError(f"benchmark {benchmark.name!r}: llm_policies {unknown} are not among its policies "
                          f"({', '.join(benchmark.policies)})")
    REGISTRY[benchmark.name] = benchmark
    return benchmark


def unregister(name: str) -> None:
    """Remove a declaration (tests and interactive sessions)."""
    REGISTRY.pop(name, None)


def get(name: str) -> Benchmark:
    """The declaration named ``name`` (its command name, or its family)."""
    for bench in REGISTRY.values():
        if name in (bench.name, bench.family_name):
            return bench
    raise RunnerError(f"no benchmark {name!r}; registered: {', '.join(REGISTRY) or 'none'}")


# ---------------------------------------------------------------------- the generated command
def add_arguments(parser: argparse.ArgumentParser, bench: Benchmark) -> None:
    """The generated command's options: the shared ones (:func:`~benchmarks.cli.add_run_options`),
    ``--env`` and ``--lockstep``, then the family's ``arguments``. A declaration with a ``run`` hook
    declares all of its options in ``arguments`` (with the same shared helpers)."""
    if bench.run is None:
        policies = list(bench.policies)
        add_run_options(parser, episodes=bench.episodes, policy=bench.default_policy or policies[0],
                        plot="write the family's figures into DIR" if bench.plot is not None else None,
                        policy_type=comma_list(policies, name="policy"),
                        policy_help=f"comma-separated: {', '.join(policies)}")
        parser.add_argument("--env", type=comma_list(bench.ids(), name="env id"), default=None,
                            help="comma-separated registered ids of the family (default: all of them)")
        parser.add_argument("--lockstep", type=count(MAX_LOCKSTEP), default=1,
                            help="episodes stepped at once through the policy's batched forms")
        if bench.llm_policies:
            add_llm_options(parser, title=f"LLM policies (--policy {', '.join(bench.llm_policies)})", lockstep=None,
                            only=DECLARED_LLM_OPTIONS)
    if bench.arguments is not None:
        bench.arguments(parser)
    add_executor_options(parser)
    _refuse_absent_llm_options(parser, bench.name)


#: Why a command with an LLM group may leave out one of its options (:func:`_refuse_absent_llm_options`).
_NO_LLM_OPTION = {
    "tokenizer": "it renders the chat template to score labels by log-probability through a server, and no LLM "
                 "part of `{name}` scores",
    "scoring_path": "no LLM part of `{name}` scores labels by log-probability",
}


def _refuse_absent_llm_options(parser: argparse.ArgumentParser, name: str) -> None:
    """A command names every LLM option it leaves out, with why (:func:`benchmarks.cli.refuse_options`):
    the LLM group is one vocabulary (without ``--backend`` the command has no LLM policy at all)."""
    flags = parser._option_string_actions
    if "--backend" not in flags:
        refuse_options(parser, {flag: f"`{name}` declares no LLM policy" for flag in LLM_FLAGS})
        return
    absent = {f"--{o.replace('_', '-')}": _NO_LLM_OPTION.get(o, "`{name}`'s LLM parts do not read it").format(name=name)
              for o in LLM_OPTIONS if f"--{o.replace('_', '-')}" not in flags}
    refuse_options(parser, absent)


def evaluate(bench: Benchmark, cells: Sequence[Cell], episodes: int, seed: int, out: Path, progress: bool | None = False,
             lockstep: int = 1) -> tuple[list[Row], dict[str, list[dict]]]:
    """Run (or resume) ``cells`` for seeds ``seed .. seed + episodes - 1``; the rows and records per cell key."""
    seeds = list(range(seed, seed + episodes))
    rows, records = [], {}
    for cell in cells:
        recs = run_cell(cell, seeds, out, progress, lockstep=lockstep)
        records[cell.key] = recs
        rows.append(summarise(cell, recs, bench.metrics))
    return rows, records


def metric(episode: Mapping[str, Any], key: str) -> Any:
    """A metric of an episode summary: a summary key, else one of its functional ``outcome`` values."""
    if key in episode:
        return episode[key]
    return (episode.get("outcome") or {}).get(key)


def summarise(cell: Cell, records: Sequence[dict], metrics: Sequence[str]) -> Row:
    """A row: the cell's identity, ``episodes``, then mean and 95 % CI (``_ci``) of each metric
    (:func:`metric`) over episodes (episodes where it is None are left out; None when none has it);
    an LLM policy's row adds the server retries its episodes took (:func:`~benchmarks.runner.fault_columns`)."""
    config = cell.config()
    row: Row = {k: config[k] for k in ("env_id", "policy") if k in config}
    row.update(episodes=len(records), cell_key=cell.key)
    for key in metrics:
        values = [metric(r["episode"], key) for r in records]
        row[key], row[key + "_ci"] = mean_ci95([v for v in values if v is not None])
    row.update(fault_columns(records))
    return row


def format_rows(rows: Sequence[Row], bench: Benchmark) -> str:
    """A plain table: one line per row, ``mean ± ci`` per metric, the published value beside it."""
    head = [f"{'env':<24} {'policy':<12}"] + [f"{m:>20}" for m in bench.metrics]
    lines = [" ".join(head)]
    lines.append("-" * len(lines[0]))
    for r in rows:
        ref = bench.published.get((r.get("env_id"), r.get("policy")), {})
        cells = []
        for m in bench.metrics:
            text = "n/a" if r[m] is None else f"{r[m]:.3f} ± {r[m + '_ci']:.3f}"
            if m in ref:
                text += f" ({ref[m]:g})"
            cells.append(f"{text:>20}")
        lines.append(" ".join([f"{str(r.get('env_id', ''))[:24]:<24} {str(r.get('policy', ''))[:12]:<12}"] + cells))
    if bench.published:
        lines.append("(in parentheses: the published value)")
    return "\n".join(lines)


def run_command(bench: Benchmark, args: argparse.Namespace) -> int:
    """The generated command (or the declaration's ``run`` hook) under the command line's executor
    (``--executor``, :func:`benchmarks.distributed.executor_from_args`: with ``ray`` every cell's
    missing episodes are played by Ray workers and written here, the same records as in process)."""
    from benchmarks.distributed import executor_from_args

    with executor_from_args(args):
        if bench.run is not None:
            return bench.run(args)
        return _generated(bench, args)


def _generated(bench: Benchmark, args: argparse.Namespace) -> int:
    """The generated command's body: the declaration's cells through the runner; rows as a table or JSON."""
    if bench.llm_policies and not set(split_list(args.policy)) & set(bench.llm_policies):
        not_applicable(args, DECLARED_LLM_OPTIONS, f"without an LLM policy (--policy {', '.join(bench.llm_policies)})")
    cells = bench.cells(args) if bench.cells is not None else bench.default_cells(args)
    progress = args.format != "json" and None  # None: a bar only on a terminal
    executor = current_executor()
    if executor is not None:  # every cell's missing episodes side by side
        executor.run(cells, list(range(args.seed, args.seed + args.episodes)), Path(args.out), args.lockstep, progress)
    rows, records = evaluate(bench, cells, args.episodes, args.seed, Path(args.out), progress, args.lockstep)
    print(json.dumps(rows, indent=2) if args.format == "json" else (bench.table or format_rows)(rows, bench))
    if getattr(args, "plot", None) and bench.plot is not None:
        for path in bench.plot(records, Path(args.plot)):
            if args.format != "json":
                print(f"wrote {path}")
    return 0
