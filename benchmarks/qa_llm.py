"""What the two QA benchmarks (persuasion, common ground) share: their envs from the registry,
their option group for the ``llm`` policy, and how that policy answers.

The ``llm`` policy is the generic :class:`~policies.llm.qa.LLMQAAnswerer` on a vLLM or
OpenAI-compatible backend. Episodes are played in lockstep by the evaluation runner
(:func:`benchmarks.runner.play_lockstep`: one backend call per question position and prompting
stage serves every episode of a batch), and every answered episode is appended at once to a
results file (:mod:`benchmarks.results`: keyed by the configuration, stamped, locked, resumable).
See :mod:`benchmarks.persuasion.benchmark` and :mod:`benchmarks.common_ground.benchmark` for the command lines.
"""

from __future__ import annotations

import argparse
import copy
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.cli import add_llm_options, llm_settings, positive_int, progress_bar
from benchmarks.errors import RunnerError
from benchmarks.results import RESULTS_VERSION, ResultsFile, results_path
from benchmarks.runner import Step, lockstep_batches, make_env, play_lockstep
from tom_envs.qa import QAEnv, question_info

__all__ = ["DEFAULT_LOCKSTEP", "QA_MODES", "RESULTS_VERSION", "LLMRun", "QuestionView", "add_qa_llm_options",
           "answer_counters", "data_key", "make_qa_env", "qa_env_id", "results_path"]

QA_MODES = ("zero_shot", "cot")
DEFAULT_LOCKSTEP = 32
LLM_POLICY = "llm"  # the LLM answerer's name in every QA family's --policy


# ---------------------------------------------------------------------- envs
def qa_env_id(entry_point: str) -> str:
    """The newest registered id whose env class is ``entry_point`` (``"module:Class"``)."""
    from tom_envs.registration import newest_id

    return newest_id(entry_point)


def make_qa_env(entry_point: str, **kwargs: Any) -> QAEnv:
    """The QA env of ``entry_point`` made through the registry (unwrapped: the runner steps it and
    the benchmark scores the answers from the step infos once an episode is over, with
    :func:`tom_envs.qa.answered`, whichever its ``feedback``)."""
    return make_env(qa_env_id(entry_point), record=False, **kwargs).unwrapped


# ---------------------------------------------------------------------- what a policy sees
class QuestionView:
    """A policy as the QA benchmarks run it: it sees each question and its description, never an
    answer and no feedback.

    Every info handed to the wrapped policy is :func:`tom_envs.qa.question_info` of the env's (the
    description of the question now shown; a step's after-the-fact keys -- the answer just given,
    its letter, whether it was right -- are dropped), and ``observe`` gets reward 0.0: an answer
    learnt from one question would give away later ones of the same dialogue (a persuadee's desire
    rarely changes between turns). Everything else (``last_step_log``, ``episode_stats``, ``name``,
    ...) is the wrapped policy's.
    """

    def __init__(self, policy: Any) -> None:
        self.policy = policy

    def __getattr__(self, name: str) -> Any:
        return getattr(self.policy, name)

    def reset(self, seed: int | None = None) -> None:
        self.policy.reset(seed)

    def act(self, observation: Any, info: dict) -> Any:
        return self.policy.act(observation, question_info(info))

    def predict(self, observation: Any, info: dict) -> Any:
        return self.policy.predict(observation, question_info(info))

    def observe(self, observation: Any, reward: float, terminated: bool, truncated: bool, info: dict) -> None:
        self.policy.observe(observation, 0.0, terminated, truncated, question_info(info))

    def reset_batch(self, seeds: Sequence[int | None]) -> None:
        self.policy.reset_batch(seeds)

    def act_batch(self, observations: Sequence[Any], infos: Sequence[dict], **kwargs: Any) -> list[Any]:
        return self.policy.act_batch(observations, [question_info(i) for i in infos], **kwargs)

    def predict_batch(self, observations: Sequence[Any], infos: Sequence[dict], **kwargs: Any) -> list[Any]:
        return self.policy.predict_batch(observations, [question_info(i) for i in infos], **kwargs)

    def observe_batch(self, observations: Sequence[Any], rewards: Sequence[float], terminateds: Sequence[bool],
                      truncateds: Sequence[bool], infos: Sequence[dict], **kwargs: Any) -> None:
        self.policy.observe_batch(observations, [0.0] * len(rewards), terminateds, truncateds,
                                  [question_info(i) for i in infos], **kwargs)


# ---------------------------------------------------------------------- options
def add_qa_llm_options(parser: argparse.ArgumentParser) -> None:
    """The shared LLM option group (:func:`benchmarks.cli.add_llm_options`) plus the QA answerer's
    own options (``--qa-mode``, ``--scoring``, ``--max-tokens``)."""
    llm = add_llm_options(parser, title="LLM answerer (--policy llm)", lockstep=DEFAULT_LOCKSTEP,
                          only=("backend", "model", "base_url", "max_model_len", "fallback", "max_resamples",
                                "lockstep", "scoring_path", "engine_arg"),
                          lockstep_help="episodes answered at once (one backend call per question position)")
    llm.add_argument("--qa-mode", choices=QA_MODES, default="zero_shot",
                     help="zero_shot: answer at once; cot: think step by step, then 'The answer is X'")
    llm.add_argument("--scoring", action=argparse.BooleanOptionalAction, default=None,
                     help="zero_shot: score the option letters by log-probability, or (--no-scoring) parse a "
                          "generated 'The answer is X' (default: scoring on vllm, generation on openai)")
    llm.add_argument("--max-tokens", type=positive_int, default=None,
                     help="cap on generated tokens (default: 16 for zero_shot, 256 for cot)")


# ---------------------------------------------------------------------- the llm policy
@dataclass(frozen=True)
class LLMRun:
    """How a QA benchmark runs its ``llm`` policy.

    Attributes:
        config: the answerer's identity and settings (backend kind, model, base URL for openai,
            mode, scoring, resampling bound, token cap, fallback; never an API key). It keys the
            results files, so answers of different models or settings never mix.
        make_backend: builds the backend; called only when some episode still needs answers, and
            the backend is closed when they are done.
        out: the results folder (``--out``).
        seed: the answerer's seed (its episode generators derive from it and the episode seed).
        lockstep: most episodes answered at once.
        progress: a bar over the episodes to answer (None: on a terminal).
    """

    config: dict[str, Any]
    make_backend: Callable[[], Any]
    out: Path
    seed: int = 0
    lockstep: int = DEFAULT_LOCKSTEP
    progress: bool | None = False

    @classmethod
    def from_args(cls, args: argparse.Namespace, protocol: str | None = None) -> "LLMRun":
        """The run the command line asks for; bad options raise :class:`~benchmarks.errors.RunnerError`.

        ``protocol`` (PersuasiveToM's ``"ours"`` or ``"authors"``, see :mod:`policies.llm.qa`) goes into
        the run's identity and its rows; None (the families with one protocol) leaves both unchanged.
        """
        if not args.model:
            raise RunnerError("--policy llm needs --model (a local model folder for vllm, a served model name "
                              "for openai)")
        if args.backend == "openai" and not args.base_url:
            raise RunnerError("--backend openai needs --base-url (e.g. http://127.0.0.1:8000/v1)")
        settings = llm_settings(args)
        if args.scoring and args.qa_mode != "zero_shot":
            raise RunnerError("--scoring applies to --qa-mode zero_shot only; cot reads a generated answer "
                              "(drop --scoring)")
        if protocol == "authors" and args.scoring:
            raise RunnerError("--protocol authors generates replies as the release does (sampled at T=0.7); "
                              "drop --scoring, or use --protocol ours")
        scoring = args.scoring if args.scoring is not None else (
            args.qa_mode == "zero_shot" and args.backend == "vllm" and protocol != "authors")
        config = {**settings.identity(), "qa_mode": args.qa_mode, "scoring": bool(scoring),
                  "max_resamples": settings["max_resamples"], "max_tokens": args.max_tokens,
                  "fallback": settings["fallback"]}
        if protocol is not None:  # the families with more than one protocol name it
            from policies.llm.qa import authors_system_in_user

            config["protocol"] = protocol
            config["system_in_user"] = protocol == "authors" and authors_system_in_user(str(args.model))

        def make_backend() -> Any:
            from benchmarks.cli import backend_from_args

            return backend_from_args(args)

        return cls(config, make_backend, Path(args.out), args.seed, args.lockstep,
                   None if getattr(args, "format", "table") != "json" else False)

    def row_identity(self) -> dict[str, Any]:
        """What every llm row says about the run."""
        row = {"model": self.config["model"], "qa_mode": self.config["qa_mode"], "scoring": self.config["scoring"]}
        if "protocol" in self.config:
            row["protocol"] = self.config["protocol"]
        return row

    def results(self, folder: str, stem: str, key: dict[str, Any], record_key: Callable[[dict], Hashable],
                check: Callable[[dict], Any]) -> ResultsFile:
        """The results file of this run for a benchmark configuration ``key`` (under ``out/folder``)."""
        path = results_path(self.out / folder, f"{stem}_{self.config['qa_mode']}", {**key, "llm": self.config})
        return ResultsFile(path, key=record_key, check=check)

    def answer(self, env: QAEnv, jobs: Sequence[tuple[dict, int]],
               on_done: Callable[[int, list[dict], dict], None]) -> None:
        """Answer the episodes ``jobs`` (reset options, seed) with a fresh backend, in lockstep.

        Episodes with the same number of questions go together, at most ``lockstep`` at a time
        (:func:`benchmarks.runner.lockstep_batches`), each on its own copy of ``env``. When a batch
        ends, ``on_done(job index, steps, stats)`` is called per episode, where ``steps`` has per
        question the step ``info``, ``n_choices``, ``parse_failures`` and ``fallback`` (from the
        answerer's step log) and ``stats`` is the answerer's ``episode_stats()`` entry. Builds
        nothing when ``jobs`` is empty.
        """
        if not jobs:
            return
        from policies.llm.qa import LLMQAAnswerer

        batches = lockstep_batches(jobs, self.lockstep, lambda job: len(env.episodes[env.select_episode(job[0])]))
        pool = [copy.deepcopy(env) for _ in range(max(len(b) for b in batches))]
        backend = self.make_backend()
        bar = progress_bar(len(jobs), f"llm {self.config['model']}", self.progress)
        try:
            c = self.config
            answerer = QuestionView(LLMQAAnswerer(
                backend, mode=c["qa_mode"], scoring=c["scoring"], seed=self.seed, max_resamples=c["max_resamples"],
                fallback=c["fallback"], max_tokens=c["max_tokens"], protocol=c.get("protocol", "ours"),
                system_in_user=c.get("system_in_user", False), authors_prompts=c.get("authors_prompts")))
            for batch in batches:
                results = play_lockstep(pool[:len(batch)], answerer, [jobs[k][1] for k in batch],
                                        options=[jobs[k][0] for k in batch], on_step=_answer_step)
                for k, result in zip(batch, results):
                    on_done(k, result.steps, result.policy_stats or {})
                bar.update(len(batch))
        finally:
            bar.close()
            backend.close()


def _answer_step(step: Step) -> dict[str, Any]:
    log = step.log["act"] if step.log else None
    if log is None:
        raise RunnerError("the LLM answerer kept no step log (last_step_log); its counters would be lost")
    return {"info": step.next_info, "n_choices": int(step.observation["n_choices"]),
            "parse_failures": int(log["parse_failures"]), "fallback": bool(log["fallback"]),
            "parse_rule": log.get("parse_rule")}


def answer_counters(answers: Sequence[dict]) -> dict[str, int]:
    """``parse_failures``, ``resamples`` (re-asks; a fallback follows the last failure instead) and
    ``fallbacks`` (random answers after the bound) over recorded answers."""
    failures = sum(int(a["parse_failures"]) for a in answers)
    fallbacks = sum(bool(a["fallback"]) for a in answers)
    return {"parse_failures": failures, "resamples": failures - fallbacks, "fallbacks": fallbacks}


def data_key(data_dir: Any) -> str | None:
    """A data folder as it goes into a results key (absolute), None for the bundled sample."""
    return None if data_dir is None else str(Path(data_dir).resolve())
