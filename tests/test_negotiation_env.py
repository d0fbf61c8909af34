"""The negotiation AEC env: PettingZoo conformance, determinism, misuse, and the mediator effect."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from policies.negotiation.scripted import GenericMediator, NoAgentMediator, SocialMediator
from tom_envs.errors import EpisodeEnded, InvalidAction, ResetNeeded
from tom_envs.negotiation import BUILTIN_SCENARIOS, NegotiationActionError, NegotiationConfigError
from tom_envs.negotiation.env import NegotiationEnv, parallel_env

with warnings.catch_warnings():  # pettingzoo.test imports a deprecated classic env at import time
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    from pettingzoo.test import api_test, parallel_api_test, seed_test

#: the lead registers these ids with these kwargs (kind "aec"); each is made with no user arguments
REGISTERED = {
    "tom/Negotiation-v1": {"scenario": "hopkins_hmo"},
    "tom/Negotiation-Easy-v1": {"scenario": "hopkins_hmo", "difficulty": "easy"},
    "tom/Negotiation-Medium-v1": {"scenario": "hopkins_hmo", "difficulty": "medium"},
    "tom/Negotiation-Hard-v1": {"scenario": "hopkins_hmo", "difficulty": "hard"},
}


def play(env: NegotiationEnv, mediator, seed: int) -> dict:
    mediator.reset(seed)
    env.reset(seed=seed)
    info = {}
    for _ in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        env.step(None if term or trunc else mediator.act(obs, info))
    return info["episode"]


@pytest.mark.parametrize(
    "kwargs",
    list(REGISTERED.values()) + [{"scenario": "river_basin", "party_seats": "all"}],
    ids=list(REGISTERED) + ["all-seats"],
)
def test_pettingzoo_api_and_seed_tests(kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        api_test(NegotiationEnv(**kwargs), num_cycles=40)
        seed_test(lambda: NegotiationEnv(**kwargs), num_cycles=40)


def test_parallel_view_passes_parallel_api_test():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        parallel_api_test(parallel_env(scenario="ias", party_seats=[0, "A. Osei"]), num_cycles=40)


def test_same_seed_same_episode_and_seeds_differ():
    env = NegotiationEnv(scenario="williams_medical_center", conflict_mode="general")
    a, b = (
        play(env, SocialMediator(), 3),
        play(NegotiationEnv(scenario="williams_medical_center", conflict_mode="general"), SocialMediator(), 3),
    )
    assert a == b
    assert play(env, SocialMediator(), 4)["consensus"] != a["consensus"]


def test_easy_draws_accommodating_or_avoiding_per_reset():
    env = NegotiationEnv(difficulty="easy")
    modes = set()
    for s in range(12):
        env.reset(seed=s)
        modes.add(env.conflict_mode)
    assert modes == {"accommodating", "avoiding"}


def test_misuse_raises_named_errors():
    env = NegotiationEnv()
    with pytest.raises(ResetNeeded):
        env.step(0)
    env.reset(seed=0)
    for error, bad, match in (
        (InvalidAction, 999, None),
        (NegotiationActionError, {"strategy": "shouting", "topic": 0}, "unknown strategy"),
        (NegotiationActionError, {"strategy": "evaluative", "topic": "Parking"}, "unknown topic"),
    ):
        with pytest.raises(error, match=match):
            env.step(bad)
    play(env, NoAgentMediator(), 0)
    with pytest.raises(EpisodeEnded):
        env.step(0)
    with pytest.raises(NegotiationConfigError, match="party seat"):
        NegotiationEnv(mediator=False)
    with pytest.raises(NegotiationConfigError, match="conflict_mode"):
        NegotiationEnv(conflict_mode="furious")
    with pytest.raises(NegotiationConfigError, match="turn_budget"):
        NegotiationEnv(turn_budget=5)


def test_intervention_with_utterance_is_logged_and_parties_wait():
    env = NegotiationEnv(scenario="hopkins_hmo")
    env.reset(seed=1)
    env.step(
        {"strategy": "problem_solving", "topic": "Contract term", "option": "a", "utterance": "Shall we try two years?"}
    )
    event = env.infos["mediator_0"]["state"]["events"][-1]
    assert event["seat"] == "mediator_0" and event["kind"] == "intervention" and event["strategy"] == "problem_solving"
    assert event["text"] == "Shall we try two years?" and event["option"] == "a"
    assert env.turn == 1 and "Mediator: Shall we try two years?" in env.text("mediator_0")
    assert "text" not in env.infos["mediator_0"]  # the text convention: env.text(agent) (tom_envs.tom)
    env.step(0)
    assert env.infos["mediator_0"]["state"]["events"][-1]["seat"].startswith("party_")


def test_party_seat_dict_action_sets_its_stance():
    env = NegotiationEnv(scenario="hopkins_hmo", party_seats=["Lee Park"], mediator=False)
    env.reset(seed=0)
    assert env.agents == ["party_1"]
    env.step(
        {
            "topic": "Formulary status",
            "option": "Exclusive",
            "act": "accept",
            "motivation": 1.0,
            "utterance": "Fine, exclusive it is.",
        }
    )
    ev = env.infos["party_1"]["state"]["events"][-1]
    assert (ev["speaker"], ev["option"], ev["text"]) == ("Lee Park", "c", "Fine, exclusive it is.")
    assert env.infos["party_1"]["self"]["name"] == "Lee Park"
    assert env.observe("party_1").shape == env.observation_space("party_1").shape


def test_ground_truth_stays_out_of_observations_and_public_info():
    env = NegotiationEnv(scenario="flagship", conflict_mode="competing")
    env.reset(seed=0)
    info = env.infos["mediator_0"]
    assert "receptiveness" not in str(info) and "episode" not in info
    # the mediator's observation carries no ranking (all "not applicable")
    obs = env.observe("mediator_0")
    n, m, s = env.n, env.m, env.s_max
    assert (obs[6 + n * m : 6 + n * m + m * s] == s).all()


def test_the_v0_prediction_key_is_a_named_error_and_nothing_scores_in_the_info():
    """v1 has no prediction-feedback channel: the key is an error naming the recorder, and no info, nor
    the episode summary, carries a literal-ToM score (the recorder's is out of band)."""
    env = NegotiationEnv(scenario="hopkins_hmo", conflict_mode="general")
    env.reset(seed=2)
    with pytest.raises(NegotiationActionError, match="AECToMRecorder.record_prediction"):
        env.step({"intervene": False, "prediction": {0: {0: 0}}})
    ep = play(env, SocialMediator(), 2)
    assert "tom_accuracy" not in ep and "tom_predictions" not in ep
    assert all("tom" not in info for info in env.infos.values())


def test_episode_summary_has_the_metrics():
    ep = play(NegotiationEnv(scenario="st_francis_hospital", conflict_mode="general"), GenericMediator(), 0)
    assert ep["turns"] == 40 and len(ep["consensus"]) == 41
    assert set(ep["tle"]) == set(ep["topics"]) and ep["mi_judge"].startswith("rule-based")
    assert ep["mediator_turns"] == [7, 13, 19, 25, 31, 37]  # decides after turns 6, 12, ...; speaks next
    assert all(1.0 <= iv["mi"]["mean"] <= 5.0 for iv in ep["interventions"])


HARD_SEEDS = range(3)


def test_social_mediator_beats_no_agent_on_cc_in_hard_mode():
    """Scripted parties, competing mode, every built-in scenario x seeds 0-2 (18 episodes each)."""
    cc = {}
    for name, med in (("none", NoAgentMediator), ("social", SocialMediator)):
        cc[name] = float(
            np.mean(
                [
                    play(NegotiationEnv(scenario=s, difficulty="hard"), med(), seed)["cc"]
                    for s in BUILTIN_SCENARIOS
                    for seed in HARD_SEEDS
                ]
            )
        )
    print(f"Hard mode CC: NoAgent {100 * cc['none']:.2f} %, Social {100 * cc['social']:.2f} %")
    assert cc["social"] > cc["none"] + 0.01


def test_last_and_observe_before_reset_are_named_errors():
    env = NegotiationEnv()
    with pytest.raises(ResetNeeded, match="before reset"):
        env.last()
    with pytest.raises(ResetNeeded, match="before reset"):
        env.observe("mediator_0")
    with pytest.raises(NegotiationConfigError, match="metrics"):
        NegotiationEnv(metrics="vibes")
    with pytest.raises(NegotiationConfigError, match="turn_budget"):
        NegotiationEnv(turn_budget=10**9)  # would run for ever
    with pytest.raises(NegotiationConfigError, match="unknown party"):
        NegotiationEnv(party_seats=["Nobody"])


def test_the_mi_judge_sees_the_mediators_words():
    seen = []

    def judge(intervention, ctx):
        seen.append((intervention.get("text"), env.events[-1]["text"]))
        return {"perceptual": 3.0, "mean": 3.0}

    env = NegotiationEnv(scenario="hopkins_hmo", mi_judge=judge)
    env.reset(seed=1)
    env.step({"strategy": "facilitative", "topic": "Contract term", "utterance": "Lee, what would two years need?"})
    assert seen == [("Lee, what would two years need?", "Lee, what would two years need?")]


def test_release_metrics_by_default_and_paper_on_request():
    ep = play(NegotiationEnv(scenario="st_francis_hospital", conflict_mode="general"), GenericMediator(), 0)
    paper = play(
        NegotiationEnv(scenario="st_francis_hospital", conflict_mode="general", metrics="paper"), GenericMediator(), 0
    )
    from tom_envs.negotiation import metrics as M

    assert ep["metric_definitions"] == "release" and paper["metric_definitions"] == "paper"
    assert ep["cc"] == pytest.approx(
        M.release_consensus_change(ep["consensus"]), abs=1e-5
    )  # summary rounds to 6 places
    assert paper["cc"] == pytest.approx(M.consensus_change(ep["consensus"]), abs=1e-5)
    assert ep["tle_mean"] != pytest.approx(paper["tle_mean"], abs=1e-9)
    assert ep["other_definitions"]["name"] == "paper" and ep["other_definitions"]["cc"] == paper["cc"]
    assert paper["other_definitions"]["cc"] == ep["cc"]
    assert ep["consensus"] == paper["consensus"]  # the same episode, measured two ways
