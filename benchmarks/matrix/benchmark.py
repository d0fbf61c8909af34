"""``tom-envs matrix``: evaluate policies on (game, partner population) cells of the matrix games.

Every finished episode is appended to a JSONL file under ``--out/matrix/`` as soon as it ends,
keyed by a hash of the cell's configuration and the episode seed, so a rerun of the same command
skips what is already recorded and a killed run loses at most the episode in flight (the runner
and the results files are :mod:`benchmarks.runner` and :mod:`benchmarks.results`).

The command's parts: the cells, rows and scripted grid in :mod:`benchmarks.matrix.cells`, the LLM
strategies' cells in :mod:`benchmarks.matrix.llm_cells`, the tables and figures in
:mod:`benchmarks.matrix.table` (and :mod:`benchmarks.matrix.llm` for 004's other layouts); this
module holds the command's options and its declaration (two parts: the scripted and tabular grid, and
004's LLM strategies on the command's one backend; the ``--table`` layouts), and names the family's public
API in one place. The command itself is the generated one (:mod:`benchmarks.family_command`).
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

from benchmarks.cli import add_run_options, not_applicable
from benchmarks.cli_backends import build_backend
from benchmarks.cli_llm import LLM_OPTIONS, add_llm_options, llm_settings
from benchmarks.cli_types import comma_list, positive_int, split_list
from benchmarks.errors import RunnerError
from benchmarks.family import Benchmark, Part, register
from benchmarks.family_command import Context, add_layout_option
from benchmarks.matrix.cells import (
    COUNTS,
    LLM_POLICY,
    METRICS,
    POLICIES,
    TOM_METRICS,
    Cell,
    Grid,
    RunSettings,
    evaluate,
    evaluate_grid,
    load_records,
    make_cell,
    matrix_env_id,
    partner_mean,
    partner_mean_view,
    run_episode,
    run_lockstep,
    summarise,
)
from benchmarks.matrix.llm import LAYOUTS, format_protocol_table, parse_duration
from benchmarks.matrix.llm_cells import Budget, LLMCell, PromptOptions, evaluate_llm
from benchmarks.matrix.published import PUBLISHED_TABULAR
from benchmarks.matrix.table import ESTIMATORS, format_table, meets_target, plot, tom_regret_close
from benchmarks.results import RESULTS_VERSION, ResultsFileWarning, append_record, read_records
from benchmarks.runner import cell_records, run_cell
from policies.matrix.llm.strategies import SCORING
from tom_envs.matrix.games import DEFAULT_TOM_RESPONSE, LABEL_SETS, TOM_RESPONSES

__all__ = [
    "COUNTS",
    "ESTIMATORS",
    "LLM_POLICY",
    "METRICS",
    "POLICIES",
    "PUBLISHED_TABULAR",
    "RESULTS_VERSION",
    "TOM_METRICS",
    "Budget",
    "Cell",
    "Grid",
    "LLMCell",
    "PromptOptions",
    "ResultsFileWarning",
    "RunSettings",
    "RunnerError",
    "append_record",
    "build_backend",
    "cell_records",
    "evaluate",
    "evaluate_grid",
    "evaluate_llm",
    "format_table",
    "load_records",
    "make_cell",
    "matrix_env_id",
    "meets_target",
    "partner_mean",
    "partner_mean_view",
    "plot",
    "read_records",
    "run_cell",
    "run_episode",
    "run_lockstep",
    "summarise",
    "tom_regret_close",
]


# ---------------------------------------------------------------------- the command
def duration(text: str) -> float:
    """``type=`` for ``--time-budget``: seconds from ``24h``, ``90m``, ``3600s`` or ``3600``."""
    try:
        return parse_duration(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def non_negative_float(text: str) -> float:
    """``type=`` for a finite number >= 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {text}")
    return value


def _is_partner_item(_: str) -> bool:
    return True  # partner names and queries are checked when the env is made (a named error)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``tom-envs matrix``'s options (the shared run options, the grid, the LLM group; the Ray options are
    every benchmark command's, :func:`benchmarks.cli.add_executor_options`)."""
    add_run_options(
        parser,
        episodes=30,
        seed_help="episode i uses seed + i (env, partner draw and policy)",
        plot="write PNGs of regret and ToM accuracy per round into DIR",
        policy="tabular",
        policy_type=comma_list([*POLICIES, LLM_POLICY], name="policy"),
        policy_help=f"comma-separated: {', '.join(POLICIES)}; or {LLM_POLICY} (--strategies, the LLM group)",
    )
    parser.add_argument(
        "--games",
        type=comma_list(name="game"),
        default="RPS,IBS,IPD",
        help="comma-separated matrix games (names or registered ids)",
    )
    parser.add_argument(
        "--partners",
        type=comma_list(name="partner population"),
        default="single_action,tit_for_tat",
        help="comma-separated partner populations (or partner names), one cell each",
    )
    parser.add_argument("--horizon", type=positive_int, default=100, help="rounds per episode")
    llm = add_llm_options(
        parser,
        lockstep=None,
        lockstep_help="episodes stepped at once through batched policy calls (default: 1; all episodes for llm)",
        max_model_len_help="context length: vllm builds its engine with it (default 2048); with "
        "either backend the run is planned against it before it starts",
    )
    llm.add_argument(
        "--strategies",
        type=comma_list(name="strategy"),
        default="lm,qa,cot",
        help="comma-separated prompting strategies of 004 (policies.matrix.llm.STRATEGIES)",
    )
    llm.add_argument("--label-set", choices=LABEL_SETS, default="neutral", help="the action labels the LLM reads")
    llm.add_argument(
        "--temperature",
        type=non_negative_float,
        default=None,
        help="sampling temperature of the generating strategies (default: 0.7)",
    )
    llm.add_argument(
        "--max-tokens",
        type=positive_int,
        default=None,
        help="generation cap of every generating stage; raise it for reasoning models, which the "
        "defaults truncate (default: qa 16, cot/plans/s2a 256, reflect 128)",
    )
    llm.add_argument(
        "--history-window",
        type=positive_int,
        default=None,
        metavar="K",
        help="prompts show only the latest K rounds of history (for short contexts; in the results "
        "and cell keys; default: every round)",
    )
    llm.add_argument(
        "--scoring",
        choices=SCORING,
        default="sum",
        help="LM prompting's label scores: sum of token log-probabilities (004) or mean "
        "(length-normalised by each label's token count, for multi-token labels)",
    )
    proto = parser.add_argument_group("004's protocol (--policy llm)")
    proto.add_argument(
        "--time-budget",
        type=duration,
        default=None,
        metavar="DURATION",
        help="per cell: after --episodes episodes, play further lockstep batches while the cell's "
        "wall time is under DURATION (24h, 90m, 3600s), up to --max-episodes; 004: --time-budget "
        "24h --max-episodes 100 --episodes 30 (default: no budget)",
    )
    proto.add_argument(
        "--max-episodes",
        type=positive_int,
        default=None,
        help="most episodes per cell (default: 100 with --time-budget, else --episodes)",
    )
    add_layout_option(
        parser,
        TABLES,
        help="table4: one line per cell (004 Table 4); table2: strategy x game lines with ΔF/T, ΔToM/T, "
        "ToM %%; table3 / table10: strategy lines x game columns of ΔF/T (table10 by model); "
        "all with model and label-set columns",
    )
    parser.add_argument(
        "--tom-response",
        choices=TOM_RESPONSES,
        default=DEFAULT_TOM_RESPONSE,
        help="the response ΔToM/T charges wrong predictions with in the table and in the rows' "
        "tom_regret_per_step (every row also holds all three; docs/architecture.md)",
    )


def check(args: argparse.Namespace) -> None:
    """``--policy llm`` runs alone: its cells are ``--strategies``, the scripted policies' another grid."""
    policies = split_list(args.policy)
    if LLM_POLICY in policies and policies != [LLM_POLICY]:
        raise RunnerError(
            "--policy llm runs alone (its cells are --strategies); run the scripted policies in another command"
        )


def _llm_asked(args: argparse.Namespace) -> bool:
    return LLM_POLICY in split_list(args.policy)


def _grid(args: argparse.Namespace) -> Grid:
    return Grid(
        split_list(args.games),
        split_list(args.partners),
        split_list(args.policy),
        args.episodes,
        args.seed,
        args.horizon,
    )


def play_tabular(args: argparse.Namespace, context: Context) -> tuple[list[dict], dict]:
    """The scripted and tabular policies' grid (the part without ``--policy llm``): every cell through the
    runner, side by side under ``--executor ray``."""
    not_applicable(
        args,
        [
            *(o for o in LLM_OPTIONS if o != "lockstep"),
            "strategies",
            "label_set",
            "temperature",
            "max_tokens",
            "history_window",
            "scoring",
        ],
        "without --policy llm",
    )
    if args.time_budget is not None or args.max_episodes is not None:
        raise RunnerError(
            "--time-budget and --max-episodes are 004's protocol for --policy llm; the scripted and "
            "tabular policies play --episodes episodes per cell"
        )
    settings = RunSettings(context.progress, args.lockstep or 1, context.executor, args.tom_response)
    return evaluate_grid(_grid(args), Path(args.out), settings)


def play_llm(args: argparse.Namespace, context: Context) -> tuple[list[dict], dict]:
    """004's LLM strategies (``--policy llm``): one cell per strategy, game and partner population, on the
    command's one backend, under 004's protocol (``--time-budget``, ``--max-episodes``)."""
    settings = RunSettings(context.progress, args.lockstep, None, args.tom_response)
    if context.executor is not None:
        _check_llm_on_ray(args)
        settings = replace(settings, progress=False)  # no bars: a cell's round bar cannot go to a worker
    return evaluate_llm(
        replace(_grid(args), policies=split_list(args.strategies)),
        Path(args.out),
        context.backend(),
        llm_settings(args),
        PromptOptions(args.label_set, args.temperature, args.max_tokens, args.history_window, args.scoring),
        Budget(args.time_budget, args.max_episodes),
        settings,
    )


#: The ``--table`` layouts: 004's Table 4 (one line per cell) and its other tables (:mod:`benchmarks.matrix.llm`).
TABLES = {
    name: (
        (lambda rows, records, args: format_table(rows))
        if name == "table4"
        else (lambda rows, records, args, name=name: format_protocol_table(rows, name))
    )
    for name in LAYOUTS
}


def _check_llm_on_ray(args: argparse.Namespace) -> None:
    """What ``--policy llm`` cannot do under ``--executor ray`` yet (each worker plays a cell's lockstep
    batches with its own client of the server; the driver plans the context and writes the records)."""
    if args.time_budget is not None:
        raise RunnerError(
            "--time-budget with --executor ray: the budget is charged with each batch's wall time in "
            "this process, which a Ray worker does not report back yet (drop one of them)"
        )
    if args.backend != "openai":
        raise RunnerError(
            "--policy llm with --executor ray needs --backend openai (each worker a client of the "
            "server): the context is planned here with the backend's tokenizer, which for vllm would "
            "start an engine in this process too (serve the model with vllm serve instead)"
        )


BENCHMARK = register(
    Benchmark(
        name="matrix",
        family="matrix",
        help="evaluate policies on (game, partner population) cells of the matrix games",
        description=__doc__,
        policies={name: (lambda cell, name=name: POLICIES[name](cell.game, cell.horizon)) for name in POLICIES},
        metrics=METRICS,
        published={k: dict(zip(METRICS, v)) for k, v in PUBLISHED_TABULAR.items()},
        arguments=add_arguments,
        shared_options=False,
        check=check,
        layouts=TABLES,
        layout_help=None,
        plot=plot,
        parts=(
            Part("tabular", applies=lambda args: not _llm_asked(args), evaluate=play_tabular),
            Part("llm", applies=_llm_asked, evaluate=play_llm),
        ),
    )
)
