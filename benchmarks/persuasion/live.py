"""The live rows of ``python -m benchmarks persuasion --env live``: persuaders on live persuasion (v2 by default, ``--live-env tom/Persuasion-v1``).

Every persuader plays ``--episodes`` episodes in each scenario family (episode i of a family uses
seed + i and ``options={"family": f}``), through the evaluation runner and the ToM recorder, which
scores its desire, belief and intention predictions. One row per persuader: success, regret,
literal ToM per state, the exact references (averaged over the families) and ``by_family``, the
same per family. Exact references per family (:func:`tom_envs.persuasion.planning.references`):
random, best open-loop, Bayes-optimal fair, oracle; value of tracking = Bayes-optimal fair - best
open-loop, value of information = oracle - Bayes-optimal fair.

``regret`` is against the optimal persuader with the same information: the Bayes-optimal fair
persuader for every persuader that only sees the dialogue (summed V - Q at the exact posterior;
in expectation Bayes-optimal success - the policy's success), the state-knowing oracle for
``oracle`` (0 by construction). ``fair_regret`` is against the Bayes-optimal fair persuader for
every row. The persuaders: ``random``, ``open-loop`` (the family's best fixed plan), ``tracking``
(exact posterior, greedy rule), ``bayes`` (exact expectimax), ``oracle`` (sees the state), and
``llm`` (:class:`policies.persuasion.llm.LLMPersuader`: writes each line; the persuadee reads it);
``echo`` and ``echo-memory`` (model-free rules: answer the concern voiced, liking after a cold reply);
``all`` names these seven scripted ones (the default of ``--env live`` without ``--policy``). The Bayes
persuader speaking (``bayes-plain``, ``bayes-stuffed``, ``bayes-insult``, ``bayes-keywords``:
:mod:`policies.persuasion.speaking`) probes the reader.
The command's ``--out`` keeps every episode (:func:`stored_episodes`; a rerun reads them back)::

    python -m benchmarks persuasion --env live --policy all --episodes 300
    python -m benchmarks persuasion --env live --policy bayes,llm --backend openai --base-url URL --model NAME

The command itself (options, QA rows) is :mod:`benchmarks.persuasion.benchmark`.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from benchmarks import policy_seeds
from benchmarks.cli import not_applicable
from benchmarks.cli_types import positive_int
from benchmarks.errors import RunnerError
from benchmarks.results import FAULTS_FIELD, RESULTS_VERSION, ResultsFile, fault_columns, results_path
from benchmarks.runner import Cell, progress_bar, run_cell
from benchmarks.runner_envs import make_env
from benchmarks.runner_episodes import EpisodeResult, play
from tom_envs.stats import mean_ci95
from policies.base import BasePolicy
from policies.llm.caller import FAULT_COUNTERS, split_faults
from policies.persuasion.scripted import MIND_PERSUADERS
from policies.persuasion.speaking import SPEAKING_PERSUADERS
from tom_envs.errors import TomEnvsError

LIVE_ENV = "tom_envs.persuasion.mind_env:PersuasionMindEnv"  # v1's class (kept: an import of other modules)
#: The live envs ``--live-env`` selects, by id; the first is the default.
LIVE_IDS: tuple[str, ...] = ("tom/Persuasion-v2", "tom/Persuasion-v1")
#: Live persuaders by name (a class's ``env_kwargs`` go to its env); "llm" is built from the LLM options.
LIVE_POLICIES: dict[str, Callable[[], BasePolicy]] = {**MIND_PERSUADERS, **SPEAKING_PERSUADERS}
LLM_PERSUADER = "llm"
LIVE_EPISODES = 300  # default episodes per persuader and family
LIVE_HORIZON = 4
TARGETS = ("desire", "belief", "intention")
#: A live episode to play: (scenario family, seed).
LiveJob = tuple[str, int]


class PersuasionBenchmarkError(TomEnvsError, ValueError):
    """Bad arguments to ``python -m benchmarks persuasion``."""


def policy_seed(seed: int, seat: int = 0) -> int | None:
    """The seed of the episode's ``seat``-th policy (0: the persuader, 1: a two-seat persuadee): the run's policy
    stream (:func:`benchmarks.policy_seeds.policy_seed`), which no table over env seeds inverts (a fixed hash
    of ``seed`` would let a persuader rebuild the episode's persona in a shadow env)."""
    return policy_seeds.policy_seed(seed, seat=seat)


class DefaultPolicy(str):
    """The ``--policy`` default, marked: with ``--env live`` and no ``--policy`` every scripted
    persuader plays (the QA default stays ``random``)."""


def check_env_options(args: argparse.Namespace) -> None:
    """The options of the other ``--env`` would change nothing: named errors (:func:`benchmarks.cli.not_applicable`);
    under ``--env qa`` ``--episodes`` and ``--repetitions`` both count the passes over the questions (one would win).

    Raises:
        RunnerError: naming the options.
    """
    if args.env == "live":
        not_applicable(
            args,
            [
                "qtypes",
                "split",
                "repetitions",
                "protocol",
                "authors_prompts",
                "by_stage",
                "allow_partial",
                "data_dir",
                "qa_mode",
                "scoring",
            ],
            "with --env live (PersuasiveToM's question options: --env qa or both)",
        )
        not_applicable(
            args,
            ["live_policy"],
            "with --env live (--policy names the persuaders there; --live-policy is theirs with --env both)",
        )
    if args.env == "qa":
        not_applicable(
            args,
            ["horizon", "live_env", "families", "reader", "live_policy"],
            "with --env qa (live persuasion's options: --env live or both)",
        )
        if args.episodes and args.repetitions:
            raise RunnerError(
                "--episodes and --repetitions both set the passes over PersuasiveToM's questions with "
                "--env qa; give one (with --env both, --episodes counts live episodes)"
            )


def add_live_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``--env live`` options (called by :func:`benchmarks.persuasion.benchmark.add_arguments`)."""
    if isinstance(parser.get_default("policy"), str):
        parser.set_defaults(policy=DefaultPolicy(parser.get_default("policy")))
    parser.add_argument(
        "--horizon",
        type=positive_int,
        default=LIVE_HORIZON,
        help=f"live: turn budget (default {LIVE_HORIZON}; v2: 1..10, bounds in seconds per family; "
        "v1: exact planning, ~1 s per family at 4, ~13 s at 5)",
    )
    parser.add_argument(
        "--live-env",
        choices=list(LIVE_IDS),
        default=LIVE_IDS[0],
        help=f"live: the env played, by id (default {LIVE_IDS[0]}; {LIVE_IDS[1]} stays selectable)",
    )
    parser.add_argument(
        "--families",
        default=None,
        help="live: comma-separated scenario families (default all: health, charity, shopping, leisure, work)",
    )
    parser.add_argument(
        "--reader",
        choices=["scripted", "llm"],
        default="scripted",
        help="live: what reads the persuader's utterances (llm: the --model backend)",
    )


def play_episode(env: Any, policy: BasePolicy, seed: int, options: dict | None = None) -> dict[str, Any]:
    """One live episode played by the runner (the policy predicts, acts, observes; the ToM recorder
    scores its predictions); the env's episode summary with the recorder's ``<target>_accuracy``
    (percent, None without predictions) for each target of the env."""
    from benchmarks.runner_envs import recorder_of
    from wrappers import ToMRecorder

    recorded = env if recorder_of(env) is not None else ToMRecorder(env)
    result = play(recorded, policy, seed, options=options, policy_seed=policy_seed)
    by_target = result.summary.get("tom_accuracy_by_target", {})
    return {**result.info["episode"], **{f"{t}_accuracy": v for t, v in by_target.items()}}


def play_two_seat(
    env: Any, persuader: BasePolicy, persuadee: BasePolicy, seed: int, options: dict | None = None
) -> dict[str, Any]:
    """One episode of ``tom/Persuasion-TwoSeat-v1``: both seats predict, act and observe; the persuader
    is scored by ``wrappers.AECToMRecorder``, the persuadee (its ``strategy`` target) by a
    ``wrappers.ToMScorer`` on ``env.seat_view()``. Returns the persuader's outcome with
    ``<target>_accuracy`` for its targets, ``persuadee_strategy_accuracy`` and ``persuadee_return``.
    A policy with ``reads_text = True`` (the LLM seats) is handed ``env.text(agent)`` as its observation."""
    from tom_envs.persuasion.mind_two_seat import PERSUADEE, PERSUADER
    from wrappers import AECToMRecorder, ToMScorer

    recorded = env if isinstance(env, AECToMRecorder) else AECToMRecorder(env)
    base = recorded.unwrapped
    persuader.reset(policy_seed(seed))
    persuadee.reset(policy_seed(seed, seat=1))
    recorded.reset(seed=seed, options=options)
    seat = ToMScorer(base.seat_view(PERSUADEE))
    seat.start()
    returns = {PERSUADER: 0.0, PERSUADEE: 0.0}
    for agent in recorded.agent_iter(max_iter=4 * base.horizon + 4):
        obs, reward, term, trunc, info = recorded.last()
        returns[agent] += float(reward)
        if term or trunc:
            recorded.step(None)
            continue
        policy = persuader if agent == PERSUADER else persuadee
        if getattr(policy, "reads_text", False):
            obs = base.text(agent)  # an LLM seat reads its own prompt
        if agent == PERSUADER:
            recorded.record_prediction(persuader.predict(obs, info))
        else:
            seat.record_prediction(persuadee.predict(obs, info))
        recorded.step(policy.act(obs, info))
        if agent == PERSUADER:
            seat.score()
    summary = recorded.episode_summary()
    seat_summary = seat.summary()
    return {
        **summary["outcome"],
        **{f"{t}_accuracy": v for t, v in summary.get("tom_accuracy_by_target", {}).items()},
        "persuadee_strategy_accuracy": seat_summary["tom_accuracy"],
        "persuadee_return": returns[PERSUADEE],
        "persuader_return": returns[PERSUADER],
    }


def family_names(families: Any) -> list[str]:
    from tom_envs.persuasion.mind_env import resolve_families

    if isinstance(families, str):
        families = [f.strip() for f in families.split(",") if f.strip()]
    try:
        return [f.name for f in resolve_families(families)]
    except TomEnvsError as err:
        raise PersuasionBenchmarkError(str(err)) from None


def _summarise(eps: list[dict[str, Any]], regret_key: str) -> dict[str, Any]:
    row: dict[str, Any] = {}
    row["success"], row["success_ci"] = mean_ci95([100.0 * e["success"] for e in eps])
    row["regret"], row["regret_ci"] = mean_ci95([e[regret_key] for e in eps])
    row["fair_regret"], row["fair_regret_ci"] = mean_ci95([e["regret"] for e in eps])
    for t in TARGETS:
        vals = [e[f"{t}_accuracy"] for e in eps if e.get(f"{t}_accuracy") is not None]
        row[f"{t}_accuracy"], row[f"{t}_accuracy_ci"] = mean_ci95(vals) if vals else (None, None)
    return row


def live_rows(
    policies: Sequence[str],
    episodes: int,
    seed: int,
    horizon: int = LIVE_HORIZON,
    progress: bool | None = False,
    args: argparse.Namespace | None = None,
    families: Any = None,
    out: str | Path | None = None,
) -> list[dict[str, Any]]:
    """One row per persuader (see the module docstring); ``args`` carries the LLM options for ``llm``.

    With ``out`` every episode is appended at once to a results file under ``out / "persuasion"``
    (one file per persuader, horizon, reader and LLM identity; records keyed by scenario family and
    seed, holding the episode summary and the family's exact references), and a rerun reads the
    episodes it finds there instead of playing them again (:func:`stored_episodes`)."""
    if episodes < 1:
        raise PersuasionBenchmarkError(f"--episodes must be at least 1, got {episodes}")
    if isinstance(horizon, bool) or not isinstance(horizon, int) or horizon < 1:
        raise PersuasionBenchmarkError(f"--horizon must be a positive integer, got {horizon!r}")
    names = family_names(families if families is not None else getattr(args, "families", None))
    known = [*LIVE_POLICIES, LLM_PERSUADER]
    if (
        args is not None
        and getattr(args, "env", None) == "live"
        and isinstance(getattr(args, "policy", None), DefaultPolicy)
    ):
        policies = ["all"]  # no --policy given: every scripted persuader
    policies = [p for name in policies for p in (MIND_PERSUADERS if name == "all" else [name])]
    for name in policies:
        if name not in known:
            raise PersuasionBenchmarkError(f"unknown persuader {name!r}; choose from {', '.join(known)}")
    silent = [name for name in policies if name in MIND_PERSUADERS]
    if silent and getattr(args, "reader", "scripted") == "llm":
        raise PersuasionBenchmarkError(
            f"--reader llm reads the persuaders' words, but {', '.join(silent)} act by principle index (the env writes a "
            "templated line it never reads), so their rows would be the scripted reader's; choose persuaders that "
            f"speak: {LLM_PERSUADER}, {', '.join(SPEAKING_PERSUADERS)} (e.g. bayes-plain: the Bayes persuader in plain "
            "words), or drop --reader llm"
        )
    env_id = str(getattr(args, "live_env", None) or LIVE_IDS[0])
    if env_id not in LIVE_IDS:
        raise PersuasionBenchmarkError(f"--live-env {env_id!r}: choose from {', '.join(LIVE_IDS)}")
    refs = _references(env_id, names, horizon)
    reader = _reader(args)
    rows = []
    for name in policies:
        policy, env_kwargs, identity = _policy(name, args)
        env = make_env(env_id, record=True, horizon=horizon, families=names, reader=reader, **env_kwargs)
        if name == LLM_PERSUADER:
            from wrappers import TextObservation

            env = TextObservation(env)
        regret_key = "oracle_regret" if env_kwargs.get("expose_state") else "regret"
        by_family, all_eps = {}, []
        played: dict[LiveJob, dict[str, Any]] = {}
        if out is not None:
            key = {
                "version": RESULTS_VERSION,
                "benchmark": "persuasion-live",
                "env": env_id,
                "policy": name,
                "horizon": horizon,
                "reader": _reader_identity(args),
                **identity,
            }
            if name == LLM_PERSUADER:  # the answers of another server, model or resampling rule never mix
                key["llm"] = _llm_identity(args)
            cell = LiveCell(key, env, policy, refs, "oracle" if regret_key == "oracle_regret" else "bayes", reader)
            played = stored_episodes(cell, [(f, seed + i) for f in names for i in range(episodes)], Path(out), progress)
        else:  # no results folder: played, not stored
            reader_before = dict(getattr(reader, "stats", {}))
            bar = progress_bar(episodes * len(names), f"live {name}", progress)
            for f in names:
                for i in range(episodes):
                    played[(f, seed + i)] = play_episode(env, policy, seed + i, options={"family": f})
                    bar.update(1)
            bar.close()
        for f in names:
            eps = [played[(f, seed + i)] for i in range(episodes)]
            by_family[f] = {**_summarise(eps, regret_key), **{k: v for k, v in refs[f].items() if k != "family"}}
            all_eps += eps
        row: dict[str, Any] = {
            "env": "live",
            "version": env_id.rsplit("-", 1)[-1],
            "env_id": env_id,
            "policy": name,
            "episodes": episodes,
            "horizon": horizon,
            "families": names,
            **identity,
            **_summarise(all_eps, regret_key),
            "regret_against": "oracle" if regret_key == "oracle_regret" else "bayes",
        }
        for key in (
            "random",
            "open_loop",
            "bayes",
            "oracle",
            "value_of_tracking",
            "value_of_information",
            "bayes_upper",
            "open_loop_upper",
        ):
            if key in refs[names[0]]:
                row[key] = float(np.mean([refs[f][key] for f in names]))
        row["optimal_success"] = 100.0 * row["bayes"]
        if hasattr(policy, "stats"):  # an LLM persuader: its counters, and the server retries it met
            jobs = [(f, seed + i) for f in names for i in range(episodes)]
            if out is None:
                row["llm_stats"], faults = split_faults(dict(policy.stats))
                row.update(fault_columns([{FAULTS_FIELD: faults}] if faults is not None else []))
            else:
                row["llm_stats"] = _sum_stats([played[job].get("_llm_stats", {}) for job in jobs])
                row.update(
                    fault_columns(
                        [{FAULTS_FIELD: played[job]["_llm_faults"]} for job in jobs if "_llm_faults" in played[job]]
                    )
                )
        elif reader is not None:  # a scripted persuader read by an LLM: the reader's server retries
            if out is None:
                _, faults = split_faults(_counters_since(reader.stats, reader_before))
                row.update(fault_columns([{FAULTS_FIELD: faults}] if faults is not None else []))
            else:
                jobs = [(f, seed + i) for f in names for i in range(episodes)]
                row.update(
                    fault_columns(
                        [{FAULTS_FIELD: played[job]["_llm_faults"]} for job in jobs if "_llm_faults" in played[job]]
                    )
                )
        row["by_family"] = by_family
        rows.append(row)
    return rows


def _references(env_id: str, names: Sequence[str], horizon: int) -> dict[str, dict[str, Any]]:
    """Each family's references for the env ``env_id`` (v1: exact; v2: bounds; the version is the id's ``-vN``;
    a named error past the horizons the version plans for)."""
    from tom_envs.persuasion.versions import version_for

    version = version_for(env_id.rsplit("-v", 1)[1])
    try:
        return {f: version.references(version.model(version.family_named(f)), horizon).as_dict() for f in names}
    except TomEnvsError as err:
        raise PersuasionBenchmarkError(f"--horizon {horizon}: {err}") from None


@dataclass(frozen=True, eq=False)
class LiveCell(Cell):
    """One persuader's live episodes as a cell of the runner (:func:`benchmarks.runner.run_cell`): its
    "seeds" are :data:`LiveJob` s, its records ``{"version", "policy", "family", "seed", "horizon",
    "regret_against", "episode", "references", "llm_stats"}`` (``regret_against``: which regret of the
    episode is the row's ``regret``, ``"bayes"`` -> ``episode["regret"]``, ``"oracle"`` ->
    ``episode["oracle_regret"]``; ``references``: the family's exact success of random, best open-loop,
    Bayes-optimal fair and oracle persuaders; ``llm_stats``: the LLM persuader's counters in that episode).

    Attributes:
        identity: what keys the results file (benchmark, env, persuader, horizon, reader, LLM).
        env: the recorded live env.
        policy: the persuader.
        refs: each family's exact references (:func:`tom_envs.persuasion.planning.references`).
        regret_against: ``"bayes"`` or ``"oracle"``.
        reader: the env's LLM reader (``--reader llm``) or None: the server retries its requests
            took in an episode go into the record's ``llm_faults`` with the persuader's.
    """

    identity: dict[str, Any]
    env: Any
    policy: BasePolicy
    refs: dict[str, dict[str, Any]]
    regret_against: str = "bayes"
    reader: Any = None

    def config(self) -> dict[str, Any]:
        return dict(self.identity)

    def slug(self) -> str:
        return f"live_{self.identity['policy']}"

    def path(self, out: Path) -> Path:
        return results_path(
            Path(out) / "persuasion", f"live_{self.identity['policy'].replace('-', '_')}", self.identity
        )

    def results(self, out: Path) -> ResultsFile:
        return ResultsFile(
            self.path(out),
            key=lambda rec: (str(rec["family"]), int(rec["seed"])),
            check=lambda rec: (rec["episode"]["success"], rec["episode"]["regret"]),
        )

    def make_env(self) -> Any:
        return self.env

    def make_policy(self) -> BasePolicy:
        return self.policy

    def play(self, env: Any, policy: Any, seed: LiveJob) -> EpisodeResult:  # type: ignore[override]
        family, s = seed
        before = dict(getattr(policy, "stats", {}))
        read_before = dict(getattr(self.reader, "stats", {}))
        episode = play_episode(env, policy, s, options={"family": family})
        stats: Any = _counters_since(getattr(policy, "stats", {}), before)
        if self.reader is not None:  # the reader's retries join the persuader's (the runner moves them to llm_faults)
            read = _counters_since(self.reader.stats, read_before)
            if hasattr(policy, "stats"):
                for name in FAULT_COUNTERS:
                    if read.get(name):
                        stats[name] = stats.get(name, 0) + read[name]
            else:
                stats = {"reader": read}
            episode = {**episode, "_reader_stats": {k: v for k, v in read.items() if k not in FAULT_COUNTERS}}
        return EpisodeResult(s, episode, {}, policy_stats=stats)

    def record(self, seed: LiveJob, result: EpisodeResult) -> dict[str, Any]:  # type: ignore[override]
        family, s = seed
        summary = dict(result.summary)
        reader_stats = summary.pop("_reader_stats", None)
        rec: dict[str, Any] = {
            "version": RESULTS_VERSION,
            "policy": self.identity["policy"],
            "family": family,
            "seed": s,
            "horizon": self.identity["horizon"],
            "regret_against": self.regret_against,
            "episode": summary,
            "references": {k: v for k, v in self.refs[family].items() if k != "family"},
        }
        for part in ("llm", "reader"):  # the model's exact identity (persuader, reader) in every record
            if isinstance(self.identity.get(part), dict) and self.identity[part].get("model_identity"):
                rec[part] = self.identity[part]
        if hasattr(self.policy, "stats"):
            rec["llm_stats"] = result.policy_stats
        if reader_stats is not None:  # the LLM reader's decisions, parse failures and fallbacks in this episode
            rec["reader_stats"] = reader_stats
        return rec


def stored_episodes(
    cell: LiveCell, jobs: Sequence[LiveJob], out: Path, progress: bool | None = False
) -> dict[LiveJob, dict]:
    """The episodes ``jobs`` of ``cell``: read from its results file under ``out / "persuasion"`` where
    stored, else played (as :func:`live_rows` plays them) and appended at once by the runner
    (:func:`benchmarks.runner.run_cell`). Returns the episode summaries by job (an LLM persuader's
    counters under ``_llm_stats``, the server retries its requests took under ``_llm_faults``)."""
    records = run_cell(cell, list(jobs), Path(out), progress)
    return {
        job: {
            **rec["episode"],
            **({"_llm_stats": rec["llm_stats"]} if "llm_stats" in rec else {}),
            **({"_llm_faults": rec[FAULTS_FIELD]} if FAULTS_FIELD in rec else {}),
        }
        for job, rec in zip(jobs, records)
    }


def _counters_since(stats: Any, before: dict[str, Any]) -> dict[str, Any]:
    """A caller's counters now minus ``before`` (non-numbers as they are now)."""
    return {k: v - before.get(k, 0) if isinstance(v, (int, float)) else v for k, v in dict(stats).items()}


def _sum_stats(stats: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Per-episode counters summed (non-numbers: the last one)."""
    total: dict[str, Any] = {}
    for st in stats:
        for k, v in st.items():
            total[k] = total.get(k, 0) + v if isinstance(v, (int, float)) and not isinstance(v, bool) else v
    return total


def _llm_identity(args: argparse.Namespace | None) -> dict[str, Any]:
    """The LLM options as they go into a results key: backend, model, base URL (openai), re-asks, fallback."""
    from benchmarks.models import run_model_identity

    backend = getattr(args, "backend", None)
    return {
        "backend": backend,
        "model": getattr(args, "model", None),
        "base_url": getattr(args, "base_url", None) if backend == "openai" else None,
        "model_identity": run_model_identity(backend or "vllm", getattr(args, "model", None)),
        "max_resamples": getattr(args, "max_resamples", 10),
        "fallback": getattr(args, "fallback", "raise"),
        **({} if getattr(args, "max_tokens", None) is None else {"max_tokens": args.max_tokens}),
    }  # keyed when set


def _reader_identity(args: argparse.Namespace | None) -> dict[str, Any]:
    """What reads the persuader's lines, as it goes into a results key."""
    if args is None or getattr(args, "reader", "scripted") == "scripted":
        return {"kind": "scripted"}
    return {"kind": "llm", **{k: v for k, v in _llm_identity(args).items() if k != "max_tokens"}}  # reads 8 tokens


def _reader(args: argparse.Namespace | None) -> Any:
    if args is None or getattr(args, "reader", "scripted") == "scripted":
        return None
    from policies.persuasion.llm import LLMReader

    return LLMReader(
        _backend(args), max_resamples=getattr(args, "max_resamples", 10), fallback=getattr(args, "fallback", "raise")
    )


_BACKENDS: dict[int, Any] = {}


def _backend(args: argparse.Namespace) -> Any:
    """The backend of the LLM options (built once per options object: the persuader and the reader share it)."""
    if id(args) in _BACKENDS:
        return _BACKENDS[id(args)][1]
    if not getattr(args, "model", None):
        raise PersuasionBenchmarkError(
            "the llm persuader and --reader llm need a backend: pass --model (and --backend/--base-url)"
        )
    from benchmarks.cli_backends import backend_from_args

    backend = backend_from_args(args)
    _BACKENDS.clear()
    _BACKENDS[id(args)] = (args, backend)  # the args object kept alive, so its id is not reused
    return backend


def _policy(name: str, args: argparse.Namespace | None) -> tuple[BasePolicy, dict[str, Any], dict[str, Any]]:
    if name != LLM_PERSUADER:
        factory = LIVE_POLICIES[name]
        return factory(), dict(getattr(factory, "env_kwargs", {})), {}
    if args is None:
        raise PersuasionBenchmarkError("policy 'llm' needs an LLM backend: pass --model (and --backend/--base-url)")
    from policies.persuasion.llm import LLMPersuader

    cap = getattr(args, "max_tokens", None)  # --max-tokens: the persuader's lines (default: the persuader's own, 160)
    policy = LLMPersuader(
        _backend(args),
        max_resamples=getattr(args, "max_resamples", 10),
        fallback=getattr(args, "fallback", "raise"),
        **({} if cap is None else {"max_tokens": cap}),
    )
    return policy, {}, {"model": getattr(args, "model", None), "backend": getattr(args, "backend", None)}


# ---------------------------------------------------------------------- output
def _fmt(m: float | None, ci: float | None, digits: int = 1) -> str:
    return "n/a" if m is None else f"{m:.{digits}f} ± {ci:.{digits}f}"


def format_live_table(live: Sequence[dict[str, Any]]) -> list[str]:
    """The live rows as plain-text lines: the exact references per family, then per persuader and
    family success, regret and literal ToM per state."""
    first = live[0]
    bounds = "bayes_upper" in first
    what = (
        "references per family: random, oracle exact; bayes = guaranteed value of the point-based Bayes "
        "persuader, bayes<= its upper bound; open-loop exact to T=6, else the beam plan's value, ol<= its "
        "upper bound"
        if bounds
        else "exact success % per family"
    )
    out = [
        f"live persuasion {first.get('env_id', 'tom/Persuasion-v1')}: horizon {first['horizon']}, "
        f"{first['episodes']} episodes per persuader and family; {what} (value of tracking = bayes - open-loop, "
        "of information = oracle - bayes)"
    ]
    extra = f" {'bayes<=':>8} {'ol<=':>7}" if bounds else ""
    head = (
        f"{'family':<10} {'random':>7} {'open-loop':>9} {'bayes':>7}{extra} {'oracle':>7} {'tracking':>9} "
        f"{'information':>11}"
    )
    out += [head, "-" * len(head)]
    fams = first["by_family"]
    for f, r in [*fams.items(), ("mean", first)]:
        up = f" {100 * r['bayes_upper']:>8.1f} {100 * r['open_loop_upper']:>7.1f}" if bounds else ""
        out.append(
            f"{f:<10} {100 * r['random']:>7.1f} {100 * r['open_loop']:>9.1f} {100 * r['bayes']:>7.1f}{up} "
            f"{100 * r['oracle']:>7.1f} {100 * r['value_of_tracking']:>9.1f} {100 * r['value_of_information']:>11.1f}"
        )
    head = (
        f"{'persuader':<11} {'family':<10} {'success %':>13} {'regret':>15} {'desire ToM %':>13} "
        f"{'belief ToM %':>13} {'intention ToM %':>15}"
    )
    out += ["", head, "-" * len(head)]
    for r in live:
        for f, fr in [*r["by_family"].items(), ("all", r)]:
            out.append(
                f"{r['policy']:<11} {f:<10} {_fmt(fr['success'], fr['success_ci']):>13} "
                f"{_fmt(fr['regret'], fr['regret_ci'], 3):>15} "
                f"{_fmt(fr['desire_accuracy'], fr['desire_accuracy_ci']):>13} "
                f"{_fmt(fr['belief_accuracy'], fr['belief_accuracy_ci']):>13} "
                f"{_fmt(fr['intention_accuracy'], fr['intention_accuracy_ci']):>15}"
            )
    if any(r["regret_against"] == "oracle" for r in live):
        out.append(
            "regret: against the Bayes-optimal fair persuader; the oracle's against the state-knowing oracle "
            "(fair_regret in --format json is against the Bayes-optimal fair persuader for every row)"
        )
    for r in live:
        if "llm_stats" in r:
            s = r["llm_stats"]
            out.append(
                f"{r['policy']} ({r.get('model')}): {s.get('fallbacks', 0)} random fallbacks, "
                f"{s.get('parse_failures', 0)} unparsed replies over {s.get('decisions', 0)} lines"
            )
    return out
