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

What a command needs beyond one grid is declared too, and every built-in family uses the same fields
a plugin can: :class:`Part` s (pieces of the command, each applying under its own options, with its
cells or its own evaluation; an LLM part takes the command's one backend from
:meth:`~benchmarks.family_command.Context.backend`, built once from the LLM options and closed when
the command ends), ``layouts`` (named text tables: the ``--table`` choices), :class:`Job` s (options
that make the command print or write data instead of playing), ``check`` (what no part can check
alone), ``report_figures`` (``--plot`` draws the family's report section). The generated command
that reads them is :mod:`benchmarks.family_command`; there is no other command body.
"""

from __future__ import annotations

import argparse
import atexit
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.cli_backends import backend_from_args
from benchmarks.cli_llm import LLM_OPTIONS, llm_settings
from benchmarks.cli_types import split_list
from benchmarks.errors import RunnerError
from benchmarks.runner import Cell
from benchmarks.runner_envs import make_env

PolicyFactory = Callable[["EnvCell"], Any]
Row = dict[str, Any]
#: What a part's evaluation returns: its rows, and its records (or results) by key, for figures and layouts.
Evaluated = tuple[list[Row], dict[Any, Any]]
#: A text layout of a command's rows: ``layout(rows, records, args) -> text``.
Layout = Callable[[Sequence[Row], Mapping[Any, Any], argparse.Namespace], str]


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

        config = {
            "version": RESULTS_VERSION,
            "family": self.family,
            "env_id": self.env_id,
            "policy": self.policy,
            "env_kwargs": dict(self.env_kwargs),
            "policy_params": dict(self.policy_params),
        }
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
            raise RunnerError(
                f"policy {self.policy!r} of {self.env_id} needs an LLM backend: pass --model (and --backend/--base-url)"
            )
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
class Part:
    """A piece of a declared benchmark's command: when it applies, and how it produces its rows.

    The generated command plays every part that applies, in the declared order, and joins their rows
    (one JSON list, one table). A benchmark without parts has one: its cells through the runner.

    Attributes:
        name: names the part in messages and docs.
        applies: ``applies(args) -> bool``: whether the command line asks for it (default: always).
        cells: ``cells(args) -> [Cell]``: its cells, played through the shared runner grid
            (default: the benchmark's ``cells``, else id × policy).
        evaluate: ``evaluate(args, context) -> (rows, records)`` when the part is not a grid of the
            runner's cells (its own protocol, results files or table input); ``context`` is the
            command's :class:`~benchmarks.family_command.Context` (the one LLM backend, the progress
            setting, the executor). Default: ``cells`` through :func:`~benchmarks.family_command.evaluate`.
    """

    name: str
    applies: Callable[[argparse.Namespace], bool] | None = None
    cells: Callable[[argparse.Namespace], Sequence[Cell]] | None = None
    evaluate: Callable[[argparse.Namespace, Any], Evaluated] | None = None

    def active(self, args: argparse.Namespace) -> bool:
        return self.applies is None or bool(self.applies(args))


@dataclass(frozen=True)
class Job:
    """An option that makes the command do another job than playing its parts: print or write data
    (e.g. a data folder's counts, an export). The generated command runs the one written, and two on one
    command line are a named error; the family's ``arguments`` adds the option itself.

    Attributes:
        flag: the option as written (``--counts``); its ``dest`` is the flag's name with ``_``.
        action: ``action(args) -> exit status``: prints (or writes) its output.
    """

    flag: str
    action: Callable[[argparse.Namespace], int]

    @property
    def dest(self) -> str:
        return self.flag.lstrip("-").replace("-", "_")

    def written(self, args: argparse.Namespace) -> bool:
        value = getattr(args, self.dest, None)
        return value is not None and value is not False and value != ""


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
        parts: the command's :class:`Part` s (default: one, the cells through the runner).
        layouts: name → ``layout(rows, records, args) -> text``: the text tables; with two or more,
            ``--table`` chooses (the first is the default; ``layout_help`` its help). Default: ``table``.
        layout_help: the help of ``--table``.
        jobs: :class:`Job` s: options that print or write data instead of playing the parts.
        check: ``check(args)`` before any part plays: what no single part can check (raise a named error).
        report_figures: ``--plot DIR`` draws the family's report section over the results in ``--out``
            (:func:`benchmarks.report.family_figures`) instead of ``plot``.
        shared_options: the generated command adds the shared options (``--episodes --seed --out --format
            --plot --policy --env --lockstep``, the LLM group of ``llm_policies``); False: ``arguments``
            adds them (with :func:`benchmarks.cli.add_run_options`, spelled and explained its way).
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
    llm_policies: Sequence[str] = ()
    parts: Sequence[Part] = ()
    layouts: Mapping[str, Layout] = field(default_factory=dict)
    layout_help: str | None = None
    jobs: Sequence[Job] = ()
    check: Callable[[argparse.Namespace], None] | None = None
    report_figures: bool = False
    shared_options: bool = True

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
        return [
            EnvCell(self.family_name, env_id, pol, policy_params=fields[pol][0], llm=fields[pol][1])
            for env_id in ids
            for pol in policies
        ]


REGISTRY: dict[str, Benchmark] = {}


def register(benchmark: Benchmark) -> Benchmark:
    """Add ``benchmark`` (replacing one of the same name); returns it."""
    if not benchmark.policies and not any(part.evaluate for part in benchmark.parts):
        raise RunnerError(
            f"benchmark {benchmark.name!r} declares no policies (and no part that evaluates without them)"
        )
    unknown = [p for p in benchmark.llm_policies if p not in benchmark.policies]
    if unknown:
        raise RunnerError(
            f"benchmark {benchmark.name!r}: llm_policies {unknown} are not among its policies "
            f"({', '.join(benchmark.policies)})"
        )
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
