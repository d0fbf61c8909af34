"""One live persuasion episode played (:mod:`benchmarks.persuasion.live`'s rows are made of them): single-seat
(:func:`play_episode`: the runner plays, the ToM recorder scores) and two-seat (:func:`play_two_seat`: both seats
predict and act, each scored out of band), with each seat's policy seed (:func:`policy_seed`)."""

from __future__ import annotations

from typing import Any

from benchmarks import policy_seeds
from benchmarks.runner_episodes import play
from policies.base import BasePolicy


def policy_seed(seed: int, seat: int = 0) -> int | None:
    """The seed of the episode's ``seat``-th policy (0: the persuader, 1: a two-seat persuadee): the run's policy
    stream (:func:`benchmarks.policy_seeds.policy_seed`), which no table over env seeds inverts (a fixed hash
    of ``seed`` would let a persuader rebuild the episode's persona in a shadow env)."""
    return policy_seeds.policy_seed(seed, seat=seat)


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
