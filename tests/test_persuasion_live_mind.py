"""Live persuasion v1: the persuadee's BDI dynamics against an independent reading of their
documentation, and the exact references (oracle, best open-loop, Bayes-optimal fair) against
brute force on small instances; the value of tracking the key property is built for."""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest

from tom_envs.persuasion.mind import (
    CONCERNS,
    HIT,
    LIKING,
    N_OBS,
    NOTHING,
    OFF_TARGET,
    TONE_NOISE,
    TOPICS,
    Family,
    MindModel,
    MindPersona,
    obs_index,
)
from tom_envs.persuasion.principles import InvalidPersona
from tom_envs.persuasion.planning import BayesPlanner, open_loop, oracle_table, plan_value, random_value, references
from tom_envs.persuasion.scenarios import FAMILIES, PROVENANCE

C = len(CONCERNS)


# ---------------------------------------------------------------------- an independent reading of the rules
def _reply(persona: MindPersona, landed: bool, belief: int, concern: int) -> dict[int, float]:
    tones = (
        {2: 1.0} if landed else ({1: 1 - TONE_NOISE, 0: TONE_NOISE} if belief else {0: 1 - TONE_NOISE, 1: TONE_NOISE})
    )
    v = persona.voice[belief]
    out: dict[int, float] = {}
    for tone, pt in tones.items():
        for topic, pv in ((0, 1 - v), (1 + concern, v)):
            if pt * pv > 0:
                out[obs_index(tone, topic)] = out.get(obs_index(tone, topic), 0.0) + pt * pv
    return out


@functools.lru_cache(maxsize=None)
def outcomes(persona: MindPersona, d: int, b: int, c: int, a: int) -> list[tuple[bool, tuple, int, float]]:
    """(agreed, next (d, b, c), reply, probability), read off the module docstring of tom_envs.persuasion.mind."""
    w = np.asarray(persona.concerns, float) / sum(persona.concerns)
    moves: list[tuple[bool, int, dict[int, float], float]] = []  # landed, next belief, next concern dist, prob
    if a == NOTHING:
        moves = [(False, b, {c: 1.0}, 1.0)]
    elif a == LIKING:
        moves = (
            [(False, 0, {c: 1.0}, persona.warmth), (False, 1, {c: 1.0}, 1 - persona.warmth)]
            if b
            else [(False, 0, {c: 1.0}, 1.0)]
        )
    elif a == c:  # principle i answers concern i
        rest = {k: w[k] / (1 - w[c]) for k in range(C) if k != c and w[k] > 0}
        moves = [(True, b, rest, HIT[b]), (False, b, {c: 1.0}, 1 - HIT[b])]
    elif b:
        moves = [(False, 1, {c: 1.0}, 1.0)]
    else:
        moves = [
            (True, 0, {c: 1.0}, OFF_TARGET),
            (False, 1, {c: 1.0}, (1 - OFF_TARGET) * persona.touchiness),
            (False, 0, {c: 1.0}, (1 - OFF_TARGET) * (1 - persona.touchiness)),
        ]
    out = []
    for landed, b2, cdist, p in moves:
        if p == 0:
            continue
        if landed and d == 1:
            out.append((True, None, -1, p))
            continue
        for c2, pc in cdist.items():
            for o, po in _reply(persona, landed, b2, c2).items():
                out.append((False, (d + landed, b2, c2), o, p * pc * po))
    return out


def _small_family(voice=(0.6, 0.25), personas=2, seed=0) -> Family:
    rng = np.random.default_rng(seed)
    ps = tuple(
        MindPersona(
            f"p{i}",
            "test persona",
            concerns=tuple(rng.dirichlet(np.ones(C)).round(3) + 0.01),
            reluctance=round(float(rng.random()), 3),
            wariness=round(float(rng.random()), 3),
            voice=voice,
            warmth=round(float(rng.random()), 3),
            touchiness=round(float(rng.random()), 3),
        )
        for i in range(personas)
    )
    return Family("small", "small", ps, tuple(rng.random(personas) + 0.2))


def _initial(fam: Family) -> list[tuple[tuple, float, dict[int, float]]]:
    """(hidden (k, d, b, c), probability, opening-reply distribution)."""
    out = []
    for k, p in enumerate(fam.personas):
        w = np.asarray(p.concerns, float) / sum(p.concerns)
        for d, b, c in itertools.product((0, 1), (0, 1), range(C)):
            pr = (
                fam.prior[k]
                * (p.reluctance if d == 0 else 1 - p.reluctance)
                * (p.wariness if b else 1 - p.wariness)
                * w[c]
            )
            if pr > 0:
                out.append(((k, d, b, c), pr, _reply(p, False, b, c)))
    return out


@pytest.mark.parametrize("fam", [FAMILIES[0], FAMILIES[3], _small_family()], ids=["health", "leisure", "small"])
def test_compiled_kernel_is_the_documented_dynamics(fam):
    model = MindModel(fam)
    assert model.initial.sum() == pytest.approx(1.0) and np.allclose(model.opening.sum(axis=1), 1.0)
    total = model.success + model.kernel.sum(axis=(2, 3))
    assert np.allclose(total, 1.0)
    for s in range(model.n_states):
        st = model.state(s)
        p = fam.personas[st.persona]
        for a in range(NOTHING + 1):
            expected = np.zeros((model.n_states, N_OBS))
            yes = 0.0
            for agreed, nxt, o, pr in outcomes(p, st.desire, st.belief, st.concern, a):
                if agreed:
                    yes += pr
                else:
                    expected[((st.persona * 2 + nxt[0]) * 2 + nxt[1]) * C + nxt[2], o] += pr
            assert model.success[a, s] == pytest.approx(yes, abs=1e-12)
            assert np.allclose(model.kernel[a, s], expected, atol=1e-12)


# ---------------------------------------------------------------------- brute force
def _trajectories(fam: Family, policy, horizon: int, only_opening: int | None = None) -> float:
    """Success probability of a history-dependent ``policy(history) -> principle`` by enumerating every
    hidden trajectory (history = (opening reply, a0, o1, a1, o2, ...)); ``only_opening`` keeps the
    trajectories that open with that reply."""
    total = 0.0
    for (k, d, b, c), p0, opening in _initial(fam):
        for o0, po in opening.items():
            if only_opening is not None and o0 != only_opening:
                continue
            stack = [((d, b, c), p0 * po, (o0,), 0)]
            while stack:
                (d_, b_, c_), pr, hist, t = stack.pop()
                if t == horizon:
                    continue
                a = policy(hist)
                for agreed, nxt, o, q in outcomes(fam.personas[k], d_, b_, c_, a):
                    if agreed:
                        total += pr * q
                    else:
                        stack.append((nxt, pr * q, hist + (a, o), t + 1))
    return total


def test_bayes_optimal_equals_the_best_of_every_deterministic_policy_on_a_tiny_instance():
    """Topics never voiced (replies are tones only), one persona, two turns: every policy -- a first
    principle per opening tone and a second per (first principle, reply tone) -- is enumerated."""
    fam = _small_family(voice=(0.0, 0.0), personas=1, seed=3)
    model = MindModel(fam)
    planner = BayesPlanner(model, 2)
    openings = [obs_index(t, 0) for t in (0, 1)]
    replies = [obs_index(t, 0) for t in range(3)]
    best = {}
    for o0 in openings:  # the opening reply's branches add up: maximise each one on its own

        def value(a0, plan1, o0=o0):
            return _trajectories(fam, lambda h: a0 if len(h) == 1 else plan1[replies.index(h[2])], 2, only_opening=o0)

        best[o0] = max(value(a0, plan1) for a0 in range(6) for plan1 in itertools.product(range(6), repeat=3))
    assert planner.initial_value() == pytest.approx(sum(best.values()), abs=1e-12)


def _naive_bayes(fam: Family, horizon: int) -> float:
    """Bayes-optimal value by recursion over observable histories on the joint (unnormalised)
    probabilities of hidden states -- no beliefs, no memo, no closed forms."""

    def rec(weights: dict, t: int) -> float:
        # weights: (k, d, b, c) -> P(hidden state, history so far)
        if t == horizon or not weights:
            return 0.0
        best = 0.0
        for a in range(6):
            now, nxt = 0.0, {}
            for (k, d, b, c), w in weights.items():
                for agreed, n, o, q in outcomes(fam.personas[k], d, b, c, a):
                    if agreed:
                        now += w * q
                    else:
                        nxt.setdefault(o, {}).setdefault((k, *n), 0.0)
                        nxt[o][(k, *n)] += w * q
            best = max(best, now + sum(rec(branch, t + 1) for branch in nxt.values()))
        return best

    branches: dict[int, dict] = {}
    for h, p, opening in _initial(fam):
        for o, po in opening.items():
            branches.setdefault(o, {})[h] = p * po
    return sum(rec(b, 0) for b in branches.values())


@pytest.mark.parametrize("horizon", [1, 2, 3])
def test_bayes_planner_matches_naive_recursion_over_histories(horizon):
    fam = _small_family(seed=horizon, personas=1 if horizon == 3 else 2)
    assert BayesPlanner(MindModel(fam), horizon).initial_value() == pytest.approx(_naive_bayes(fam, horizon), abs=1e-9)


@pytest.mark.parametrize("horizon", [1, 2, 3])
def test_open_loop_is_the_best_of_every_fixed_plan_by_enumeration(horizon):
    fam = _small_family(seed=10 + horizon, personas=1 if horizon == 3 else 2)
    model = MindModel(fam)
    values = {
        plan: _trajectories(fam, lambda h, plan=plan: plan[len(h) // 2], horizon)
        for plan in itertools.product(range(6), repeat=horizon)
    }
    best, plan = open_loop(model, horizon)
    assert best == pytest.approx(max(values.values()), abs=1e-12) and values[plan] == pytest.approx(best, abs=1e-12)
    assert all(plan_value(model, p) == pytest.approx(v, abs=1e-12) for p, v in list(values.items())[:50])
    mean = np.mean(list(values.values()))  # the random persuader's value is the mean over plans
    assert random_value(model, horizon) == pytest.approx(mean, abs=1e-12)


def test_oracle_equals_the_best_state_feedback_policy_by_enumeration():
    """Two turns, state known: every first principle, and every assignment of a second principle to
    the states the first can lead to."""
    fam = _small_family(seed=5, personas=1)
    model = MindModel(fam)
    table = oracle_table(model, 2)
    p = fam.personas[0]
    for s in range(model.n_states):
        st = model.state(s)
        best = 0.0
        for a0 in range(6):
            outs = outcomes(p, st.desire, st.belief, st.concern, a0)
            nexts = sorted({n for agreed, n, _, _ in outs if not agreed})
            mass = {n: sum(q for agreed, n2, _, q in outs if not agreed and n2 == n) for n in nexts}
            now = sum(q for agreed, *_, q in outs if agreed)
            second = {n: [sum(q2 for ag2, *_, q2 in outcomes(p, *n, a1) if ag2) for a1 in range(6)] for n in nexts}
            for plan in itertools.product(range(6), repeat=len(nexts)):
                best = max(best, now + sum(mass[n] * second[n][a1] for n, a1 in zip(nexts, plan)))
        assert table.values[0, s] == pytest.approx(best, abs=1e-12)


def test_references_are_ordered_and_tracking_pays_at_least_ten_points_on_average():
    refs = [references(MindModel(f), 4) for f in FAMILIES]
    for r in refs:
        assert r.random < r.open_loop < r.bayes < r.oracle <= 1.0
        assert r.value_of_tracking > 0.10 and r.value_of_information > 0.0
    assert np.mean([r.value_of_tracking for r in refs]) >= 0.10


def test_bad_personas_and_families_are_named_errors():
    with pytest.raises(InvalidPersona, match="probability"):
        MindPersona("x", "", concerns=(1, 1, 1, 1, 1), warmth=2.0)
    with pytest.raises(InvalidPersona, match="two concerns"):
        MindPersona("x", "", concerns=(1, 0, 0, 0, 0))
    with pytest.raises(InvalidPersona, match="weight"):
        Family("f", "f", (), ())
    with pytest.raises(InvalidPersona, match="turn budget"):
        BayesPlanner(MindModel(FAMILIES[0]), 0)
    assert "DailyPersuasion" in PROVENANCE and len(TOPICS) == C + 1
