"""``python -m benchmarks common-ground``: score a policy on Common-ToM (seed 003, Table 3 layout).

Examples::

    python -m benchmarks common-ground --policy oracle-beliefs --format json
    python -m benchmarks common-ground --data-dir DIR --policy random,oracle-beliefs --split test
    python -m benchmarks common-ground --data-dir DIR --from-corpus --export OUT_DIR

Without ``--data-dir`` the small sample bundled with tom-envs is used (written by us; its numbers
say nothing about the real benchmark). The env (``tom/CommonToM-v2``) asks each scored question's
whole (sentence, event) group, the unscored fillers among them; every row here counts the scored
(released) questions only (:func:`tom_envs.qa.answered`), and the LLM policies are sent the fillers
too (see docs/common_ground.md). ``--policy`` takes a comma-separated list; the JSON output
is every policy's rows in turn (each row names its ``policy``), with ``order`` (``"all"``, 1, 2,
3), ``n``, ``accuracy`` (percent) and ``partial``. Every file named like one of the release's must hold
its record count and sha256 (:data:`tom_envs.common_ground.data_folder.RELEASE_FILES`), else
:class:`~tom_envs.release_files.ReleaseMismatch` (exit status 2); with ``--allow-partial`` the run goes on,
a note on stderr says what differs, and every row (text: ``[partial]``) and stored record says
``partial`` (so does a split taken without some of its conversations). The text table always ends with
the two floors' lines, ``majority-class`` (the training split's majority answer to everything; 54.1 % on
the release's test split) and ``question-only`` (each certainty's majority answer; 59.6 %). ``--episodes N`` answers every conversation N times
(pass r of conversation i with seed ``seed + r * 1000003 + i``; default 1) and pools the answers.

An LLM answers with ``--policy llm`` (the generic :class:`~policies.llm.qa.LLMQAAnswerer`;
options as in ``python -m benchmarks persuasion``)::

    python -m benchmarks common-ground --policy random,oracle-beliefs,llm --backend vllm --model MODEL_DIR \\
        [--qa-mode zero_shot|cot] [--scoring|--no-scoring] [--fallback raise|random] \\
        [--max-resamples 10] [--max-tokens N] [--max-model-len N] [--lockstep 32] [--out results]
    python -m benchmarks common-ground --policy llm --backend openai --base-url http://127.0.0.1:8000/v1 \\
        --model NAME --qa-mode zero_shot --no-scoring

The options are shown as ``A. No`` / ``B. Yes``. ``zero_shot`` scores the letters by
log-probability by default on ``vllm`` and parses a generated ``The answer is X`` on ``openai``
(or with ``--no-scoring``); ``cot`` always generates. Conversations with the same number of
questions are answered in lockstep (one backend call per question position over up to
``--lockstep`` of them). Every answered conversation is appended at once to a JSONL file under
``--out/common_ground/`` keyed by the configuration (model, mode, scoring, fallback, data,
split, context, annotator, seed), so a rerun resumes and recomputes nothing. The llm rows add
``model``, ``qa_mode``, ``scoring``, ``parse_failures``, ``resamples`` (re-asks) and
``fallbacks`` (answers drawn at random after ``--max-resamples`` -- not the model's answers), and every
model policy's rows the server retries of its run (``llm_retries``, ``llm_http_5xx``, ...:
:func:`benchmarks.results.fault_columns`; each conversation's record holds its own in ``llm_faults``).

Two more model policies (:mod:`benchmarks.common_ground.llm`, same backend options)::

    python -m benchmarks common-ground --data-dir DIR --policy llm-release,llm-beliefs --backend openai \
        --base-url http://127.0.0.1:8000/v1 --model NAME [--prompt-file FILE] [--temperature T]

``llm-release`` is 003's zero-shot protocol: the release's prompt file (``DIR/prompts/gpt-zero-shot``;
the bundled sample has one of ours in the same format), temperature 1.0, one reply per question read
as the authors read it (periods removed, exactly Yes or No; other replies count wrong and are counted
in ``unparsed``). ``llm-beliefs`` is 003's explicit belief representation with the model as belief
predictor: beliefs -> Appendix B common ground rules -> answer rules (greedy by default). Their
rows add ``model``, ``temperature`` (and ``prompt_sha256``, ``unparsed``).

The scripted policies' answered conversations are stored the same way (``--out/common_ground/
scripted_<policy>_<hash>.jsonl``, keyed by policy, data folder, split, context, annotator and seed;
one record per conversation and pass: ``policy``, ``cid``, ``seed``, ``partial``, ``questions``, each
question with its ``gold`` answer and ``correct``), so a rerun
reads them back and ``tom-envs report`` shows their rows.

The scripted ``gold-beliefs-cg-rules`` is the same pipeline on gold beliefs (the upper bound of a
perfect belief predictor; 98.5 % on the release's test split), ``oracle-beliefs`` uses the gold
common ground too (100 %).

Data commands::

    python -m benchmarks common-ground --data-dir DIR --counts            # 003's Tables 2 and 5 (and "partial")
    python -m benchmarks common-ground --data-dir DIR --split train --export-beliefs OUT.jsonl
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from benchmarks.common_ground import llm as common_ground_llm
from benchmarks.cli import Applies, add_run_options, declare_applies
from benchmarks.cli_types import comma_list, output_dir, output_file, split_list
from benchmarks.family import Benchmark, Job, Part, register
from benchmarks.family_command import Context
from benchmarks.family_command import play as play_command
from benchmarks.qa_llm import (
    LLM_POLICY,
    RESULTS_VERSION,
    LLMRun,
    add_qa_llm_options,
    answer_counters,
    data_key,
    make_qa_env,
)
from benchmarks.common_ground.llm import BELIEFS_POLICY, LLM_POLICIES, RELEASE_POLICY
from benchmarks.common_ground.data_jobs import (
    CommonGroundBenchmarkError,
    allow_partial,
    export,
    export_beliefs,
    partial_note,
    print_counts,
)
from benchmarks.common_ground.published import PUBLISHED, PUBLISHED_SETTINGS  # noqa: F401  (the command's tables)
from benchmarks.common_ground.stored import play, play_llm, play_stored
from benchmarks.common_ground.table import format_table, pct
from policies.base import BasePolicy
from policies.common_ground.scripted import (
    MajorityClassPolicy,
    PriorRandomPolicy,
    QuestionOnlyPolicy,
    gold_beliefs_cg_rules,
    oracle_beliefs,
    predicted_beliefs,
)
from tom_envs.common_ground.corpus import TRAIN_CIDS, scan
from tom_envs.common_ground.env import CONTEXT_MODES, load_checked_split, load_split
from tom_envs.common_ground.metrics import accuracy_rows, by_labels, question_key, summarise
from tom_envs.errors import DatasetError, TomEnvsError

ENV = "tom_envs.common_ground.env:CommonToMEnv"
SCRIPTED = ("random", "majority-class", "question-only", "oracle-beliefs", "gold-beliefs-cg-rules", "predicted-beliefs")
POLICIES = (*SCRIPTED, LLM_POLICY, *LLM_POLICIES)
#: Env arguments a policy needs (the gold-label policies read the labels the env exposes only on request).
ENV_KWARGS: dict[str, dict[str, Any]] = {
    "oracle-beliefs": {"expose_labels": True},
    "gold-beliefs-cg-rules": {"expose_labels": True},
}
_REP_STRIDE = 1_000_003  # seeds of pass r: seed + r * stride + conversation index


#: The command's own options in their ``--help`` order (the data read, its jobs, the table): flag -> keywords.
OPTIONS: tuple[tuple[str, dict[str, Any]], ...] = (
    (
        "--data-dir",
        {
            "default": None,
            "help": "folder laid out like the Common-ToM repository's data/ (cg/, questions/); default: bundled sample",
        },
    ),
    (
        "--from-corpus",
        {"action": "store_true", "help": "generate the questions from cg/ instead of reading questions/"},
    ),
    (
        "--export",
        {
            "metavar": "OUT_DIR",
            "type": output_dir,
            "default": None,
            "help": "with --from-corpus: write the generated question files (released format) to OUT_DIR and stop",
        },
    ),
    ("--split", {"choices": ("test", "train", "all"), "default": "test", "help": "which conversations"}),
    (
        "--context",
        {
            "choices": CONTEXT_MODES,
            "default": "window",
            "help": "what the answerer reads: window (5 sentences either side, as 003's results; default), "
            "online (up to the marked sentence) or full",
        },
    ),
    (
        "--counts",
        {
            "action": "store_true",
            "help": "print the data folder's counts in the layout of 003's Table 2 (questions by split and "
            "answer) and Table 5 (by the speakers' labels), beside the published ones, and stop",
        },
    ),
    (
        "--export-beliefs",
        {
            "metavar": "OUT",
            "default": None,
            "type": output_file,
            "help": "write belief-prediction training data of --split to the JSONL file OUT (one line "
            "per event and sentence: context per --context, event, the predictor's prompt and "
            "target, the gold labels) and stop",
        },
    ),
    (
        "--allow-partial",
        {
            "action": "store_true",
            "help": "use a split although some of its conversations' files are missing (by default an "
            "incomplete split is an error naming them)",
        },
    ),
    (
        "--by-labels",
        {
            "action": "store_true",
            "help": "also print each policy's accuracy per combination of the speakers' gold labels (003's "
            "Table 5 keys); --format json rows always carry it as by_labels",
        },
    ),
    ("--annotator", {"default": None, "help": "whose annotation (default: the only one, else Magda)"}),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``common-ground`` options to ``parser``."""
    add_run_options(
        parser,
        episodes=1,
        policy="random",
        policy_type=comma_list(name="policy name"),
        plot="write the family's report figures (accuracy by dialogue stage) over the results in --out "
        "into this folder",
        policy_help=f"comma-separated: {', '.join(POLICIES)}",
        episodes_help="passes over the conversations (pass r of conversation i: seed + r * 1000003 + i)",
        seed_help="conversation i uses seed + i (env and policy)",
    )
    for flag, keywords in OPTIONS:
        parser.add_argument(flag, **keywords)
    add_qa_llm_options(parser)
    common_ground_llm.add_arguments(parser)
    declare_applies(parser, applicability())


def _job(args: argparse.Namespace) -> bool:
    """One of the command's other jobs (--counts, --export, --export-beliefs): they print or write data."""
    return any(job.written(args) for job in BENCHMARK.jobs)


def applicability() -> dict[str, Applies]:
    """When each option acts (:class:`benchmarks.cli.Applies`): the policies' options only with a policy that
    reads them, none of them with --counts / --export / --export-beliefs (which play no policy)."""
    every_llm = (LLM_POLICY, *LLM_POLICIES)
    backend = (
        "backend",
        "model",
        "base_url",
        "tokenizer",
        "max_model_len",
        "scoring_path",
        "engine_arg",
        "timeout",
        "max_retries",
        "retry_budget",
        "max_tokens",
    )

    def llm(*names: str) -> Applies:
        return Applies(f"without --policy {' or '.join(names)}", policies=names)

    return {
        "policy": Applies(
            "with --counts, --export or --export-beliefs (they print or write the data and play no policy)",
            when=lambda args: not _job(args),
        ),
        **{dest: llm(*every_llm) for dest in backend},
        "qa_mode": llm(LLM_POLICY),
        "scoring": llm(LLM_POLICY),
        "fallback": llm(LLM_POLICY, BELIEFS_POLICY),
        "max_resamples": llm(LLM_POLICY, BELIEFS_POLICY),
        "temperature": llm(RELEASE_POLICY, BELIEFS_POLICY),
        "prompt_file": llm(RELEASE_POLICY),
    }


def play_policies(args: argparse.Namespace, context: Context) -> tuple[list[dict], dict[str, dict]]:
    """Every ``--policy`` on ``--split``: the rows (one per order and ``"all"``, policy by policy) and each
    policy's result (:func:`evaluate`) by name; the stderr note of a partial run."""
    names = policy_names(args.policy)
    llm = LLMRun.from_args(args) if LLM_POLICY in names else None
    results = {name: evaluate(args, name, llm) for name in names}
    partial_note(next(iter(results.values()))["release_differences"] if results else [])
    return [row for result in results.values() for row in result["rows"]], results


def table_text(rows: Sequence[dict], results: Mapping[str, dict], args: argparse.Namespace) -> str:
    """003's Table 3 layout of the policies played, then the two floors' lines (:data:`FLOORS`) of those not played."""
    table = format_table(list(results.values()), by_label=getattr(args, "by_labels", False))
    for floor in ("majority-class", "question-only"):
        if floor not in results:
            try:
                table += "\n" + floor_line(args, floor)
            except TomEnvsError as exc:  # e.g. no training split to fit it on: say so, the table stands
                table += f"\n{floor} floor: not computed ({exc})"
    return table


def run(args: argparse.Namespace) -> int:
    """The command's body for a namespace of :func:`add_arguments` (the generated one,
    :func:`benchmarks.family_command.play`) as ``tom-envs`` runs it: returns the exit status (2 with a
    message on bad input or data)."""
    try:
        return play_command(BENCHMARK, args)
    except TomEnvsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


#: The floors every text table shows (unless the policy was played): how each answers a question row.
FLOORS: dict[str, str] = {
    "majority-class": "the training split's majority answer to every question",
    "question-only": "each certainty's majority answer on the training split",
}


def floor_line(args: argparse.Namespace, floor: str = "question-only") -> str:
    """A floor of ``--split`` as one line of the text table (every table shows both, :data:`FLOORS`): their
    answers depend on the question's certainty at most, so they are scored straight from the split's rows
    (the same numbers as ``--policy majority-class`` / ``--policy question-only``)."""
    policy = make_policy(args, floor)
    rows, differences = load_checked_split(
        args.data_dir, args.split, args.from_corpus, args.annotator, allow_partial=allow_partial(args)
    )
    records = []
    for r in (r for rs in rows.values() for r in rs):
        answer = policy.answer if floor == "majority-class" else policy.answers[r.belief_Q]
        records.append({"order": r.order, "gold": int(r.answer == "Yes"), "correct": answer == int(r.answer == "Yes")})
    by_order = {row["order"]: row for row in accuracy_rows(records)}
    return (
        f"{floor} floor ({FLOORS[floor]}; --policy {floor}){' [partial]' if differences else ''}: "
        + " / ".join(f"{pct(by_order[o]['accuracy'])}" for o in ("all", 1, 2, 3))
        + f" % (total / first / second / third), F1 macro {pct(by_order['all']['f1_macro'])}, "
        f"n = {by_order['all']['n']}"
    )


def policy_names(text: str) -> list[str]:
    """The policies of a comma-separated ``--policy`` (non-empty, no duplicates, each known)."""
    try:
        comma_list(POLICIES, name="policy")(text)
    except Exception as exc:  # argparse.ArgumentTypeError
        raise CommonGroundBenchmarkError(f"--policy: {exc}") from None
    return split_list(text)


def _train_rows(args: argparse.Namespace, who: str) -> list | None:
    """The training split's question rows (for a baseline fitted on them), or None with a note when
    the folder has no training split at all (the bundled sample's test-only folders)."""
    try:
        train = load_split(args.data_dir, "train", args.from_corpus, args.annotator, allow_partial=allow_partial(args))
    except DatasetError as exc:
        folder = scan(args.data_dir)
        files = folder.corpus if args.from_corpus else folder.questions
        if any(cid in TRAIN_CIDS for cid, _ in files):
            raise DatasetError(f"the {who} is fitted on the training split, which does not load: {exc}") from None
        print(f"note: no training split to fit the {who} ({exc})", file=sys.stderr)
        return None
    return [r for rows in train.values() for r in rows]


def _random(args: argparse.Namespace) -> BasePolicy:
    """003's random row: answers yes at the training split's yes-rate (0.5 without a training split)."""
    rows = _train_rows(args, "random policy (its yes-rate)")
    return PriorRandomPolicy(0.5) if rows is None else PriorRandomPolicy.from_questions(rows)


def _majority(args: argparse.Namespace) -> BasePolicy:
    """The majority-class floor: the training split's majority answer to every question (without one, the
    release's: No)."""
    rows = _train_rows(args, "majority-class policy")
    return MajorityClassPolicy(0) if rows is None else MajorityClassPolicy.from_questions(rows)


def _question_only(args: argparse.Namespace) -> BasePolicy:
    """The question-only floor: each certainty's majority answer on the training split (without one,
    the release's: CT+ -> No, PS -> Yes, CT- -> No)."""
    rows = _train_rows(args, "question-only policy")
    if rows is None:
        return QuestionOnlyPolicy({"CT+": 0, "PS": 1, "CT-": 0})
    return QuestionOnlyPolicy.from_questions(rows)


#: The family's one name -> factory(args) table of scripted policies.
FACTORIES: dict[str, Callable[[argparse.Namespace], BasePolicy]] = {
    "random": _random,
    "majority-class": _majority,
    "question-only": _question_only,
    "oracle-beliefs": lambda args: oracle_beliefs(),
    "gold-beliefs-cg-rules": lambda args: gold_beliefs_cg_rules(),
    "predicted-beliefs": lambda args: predicted_beliefs(),
}


def make_policy(args: argparse.Namespace, name: str | None = None) -> BasePolicy:
    """The scripted policy ``name`` (default ``args.policy``)."""
    name = name or args.policy
    if name not in FACTORIES:
        raise CommonGroundBenchmarkError(f"{name!r} is not a scripted policy; choose from {', '.join(SCRIPTED)}")
    return FACTORIES[name](args)


def evaluate(args: argparse.Namespace, policy_name: str | None = None, llm: LLMRun | None = None) -> dict[str, Any]:
    """Rows (one per order and ``"all"``) and the consistency analyses of one policy on one split.

    ``policy_name`` defaults to ``args.policy``; ``"llm"`` needs ``llm`` (see
    :meth:`~benchmarks.qa_llm.LLMRun.from_args`), and its rows add the answerer's counters.
    """
    name = policy_name or args.policy
    env = make_qa_env(
        ENV,
        data_dir=args.data_dir,
        split=args.split,
        context=args.context,
        from_corpus=args.from_corpus,
        annotator=args.annotator,
        allow_partial=allow_partial(args),
        **ENV_KWARGS.get(name, {}),
    )
    passes = getattr(args, "episodes", 1) or 1
    seeds = [args.seed + r * _REP_STRIDE for r in range(passes)]
    differences = list(env.unwrapped.release_differences)
    meta = {
        "policy": name,
        "split": args.split,
        "seed": args.seed,
        "conversations": env.cids,
        "context": args.context,
        "partial": bool(differences),
    }
    key = {
        "version": RESULTS_VERSION,
        "benchmark": "common-ground",
        "data_dir": data_key(args.data_dir),
        "split": args.split,
        "context": args.context,
        "from_corpus": bool(args.from_corpus),
        "annotator": args.annotator,
        "seed": args.seed,
    }
    faults: dict[str, int] = {}  # the server retries of a model's run (LLM policies)
    if name in LLM_POLICIES:
        cfg = common_ground_llm.config(args, name)
        records, llm_stats, faults = common_ground_llm.play(env, args, name, seeds, key, cfg)
        hyper = {**{k: v for k, v in cfg.items() if k != "template"}, **llm_stats}
    elif name == LLM_POLICY:
        if llm is None:
            raise CommonGroundBenchmarkError(
                "policy 'llm' needs an LLM backend: pass --model (and --backend/--base-url)"
            )
        records, faults = play_llm(env, llm, seeds, key)
        hyper: dict[str, Any] = dict(llm.config)
    else:
        policy = make_policy(args, name)
        progress = None if getattr(args, "format", "json") != "json" else False
        if getattr(args, "out", None) is None:  # called without a results folder: nothing stored
            records = [q for s in seeds for q in play(env, policy, s, progress)]
        else:
            records = play_stored(env, policy, seeds, Path(args.out), {**key, "policy": name}, progress)
        hyper = getattr(policy, "hyperparameters", {})
    summary = summarise(records)
    rows = [{**row, **meta} for row in summary["rows"]]
    for row in rows:  # a model's retries are its run's (a conversation's requests serve every order): on each row
        row.update(faults)
    if name == LLM_POLICY and llm is not None:
        for row in rows:
            mine = [r for r in records if row["order"] == "all" or r["order"] == row["order"]]
            row.update(llm.row_identity(), **answer_counters(mine))
    if name in LLM_POLICIES:
        for row in rows:
            mine = [r for r in records if row["order"] == "all" or r["order"] == row["order"]]
            row.update(model=hyper["model"], temperature=hyper["temperature"], **common_ground_llm.counters(mine))
            if name == common_ground_llm.RELEASE_POLICY:
                row["prompt_sha256"] = hyper["prompt_sha256"]
                row.update(common_ground_llm.request_row(args, cfg))
    rows[0].update({k: summary[k] for k in ("consistency", "r_first_second", "r_first_third", "propositions")})
    rows[0]["by_labels"] = by_labels(records, labels_of(env))
    answers = [it.answer for ep in env.unwrapped.episodes for it in ep if it.scored]  # the release's questions
    # the random row's expectation (003's Random row is this number); None for the other policies
    rows[0]["expected_accuracy"] = expected_accuracy(float(hyper["p_yes"]), answers) if "p_yes" in hyper else None
    return {
        "rows": rows,
        **{k: v for k, v in summary.items() if k != "rows"},
        "hyperparameters": hyper,
        "release_differences": differences,
    }


def labels_of(env: Any) -> dict[tuple, tuple[str, str, str, str]]:
    """Each scored question's key (:func:`~tom_envs.common_ground.metrics.question_key`) -> its gold labels
    (Bel(A), Bel(B), CG(A), CG(B)): what the per-label table groups by, read by the scorer after the fact."""
    out = {}
    for episode in env.unwrapped.episodes:
        for item in episode:
            if item.scored:
                key = question_key({**item.meta, "chain": item.role})
                out[key] = tuple(str(item.labels[k]) for k in ("belief_A", "belief_B", "cg_A", "cg_B"))
    return out


def expected_accuracy(p_yes: float, answers: Sequence[int]) -> float:
    """The mean accuracy of answering yes with probability ``p_yes`` (003's Random row is this number)."""
    yes = sum(1 for a in answers if a == 1) / len(answers)
    return p_yes * yes + (1.0 - p_yes) * (1.0 - yes)


BENCHMARK = register(
    Benchmark(
        name="common-ground",
        family="common_ground",
        description=__doc__,
        help="Common-ToM (003): score a policy in Table 3's layout, or export generated questions",
        policies=FACTORIES,
        metrics=("accuracy",),
        episodes=1,
        published={name: dict(zip(("all", 1, 2, 3), values)) for name, values in PUBLISHED.items()},
        arguments=add_arguments,
        shared_options=False,
        report_figures=True,
        layouts={"table3": table_text},
        jobs=(Job("--export", export), Job("--counts", print_counts), Job("--export-beliefs", export_beliefs)),
        parts=(Part("policies", evaluate=play_policies),),
    )
)
