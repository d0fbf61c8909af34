"""``python -m benchmarks persuasion``: 001's tables on the QA env, and the live env's rows.

QA (default)::

    tom-envs persuasion --data-dir DIR --policy random --episodes 3 --format json   # or --repetitions 3

prints one row per question type present (Table 5's column order) with ``qtype`` (the published
file name), ``n`` (questions per repetition), ``accuracy`` (percent, mean over repetitions),
``accuracy_ci`` (95 % half-width), ``accuracy_sd`` (sample standard deviation over repetitions:
the ± the table prints; 001 does not name its statistic), ``chance`` (uniform guessing, percent:
001's Random Guess row as an expectation; also ``expected_accuracy`` on the random rows), the
``protocol``, ``columns_not_in_data`` (Table 5 columns the loaded data cannot fill),
``release_file`` (``verified``: the release's file was read and loads;
``unverified``: one of the four types the release lists but we could not inspect, format
assumed), ``release_quirk`` (a known quirk of the release's file, or None), ``repeated_options``
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
(every row has an ``env`` key; there ``--repetitions`` sets the QA passes and ``--episodes`` the
live episodes). Every episode is played by the evaluation runner (:mod:`benchmarks.runner`); the
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
import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from benchmarks.cli import add_run_options
from benchmarks.cli_types import comma_list, positive_int, split_list
from benchmarks.runner import progress_bar
from benchmarks.family import Benchmark, register
from benchmarks.qa_llm import (LLM_POLICY, RESULTS_VERSION, Job, LLMRun, QACell, QAFile, QuestionView,
                               add_qa_llm_options, answer_counters, data_key, make_qa_env, run_qa)
from benchmarks.persuasion.live import (LIVE_ENV, LIVE_EPISODES, LIVE_POLICIES, PersuasionBenchmarkError,  # noqa: F401
                                        add_live_arguments, check_env_options, format_live_table, live_rows,
                                        play_episode, policy_seed)
from benchmarks.persuasion.published import PUBLISHED, PUBLISHED_CONSISTENCY, PUBLISHED_FIGURE3, PUBLISHED_SPREAD
from benchmarks.results import fault_columns
from benchmarks.runner_episodes import EpisodeResult, Step, play
from benchmarks.errors import RunnerError
from tom_envs.persuasion.prompts import OUR_PROMPTS, QAPrompts, find_release_prompts, read_authors_prompts
from policies.base import BasePolicy
from policies.persuasion.scripted import RandomAnswerer
from policies.persuasion.qa_baselines import AlwaysFirst, LongestOrKeyword
from policies.persuasion.qa_protocol import AUTHORS_REQUEST, AuthorsProtocol, authors_system_in_user
from tom_envs.persuasion import QTYPES
from tom_envs.persuasion.data import ANSWER_LETTERS as AUTHORS_LETTERS
from tom_envs.persuasion.data import RELEASE_QUIRKS, RELEASE_UNVERIFIED, RELEASE_VERIFIED, release_status
from tom_envs.persuasion.metrics import Answer, accuracy_table, consistency_table, stage_table
from tom_envs.qa import answered

QA_ENV = "tom_envs.persuasion.qa_env:PersuasiveToMEnv"
#: The family's name -> factory tables: QA answerers ("llm" is the LLM answerer, see
#: :class:`~benchmarks.qa_llm.LLMRun`) and live persuaders (:mod:`benchmarks.persuasion.live`).
QA_POLICIES: dict[str, Callable[[], BasePolicy]] = {"random": RandomAnswerer, "always-first": AlwaysFirst,
                                                    "longest-or-keyword": LongestOrKeyword}
#: How the questions are put: ``ours`` (options reshuffled every pass, our prompt and parser) or
#: ``authors`` (the published option order, the release's message layout and answer rule; the prompt
#: texts read from the release's evaluation script when at hand, else ours: ``prompt_source``).
PROTOCOLS = ("ours", "authors")
PROTOCOL_NOTES = {
    "ours": "options in a new seeded order every pass; llm: our prompt and reply parser",
    "authors": "options in the published order; llm: the release's message layout, answer rule and re-sampling at "
               "T=0.7 (prompt texts: see the llm's prompts line)",
}
#: What the table says about the llm's prompt texts (``prompt_source``).
PROMPT_NOTES = {
    "release": "read from the release's evaluation/evaluate.py ({path}): the authors' prompts, comparable with 001's "
               "Table 5",
    "file": "read from {path}, a script in the release's layout whose prompts are not the release's: not comparable "
            "with 001's Table 5",
    "ours": "our prompts (no release evaluation/evaluate.py next to --data-dir and no --authors-prompts; fetch it "
            "with tom-envs data download persuasion): not the authors' wording, not comparable word for word with "
            "001's Table 5",
}
POLICIES: dict[str, dict[str, Callable[[], BasePolicy]]] = {"qa": QA_POLICIES, "live": LIVE_POLICIES}
QA_REPETITIONS = 3  # default
_REP_STRIDE = 1_000_003  # seeds of repetition r: seed + r * stride + dialogue index


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add this command's options to ``parser`` (a sub-parser of ``python -m benchmarks``)."""
    parser.add_argument("--env", choices=["qa", "live", "both"], default="qa",
                        help="qa: PersuasiveToM questions; live: the live persuasion env; both: the two lists")
    add_run_options(parser, episodes=None, policy="random", policy_type=comma_list(name="policy name"),
                    plot="write the family's report figures (accuracy by dialogue stage, the live plane) over the "
                         "results in --out into this folder",
                    episodes_help=f"live: episodes per persuader (default {LIVE_EPISODES}); with --env qa and no "
                                  f"--repetitions: full passes over the dialogues (default {QA_REPETITIONS})",
                    seed_help="live episode i uses seed + i; dialogue i of pass r uses seed + r * 1000003 + i",
                    policy_help=f"comma-separated; qa: {', '.join([*QA_POLICIES, LLM_POLICY])}; "
                                f"live: {', '.join(LIVE_POLICIES)}")
    parser.add_argument("--data-dir", default=None, help="folder with the published files (default: bundled sample)")
    parser.add_argument("--live-policy", type=comma_list(name="persuader"), default="random,oracle",
                        help="persuaders for --env both")
    parser.add_argument("--qtypes", type=comma_list(QTYPES, name="question type"), default=None,
                        help="comma-separated question types (default: all present)")
    parser.add_argument("--split", choices=["all", "dev", "test"], default="all", help="which dialogues")
    parser.add_argument("--allow-partial", action="store_true",
                        help="qa: use the files present although one of the release's verified files is missing "
                             "(by default an error naming them)")
    parser.add_argument("--repetitions", type=positive_int, default=None,
                        help=f"qa: full passes over the dialogues (default {QA_REPETITIONS}; --episodes with --env qa)")
    add_live_arguments(parser)
    parser.add_argument("--protocol", choices=PROTOCOLS, default="ours",
                        help="qa: ours (options reshuffled every pass; our prompt) or authors (the published option "
                             "order; for llm the release's message layout, answer rule and re-sampling)")
    parser.add_argument("--authors-prompts", default=None, metavar="PATH",
                        help="--protocol authors, llm: the release's evaluation/evaluate.py to read the prompts from "
                             "(default: DIR/evaluation/evaluate.py or DIR/../evaluation/evaluate.py of --data-dir; "
                             "none found: our prompts in the same layout, prompt_source 'ours')")
    parser.add_argument("--by-stage", action="store_true",
                        help="qa: also print 001's Figure 3 layout (accuracy and share of errors by dialogue stage)")
    add_qa_llm_options(parser)


def run(args: argparse.Namespace) -> int:
    """Run the command; prints the rows and returns the exit status."""
    rows: list[dict[str, Any]] = []
    progress = None if args.format != "json" else False
    check_env_options(args)
    if args.env in ("qa", "both"):
        names = split_list(args.policy) if args.env == "qa" else ["random"]
        _check_qa_policies(names)
        repetitions = args.repetitions or (args.episodes if args.env == "qa" and args.episodes else QA_REPETITIONS)
        prompts = authors_prompts(args.protocol, args.data_dir, getattr(args, "authors_prompts", None))
        llm = llm_run(args, prompts) if LLM_POLICY in names else None
        options = QAOptions(args.data_dir, None if args.qtypes is None else split_list(args.qtypes), args.split,
                            args.protocol, prompts, args.out, progress, getattr(args, "allow_partial", False))
        rows += qa_rows(names, repetitions, args.seed, options, llm=llm)
    if args.env in ("live", "both"):
        names = split_list(args.policy) if args.env == "live" else split_list(args.live_policy)
        rows += live_rows(names, args.episodes or LIVE_EPISODES, args.seed, args.horizon, progress=progress, args=args,
                          out=args.out)
    print(json.dumps(rows, indent=2) if args.format == "json" else format_table(rows, by_stage=args.by_stage))
    if getattr(args, "plot", None):
        from benchmarks.report import family_figures

        for path in family_figures(Path(args.out), "persuasion", Path(args.plot)):
            if args.format != "json":
                print(f"wrote {path}")
    return 0


# ---------------------------------------------------------------------- QA
def authors_prompts(protocol: str, data_dir: str | None, path: str | None = None) -> QAPrompts:
    """The prompt texts of ``--protocol authors``: read from ``path``, else from the release's
    script next to ``data_dir`` (:func:`~tom_envs.persuasion.prompts.find_release_prompts`), else
    ours. ``protocol == "ours"`` takes no ``path`` (its prompts are ours).

    Raises:
        PersuasionBenchmarkError: a ``path`` with ``protocol == "ours"``.
        PromptFileError: the file given or found is not readable as the release's script.
    """
    if protocol != "authors":
        if path is not None:
            raise PersuasionBenchmarkError("--authors-prompts applies to --protocol authors (our protocol uses our "
                                           "prompt); add --protocol authors or drop --authors-prompts")
        return OUR_PROMPTS
    found = path if path is not None else find_release_prompts(data_dir)
    return OUR_PROMPTS if found is None else read_authors_prompts(found)


def llm_run(args: argparse.Namespace, prompts: QAPrompts) -> LLMRun:
    """The ``llm`` policy's run under ``--protocol``: the generic run of the LLM options
    (:meth:`LLMRun.from_args`) with the protocol in its identity (``protocol``, ``system_in_user``)
    and, under ``authors``, the protocol itself and its prompt texts (:func:`with_prompts`).

    Raises:
        RunnerError: bad LLM options, or ``--scoring`` with ``--protocol authors``.
    """
    llm = LLMRun.from_args(args)
    authors = args.protocol == "authors"
    if authors and args.scoring:
        raise RunnerError("--protocol authors generates replies as the release does (sampled at T=0.7); "
                          "drop --scoring, or use --protocol ours")
    config = {**llm.config, "protocol": args.protocol,
              "system_in_user": authors and authors_system_in_user(str(args.model))}
    if authors:
        config["scoring"] = False  # the release generates every reply
    return with_prompts(dataclasses.replace(llm, config=config), prompts)


def with_prompts(llm: LLMRun, prompts: QAPrompts) -> LLMRun:
    """``llm`` sending ``prompts`` under the authors' protocol (:class:`AuthorsProtocol`); the texts'
    source and digest join the run's identity (so answers under different prompts never share a
    results file)."""
    if llm.config.get("protocol") != "authors":
        return llm
    config = {**llm.config, "prompt_source": prompts.source, "prompt_digest": prompts.digest()[:16],
              "authors_prompts": {**prompts.texts(), "source": prompts.source}}
    return dataclasses.replace(llm, config=config,
                               protocol=AuthorsProtocol(prompts, bool(config.get("system_in_user", False))))


def _step(step: Step) -> tuple[dict, int]:
    return step.next_info, int(step.observation["n_choices"])


def _answers(steps: list[tuple[dict, int]]) -> list[Answer]:
    """The answers of one finished dialogue, from its steps (:func:`_step`), once known after the fact."""
    return [Answer(info["qtype"], info["episode_id"], bool(info["correct"]), n, int(info["turn"]))
            for info, (_, n) in zip(answered([i for i, _ in steps]), steps)]


def answer_dialogues(env: Any, policy: BasePolicy, repetitions: int, seed: int,
                     progress: bool | None = False) -> list[list[Answer]]:
    """Every dialogue of ``env`` answered ``repetitions`` times (new choice order and policy seed each),
    one dialogue after the other by the runner (the scripted policies; the LLM uses :func:`llm_answers`)."""
    if repetitions < 1:
        raise PersuasionBenchmarkError(f"--repetitions must be at least 1, got {repetitions}")
    n = len(env.unwrapped.episodes)
    bar = progress_bar(repetitions * n, f"qa {getattr(policy, 'name', type(policy).__name__)}", progress)
    policy = QuestionView(policy)  # the question and its description only: no answer, no feedback
    reps = []
    for r in range(repetitions):
        answers = []
        for i in range(n):
            answers += _answers(play(env, policy, seed + r * _REP_STRIDE + i, options={"episode": i},
                                     policy_seed=policy_seed, on_step=_step).steps)
            bar.update(1)
        reps.append(answers)
    bar.close()
    return reps


def _qa_key(base: Any, seed: int) -> dict[str, Any]:
    """What keys a results file of the QA env ``base`` (its data, split and question types) and ``seed``."""
    return {"version": RESULTS_VERSION, "benchmark": "persuasion-qa", "data_dir": data_key(base.data_dir),
            "split": base.split, "qtypes": sorted({it.qtype for ep in base.episodes for it in ep}), "seed": seed}


def _jobs(base: Any, repetitions: int, seed: int) -> dict[Job, dict]:
    """Dialogue ``i`` of repetition ``r`` as a job ``(dialogue id, seed + r * stride + i)`` -> its reset options."""
    ids = [str(ep[0].episode_id) for ep in base.episodes]
    return {(ids[i], seed + r * _REP_STRIDE + i): {"episode": i} for r in range(repetitions) for i in range(len(ids))}


def _dialogue(rec: dict) -> str:
    """A QA record's episode key."""
    return str(rec["dialogue"])


def _check_answers(rec: dict) -> Any:
    """Raises on a QA record without its answers."""
    return [(a["qtype"], a["correct"], a["n_choices"]) for a in rec["answers"]]


def _repetitions(found: dict[Job, dict], jobs: dict[Job, dict], repetitions: int) -> list[list[Answer]]:
    """The answers per repetition (as :func:`answer_dialogues`), from the records by job."""
    order = list(jobs)
    n = len(order) // repetitions
    return [[Answer(a["qtype"], rec["dialogue"], a["correct"], a["n_choices"], a["turn"])
             for rec in (found[job] for job in order[r * n:(r + 1) * n]) for a in rec["answers"]]
            for r in range(repetitions)]


def stored_answers(env: Any, name: str, repetitions: int, seed: int, out: Path, protocol: str = "ours",
                   progress: bool | None = False) -> list[list[Answer]]:
    """:func:`answer_dialogues` for the scripted policy ``name``, resumable: every answered dialogue
    (dialogue ``i`` of repetition ``r``, seed ``seed + r * stride + i``, as there) is appended at once
    to a results file under ``out / "persuasion"`` keyed by the policy, protocol, data, split, question
    types and seed, and read back instead of replayed on a rerun (the runner's
    :func:`~benchmarks.runner.run_cell`, through :func:`benchmarks.qa_llm.run_qa`)."""
    if repetitions < 1:
        raise PersuasionBenchmarkError(f"--repetitions must be at least 1, got {repetitions}")
    base = env.unwrapped
    jobs = _jobs(base, repetitions, seed)

    def to_record(job: Job, result: EpisodeResult) -> dict[str, Any]:
        (dialogue, s), i = job, jobs[job]["episode"]
        return {"version": RESULTS_VERSION, "policy": name, "protocol": protocol, "dialogue": dialogue,
                "repetition": (s - seed - i) // _REP_STRIDE, "seed": s,
                "answers": [{"qtype": a.qtype, "turn": a.turn, "correct": a.correct, "n_choices": a.n_choices}
                            for a in _answers(result.steps)]}

    file = QAFile("persuasion", f"qa_{name.replace('-', '_')}", {**_qa_key(base, seed), "policy": name,
                                                                 "protocol": protocol}, _dialogue, _check_answers)
    # the question and its description only: no answer, no feedback
    cell = QACell(file, env, jobs, to_record, policy=lambda: QuestionView(QA_POLICIES[name]()), on_step=_step,
                  policy_seed=policy_seed)
    return _repetitions(run_qa(cell, out, progress=progress), jobs, repetitions)


def _check_qa_policies(names: Sequence[str]) -> None:
    known = [*QA_POLICIES, LLM_POLICY]
    bad = [n for n in names if n not in known]
    if bad:
        raise PersuasionBenchmarkError(f"unknown QA policy {bad[0]!r}; choose from {', '.join(known)}")


@dataclass(frozen=True)
class QAOptions:
    """How :func:`qa_rows` puts the questions and keeps the answers (``--data-dir``, ``--qtypes``,
    ``--split``, ``--protocol``, ``--authors-prompts``, ``--out``).

    Attributes:
        data_dir: the folder with the published files (None: the bundled sample).
        qtypes: the question types to ask (None: all present).
        split: ``"all"``, ``"dev"`` or ``"test"``.
        protocol: ``"ours"`` (options reshuffled every pass) or ``"authors"`` (the published order;
            the LLM run must have been built for it).
        prompts: the llm's authors' prompts, named in the rows' ``prompt_file`` (:func:`with_prompts`
            put their texts into the LLM run).
        out: the results folder; with it the scripted policies' answered dialogues are recorded under
            ``out / "persuasion"`` too (:func:`stored_answers`, resumable); without it they are only computed.
        progress: a bar over the dialogues (None: on a terminal).
        allow_partial: without ``qtypes``, use the files present although a verified file of the
            release is missing (``--allow-partial``).

    Raises:
        PersuasionBenchmarkError: an unknown ``protocol``.
    """

    data_dir: str | None = None
    qtypes: Sequence[str] | None = None
    split: str = "all"
    protocol: str = "ours"
    prompts: QAPrompts | None = None
    out: str | Path | None = None
    progress: bool | None = False
    allow_partial: bool = False

    def __post_init__(self) -> None:
        if self.protocol not in PROTOCOLS:
            raise PersuasionBenchmarkError(f"unknown protocol {self.protocol!r}; choose from {', '.join(PROTOCOLS)}")


def qa_rows(policies: Sequence[str], repetitions: int, seed: int, options: QAOptions = QAOptions(),
            llm: LLMRun | None = None) -> list[dict[str, Any]]:
    """Table 5 rows (plus Table 6 consistency on the persuadee rows) per policy, the questions put as
    ``options`` say (:class:`QAOptions`).

    ``llm`` runs the ``"llm"`` policy (see :class:`LLMRun`); its rows also carry the answerer's
    counters and its answers are recorded under ``llm.out / "persuasion"`` (resumable).
    """
    _check_qa_policies(policies)
    protocol, prompts, out = options.protocol, options.prompts, options.out
    if LLM_POLICY in policies and llm is None:
        raise PersuasionBenchmarkError("policy 'llm' needs an LLM backend: pass --model (and --backend/--base-url)")
    if llm is not None and llm.config.get("protocol", "ours") != protocol:
        raise PersuasionBenchmarkError(f"the LLM run was built for protocol {llm.config.get('protocol', 'ours')!r}, "
                                       f"the questions are put under {protocol!r}; build both from the same --protocol")
    if repetitions < 1:
        raise PersuasionBenchmarkError(f"--repetitions must be at least 1, got {repetitions}")
    env = make_qa_env(QA_ENV, data_dir=options.data_dir, qtypes=options.qtypes, split=options.split,
                      shuffle_choices=protocol == "ours", allow_partial=options.allow_partial,
                      option_slots=len(AUTHORS_LETTERS) if protocol == "authors" else None)
    repeated = getattr(env, "repeated_options", {})
    loaded = {it.qtype for ep in env.episodes for it in ep}
    absent = [q for q in QTYPES if q not in loaded]  # Table 5 columns this data cannot fill
    rows = []
    for name in policies:
        counters: dict[str, dict[str, Any]] = {}
        if name == LLM_POLICY and llm is not None:  # (llm is not None: checked above)
            reps, counters = llm_answers(env, llm, repetitions, seed)
        elif out is not None:
            reps = stored_answers(env, name, repetitions, seed, Path(out), protocol, options.progress)
        else:
            reps = answer_dialogues(env, QA_POLICIES[name](), repetitions, seed, options.progress)
        consistency = {r["qtype"]: r for r in consistency_table(reps)}
        stages: dict[str, list[dict[str, Any]]] = {}
        for r in stage_table(reps):
            stages.setdefault(r["qtype"], []).append({k: v for k, v in r.items() if k != "qtype"})
        for row in accuracy_table(reps):
            q = row["qtype"]
            extra = consistency.get(q)
            if extra is not None:
                row.update(consistency=extra["consistency"], consistency_ci=extra["consistency_ci"],
                           consistency_sd=extra["consistency_sd"])
            rows.append({"env": "qa", "policy": name, "protocol": protocol, **row, "columns_not_in_data": absent,
                         "expected_accuracy": row["chance"] if name == "random" else None,
                         "release_file": release_status(q), "release_quirk": RELEASE_QUIRKS.get(q),
                         "repeated_options": repeated.get(q, 0), "stages": stages.get(q, []),
                         **_prompt_columns(name, llm, prompts),
                         **counters.get(q, {})})
    return rows


def _prompt_columns(policy: str, llm: LLMRun | None, prompts: QAPrompts | None) -> dict[str, Any]:
    """``prompt_source`` / ``prompt_file`` of a row: None for the policies that read no prompt."""
    if policy != LLM_POLICY or llm is None:
        return {"prompt_source": None, "prompt_file": None}
    source = llm.config.get("prompt_source", "ours")
    return {"prompt_source": source, "prompt_file": prompts.path if prompts is not None and source != "ours" else None}


def llm_answers(env: Any, llm: LLMRun, repetitions: int, seed: int,
                ) -> tuple[list[list[Answer]], dict[str, dict[str, Any]]]:
    """The LLM's answers per repetition (as :func:`answer_dialogues`), and per question type the
    run's identity and counters (``parse_failures``, ``resamples``, ``fallbacks``).

    Dialogue ``i`` of repetition ``r`` uses seed ``seed + r * stride + i``, as the scripted
    policies do. Finished dialogues are read back from the results file; only the others are
    answered (:meth:`benchmarks.qa_llm.LLMRun.run`), and each is appended to the file as soon as it is done.
    """
    base = env.unwrapped
    key = _qa_key(base, seed)
    qtypes = key["qtypes"]
    jobs = _jobs(base, repetitions, seed)

    def to_record(job: Job, result: EpisodeResult) -> dict[str, Any]:
        (dialogue, s), i = job, jobs[job]["episode"]
        steps = result.steps
        infos = answered([st["info"] for st in steps])
        answers = [{"qtype": info["qtype"], "turn": int(info["turn"]),
                    "chosen": int(info["chosen"]), "correct": bool(info["correct"]),
                    "invalid": bool(info["invalid"]), "n_choices": st["n_choices"],
                    "parse_failures": st["parse_failures"], "fallback": st["fallback"],
                    "parse_rule": st["parse_rule"]} for info, st in zip(infos, steps)]
        return {"version": RESULTS_VERSION, "dialogue": dialogue, "repetition": (s - seed - i) // _REP_STRIDE,
                "seed": s, "answers": answers, "llm_stats": result.policy_stats or {}}

    found = llm.run(llm.file("persuasion", "qa_llm", key, _dialogue, _check_answers), base, jobs, to_record)
    reps = _repetitions(found, jobs, repetitions)
    faults = fault_columns([found[job] for job in jobs])
    answers = [a for job in jobs for a in found[job]["answers"]]
    counters = {}
    for q in qtypes:
        mine = [a for a in answers if a["qtype"] == q]
        rules: dict[str, int] = {}
        for a in mine:
            rule = "fallback" if a["fallback"] else str(a.get("parse_rule"))
            rules[rule] = rules.get(rule, 0) + 1
        counters[q] = {**llm.row_identity(), **answer_counters(mine), "parse_rules": rules,
                       "invalid_answers": sum(bool(a.get("invalid")) for a in mine), **_request_row(llm), **faults}
    return reps, counters


def _request_row(llm: LLMRun) -> dict[str, Any]:
    """Under ``--protocol authors``: the request parameters sent (``request``), those the command line set
    (``set_by_user``) and those sent beyond the release's requests (``beyond_authors``: any value the
    user changed). No seed is sent, as in the release's requests (an in-process engine, to which nothing
    is sent, still samples with per-question seeds so that a run repeats)."""
    if llm.config.get("protocol") != "authors":
        return {}
    user = llm.config.get("max_tokens")
    request = {"temperature": AUTHORS_REQUEST["temperature"], "max_tokens": user or AUTHORS_REQUEST["max_tokens"]}
    return {"request": request, "set_by_user": ["max_tokens"] if user is not None else [],
            "beyond_authors": [k for k, v in request.items() if AUTHORS_REQUEST.get(k) != v]}


# ---------------------------------------------------------------------- output
def _consistency(row: dict[str, Any]) -> str:
    if "consistency" not in row:
        return ""
    return _fmt(row["consistency"], row.get("consistency_sd", row.get("consistency_ci")))


def _qa_table(qa: Sequence[dict[str, Any]], by_stage: bool) -> list[str]:
    width = max(8, *(len(r["policy"]) for r in qa))
    head = (f"{'policy':<{width}} {'protocol':<8} {'qtype':<12} {'n':>5} {'accuracy % ± sd':>16} {'chance %':>9} "
            f"{'consistency %':>16}")
    out = [head, "-" * len(head)]
    star = {True: "*", False: ""}
    out += [f"{r['policy']:<{width}} {r.get('protocol', 'ours'):<8} "
            f"{r['qtype'] + star[r.get('release_file') == 'unverified']:<12} "
            f"{r['n']:>5} {_fmt(r['accuracy'], r.get('accuracy_sd', r['accuracy_ci'])):>16} {r['chance']:>9.2f} "
            f"{_consistency(r):>16}" for r in qa]
    reps = sorted({r["repetitions"] for r in qa})
    out.append(f"± is the sample standard deviation over {'/'.join(map(str, reps))} repetition(s) (001 does not name "
               "its statistic; the 95 % CI half-widths are accuracy_ci and consistency_ci in --format json). chance: "
               "001's Random Guess as an expectation (mean of 1 / options).")
    for protocol in dict.fromkeys(r.get("protocol", "ours") for r in qa):
        out.append(f"protocol {protocol}: {PROTOCOL_NOTES[protocol]}")
    llm = [r for r in qa if "fallbacks" in r]
    for name in dict.fromkeys(r["policy"] for r in llm):
        mine = [r for r in llm if r["policy"] == name]
        first = mine[0]
        rules: dict[str, int] = {}
        for r in mine:
            for rule, count in r.get("parse_rules", {}).items():
                rules[rule] = rules.get(rule, 0) + count
        out.append(f"{name} ({first['model']}, {first['qa_mode']}{', scored' if first['scoring'] else ''}, protocol "
                   f"{first.get('protocol', 'ours')}): {sum(r['fallbacks'] for r in mine)} random fallbacks and "
                   f"{sum(r['resamples'] for r in mine)} re-asks over {sum(r['n'] * r['repetitions'] for r in mine)} "
                   f"answers; answers read by rule: {', '.join(f'{k} {v}' for k, v in sorted(rules.items()))}")
        if first.get("protocol") == "authors":
            if first.get("request"):
                out.append(f"{name} request: {first['request']}; set on the command line: "
                           f"{', '.join(first['set_by_user']) or 'none'}; beyond the release's requests: "
                           f"{', '.join(first['beyond_authors']) or 'none'}")
            source = first.get("prompt_source") or "ours"
            out.append(f"{name} prompts: {source} -- " + PROMPT_NOTES[source].format(path=first.get("prompt_file")))
    present = list(dict.fromkeys(r["qtype"] for r in qa))
    absent = [q for q in QTYPES if q not in present]
    unverified = [q for q in present if q in RELEASE_UNVERIFIED]
    out.append(f"Table 5 columns filled: {', '.join(present)}"
               + (f"; not in this data: {', '.join(absent)}" if absent else "")
               + (f". * {', '.join(unverified)}: the release lists these files but they were not verified here "
                  "(format assumed; see docs/persuasion_qa.md)" if unverified else "")
               + f". The release's verified files: {', '.join(RELEASE_VERIFIED)}.")
    for q in present:
        if RELEASE_QUIRKS.get(q):
            out.append(f"quirk of the release, {q}: {RELEASE_QUIRKS[q]}")
    out += reference_lines(present, width)
    if by_stage:
        out += ["", f"{'policy':<{width}} {'qtype':<12} {'stage':<7} {'n':>6} {'accuracy %':>10} {'errors %':>9}"]
        out += [f"{r['policy']:<{width}} {r['qtype']:<12} {s['stage']:<7} {s['n']:>6} {s['accuracy']:>10.2f} "
                f"{'n/a' if s['error_share'] is None else format(s['error_share'], '.2f'):>9}"
                for r in qa for s in r.get("stages", [])]
        out.append("001 Figure 3 layout: stage = early / middle / late third of the dialogue's question turns (from "
                   "the stored turn); errors % = share of the type's wrong answers in that stage.")
        out += [f"001 Figure 3, {q} (the figure prints no values; the paper's text says): {PUBLISHED_FIGURE3[q]}"
                for q in present if q in PUBLISHED_FIGURE3]
    return out


def reference_lines(present: Sequence[str], width: int = 8) -> list[str]:
    """001's Table 5 (every row, accuracy ± as printed) and Table 6 (every row) for the question types
    ``present``, in the paper's row order."""
    w = max(width, *(len(name) for name in PUBLISHED))
    out = ["", f"001 Table 5 (published accuracy %, ± as printed; the authors' protocol)",
           f"{'row':<{w}}  " + " ".join(f"{q:<14}" for q in present)]
    for who, ref in PUBLISHED.items():
        spread = PUBLISHED_SPREAD.get(who)
        out.append(f"{who:<{w}} " + " ".join(
            f"{ref[q]:>6.2f}" + (f" ± {spread[q]:>5.2f}" if spread else " " * 8) for q in present))
    cons = [q for q in present if any(q in v for v in PUBLISHED_CONSISTENCY.values())]
    if cons:
        out += [f"001 Table 6 (published consistency %)", f"{'row':<{w}} " + " ".join(f"{q:>14}" for q in cons)]
        out += [f"{who:<{w}} " + " ".join(f"{ref[q]:>14.2f}" for q in cons) for who, ref in PUBLISHED_CONSISTENCY.items()]
    return out


def _fmt(m: float | None, ci: float | None, digits: int = 2) -> str:
    return "n/a" if m is None else f"{m:.{digits}f} ± {ci:.{digits}f}"


def format_table(rows: Sequence[dict[str, Any]], by_stage: bool = False) -> str:
    """Plain-text tables: QA rows (Table 5/6 layout; Figure 3's with ``by_stage``) then live rows."""
    out = []
    qa = [r for r in rows if r["env"] == "qa"]
    if qa:
        out += _qa_table(qa, by_stage)
    live = [r for r in rows if r["env"] == "live"]
    if live:
        out += ([""] if out else []) + format_live_table(live)
    return "\n".join(out)


BENCHMARK = register(Benchmark(
    name="persuasion", family="persuasion", description=__doc__,
    help="PersuasiveToM (001) Tables 5/6 on the QA env; --env live for the live persuasion rows",
    policies={**{f"qa:{k}": v for k, v in QA_POLICIES.items()}, **{f"live:{k}": v for k, v in LIVE_POLICIES.items()}},
    metrics=("accuracy", "consistency", "success", "regret", "desire_accuracy", "attitude_accuracy"),
    published=PUBLISHED, episodes=LIVE_EPISODES, table=lambda rows, bench: format_table(rows),
    arguments=add_arguments, run=run))
