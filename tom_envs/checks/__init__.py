"""The suite's checkers: :func:`check_env`, the conformance suite as one call (:mod:`tom_envs.checks.conformance`),
and the information-rule checker, which plays an env the way cheating policies would (docs/architecture.md,
contract 4).

Like Gymnasium's ``check_env``, :func:`check_information_rule` is made of small named probes, each reporting a
figure and, on failure, a sentence naming the leak. A probe reads *everything* a policy receives
(:mod:`~tom_envs.checks.features`): every observation and info entry (recursively), the reward, the step index,
counts and positions in the sequence, the last value every entry took earlier in the episode, the words and
numbers inside strings, the ranks of numeric sequences, numbers binned and rounded; in AEC envs every seat's view
after every step (:mod:`~tom_envs.checks.play`); and with ``runner=``, the runner's channels
(:mod:`~tom_envs.checks.channels`: the description, the policy seeds through a shadow env, the passes). It
compares what that buys with what the same probe gets from the public part: what the env or its family
**declares** public (``tom_public``, ``tom_private`` per seat, ``tom_composed`` texts; ``declare=``), with
the earlier values of those where truths follow the play -- never "everything the env itself emits", so an
undeclared element of the env's own observation, an info key or a word of a text is a candidate leak. The judge reads the truth from the unwrapped
env's ToM contract (``tom_truth()``), which no policy gets. Probes (:mod:`~tom_envs.checks.probes`):

* ``tables`` -- value → truth tables on held-out units, against the same tables on the public part.
* ``future`` -- no value outside the public part equals the truth the coming steps resolve more often than
  the public part, persistence or independent values do.
* ``control`` -- the positive control: the target planted, which the tables must catch; where they do not,
  the report's verdict is "no power", not "no leak".
* ``channel`` -- the runner's description and seeds, checked as such.

Pass a registered id, an env wrapped exactly as your runner wraps it (:func:`benchmarks.runner.make_env`),
or a zero-argument factory (:func:`check_information_rule`). Example: ``print(check_information_rule(
"tom/PersuasiveToM-v1"))`` shows every probe's figures (a leak raises :class:`InformationLeak`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np

from tom_envs.checks.conformance import ALLOWED_WARNINGS, ConformanceError, ConformanceReport, check_env
from tom_envs.checks.channels import Declared, RunnerChannels, check_description, check_seeds, shadow_seed
from tom_envs.checks.features import flatten, hashable, numeric_features
from tom_envs.checks.play import Plan, Row, element_suffix, episode_options, play_aec, play_gym, play_parallel
from tom_envs.checks.probes import LAGS, MAX_PAIRS, Z, future_probe, reencoded, table_probe
from tom_envs.checks.report import InformationLeak, InformationReport, ProbeResult
from tom_envs.errors import TomEnvsError
from tom_envs.tom import tom_spec_of

__all__ = [
    "ALLOWED_WARNINGS",
    "ConformanceError",
    "ConformanceReport",
    "check_env",
    "Declared",
    "InformationLeak",
    "InformationReport",
    "ProbeResult",
    "RunnerChannels",
    "check_information_rule",
    "flatten",
    "hashable",
    "make_any",
    "LAGS",
    "MAX_PAIRS",
    "Z",
]


def _build(env: Any, kwargs: dict[str, Any]) -> tuple[Any, str]:
    if isinstance(env, str):
        from tom_envs.registration import record

        return make_any(env, **{**record(env).example_kwargs, **kwargs}), env
    if kwargs:
        raise TomEnvsError(
            "check_information_rule takes kwargs only with a registered id; build the env yourself and pass it instead"
        )
    if callable(env) and not hasattr(env, "reset"):
        env = env()
    return env, type(getattr(env, "unwrapped", env)).__name__


def make_any(env_id: str, **kwargs: Any) -> Any:
    """A registered id as its registry kind makes it (Gymnasium, PettingZoo parallel or AEC)."""
    from tom_envs.registration import make, make_aec, record

    return make_aec(env_id, **kwargs) if record(env_id).kind == "aec" else make(env_id, **kwargs)


def _bucket_times(traces: list[list[tuple]], buckets: int = 4) -> None:
    """Each step's ``time`` as its quartile over the run (a table needs values that repeat)."""
    views = {id(seen["all"]): seen["all"] for trace in traces for seen, *_ in trace if "time" in seen["all"]}
    times = np.array([v["time"] for v in views.values()])
    if not len(times):
        return
    edges = np.quantile(times, np.linspace(0, 1, buckets + 1)[1:-1])
    for view in views.values():
        view["time"] = int(np.searchsorted(edges, view["time"]))


def _rows(
    traces: list[tuple[str | None, list[tuple]]], unit: str, declared: Declared, predictor: str | None
) -> dict[str, list[Row]]:
    """One row per (decision, target element) a seat may not know itself, grouped by target (``target@seat``
    for a seat other than the predictor), the step's whole truth planted as the positive control."""
    rows: dict[str, list[Row]] = defaultdict(list)
    for e, (seat, trace) in enumerate(traces):
        suffix_of = "" if seat is None or seat == predictor else f"@{seat}"
        for seen, truth, (episode, turn), n, whole in trace:
            planted: dict[str, Hashable] = {}
            flatten("control", whole, planted)
            for target, y in truth.items():
                if declared.knows(seat, target):
                    continue
                # the item, the same in every pass and repeat (so that no table learns an item in one pass and
                # is tested on it in another): a dialogue turn, else the seat's episode
                unit_key = (episode, turn) if unit == "turn" and turn is not None else (seat, episode)
                suffix = element_suffix(target)
                rows[target.split("[")[0] + suffix_of].append(
                    Row(seen["all"], seen["public"], target, y, unit_key, n, e, suffix, planted)
                )
    return rows


def _play(env: Any, spec: Any, plan: Plan, episodes: int | None) -> list[tuple[str | None, list[tuple]]]:
    base = getattr(env, "unwrapped", env)
    if hasattr(env, "agent_iter"):
        plan.history = True
        return list(play_aec(env, episodes or 40, plan, list(env.possible_agents)))
    if hasattr(env, "possible_agents"):
        plan.history = True
        return list(play_parallel(env, episodes or 40, plan))
    plan.question = spec.action_is_prediction
    plan.history = not plan.question
    return list(play_gym(env, episode_options(base, episodes), plan))


def check_information_rule(
    env: Any,
    *,
    episodes: int | None = None,
    repeats: int | None = None,
    seed: int = 0,
    unit: str = "turn",
    z: float = Z,
    max_steps: int = 10_000,
    timing: bool = False,
    strict: bool = True,
    declare: Mapping[str, Any] | None = None,
    runner: RunnerChannels | None = None,
    **kwargs: Any,
) -> InformationReport:
    """Play ``env`` as cheating policies would and report what everything it returns gives away.

    Args:
        env: a registered id (made with its example arguments and ``kwargs``), an env instance
            (wrapped as your runner wraps it: the probes read what the wrappers return), or a
            zero-argument factory of one.
        episodes: episodes to play (dataset envs: the first ``episodes`` of the data, default all; others 40).
        repeats: plays of every episode under other seeds (default 6 for question-answering envs, else 1).
        seed: the first seed; ``z``: standard errors of slack; ``max_steps``: steps per episode at most.
        unit: how held-out units are cut for question-answering envs: ``"turn"`` (a dialogue turn's
            questions) or ``"episode"`` (a whole dialogue: where answers persist within a dialogue, so a
            table keyed on the dialogue cannot learn the dataset's labels).
        timing: also read how long each call took (``time``: its quartile over the run). Off by
            default: wall-clock time is not deterministic (the step index is always read).
        strict: raise :class:`InformationLeak` when a probe finds a leak (default); False: only report.
        declare: what is no leak (:class:`~tom_envs.checks.channels.Declared`): ``{"public": [path
            patterns], "private": {seat pattern: [path patterns]}, "composed": {text path: [path patterns]},
            "known": {seat pattern: [target prefixes]}}``, added to the unwrapped env's own ``tom_public`` /
            ``tom_private`` / ``tom_composed`` / ``tom_known``. Nothing undeclared is public.
        runner: the runner's channels to model (:class:`~tom_envs.checks.channels.RunnerChannels`: the
            description handed to ``check_env``, the policy seeds, the passes); None: the env alone.

    Returns:
        an :class:`InformationReport` with every probe's figures; its ``verdict`` is ``"no power"`` where a
        target's positive control (the target planted in what the policy reads) was not caught.

    Raises:
        InformationLeak: ``strict`` and a probe found a leak (the message names every one).
        ToMContractError: the env keeps no ToM contract (no truths to probe).
    """
    if unit not in ("turn", "episode"):
        raise TomEnvsError(f"unit is 'turn' or 'episode', got {unit!r}")
    env, name = _build(env, kwargs)
    spec = tom_spec_of(env)
    base = getattr(env, "unwrapped", env)
    declared, runner = Declared.of(base, declare), runner or RunnerChannels()
    qa = spec.action_is_prediction and not hasattr(env, "possible_agents")
    plan = Plan(
        seed=seed,
        repeats=repeats or (6 if qa else 1),
        max_steps=max_steps,
        timing=timing,
        passes=runner.passes,
        remember=runner.remember,
        declared=declared,
    )
    channels: list[ProbeResult] = []
    if runner.description is not None:
        channels.append(check_description(runner.description))
    if runner.policy_seeds is not None:
        env_seeds = [seed + 1000 * r + e for r in range(plan.repeats) for e in range(max(episodes or 40, 1))]
        channels.append(check_seeds(runner.policy_seeds, env_seeds))
        plan.shadow = shadow_seed(runner.policy_seeds, env_seeds)
    traces = _play(env, spec, plan, episodes)
    if timing:
        _bucket_times([t for _, t in traces])
    views = [seen for _, t in traces for seen, *_ in t]
    numeric_features([v["all"] for v in views], [v["public"] for v in views])
    rows = _rows(traces, unit, declared, spec.predictor)
    results, copies = list(channels), reencoded([t for _, t in traces])
    for key in sorted(rows):
        target, _, seat = key.partition("@")
        results += table_probe(rows[key], key, z)
        seat_of = seat or spec.predictor  # None: a single-agent env, or a parallel env's joint view
        if not any(declared.knows(seat_of, e) for e in {r.target for r in rows[key]}):
            mine = [t for s, t in traces if s == seat_of or (s is None and not seat)]
            results.append(future_probe(mine, target, z, copies, declared.public, key))
    report = InformationReport(name, results)
    if strict and not report.ok:
        raise InformationLeak(
            f"{name} hands a policy what it is scored on:\n"
            + "\n".join(f"* {s}" for s in report.leaks)
            + "\nKeep ground truth out of band (tom_truth / the recorder's records) and return it "
            "only when the episode ends (docs/architecture.md, contract 4)."
        )
    return report
