"""The live rows of ``python -m benchmarks persuasion --env live``: persuaders on live persuasion (v2 by default,
``--live-env tom/Persuasion-v1`` or ``tom/Persuasion-v3``; what each env plays: :mod:`benchmarks.persuasion.live_versions`).

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

On ``tom/Persuasion-v3`` the persuaders are v3's (:data:`policies.persuasion.v3.V3_PERSUADERS`: ``random``,
``open-loop``, ``echo``, ``memoryless`` -- the exact best memory-less --, ``bayes``, ``oracle``; ``all`` names the
six), every reference is exact, and the rows add ``memoryless``, ``echo``, ``value_of_memory`` (Bayes - best
memory-less), ``source_majority`` / ``stake_majority`` (the literal-ToM floors), ``exact_success`` (the persuader's
own exact success, percent, beside its played one) and ``gates`` (issue 39's four, in points, with pass/fail and the
played paired difference: :mod:`benchmarks.persuasion.live_gates`); literal ToM is ``source_accuracy`` and
``stake_accuracy``. v3 takes integer acts, so the LLM persuader, the speaking ones and ``--reader llm`` are v1/v2's.
The command's ``--out`` keeps every episode (:func:`stored_episodes`; a rerun reads them back)::

    python -m benchmarks persuasion --env live --policy all --episodes 300
    python -m benchmarks persuasion --env live --policy bayes,llm --backend openai --base-url URL --model NAME
    python -m benchmarks persuasion --env live --live-env tom/Persuasion-v3 --horizon 8 --episodes 300

The command itself (options, QA rows) is :mod:`benchmarks.persuasion.benchmark`; an episode is played by
:mod:`benchmarks.persuasion.live_play`, stored by :mod:`benchmarks.persuasion.live_store` and the rows printed by
:mod:`benchmarks.persuasion.live_table` (their public names are importable from here too).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from benchmarks.cli import not_applicable
from benchmarks.cli_types import positive_int
from benchmarks.errors import RunnerError
from benchmarks.persuasion.live_gates import gate_results
from benchmarks.persuasion.live_play import play_episode, play_two_seat, policy_seed  # noqa: F401  (re-exported)
from benchmarks.persuasion.live_store import LiveCell, LiveJob, counters_since, stored_episodes, sum_stats
from benchmarks.persuasion.live_table import format_live_table  # noqa: F401  (re-exported)
from benchmarks.persuasion.live_versions import LIVE_VERSIONS, LiveVersion, live_version
from benchmarks.results import FAULTS_FIELD, RESULTS_VERSION, fault_columns
from benchmarks.runner import progress_bar
from benchmarks.runner_envs import make_env
from tom_envs.stats import mean_ci95
from policies.base import BasePolicy
from policies.llm.caller import split_faults
from policies.persuasion.speaking import SPEAKING_PERSUADERS
from tom_envs.errors import TomEnvsError

LIVE_ENV = "tom_envs.persuasion.mind_env:PersuasionMindEnv"  # v1's class (kept: an import of other modules)
#: The live envs ``--live-env`` selects, by id; the first is the default.
LIVE_IDS: tuple[str, ...] = tuple(LIVE_VERSIONS)
#: The default env's persuaders by name (a class's ``env_kwargs`` go to its env); "llm" is built from the LLM
#: options. Each env's own: :attr:`~benchmarks.persuasion.live_versions.LiveVersion.persuaders`.
LIVE_POLICIES: dict[str, Callable[[], BasePolicy]] = dict(LIVE_VERSIONS[LIVE_IDS[0]].persuaders)
LLM_PERSUADER = "llm"
LIVE_EPISODES = 300  # default episodes per persuader and family
LIVE_HORIZON = 4
TARGETS = ("desire", "belief", "intention")  # v1/v2's literal-ToM targets (a version's own: LiveVersion.targets)
#: The references averaged over the families into a row (those the env's references have).
MEAN_REFERENCES = (
    "random",
    "open_loop",
    "echo",
    "memoryless",
    "bayes",
    "oracle",
    "value_of_tracking",
    "value_of_information",
    "value_of_memory",
    "bayes_upper",
    "open_loop_upper",
    "source_majority",
    "stake_majority",
)


class PersuasionBenchmarkError(TomEnvsError, ValueError):
    """Bad arguments to ``python -m benchmarks persuasion``."""


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
        "v1: exact planning, ~1 s per family at 4, ~13 s at 5; v3: 1..8, exact, ~5 s per family at 8)",
    )
    parser.add_argument(
        "--live-env",
        choices=list(LIVE_IDS),
        default=LIVE_IDS[0],
        help=f"live: the env played, by id (default {LIVE_IDS[0]}; {LIVE_IDS[1]} stays selectable; "
        f"{LIVE_IDS[2]} plays its own persuaders: {', '.join(LIVE_VERSIONS[LIVE_IDS[2]].persuaders)})",
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


def family_names(families: Any) -> list[str]:
    """The v1/v2 families a ``--families`` value names (comma-separated or a list; None: all)."""
    try:
        return LIVE_VERSIONS[LIVE_IDS[0]].resolve(families)
    except TomEnvsError as err:
        raise PersuasionBenchmarkError(str(err)) from None


def _summarise(eps: list[dict[str, Any]], regret_key: str, targets: Sequence[str] = TARGETS) -> dict[str, Any]:
    row: dict[str, Any] = {}
    row["success"], row["success_ci"] = mean_ci95([100.0 * e["success"] for e in eps])
    row["regret"], row["regret_ci"] = mean_ci95([e[regret_key] for e in eps])
    row["fair_regret"], row["fair_regret_ci"] = mean_ci95([e["regret"] for e in eps])
    for t in targets:
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
    env_id = str(getattr(args, "live_env", None) or LIVE_IDS[0])
    try:
        version = live_version(env_id)
        names = version.resolve(families if families is not None else getattr(args, "families", None))
    except TomEnvsError as err:  # LiveVersionError among them
        raise PersuasionBenchmarkError(str(err)) from None
    if (
        args is not None
        and getattr(args, "env", None) == "live"
        and isinstance(getattr(args, "policy", None), DefaultPolicy)
    ):
        policies = ["all"]  # no --policy given: every scripted persuader
    policies = [p for name in policies for p in (version.scripted if name == "all" else [name])]
    _check_persuaders(version, policies, args)
    silent = [name for name in policies if name in version.scripted]
    if silent and getattr(args, "reader", "scripted") == "llm":
        raise PersuasionBenchmarkError(
            f"--reader llm reads the persuaders' words, but {', '.join(silent)} act by principle index (the env writes a "
            "templated line it never reads), so their rows would be the scripted reader's; choose persuaders that "
            f"speak: {LLM_PERSUADER}, {', '.join(SPEAKING_PERSUADERS)} (e.g. bayes-plain: the Bayes persuader in plain "
            "words), or drop --reader llm"
        )
    refs = _references(version, names, horizon)
    reader = _reader(args)
    rows, played_by = [], {}
    for name in policies:
        policy, env_kwargs, identity = _policy(version, name, args)
        if version.reads_words:
            env_kwargs["reader"] = reader
        env = make_env(env_id, record=True, horizon=horizon, families=names, **env_kwargs)
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
            by_family[f] = {
                **_summarise(eps, regret_key, version.targets),
                **{k: v for k, v in refs[f].items() if k != "family"},
                **_exact_success(version, name, [refs[f]]),
            }
            all_eps += eps
        played_by[name] = played
        row: dict[str, Any] = {
            "env": "live",
            "version": env_id.rsplit("-", 1)[-1],
            "env_id": env_id,
            "policy": name,
            "episodes": episodes,
            "horizon": horizon,
            "families": names,
            **identity,
            **_summarise(all_eps, regret_key, version.targets),
            "regret_against": "oracle" if regret_key == "oracle_regret" else "bayes",
        }
        for key in MEAN_REFERENCES:
            if key in refs[names[0]]:
                row[key] = float(np.mean([refs[f][key] for f in names]))
        row["optimal_success"] = 100.0 * row["bayes"]
        row.update(_exact_success(version, name, [refs[f] for f in names]))
        if hasattr(policy, "stats"):  # an LLM persuader: its counters, and the server retries it met
            jobs = [(f, seed + i) for f in names for i in range(episodes)]
            if out is None:
                row["llm_stats"], faults = split_faults(dict(policy.stats))
                row.update(fault_columns([{FAULTS_FIELD: faults}] if faults is not None else []))
            else:
                row["llm_stats"] = sum_stats([played[job].get("_llm_stats", {}) for job in jobs])
                row.update(
                    fault_columns(
                        [{FAULTS_FIELD: played[job]["_llm_faults"]} for job in jobs if "_llm_faults" in played[job]]
                    )
                )
        elif reader is not None:  # a scripted persuader read by an LLM: the reader's server retries
            if out is None:
                _, faults = split_faults(counters_since(reader.stats, reader_before))
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
    if version.gates:  # issue 39's gates, exact per family, with the played paired differences: on every row
        persuader_of = {key: name for name, key in version.exact.items()}
        gates = gate_results(version.gates, {f: refs[f] for f in names}, played_by, persuader_of)
        for row in rows:
            row["gates"] = gates
    return rows


def _check_persuaders(version: LiveVersion, policies: Sequence[str], args: argparse.Namespace | None) -> None:
    """Every persuader named is one ``version`` plays; the LLM persuader and ``--reader llm`` need an env that reads
    written lines.

    Raises:
        PersuasionBenchmarkError: naming the persuader (or the reader) and what to choose instead.
    """
    known = [*version.persuaders, *([LLM_PERSUADER] if version.reads_words else [])]
    for name in policies:
        if name in known:
            continue
        if name == LLM_PERSUADER or name in LIVE_POLICIES:
            raise PersuasionBenchmarkError(
                f"persuader {name!r} does not play {version.env_id}: it takes integer acts and reads no words; "
                f"choose from {', '.join(known)}, or play {name!r} on {LIVE_IDS[0]}"
            )
        raise PersuasionBenchmarkError(f"unknown persuader {name!r}; choose from {', '.join(known)}")
    if not version.reads_words and getattr(args, "reader", "scripted") == "llm":
        raise PersuasionBenchmarkError(
            f"--reader llm reads written lines, but {version.env_id} takes integer acts; drop --reader llm, or play "
            f"{LIVE_IDS[0]}"
        )


def _exact_success(version: LiveVersion, name: str, refs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """``{"exact_success": percent}``: the persuader's own exact success (mean over ``refs``' families) where the
    version has one for it, else nothing."""
    key = version.exact.get(name)
    return {} if key is None else {"exact_success": 100.0 * float(np.mean([r[key] for r in refs]))}


def _references(version: LiveVersion, names: Sequence[str], horizon: int) -> dict[str, dict[str, Any]]:
    """Each family's references for ``version`` (a named error past the horizons the version plans for)."""
    try:
        return version.references(names, horizon)
    except TomEnvsError as err:
        raise PersuasionBenchmarkError(f"--horizon {horizon}: {err}") from None


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


def _policy(
    version: LiveVersion, name: str, args: argparse.Namespace | None
) -> tuple[BasePolicy, dict[str, Any], dict[str, Any]]:
    if name != LLM_PERSUADER:
        factory = version.persuaders[name]
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
