"""Partners: expected trajectories (Axelrod's versus_test style), seeding, queries."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from tom_envs.errors import InvalidPartner, UnknownPartner
from tom_envs.matrix.games import GAMES
from tom_envs.matrix.partners import (
    DEFAULT_PARTNERS,
    PartnerDistribution,
    get_partner,
    partner_names,
    resolve_partners,
    select_partners,
)


def versus_test(game: str, partner: str, focal_actions: list[int], expected: list[int], seed: int = 0) -> None:
    """The partner's actions against a fixed focal sequence, in the env and on its own."""
    env = gym.make(f"tom/{game}-v0", partners=partner, horizon=len(focal_actions))
    env.reset(seed=seed)
    got = [env.step(a)[4]["partner_action"] for a in focal_actions]
    assert got == expected, f"{partner} in {game}: env played {got}, expected {expected}"
    p = get_partner(game, partner)
    p.reset(np.random.default_rng(seed), len(focal_actions))
    alone = []
    for a in focal_actions:
        b = p.next_action()
        alone.append(b)
        p.observe(a, b)
    assert alone == expected, f"{partner} in {game}: runtime protocol played {alone}"


R, P, S = 0, 1, 2
C, D = 0, 1
F, B = 0, 1


@pytest.mark.parametrize(
    "game, partner, focal, expected",
    [
        ("RPS", "always_rock", [P, R, S, P], [R, R, R, R]),
        ("RPS", "always_paper", [P, R, S], [P, P, P]),
        ("RPS", "always_scissors", [P, R, S], [S, S, S]),
        ("RPS", "copy_last", [P, S, R, R], [R, P, S, R]),
        ("RPS", "best_response_to_last", [R, P, S, S], [R, P, S, R]),  # 004's RPS partner: beat the last move
        ("RPS", "win_stay_lose_shift", [S, P, P, R, R], [R, R, P, S, R]),
        ("RPS", "cyclic", [R, R, R, R, R], [R, P, S, R, P]),
        ("IBS", "always_fight", [B, F], [F, F]),
        ("IBS", "always_ballet", [B, F], [B, B]),
        ("IBS", "tit_for_tat", [B, B, F, F], [F, B, B, F]),  # 004's IBS partner: copy the last move
        ("IBS", "alternating", [F, F, F, F], [F, B, F, B]),
        ("IBS", "win_stay_lose_shift", [B, F, F, B], [F, B, F, F]),
        ("IBS", "best_response_to_last", [B, F, F], [F, B, F]),
        ("IPD", "always_cooperate", [D, C], [C, C]),
        ("IPD", "always_defect", [D, C], [D, D]),
        ("IPD", "tit_for_tat", [D, C, D, D, C], [C, D, C, D, D]),
        ("IPD", "suspicious_tit_for_tat", [C, C, D], [D, C, C]),
        ("IPD", "grim_trigger", [C, D, C, C], [C, C, D, D]),
        ("IPD", "win_stay_lose_shift", [D, D, C, C, C], [C, D, C, C, C]),  # Pavlov
        ("IPD", "best_response_to_last", [C, C, D], [C, D, D]),
        ("IPD", "alternating", [C, C, C, C], [C, D, C, D]),
        ("IPD", "mixed_nash", [C, C, C], [D, D, D]),  # the PD's only equilibrium is mutual defection
    ],
)
def test_expected_trajectory(game, partner, focal, expected):
    versus_test(game, partner, focal, expected)


def test_every_deterministic_partner_has_an_expected_trajectory_test():
    covered = {(g, p) for g, p, *_ in test_expected_trajectory.pytestmark[0].args[1]}
    for game in GAMES:
        for p in select_partners(game, stochastic=False):
            assert (game, p.name) in covered, f"add a versus_test for {game}/{p.name}"


@pytest.mark.parametrize(
    "game, partner, action, probability",
    [
        ("RPS", "uniform_random", 0, 1 / 3),
        ("RPS", "biased_rock", 0, 0.75),
        ("RPS", "mixed_nash", 2, 1 / 3),
        ("IBS", "mixed_nash", 0, 7 / 17),  # makes the focal indifferent: 10 p = 7 (1 - p)
        ("IBS", "biased_ballet", 1, 0.75),
        ("IPD", "uniform_random", 1, 0.5),
    ],
)
def test_stochastic_partner_frequencies(game, partner, action, probability):
    env = gym.make(f"tom/{game}-v0", partners=partner, horizon=4000)
    env.reset(seed=11)
    acts = np.array([env.step(0)[4]["partner_action"] for _ in range(4000)])
    assert abs((acts == action).mean() - probability) < 0.03
    assert get_partner(game, partner).classifier["stochastic"] is True


def test_stochastic_partner_follows_the_seed_and_the_runtime_protocol():
    """The env's table fast path and the partner's own protocol make the same draws (the seeding
    contract of tom_envs.matrix.rng: a key from np_random, then one stream per episode)."""
    from tom_envs.matrix.rng import UniformStream, episode_base, key_from

    game, name = "RPS", "uniform_random"
    env = gym.make(f"tom/{game}-v0", partners=name, horizon=50)
    focal = [i % 3 for i in range(50)]
    env.reset(seed=5)
    got = [env.step(a)[4]["partner_action"] for a in focal]
    env.reset(seed=5)
    assert got == [env.step(a)[4]["partner_action"] for a in focal]
    key = key_from(np.random.default_rng(5))  # gymnasium seeds np_random exactly like default_rng
    p = get_partner(game, name)
    p.reset(UniformStream(episode_base(key, 0)), 50)
    alone = []
    for a in focal:
        alone.append(p.next_action())
        p.observe(a, alone[-1])
    assert alone == got
    env.reset()  # the next episode continues the seeded sequence with a fresh stream
    second = [env.step(a)[4]["partner_action"] for a in focal]
    assert second != got
    p.reset(UniformStream(episode_base(key, 1)), 50)
    replay = []
    for a in focal:
        replay.append(p.next_action())
        p.observe(a, replay[-1])
    assert replay == second
    env.reset(seed=6)
    assert got != [env.step(a)[4]["partner_action"] for a in focal]


def test_classifier_queries_select_populations():
    single = select_partners("RPS", populations="single_action")
    assert [p.name for p in single] == ["always_rock", "always_paper", "always_scissors"]
    assert [p.name for p in select_partners("RPS", populations="tit_for_tat")] == ["best_response_to_last"]
    assert [p.name for p in select_partners("IBS", populations="tit_for_tat")] == ["tit_for_tat"]
    assert [p.name for p in select_partners("IPD", populations="tit_for_tat")] == ["tit_for_tat"]
    det1 = select_partners("IPD", stochastic=False, memory_depth=1)
    assert {"tit_for_tat", "win_stay_lose_shift"} <= {p.name for p in det1}
    assert all(not p.classifier["stochastic"] for p in det1)
    assert {p.name for p in select_partners("IPD", memory_depth=lambda m: m > 1)} == {"grim_trigger"}
    with pytest.raises(UnknownPartner, match="unknown classifier key"):
        select_partners("IPD", colour="red")


def test_tit_for_tat_means_the_games_tit_for_tat_style_partner():
    # a name that is also a population resolves to the population (004's partner of the game)
    assert resolve_partners("RPS", "tit_for_tat").names == ["best_response_to_last"]
    assert resolve_partners("IBS", "tit_for_tat").names == ["tit_for_tat"]
    assert resolve_partners("IPD", "tit_for_tat").names == ["tit_for_tat"]
    assert "copy_last" in partner_names("RPS") and "tit_for_tat" not in partner_names("RPS")


def test_partner_classifiers_follow_axelrod_conventions():
    for game in GAMES:
        for name in partner_names(game):
            c = get_partner(game, name).classifier
            assert {"memory_depth", "stochastic", "populations", "source", "game", "automaton"} <= set(c)
            assert "all" in c["populations"] and c["game"] == game


def test_default_distribution_weights_the_two_populations_equally():
    dist = resolve_partners("RPS")
    assert DEFAULT_PARTNERS == ("single_action", "tit_for_tat")
    w = dict(zip(dist.names, dist.weights))
    assert w == pytest.approx(
        {"always_rock": 1 / 6, "always_paper": 1 / 6, "always_scissors": 1 / 6, "best_response_to_last": 0.5}
    )


def test_resolve_partners_accepts_names_queries_objects_and_strings():
    a = resolve_partners("IPD", "tit_for_tat, always_defect")
    assert a.names == ["tit_for_tat", "always_defect"]
    b = resolve_partners("IPD", [{"populations": "single_action"}, get_partner("IPD", "grim_trigger")])
    assert b.names == ["always_cooperate", "always_defect", "grim_trigger"]
    assert b.weights.tolist() == pytest.approx([0.25, 0.25, 0.5])
    c = resolve_partners("IPD", PartnerDistribution([get_partner("IPD", "tit_for_tat")], [2.0]))
    assert c.weights.tolist() == [1.0]


@pytest.mark.parametrize(
    "partners, error, message",
    [
        ("nobody", UnknownPartner, "Valid names: always_cooperate"),
        ([], InvalidPartner, "non-empty"),
        ([3], InvalidPartner, "cannot use 3"),
        ({"populations": "no_such_population"}, UnknownPartner, "matches the query"),
    ],
)
def test_bad_partner_arguments_are_named_errors(partners, error, message):
    with pytest.raises(error, match=message):
        gym.make("tom/IPD-v0", partners=partners)


def test_partner_of_another_game_is_rejected():
    with pytest.raises(InvalidPartner, match="built for game RPS"):
        gym.make("tom/IPD-v0", partners=[get_partner("RPS", "always_rock")])


def test_partner_objects_are_copied_into_each_env():
    p = get_partner("IPD", "tit_for_tat")
    e1 = gym.make("tom/IPD-v0", partners=[p])
    assert e1.unwrapped.partner_distribution.partners[0] is not p
