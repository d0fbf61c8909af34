"""The answered conversations of ``python -m benchmarks common-ground``: played by the runner and kept
in results files under ``--out/common_ground/`` (one record per conversation and pass, keyed by
``(cid, seed)``; a rerun reads them back and recomputes nothing). Every record says whether its data was
the whole release (``partial``: False) or not (True: ``--allow-partial`` over missing or differing files).

* :func:`play` -- every conversation answered once, nothing stored;
* :func:`play_stored` -- a scripted policy's (``scripted_<policy>_<hash>.jsonl``);
* :func:`play_llm` -- the LLM answerer's (``llm_<qa_mode>_<hash>.jsonl``, in lockstep);
* :func:`jobs`, :func:`cid_of`, :func:`check_questions` -- the jobs and record shape they share
  with the model policies of :mod:`benchmarks.common_ground.llm`.

The command itself is :mod:`benchmarks.common_ground.benchmark`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from benchmarks.runner import progress_bar
from benchmarks.qa_llm import RESULTS_VERSION, Job, LLMRun, QACell, QAFile, QuestionView, run_qa
from benchmarks.results import fault_columns
from benchmarks.runner_episodes import EpisodeResult, Step
from benchmarks.runner_episodes import play as play_episode
from policies.base import BasePolicy
from tom_envs.qa import answered


#: What a question record keeps -> the key of the env's step info it is read from: the question's identity
#: (``cid``, ``sno``, ``eno``, ``chain``, ``belief_Q``: one question of its group), its ``order``, the right
#: answer ``gold`` (1 yes, 0 no: for precision/recall/F1; the info's ``answer``) and ``correct``. Records stored
#: before issue 29 have no ``chain``, ``belief_Q`` or gold answer (their F1 columns are None); records stored
#: before issue 41 call the gold answer ``answer`` (:func:`tom_envs.common_ground.metrics.gold_answer` reads both).
RECORD_FIELDS: dict[str, str] = {
    "cid": "cid",
    "sno": "sno",
    "eno": "eno",
    "order": "order",
    "chain": "chain",
    "belief_Q": "belief_Q",
    "gold": "answer",
    "correct": "correct",
}
#: The record's fields (:data:`RECORD_FIELDS`' keys).
RECORD_KEYS = tuple(RECORD_FIELDS)


def question_record(info: dict) -> dict[str, Any]:
    """The record of one answered question (:data:`RECORD_FIELDS`) from its step info, once known."""
    return {field: info[key] for field, key in RECORD_FIELDS.items()}


def _question_records(infos: list[dict]) -> list[dict[str, Any]]:
    """One record per scored question of a finished conversation (from its step infos), once its
    answers are known after the fact."""
    return [question_record(info) for info in answered(infos)]


def partial_of(env: Any) -> bool:
    """Whether ``env``'s data is not the whole release (the records' and rows' ``partial``)."""
    return bool(getattr(env.unwrapped, "partial", False))


def _questions(env: Any, policy: BasePolicy, cid: int, seed: int) -> list[dict[str, Any]]:
    """Conversation ``cid`` played by ``policy`` (seeded ``seed``): one record per question."""
    return _question_records(play_episode(env, policy, seed, options={"cid": cid}, on_step=_next_info).steps)


def _next_info(step: Step) -> dict:
    return step.next_info


def play(env: Any, policy: BasePolicy, seed: int, progress: bool | None = False) -> list[dict[str, Any]]:
    """Answer every question of every conversation of ``env`` (conversation ``i``: seed ``seed + i``,
    played by the runner); one record per question. The policy sees each question and its description only
    (:class:`benchmarks.qa_llm.QuestionView`): a conversation's answers, which its last step returns, never
    reach it, so the next pass over the same conversation finds nothing it was told."""
    cids = env.unwrapped.cids
    bar = progress_bar(len(cids), f"common-ground {getattr(policy, 'name', type(policy).__name__)}", progress)
    policy = policy if isinstance(policy, QuestionView) else QuestionView(policy)
    records = []
    for i, cid in enumerate(cids):
        records += _questions(env, policy, cid, seed + i)
        bar.update(1)
    bar.close()
    return records


def jobs(env: Any, seeds: Sequence[int]) -> dict[Job, dict]:
    """Conversation ``i`` of the pass seeded ``s`` as a job ``(cid, s + i)`` -> its reset options."""
    return {(cid, s + i): {"cid": cid} for s in seeds for i, cid in enumerate(env.unwrapped.cids)}


def cid_of(rec: dict) -> int:
    """A record's episode key."""
    return int(rec["cid"])


def check_questions(rec: dict) -> Any:
    """Raises on a record without its questions."""
    return [(q["order"], q["correct"], q["sno"]) for q in rec["questions"]]


def play_stored(
    env: Any, policy: BasePolicy, seeds: Sequence[int], out: Path, key: dict[str, Any], progress: bool | None = False
) -> list[dict[str, Any]]:
    """:func:`play` over every pass ``seeds``, resumable: each conversation (``cid``, pass seed + index)
    is read back from its results file under ``out / "common_ground"`` (keyed by ``key``: policy, data,
    split, context, annotator, seed) if it was answered before, else played by the runner and appended
    at once (:func:`benchmarks.qa_llm.run_qa`). The question records are :func:`play`'s; as there, the policy
    sees the questions only (no answer after a conversation, so none in a later pass)."""
    wanted = jobs(env, seeds)
    policy = policy if isinstance(policy, QuestionView) else QuestionView(policy)

    def to_record(job: Job, result: EpisodeResult) -> dict[str, Any]:
        return {
            "version": RESULTS_VERSION,
            "policy": key["policy"],
            "cid": job[0],
            "seed": job[1],
            "partial": partial_of(env),
            "questions": _question_records(result.steps),
        }

    file = QAFile("common_ground", f"scripted_{key['policy'].replace('-', '_')}", key, cid_of, check_questions)
    found = run_qa(
        QACell(file, env, wanted, to_record, policy=lambda: policy, on_step=_next_info), out, progress=progress
    )
    return [q for job in wanted for q in found[job]["questions"]]


def play_llm(
    env: Any, llm: LLMRun, seeds: Sequence[int], key: dict[str, Any]
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """:func:`play` for the LLM answerer, resumable: conversation ``i`` of ``env.cids`` with seed
    ``seeds[j]`` is read back from the results file if it was answered before, else answered (in
    lockstep with the other pending conversations of its length, :meth:`benchmarks.qa_llm.LLMRun.run`)
    and appended at once. Question records also carry the answerer's ``parse_failures`` and
    ``fallback``; ``llm_stats`` per conversation is in the file. Also returns the server retries the
    conversations' requests took (:func:`benchmarks.runner.fault_columns`).
    """
    wanted = jobs(env, seeds)

    def to_record(job: Job, result: EpisodeResult) -> dict[str, Any]:
        steps = result.steps
        questions = [
            {
                **question_record(info),
                "correct": bool(info["correct"]),
                "chosen": int(info["chosen"]),
                "parse_failures": st["parse_failures"],
                "fallback": st["fallback"],
            }
            for info, st in zip(answered([st["info"] for st in steps], with_fillers=True), steps)
            if info["scored"]
        ]  # the fillers are asked (tom/CommonToM-v2) but not scored
        return {
            "version": RESULTS_VERSION,
            "cid": job[0],
            "seed": job[1],
            "partial": partial_of(env),
            "questions": questions,
            "llm_stats": result.policy_stats or {},
        }

    found = llm.run(llm.file("common_ground", "llm", key, cid_of, check_questions), env.unwrapped, wanted, to_record)
    return [q for job in wanted for q in found[job]["questions"]], fault_columns([found[job] for job in wanted])
