"""Property tests: random games, partners, seeds and action sequences keep the invariants."""

from __future__ import annotations

import gymnasium as gym
from hypothesis import given, settings
from hypothesis import strategies as st

from tom_envs.matrix.games import GAMES
from tom_envs.matrix.partners import get_partner, partner_names
from wrappers import ToMRecorder

CASES = [(g, p) for g in GAMES for p in partner_names(g)]


@st.composite
def episodes(draw):
    game, partner = draw(st.sampled_from(CASES))
    horizon = draw(st.integers(1, 12))
    n = GAMES[game].n_actions
    actions = draw(st.lists(st.integers(0, n - 1), min_size=horizon, max_size=horizon))
    predictions = draw(
        st.lists(
            st.one_of(st.none(), st.integers(0, GAMES[game].n_partner_actions - 1)), min_size=horizon, max_size=horizon
        )
    )
    seed = draw(st.integers(0, 2**32 - 1))
    return game, partner, horizon, actions, predictions, seed


def run(game, partner, horizon, actions, predictions, seed):
    env = ToMRecorder(gym.make(f"tom/{game}-v0", partners=partner, horizon=horizon))
    obs, info = env.reset(seed=seed)
    trace = []
    for _t, (a, p) in enumerate(zip(actions, predictions)):
        env.record_prediction(p)
        obs, reward, terminated, truncated, info = env.step(a)
        trace.append((obs, reward, terminated, info["partner_action"]))
    return env, trace, info


@settings(max_examples=300, deadline=None)
@given(episodes())
def test_invariants_hold_for_any_action_sequence(ep):
    game_name, partner, horizon, actions, predictions, seed = ep
    game = GAMES[game_name]
    env, trace, info = run(*ep)
    for t, (obs, reward, terminated, b) in enumerate(trace):
        assert game.decode_joint(obs) == (actions[t], b)
        assert reward == game.payoffs[actions[t]][b][0]
        assert terminated == (t == horizon - 1)
    summary = info["tom"]["episode"]
    assert abs(summary["regret"] - (summary["optimal_return"] - summary["return"])) < 1e-9
    if not get_partner(game, partner).classifier["stochastic"]:
        assert summary["regret"] >= -1e-9  # nothing beats the exact optimum against a deterministic partner
    n_pred = sum(p is not None for p in predictions)
    assert summary["tom_steps"] == n_pred
    if n_pred:
        hits = sum(p == tr[3] for p, tr in zip(predictions, trace) if p is not None)
        assert summary["tom_accuracy"] == 100.0 * hits / n_pred
        assert 0 <= summary["tom_regret_stage"] <= n_pred * float(game.stage_regret.max())
        assert 0 <= summary["tom_regret"] <= n_pred * float(game.tom_cost_table(summary["tom_response"]).max())
    # same seed, same actions -> same trajectory
    assert run(*ep)[1] == trace
