"""``python -m benchmarks negotiation``: 002's Table 1 with scripted parties and mediators.

::

    python -m benchmarks negotiation --policy none,blind,generic,social --mode easy,medium,hard \\
        --scenarios all --episodes 5 [--seed 0] [--format json] [--plot DIR] [--out results/] \\
        [--attitudes stated|keyword|llm] [--mi-judge rule-based|llm] \\
        [--backend vllm|openai --model M --base-url URL --fallback raise|random]   # LLM parts

Columns follow Table 1: Easy (accommodating, avoiding), Medium (general), Hard (competing), each
with the chosen mediators; rows are CC (%), TLE (%), RL (turns, not seconds: the scripted runs
have no clock), ME (%) and MI (1-5, from the rule-based judge for scripted runs). Each cell is the
mean over scenarios x runs, with a 95 % CI (002's GPT-4.1 values are printed below the table).
``--policy`` is also spelled ``--mediator`` and ``--episodes`` ``--runs``. The run's settings are a
:class:`~benchmarks.negotiation.settings.NegotiationRun`; each cell is a
:class:`~benchmarks.negotiation.cells.NegotiationCell` run by the evaluation runner
(:func:`benchmarks.runner.run_cell`, episodes by :func:`benchmarks.runner.play_aec`); every finished
episode is appended to a JSONL file under ``--out/negotiation/`` at once (:mod:`benchmarks.results`),
keyed by its cell, scenario and seed, so reruns resume. The env is wrapped as the runner wraps it
(:func:`benchmarks.runner.make_env`: ``wrappers.AECToMRecorder``, then ``wrappers.AECTextObservation``);
the mediator's literal-ToM predictions (its ``predict``) go to the recorder, and each record's
``tom_accuracy`` (share of predicted cells right) and ``tom_predictions`` (cells predicted) are the
recorder's, read after the episode -- nothing of it reaches the mediator.

``--attitudes`` sets where consensus tracking takes the parties' attitudes from: ``stated`` (the
scripted parties' exact stances, default), ``keyword`` (the rule-based extractor reading every
line) or ``llm`` (the LLM attitude extractor on ``--backend/--model`` reading every line). With an
extractor, each row also reports ``extraction_agreement``: the share of lines whose extracted
option on the line's topic equals the stance the party actually took. ``--mi-judge llm`` scores
interventions with the LLM judge instead of the rule-based one. Every LLM part (mediator,
extractor, judge) is reseeded per episode; its decisions, parse failures and random fallbacks
are stored with the episode and summed per row (``llm_decisions``, ``llm_fallbacks``).
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from benchmarks.cli import Applies, add_run_options, declare_applies
from benchmarks.cli_llm import LLM_OPTIONS, add_llm_options, llm_settings
from benchmarks.cli_types import comma_list, positive_int, split_list
from benchmarks.family import Benchmark, Part, register
from benchmarks.family_command import Context, play
from benchmarks.negotiation.cells import (
    LLM_MEDIATORS,
    LOCKSTEP_MEDIATORS,
    POLICIES,
    CellSetup,
    NegotiationCell,
    cell_path,
    episode_record,
    play_episode,
)
from benchmarks.negotiation.parts import (
    PartyTeam,
    format_movement,
    llm_extractor_factory,
    llm_judge_factory,
    llm_mediator_factory,
    llm_party_factory,
    movement,
)
from benchmarks.negotiation.settings import (
    AGREEMENTS,
    ATTITUDES,
    BEHAVIOUR_JUDGES,
    BUDGETS,
    MI_JUDGES,
    PARTIES,
    NegotiationLLM,
    NegotiationRun,
    default_budget,
    scenario_key,
)
from benchmarks.negotiation.table import METRICS, MEDIATOR_ONLY, PUBLISHED, ROWS, format_table, plot, summarise
from benchmarks.runner import run_cell
from policies.negotiation.scripted import MEDIATORS as SCRIPTED_MEDIATORS
from tom_envs.negotiation.case_rules import MAX_EPISODE_WORK
from tom_envs.negotiation.errors import NegotiationConfigError, NegotiationWarning
from tom_envs.negotiation.scenario import BUILTIN_SCENARIOS, DIFFICULTY_MODES, resolve_scenario

#: The LLM options of the parts: the group's but --tokenizer and --scoring-path, which no part takes.
LLM_PART_OPTIONS = tuple(o for o in LLM_OPTIONS if o not in ("tokenizer", "scoring_path"))

#: The options choosing how each part of an episode is played or scored: flag -> (choices, default, help).
PART_OPTIONS: dict[str, tuple[Sequence[str], str | None, str]] = {
    "--metrics": (
        METRICS,
        "release",
        "definitions of CC/TLE/RL/ME: the release's code (ProMediate-Eval scripts/evaluation.py; "
        "default) or the paper's text (002 §3.3); every record holds both",
    ),
    "--mi-judge": (
        MI_JUDGES,
        "rule-based",
        "who scores interventions: the rule-based judge, or the LLM judge on --backend/--model",
    ),
    "--agreement": (
        AGREEMENTS,
        "structural",
        "who scores each pair's agreement on a topic: the structural formula (default) or the LLM "
        "agreement judge on --backend/--model (five 1-5 dimensions, as the release's consensus "
        "pipeline; an agreement on a blocked option is never scored as full consensus)",
    ),
    "--behaviour-judge": (
        BEHAVIOUR_JUDGES,
        None,
        "after each episode, judge every mediator line with the release's behaviour prompts "
        "(scripts/behavior_evaluation.py) on --backend/--model: 'simple' as its script runs, "
        "'all' also its monitoring and planning prompts; rows get monitoring_score, "
        "planning_score, simple_score",
    ),
    "--parties": (
        PARTIES,
        "scripted",
        "who plays the party seats: the env's scripted parties, or LLM parties on "
        "--backend/--model: 'llm' follows the release's loop (memory and saliency, two "
        "thoughts each, motivation with the case's thresholds, turn allocation, nobody twice "
        "in a row; only the speaker's thought is put into words), 'llm-inner-thoughts' has "
        "every party think, score and word a line each turn (all parties decide a turn in "
        "one backend call per stage)",
    ),
    "--budget": (
        BUDGETS,
        None,
        "turns per episode: 'paper' (2 x parties x topics, at least 20; default with scripted "
        "parties) or 'release' (the release's loop: 4 x parties x topics; default with LLM parties)",
    ),
    "--attitudes": (
        ATTITUDES,
        "stated",
        "consensus from the stated stances (exact), or from every line read by the keyword "
        "or the LLM attitude extractor (LLM: needs --backend/--model)",
    ),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add this command's options to ``parser`` (a sub-parser of ``python -m benchmarks``)."""
    add_run_options(
        parser,
        episodes=5,
        episode_aliases=("--runs",),
        episodes_help="runs per scenario and cell (run r uses seed + r)",
        seed_help="run r of every scenario uses seed + r",
        plot="write consensus trajectories per topic (002 Figure 2) into this folder",
    )
    parser.add_argument(
        "--policy",
        "--mediator",
        dest="mediator",
        default="none,blind,generic,social",
        help=f"comma-separated mediators: {', '.join(SCRIPTED_MEDIATORS)}, or the LLM mediators "
        f"{', '.join(LLM_MEDIATORS)}",
    )
    parser.add_argument(
        "--mode", default="easy,medium,hard", help="comma-separated difficulty levels: easy, medium, hard"
    )
    parser.add_argument(
        "--scenarios",
        default="all",
        help="'all' (the released ProMediate cases once downloaded, else our six), 'builtin', "
        f"'release', or comma-separated names ({', '.join(BUILTIN_SCENARIOS)}) or scenario / "
        "ProMediate case file paths (e.g. data/promediate/cases/hmo.json)",
    )
    parser.add_argument(
        "--env",
        default="tom/Negotiation-v1",
        help="the version of the ids played, named by its base id: tom/Negotiation-v1 (default; "
        "the parties act before the mediator in each turn) or tom/Negotiation-v2 (the release's "
        "order: the mediator decides first, the parties only when it passes; the release's "
        "opening line); --mode picks its -Easy/-Medium/-Hard ids",
    )
    for flag, (choices, default, text) in PART_OPTIONS.items():
        parser.add_argument(flag, choices=choices, default=default, help=text)
    parser.add_argument(
        "--max-work",
        type=positive_int,
        default=MAX_EPISODE_WORK,
        help="the bound on an episode's work figure, turns x (parties x topics x (parties + 36) + "
        "turns x seats) (default %(default)s, about 5-7 s of a scripted episode; the released "
        "cases need at most 161,280); a larger case stops the run before any episode with its "
        "figure, and this raises the bound",
    )
    group = add_llm_options(
        parser,
        title="LLM parts (--mediator llm-*; --parties llm; --attitudes llm; --mi-judge llm; "
        "--agreement llm; --behaviour-judge)",
        only=LLM_PART_OPTIONS,
        lockstep=1,  # no part scores
        lockstep_help="episodes of one scenario played together by an LLM mediator (one backend call "
        "per stage for all of them; records equal those of a run one by one)",
        max_model_len_help="vllm: context length (transcripts grow with the turns)",
    )
    group.add_argument(
        "--max-tokens",
        type=positive_int,
        default=None,
        help="the cap on every generated reply of every LLM part (default: each part's own: 256 "
        "tokens, 5000 for the behaviour judge, as the release); a short cap keeps a small model that never stops "
        "from spending minutes per decision",
    )
    declare_applies(
        parser,
        {
            dest: Applies(
                "without an LLM part (--policy llm-*, --parties llm*, --attitudes llm, "
                "--mi-judge llm, --agreement llm or --behaviour-judge)",
                when=uses_llm,
            )
            # the parts' LLM options but --lockstep (the runner's, for every policy), and --max-tokens
            for dest in (*LLM_PART_OPTIONS, "max_tokens")
            if dest != "lockstep"
        },
    )
    for action in parser._actions:  # each LLM part has its own default number of re-asks
        if action.dest == "max_resamples":
            action.default = None
            action.help = (
                "re-asks after an unusable reply, for every LLM part (mediator, parties, judges, extractor; "
                "default: 2, each part's own)"
            )


def _names(text: str, flag: str, item: str, choices: Sequence[str] | None = None) -> list[str]:
    """The items of a comma-separated ``flag``: non-empty, no duplicates, each one of ``choices`` (if given)."""
    try:
        comma_list(choices, name=item)(text)
    except argparse.ArgumentTypeError as exc:
        raise NegotiationConfigError(f"{flag}: {exc}") from None
    return split_list(text)


def scenario_list(text: str) -> list[str]:
    """``--scenarios``: ``all`` (the six released cases when ``data download negotiation`` has put them
    in ``data/promediate/cases`` or ``$TOM_ENVS_PROMEDIATE_CASES``, else our six self-written ones),
    ``builtin`` (ours), ``release`` (the downloaded cases; an error if there are none), or names and
    scenario/ProMediate case file paths. Says on stderr which set ``all`` took."""
    from tom_envs.negotiation.download import DEFAULT_DEST, ENV_VAR, downloaded_cases

    choice = text.strip()
    if choice in ("all", "release"):
        cases = [str(p) for p in downloaded_cases()]
        if cases:
            print(f"scenarios: the {len(cases)} released ProMediate cases in {Path(cases[0]).parent}", file=sys.stderr)
            return cases
        if choice == "release":
            raise NegotiationConfigError(
                f"--scenarios release: no ProMediate cases in {DEFAULT_DEST} (or ${ENV_VAR}); "
                "fetch them with: python -m benchmarks data download negotiation"
            )
        print(
            "scenarios: our six self-written scenarios (run 'python -m benchmarks data download negotiation' "
            "to play the released cases)",
            file=sys.stderr,
        )
        return list(BUILTIN_SCENARIOS)
    if choice == "builtin":
        return list(BUILTIN_SCENARIOS)
    return _names(text, "--scenarios", "scenario")


def play_table1(args: argparse.Namespace, context: Context) -> tuple[list[dict], dict]:
    """Table 1's grid on the command line's choices (LLM parts on the command's one backend)."""
    mediators = _names(args.mediator, "--mediator", "mediator", list(POLICIES))
    levels = _names(args.mode, "--mode", "difficulty level", list(DIFFICULTY_MODES))
    scenarios = scenario_list(args.scenarios)
    if args.episodes < 1:
        raise NegotiationConfigError(f"--runs must be at least 1, got {args.episodes}")
    llm = NegotiationLLM()
    ident = _ident(args)
    if ident:
        llm = NegotiationLLM.on(
            context.backend(), ident, args.fallback, args.parties, args.max_resamples, args.max_tokens
        )
    return evaluate(
        replace(
            _settings(args, llm, levels, mediators),
            scenarios=tuple(scenarios),
            runs=args.episodes,
            seed=args.seed,
            out=Path(args.out),
            progress=context.progress,
        )
    )


def table_text(rows: Sequence[dict], records: Any, args: argparse.Namespace) -> str:
    """Table 1, then the rows' consensus movement and, with LLM parties, how they played."""
    lines = [format_table(rows)]
    moved = format_movement(rows)
    if moved:
        lines.append(moved)
    if args.parties != "scripted":
        loop = (
            "the release's loop: memory, two thoughts each, motivation with the case's thresholds, turn "
            "allocation, nobody twice in a row"
            if args.parties == "llm"
            else "inner thoughts, every party every turn"
        )
        budget = default_budget(args.parties, args.budget)
        lines.append(
            f"Parties: LLM ({loop}) on {args.backend} {args.model}; turns: {budget} budget "
            f"({'4' if budget == 'release' else '2'} x parties x topics)."
        )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """The command's body for a namespace of :func:`add_arguments` (the generated one,
    :func:`benchmarks.family_command.play`); prints the table (or JSON rows) and returns the exit status."""
    return play(BENCHMARK, args)


def _settings(
    args: argparse.Namespace, llm: NegotiationLLM, levels: Sequence[str], mediators: Sequence[str]
) -> NegotiationRun:
    """The command line's grid and part choices (scenarios, runs and seeds left at their defaults)."""
    return NegotiationRun(
        levels=tuple(levels),
        mediators=tuple(mediators),
        metrics=getattr(args, "metrics", "release"),
        parties=args.parties,
        budget=getattr(args, "budget", None),
        attitudes=args.attitudes,
        mi_judge=args.mi_judge,
        llm=llm,
        lockstep=getattr(args, "lockstep", 1),
        agreement=getattr(args, "agreement", "structural"),
        env_version=env_version(getattr(args, "env", None)),
        behaviour_judge=getattr(args, "behaviour_judge", None),
        max_work=getattr(args, "max_work", MAX_EPISODE_WORK),
    )


def env_version(env_id: str | None) -> int:
    """``--env``: the version of a base id of the family (``tom/Negotiation-v2`` -> 2; None -> 1)."""
    import tom_envs

    if env_id is None:
        return 1
    bases = [
        rec.id
        for rec in tom_envs.REGISTRY.values()
        if rec.family == "negotiation" and rec.kind == "aec" and "difficulty" not in rec.kwargs
    ]
    if env_id not in bases:
        hint = (
            " (a level's id: name its base id and pick the level with --mode)"
            if env_id in tom_envs.REGISTRY and tom_envs.REGISTRY[env_id].family == "negotiation"
            else ""
        )
        raise NegotiationConfigError(
            f"--env {env_id!r} is not a base id of the negotiation family{hint}; choose from {', '.join(bases)}"
        )
    return int(env_id.rsplit("-v", 1)[1])


# ---------------------------------------------------------------------- the grid
def evaluate(run: NegotiationRun) -> tuple[list[dict], dict[tuple[str, str], list[dict]]]:
    """Run (or resume) the grid of ``run``; returns Table 1 rows and the records per (conflict mode, mediator).

    Every cell goes through the generic runner (:func:`benchmarks.runner.run_cell`: locked,
    resumable, each episode appended the moment it ends) as a :class:`NegotiationCell` whose
    "seeds" are the (scenario, seed) episodes. LLM mediators come from ``run.llm.mediator``
    (see :func:`llm_mediator_factory`); ``run.llm.ident`` (backend, model, ...) goes into the result
    keys. ``run.attitudes`` ``"keyword"`` or ``"llm"`` has extractors read every party line
    (``extract_from="all"``); LLM parties (``run.parties``) play every party seat as a
    :class:`PartyTeam`. LLM components are reseeded with each episode's seed, and their counters
    (calls, parse failures, fallbacks) are stored in the episode's record. ``run.lockstep`` > 1
    plays up to that many episodes of a scenario together when an LLM mediator sits with scripted
    parties (:func:`benchmarks.runner.play_aec_lockstep`). ``run.metrics`` picks the definitions the
    rows use ("release" or "paper"; each record holds both).
    """
    run.needs_llm()
    _check_lockstep(run)
    scenarios = {scenario_key(name): resolve_scenario(name) for name in run.scenarios}
    parts = run.parts()
    for scenario in scenarios.values():  # a case too large for the bound stops the run before any episode
        parts.check_work(scenario)
    setup = CellSetup(scenarios, parts, run.llm.mediator, run.llm.behaviour)
    rows, records = [], {}
    for cell in grid(run):
        if cell.mediator in LLM_MEDIATORS and run.llm.mediator is None:
            raise NegotiationConfigError(f"mediator {cell.mediator!r} needs an LLM backend (--backend/--model)")
        batched = run.lockstep > 1 and cell.mediator in LOCKSTEP_MEDIATORS and run.parties == "scripted"
        recs = run_cell(
            replace(cell, setup=setup), run.keys(), run.out, run.progress, lockstep=run.lockstep if batched else 1
        )
        records[(cell.conflict_mode, cell.mediator)] = recs
        rows.append(summarise(cell.difficulty, cell.conflict_mode, cell.mediator, recs, run.metrics))
        rows[-1].update(movement(recs))
    return rows, records


def _check_lockstep(run: NegotiationRun) -> None:
    """``--lockstep`` > 1 applies to LLM mediators of :data:`LOCKSTEP_MEDIATORS` with scripted parties only:
    a :class:`NegotiationConfigError` when no cell of the grid can use it, a warning naming the cells that
    play one episode at a time when some can."""
    if run.lockstep <= 1:
        return
    if run.parties != "scripted":
        raise NegotiationConfigError(
            f"--lockstep {run.lockstep}: LLM parties play one episode at a time (their "
            "team keeps per-episode memories); drop --lockstep or use scripted parties"
        )
    alone = [m for m in run.mediators if m not in LOCKSTEP_MEDIATORS]
    if len(alone) == len(run.mediators):
        raise NegotiationConfigError(
            f"--lockstep {run.lockstep} applies to the LLM mediators "
            f"{', '.join(LOCKSTEP_MEDIATORS)} only; none of {', '.join(run.mediators)} is one"
        )
    if alone:
        warnings.warn(
            f"--lockstep {run.lockstep}: the mediators {', '.join(alone)} play one episode at a time "
            f"(lockstep applies to {', '.join(LOCKSTEP_MEDIATORS)})",
            NegotiationWarning,
            stacklevel=3,
        )


def grid(run: NegotiationRun) -> list[NegotiationCell]:
    """Table 1's cells, in its column order: every conflict mode of ``run.levels`` x ``run.mediators`` (cells of
    scenario or case files, e.g. the released ProMediate cases, apart from those of our built-in scenarios)."""
    files = any(name not in BUILTIN_SCENARIOS for name in run.scenarios)
    return [
        NegotiationCell(
            level,
            mode,
            med,
            dict(run.llm.ident) or None,
            run.attitudes,
            run.mi_judge,
            run.parties,
            run.turn_budget,
            run.agreement,
            env_version=run.env_version,
            behaviour_judge=run.behaviour_judge,
            case_files=files,
        )
        for level in run.levels
        for mode in DIFFICULTY_MODES[level]
        for med in run.mediators
    ]


def cells(args: argparse.Namespace) -> list[NegotiationCell]:
    """The cells the command line asks for (the declaration's ``cells``)."""
    return grid(
        replace(
            _settings(
                args,
                NegotiationLLM(_ident(args)),
                _names(args.mode, "--mode", "difficulty level", list(DIFFICULTY_MODES)),
                _names(args.mediator, "--mediator", "mediator", list(POLICIES)),
            ),
            scenarios=tuple(scenario_list(args.scenarios)),
        )
    )


def uses_llm(args: argparse.Namespace) -> bool:
    """Whether an LLM decides, reads or judges anything on this command line (else its LLM options do nothing)."""
    return bool(
        any(m in LLM_MEDIATORS for m in split_list(args.mediator))
        or args.attitudes == "llm"
        or args.mi_judge == "llm"
        or args.parties != "scripted"
        or getattr(args, "agreement", "structural") == "llm"
        or getattr(args, "behaviour_judge", None)
    )


def _ident(args: argparse.Namespace) -> dict[str, Any]:
    """Which LLM decides, reads or judges (none: empty)."""
    if not uses_llm(args):
        return {}
    ident = {**llm_settings(args).identity(), "fallback": args.fallback}  # the one run identity (benchmarks.cli)
    if args.max_resamples is not None:  # keyed only when set: runs with each part's default keep their keys
        ident["max_resamples"] = args.max_resamples
    if getattr(args, "max_tokens", None) is not None:  # likewise
        ident["max_tokens"] = args.max_tokens
    return ident


__all__ = [
    "ATTITUDES",
    "BENCHMARK",
    "BUDGETS",
    "CellSetup",
    "LLM_MEDIATORS",
    "MEDIATOR_ONLY",
    "MI_JUDGES",
    "PARTIES",
    "POLICIES",
    "PUBLISHED",
    "ROWS",
    "NegotiationCell",
    "NegotiationLLM",
    "NegotiationRun",
    "PartyTeam",
    "add_arguments",
    "cell_path",
    "cells",
    "default_budget",
    "episode_record",
    "evaluate",
    "format_table",
    "grid",
    "llm_extractor_factory",
    "llm_judge_factory",
    "llm_mediator_factory",
    "llm_party_factory",
    "play_episode",
    "plot",
    "run",
    "summarise",
]

BENCHMARK = register(
    Benchmark(
        name="negotiation",
        family="negotiation",
        help="002 Table 1: scripted parties with NoAgent / Generic / Social mediators",
        description=__doc__,
        policies=POLICIES,
        default_policy="none",
        metrics=tuple(key for key, _, _ in ROWS),
        published=PUBLISHED,
        episodes=5,
        cells=cells,
        arguments=add_arguments,
        shared_options=False,
        plot=plot,
        layouts={"table1": table_text},
        parts=(Part("table1", evaluate=play_table1),),
    )
)
