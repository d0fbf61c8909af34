"""``python -m benchmarks persuasion``: 001's tables on the QA env, and the live env's rows.

QA (default)::

    tom-envs persuasion --data-dir DIR --policy random --episodes 3 --format json   # or --repetitions 3

prints one row per question type present (Table 5's column order) with ``qtype`` (the published
file name), ``n`` (questions per repetition), ``accuracy`` (percent, mean over repetitions),
``accuracy_ci`` (95 % half-width), ``accuracy_sd`` (sample standard deviation over repetitions:
the ± the table prints; 001 does not name its statistic), ``chance`` (uniform guessing, percent:
001's Random Guess row as an expectation; also ``expected_accuracy`` on the random rows), the
``protocol``, ``columns_not_in_data`` (Table 5 columns the loaded data cannot fill),
``release_file`` (``verified``: the release's file itself, its record count and sha256 checked;
``sample``: a sample folder's file, not checked; ``differs``: a file under the release's name that is
not the release's, taken with ``--allow-partial``; ``unverified``: one of the four types the release
lists but we could not inspect, format assumed), ``partial`` (True on a ``differs`` row: not the
release's figure; the run's records say so too, and a note on stderr says how the file differs;
without ``--allow-partial`` such a file is a :class:`~tom_envs.release_files.ReleaseMismatch` naming
it, exit status 2), ``release_quirk`` (a known quirk of the release's file, or None), ``repeated_options``
(questions of the loaded data whose options repeat) and ``stages`` (001's Figure 3 layout:
accuracy and share of the errors in the early / middle / late third of each dialogue's question
turns; printed with ``--by-stage``); the persuadee rows add Table 6's ``consistency`` and
``consistency_ci``. Without ``--data-dir`` the bundled sample is used.

``--protocol ours`` (default) shows the options in a new seeded order every pass; ``--protocol
authors`` keeps the published order and, for ``--policy llm``, uses the release's message layout
and answer rule (see :mod:`policies.persuasion.qa_protocol`). Every row and table names its protocol. The texts of
the authors' messages are not shipped: they are read at run time from the release's
``evaluation/evaluate.py`` (:mod:`tom_envs.persuasion.prompts`), found next to ``--data-dir``
(``DIR/evaluation/evaluate.py``, where ``data download persuasion`` puts it, or
``DIR/../evaluation/evaluate.py`` in a clone of the release) or given by ``--authors-prompts
PATH``; without it our own prompts in the same layout are sent. Every row says which in
``prompt_source`` (llm rows: ``release`` -- the release's prompts, comparable with 001's Table 5;
``file`` -- a file in the release's layout with other prompts; ``ours``; None on the rows of
policies that read no prompt) and ``prompt_file``; the table prints it. Policies:
``random``, the trivial baselines ``always-first`` and ``longest-or-keyword``
(:mod:`policies.persuasion.qa_baselines`: the floor the data allows) and ``llm``. A policy sees
each question and its description only (:class:`benchmarks.qa_llm.QuestionView`): no answer, no
feedback. ``--env live`` runs the live persuasion env instead (``--policy random,oracle``, ...),
one row per persuader (``--episodes`` of them, default 300); ``--env both`` prints both lists
(every row has an ``env`` key; there ``--policy`` names the answerers, ``--live-policy`` the persuaders,
``--repetitions`` sets the QA passes and ``--episodes`` the live episodes). Every episode is played by the evaluation runner (:mod:`benchmarks.runner`); the
live env is wrapped in the ToM recorder, which scores the desire and attitude predictions.

An LLM answers the QA questions with ``--policy llm`` (the generic
:class:`~policies.llm.qa.LLMQAAnswerer`)::

    python -m benchmarks persuasion --env qa --policy random,llm --backend vllm --model MODEL_DIR \\
        [--qa-mode zero_shot|cot] [--scoring|--no-scoring] [--fallback raise|random] \\
        [--max-resamples 10] [--max-tokens N] [--max-model-len N] [--lockstep 32] [--out results]
    python -m benchmarks persuasion --policy llm --backend openai --base-url http://127.0.0.1:8000/v1 \\
        --model NAME --qa-mode cot

``zero_shot`` scores the option letters by log-probability by default on ``vllm`` (no sampling)
and asks for a generated ``The answer is X`` on ``openai`` (``--scoring`` scores there too, on
servers that return prompt log-probabilities, such as vLLM's); ``cot`` always generates.
Replies naming no option are re-asked up to ``--max-resamples`` times, then ``--fallback``
raises or picks a uniformly random option. Dialogues with the same number of questions are
answered in lockstep, ``--lockstep`` at a time: one backend call per question position (per
re-ask round) serves all of them. Every answered dialogue is appended at once to a JSONL file
under ``--out/persuasion/`` whose name is keyed by the configuration (model, mode, scoring,
fallback, data, split, question types, seed), so a rerun resumes and recomputes nothing. The llm
rows add ``model``, ``qa_mode``, ``scoring`` and the answerer's counters over all repetitions:
``parse_failures`` (replies naming no option), ``resamples`` (re-asks) and ``fallbacks``
(answers drawn at random after the bound -- not the model's answers), and the run's server retries
(``llm_retries``, ``llm_http_5xx``, ...: :func:`benchmarks.runner.fault_columns`, on each qtype row).

The scripted answerers' dialogues are stored the same way (``--out/persuasion/qa_<policy>_<hash>.jsonl``,
keyed by policy, protocol, data, split, question types and seed), and so are the live episodes
(``live_<persuader>_<hash>.jsonl``: one record per scenario family and seed, keyed by persuader,
horizon, reader and model; see :mod:`benchmarks.persuasion.live`): a rerun reads them back and
recomputes nothing, and ``tom-envs report`` shows them.
"""

from __future__ import annotations

import argparse
from typing import Any, Callable

from benchmarks.cli import Applies, add_run_options, declare_applies
from benchmarks.cli_llm import LLM_OPTIONS
from benchmarks.cli_types import comma_list, positive_int, split_list
from benchmarks.family import Benchmark, Part, register
from benchmarks.family_command import Context, play
from benchmarks.qa_llm import LLM_POLICY, add_qa_llm_options
from benchmarks.persuasion.live import (
    LIVE_ENV,  # noqa: F401  (re-exported)
    LIVE_EPISODES,
    LIVE_POLICIES,
    LLM_PERSUADER,  # noqa: F401  (re-exported)
    PersuasionBenchmarkError,  # noqa: F401  (re-exported)
    add_live_arguments,
    check_env_options,
    format_live_table,  # noqa: F401  (re-exported)
    live_rows,  # noqa: F401  (re-exported)
    play_episode,  # noqa: F401  (re-exported)
    policy_seed,  # noqa: F401  (re-exported)
)
from benchmarks.persuasion.published import PUBLISHED
from benchmarks.persuasion.qa_answers import QA_POLICIES, check_qa_policies
from benchmarks.persuasion.qa_prompts import PROTOCOLS, authors_prompts, llm_run
from benchmarks.persuasion.qa_scoring import QAOptions, qa_rows
from benchmarks.persuasion.qa_table import format_table
from policies.base import BasePolicy
from tom_envs.persuasion import QTYPES

#: The family's name -> factory tables: QA answerers (``qa_answers.QA_POLICIES``; "llm" is the LLM answerer,
#: see :class:`~benchmarks.qa_llm.LLMRun`) and live persuaders (:mod:`benchmarks.persuasion.live`).
POLICIES: dict[str, dict[str, Callable[[], BasePolicy]]] = {"qa": QA_POLICIES, "live": LIVE_POLICIES}
QA_REPETITIONS = 3  # default


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add this command's options to ``parser`` (a sub-parser of ``python -m benchmarks``)."""
    parser.add_argument(
        "--env",
        choices=["qa", "live", "both"],
        default="qa",
        help="qa: PersuasiveToM questions; live: the live persuasion env; both: the two lists",
    )
    add_run_options(
        parser,
        episodes=None,
        policy="random",
        policy_type=comma_list(name="policy name"),
        plot="write the family's report figures (accuracy by dialogue stage, the live plane) over the "
        "results in --out into this folder",
        episodes_help=f"live: episodes per persuader (default {LIVE_EPISODES}); with --env qa and no "
        f"--repetitions: full passes over the dialogues (default {QA_REPETITIONS})",
        seed_help="live episode i uses seed + i; dialogue i of pass r uses seed + r * 1000003 + i",
        policy_help=f"comma-separated; qa (and the questions of --env both): "
        f"{', '.join([*QA_POLICIES, LLM_POLICY])}; live: {', '.join(LIVE_POLICIES)}",
    )
    parser.add_argument("--data-dir", default=None, help="folder with the published files (default: bundled sample)")
    parser.add_argument(
        "--live-policy", type=comma_list(name="persuader"), default="random,oracle", help="persuaders for --env both"
    )
    parser.add_argument(
        "--qtypes",
        type=comma_list(QTYPES, name="question type"),
        default=None,
        help="comma-separated question types (default: all present)",
    )
    parser.add_argument("--split", choices=["all", "dev", "test"], default="all", help="which dialogues")
    parser.add_argument(
        "--allow-partial",
        action="store_true",
        help="qa: use the files present although one of the release's verified files is missing "
        "(by default an error naming them)",
    )
    parser.add_argument(
        "--repetitions",
        type=positive_int,
        default=None,
        help=f"qa: full passes over the dialogues (default {QA_REPETITIONS}; --episodes with --env qa)",
    )
    add_live_arguments(parser)
    parser.add_argument(
        "--protocol",
        choices=PROTOCOLS,
        default="ours",
        help="qa: ours (options reshuffled every pass; our prompt) or authors (the published option "
        "order; for llm the release's message layout, answer rule and re-sampling)",
    )
    parser.add_argument(
        "--authors-prompts",
        default=None,
        metavar="PATH",
        help="--protocol authors, llm: the release's evaluation/evaluate.py to read the prompts from "
        "(default: DIR/evaluation/evaluate.py or DIR/../evaluation/evaluate.py of --data-dir; "
        "none found: our prompts in the same layout, prompt_source 'ours')",
    )
    parser.add_argument(
        "--by-stage",
        action="store_true",
        help="qa: also print 001's Figure 3 layout (accuracy and share of errors by dialogue stage)",
    )
    add_qa_llm_options(parser)
    declare_applies(parser, applicability())
    for action in parser._actions:  # --max-tokens also caps the live LLM persuader's lines
        if action.dest == "max_tokens":
            action.help = f"{action.help[:-1]}; live: the LLM persuader's lines, default 160)"


def _qa_llm(args: argparse.Namespace) -> bool:
    return args.env in ("qa", "both") and LLM_POLICY in split_list(args.policy)


def _live_llm(args: argparse.Namespace) -> bool:
    persuaders = split_list(args.policy if args.env == "live" else args.live_policy)
    return args.env in ("live", "both") and (LLM_PERSUADER in persuaders or args.reader == "llm")


def applicability() -> dict[str, Applies]:
    """When the LLM options act (:class:`benchmarks.cli.Applies`): the backend's with an LLM anywhere (the QA
    answerer, the live persuader, the reader), the QA answerer's own (``--qa-mode``, ``--scoring``) with ``--policy
    llm`` under ``--env qa`` or ``both`` (under ``--env live`` :func:`check_env_options` names them)."""
    anywhere = Applies(
        "without an LLM (--env qa --policy llm; --env live --policy llm or --reader llm; --env both "
        "--policy llm, --live-policy llm or --reader llm)",
        when=lambda args: _qa_llm(args) or _live_llm(args),
    )
    answerer = Applies("without --policy llm", when=lambda args: args.env == "live" or _qa_llm(args))
    return {
        # the LLM group's options but --lockstep (the runner's lockstep, for every policy), and --max-tokens
        **{dest: anywhere for dest in (*LLM_OPTIONS, "max_tokens") if dest != "lockstep"},
        "qa_mode": answerer,
        "scoring": answerer,
    }


def play_qa(args: argparse.Namespace, context: Context) -> tuple[list[dict[str, Any]], dict]:
    """The QA part (``--env qa`` or ``both``): 001's Tables 5/6 rows, one per question type and policy."""
    names = split_list(args.policy)  # with --env both too: --policy answers, --live-policy persuades
    check_qa_policies(names)
    repetitions = args.repetitions or (args.episodes if args.env == "qa" and args.episodes else QA_REPETITIONS)
    prompts = authors_prompts(args.protocol, args.data_dir, getattr(args, "authors_prompts", None))
    llm = llm_run(args, prompts) if LLM_POLICY in names else None
    options = QAOptions(
        args.data_dir,
        None if args.qtypes is None else split_list(args.qtypes),
        args.split,
        args.protocol,
        prompts,
        args.out,
        context.progress,
        getattr(args, "allow_partial", False),
    )
    return qa_rows(names, repetitions, args.seed, options, llm=llm), {}


def play_live(args: argparse.Namespace, context: Context) -> tuple[list[dict[str, Any]], dict]:
    """The live part (``--env live`` or ``both``): one row per persuader."""
    names = split_list(args.policy) if args.env == "live" else split_list(args.live_policy)
    return live_rows(
        names,
        args.episodes or LIVE_EPISODES,
        args.seed,
        args.horizon,
        progress=context.progress,
        args=args,
        out=args.out,
    ), {}


def run(args: argparse.Namespace) -> int:
    """The command's body for a namespace of :func:`add_arguments` (the generated one,
    :func:`benchmarks.family_command.play`); prints the rows and returns the exit status."""
    return play(BENCHMARK, args)


BENCHMARK = register(
    Benchmark(
        name="persuasion",
        family="persuasion",
        description=__doc__,
        help="PersuasiveToM (001) Tables 5/6 on the QA env; --env live for the live persuasion rows",
        policies={
            **{f"qa:{k}": v for k, v in QA_POLICIES.items()},
            **{f"live:{k}": v for k, v in LIVE_POLICIES.items()},
        },
        metrics=("accuracy", "consistency", "success", "regret", "desire_accuracy", "attitude_accuracy"),
        published=PUBLISHED,
        episodes=LIVE_EPISODES,
        arguments=add_arguments,
        shared_options=False,
        check=check_env_options,
        report_figures=True,
        layouts={"table": lambda rows, records, args: format_table(rows, by_stage=getattr(args, "by_stage", False))},
        parts=(
            Part("qa", applies=lambda args: args.env in ("qa", "both"), evaluate=play_qa),
            Part("live", applies=lambda args: args.env in ("live", "both"), evaluate=play_live),
        ),
    )
)
