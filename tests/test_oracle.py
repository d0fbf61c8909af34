"""The exact oracle against brute force, known optimal values, and relevance."""

from __future__ import annotations

import math
from itertools import product

import numpy as np
import pytest

from tom_envs.matrix.automaton import Automaton
from tom_envs.matrix.games import GAMES, IBS, IPD, RPS
from tom_envs.matrix.oracle import relevance, solve
from tom_envs.matrix.partners import get_partner, partner_names, select_partners

CASES = [(g, name) for g in GAMES for name in partner_names(g)]


def open_loop_value(game, aut: Automaton, actions) -> float:
    """Exact expected return of a fixed focal action sequence (enumerating the partner's draws)."""

    def rec(t: int, s: int) -> float:
        if t == len(actions):
            return 0.0
        a = actions[t]
        return sum(
            p * (game.focal_payoffs[a, b] + rec(t + 1, aut.transition[s, a, b]))
            for b, p in enumerate(aut.policy[s])
            if p > 0
        )

    return rec(0, aut.initial_state)


def deterministic_return(game, partner, actions) -> float:
    """Return of a fixed sequence against a partner driven through its runtime protocol."""
    partner.reset(np.random.default_rng(0), len(actions))
    total = 0.0
    for a in actions:
        b = partner.next_action()
        total += game.focal_payoffs[a, b]
        partner.observe(a, b)
    return total


def expectimax_over_histories(game, aut: Automaton, T: int) -> float:
    """Optimal adaptive value by search over full joint histories (no state abstraction)."""

    def state_after(history) -> int:
        s = aut.initial_state
        for a, b in history:
            s = aut.transition[s, a, b]
        return s

    def rec(history) -> float:
        if len(history) == T:
            return 0.0
        s = state_after(history)
        return max(
            sum(p * (game.focal_payoffs[a, b] + rec(history + ((a, b),))) for b, p in enumerate(aut.policy[s]) if p > 0)
            for a in range(game.n_actions)
        )

    return rec(())


@pytest.mark.parametrize("game_name, partner_name", CASES)
@pytest.mark.parametrize("T", [1, 2, 3, 4])
def test_oracle_equals_brute_force_over_all_focal_sequences(game_name, partner_name, T):
    game = GAMES[game_name]
    partner = get_partner(game, partner_name)
    aut = partner.automaton()
    sol = solve(game, aut, T)
    seqs = list(product(range(game.n_actions), repeat=T))
    if partner.classifier["stochastic"]:
        brute = max(open_loop_value(game, aut, s) for s in seqs)  # memoryless: open loop is optimal
    else:
        brute = max(deterministic_return(game, get_partner(game, partner_name), s) for s in seqs)
    assert sol.optimal_return == pytest.approx(brute, abs=1e-9)
    assert sol.optimal_rewards.sum() == pytest.approx(sol.optimal_return, abs=1e-9)
    # the oracle's own policy, followed open loop from the initial state, attains the value
    if not partner.classifier["stochastic"]:
        s, acts = aut.initial_state, []
        for t in range(T):
            a = sol.action(t, s)
            acts.append(a)
            s = aut.transition[s, a, aut.deterministic_actions[s]]
        assert deterministic_return(game, get_partner(game, partner_name), acts) == pytest.approx(sol.optimal_return)


@pytest.mark.parametrize("seed", range(6))
def test_oracle_equals_expectimax_for_random_stochastic_automata(seed):
    """Multi-state stochastic automata, where the optimal response must adapt to the draws."""
    rng = np.random.default_rng(seed)
    game = [RPS, IBS, IPD][seed % 3]
    S = 3
    policy = rng.dirichlet(np.ones(game.n_partner_actions), size=S)
    transition = rng.integers(0, S, size=(S, game.n_actions, game.n_partner_actions))
    aut = Automaton(policy, transition, 0)
    for T in (1, 2, 3, 4):
        sol = solve(game, aut, T)
        assert sol.optimal_return == pytest.approx(expectimax_over_histories(game, aut, T), abs=1e-9)
        assert sol.optimal_rewards.sum() == pytest.approx(sol.optimal_return, abs=1e-9)


@pytest.mark.parametrize(
    "game, partner, value",
    [
        (IPD, "tit_for_tat", 99 * 8 + 10),  # cooperate, then defect in the last round
        (IPD, "suspicious_tit_for_tat", 0 + 98 * 8 + 10),
        (IPD, "grim_trigger", 99 * 8 + 10),
        (IPD, "always_cooperate", 1000),
        (IPD, "always_defect", 500),
        (RPS, "always_rock", 100),
        (RPS, "best_response_to_last", 100),
        (RPS, "uniform_random", 0),
        (IBS, "always_ballet", 700),
        (IBS, "tit_for_tat", 1000),
        (IBS, "alternating", 850),
        (IBS, "mixed_nash", 100 * 70 / 17),
    ],
)
def test_known_optimal_returns_for_T_100(game, partner, value):
    assert solve(game, get_partner(game, partner).automaton(), 100).optimal_return == pytest.approx(value)


def test_endgame_is_in_the_per_step_optimal_rewards():
    sol = solve(IPD, get_partner(IPD, "tit_for_tat").automaton(), 100)
    assert sol.optimal_rewards.tolist() == [8.0] * 99 + [10.0]
    assert sol.action(99, 1) == 1 and sol.action(0, 0) == 0


def test_ties_are_broken_by_lowest_index():
    # against uniform RPS every action is optimal: the oracle plays Rock
    sol = solve(RPS, get_partner(RPS, "uniform_random").automaton(), 5)
    assert sol.policy.tolist() == [[0]] * 5


def test_relevance_is_exactly_one_for_rps_single_action():
    assert relevance(RPS, select_partners(RPS, populations="single_action")) == 1.0


def test_relevance_values():
    assert relevance(IBS, select_partners(IBS, populations="single_action")) == pytest.approx((7 + 10) / 4)
    assert relevance(IPD, select_partners(IPD, populations="single_action")) == 0.0  # defecting is always optimal
    assert relevance(RPS, select_partners(RPS, populations="tit_for_tat")) == 0.0  # one partner: nothing to adapt to


def test_relevance_handles_stochastic_partners():
    # the optimal response to uniform RPS is Rock; against always-paper that loses every round
    parts = [get_partner(RPS, "uniform_random"), get_partner(RPS, "always_paper")]
    expected = (0 + 2 + 1 + 0) / 4  # (uniform vs uniform 0, Rock vs paper 2, Scissors vs uniform 1... see below)
    # pairs (i -> j): uniform*->uniform: 0; uniform*(Rock)->paper: regret 1-(-1)=2;
    # paper*(Scissors)->uniform: optimal 0, Scissors vs uniform 0 -> 0; paper*->paper: 0
    expected = (0 + 2 + 0 + 0) / 4
    assert relevance(RPS, parts) == pytest.approx(expected)


def test_solutions_are_cached_and_read_only():
    aut = get_partner(IPD, "tit_for_tat").automaton()
    a, b = solve(IPD, aut, 100), solve(IPD, get_partner(IPD, "tit_for_tat").automaton(), 100)
    assert a is b
    with pytest.raises(ValueError):
        a.optimal_rewards[0] = 0.0
    assert not math.isnan(a.optimal_return)
