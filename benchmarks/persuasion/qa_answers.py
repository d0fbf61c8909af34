"""Answering PersuasiveToM's QA dialogues: scripted answerers and the LLM, through the runner.

:func:`answer_dialogues` plays every dialogue ``repetitions`` times with a scripted answerer, one after
the other; :func:`stored_answers` does the same resumably (each answered dialogue appended to a results
file under ``--out/persuasion/``), and :func:`llm_answers` answers them with the ``llm`` policy (an
:class:`~benchmarks.qa_llm.LLMRun`), in lockstep and resumably, with its counters per question type.
Dialogue ``i`` of repetition ``r`` uses seed ``seed + r * 1000003 + i``; every policy sees the
question and its description only (:class:`~benchmarks.qa_llm.QuestionView`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Sequence

from benchmarks.persuasion.live import PersuasionBenchmarkError, policy_seed
from benchmarks.persuasion.qa_prompts import request_row
from benchmarks.qa_llm import (
    LLM_POLICY,
    RESULTS_VERSION,
    Job,
    LLMRun,
    QACell,
    QAFile,
    QuestionView,
    answer_counters,
    data_key,
    run_qa,
)
from benchmarks.results import fault_columns
from benchmarks.runner import progress_bar
from benchmarks.runner_episodes import EpisodeResult, Step, play
from policies.base import BasePolicy
from policies.persuasion.qa_baselines import AlwaysFirst, LongestOrKeyword
from policies.persuasion.scripted import RandomAnswerer
from tom_envs.persuasion.metrics import Answer
from tom_envs.qa import answered

QA_ENV = "tom_envs.persuasion.qa_env:PersuasiveToMEnv"
#: The scripted QA answerers by name ("llm", the LLM answerer, is :class:`~benchmarks.qa_llm.LLMRun`).
QA_POLICIES: dict[str, Callable[[], BasePolicy]] = {
    "random": RandomAnswerer,
    "always-first": AlwaysFirst,
    "longest-or-keyword": LongestOrKeyword,
}
_REP_STRIDE = 1_000_003  # seeds of repetition r: seed + r * stride + dialogue index


def _step(step: Step) -> tuple[dict, int]:
    return step.next_info, int(step.observation["n_choices"])


def _answers(steps: list[tuple[dict, int]]) -> list[Answer]:
    """The answers of one finished dialogue, from its steps (:func:`_step`), once known after the fact."""
    return [
        Answer(info["qtype"], info["episode_id"], bool(info["correct"]), n, int(info["turn"]))
        for info, (_, n) in zip(answered([i for i, _ in steps]), steps)
    ]


def answer_dialogues(
    env: Any, policy: BasePolicy, repetitions: int, seed: int, progress: bool | None = False
) -> list[list[Answer]]:
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
            answers += _answers(
                play(
                    env,
                    policy,
                    seed + r * _REP_STRIDE + i,
                    options={"episode": i},
                    policy_seed=policy_seed,
                    on_step=_step,
                ).steps
            )
            bar.update(1)
        reps.append(answers)
    bar.close()
    return reps


def _qa_key(base: Any, seed: int) -> dict[str, Any]:
    """What keys a results file of the QA env ``base`` (its data, split and question types) and ``seed``."""
    return {
        "version": RESULTS_VERSION,
        "benchmark": "persuasion-qa",
        "data_dir": data_key(base.data_dir),
        "split": base.split,
        "qtypes": sorted({it.qtype for ep in base.episodes for it in ep}),
        "seed": seed,
    }


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
    return [
        [
            Answer(a["qtype"], rec["dialogue"], a["correct"], a["n_choices"], a["turn"])
            for rec in (found[job] for job in order[r * n : (r + 1) * n])
            for a in rec["answers"]
        ]
        for r in range(repetitions)
    ]


def stored_answers(
    env: Any, name: str, repetitions: int, seed: int, out: Path, protocol: str = "ours", progress: bool | None = False
) -> list[list[Answer]]:
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
        return {
            "version": RESULTS_VERSION,
            "policy": name,
            "protocol": protocol,
            "dialogue": dialogue,
            "repetition": (s - seed - i) // _REP_STRIDE,
            "seed": s,
            "partial": bool(getattr(base, "partial", False)),
            "answers": [
                {"qtype": a.qtype, "turn": a.turn, "correct": a.correct, "n_choices": a.n_choices}
                for a in _answers(result.steps)
            ],
        }

    file = QAFile(
        "persuasion",
        f"qa_{name.replace('-', '_')}",
        {**_qa_key(base, seed), "policy": name, "protocol": protocol},
        _dialogue,
        _check_answers,
    )
    # the question and its description only: no answer, no feedback
    cell = QACell(
        file,
        env,
        jobs,
        to_record,
        policy=lambda: QuestionView(QA_POLICIES[name]()),
        on_step=_step,
        policy_seed=policy_seed,
    )
    return _repetitions(run_qa(cell, out, progress=progress), jobs, repetitions)


def check_qa_policies(names: Sequence[str]) -> None:
    """Raises :class:`PersuasionBenchmarkError` naming the first unknown QA policy of ``names``."""
    known = [*QA_POLICIES, LLM_POLICY]
    bad = [n for n in names if n not in known]
    if bad:
        raise PersuasionBenchmarkError(f"unknown QA policy {bad[0]!r}; choose from {', '.join(known)}")


def llm_answers(
    env: Any,
    llm: LLMRun,
    repetitions: int,
    seed: int,
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
        answers = [
            {
                "qtype": info["qtype"],
                "turn": int(info["turn"]),
                "chosen": int(info["chosen"]),
                "correct": bool(info["correct"]),
                "invalid": bool(info["invalid"]),
                "n_choices": st["n_choices"],
                "parse_failures": st["parse_failures"],
                "fallback": st["fallback"],
                "parse_rule": st["parse_rule"],
            }
            for info, st in zip(infos, steps)
        ]
        return {
            "version": RESULTS_VERSION,
            "dialogue": dialogue,
            "repetition": (s - seed - i) // _REP_STRIDE,
            "seed": s,
            "partial": bool(getattr(base, "partial", False)),
            "answers": answers,
            "llm_stats": result.policy_stats or {},
        }

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
        counters[q] = {
            **llm.row_identity(),
            **answer_counters(mine),
            "parse_rules": rules,
            "invalid_answers": sum(bool(a.get("invalid")) for a in mine),
            **request_row(llm),
            **faults,
        }
    return reps, counters
