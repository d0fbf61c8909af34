"""The negotiation env keeps the ToM contract (mediator_0 predicts every party's stances; the
consensus metrics are its outcome) and the information rule (the mediator is never handed the
parties' private preferences, current stances or hidden receptiveness)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from policies.negotiation.scripted import SocialMediator
from tom_envs.negotiation import NegotiationActionError
from tom_envs.negotiation.env import MEDIATOR, OUTCOME, NegotiationEnv
from tom_envs.negotiation.scenario import resolve_scenario
from tom_envs.scoring import NOT_PREDICTED, prediction_matches
from tom_envs.tom import ToMEnv
from wrappers.tom_recorder import AECToMRecorder


def _seen(env, agent: str, act) -> list[str]:
    """Everything returned to ``agent`` over an episode (its observations and infos), as text."""
    out = []
    for a in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if a == agent:
            out.append(
                json.dumps(
                    [obs.tolist(), reward, {k: v for k, v in info.items() if k not in ("episode", "tom")}],
                    sort_keys=True,
                    default=str,
                )
            )
        env.step(None if term or trunc else act(env, a, obs, info))
    return out


def _full_guess(env, obs, info) -> np.ndarray:
    """Every party's last stated option, 0 where it has said nothing yet."""
    stated = np.asarray(info["state"]["stated"])
    return np.where(stated < 0, 0, stated)


def test_spec_truth_and_outcome():
    env = NegotiationEnv(scenario="hopkins_hmo", conflict_mode="general")
    assert isinstance(env, ToMEnv) and env.tom_spec.predictor == MEDIATOR and set(env.tom_spec.outcome) == set(OUTCOME)
    env.reset(seed=1)
    assert env.tom_truth() == {}
    truth = env.hidden_preferences()
    env.step(0)
    assert np.array_equal(env.tom_truth()["stances"], truth) and env.tom_spec.targets["stances"].contains(truth)
    env.step(0)
    assert set(env.tom_truth()) == {"stances"}
    ep = env.episode_summary()
    outcome = env.tom_outcome()
    assert {k: outcome[k] for k in ("cc", "tle_mean", "rl_mean", "me_mean", "mi_mean")} == {
        k: ep[k] for k in ("cc", "tle_mean", "rl_mean", "me_mean", "mi_mean")
    }
    assert outcome["consensus_gain"] == pytest.approx(outcome["consensus"] - ep["consensus"][0], abs=1e-6)
    assert NegotiationEnv(mediator=False, party_seats="all").tom_spec.predictor is None


def test_party_seat_steps_resolve_nothing_until_the_turn_is_resolved():
    env = NegotiationEnv(scenario="ias", party_seats=[0])
    env.reset(seed=0)
    env.step(0)  # party_0 passes; the mediator has not acted yet
    assert env.tom_truth() == {}
    env.step(0)
    assert "stances" in env.tom_truth()


def test_aec_recorder_scores_full_predictions_against_the_hidden_stances():
    """Full predictions through the recorder, scored cell by cell against the turn's ``tom_truth()``
    (read here from the unwrapped env for the check, out of band)."""
    for seed in range(3):
        env = AECToMRecorder(NegotiationEnv(scenario="river_basin"))
        env.reset(seed=seed)
        hits = total = 0
        for _ in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            guess = _full_guess(env, obs, info)
            env.record_prediction({"stances": guess})
            env.step(0)
            truth = env.unwrapped.tom_truth()["stances"]  # the turn's stances, as the recorder reads them
            hits, total = hits + int((guess == truth).sum()), total + guess.size
        ep, rec = env.unwrapped.episode_summary(), env.episode_summary()
        assert rec["tom_steps"] == ep["turns"] and total == ep["turns"] * env.unwrapped.n * env.unwrapped.m
        assert rec["tom_accuracy"] == pytest.approx(100.0 * hits / total)
        assert rec["outcome"] == env.unwrapped.tom_outcome() and rec["outcome"]["cc"] == ep["cc"]


def test_a_partial_prediction_counts_only_the_cells_it_predicts():
    truth = np.array([[0, 1], [2, 0]])
    guess = np.full((2, 2), NOT_PREDICTED)
    guess[0, 1], guess[1, 0] = 1, 0
    assert prediction_matches(guess, truth) == (1, 2)
    assert prediction_matches(2, 2) == (1, 1) and prediction_matches(np.zeros(3, int), truth) == (0, 4)


def test_stance_prediction_converts_the_action_dict_form_into_the_target_space():
    env = NegotiationEnv(scenario="hopkins_hmo")
    table = env.stance_prediction({"Lee Park": {"Formulary status": "c"}, 0: {1: 0}})
    assert table.shape == (env.n, env.m) and env.tom_spec.targets["stances"].contains(table)
    assert table[1, 3] == 2 and table[0, 1] == 0 and (table == NOT_PREDICTED).sum() == env.n * env.m - 2
    with pytest.raises(NegotiationActionError):
        env.stance_prediction({"Nobody": {0: 0}})


def test_mediator_is_not_handed_private_preferences():
    """Two cases that differ only in one party's private ranking: everything the mediator is given at
    the start is the same, although that party's hidden stances differ."""
    base = resolve_scenario("hopkins_hmo").model_dump()
    other = json.loads(json.dumps(base))
    topic = next(iter(other["parties"][0]["preferences"]))
    pref = other["parties"][0]["preferences"][topic]
    pref["ranking"] = pref["ranking"][::-1]
    pref["unacceptable"] = []
    views, truths = [], []
    for case in (base, other):
        env = NegotiationEnv(scenario=case, conflict_mode="general")
        env.reset(seed=0)
        views.append(json.dumps([env.observe(MEDIATOR).tolist(), env.infos[MEDIATOR]], sort_keys=True, default=str))
        truths.append(env.hidden_preferences())
    assert views[0] == views[1] and not np.array_equal(truths[0], truths[1])


def test_mediator_sees_nothing_of_the_hidden_receptiveness_until_the_end():
    """Same seed, the scripted parties' receptiveness changed in one env: while the mediator only
    watches, every observation and info it gets is the same; the summary at the end reveals it."""
    envs = [NegotiationEnv(scenario="flagship", conflict_mode="competing") for _ in range(2)]
    for env in envs:
        env.reset(seed=4)
    for party in envs[1].parties.values():
        party.receptiveness = 1.0 - party.receptiveness
    seen = [_seen(env, MEDIATOR, lambda env, a, obs, info: 0) for env in envs]
    assert seen[0] == seen[1]
    assert envs[0].episode_summary()["receptiveness"] != envs[1].episode_summary()["receptiveness"]


def test_social_mediator_predictions_go_to_the_recorder_not_the_action():
    """The runner's loop: the predictor's ``predict`` goes to the recorder, its action (with no
    prediction in it) to the env."""
    env = AECToMRecorder(NegotiationEnv(scenario="ias", conflict_mode="general"))
    mediator = SocialMediator()
    mediator.reset(0)
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if not (term or trunc):
            env.record_prediction(mediator.predict(obs, info))
            action = mediator.act(obs, info)
            assert not isinstance(action, dict) or "prediction" not in action
        env.step(None if term or trunc else action)
    summary, ep = env.episode_summary(), env.unwrapped.episode_summary()
    assert summary["tom_steps"] >= ep["turns"] - 1 and summary["tom_accuracy"] is not None
    assert "tom_accuracy" not in ep and summary["outcome"]["cc"] == ep["cc"]
