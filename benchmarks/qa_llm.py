"""What the QA benchmarks share: their envs from the registry, their answered episodes as runner
cells, their option group for the ``llm`` policy, and how that policy answers.

* Answered episodes: a QA benchmark's unit of work is a :data:`Job` ``(episode key, seed)``; the
  jobs of one configuration are a :class:`QACell` of the runner, kept in one results file
  (:class:`QAFile`), and :func:`run_qa` plays the missing ones through
  :func:`benchmarks.runner.run_cell` (locked, stamped, each record appended the moment it is done,
  resumable), one by one or in lockstep batches of episodes with the same number of questions.
* The ``llm`` policy is the generic :class:`~policies.llm.qa.LLMQAAnswerer` on a vLLM or
  OpenAI-compatible backend (:class:`LLMRun`): episodes are played in lockstep by the runner
  (:func:`benchmarks.runner.play_lockstep`: one backend call per question position and prompting
  stage serves every episode of a batch). A family whose release puts its questions another way
  passes its protocol object (:class:`policies.llm.qa.QAProtocol`) in the run.

The command lines are the families' (``benchmarks/<family>/benchmark.py``).
"""

from __future__ import annotations

import argparse
import copy
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.cli_llm import add_llm_options, llm_settings
from benchmarks.cli_types import positive_int
from benchmarks.errors import RunnerError
from benchmarks.results import RESULTS_VERSION, ResultsFile, results_path
from benchmarks.runner import Cell, run_cell
from benchmarks.runner_envs import make_env
from benchmarks.runner_episodes import EpisodeResult, PolicySeed, Step, StepHook, lockstep_batches, play, play_lockstep
from tom_envs.qa import QAEnv, question_info

__all__ = [
    "DEFAULT_LOCKSTEP",
    "QA_MODES",
    "RESULTS_VERSION",
    "Job",
    "LLMRun",
    "QACell",
    "QAFile",
    "QuestionView",
    "add_qa_llm_options",
    "answer_counters",
    "data_key",
    "make_qa_env",
    "qa_env_id",
    "results_path",
    "run_qa",
]

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
    rarely changes between turns). The runner reads ``check_env`` (it gets the env's frozen description,
    never the env), ``last_step_log``, ``episode_stats``, ``name`` and ``makes_predictions`` from the wrapped
    policy (each missing when the wrapped policy lacks it); nothing else is forwarded: the view opens no
    attribute path to anything.
    """

    def __init__(self, policy: Any) -> None:
        self.policy = policy

    check_env = property(lambda self: self.policy.check_env)
    last_step_log = property(lambda self: self.policy.last_step_log)
    episode_stats = property(lambda self: self.policy.episode_stats)
    name = property(lambda self: self.policy.name)
    makes_predictions = property(lambda self: self.policy.makes_predictions)

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

    def observe_batch(
        self,
        observations: Sequence[Any],
        rewards: Sequence[float],
        terminateds: Sequence[bool],
        truncateds: Sequence[bool],
        infos: Sequence[dict],
        **kwargs: Any,
    ) -> None:
        self.policy.observe_batch(
            observations, [0.0] * len(rewards), terminateds, truncateds, [question_info(i) for i in infos], **kwargs
        )


# ---------------------------------------------------------------------- options
def add_qa_llm_options(parser: argparse.ArgumentParser) -> None:
    """The shared LLM option group (:func:`benchmarks.cli.add_llm_options`) plus the QA answerer's
    own options (``--qa-mode``, ``--scoring``, ``--max-tokens``)."""
    llm = add_llm_options(
        parser,
        title="LLM answerer (--policy llm)",
        lockstep=DEFAULT_LOCKSTEP,
        lockstep_help="episodes answered at once (one backend call per question position)",
    )
    llm.add_argument(
        "--qa-mode",
        choices=QA_MODES,
        default="zero_shot",
        help="zero_shot: answer at once; cot: think step by step, then 'The answer is X'",
    )
    llm.add_argument(
        "--scoring",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="zero_shot: score the option letters by log-probability, or (--no-scoring) parse a "
        "generated 'The answer is X' (default: scoring on vllm, generation on openai; scoring on "
        "openai needs --tokenizer for the chat template)",
    )
    llm.add_argument(
        "--max-tokens",
        type=positive_int,
        default=None,
        help="cap on generated tokens (default: 16 for zero_shot, 256 for cot)",
    )


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
        protocol: how the questions are put (:class:`policies.llm.qa.QAProtocol`; None: ours). A
            family that sets it names it in :attr:`config` too (its ``"protocol"`` key goes into the rows).
    """

    config: dict[str, Any]
    make_backend: Callable[[], Any]
    out: Path
    seed: int = 0
    lockstep: int = DEFAULT_LOCKSTEP
    progress: bool | None = False
    protocol: Any = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> "LLMRun":
        """The run the command line asks for; bad options raise :class:`~benchmarks.errors.RunnerError`.
        A family with another protocol sets :attr:`protocol` and its identity in :attr:`config`
        (``dataclasses.replace``)."""
        if not args.model:
            raise RunnerError(
                "--policy llm needs --model (a local model folder for vllm, a served model name for openai)"
            )
        if args.backend == "openai" and not args.base_url:
            raise RunnerError("--backend openai needs --base-url (e.g. http://127.0.0.1:8000/v1)")
        settings = llm_settings(args)
        if args.scoring and args.qa_mode != "zero_shot":
            raise RunnerError(
                "--scoring applies to --qa-mode zero_shot only; cot reads a generated answer (drop --scoring)"
            )
        scoring = args.scoring if args.scoring is not None else (args.qa_mode == "zero_shot" and args.backend == "vllm")
        config = {
            **settings.identity(),
            "qa_mode": args.qa_mode,
            "scoring": bool(scoring),
            "max_resamples": settings["max_resamples"],
            "max_tokens": args.max_tokens,
            "fallback": settings["fallback"],
        }

        def make_backend() -> Any:
            from benchmarks.cli_backends import backend_from_args

            return backend_from_args(args)

        return cls(
            config,
            make_backend,
            Path(args.out),
            args.seed,
            args.lockstep,
            None if getattr(args, "format", "table") != "json" else False,
        )

    def row_identity(self) -> dict[str, Any]:
        """What every llm row says about the run."""
        row = {
            "model": self.config["model"],
            "model_identity": self.config.get("model_identity"),
            "qa_mode": self.config["qa_mode"],
            "scoring": self.config["scoring"],
        }
        if "protocol" in self.config:
            row["protocol"] = self.config["protocol"]
        return row

    def file(
        self,
        folder: str,
        stem: str,
        key: Mapping[str, Any],
        episode: Callable[[dict], Hashable],
        check: Callable[[dict], Any],
    ) -> "QAFile":
        """The results file of this run for a benchmark configuration ``key`` (under ``out/folder``,
        named ``<stem>_<qa_mode>_<hash>.jsonl``; the run's :attr:`config` joins the key)."""
        return QAFile(folder, f"{stem}_{self.config['qa_mode']}", {**key, "llm": self.config}, episode, check)

    def run(
        self, file: "QAFile", env: QAEnv, jobs: Mapping[Job, dict], to_record: Callable[[Job, EpisodeResult], dict]
    ) -> dict[Job, dict]:
        """Every job of ``jobs`` (``(episode, seed)`` -> reset options) answered by the LLM, by job:
        read back from ``file`` where stored, else answered in lockstep (:func:`run_qa`) and appended.

        The backend is built only when some job is missing, and closed when they are done. Each
        result's ``steps`` has per question the step ``info``, ``n_choices``, ``parse_failures``,
        ``fallback`` and ``parse_rule`` (from the answerer's step log), and ``policy_stats`` is the
        answerer's ``episode_stats()`` entry; ``to_record`` makes the record of a job from them.
        """
        built: list[Any] = []  # [backend, answerer] once some job needs answers

        def answerer() -> Any:
            if not built:
                from policies.llm.qa import LLMQAAnswerer

                built.append(self.make_backend())
                c = self.config
                built.append(
                    QuestionView(
                        LLMQAAnswerer(
                            built[0],
                            mode=c["qa_mode"],
                            scoring=c["scoring"],
                            seed=self.seed,
                            max_resamples=c["max_resamples"],
                            fallback=c["fallback"],
                            max_tokens=c["max_tokens"],
                            protocol=self.protocol,
                        )
                    )
                )
            return built[1]

        cell = QACell(file, env, jobs, to_record, policy=answerer, on_step=_answer_step)
        try:
            return run_qa(cell, self.out, lockstep=self.lockstep, progress=self.progress)
        finally:
            if built:
                built[0].close()


# ---------------------------------------------------------------------- answered episodes as runner cells
#: A QA benchmark's unit of work: (episode key, env seed). It keys the records of a results file.
Job = tuple[Hashable, int]


@dataclass(frozen=True)
class QAFile:
    """Where a QA benchmark keeps the answered episodes of one configuration.

    Attributes:
        folder: the family's folder under ``--out``.
        stem: the readable start of the file name (``<stem>_<hash>.jsonl``).
        identity: the configuration the file name hashes (:func:`benchmarks.results.results_path`).
        episode: a record's episode key (its job is ``(episode(record), record["seed"])``).
        check: raises ``KeyError``/``TypeError``/``ValueError`` on a record of the wrong shape.
    """

    folder: str
    stem: str
    identity: Mapping[str, Any]
    episode: Callable[[dict], Hashable]
    check: Callable[[dict], Any]

    def path(self, out: Path) -> Path:
        """``out / folder / "<stem>_<hash>.jsonl"``."""
        return results_path(Path(out) / self.folder, self.stem, self.identity)


class _EnvPool:
    """One env and its copies, handed out in turn (one per episode played at once); rewound before
    every run, so the copies are made once."""

    def __init__(self, env: Any) -> None:
        self.envs, self.taken = [env], 0

    def take(self) -> Any:
        if self.taken == len(self.envs):
            self.envs.append(copy.deepcopy(self.envs[0]))
        self.taken += 1
        return self.envs[self.taken - 1]


@dataclass(frozen=True, eq=False)
class QACell(Cell):
    """The answered episodes of one results file as a cell of the runner
    (:func:`benchmarks.runner.run_cell`, :func:`run_qa`): its "seeds" are :data:`Job` s.

    Attributes:
        file: the results file (:class:`QAFile`).
        env: the QA env (copied for the episodes played at once).
        jobs: job -> the env's reset options (which episode), in the order the caller reads them.
        to_record: the record of a job from its :class:`~benchmarks.runner.EpisodeResult`.
        policy: builds the policy (called once per run, only when some job is missing).
        on_step: the runner's step hook (its non-None results are the result's ``steps``).
        policy_seed: the policy's seed from the episode's (default: the same).
    """

    file: QAFile
    env: Any
    jobs: Mapping[Job, dict]
    to_record: Callable[[Job, EpisodeResult], dict]
    policy: Callable[[], Any] | None = None
    on_step: StepHook | None = None
    policy_seed: PolicySeed | None = None
    pool: _EnvPool = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "pool", _EnvPool(self.env))

    def config(self) -> dict[str, Any]:
        return dict(self.file.identity)

    def slug(self) -> str:
        return self.file.stem

    def path(self, out: Path) -> Path:
        return self.file.path(out)

    def results(self, out: Path) -> ResultsFile:
        return ResultsFile(
            self.path(out), key=lambda rec: (self.file.episode(rec), int(rec["seed"])), check=self.file.check
        )

    def make_env(self) -> Any:
        return self.pool.take()

    def make_policy(self) -> Any:
        if self.policy is None:
            raise RunnerError(f"{self.file.stem}: no policy to answer the missing episodes with")
        return self.policy()

    def play(self, env: Any, policy: Any, seed: Job) -> EpisodeResult:  # type: ignore[override]
        return play(env, policy, seed[1], options=self.jobs[seed], policy_seed=self.policy_seed, on_step=self.on_step)

    def play_batch(self, envs: Sequence[Any], policy: Any, seeds: Sequence[Job]) -> list[EpisodeResult]:  # type: ignore[override]
        return play_lockstep(
            envs,
            policy,
            [job[1] for job in seeds],
            options=[self.jobs[job] for job in seeds],
            policy_seed=self.policy_seed,
            on_step=self.on_step,
        )

    def record(self, seed: Job, result: EpisodeResult) -> dict[str, Any]:  # type: ignore[override]
        """The family's record of the job, with the file's identity as ``cell`` (for an LLM run: the model's
        exact identity, :meth:`benchmarks.cli.LLMSettings.identity`) unless the family wrote its own."""
        rec = self.to_record(seed, result)
        rec.setdefault("cell", self.config())
        return rec

    def length(self, job: Job) -> int:
        """The number of questions of ``job``'s episode (episodes played in lockstep share it)."""
        base = self.env.unwrapped
        return len(base.episodes[base.select_episode(self.jobs[job])])


def run_qa(cell: QACell, out: Path, lockstep: int = 1, progress: bool | None = False) -> dict[Job, dict]:
    """Every job's record of ``cell``, by job: the stored ones read back, the missing ones played by
    the runner (:func:`benchmarks.runner.run_cell`: the file locked, each record appended the moment
    it is done) and stored.

    ``lockstep`` > 1 answers that many episodes at once (:meth:`QACell.play_batch`); episodes with
    the same number of questions go together (:func:`benchmarks.runner.lockstep_batches`, first-seen
    order), so a batch never waits on a finished episode.
    """
    jobs = list(cell.jobs)
    if lockstep > 1:
        groups = [[jobs[k] for k in group] for group in lockstep_batches(jobs, max(1, len(jobs)), cell.length)]
    else:
        groups = [jobs]
    found: dict[Job, dict] = {}
    for group in groups:
        cell.pool.taken = 0
        found.update(zip(group, run_cell(cell, group, Path(out), progress, lockstep=lockstep)))
    return found


def _answer_step(step: Step) -> dict[str, Any]:
    log = step.log["act"] if step.log else None
    if log is None:
        raise RunnerError("the LLM answerer kept no step log (last_step_log); its counters would be lost")
    return {
        "info": step.next_info,
        "n_choices": int(step.observation["n_choices"]),
        "parse_failures": int(log["parse_failures"]),
        "fallback": bool(log["fallback"]),
        "parse_rule": log.get("parse_rule"),
    }


def answer_counters(answers: Sequence[dict]) -> dict[str, int]:
    """``parse_failures``, ``resamples`` (re-asks; a fallback follows the last failure instead) and
    ``fallbacks`` (random answers after the bound) over recorded answers."""
    failures = sum(int(a["parse_failures"]) for a in answers)
    fallbacks = sum(bool(a["fallback"]) for a in answers)
    return {"parse_failures": failures, "resamples": failures - fallbacks, "fallbacks": fallbacks}


def data_key(data_dir: Any) -> str | None:
    """A data folder as it goes into a results key and the records: None for the bundled sample, else
    ``<folder name>@<sha256 of its files>`` (:func:`benchmarks.results.folder_checksum`; the ``.runs`` lines and the
    report show that checksum as the data's).

    The same data gives the same key wherever it lies (a copy of a release elsewhere resumes its records, and no
    record names a folder of the machine that made it); other data, or an edited file, gives another key. A path that
    is not a folder stays as it is (the loader names the problem)."""
    if data_dir is None:
        return None
    from benchmarks.results import folder_checksum

    path = Path(data_dir).resolve()
    if not path.is_dir():
        return str(path)
    return f"{path.name}@{folder_checksum(str(path))}"
