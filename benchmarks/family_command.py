"""The generated command of a declared benchmark: ``tom-envs NAME`` for every :class:`~benchmarks.family.Benchmark`.

Built-in families and plugins get the same command (there is no other body): :func:`add_arguments`
adds its options, :func:`run_command` runs it under the command line's executor, and :func:`play` is
its body:

1. a :class:`~benchmarks.family.Job` written on the command line (``--counts``, an export) runs instead
   of everything else (two are a named error);
2. the declaration's ``check``;
3. every :class:`~benchmarks.family.Part` that applies, in order: its own ``evaluate`` or its cells
   through the shared runner grid (:func:`evaluate`), all sharing one :class:`Context` (one LLM
   backend, built from the LLM options on first use and closed when the command ends);
4. the rows, joined: ``--format json`` prints them as one JSON list; else the ``--table`` layout
   (``layouts``), the declaration's ``table`` or :func:`format_rows`;
5. ``--plot DIR``: the family's figures (``plot`` over the records, or with ``report_figures`` its
   report section over the results in ``--out``), one ``wrote PATH`` line each.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmarks.cli import add_executor_options, add_run_options, not_applicable, refuse_options
from benchmarks.cli_llm import LLM_FLAGS, LLM_OPTIONS, add_llm_options
from benchmarks.cli_types import MAX_LOCKSTEP, comma_list, count, split_list
from benchmarks.distributed_scope import current_executor
from benchmarks.errors import RunnerError
from benchmarks.family import DECLARED_LLM_OPTIONS, Benchmark, Evaluated, Layout, Part, Row
from benchmarks.results import fault_columns
from benchmarks.runner import Cell, run_cell
from tom_envs.stats import mean_ci95


# ---------------------------------------------------------------------- options
def add_arguments(parser: argparse.ArgumentParser, bench: Benchmark) -> None:
    """The generated command's options: the shared ones (:func:`~benchmarks.cli.add_run_options`),
    ``--env`` and ``--lockstep`` (unless the declaration's ``shared_options`` is False: then its
    ``arguments`` adds them), then the family's ``arguments``, ``--table`` from ``layouts``, the
    executor options and the refusals of the LLM options it does not take."""
    if bench.shared_options:
        policies = list(bench.policies)
        add_run_options(
            parser,
            episodes=bench.episodes,
            policy=bench.default_policy or policies[0],
            plot="write the family's figures into DIR" if bench.plot is not None else None,
            policy_type=comma_list(policies, name="policy"),
            policy_help=f"comma-separated: {', '.join(policies)}",
        )
        parser.add_argument(
            "--env",
            type=comma_list(bench.ids(), name="env id"),
            default=None,
            help="comma-separated registered ids of the family (default: all of them)",
        )
        parser.add_argument(
            "--lockstep",
            type=count(MAX_LOCKSTEP),
            default=1,
            help="episodes stepped at once through the policy's batched forms",
        )
        if bench.llm_policies:
            add_llm_options(
                parser,
                title=f"LLM policies (--policy {', '.join(bench.llm_policies)})",
                lockstep=None,
                only=DECLARED_LLM_OPTIONS,
            )
    if bench.arguments is not None:
        bench.arguments(parser)
    if len(bench.layouts) > 1:
        add_layout_option(parser, bench.layouts, bench.layout_help)
    add_executor_options(parser)
    _refuse_absent_llm_options(parser, bench.name)


def add_layout_option(parser: argparse.ArgumentParser, layouts: Mapping[str, Layout], help: str | None = None) -> None:
    """``--table NAME``: one of ``layouts`` (the first by default). The generated command adds it after the
    family's options; a family's ``arguments`` may add it sooner (where its ``--help`` lists it) with this."""
    if "--table" in parser._option_string_actions:
        return
    parser.add_argument(
        "--table",
        choices=list(layouts),
        default=next(iter(layouts)),
        help=help or f"the text layout of the rows: {', '.join(layouts)}",
    )


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
    absent = {
        f"--{o.replace('_', '-')}": _NO_LLM_OPTION.get(o, "`{name}`'s LLM parts do not read it").format(name=name)
        for o in LLM_OPTIONS
        if f"--{o.replace('_', '-')}" not in flags
    }
    refuse_options(parser, absent)


# ---------------------------------------------------------------------- the body
class Context:
    """What the parts of one command share: the declaration, the command line, the progress setting
    (None: a bar on a terminal; False under ``--format json``), the executor, and one LLM backend."""

    def __init__(self, bench: Benchmark, args: argparse.Namespace) -> None:
        self.bench = bench
        self.args = args
        self.progress: bool | None = None if getattr(args, "format", "table") != "json" else False
        self.executor = current_executor()
        self._backend: Any = None

    def backend(self) -> Any:
        """The command's one LLM backend, built from its LLM options (``--backend --model ...``) on first use
        and closed when the command ends: every LLM part of the command shares it."""
        if self._backend is None:
            from benchmarks.cli_backends import backend_from_args

            self._backend = backend_from_args(self.args)
        return self._backend

    def close(self) -> None:
        backend, self._backend = self._backend, None
        if backend is not None:
            backend.close()


def run_command(bench: Benchmark, args: argparse.Namespace) -> int:
    """The generated command under the command line's executor (``--executor``,
    :func:`benchmarks.distributed.executor_from_args`: with ``ray`` every cell's missing episodes are
    played by Ray workers and written here, the same records as in process)."""
    from benchmarks.distributed import executor_from_args

    with executor_from_args(args):
        return play(bench, args)


def play(bench: Benchmark, args: argparse.Namespace) -> int:
    """The generated command's body (see the module docstring); returns the exit status."""
    written = [job for job in bench.jobs if job.written(args)]
    if len(written) > 1:
        raise RunnerError(
            f"{' and '.join(job.flag for job in written)} are different jobs of this command (each "
            "prints or writes its own output): run one at a time"
        )
    if written:
        return written[0].action(args)
    if bench.check is not None:
        bench.check(args)
    rows, records = play_parts(bench, args)
    if args.format == "json":
        print(json.dumps(rows, indent=2))
    else:
        print(text(bench, rows, records, args))
    for path in figures(bench, records, args):
        if args.format != "json":
            print(f"wrote {path}")
    return 0


def play_parts(bench: Benchmark, args: argparse.Namespace) -> Evaluated:
    """Every part of ``bench`` that applies to ``args``, in order, sharing one :class:`Context`: their rows
    joined and their records by key."""
    context = Context(bench, args)
    rows: list[Row] = []
    records: dict[Any, Any] = {}
    try:
        for part in bench.parts or (Part(bench.name),):
            if part.active(args):
                found, recs = part.evaluate(args, context) if part.evaluate is not None else _grid(part, context)
                rows += found
                records.update(recs)
    finally:
        context.close()
    return rows, records


def _grid(part: Part, context: Context) -> Evaluated:
    """A part's cells through the runner: every (cell, seed) episode, side by side under an executor."""
    bench, args = context.bench, context.args
    if bench.llm_policies and not set(split_list(args.policy)) & set(bench.llm_policies):
        not_applicable(args, DECLARED_LLM_OPTIONS, f"without an LLM policy (--policy {', '.join(bench.llm_policies)})")
    make = part.cells or bench.cells or bench.default_cells
    cells = make(args)
    if context.executor is not None:  # every cell's missing episodes side by side
        context.executor.run(
            cells, list(range(args.seed, args.seed + args.episodes)), Path(args.out), args.lockstep, context.progress
        )
    return evaluate(bench, cells, args.episodes, args.seed, Path(args.out), context.progress, args.lockstep)


def text(bench: Benchmark, rows: Sequence[Row], records: Mapping[Any, Any], args: argparse.Namespace) -> str:
    """The rows as text: the ``--table`` layout (the only one, when ``layouts`` holds one), else the
    declaration's ``table``, else :func:`format_rows`."""
    if bench.layouts:
        name = getattr(args, "table", None) or next(iter(bench.layouts))
        return bench.layouts[name](rows, records, args)
    return (bench.table or format_rows)(rows, bench)


def figures(bench: Benchmark, records: Mapping[Any, Any], args: argparse.Namespace) -> list[Path]:
    """``--plot DIR``: the family's figures (none without ``--plot``)."""
    folder = getattr(args, "plot", None)
    if not folder:
        return []
    if bench.report_figures:
        from benchmarks.report import family_figures

        return family_figures(Path(args.out), bench.family_name, Path(folder))
    return bench.plot(records, Path(folder)) if bench.plot is not None else []


# ---------------------------------------------------------------------- the runner grid
def evaluate(
    bench: Benchmark,
    cells: Sequence[Cell],
    episodes: int,
    seed: int,
    out: Path,
    progress: bool | None = False,
    lockstep: int = 1,
) -> tuple[list[Row], dict[str, list[dict]]]:
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
