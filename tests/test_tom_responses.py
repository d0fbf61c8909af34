"""ΔToM's three responses (docs/architecture.md, "Metric definitions"): cost tables by hand, the reciprocal
look-ahead's γ, the exact action values against brute force, and the recorder reporting all three."""

from __future__ import annotations

import itertools

import gymnasium as gym
import numpy as np
import pytest

import tom_envs  # noqa: F401  (registers the ids)
from tom_envs.errors import TomEnvsError
from tom_envs.matrix.games import (
    DEFAULT_TOM_RESPONSE,
    IBS,
    IPD,
    RECIPROCAL_GAMMA,
    RPS,
    TOM_RESPONSES,
    UnknownToMResponse,
)
from tom_envs.matrix.oracle import action_value_costs, solve
from tom_envs.matrix.partners import get_partner
from tests.test_tom_recorder import play
from wrappers import ToMRecorder

# D[b_hat][b] by hand. RPS: predicting x makes us play x+1 (the move that beats x); if the partner plays x+1 that
# ties where a win was possible (cost 1), if it plays x+2 that loses (cost 2). IBS: predicting Fight when Ballet
# comes costs the 7 of coordinating on Ballet; predicting Ballet when Fight comes costs 10.
STAGE = {
    "RPS": [[0, 1, 2], [2, 0, 1], [1, 2, 0]],
    "IBS": [[0, 7], [10, 0]],
    "IPD": [[0, 0], [0, 0]],  # defecting is the stage best response to anything
}
# the reciprocal response cooperates when it predicts C in the IPD: predicted C, partner D: R(D,D) - R(C,D) = 5;
# predicted D, partner C: |R(C,C) - R(D,C)| = |8 - 10| = 2.
RECIPROCAL = {"RPS": STAGE["RPS"], "IBS": STAGE["IBS"], "IPD": [[0, 5], [2, 0]]}
GAMES = {"RPS": RPS, "IBS": IBS, "IPD": IPD}


def test_the_default_response_is_reciprocal_and_every_response_is_named():
    assert TOM_RESPONSES == ("stage", "reciprocal", "action_value") and DEFAULT_TOM_RESPONSE == "reciprocal"


@pytest.mark.parametrize("name", list(GAMES))
def test_cost_tables_by_hand(name):
    game = GAMES[name]
    assert game.tom_cost_table("stage").tolist() == STAGE[name]
    assert game.tom_cost_table("reciprocal").tolist() == RECIPROCAL[name]
    assert game.reciprocal_regret.tolist() == RECIPROCAL[name]


def test_ipd_reciprocal_cost_table():
    assert IPD.reciprocal_regret.tolist() == [[0, 5], [2, 0]]  # rows: predicted C, D
    assert IPD.reciprocal_response() == (0, 1)  # cooperate with cooperation, defect against defection


@pytest.mark.parametrize("game", [RPS, IBS])
def test_reciprocal_equals_stage_in_rps_and_ibs(game):
    assert game.reciprocal_response() == game.focal_best_responses
    assert np.array_equal(game.reciprocal_regret, game.stage_regret)


@pytest.mark.parametrize("game", [RPS, IBS, IPD])
def test_every_gamma_between_0_4_and_1_gives_the_same_response(game):
    assert 0.4 < RECIPROCAL_GAMMA < 1
    for gamma in np.linspace(0.401, 0.999, 60):
        assert game.reciprocal_response(gamma) == game.reciprocal_response()


def test_outside_0_4_to_1_the_ipd_response_changes():
    assert IPD.reciprocal_response(0.39) == (1, 1)  # too short-sighted: defect whatever is predicted
    assert IPD.reciprocal_response(1.01) == (0, 0)  # too far-sighted: cooperate even against defection


def test_action_value_costs_come_from_the_oracle_not_the_game_alone():
    with pytest.raises(UnknownToMResponse, match="action_value_costs"):
        IPD.tom_cost_table("action_value")
    with pytest.raises(UnknownToMResponse, match="stage, reciprocal, action_value"):
        IPD.tom_cost_table("lookahead")


def brute_force_costs(game, automaton, horizon):
    """C[t, s, b_hat, b] with the future values found by trying every remaining action sequence."""
    R, N, S = game.focal_payoffs, automaton.transition, automaton.n_states
    acts = automaton.deterministic_actions

    def best_future(t, s):  # the best return from round t in state s over all action sequences
        best = 0.0 if t == horizon else -np.inf
        for seq in itertools.product(range(game.n_actions), repeat=horizon - t):
            total, state = 0.0, s
            for a in seq:
                b = acts[state]
                total += R[a, b]
                state = N[state, a, b]
            best = max(best, total)
        return best

    def q(t, s, a, b):
        return R[a, b] + best_future(t + 1, N[s, a, b])

    n_a, n_b = game.n_actions, game.n_partner_actions
    out = np.zeros((horizon, S, n_b, n_b))
    for t, s, b_hat, b in itertools.product(range(horizon), range(S), range(n_b), range(n_b)):
        values = [q(t, s, a, b_hat) for a in range(n_a)]
        trusted = values.index(max(values))  # lowest index among ties
        out[t, s, b_hat, b] = max(q(t, s, a, b) for a in range(n_a)) - q(t, s, trusted, b)
    return out


@pytest.mark.parametrize(
    "game, partner",
    [
        (IPD, "tit_for_tat"),
        (IBS, "tit_for_tat"),
        (RPS, "best_response_to_last"),
        (IPD, "grim_trigger"),
        (IBS, "always_ballet"),
    ],
)
def test_action_value_costs_match_brute_force(game, partner):
    automaton = get_partner(game, partner).automaton()
    horizon = 4
    costs = action_value_costs(game, solve(game, automaton, horizon))
    assert costs.shape == (horizon, automaton.n_states, game.n_partner_actions, game.n_partner_actions)
    assert np.allclose(costs, brute_force_costs(game, automaton, horizon))


def test_action_value_ibs_tit_for_tat_by_hand():
    # T = 3 against IBS tit-for-tat, which plays our last action. The optimal value of the rounds after ours is
    # W(a): with one round left W(F) = 10, W(B) = 7; with two left W(F) = 10 + 10 = 20, W(B) = max(0 + 10, 7 + 7) = 14.
    # Middle round: Q(a | b) = R(a, b) + W(a). Trusting Ballet plays Ballet (7 + 7 > 0 + 10), trusting Fight plays
    # Fight. Fight comes: best 10 + 10 = 20, Ballet got 0 + 7: cost 13. Ballet comes: best 7 + 7 = 14, Fight got
    # 0 + 10: cost 4. First round: trusting Ballet plays Ballet (7 + 14 > 0 + 20): cost 30 - 14 = 16 if Fight comes;
    # trusting Fight plays Fight, which loses 21 - 20 = 1 if Ballet comes.
    automaton = get_partner(IBS, "tit_for_tat").automaton()
    costs = action_value_costs(IBS, solve(IBS, automaton, 3))
    for s in range(automaton.n_states):  # the costs do not depend on the state: the partner's move is the column
        assert costs[0, s].tolist() == [[0, 1], [16, 0]]
        assert costs[1, s].tolist() == [[0, 4], [13, 0]]
        assert costs[2, s].tolist() == STAGE["IBS"]  # the last round: no future at stake


def test_action_value_equals_stage_against_single_action_partners():
    for game, partner in ((IPD, "always_defect"), (RPS, "always_paper"), (IBS, "always_fight")):
        costs = action_value_costs(game, solve(game, get_partner(game, partner).automaton(), 5))
        assert np.array_equal(costs, np.broadcast_to(game.stage_regret, costs.shape))


def test_recorder_reports_all_three_responses_per_step_and_episode():
    env = ToMRecorder(gym.make("tom/IPD-v0", partners="tit_for_tat", horizon=4))
    # TFT plays C, then copies us: C, D, C, D against our D, C, D, C
    infos = play(env, [1, 0, 1, 0], [1, 0, 0, None])
    steps = env.records
    assert [s["partner_action"] for s in steps] == [0, 1, 0, 1]
    # predicted D vs C (2 reciprocal), predicted C vs D (5), predicted C vs C (0), nothing predicted
    assert [s["tom_regret_reciprocal"] for s in steps] == [2, 5, 0, None]
    assert [s["tom_regret_stage"] for s in steps] == [0, 0, 0, None]
    assert [s["tom_regret"] for s in steps] == [s["tom_regret_reciprocal"] for s in steps]
    # action values: in round 1 (3 rounds left) predicting D against TFT's C still leaves cooperating right
    assert steps[0]["tom_regret_action_value"] == 0 and steps[3]["tom_regret_action_value"] is None
    ep = infos[-1]["tom"]["episode"]
    assert ep["tom_response"] == "reciprocal"
    assert ep["tom_regret"] == ep["tom_regret_reciprocal"] == 7.0
    assert ep["tom_regret_per_step"] == ep["tom_regret_per_step_reciprocal"] == pytest.approx(7 / 3)
    assert ep["tom_regrets"] == ep["tom_regrets_reciprocal"] == [2, 5, 0, None]
    assert ep["tom_regret_stage"] == 0.0 and ep["tom_regret_per_step_stage"] == 0.0
    assert ep["tom_regrets_action_value"][3] is None and ep["tom_regret_action_value"] is not None
    # ToM % and ΔFunctional do not depend on the response
    assert ep["tom_accuracy"] == pytest.approx(100 / 3) and ep["tom_steps"] == 3


def test_action_value_is_read_at_the_round_and_partner_state_of_the_step():
    env = ToMRecorder(gym.make("tom/IBS-v0", partners="tit_for_tat", horizon=3))
    automaton = get_partner(IBS, "tit_for_tat").automaton()
    costs = action_value_costs(IBS, solve(IBS, automaton, 3))
    actions, predictions = [1, 0, 1], [1, 1, 1]  # the partner plays F, then copies: B, F
    play(env, actions, predictions)
    state = automaton.initial_state
    for t, (a, b_hat, rec) in enumerate(zip(actions, predictions, env.records)):
        b = rec["partner_action"]
        assert rec["tom_regret_action_value"] == costs[t, state, b_hat, b]
        state = automaton.transition[state, a, b]
    assert [r["tom_regret_action_value"] for r in env.records] == [16, 0, STAGE["IBS"][1][0]]


@pytest.mark.parametrize("response", TOM_RESPONSES)
def test_the_recorder_option_chooses_the_default_keys(response):
    env = ToMRecorder(gym.make("tom/IPD-v0", partners="always_defect", horizon=3), tom_response=response)
    ep = play(env, [0, 0, 1], [0, 0, 0])[-1]["tom"]["episode"]
    assert ep["tom_response"] == response
    assert ep["tom_regret"] == ep[f"tom_regret_{response}"]
    assert ep["tom_regrets"] == ep[f"tom_regrets_{response}"]
    assert ep["tom_regret_reciprocal"] == 15.0 and ep["tom_regret_stage"] == ep["tom_regret_action_value"] == 0.0


def test_bad_responses_are_named_errors():
    with pytest.raises(UnknownToMResponse, match="stage, reciprocal, action_value"):
        ToMRecorder(gym.make("tom/IPD-v0"), tom_response="greedy")
    with pytest.raises(TomEnvsError, match="generic ToMScorer, which takes no options; got tom_response"):
        ToMRecorder(gym.make("tom/CommonToM-v2"), tom_response="stage")


# 004's published (game, partners, ΔToM/T, ToM %): Table 2 (Mixtral 8x7B, single-action partners) and Table 4.
PUBLISHED_004 = [
    ("RPS", "single", 0.050, 96.7),
    ("RPS", "single", 0.606, 59.6),
    ("RPS", "single", 0.998, 33.5),
    ("RPS", "single", 0.443, 70.5),
    ("RPS", "single", 0.530, 64.7),
    ("RPS", "single", 0.619, 58.7),
    ("RPS", "single", 0.119, 92.0),
    ("IBS", "single", 0.216, 97.3),
    ("IBS", "single", 1.818, 75.9),
    ("IBS", "single", 1.659, 79.8),
    ("IBS", "single", 1.800, 75.5),
    ("IBS", "single", 1.726, 77.9),
    ("IBS", "single", 2.190, 70.3),
    ("IBS", "single", 0.182, 97.4),
    ("IPD", "single", 0.098, 97.8),
    ("IPD", "single", 1.342, 68.8),
    ("IPD", "single", 1.105, 60.6),
    ("IPD", "single", 1.169, 72.3),
    ("IPD", "single", 1.207, 69.5),
    ("IPD", "single", 1.338, 68.2),
    ("IPD", "single", 0.110, 97.4),
    ("RPS", "single", 0.039, 97.4),
    ("RPS", "single", 0.544, 63.7),
    ("RPS", "tft", 0.105, 93.0),
    ("RPS", "tft", 0.921, 38.6),
    ("IBS", "single", 0.088, 98.7),
    ("IBS", "single", 0.233, 97.2),
    ("IBS", "tft", 0.162, 98.1),
    ("IBS", "tft", 0.466, 94.5),
    ("IPD", "single", 0.071, 98.6),
    ("IPD", "single", 0.360, 83.1),
    ("IPD", "tft", 0.070, 98.0),
    # left out: DeepSeek-R1 IPD vs tit-for-tat (ΔF/T 4.789 exceeds the 3.02 any policy can lose against it)
]


def cost_per_error_bounds(tom_regret, accuracy):
    """The range of ΔToM/T ÷ (1 − ToM %) that the published, rounded numbers allow."""
    errors = (100.0 - accuracy) / 100.0
    return (tom_regret - 0.0005) / (errors + 0.0005), (tom_regret + 0.0005) / (errors - 0.0005)


@pytest.mark.parametrize("row", PUBLISHED_004, ids=lambda r: f"{r[0]}-{r[1]}-{r[2]}")
def test_reciprocal_explains_every_published_row(row):
    """Each wrong prediction costs an off-diagonal entry of the cost table, so ΔToM/T ÷ (1 − ToM %) lies between
    the table's smallest and largest off-diagonal costs."""
    game, _, tom_regret, accuracy = row
    costs = GAMES[game].reciprocal_regret
    off = costs[~np.eye(len(costs), dtype=bool)]
    lo, hi = cost_per_error_bounds(tom_regret, accuracy)
    assert hi >= off.min() and lo <= off.max()


def test_stage_and_action_value_cannot_explain_the_ipd_rows():
    # stage costs nothing in the IPD, and action_value equals stage against single-action partners
    single = [r for r in PUBLISHED_004 if r[0] == "IPD" and r[1] == "single"]
    assert single and all(r[2] > 0 for r in single) and IPD.stage_regret.max() == 0
    always = get_partner(IPD, "always_cooperate").automaton()
    assert action_value_costs(IPD, solve(IPD, always, 100)).max() == 0
