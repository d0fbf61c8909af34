"""Legacy live persuasion v0 (``tom_envs.persuasion.live.PersuasionEnv``, no longer registered: knowing
the state is worth nothing over the best fixed plan, see docs/persuasion_live.md): dynamics, the
oracle against brute force, the env, the scripted persuaders and the two-seat v0 PettingZoo env.
Live persuasion v1 is tested in tests/test_persuasion_live_*.py."""

from __future__ import annotations

import itertools
import pickle
import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from benchmarks.persuasion_live import play_episode
from policies.persuasion import (BanditPersuader, FixedPrinciplePersuader, OraclePersuader, RandomPersuader,
                                 SimulatedPersuadee)
from tom_envs.errors import EpisodeEnded, InvalidAction, ResetNeeded
from tom_envs.persuasion.live import PersuasionEnv
from tom_envs.persuasion.personas import (ARCHETYPES, NEUTRAL, NO, NONE, PRINCIPLES, YES, InvalidPersona, Persona,
                                          resolve_personas, solve, transition)
from tom_envs.persuasion.two_seat import PERSUADEE, PERSUADER, PersuasionAECEnv
from wrappers import TextObservation

# pettingzoo.test imports a deprecated classic env at import time (see tests/test_parallel_env.py)
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="The old environment creation API has been deprecated", category=DeprecationWarning)
    from pettingzoo.test import api_test, seed_test

def _random_persona(rng: np.random.Generator) -> Persona:
    return Persona(name="r", receptiveness=tuple(rng.random(6).round(3)), reluctance=round(float(rng.random()), 3),
                   stubbornness=round(float(rng.random()), 3))


# ---------------------------------------------------------------------- dynamics and oracle
def test_transition_probabilities_sum_to_one_and_repeats_land_less():
    for persona in ARCHETYPES:
        for d, prev, p in itertools.product((NO, NEUTRAL), range(7), range(6)):
            outs = transition(persona, d, prev, p)
            assert sum(pr for *_, pr in outs) == pytest.approx(1.0)
            assert all(0 <= d2 <= d + 1 for d2, _, _ in outs)
        fresh = persona.move_probs(0, NONE)[0]
        assert persona.move_probs(0, 0)[0] == pytest.approx(fresh / 2)


def _brute_force_two_turns(persona: Persona, d0: int) -> float:
    """Best success probability in 2 turns over every history-dependent deterministic plan:
    a first principle, then one principle for each desire the first turn can leave."""
    best = 0.0
    for p0, p1_no, p1_neutral in itertools.product(range(6), repeat=3):
        value = 0.0
        for d1, _, pr1 in transition(persona, d0, NONE, p0):
            if d1 == YES:
                value += pr1
                continue
            p1 = p1_no if d1 == NO else p1_neutral
            value += pr1 * sum(pr2 for d2, _, pr2 in transition(persona, d1, p0, p1) if d2 == YES)
        best = max(best, value)
    return best


@pytest.mark.parametrize("which", range(8))
def test_oracle_matches_brute_force_on_small_personas(which):
    persona = ARCHETYPES[which] if which < len(ARCHETYPES) else _random_persona(np.random.default_rng(which))
    oracle = solve(persona, 2)
    for d0 in (NO, NEUTRAL):
        assert oracle.values[0, d0, NONE] == pytest.approx(_brute_force_two_turns(persona, d0), abs=1e-12)
    expected = persona.reluctance * oracle.values[0, NO, NONE] + (1 - persona.reluctance) * oracle.values[0, NEUTRAL, NONE]
    assert oracle.success_probability == pytest.approx(expected)


def test_one_turn_from_no_can_never_succeed_and_more_turns_never_hurt():
    for persona in ARCHETYPES:
        assert solve(persona, 1).values[0, NO, NONE] == 0.0
        values = [solve(persona, t).success_probability for t in range(1, 7)]
        assert values == sorted(values)


def test_the_oracle_alternates_when_repeating_a_principle_wears_off():
    persona = Persona(name="two_good", receptiveness=(0.9, 0.8, 0.0, 0.0, 0.0, 0.0), reluctance=1.0, stubbornness=0.0)
    oracle = solve(persona, 3)
    assert oracle.action(0, NO, NONE) == 0 and oracle.action(1, NEUTRAL, 0) == 1 and oracle.action(1, NO, 0) == 1


def test_oracle_success_rate_in_the_env_matches_its_value():
    env = PersuasionEnv(personas="skeptic", horizon=4, **OraclePersuader.env_kwargs)
    eps = [play_episode(env, OraclePersuader(), seed) for seed in range(600)]
    rate = np.mean([e["success"] for e in eps])
    p = eps[0]["optimal_success"]
    assert abs(rate - p) < 4 * np.sqrt(p * (1 - p) / len(eps))
    assert all(e["regret"] == 0.0 for e in eps)


def _v0_rows(names, episodes: int, seed: int) -> dict[str, dict]:
    out = {}
    for name in names:
        cls = {"random": RandomPersuader, "bandit": BanditPersuader, "oracle": OraclePersuader}[name]
        env = PersuasionEnv(**getattr(cls, "env_kwargs", {}))
        eps = [play_episode(env, cls(), seed + i) for i in range(episodes)]
        out[name] = {"success": 100 * np.mean([e["success"] for e in eps]),
                     "optimal_success": 100 * np.mean([e["optimal_success"] for e in eps]),
                     "regret": float(np.mean([e["regret"] for e in eps])),
                     "desire_accuracy": float(np.mean([e["desire_accuracy"] for e in eps]))}
    return out


def test_regret_adds_up_to_the_success_gap_in_expectation():
    r = _v0_rows(["random"], episodes=600, seed=0)["random"]
    assert abs((r["optimal_success"] - r["success"]) / 100 - r["regret"]) < 0.06


def test_persona_arguments_are_validated():
    assert len(resolve_personas(None)) == 6 and len(resolve_personas(["steady", "skeptic"])) == 2
    assert resolve_personas({"receptiveness": [0.1] * 6}).personas[0].stubbornness == 0.2
    for bad in ("nobody", [], {"receptiveness": [2.0] * 6}, 3):
        with pytest.raises(InvalidPersona):
            resolve_personas(bad)


# ---------------------------------------------------------------------- env
def test_live_env_passes_gymnasium_and_sb3_checkers():
    check_env(PersuasionEnv(), skip_render_check=True)
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    sb3_checker.check_env(PersuasionEnv(), warn=True)


def _trajectory(seed: int) -> list:
    env = PersuasionEnv()
    obs, info = env.reset(seed=seed)
    out = [obs.tolist(), env.persona.name, env.text()]
    for a in (0, 5, 2, 2, 3):
        obs, r, term, trunc, info = env.step(a)
        out += [obs.tolist(), r, term, info["reply"], env.tom_truth()]
        if term:
            break
    return out


def test_same_seed_same_episode_and_seeds_meet_different_personas():
    assert _trajectory(11) == _trajectory(11)
    assert len({_trajectory(s)[1] for s in range(30)}) > 3


def test_hidden_state_stays_out_of_the_observation():
    env = PersuasionEnv()
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs) and obs.shape == (3,)
    text, _ = TextObservation(env).reset(seed=0)  # the text convention: the env's text() (tom_envs.tom)
    assert "text" not in info and text == env.text()
    assert env.persona.name not in text and "desire" not in text


def test_episode_ends_on_success_or_budget_and_misuse_raises():
    env = PersuasionEnv(horizon=1)
    with pytest.raises(ResetNeeded):
        env.step(0)
    env.reset(seed=0)
    for bad in (6, -1, 1.5, "liking", True, {"action": 9}):
        with pytest.raises(InvalidAction):
            env.step(bad)
    _, _, terminated, truncated, info = env.step(0)
    assert terminated and not truncated and "episode" in info
    with pytest.raises(EpisodeEnded):
        env.step(0)


def test_success_gives_reward_one_and_reads_as_agreement():
    env = PersuasionEnv(personas={"name": "easy", "receptiveness": [1.0] * 6, "reluctance": 0.0, "stubbornness": 0.0})
    env.reset(seed=0)
    obs, reward, terminated, _, info = env.step(0)
    assert reward == 1.0 and terminated and info["success"] and info["cue"] == "agreeing"


def test_predictions_are_scored_against_the_state_before_the_turn():
    env = PersuasionEnv(personas="skeptic", horizon=3, expose_state=True)
    _, info = env.reset(seed=2)
    truth = info["persuadee"]
    env.record_prediction(desire=truth["desire"], attitude="receptive" if truth["attitude"] != 2 else "unmoved")
    _, _, term, _, info = env.step(1)
    assert not term and "tom" not in info  # a turn's score would tell the desire: held back until the end
    _, _, term, _, info = env.step(2)  # no prediction this turn
    assert "tom" not in info and env.episode_summary()["predictions"] == 2
    with pytest.raises(InvalidAction):
        env.record_prediction(desire="maybe")
    while not term:
        _, _, term, _, info = env.step(0)
    first, second = info["episode"]["scored"][:2]
    assert first["desire_correct"] and not first["attitude_correct"] and second is None


def test_an_llm_utterance_is_logged_in_the_transcript():
    env = PersuasionEnv(render_mode="ansi")
    env.reset(seed=0)
    _, _, _, _, info = env.step({"action": 5, "utterance": "You have great taste, come along!"})
    assert info["utterance"] == "You have great taste, come along!" and info["principle"] == "liking"
    assert "You have great taste, come along!" in env.render()


def test_pickle_round_trip_mid_episode():
    env = PersuasionEnv(personas="skeptic", horizon=6)
    env.reset(seed=5)
    env.step(0)
    clone = pickle.loads(pickle.dumps(env))
    for a in (1, 2, 3):
        x, y = env.step(a), clone.step(a)
        assert x[0].tolist() == y[0].tolist() and x[1:3] == y[1:3] and x[4]["reply"] == y[4]["reply"]
        if x[2]:
            break


# ---------------------------------------------------------------------- persuaders
def test_scripted_persuaders_rank_random_below_oracle():
    rows = _v0_rows(["random", "bandit", "oracle"], episodes=150, seed=1)
    assert rows["oracle"]["regret"] == 0.0 and rows["oracle"]["desire_accuracy"] == 100.0
    assert rows["random"]["regret"] > 0.1
    assert 20 < rows["random"]["desire_accuracy"] < 50  # three desire levels: chance is about a third
    assert rows["bandit"]["desire_accuracy"] > rows["random"]["desire_accuracy"]


def test_fixed_principle_persuader_validates_its_principle():
    assert FixedPrinciplePersuader("authority").act(None, {}) == PRINCIPLES.index("authority")
    for bad in ("charm", 6, True):
        with pytest.raises(InvalidAction):
            FixedPrinciplePersuader(bad)


def test_bandit_learns_within_an_episode():
    policy = BanditPersuader()
    policy.reset(0)
    for _ in range(6):
        a = policy.act(None, {})
        policy.observe(np.array([6 if a == 3 else 1, a, 0]), 0.0, False, False, {})
    assert policy.act(None, {}) == 3


# ---------------------------------------------------------------------- two seats (PettingZoo AEC)
def test_two_seat_env_passes_pettingzoo_tests():
    api_test(PersuasionAECEnv(horizon=4), num_cycles=40)
    seed_test(lambda: PersuasionAECEnv(horizon=4), num_cycles=20)


def test_simulated_persuadee_can_take_the_persuadee_seat():
    env = PersuasionAECEnv(horizon=5, render_mode="ansi")
    env.reset(seed=0)
    persuadee = SimulatedPersuadee(personas={"receptiveness": [1.0] * 6, "reluctance": 1.0, "stubbornness": 0.0})
    persuadee.reset(0)
    actions, rewards = [], []
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        rewards.append((agent, reward))
        if term or trunc:
            env.step(None)
            continue
        if agent == PERSUADER:
            act = {"action": len(actions) % 6, "utterance": f"line {len(actions)}"}
        else:
            act = persuadee.act(obs, info)
        actions.append(act)
        env.step(act)
    # a fully receptive persona moves no -> neutral -> yes in two rounds
    assert [a for a in actions if not isinstance(a, dict)] == [NEUTRAL, YES]
    assert (PERSUADER, 1.0) in rewards and (PERSUADEE, 1.0) not in rewards
    assert "line 0" in env.render() and "line 2" in env.render()


# ---------------------------------------------------------------------- ToM contract and information rule
def _everything_returned(env: PersuasionEnv, seed: int, actions) -> list:
    """What a cheating policy could read: every observation and info, the end summary left out."""
    obs, info = env.reset(seed=seed)
    seen = [obs.tolist(), repr(sorted(info.items()))]
    for a in actions:
        obs, reward, term, trunc, info = env.step(a)
        seen += [obs.tolist(), reward, term, trunc, repr(sorted((k, v) for k, v in info.items() if k != "episode"))]
        if term:
            break
    return seen


def test_nothing_returned_depends_on_the_hidden_persona_or_desire():
    """Two persuadees that differ in hidden traits (one is open to liking, which is never tried) and in
    initial desire, and whose replies carry no signal (clarity 0, nothing tried ever lands): a policy
    reading everything returned before the end cannot tell them apart (their oracles and regrets differ)."""
    mute = {"name": "p", "receptiveness": [0.0] * 6, "stubbornness": 0.0, "reluctance": 1.0}
    likes = {**mute, "receptiveness": [0.0] * 5 + [0.9], "reluctance": 0.0}
    envs = [PersuasionEnv(personas=p, clarity=0.0, horizon=4) for p in (mute, likes)]
    for seed in range(5):
        actions = [seed % 5, 1, 1, 4]
        assert _everything_returned(envs[0], seed, actions) == _everything_returned(envs[1], seed, actions)
        assert envs[0].tom_truth()["desire"] == NO and envs[1].tom_truth()["desire"] == NEUTRAL
        assert envs[0].tom_outcome()["optimal_success"] == 0.0 < envs[1].tom_outcome()["optimal_success"]


def test_reset_info_hands_out_no_persona_unless_exposed_for_the_oracle():
    _, info = PersuasionEnv().reset(seed=0)
    assert not {"partner", "persona", "oracle", "optimal_success", "persuadee"} & set(info)
    _, info = PersuasionEnv(expose_state=True).reset(seed=0)
    assert {"partner", "persona", "oracle", "optimal_success", "persuadee"} <= set(info)


def test_oracle_persuader_refuses_an_env_that_hides_the_state():
    env = PersuasionEnv()
    obs, info = env.reset(seed=0)
    with pytest.raises(InvalidAction, match="expose_state"):
        OraclePersuader().act(obs, info)


def test_tom_contract_truth_is_the_state_a_prediction_before_the_step_was_about():
    env = PersuasionEnv(personas="skeptic", horizon=5, expose_state=True)
    _, info = env.reset(seed=3)
    assert set(env.tom_spec.targets) == {"desire", "attitude"} and env.tom_spec.predictor is None
    assert env.tom_truth() == {}
    regrets = []
    for a in (0, 1, 2):
        before = dict(info["persuadee"])
        _, _, term, _, info = env.step(a)
        regrets.append(info["regret"])
        assert env.tom_truth() == before
        if term:
            break
    outcome = env.tom_outcome()
    assert set(outcome) == set(env.tom_spec.outcome)
    assert outcome["regret"] == pytest.approx(sum(regrets)) and outcome["success"] == (info["persuadee"]["desire"] == YES)
