"""``python -m benchmarks persuasion``: 001's tables on the QA env, and the live env's rows.

QA (default)::

    tom-envs persuasion --data-dir DIR --policy random --episodes 3 --format json   # or --repetitions 3

prints one row per question type present (Table 5's column order) with ``qtype`` (the published
file name), ``n`` (questions per repetition), ``accuracy`` (percent, mean over repetitions),
``accuracy_ci`` (95 % half-width), ``chance`` (uniform guessing, percent); the persuadee rows
add Table 6's ``consistency`` and ``consistency_ci``. Without ``--data-dir`` the bundled sample
is used. ``--env live`` runs the live persuasion env instead (``--policy random,oracle``, ...),
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
(answers drawn at random after the bound -- not the model's answers).
"""

from __future__ import annotations

import argparse
import json
from typing import Any, Callable, Sequence

from benchmarks.cli import add_run_options, comma_list, positive_int, progress_bar, split_list
from benchmarks.family import Benchmark, register
from benchmarks.qa_llm import (LLM_POLICY, RESULTS_VERSION, LLMRun, add_qa_llm_options, answer_counters, data_key,
                               make_qa_env)
from benchmarks.persuasion_live import (LIVE_ENV, LIVE_EPISODES, LIVE_POLICIES, PersuasionBenchmarkError,  # noqa: F401
                                        format_live_table, live_rows, play_episode, policy_seed)
from benchmarks.runner import Step, play
from policies.base import BasePolicy
from policies.persuasion import RandomAnswerer
from tom_envs.persuasion import QTYPES
from tom_envs.persuasion.metrics import Answer, accuracy_table, consistency_table

QA_ENV = "tom_envs.persuasion.qa_env:PersuasiveToMEnv"
#: The family's name -> factory tables: QA answerers ("llm" is the LLM answerer, see
#: :class:`~benchmarks.qa_llm.LLMRun`) and live persuaders (:mod:`benchmarks.persuasion_live`).
QA_POLICIES: dict[str, Callable[[], BasePolicy]] = {"random": RandomAnswerer}
POLICIES: dict[str, dict[str, Callable[[], BasePolicy]]] = {"qa": QA_POLICIES, "live": LIVE_POLICIES}
#: 001's Table 5 (accuracy %, per question type in :data:`QTYPES` order) and Table 6 (consistency %
#: of the persuadee desire, belief, intention questions) for reference.
PUBLISHED: dict[str, dict[str, float]] = {
    name: dict(zip(QTYPES, values)) for name, values in {
        "Random Guess": (50.00, 25.00, 16.67, 33.33, 25.00, 25.00, 25.00, 50.00),
        "Human": (100.00, 92.31, 78.13, 84.62, 87.85, 94.42, 86.80, 97.95),
        "GPT-4o": (95.56, 89.47, 46.28, 67.66, 81.73, 87.81, 73.55, 96.38),
        "GPT-4o + CoT": (93.80, 85.50, 46.92, 67.56, 84.90, 87.17, 76.90, 95.53),
    }.items()}
PUBLISHED_CONSISTENCY: dict[str, dict[str, float]] = {
    "Human": {"desire_ee": 62.00, "belief_ee": 56.00, "intent_ee": 82.00},
    "GPT-4o": {"desire_ee": 19.35, "belief_ee": 36.19, "intent_ee": 65.71},
}
QA_REPETITIONS = 3  # default
_REP_STRIDE = 1_000_003  # seeds of repetition r: seed + r * stride + dialogue index


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add this command's options to ``parser`` (a sub-parser of ``python -m benchmarks``)."""
    parser.add_argument("--env", choices=["qa", "live", "both"], default="qa",
                        help="qa: PersuasiveToM questions; live: the live persuasion env; both: the two lists")
    add_run_options(parser, episodes=None, policy="random", policy_type=comma_list(name="policy name"),
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
    parser.add_argument("--repetitions", type=positive_int, default=None,
                        help=f"qa: full passes over the dialogues (default {QA_REPETITIONS}; --episodes with --env qa)")
    parser.add_argument("--horizon", type=positive_int, default=5, help="live: turn budget")
    add_qa_llm_options(parser)


def run(args: argparse.Namespace) -> int:
    """Run the command; prints the rows and returns the exit status."""
    rows: list[dict[str, Any]] = []
    progress = None if args.format != "json" else False
    if args.env in ("qa", "both"):
        names = split_list(args.policy) if args.env == "qa" else ["random"]
        _check_qa_policies(names)
        repetitions = args.repetitions or (args.episodes if args.env == "qa" and args.episodes else QA_REPETITIONS)
        llm = LLMRun.from_args(args) if LLM_POLICY in names else None
        rows += qa_rows(args.data_dir, names, repetitions, args.seed,
                        None if args.qtypes is None else split_list(args.qtypes), args.split, llm=llm,
                        progress=progress)
    if args.env in ("live", "both"):
        names = split_list(args.policy) if args.env == "live" else split_list(args.live_policy)
        rows += live_rows(names, args.episodes or LIVE_EPISODES, args.seed, args.horizon, progress=progress)
    print(json.dumps(rows, indent=2) if args.format == "json" else format_table(rows))
    return 0


# ---------------------------------------------------------------------- QA
def _answer(step: Step) -> Answer:
    info = step.next_info
    return Answer(info["qtype"], info["episode_id"], bool(info["correct"]), int(step.observation["n_choices"]))


def answer_dialogues(env: Any, policy: BasePolicy, repetitions: int, seed: int,
                     progress: bool | None = False) -> list[list[Answer]]:
    """Every dialogue of ``env`` answered ``repetitions`` times (new choice order and policy seed each),
    one dialogue after the other by the runner (the scripted policies; the LLM uses :func:`llm_answers`)."""
    if repetitions < 1:
        raise PersuasionBenchmarkError(f"--repetitions must be at least 1, got {repetitions}")
    n = len(env.unwrapped.episodes)
    bar = progress_bar(repetitions * n, f"qa {getattr(policy, 'name', type(policy).__name__)}", progress)
    reps = []
    for r in range(repetitions):
        answers = []
        for i in range(n):
            answers += play(env, policy, seed + r * _REP_STRIDE + i, options={"episode": i}, policy_seed=policy_seed,
                            on_step=_answer).steps
            bar.update(1)
        reps.append(answers)
    bar.close()
    return reps


def _check_qa_policies(names: Sequence[str]) -> None:
    known = [*QA_POLICIES, LLM_POLICY]
    bad = [n for n in names if n not in known]
    if bad:
        raise PersuasionBenchmarkError(f"unknown QA policy {bad[0]!r}; choose from {', '.join(known)}")


def qa_rows(data_dir: str | None, policies: Sequence[str], repetitions: int, seed: int,
            qtypes: Sequence[str] | None = None, split: str = "all", llm: LLMRun | None = None,
            progress: bool | None = False) -> list[dict[str, Any]]:
    """Table 5 rows (plus Table 6 consistency on the persuadee rows) per policy.

    ``llm`` runs the ``"llm"`` policy (see :class:`LLMRun`); its rows also carry the answerer's
    counters and its answers are recorded under ``llm.out / "persuasion"`` (resumable).
    """
    _check_qa_policies(policies)
    if LLM_POLICY in policies and llm is None:
        raise PersuasionBenchmarkError("policy 'llm' needs an LLM backend: pass --model (and --backend/--base-url)")
    if repetitions < 1:
        raise PersuasionBenchmarkError(f"--repetitions must be at least 1, got {repetitions}")
    env = make_qa_env(QA_ENV, data_dir=data_dir, qtypes=qtypes, split=split)
    rows = []
    for name in policies:
        counters: dict[str, dict[str, Any]] = {}
        if name == LLM_POLICY and llm is not None:  # (llm is not None: checked above)
            reps, counters = llm_answers(env, llm, repetitions, seed)
        else:
            reps = answer_dialogues(env, QA_POLICIES[name](), repetitions, seed, progress)
        consistency = {r["qtype"]: r for r in consistency_table(reps)}
        for row in accuracy_table(reps):
            extra = consistency.get(row["qtype"])
            if extra is not None:
                row.update(consistency=extra["consistency"], consistency_ci=extra["consistency_ci"])
            rows.append({"env": "qa", "policy": name, **row, **counters.get(row["qtype"], {})})
    return rows


def llm_answers(env: Any, llm: LLMRun, repetitions: int, seed: int,
                ) -> tuple[list[list[Answer]], dict[str, dict[str, Any]]]:
    """The LLM's answers per repetition (as :func:`answer_dialogues`), and per question type the
    run's identity and counters (``parse_failures``, ``resamples``, ``fallbacks``).

    Dialogue ``i`` of repetition ``r`` uses seed ``seed + r * stride + i``, as the scripted
    policies do. Finished dialogues are read back from the results file; only the others are
    answered, and each is appended to the file as soon as it is done.
    """
    env = env.unwrapped
    qtypes = sorted({it.qtype for ep in env.episodes for it in ep})
    key = {"version": RESULTS_VERSION, "benchmark": "persuasion-qa", "data_dir": data_key(env.data_dir),
           "split": env.split, "qtypes": qtypes, "seed": seed}
    ids = [str(ep[0].episode_id) for ep in env.episodes]
    jobs = [(r, i, seed + r * _REP_STRIDE + i) for r in range(repetitions) for i in range(len(ids))]
    with llm.results("persuasion", "qa_llm", key, lambda rec: (str(rec["dialogue"]), int(rec["seed"])),
                     lambda rec: [(a["qtype"], a["correct"], a["n_choices"]) for a in rec["answers"]]) as done:
        todo = [(r, i, s) for r, i, s in jobs if (ids[i], s) not in done]

        def save(k: int, steps: list[dict], stats: dict) -> None:
            r, i, s = todo[k]
            answers = [{"qtype": st["info"]["qtype"], "turn": int(st["info"]["turn"]),
                        "chosen": int(st["info"]["chosen"]), "correct": bool(st["info"]["correct"]),
                        "n_choices": st["n_choices"], "parse_failures": st["parse_failures"],
                        "fallback": st["fallback"]} for st in steps]
            done.append({"version": RESULTS_VERSION, "dialogue": ids[i], "repetition": r, "seed": s,
                         "answers": answers, "llm_stats": stats})

        llm.answer(env, [({"episode": i}, s) for _, i, s in todo], save)
        recs = [[done[(ids[i], s)] for r_, i, s in jobs if r_ == r] for r in range(repetitions)]
    reps = [[Answer(a["qtype"], rec["dialogue"], a["correct"], a["n_choices"]) for rec in rep for a in rec["answers"]]
            for rep in recs]
    answers = [a for rep in recs for rec in rep for a in rec["answers"]]
    counters = {q: {**llm.row_identity(), **answer_counters([a for a in answers if a["qtype"] == q])} for q in qtypes}
    return reps, counters


# ---------------------------------------------------------------------- output
def _fmt(m: float | None, ci: float | None, digits: int = 2) -> str:
    return "n/a" if m is None else f"{m:.{digits}f} ± {ci:.{digits}f}"


def format_table(rows: Sequence[dict[str, Any]]) -> str:
    """Plain-text tables: QA rows (Table 5/6 layout) then live rows."""
    out = []
    qa = [r for r in rows if r["env"] == "qa"]
    if qa:
        head = f"{'policy':<8} {'qtype':<12} {'n':>5} {'accuracy %':>16} {'chance %':>9} {'consistency %':>16}"
        out += [head, "-" * len(head)]
        out += [f"{r['policy']:<8} {r['qtype']:<12} {r['n']:>5} {_fmt(r['accuracy'], r['accuracy_ci']):>16} "
                f"{r['chance']:>9.2f} "
                f"{_fmt(r.get('consistency'), r.get('consistency_ci')) if 'consistency' in r else '':>16}"
                for r in qa]
        llm = [r for r in qa if "fallbacks" in r]
        for name in dict.fromkeys(r["policy"] for r in llm):
            mine = [r for r in llm if r["policy"] == name]
            first = mine[0]
            out.append(f"{name} ({first['model']}, {first['qa_mode']}{', scored' if first['scoring'] else ''}): "
                       f"{sum(r['fallbacks'] for r in mine)} random fallbacks and {sum(r['resamples'] for r in mine)} "
                       f"re-asks over {sum(r['n'] * r['repetitions'] for r in mine)} answers")
        present = list(dict.fromkeys(r["qtype"] for r in qa))
        out.append("001 Table 5 (accuracy %): " + "; ".join(
            f"{who} " + " ".join(f"{ref[q]:.1f}" for q in present) for who, ref in PUBLISHED.items())
            + f"  [{', '.join(present)}]")
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
