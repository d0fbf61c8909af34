"""Step 6 of the tutorial: the family's tests. The conformance suite the project runs on its own ids, as
one call: API and spaces (Gymnasium's and SB3's checkers), call order, determinism, pickling, reset
options, the ToM contract and the information rule (with the family's ``probe`` settings)."""

from __future__ import annotations

import numpy as np

import tom_envs
from tom_envs.checks import check_env


def test_the_env_passes_the_conformance_suite():
    report = check_env("tom/FalseBelief-v0")  # raises ConformanceError naming each failed check
    assert not report.failed and "passed" in report.checks["information_rule"], report


def test_the_belief_tracker_beats_the_reality_floor():
    from false_belief.agents import BeliefTracker, Reality

    scores = {}
    for policy in (BeliefTracker(), Reality()):
        env, hits = tom_envs.make("tom/FalseBelief-v0"), []
        for seed in range(200):
            obs, info = env.reset(seed=seed)
            policy.reset(seed)
            done = False
            while not done:
                obs, reward, done, _, info = env.step(policy.act(obs, info))
                hits.append(reward)
        scores[type(policy).__name__] = float(np.mean(hits))
    assert scores["BeliefTracker"] > scores["Reality"] + 0.05, scores
