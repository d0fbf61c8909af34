"""The ``llm`` policy of the QA benchmarks (persuasion, common ground): the generic
:class:`~policies.llm.qa.LLMQAAnswerer` on a vLLM or OpenAI-compatible backend, episodes answered
in lockstep through its batched forms, every answered episode recorded at once (resumable).

Used by :mod:`benchmarks.persuasion` and :mod:`benchmarks.common_ground`; see their docstrings
for the command lines.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from benchmarks.matrix import RunnerError
from tom_envs.qa import QAEnv

#: Bump when the meaning of a recorded answer changes (new result files).
RESULTS_VERSION = 1
LLM_BACKENDS = ("vllm", "openai")
QA_MODES = ("zero_shot", "cot")
LLM_FALLBACKS = ("raise", "random")
DEFAULT_LOCKSTEP = 32


def add_llm_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of the ``llm`` policy (shared by the persuasion and common-ground commands)."""
    llm = parser.add_argument_group("LLM answerer (--policy llm)")
    llm.add_argument("--backend", choices=LLM_BACKENDS, default="vllm")
    llm.add_argument("--model", help="vllm: a local model folder; openai: the served model name")
    llm.add_argument("--base-url", help="openai: the server's base URL, e.g. http://127.0.0.1:8000/v1 "
                                        "(key from OPENAI_API_KEY)")
    llm.add_argument("--max-model-len", type=int, help="vllm: context length")
    llm.add_argument("--qa-mode", choices=QA_MODES, default="zero_shot",
                     help="zero_shot: answer at once; cot: think step by step, then 'The answer is X'")
    llm.add_argument("--scoring", action=argparse.BooleanOptionalAction, default=None,
                     help="zero_shot: score the option letters by log-probability, or (--no-scoring) parse a "
                          "generated 'The answer is X' (default: scoring on vllm, generation on openai)")
    llm.add_argument("--max-resamples", type=int, default=10, help="re-asks after a reply naming no option")
    llm.add_argument("--max-tokens", type=int, default=None,
                     help="cap on generated tokens (default: 16 for zero_shot, 256 for cot)")
    llm.add_argument("--fallback", choices=LLM_FALLBACKS, default="raise",
                     help="after the bounded re-asks: raise, or a uniformly random option (counted)")
    llm.add_argument("--lockstep", type=int, default=DEFAULT_LOCKSTEP,
                     help="episodes answered at once (one backend call per question position)")
    llm.add_argument("--out", default="results", help="folder of the LLM answer records (resumable)")


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
    """

    config: dict[str, Any]
    make_backend: Callable[[], Any]
    out: Path
    seed: int = 0
    lockstep: int = DEFAULT_LOCKSTEP

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> "LLMRun":
        """The run the command line asks for; bad options raise :class:`~benchmarks.matrix.RunnerError`."""
        if not args.model:
            raise RunnerError("--policy llm needs --model (a local model folder for vllm, a served model name "
                              "for openai)")
        if args.backend == "openai" and not args.base_url:
            raise RunnerError("--backend openai needs --base-url (e.g. http://127.0.0.1:8000/v1)")
        if args.scoring and args.qa_mode != "zero_shot":
            raise RunnerError("--scoring applies to --qa-mode zero_shot only; cot reads a generated answer "
                              "(drop --scoring)")
        if args.max_resamples < 0:
            raise RunnerError(f"--max-resamples must be >= 0, got {args.max_resamples}")
        if args.max_tokens is not None and args.max_tokens < 1:
            raise RunnerError(f"--max-tokens must be >= 1, got {args.max_tokens}")
        if args.lockstep < 1:
            raise RunnerError(f"--lockstep must be >= 1, got {args.lockstep}")
        scoring = args.scoring if args.scoring is not None else (args.qa_mode == "zero_shot" and args.backend == "vllm")
        config = {"backend": args.backend, "model": args.model,
                  "base_url": args.base_url if args.backend == "openai" else None, "qa_mode": args.qa_mode,
                  "scoring": bool(scoring), "max_resamples": args.max_resamples, "max_tokens": args.max_tokens,
                  "fallback": args.fallback}

        def make_backend() -> Any:
            from benchmarks.matrix import build_backend

            return build_backend(args.backend, args.model, args.base_url, args.seed, max_model_len=args.max_model_len)

        return cls(config, make_backend, Path(args.out), args.seed, args.lockstep)

    def row_identity(self) -> dict[str, Any]:
        """What every llm row says about the run."""
        return {"model": self.config["model"], "qa_mode": self.config["qa_mode"], "scoring": self.config["scoring"]}

    def answer(self, env: QAEnv, jobs: Sequence[tuple[dict, int]],
               on_done: Callable[[int, list[dict], dict], None]) -> None:
        """Answer the episodes ``jobs`` (reset options, seed) with a fresh backend; see
        :func:`answer_in_lockstep`. Builds nothing when ``jobs`` is empty."""
        if not jobs:
            return
        from policies.llm.qa import LLMQAAnswerer

        backend = self.make_backend()
        try:
            c = self.config
            answerer = LLMQAAnswerer(backend, mode=c["qa_mode"], scoring=c["scoring"], seed=self.seed,
                                     max_resamples=c["max_resamples"], fallback=c["fallback"],
                                     max_tokens=c["max_tokens"])
            answer_in_lockstep(env, answerer, jobs, self.lockstep, on_done)
        finally:
            backend.close()


def answer_in_lockstep(env: QAEnv, answerer: Any, jobs: Sequence[tuple[dict, int]], lockstep: int,
                       on_done: Callable[[int, list[dict], dict], None]) -> None:
    """Step the QA episodes ``jobs`` (reset options, seed) in lockstep through ``answerer``'s
    batched forms: one ``act_batch`` (one backend call per stage) per question position.

    Episodes with the same number of questions go together, at most ``lockstep`` at a time, so a
    batch never waits on a finished episode; each episode plays on its own copy of ``env``. When
    a batch ends, ``on_done(job index, steps, stats)`` is called per episode, where ``steps`` has
    per question the step ``info``, ``n_choices``, ``parse_failures`` and ``fallback`` (from the
    answerer's step log) and ``stats`` is the answerer's :meth:`episode_stats` for the episode.
    """
    groups: dict[int, list[int]] = {}
    for k, (options, _) in enumerate(jobs):
        groups.setdefault(len(env.episodes[env.select_episode(options)]), []).append(k)
    pool = [copy.deepcopy(env) for _ in range(min(lockstep, len(jobs)))]
    for length, members in groups.items():
        for start in range(0, len(members), lockstep):
            batch = members[start:start + lockstep]
            envs = pool[:len(batch)]
            answerer.reset_batch([jobs[k][1] for k in batch])
            obs, infos = map(list, zip(*(e.reset(seed=jobs[k][1], options=jobs[k][0]) for e, k in zip(envs, batch))))
            steps: list[list[dict]] = [[] for _ in batch]
            for _ in range(length):
                actions = answerer.act_batch(obs, infos)
                logs = answerer.last_step_log()
                results = [e.step(a) for e, a in zip(envs, actions)]
                for trace, o, log, res in zip(steps, obs, logs, results):
                    trace.append({"info": res[4], "n_choices": int(o["n_choices"]),
                                  "parse_failures": int(log["parse_failures"]), "fallback": bool(log["fallback"])})
                obs, rewards, terms, truncs, infos = (list(x) for x in zip(*results))
                answerer.observe_batch(obs, rewards, terms, truncs, infos)
            for k, trace, stats in zip(batch, steps, answerer.episode_stats()):
                on_done(k, trace, stats)


def answer_counters(answers: Sequence[dict]) -> dict[str, int]:
    """``parse_failures``, ``resamples`` (re-asks; a fallback follows the last failure instead) and
    ``fallbacks`` (random answers after the bound) over recorded answers."""
    failures = sum(int(a["parse_failures"]) for a in answers)
    fallbacks = sum(bool(a["fallback"]) for a in answers)
    return {"parse_failures": failures, "resamples": failures - fallbacks, "fallbacks": fallbacks}


def data_key(data_dir: Any) -> str | None:
    """A data folder as it goes into a results key (absolute), None for the bundled sample."""
    return None if data_dir is None else str(Path(data_dir).resolve())


def results_path(folder: Path, stem: str, config: dict[str, Any]) -> Path:
    """``folder / "<stem>_<hash of config>.jsonl"``: one file per configuration."""
    key = hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()[:12]
    return folder / f"{stem}_{key}.jsonl"
