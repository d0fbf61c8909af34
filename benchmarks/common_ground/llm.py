"""The Common-ToM policies that call a model beside ``--policy llm``: ``llm-release`` (003's
zero-shot protocol with the release's prompt file) and ``llm-beliefs`` (a ReCoG-style pipeline
whose belief predictor is the model). See :mod:`policies.common_ground.llm`.

A conversation's questions do not depend on the answers given (the env shows the same questions in
the same seeded order whatever the policy answers), so each conversation is played in two passes:
its observations are read first (answering "No" and keeping nothing but the observations), every
prompt of the conversation goes to the backend in ONE call (chunks of ``--lockstep`` x 64 prompts),
and the conversation is then played by the runner with those answers, each checked against the
question it was given for. Every answered conversation is appended at once to a results file under
``--out/common_ground/`` keyed by the configuration, so a rerun resumes.
"""

from __future__ import annotations

import argparse
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from benchmarks import policy_seeds
from benchmarks.cli_llm import llm_settings
from benchmarks.common_ground.stored import check_questions, cid_of, jobs, partial_of, question_record
from benchmarks.errors import RunnerError
from benchmarks.qa_llm import RESULTS_VERSION, Job, QACell, QAFile, run_qa
from benchmarks.results import fault_columns
from benchmarks.runner_episodes import EpisodeResult, Step
from benchmarks.runner_episodes import play as play_episode
from policies.base import BasePolicy
from tom_envs.common_ground.corpus import SAMPLE_DATA_DIR
from tom_envs.qa import answered

RELEASE_POLICY = "llm-release"
BELIEFS_POLICY = "llm-beliefs"
LLM_POLICIES = (RELEASE_POLICY, BELIEFS_POLICY)
_CHUNK = 64  # prompts per backend call = lockstep x _CHUNK


#: The options of ``llm-release`` and ``llm-beliefs`` (the backend options are ``--policy llm``'s), as the
#: family's :data:`benchmarks.common_ground.benchmark.OPTIONS`: flag -> argparse keywords.
OPTIONS: dict[str, dict[str, Any]] = {
    "--prompt-file": {
        "default": None,
        "help": "llm-release: the zero-shot prompt template (default: <data-dir>/prompts/gpt-zero-shot, "
        "the release's file; the bundled sample has one of ours)",
    },
    "--temperature": {
        "type": float,
        "default": None,
        "help": "llm-release / llm-beliefs sampling temperature (default: 1.0 for llm-release as 003; "
        "0.0 for llm-beliefs)",
    },
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``llm-release`` and ``llm-beliefs`` (:data:`OPTIONS`), in their own group."""
    group = parser.add_argument_group("llm-release / llm-beliefs")
    for flag, keywords in OPTIONS.items():
        group.add_argument(flag, **keywords)


def prompt_file(args: argparse.Namespace) -> Path:
    """The prompt template ``llm-release`` uses."""
    from policies.common_ground.llm import release_prompt_path

    if args.prompt_file:
        return Path(args.prompt_file)
    return release_prompt_path(args.data_dir if args.data_dir is not None else SAMPLE_DATA_DIR)


def config(args: argparse.Namespace, name: str) -> dict[str, Any]:
    """What identifies a run of ``name`` (keys its results file; never an API key)."""
    from policies.common_ground.llm import RELEASE_MAX_TOKENS, RELEASE_TEMPERATURE, load_release_prompt

    if not args.model:
        raise RunnerError(
            f"--policy {name} needs --model (a local model folder for vllm, a served model name for openai)"
        )
    if args.backend == "openai" and not args.base_url:
        raise RunnerError("--backend openai needs --base-url (e.g. http://127.0.0.1:8000/v1)")
    settings = llm_settings(args)
    out: dict[str, Any] = {**settings.identity(), "policy": name}
    if name == RELEASE_POLICY:
        template = load_release_prompt(prompt_file(args))
        out.update(
            prompt_sha256=hashlib.sha256(template.encode("utf-8")).hexdigest()[:16],
            temperature=RELEASE_TEMPERATURE if args.temperature is None else args.temperature,
            max_tokens=args.max_tokens if args.max_tokens is not None else RELEASE_MAX_TOKENS,
            template=template,
        )
    else:
        out.update(
            temperature=0.0 if args.temperature is None else args.temperature,
            max_tokens=args.max_tokens or 24,
            max_resamples=settings["max_resamples"],
            fallback=settings["fallback"],
        )
    return out


def observations(env: Any, seed: int, cid: int) -> list[dict]:
    """The observations of conversation ``cid`` played with seed ``seed`` (answers do not change them)."""
    from tom_envs.qa import walk

    return walk(env, seed, {"cid": cid})[0]


class _Replay(BasePolicy):
    """Plays answers decided beforehand, checking each is played on the question it was decided for."""

    def __init__(self, questions: Sequence[str], actions: Sequence[int]) -> None:
        super().__init__()
        self.questions, self.actions, self.i = list(questions), list(actions), 0

    def act(self, observation: Any, info: dict) -> int:
        if self.i >= len(self.actions) or observation["question"] != self.questions[self.i]:
            raise RunnerError(
                "the env showed another question than on the first pass; the two-pass play needs "
                "the same questions in the same order for the same seed"
            )
        self.i += 1
        return self.actions[self.i - 1]


def _records(steps: list[Step]) -> list[dict[str, Any]]:
    """One record per question asked in a finished conversation (fillers too, with ``scored``), once
    its answers are known after the fact."""
    return [
        {
            **question_record(info),
            "correct": bool(info["correct"]),
            "chosen": int(info["chosen"]),
            "scored": bool(info["scored"]),
        }
        for info in answered([st.next_info for st in steps], with_fillers=True)
    ]


def play(
    env: Any, args: argparse.Namespace, name: str, seeds: Sequence[int], key: dict[str, Any], cfg: dict[str, Any]
) -> tuple[list[dict[str, Any]], dict[str, int], dict[str, int]]:
    """Question records of policy ``name`` on every conversation of ``env`` for every pass seed,
    read back from the results file when answered before (else answered and appended at once, by the
    runner: :func:`benchmarks.qa_llm.run_qa`), and the caller's counters summed over them
    (:data:`policies.llm.caller.COUNTERS`), and the server retries their requests took
    (:func:`benchmarks.runner.fault_columns`). The backend is built only when some conversation is missing."""
    wanted = jobs(env, seeds)
    ident = {k: v for k, v in cfg.items() if k != "template"}
    built: list[Any] = []

    def backend() -> Any:
        from benchmarks.cli_backends import backend_from_args

        built.append(backend_from_args(args))
        return built[-1]

    def to_record(job: Job, result: EpisodeResult) -> dict[str, Any]:
        return {
            "version": RESULTS_VERSION,
            "cid": job[0],
            "seed": job[1],
            "partial": partial_of(env),
            "questions": result.steps,
            "llm_stats": result.policy_stats,
        }

    file = QAFile("common_ground", name.replace("-", "_"), {**key, "llm": ident}, cid_of, check_questions)
    cell = _ModelCell(file, env, wanted, to_record, policy=backend, run=_Run(args, name, cfg))
    try:
        found = run_qa(cell, Path(args.out))
    finally:
        for b in built:
            b.close()
    stats: dict[str, int] = {}
    for job in wanted:
        for k, v in found[job].get("llm_stats", {}).items():
            stats[k] = stats.get(k, 0) + int(v)
    faults = fault_columns([found[job] for job in wanted])
    return [q for job in wanted for q in found[job]["questions"]], stats, faults


@dataclass(frozen=True)
class _Run:
    """What answers a conversation besides the backend: the command's options, the policy's name and its config."""

    args: argparse.Namespace
    name: str
    cfg: dict[str, Any]


@dataclass(frozen=True, eq=False)
class _ModelCell(QACell):
    """A model policy's conversations as a runner cell: the "policy" is the backend, and a conversation
    is answered in two passes (:func:`_answer`); the result's ``steps`` are its question records and
    ``policy_stats`` the caller's counters."""

    run: _Run | None = None

    def play(self, env: Any, policy: Any, seed: Job) -> EpisodeResult:  # type: ignore[override]
        assert self.run is not None
        cid, s = seed
        questions, stats = _answer(env, self.run, policy, cid, s)
        return EpisodeResult(s, {}, {}, steps=questions, policy_stats=stats)


def _answer(env: Any, run: _Run, backend: Any, cid: int, seed: int) -> tuple[list[dict], dict]:
    args, name, cfg = run.args, run.name, run.cfg
    seen = observations(env, seed, cid)
    size = max(1, int(args.lockstep)) * _CHUNK
    chunks = [seen[i : i + size] for i in range(0, len(seen), size)]
    if name == RELEASE_POLICY:
        from policies.common_ground.llm import ReleaseZeroShot

        model = ReleaseZeroShot(
            backend, cfg["template"], temperature=cfg["temperature"], max_tokens=cfg["max_tokens"], seed=args.seed
        )
        owner = model.owner(policy_seeds.policy_seed(seed))  # the run's policy stream, not the env's seed
        answers = [a for chunk in chunks for a in model.answer(chunk, [owner] * len(chunk))]
        policy: BasePolicy = _Replay([o["question"] for o in seen], [a["action"] for a in answers])
        extra = [{"unparsed": a["unparsed"], "reply": a["reply"]} for a in answers]
        stats = dict(owner.stats)
    else:
        from policies.common_ground.scripted import BeliefStatePolicy
        from policies.common_ground.llm import LLMBeliefPredictor

        predictor = LLMBeliefPredictor(
            backend,
            temperature=cfg["temperature"],
            max_tokens=cfg["max_tokens"],
            max_resamples=cfg["max_resamples"],
            fallback=cfg["fallback"],
            seed=policy_seeds.policy_seed(seed, seat=1),
        )
        policy = BeliefStatePolicy(predictor)
        policy.reset(policy_seeds.policy_seed(seed))
        for chunk in chunks:
            policy.prepare(chunk)
        extra = [{} for _ in seen]
        stats = dict(predictor.stats)

    # the runner resets the policy with the episode seed: keep the predictions made above
    steps = _records(play_episode(env, _Keep(policy), seed, options={"cid": cid}, on_step=lambda st: st).steps)
    records = []
    for rec, more in zip(steps, extra):
        if not rec.pop("scored"):
            continue  # a filler (tom/CommonToM-v2 asks each scored question's whole group): asked, not scored
        rec.update(more)
        if rec.get("unparsed"):
            rec["correct"] = False  # the authors' scoring: a reply that is neither Yes nor No is wrong
        records.append(rec)
    return records, stats


class _Keep(BasePolicy):
    """A policy whose ``reset`` keeps its state (the predictions made before the runner plays it)."""

    def __init__(self, policy: BasePolicy) -> None:
        super().__init__()
        self.policy = policy

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)

    def act(self, observation: Any, info: dict) -> Any:
        return self.policy.act(observation, info)


#: The request parameters of 003's ``bin/openai_zero_shot.py``: one user message at temperature 1.0, nothing else
#: (no generation cap, no seed).
AUTHORS_REQUEST: dict[str, Any] = {"temperature": 1.0}


def request_row(args: argparse.Namespace, cfg: dict[str, Any]) -> dict[str, Any]:
    """What ``llm-release`` sends beside the prompt, for its rows: ``request`` (the parameters),
    ``set_by_user`` (those the command line set: ``--temperature``, ``--max-tokens``) and
    ``beyond_authors`` (parameters the authors' requests do not send: a generation cap, only when
    ``--max-tokens`` sets one). No seed is sent, as in the authors' requests (an in-process engine,
    to which nothing is sent, still samples with per-question seeds so that a run repeats)."""
    user = [
        name
        for name, value in (("temperature", args.temperature), ("max_tokens", args.max_tokens))
        if value is not None
    ]
    request = {"temperature": cfg["temperature"]}
    if cfg["max_tokens"] is not None:
        request["max_tokens"] = cfg["max_tokens"]
    return {"request": request, "set_by_user": user, "beyond_authors": [k for k in request if k not in AUTHORS_REQUEST]}


def counters(records: Sequence[dict]) -> dict[str, int]:
    """``unparsed`` replies (llm-release) over recorded answers."""
    return {"unparsed": sum(bool(r.get("unparsed")) for r in records)}


__all__ = [
    "AUTHORS_REQUEST",
    "BELIEFS_POLICY",
    "LLM_POLICIES",
    "RELEASE_POLICY",
    "add_arguments",
    "request_row",
    "config",
    "counters",
    "observations",
    "play",
    "prompt_file",
]
