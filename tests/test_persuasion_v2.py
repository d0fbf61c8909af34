"""Live persuasion v2 (issue 27): the mind's contract, the bounds against exact values and brute force,
the reader, the named horizon error, the information rule, and bad lines costing success."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import tom_envs
from tom_envs.persuasion.mind import NOTHING, CONSIDERING, TRUSTING, WARY
from tom_envs.persuasion.mind_env import PersuasionMindV2Env
from tom_envs.persuasion.mind_text import PERSUADER_LINES
from tom_envs.persuasion.mind_v2 import HOSTILE, STUFFED, MindModelV2, MindPersonaV2, V2Traits, model_v2_for, moves_v2
from tom_envs.persuasion.planning import BayesPlanner, open_loop, plan_value
from tom_envs.persuasion.planning_v2 import (
    MAX_HORIZON,
    PointPlanner,
    UnsupportedHorizon,
    open_loop_upper,
    open_loop_v2,
    references_v2,
)
from tom_envs.persuasion.principles import PRINCIPLES, InvalidPersona
from tom_envs.persuasion.reader import ReaderV2
from tom_envs.persuasion.scenarios import FAMILIES_V2, family_v2_named

HEALTH = family_v2_named("health")


def _play(env, seed, actions):
    obs, info = env.reset(seed=seed)
    trace = [(obs.tolist(), info)]
    for a in actions:
        obs, r, done, _, info = env.step(a)
        trace.append((obs.tolist(), r, info))
        if done:
            break
    return trace, env.text()


# ---------------------------------------------------------------------- the mind
def test_same_seed_same_trajectory_and_registered():
    env = tom_envs.make("tom/Persuasion-v2")
    lines = [0, {"utterance": "Experts say it works, and I'm not lying."}, 5, {"action": 2, "utterance": "asdf zzz"}]
    assert _play(env, 3, lines) == _play(tom_envs.make("tom/Persuasion-v2"), 3, lines)
    assert _play(env, 3, lines) != _play(env, 4, lines)
    assert env.observation_space.contains(env.reset(seed=0)[0])


def test_kernel_is_a_distribution_with_walkouts():
    m = model_v2_for(HEALTH)
    total = m.success + m.kernel.sum(axis=(2, 3))
    assert np.all(total <= 1 + 1e-12) and np.all(total >= 0.3 - 1e-12)
    np.testing.assert_allclose(m.opening.sum(axis=1), 1.0)
    for k, p in enumerate(HEALTH.personas):  # an insult to a wary persuadee: it leaves with 2 * leave
        s = m.index(type(m.state(0))(k, CONSIDERING, WARY, 0))
        assert total[HOSTILE, s] == pytest.approx(1 - min(1.0, 2 * p.v2.leave))
        t = m.index(type(m.state(0))(k, CONSIDERING, TRUSTING, 0))
        assert total[NOTHING, t] == pytest.approx(1.0)


def test_misleading_front_and_reactance_follow_the_persona():
    p = HEALTH.personas[0]
    stuffed = moves_v2(p, CONSIDERING, TRUSTING, 2, STUFFED)
    assert sum(pr for _, b, _, pr in stuffed if b == WARY) == pytest.approx(p.v2.reactance)
    hostile = moves_v2(p, CONSIDERING, TRUSTING, 2, HOSTILE)
    assert sum(pr for step, _, _, pr in hostile if step < 0) == pytest.approx(p.v2.reactance)
    with pytest.raises(InvalidPersona, match="candour"):
        MindPersonaV2("x", "x", (1, 1, 0, 0, 0), v2=V2Traits((0.8, 0.2), (0.3, 0.1), 0, 0.1, 0.5))
    with pytest.raises(InvalidPersona, match="MindPersonaV2"):
        MindModelV2(tom_envs.persuasion.scenarios.FAMILIES[0])


# ---------------------------------------------------------------------- references
@pytest.mark.parametrize("horizon", [1, 2, 3])
def test_bounds_bracket_the_exact_bayes_value(horizon):
    m = model_v2_for(HEALTH)
    exact = BayesPlanner(m, horizon).initial_value()
    pp = PointPlanner(m, horizon)
    assert pp.initial_value() <= exact + 1e-9 <= pp.initial_upper() + 2e-9
    assert exact - pp.initial_value() < 0.005  # the point set is dense enough at small horizons


def _policy_value(m, pp, belief, t):
    """Exact success probability of the lookahead persuader from ``belief`` (recursion over replies)."""
    if t >= pp.horizon:
        return 0.0
    a = pp.action(belief, t)
    J = m.joint(belief, a)
    po = J.sum(axis=0)
    return float(m.success[a] @ belief) + sum(
        po[o] * _policy_value(m, pp, J[:, o] / po[o], t + 1) for o in np.flatnonzero(po > 1e-14)
    )


def test_the_played_persuader_achieves_its_guarantee_brute_force():
    m = model_v2_for(family_v2_named("charity"))
    pp = PointPlanner(m, 3)
    joint = m.initial[:, None] * m.opening
    po = joint.sum(axis=0)
    achieved = sum(po[o] * _policy_value(m, pp, joint[:, o] / po[o], 0) for o in np.flatnonzero(po > 1e-14))
    assert achieved >= pp.initial_value() - 1e-9


def test_open_loop_exact_and_beam_against_enumeration():
    m = model_v2_for(HEALTH)
    v, plan, exact = open_loop_v2(m, 3)
    ref, ref_plan = open_loop(m, 3)
    assert exact and v == pytest.approx(ref) and plan == ref_plan
    best = max(plan_value(m, p) for p in itertools.product(range(len(PRINCIPLES)), repeat=3))
    assert v == pytest.approx(best) and plan_value(m, plan) == pytest.approx(v)
    v8, plan8, exact8 = open_loop_v2(m, 8)
    assert not exact8 and plan_value(m, plan8) == pytest.approx(v8) and v8 <= open_loop_upper(m, 8) + 1e-12


def test_past_the_supported_horizon_a_named_error():
    with pytest.raises(UnsupportedHorizon, match=str(MAX_HORIZON)):
        PersuasionMindV2Env(horizon=MAX_HORIZON + 1)
    with pytest.raises(UnsupportedHorizon):
        references_v2(model_v2_for(HEALTH), 40)
    from benchmarks.persuasion.live import PersuasionBenchmarkError, live_rows

    with pytest.raises(PersuasionBenchmarkError, match="horizon"):
        live_rows(["random"], episodes=1, seed=0, horizon=40)


# ---------------------------------------------------------------------- the reader
@pytest.mark.parametrize(
    "text, heard",
    [
        ("asdf qwerty everyone zzz", NOTHING),
        ("everyone experts free", NOTHING),
        ("I hate you; experts are liars.", HOSTILE),
        ("You'd be an idiot to miss it, everyone goes.", HOSTILE),
        ("It's free for you; only a few places are left; everyone is doing it; experts recommend it.", STUFFED),
        ("It's free, free, free, totally free!", STUFFED),
        ("I'm not an expert, but I think you'd enjoy it.", NOTHING),
        ("There's no deadline, take your time.", NOTHING),
        ("Experts recommend it for anyone your age.", 3),
        ("Nobody else is doing it, so you'd be first.", NOTHING),
    ],
)
def test_the_reader_reads_as_a_person_would(text, heard):
    assert ReaderV2().read(text, "join the book club") == heard


def test_templated_lines_read_as_their_principle():
    reader = ReaderV2()
    for fam in FAMILIES_V2:
        for sc in fam.scenarios:
            for i, p in enumerate(PRINCIPLES):
                for line in PERSUADER_LINES[p]:
                    assert reader.read(line.format(goal=sc.goal), sc.goal) == i, line


def test_stuffed_and_insulting_lines_do_worse_than_plain():
    from policies.persuasion.speaking import SPEAKING_PERSUADERS

    env = PersuasionMindV2Env(families="charity", horizon=3)
    score = {}
    for name in ("bayes-plain", "bayes-stuffed", "bayes-insult"):
        pol, wins = SPEAKING_PERSUADERS[name](), 0
        for seed in range(40):
            pol.reset(seed)
            obs, info = env.reset(seed=seed)
            done = False
            while not done:
                obs, r, done, _, info = env.step(pol.act(obs, info))
            wins += r
        score[name] = wins / 40
    assert score["bayes-plain"] > 0.4 and score["bayes-stuffed"] < 0.1 and score["bayes-insult"] < 0.1, score


# ---------------------------------------------------------------------- information rule
@pytest.mark.slow
def test_information_rule_bare_and_as_the_runner_wraps_it():
    from benchmarks.runner_envs import make_env
    from tom_envs.checks import check_information_rule

    assert check_information_rule("tom/Persuasion-v2", episodes=80).ok
    assert check_information_rule(make_env("tom/Persuasion-v2", record=True), episodes=80).ok


# ---------------------------------------------------------------------- the two-seat twin
def test_two_seat_twin_faithful_persuadee_and_walkouts():
    from benchmarks.persuasion.live import play_two_seat
    from policies.persuasion.scripted import BayesPersuader, SimulatedMindPersuadee
    from tom_envs.persuasion.mind_two_seat import LEAVE

    env = tom_envs.make_aec("tom/Persuasion-TwoSeat-v2", families="charity", horizon=3)
    res = [play_two_seat(env, BayesPersuader(), SimulatedMindPersuadee(), s) for s in range(30)]
    assert all(r["fidelity"] == 1.0 and r["regret"] == pytest.approx(0.0, abs=1e-12) for r in res)
    assert 0.3 < np.mean([r["success"] for r in res]) < 0.95
    env.reset(seed=1)
    env.step(FAITHFUL_OPENING := 19)  # the opening, as the mind does
    env.step(
        {"utterance": "You idiot."}
    )  # hostile: the mind may leave; a seat that leaves when it did not is unfaithful
    allowed = env.unwrapped._allowed(LEAVE)
    assert allowed == (env.unwrapped.drawn == LEAVE) and FAITHFUL_OPENING == 19
    with pytest.raises(tom_envs.errors.InvalidAction):
        env.step(21)
