"""Live persuasion v3 (issue 39): the exact references are exact, the gates hold, the env plays them."""

from __future__ import annotations

import itertools

import gymnasium as gym
import numpy as np
import pytest

import tom_envs  # noqa: F401  (registers the ids)
from policies.persuasion.v3 import (
    BayesPersuaderV3,
    EchoPersuaderV3,
    MemorylessPersuaderV3,
    OpenLoopPersuaderV3,
    OraclePersuaderV3,
)
from tom_envs.errors import InvalidAction
from tom_envs.persuasion.mind_v3 import (
    FAMILIES_V3,
    LISTEN,
    N_ACTIONS_V3,
    N_CUES,
    FamilyV3,
    PersonaV3,
    compile_family,
    family_v3_named,
    model_v3_for,
)
from tom_envs.persuasion.planning_v3 import (
    bayes_table,
    echo_acts,
    memoryless_table,
    memoryless_value,
    open_loop_table,
    references_v3,
)
from tom_envs.persuasion.principles import InvalidPersona

HEALTH = family_v3_named("health")


def _small_family() -> FamilyV3:
    """One persona with walk-outs and a tilted prior: small enough for brute force."""
    persona = PersonaV3("p", "test", (0.4, 0.1, 0.3, 0.2), candour=0.8, source_talk=0.6, agreeable=0.9, leave=0.05)
    return FamilyV3(
        "small", "small", ("authority", "consensus"), ("doubt", "effort"), (persona,), (1.0,), HEALTH.scenarios
    )


# ---------------------------------------------------------------------- the references are exact
def test_the_memoryless_dp_equals_trying_every_table_at_two_turns():
    """Every one of the 625**2 memory-less tables at T = 2, valued independently of the DP."""
    model = compile_family(_small_family())
    rows = np.array(list(itertools.product(range(N_ACTIONS_V3), repeat=N_CUES)))  # (625, 4): act per reply
    pays = model.pays  # (acts, types)
    # turn 0: what each row wins now, and who is still talking after it
    win0 = np.array([sum((model.prior * model.cue[:, o] * pays[a]).sum() for o, a in enumerate(r)) for r in rows])
    alive = np.array([model.prior * model.cue[:, r == LISTEN].sum(axis=1) * (1 - model.leave) for r in rows])
    # turn 1: win[row0, row1] = sum_o sum_type alive[row0] cue[:, o] pays[row1[o]]
    per = np.einsum("it,to,at->ioa", alive, model.cue, pays)  # (625, replies, acts)
    win1 = sum(per[:, o, rows[:, o]] for o in range(N_CUES))  # (625, 625)
    brute = float((win0[:, None] + win1).max())
    assert memoryless_table(model, 2).value == pytest.approx(brute, abs=1e-12)


def test_the_memoryless_dp_equals_every_sequence_of_listen_sets_at_three_and_four_turns():
    model = compile_family(_small_family())
    for horizon in (3, 4):
        best = 0.0
        for sets in itertools.product(range(2**N_CUES), repeat=horizon - 1):
            survival, acts = model.prior.copy(), []
            for turn in range(horizon):
                chosen = sets[turn] if turn < horizon - 1 else 0
                row = []
                for o in range(N_CUES):
                    if (chosen >> o) & 1:
                        row.append(LISTEN)
                    else:
                        row.append(
                            1
                            + int(
                                np.argmax(
                                    [(survival * model.cue[:, o] * model.pays[a]).sum() for a in range(1, N_ACTIONS_V3)]
                                )
                            )
                        )
                acts.append(tuple(row))
                survival = (
                    survival
                    * model.cue[:, [o for o in range(N_CUES) if (chosen >> o) & 1]].sum(axis=1)
                    * (1 - model.leave)
                )
            best = max(best, memoryless_value(model, tuple(acts)))
        table = memoryless_table(model, horizon)
        assert table.value == pytest.approx(best, abs=1e-12)
        assert memoryless_value(model, table.acts) == pytest.approx(table.value, abs=1e-12)


def _expectimax(model, horizon: int, history: tuple[int, ...]) -> float:
    """Bayes-optimal value over the history of replies (no counts, no cache): unnormalised joint."""
    turn = len(history) - 1
    b = model.prior * (1 - model.leave) ** turn
    for o in history:
        b = b * model.cue[:, o]
    best = max(float((b * model.pays[a]).sum()) for a in range(1, N_ACTIONS_V3))
    if turn < horizon - 1:
        best = max(best, sum(_expectimax(model, horizon, history + (o,)) for o in range(N_CUES)))
    return best


def test_the_bayes_table_equals_an_expectimax_over_every_history():
    model = compile_family(_small_family())
    for horizon in (1, 2, 3, 4):
        exact = sum(_expectimax(model, horizon, (o,)) for o in range(N_CUES))
        assert bayes_table(model, horizon).value == pytest.approx(exact, abs=1e-12)


def test_the_open_loop_plan_is_the_best_first_pitch():
    model = model_v3_for(HEALTH)
    for horizon in (1, 4, 8):
        value, plan = open_loop_table(model, horizon)
        closed = max(
            float((model.prior * (1 - model.leave) ** t * model.pays[a]).sum())
            for t in range(horizon)
            for a in range(1, N_ACTIONS_V3)
        )
        assert value == pytest.approx(closed, abs=1e-12) and len(plan) == horizon


# ---------------------------------------------------------------------- the gates (issue 39)
def _gates(horizon: int) -> None:
    for family in FAMILIES_V3:
        r = references_v3(family, horizon)
        assert r.value_of_memory >= 0.10, (family.name, horizon, r.as_dict())
        assert r.bayes - r.echo >= 0.10, (family.name, horizon, r.as_dict())
        assert r.bayes - r.open_loop >= 0.30, (family.name, horizon, r.as_dict())
        assert r.oracle - r.bayes >= 0.05, (family.name, horizon, r.as_dict())
        assert r.oracle >= r.bayes >= r.memoryless >= max(r.echo, r.open_loop) and r.memoryless >= r.random


def test_tracking_the_mind_pays_at_four_turns_in_every_family():
    _gates(4)


@pytest.mark.slow
def test_tracking_the_mind_pays_at_eight_turns_in_every_family():
    _gates(8)


# ---------------------------------------------------------------------- the env plays its references
@pytest.mark.parametrize(
    "cls, ref",
    [
        (BayesPersuaderV3, "bayes"),
        (MemorylessPersuaderV3, "memoryless"),
        (EchoPersuaderV3, "echo"),
        (OpenLoopPersuaderV3, "open_loop"),
        (OraclePersuaderV3, "oracle"),
    ],
)
def test_each_reference_persuader_wins_its_exact_value_in_the_env(cls, ref):
    env = gym.make("tom/Persuasion-v3", families="health", horizon=4, **getattr(cls, "env_kwargs", {})).unwrapped
    policy, wins, regrets = cls(), [], []
    for seed in range(1200):
        policy.reset(seed)
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            obs, reward, done, _, info = env.step(policy.act(obs, info))
        wins.append(reward)
        regrets.append(info["episode"]["regret"])
    exact = getattr(env.refs, ref)
    se = np.std(wins) / np.sqrt(len(wins))
    assert abs(np.mean(wins) - exact) < 4 * se + 1e-9, (cls.__name__, np.mean(wins), exact)
    if cls is BayesPersuaderV3:
        assert max(regrets) == pytest.approx(0.0, abs=1e-9)  # the Bayes act loses nothing against itself
    elif ref in ("memoryless", "echo", "open_loop"):  # regret's expectation: Bayes minus the policy's value
        assert abs(np.mean(regrets) - (env.refs.bayes - exact)) < 4 * np.std(regrets) / np.sqrt(len(regrets))


def test_predictions_track_the_mind_better_with_memory():
    env = gym.make("tom/Persuasion-v3", families="work", horizon=8).unwrapped
    scores = {}
    for cls in (BayesPersuaderV3, MemorylessPersuaderV3):
        policy, right = cls(), []
        for seed in range(400):
            policy.reset(seed)
            obs, info = env.reset(seed=seed)
            done = False
            while not done:
                guess = policy.predict(obs, info)
                obs, _, done, _, info = env.step(LISTEN)  # both only listen: the predictions differ
                truth = env.tom_truth()
                right.append((guess["source"] == truth["source"]) + (guess["stake"] == truth["stake"]))
        scores[cls.__name__] = np.mean(right) / 2
    assert scores["BayesPersuaderV3"] > scores["MemorylessPersuaderV3"] + 0.05, scores


def test_echo_is_a_memoryless_table():
    model = model_v3_for(HEALTH)
    acts = echo_acts(model, 4)
    assert all(a == LISTEN for row in acts[:-1] for a in row) and LISTEN not in acts[-1]


# ---------------------------------------------------------------------- named errors
@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"horizon": 0}, "1..8"),
        ({"horizon": 9}, "1..8"),
        ({"horizon": True}, "1..8"),
        ({"families": "nope"}, "unknown v3 family"),
        ({"families": []}, "non-empty"),
        ({"expose_state": "yes"}, "bool"),
    ],
)
def test_bad_arguments_are_named_errors(kwargs, match):
    with pytest.raises(Exception, match=match) as err:
        gym.make("tom/Persuasion-v3", **kwargs)
    assert type(err.value).__module__.startswith("tom_envs")


def test_bad_personas_and_actions_are_named_errors():
    with pytest.raises(InvalidPersona, match="candour"):
        PersonaV3("x", "", (0.25,) * 4, candour=0.3, source_talk=0.5, agreeable=0.9, leave=0.0)
    with pytest.raises(InvalidPersona, match="prior"):
        PersonaV3("x", "", (0.5, 0.5, 0.5, 0.5), candour=0.8, source_talk=0.5, agreeable=0.9, leave=0.0)
    with pytest.raises(InvalidPersona, match="sources"):
        FamilyV3(
            "f", "f", ("authority", "authority"), ("cost", "doubt"), HEALTH.personas, HEALTH.weights, HEALTH.scenarios
        )
    env = gym.make("tom/Persuasion-v3").unwrapped
    env.reset(seed=0)
    for bad in (5, -1, 1.0, True, "listen", {"utterance": "hi"}):
        with pytest.raises(InvalidAction, match="0..4"):
            env.step(bad)
    with pytest.raises(InvalidPersona, match="persona"):
        env.reset(seed=0, options={"family": "health", "persona": "busy"})
