"""The Policy protocol and the scripted policies."""

from __future__ import annotations

import re

import gymnasium as gym
import numpy as np
import pytest

from policies import Policy
from policies.matrix import FixedActionPolicy, OracleBestResponsePolicy, PartnerPolicy, RandomPolicy, TabularRMaxPolicy
from tom_envs.errors import InvalidAction, InvalidPartner, OracleUnavailable
from tom_envs.matrix.games import GAMES, IPD
from tom_envs.matrix.partners import Partner, get_partner, select_partners
from wrappers import ToMRecorder


def episode(env, policy, seed=0):
    policy.reset(seed)
    obs, info = env.reset(seed=seed)
    actions = []
    while True:
        prediction = policy.predict(obs, info)
        if isinstance(env, ToMRecorder):
            env.record_prediction(prediction)
        a = policy.act(obs, info)
        actions.append(a)
        obs, reward, terminated, truncated, info = env.step(a)
        policy.observe(obs, reward, terminated, truncated, info)
        if terminated or truncated:
            return actions, info


@pytest.mark.parametrize("game", list(GAMES))
def test_oracle_best_responder_has_zero_regret_and_perfect_tom(game):
    for partner in select_partners(game, stochastic=False):
        env = ToMRecorder(gym.make(f"tom/{game}-v0", partners=[partner], expose_partner=True))
        _, info = episode(env, OracleBestResponsePolicy())
        ep = info["tom"]["episode"]
        assert ep["regret"] == 0.0 and ep["return"] == ep["optimal_return"], partner.name
        assert ep["tom_accuracy"] == 100.0 and ep["tom_regret"] == 0.0


def test_oracle_best_responder_is_optimal_in_expectation_against_stochastic_partners():
    env = ToMRecorder(gym.make("tom/IBS-v0", partners="biased_ballet", horizon=50, expose_partner=True))
    regrets = [episode(env, OracleBestResponsePolicy(), seed=s)[1]["tom"]["episode"]["regret"] for s in range(40)]
    assert abs(np.mean(regrets)) < 3 * np.std(regrets) / np.sqrt(len(regrets)) + 1e-9


def test_predict_then_act_advances_the_oracle_once_per_round():
    env = gym.make("tom/IPD-v0", partners="tit_for_tat", horizon=4, **OracleBestResponsePolicy.env_kwargs)
    pol = OracleBestResponsePolicy()
    pol.reset(0)
    obs, info = env.reset(seed=0)
    acts = []
    for _ in range(4):
        pol.predict(obs, info)
        pol.predict(obs, info)
        acts.append(pol.act(obs, info))
        obs, _, _, _, info = env.step(acts[-1])
    assert acts == [0, 0, 0, 1]


class Echo(Partner):
    """A black-box partner without an automaton (plays the focal's last action)."""

    name = "echo"
    classifier = {"memory_depth": 1, "stochastic": False, "populations": frozenset({"all"}), "automaton": False}

    def reset(self, rng, horizon):
        self.last = 0

    def next_action(self):
        return self.last

    def observe(self, focal_action, partner_action):
        self.last = focal_action


def test_black_box_partners_play_without_an_oracle():
    env = ToMRecorder(gym.make("tom/IPD-v0", partners=[Echo(IPD)], horizon=5, expose_partner=True))
    _, info = env.reset(seed=0)
    assert info["oracle"] is None and info["optimal_return"] is None
    infos = [env.step(a)[4] for a in (1, 0, 1, 1, 0)]
    assert [i["partner_action"] for i in infos] == [0, 1, 0, 1, 1]
    ep = infos[-1]["tom"]["episode"]
    assert ep["regret"] is None and ep["return"] == 10 + 0 + 10 + 5 + 0
    with pytest.raises(OracleUnavailable, match="black box"):
        episode(env, OracleBestResponsePolicy())


def test_partner_policy_plays_the_focal_seat():
    # tit-for-tat against tit-for-tat cooperates throughout
    actions, _ = episode(
        gym.make("tom/IPD-v0", partners="tit_for_tat", horizon=10), PartnerPolicy("tit_for_tat", "IPD")
    )
    assert actions == [0] * 10
    # a best-response partner in the focal seat uses the focal's payoffs: against always-ballet it plays Ballet
    actions, _ = episode(
        gym.make("tom/IBS-v0", partners="always_ballet", horizon=4), PartnerPolicy("best_response_to_last", "IBS")
    )
    assert actions == [0, 1, 1, 1]
    with pytest.raises(InvalidPartner, match="transposed"):
        PartnerPolicy(get_partner("RPS", "always_rock"), "IBS")


def test_random_policy_is_seeded():
    env = gym.make("tom/RPS-v0", horizon=20)
    a1, _ = episode(env, RandomPolicy("RPS"), seed=3)
    a2, _ = episode(env, RandomPolicy("RPS"), seed=3)
    a3, _ = episode(env, RandomPolicy("RPS"), seed=4)
    assert a1 == a2 != a3


def test_fixed_action_policy():
    actions, _ = episode(gym.make("tom/RPS-v0", horizon=3), FixedActionPolicy(2))
    assert actions == [2, 2, 2]
    with pytest.raises(InvalidAction):
        FixedActionPolicy(-1)


def test_all_policies_follow_the_protocol():
    for p in (
        RandomPolicy("IPD"),
        FixedActionPolicy(0),
        PartnerPolicy("grim_trigger", "IPD"),
        OracleBestResponsePolicy(),
    ):
        assert isinstance(p, Policy)


@pytest.mark.parametrize(
    "make_policy", [lambda: RandomPolicy("RPS"), OracleBestResponsePolicy, lambda: PartnerPolicy("cyclic", "RPS")]
)
def test_batched_forms_equal_single_episodes(make_policy):
    seeds = [0, 1, 2]
    envs = [gym.make("tom/RPS-v0", partners="all", horizon=15, expose_partner=True) for _ in seeds]
    single = [episode(e, make_policy(), seed=s)[0] for e, s in zip(envs, seeds)]
    policy = make_policy()
    policy.reset_batch(seeds)
    obs, infos = zip(*(e.reset(seed=s) for e, s in zip(envs, seeds)))
    batched = [[] for _ in seeds]
    for _ in range(15):
        policy.predict_batch(obs, infos)
        acts = policy.act_batch(obs, infos)
        for i, a in enumerate(acts):
            batched[i].append(a)
        steps = [e.step(a) for e, a in zip(envs, acts)]
        obs, rewards, terms, truncs, infos = zip(*steps)
        policy.observe_batch(obs, rewards, terms, truncs, infos)
    assert batched == single
    with pytest.raises(ValueError, match="reset_batch"):
        policy.act_batch(obs[:2], infos[:2])


@pytest.mark.parametrize(
    "policy, kwargs, message",
    [
        (lambda: TabularRMaxPolicy("RPS", horizon=100), {}, "build it with game='IPD'"),
        (lambda: RandomPolicy("RPS"), {}, "build it with game='IPD'"),
        (lambda: TabularRMaxPolicy("IPD", horizon=100), {"horizon": 10}, "build it with horizon=10"),
        (lambda: TabularRMaxPolicy("IPD", horizon=10), {}, "build it with horizon=100"),
    ],
)
def test_a_policy_built_for_another_game_or_horizon_fails_before_the_episode(policy, kwargs, message):
    from benchmarks.runner_envs import make_env
    from benchmarks.runner_episodes import play, play_lockstep
    from policies.base import PolicyMismatch

    env = make_env("tom/IPD-v0", record=True, **kwargs)
    with pytest.raises(PolicyMismatch, match=re.escape(message)):
        play(env, policy(), seed=0)
    with pytest.raises(PolicyMismatch, match=re.escape(message)):
        play_lockstep([env], policy(), [0])


def test_the_count_model_only_needs_the_action_counts():
    from benchmarks.runner_envs import make_env
    from policies.base import PolicyMismatch
    from policies.matrix import PartnerCountModel

    game = {"name": "Chicken", "payoffs": [[[0, 0], [-1, 1]], [[1, -1], [-10, -10]]], "action_labels": ["S", "T"]}
    from tom_envs.description import describe

    PartnerCountModel("IPD").check_env(describe(make_env("tom/MatrixGame-v0", record=True, game=game)))  # 2 x 2
    with pytest.raises(PolicyMismatch, match="build it with game='RPS'"):
        PartnerCountModel("IPD").check_env(describe(make_env("tom/RPS-v0", record=True)))
