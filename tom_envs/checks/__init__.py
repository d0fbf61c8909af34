"""The information-rule checker: plays an env the way cheating policies would (docs/architecture.md, contract 4).

Like Gymnasium's ``check_env``, :func:`check_information_rule` is made of small named probes, each reporting a
figure and, on failure, a sentence naming the leak. A probe reads *everything* an env returns to the policy -- every
observation and info entry (recursively), the reward, the step index, counts and positions in the sequence (how many
steps each observation entry has stayed the same, how long its previous run was), and with memory, the last value
every entry took earlier in the episode -- and compares what that buys with what the same probe gets from the public
part of the observation alone (the current observation: for a question-answering env, the question as asked). The
judge reads the truth from the unwrapped env's ToM contract (``tom_truth()``), which no policy gets. Probes:

* ``tables`` -- value → answer / value → hidden-state tables. For every target the env resolves, one
  rule per returned value (and per pair of values): "the value is the answer" or "the majority truth
  of each value", chosen on half of the training units and refitted, scored on held-out units
  (dialogue turns for question-answering envs, whole episodes otherwise). It fails when it beats the
  same probe restricted to the public part by more than ``z`` binomial standard errors.
* ``future`` -- no returned value equals the truth that the coming step (or one of the two after it)
  resolves more often than the last truth revealed does, or than independent values with the same
  frequencies would (``z`` standard errors). This one also reads the observation itself, so it
  catches an answer or a hidden state written into the observation; a wrapped env is judged on its
  own observation's elements (:func:`reencoded`: a wrapper's one-hot of them is no leak).

Pass a registered id, an env wrapped exactly as your runner wraps it (:func:`benchmarks.runner.make_env`),
or a zero-argument factory (:func:`check_information_rule`). Example: ``print(check_information_rule(
"tom/PersuasiveToM-v1"))`` shows every probe's figures (a leak raises :class:`InformationLeak`).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np

from tom_envs.checks.features import flatten, hashable
from tom_envs.checks.play import Row, episode_options, play_aec, play_gym, play_parallel
from tom_envs.checks.probes import LAGS, MAX_PAIRS, Z, future_probe, reencoded, table_probe
from tom_envs.checks.report import InformationLeak, InformationReport, ProbeResult
from tom_envs.errors import TomEnvsError
from tom_envs.tom import tom_spec_of

__all__ = ["InformationLeak", "InformationReport", "ProbeResult", "check_information_rule", "flatten", "hashable",
           "make_any", "LAGS", "MAX_PAIRS", "Z"]


def _build(env: Any, kwargs: dict[str, Any]) -> tuple[Any, str]:
    if isinstance(env, str):
        from tom_envs.registration import record

        return make_any(env, **{**record(env).example_kwargs, **kwargs}), env
    if kwargs:
        raise TomEnvsError("check_information_rule takes kwargs only with a registered id; build the env yourself "
                           "and pass it instead")
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


def check_information_rule(env: Any, *, episodes: int | None = None, repeats: int | None = None, seed: int = 0,
                           unit: str = "turn", z: float = Z, max_steps: int = 10_000, timing: bool = False,
                           strict: bool = True, **kwargs: Any) -> InformationReport:
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

    Returns:
        an :class:`InformationReport` with every probe's figures.

    Raises:
        InformationLeak: ``strict`` and a probe found a leak (the message names every one).
        ToMContractError: the env keeps no ToM contract (no truths to probe).
    """
    if unit not in ("turn", "episode"):
        raise TomEnvsError(f"unit is 'turn' or 'episode', got {unit!r}")
    env, name = _build(env, kwargs)
    spec = tom_spec_of(env)
    base = getattr(env, "unwrapped", env)
    if hasattr(env, "agent_iter"):
        traces = list(play_aec(env, episodes or 40, seed, max_steps, spec.predictor, timing))
    elif hasattr(env, "possible_agents"):
        traces = list(play_parallel(env, episodes or 40, seed, max_steps, timing))
    else:
        qa = spec.action_is_prediction
        options = episode_options(base, episodes)
        traces = list(play_gym(env, options, repeats or (6 if qa else 1), seed, max_steps, not qa, timing))
    if timing:
        _bucket_times(traces)
    rows_by_target: dict[str, list[Row]] = defaultdict(list)
    for e, trace in enumerate(traces):
        for seen, truth, (episode, turn), n, _ in trace:
            for target, y in truth.items():
                unit_key = (episode, turn) if unit == "turn" and turn is not None else e
                rows_by_target[target.split("[")[0]].append(Row(seen["all"], seen["public"], target, y, unit_key, n, e))
    results, copies = [], reencoded(traces)
    for target in sorted(rows_by_target):
        results.append(table_probe(rows_by_target[target], target, z))
        results.append(future_probe(traces, target, z, copies))
    report = InformationReport(name, results)
    if strict and not report.ok:
        raise InformationLeak(f"{name} hands a policy what it is scored on:\n" + "\n".join(f"* {s}" for s in report.leaks)
                              + "\nKeep ground truth out of band (tom_truth / the recorder's records) and return it "
                              "only when the episode ends (docs/architecture.md, contract 4).")
    return report
