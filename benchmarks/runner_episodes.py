"""Single-agent (Gymnasium) episodes, one by one or in lockstep, and what an episode produces.

* :func:`play` -- one episode: each step the policy predicts (when the env is wrapped in a
  :class:`~wrappers.ToMRecorder`; the prediction goes to the recorder), acts and observes.
* :func:`play_lockstep` -- many episodes at once through the policy's batched forms
  (``reset_batch``, ``predict_batch``, ``act_batch``, ``observe_batch``): one call per step serves
  every episode, so an LLM policy makes one backend call per prompting stage. The episodes of one
  batch must end at the same step (group them with :func:`lockstep_batches`).

Each returns :class:`EpisodeResult` (the recorder's episode summary, the last info, the per-step
records an ``on_step`` hook kept, the policy's per-episode counters); an ``on_step`` hook sees each
:class:`Step`. AEC episodes are played by :mod:`benchmarks.runner_aec`, grid cells by
:mod:`benchmarks.runner`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from benchmarks.channels import check_fit, for_policy, episode_policy_seed
from benchmarks.errors import RunnerError
from benchmarks.runner_envs import recorder_of

PolicySeed = Callable[[int], int]
StepHook = Callable[["Step"], Any]


@dataclass(frozen=True)
class Step:
    """One step as an ``on_step`` hook sees it.

    Attributes:
        index: the step's number in the episode (0-based).
        observation, info: what the policy saw before the step.
        prediction: what the policy predicted (None when nothing was recorded).
        action: what it did.
        next_observation, reward, terminated, truncated, next_info: what ``step`` returned.
        log: ``{"predict": ..., "act": ...}`` from the policy's ``last_step_log()`` in lockstep
            (prompts, replies, parse failures...), None when the policy keeps no log.
        record: the ToM recorder's record of the step (None without a recorder). It is read
            from the recorder, out of band: the policy never gets it (``next_info`` holds
            nothing of the recorder's before the episode's last step).
    """

    index: int
    observation: Any
    info: dict
    prediction: Any
    action: Any
    next_observation: Any
    reward: float
    terminated: bool
    truncated: bool
    next_info: dict
    log: dict | None = None
    record: dict | None = None


@dataclass
class EpisodeResult:
    """What one episode produced.

    Attributes:
        seed: the env's seed.
        summary: the ToM recorder's episode summary; without a recorder ``{"return", "steps"}``
            (single-agent) or ``{"returns": {seat: return}, "steps": actions taken}`` and the env's own
            ``info["episode"]`` (AEC).
        info: the last info of the episode.
        steps: the non-None values the ``on_step`` hook returned, in order.
        policy_stats: the policy's ``episode_stats()`` entry for the episode, if it has one.
    """

    seed: int
    summary: dict[str, Any]
    info: dict
    steps: list[Any] = field(default_factory=list)
    policy_stats: dict[str, Any] | None = None


def _check_players(envs: Sequence[Any], policy: Any, methods: Sequence[str], who: str) -> None:
    """An env that is not one or a policy that lacks the runner's methods is a :class:`RunnerError` naming what is
    missing, before anything is reset (not an ``AttributeError`` from inside the loop)."""
    for env in envs:
        if not (callable(getattr(env, "reset", None)) and callable(getattr(env, "step", None))):
            raise RunnerError(
                f"{who}() needs a Gymnasium env (gymnasium.make(...), usually in a ToMRecorder), got "
                f"{type(env).__name__}"
            )
    missing = [m for m in methods if not callable(getattr(policy, m, None))]
    if missing:
        raise RunnerError(
            f"{who}() needs a policy with {', '.join(methods)} (policies.base.BasePolicy gives them); "
            f"{type(policy).__name__} lacks {', '.join(missing)}"
        )


def play(
    env: Any,
    policy: Any,
    seed: int,
    *,
    options: dict | None = None,
    policy_seed: PolicySeed | None = None,
    on_step: StepHook | None = None,
) -> EpisodeResult:
    """One single-agent episode of ``env`` (seeded ``seed``) played by ``policy``.

    Args:
        env: a Gymnasium env, usually wrapped in :class:`~wrappers.ToMRecorder` (then the policy's
            ``predict`` goes to the recorder before every step).
        policy: implements ``reset``/``act``/``observe`` (and ``predict``), see :mod:`policies.base`.
        seed: the env's seed; the policy's is ``policy_seed(seed)`` (default: :func:`benchmarks.policy_seeds.policy_seed`,
            the run's own stream: no function of ``seed`` a policy could invert).
        options: reset options (e.g. which dialogue).
        on_step: called with every :class:`Step`; its non-None results are kept in ``steps``.
    """
    _check_players([env], policy, ("reset", "act", "observe"), "play")
    recorder = recorder_of(env)
    if recorder is not None:
        _check_players([env], policy, ("reset", "act", "observe", "predict"), "play")
    check_fit(policy, [env])
    policy.reset(episode_policy_seed(seed, policy_seed))
    obs, info = env.reset(seed=seed, options=options)
    steps: list[Any] = []
    total, index = 0.0, 0
    while True:
        prediction = None
        if recorder is not None:
            prediction = policy.predict(obs, info)
            recorder.record_prediction(prediction)
        action = policy.act(obs, info)
        new_obs, reward, terminated, truncated, new_info = env.step(action)
        policy.observe(new_obs, reward, terminated, truncated, for_policy(new_info, recorder))
        total += float(reward)
        if on_step is not None:
            kept = on_step(
                Step(
                    index,
                    obs,
                    info,
                    prediction,
                    action,
                    new_obs,
                    reward,
                    terminated,
                    truncated,
                    new_info,
                    record=_last_record(recorder),
                )
            )
            if kept is not None:
                steps.append(kept)
        obs, info, index = new_obs, new_info, index + 1
        if terminated or truncated:
            return EpisodeResult(seed, _summary(recorder, info, total, index), info, steps)


def play_lockstep(
    envs: Sequence[Any],
    policy: Any,
    seeds: Sequence[int],
    *,
    options: Sequence[dict | None] | None = None,
    policy_seed: PolicySeed | None = None,
    on_step: StepHook | None = None,
) -> list[EpisodeResult]:
    """Episodes ``seeds`` on ``envs`` (one env each) in lockstep through ``policy``'s batched forms.

    Every step makes one ``predict_batch`` (when the envs are recorded), one ``act_batch`` and one
    ``observe_batch`` call for all episodes. ``options`` gives each episode's reset options. The
    episodes must end at the same step (:class:`~benchmarks.errors.RunnerError` otherwise).
    Arguments otherwise as :func:`play`; ``Step.log`` carries the policy's step log.
    """
    if len(envs) != len(seeds):
        raise RunnerError(f"lockstep needs one env per episode, got {len(envs)} envs for {len(seeds)} seeds")
    _check_players(envs, policy, ("reset_batch", "act_batch", "observe_batch"), "play_lockstep")
    opts = list(options) if options is not None else [None] * len(seeds)
    recorders = [recorder_of(env) for env in envs]
    if any(r is not None for r in recorders):
        _check_players(envs, policy, ("reset_batch", "act_batch", "observe_batch", "predict_batch"), "play_lockstep")
    check_fit(policy, envs)
    policy.reset_batch([episode_policy_seed(s, policy_seed) for s in seeds])
    obs, infos = map(list, zip(*(env.reset(seed=s, options=o) for env, s, o in zip(envs, seeds, opts))))
    step_log = getattr(policy, "last_step_log", None)
    steps: list[list[Any]] = [[] for _ in envs]
    totals = [0.0] * len(envs)
    index = 0
    while True:
        predictions: list[Any] = [None] * len(envs)
        pred_log = None
        if recorders[0] is not None:
            predictions = list(policy.predict_batch(obs, infos))
            pred_log = step_log() if step_log else None
        actions = policy.act_batch(obs, infos)
        act_log = step_log() if step_log else None
        results = []
        for k, env in enumerate(envs):
            if recorders[k] is not None:
                recorders[k].record_prediction(predictions[k])
            results.append(env.step(actions[k]))
        new_obs, rewards, terms, truncs, new_infos = map(list, zip(*results))
        policy.observe_batch(new_obs, rewards, terms, truncs, [for_policy(i, r) for i, r in zip(new_infos, recorders)])
        for k in range(len(envs)):
            totals[k] += float(rewards[k])
            if on_step is not None:
                log = (
                    {"predict": pred_log[k] if pred_log else None, "act": act_log[k] if act_log else None}
                    if step_log
                    else None
                )
                kept = on_step(
                    Step(
                        index,
                        obs[k],
                        infos[k],
                        predictions[k],
                        actions[k],
                        new_obs[k],
                        rewards[k],
                        terms[k],
                        truncs[k],
                        new_infos[k],
                        log,
                        _last_record(recorders[k]),
                    )
                )
                if kept is not None:
                    steps[k].append(kept)
        ended = [t or u for t, u in zip(terms, truncs)]
        if any(ended) and not all(ended):
            raise RunnerError(
                "episodes of one lockstep batch ended at different steps; lockstep needs a common "
                "length (group the episodes with benchmarks.runner.lockstep_batches)"
            )
        obs, infos, index = new_obs, new_infos, index + 1
        if all(ended):
            break
    stats_of = getattr(policy, "episode_stats", None)
    stats = list(stats_of()) if stats_of is not None else [None] * len(envs)
    return [
        EpisodeResult(s, _summary(r, i, t, index), i, st, ps)
        for s, r, i, t, st, ps in zip(seeds, recorders, infos, totals, steps, stats)
    ]


def _summary(recorder: Any, info: dict, total: float, steps: int) -> dict[str, Any]:
    if recorder is not None:
        return recorder.episode_summary()
    return {"return": total, "steps": steps}


def _last_record(recorder: Any) -> dict | None:
    return None if recorder is None else recorder.last_record


def lockstep_batches(items: Sequence[Any], size: int, length: Callable[[Any], Any] | None = None) -> list[list[int]]:
    """Indices of ``items`` cut into lockstep batches of at most ``size``, items of equal
    ``length(item)`` together (first-seen order), so a batch never waits on a finished episode."""
    if size < 1:
        raise RunnerError(f"--lockstep must be at least 1, got {size}")
    groups: dict[Any, list[int]] = {}
    for k, item in enumerate(items):
        groups.setdefault(None if length is None else length(item), []).append(k)
    return [members[i : i + size] for members in groups.values() for i in range(0, len(members), size)]
