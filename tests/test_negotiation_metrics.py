"""002's metrics against sequences computed by hand."""

from __future__ import annotations

import math

import pytest

from tom_envs.negotiation.consensus import ConsensusTracker
from tom_envs.negotiation.metrics import (
    InterventionContext,
    RuleBasedJudge,
    consensus_change,
    drop_events,
    mediator_effectiveness,
    response_latencies,
    slope,
    topic_level_efficiency,
)
from tom_envs.negotiation.scenario import Scenario


def test_consensus_change_is_last_ten_minus_first_ten_turns():
    # c[0] is the initial state and is not part of the turn windows
    series = [0.0] + [0.2] * 10 + [0.3] * 5 + [0.5] * 10
    assert consensus_change(series) == pytest.approx(0.5 - 0.2)


def test_consensus_change_windows_shrink_for_short_series():
    assert consensus_change([0.0, 0.1, 0.3]) == pytest.approx(0.0)  # both windows are turns 1..2
    assert consensus_change([0.4]) == 0.0


def test_topic_level_efficiency_divides_change_by_mentions():
    assert topic_level_efficiency(0.25, 0.75, 4) == pytest.approx(0.125)
    assert topic_level_efficiency(0.5, 0.4, 2) == pytest.approx(-0.05)
    assert topic_level_efficiency(0.5, 0.9, 0) is None


def test_drop_events_and_response_latency():
    #          t: 0    1    2    3    4    5     6    7    8
    series = [0.5, 0.5, 0.45, 0.35, 0.36, 0.5, 0.5, 0.38, 0.38]
    # from t=0 the first value below 0.4 is at d=3; scanning resumes at 3 (0.35): needs < 0.25, none;
    # then t=5 (0.5) -> d=7 (0.38)
    assert drop_events(series) == [(0, 3), (5, 7)]
    # mediator spoke at turns 2 and 5: the first drop (d=3) is answered at 5, the second never
    assert response_latencies(series, [2, 5]) == [2.0, math.inf]


def test_drop_needs_a_fall_of_more_than_tau_within_ten_turns():
    assert drop_events([0.5, 0.4, 0.45]) == []  # exactly 0.1 is not more than 0.1
    assert drop_events([0.5] + [0.45] * 10 + [0.3]) == [(1, 11)]  # 0.5 -> 0.3 takes 11 turns; 0.45 -> 0.3 does not


def test_mediator_effectiveness_is_post_minus_pre_slope():
    topic = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.5, 0.5, 0.7, 0.9, 1.0, 1.0]
    # intervention at turn 6: pre turns 1..5 slope 0.1; post turns 7..11 values 0.5,0.7,0.9,1.0,1.0
    post = slope([7, 8, 9, 10, 11], [0.5, 0.7, 0.9, 1.0, 1.0])
    assert post == pytest.approx(0.13)
    assert mediator_effectiveness(topic, 6) == pytest.approx(0.13 - 0.1)
    assert mediator_effectiveness(topic, 11) is None  # no turns after


def test_structural_agreement_by_hand():
    sc = Scenario.from_dict(
        {
            "name": "tiny",
            "background": "b",
            "topics": [
                {
                    "name": "T",
                    "options": [{"label": "a", "text": "A"}, {"label": "b", "text": "B"}, {"label": "c", "text": "C"}],
                }
            ],
            "parties": [
                {"name": "P", "preferences": {"T": {"ranking": ["a", "b", "c"]}}},
                {"name": "Q", "preferences": {"T": {"ranking": ["c", "b", "a"], "unacceptable": ["a"]}}},
                {"name": "R", "preferences": {"T": {"ranking": ["b", "a", "c"]}}},
            ],
        }
    )
    tr = ConsensusTracker(sc)
    # attitudes a, c, b. P-Q: 0.25*(acc_P(c)=0 + acc_Q(a)=0) = 0; P-R: 0.25*(acc_P(b)=.5 + acc_R(a)=.5) = .25;
    # Q-R: 0.25*(acc_Q(b)=.5 + acc_R(c)=0) = .125
    assert tr.history[0] == pytest.approx((0 + 0.25 + 0.125) / 3)
    tr.update(1, 0, 1)  # Q moves to b: P-Q .25*(.5+0)=.125, P-R .25, Q-R 1
    tr.record()
    assert tr.history[1] == pytest.approx((0.125 + 0.25 + 1.0) / 3)


def test_rule_based_judge_scores_fitting_strategies_higher():
    judge = RuleBasedJudge()
    ctx = InterventionContext(topic_agreement=(0.2, 0.8), hostile=True, silent_parties=(1,))
    good = judge({"topic": 0, "strategy": "transformative", "target": 1}, ctx)
    bad = judge({"topic": 1, "strategy": "evaluative", "target": None}, ctx)
    assert good == {"perceptual": 5.0, "emotional": 5.0, "communicative": 3.0, "mean": pytest.approx(13 / 3)}
    assert bad == {"perceptual": 1.0, "emotional": 1.0, "communicative": 1.0, "mean": 1.0}
    assert "rule-based" in judge.name


# ---------------------------------------------------------------------- the release's definitions
# A fixed episode of 30 turns: overall and two topic series (index 0 = the initial score), the
# mediator's turns, the turns that mention each topic and the topics each intervention addresses.
OVERALL = [
    0.40,
    0.42,
    0.45,
    0.45,
    0.50,
    0.38,
    0.30,
    0.28,
    0.35,
    0.40,
    0.44,
    0.47,
    0.50,
    0.52,
    0.36,
    0.30,
    0.33,
    0.40,
    0.45,
    0.50,
    0.55,
    0.56,
    0.58,
    0.60,
    0.44,
    0.42,
    0.50,
    0.55,
    0.60,
    0.62,
    0.65,
]
T1 = [
    0.2,
    0.2,
    0.3,
    0.3,
    0.4,
    0.3,
    0.2,
    0.2,
    0.3,
    0.4,
    0.4,
    0.5,
    0.5,
    0.6,
    0.4,
    0.3,
    0.3,
    0.4,
    0.5,
    0.6,
    0.6,
    0.7,
    0.7,
    0.8,
    0.6,
    0.5,
    0.6,
    0.7,
    0.8,
    0.8,
    0.9,
]
T2 = [
    0.6,
    0.64,
    0.6,
    0.6,
    0.6,
    0.46,
    0.4,
    0.36,
    0.4,
    0.4,
    0.48,
    0.44,
    0.5,
    0.44,
    0.32,
    0.3,
    0.36,
    0.4,
    0.4,
    0.4,
    0.5,
    0.42,
    0.46,
    0.4,
    0.28,
    0.34,
    0.4,
    0.4,
    0.4,
    0.44,
    0.4,
]
MEDIATOR_T = [3, 8, 12, 17, 21, 26]
MENTION = {
    "T1": [1, 2, 4, 5, 7, 9, 10, 12, 13, 15, 18, 19, 22, 24, 27, 29],
    "T2": [2, 3, 6, 8, 11, 14, 16, 17, 20, 23, 25, 28, 30],
}
ADDRESSED = {3: ["T1"], 8: ["T2"], 12: ["T1", "T2"], 17: ["T2"], 21: ["T1"], 26: ["T2"]}
# The release's own numbers for this episode: scripts/evaluation.py of microsoft/ProMediate-Eval
# (evaluate_consensus_change, evaluate_topic_level_efficiency, intervene_yield, response_latency)
# run with the project's venv python on these series, the functions taken from the file with ast
# and the two GPT-4.1 questions (does line t mention the topic; which topics does it address)
# answered from MENTION and ADDRESSED above by a stand-in client: tests/data/negotiation/release_metrics_reference.py.
RELEASE_CC = 0.15900000000000009
RELEASE_TLE = {"T1": 0.02499999999999999, "T2": -0.015384615384615382}
RELEASE_ME_PER_TURN = [None, 0.07600000000000001, -0.062, 0.028000000000000004, -0.07999999999999999, None]
RELEASE_ME = -0.009499999999999993
RELEASE_RL = 2.0


def test_release_definitions_match_the_release_code_on_a_fixed_episode():
    from tom_envs.negotiation import metrics as M

    assert M.release_consensus_change(OVERALL) == pytest.approx(RELEASE_CC, abs=1e-12)
    series = {"T1": T1, "T2": T2}
    for k in ("T1", "T2"):
        assert M.release_topic_level_efficiency(series[k], MENTION[k]) == pytest.approx(RELEASE_TLE[k], abs=1e-12)
    per_turn = []
    for t in MEDIATOR_T:
        vals = [M.release_mediator_effectiveness(series[k], t) for k in ADDRESSED[t]]
        per_turn.append(None if any(v is None for v in vals) else sum(vals) / len(vals))
    assert per_turn == pytest.approx(RELEASE_ME_PER_TURN, abs=1e-12)
    assert M.mean_defined(per_turn) == pytest.approx(RELEASE_ME, abs=1e-12)
    rl = M.release_response_latencies(OVERALL, MEDIATOR_T)
    assert sum(rl) / len(rl) == pytest.approx(RELEASE_RL, abs=1e-12)
    # a long fall: the release counts it at every index j with c[j-10] - c[j] > 0.1, the paper once per fall
    fall = [0.9] * 11 + [0.9 - 0.05 * k for k in range(1, 11)] + [0.4] * 5
    assert M.release_response_latencies(fall, [24]) == [23 - j for j in range(13, 23)]  # line index 23 = turn 24
    assert len(M.release_response_latencies(fall, [24])) > 5 and len(M.drop_events(fall)) < 5


def test_paper_and_release_definitions_differ_where_the_issue_says():
    from tom_envs.negotiation import metrics as M

    # CC: the release's first window holds the initial score, the paper's starts after turn 1
    assert M.consensus_change(OVERALL) != pytest.approx(M.release_consensus_change(OVERALL))
    assert M.release_consensus_change(OVERALL[:9]) is None
    assert M.release_topic_level_efficiency(T1, []) == 0.0 and M.topic_level_efficiency(0.2, 0.9, 0) is None
