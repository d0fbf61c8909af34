"""Axelrod strategies as partners: they play exactly as in ``axelrod.Match``, seeded, picklable, vetted."""

from __future__ import annotations

import pickle
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

axl = pytest.importorskip("axelrod")

import tom_envs  # noqa: E402,F401  (registers the ids)
from tom_envs.errors import InvalidPartner, UnknownPartner  # noqa: E402
from tom_envs.matrix.axelrod_partner import AxelrodPartner, axelrod_game, axelrod_partners  # noqa: E402
from tom_envs.matrix.partners import get_partner  # noqa: E402

#: tom-envs' IPD payoffs as an Axelrod game (R, S, T, P).
IPD_GAME = axl.Game(r=8, s=0, t=10, p=5)

#: Deterministic partners; the last two use the match length, Adaptive and Tideman the payoffs.
DETERMINISTIC_PARTNERS = [
    "Tit For Tat",
    "Grudger",
    "Alternator",
    "Cooperator",
    "Defector",
    "Win-Stay Lose-Shift",
    "Suspicious Tit For Tat",
    "Tit For 2 Tats",
    "Two Tits For Tat",
    "Adaptive",
    "BackStabber",
    "First by Tideman and Chieruzzi",
]
#: Deterministic focal strategies that drive the env.
FOCALS = ["Alternator", "Grudger", "Cycler CCD", "Tit For Tat"]
STOCHASTIC_PARTNERS = ["Random", "GTFT", "First by Joss", "Stochastic WSLS"]
T = 40


def _player(name: str):
    return {cls.name: cls for cls in axl.all_strategies}[name]()


def _match_moves(focal: str, partner: str, turns: int, seed: int | None = None) -> list[tuple[int, int]]:
    match = axl.Match((_player(focal), _player(partner)), turns=turns, game=IPD_GAME, seed=seed)
    return [(x.value, y.value) for x, y in match.play()]


def _env_moves(partner: str, focal: str, turns: int, seed: int = 0) -> tuple[list[tuple[int, int]], list[float]]:
    """Joint moves and focal rewards of one episode in the real env, the focal driven by ``focal``."""
    env = gym.make("tom/IPD-v0", partners=[f"axelrod:{partner}"], horizon=turns)
    driver = AxelrodPartner(focal)  # the focal agent's brain; its opponent is the env's partner
    env.reset(seed=seed)
    driver.reset(np.random.default_rng(seed), turns)
    moves, rewards, terminated = [], [], False
    for _ in range(turns):
        a = driver.next_action()
        _, reward, terminated, _, info = env.step(a)
        b = info["partner_action"]
        driver.observe(b, a)
        moves.append((a, b))
        rewards.append(reward)
    assert terminated
    return moves, rewards


class FixedSeed:
    """Stands in for the env's generator: hands the partner a chosen seed."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def integers(self, high: int) -> int:
        return self.seed


@pytest.fixture(scope="module")
def deterministic_partners() -> list[AxelrodPartner]:
    return axelrod_partners(stochastic=False)


# ---------------------------------------------------------------------- equality with axelrod.Match


@pytest.mark.parametrize("focal", FOCALS)
@pytest.mark.parametrize("partner", DETERMINISTIC_PARTNERS)
def test_env_trajectory_equals_axelrod_match(partner: str, focal: str) -> None:
    moves, _ = _env_moves(partner, focal, T)
    assert moves == _match_moves(focal, partner, T)


@pytest.mark.parametrize("partner", ["Adaptive", "Tit For Tat", "BackStabber"])
def test_env_rewards_equal_axelrod_scores(partner: str) -> None:
    _, rewards = _env_moves(partner, "Alternator", T)
    match = axl.Match((_player("Alternator"), _player(partner)), turns=T, game=IPD_GAME)
    match.play()
    assert rewards == [s[0] for s in match.scores()]


def test_partner_knows_the_horizon() -> None:
    # BackStabber defects in the last two rounds of a match of known length
    moves, _ = _env_moves("BackStabber", "Cooperator", 25)
    assert [b for _, b in moves] == [0] * 23 + [1, 1]


@pytest.mark.parametrize("partner", STOCHASTIC_PARTNERS)
def test_seeded_stochastic_partner_equals_axelrod_match(partner: str) -> None:
    # Match seeds only stochastic players, so its first seed goes to the partner
    seed = int(axl.RandomGenerator(seed=7).random_seed_int())
    p = AxelrodPartner(partner)
    driver = AxelrodPartner("Alternator")
    p.reset(FixedSeed(seed), T)
    driver.reset(np.random.default_rng(0), T)
    moves = []
    for _ in range(T):
        a, b = driver.next_action(), p.next_action()
        driver.observe(b, a)
        p.observe(a, b)
        moves.append((a, b))
    assert moves == _match_moves("Alternator", partner, T, seed=7)


# ---------------------------------------------------------------------- seeding


def _partner_actions(env: gym.Env, seed: int, focal_actions: list[int]) -> list[int]:
    env.reset(seed=seed)
    return [env.step(a)[4]["partner_action"] for a in focal_actions]


def test_stochastic_partner_is_reproducible_per_seed() -> None:
    env = gym.make("tom/IPD-v0", partners=["axelrod:Random"], horizon=50)
    focal = [t % 2 for t in range(50)]
    first = _partner_actions(env, 3, focal)
    assert _partner_actions(env, 3, focal) == first
    assert _partner_actions(env, 4, focal) != first


def test_next_action_is_drawn_once_per_round() -> None:
    p = AxelrodPartner("Random")
    p.reset(np.random.default_rng(0), 30)
    for _ in range(30):
        b = p.next_action()
        assert all(p.next_action() == b for _ in range(3))
        p.observe(0, b)


# ---------------------------------------------------------------------- vetting


def test_cheating_strategy_is_refused() -> None:
    with pytest.raises(InvalidPartner, match="Darwin.*manipulates_state"):
        AxelrodPartner("Darwin")
    with pytest.raises(InvalidPartner, match="Darwin"):
        gym.make("tom/IPD-v0", partners=["axelrod:Darwin"])


def test_unknown_strategy_lists_close_matches() -> None:
    with pytest.raises(UnknownPartner, match="'Tit For Tat'"):
        get_partner("IPD", "axelrod:Tit For Tatt")


def test_non_2x2_game_is_refused() -> None:
    with pytest.raises(InvalidPartner, match="2x2"):
        AxelrodPartner("Tit For Tat", game="RPS")
    with pytest.raises(InvalidPartner, match="2x2"):
        gym.make("tom/RPS-v0", partners=["axelrod:Tit For Tat"])


def test_strategy_undefined_for_the_payoffs_is_refused() -> None:
    # ZD-GTFT-2's four probabilities leave [0, 1] with payoffs 8/0/10/5 (axelrod.Match fails too)
    with pytest.raises(InvalidPartner, match="ZD-GTFT-2"):
        AxelrodPartner("ZD-GTFT-2")


def test_non_strategy_is_refused() -> None:
    with pytest.raises(InvalidPartner, match="strategy name"):
        AxelrodPartner(42)


# ---------------------------------------------------------------------- construction


def test_player_instance_is_copied_not_shared() -> None:
    player = axl.TitForTat()
    p = AxelrodPartner(player)
    p.reset(np.random.default_rng(0), 5)
    p.observe(1, p.next_action())
    assert p.player is not player
    assert len(player.history) == 0


def test_player_class_and_name_give_the_same_partner() -> None:
    assert AxelrodPartner(axl.TitForTat).name == AxelrodPartner("Tit For Tat").name == "axelrod:Tit For Tat"


def test_non_default_parameters_are_part_of_the_name() -> None:
    assert AxelrodPartner(axl.Random()).name == "axelrod:Random"
    assert AxelrodPartner(axl.Random(0.3)).name == "axelrod:Random: 0.3"


def test_classifier_comes_from_axelrod() -> None:
    c = AxelrodPartner("Tit For Tat").classifier
    assert c["memory_depth"] == 1 and c["stochastic"] is False
    assert c["populations"] == {"axelrod", "all"}
    assert (c["source"], c["game"], c["automaton"]) == ("axelrod", "IPD", False)
    assert AxelrodPartner("Random").classifier["stochastic"] is True


def test_axelrod_game_holds_the_ipd_payoffs() -> None:
    assert axelrod_game("IPD") == IPD_GAME


# ---------------------------------------------------------------------- in the env


def test_reset_info_has_no_oracle() -> None:
    env = gym.make("tom/IPD-v0", partners=["axelrod:Tit For Tat"], horizon=10, expose_partner=True)
    _, info = env.reset(seed=0)
    assert info["oracle"] is None and info["optimal_return"] is None
    assert info["partner"] == "axelrod:Tit For Tat"
    assert info["partner_classifier"]["source"] == "axelrod"


@pytest.mark.parametrize("partner", ["Random", "Cycler CCD", "Adaptive"])
def test_pickled_env_continues_identically(partner: str) -> None:
    env = gym.make("tom/IPD-v0", partners=[f"axelrod:{partner}"], horizon=30)
    focal = [(t * 7 // 3) % 2 for t in range(30)]
    env.reset(seed=5)
    for a in focal[:12]:
        env.step(a)
    clone = pickle.loads(pickle.dumps(env))
    assert [env.step(a) for a in focal[12:]] == [clone.step(a) for a in focal[12:]]


def test_unstarted_partner_pickles() -> None:
    clone = pickle.loads(pickle.dumps(AxelrodPartner("Cycler CCD")))
    clone.reset(np.random.default_rng(0), 6)
    actions = []
    for _ in range(6):
        actions.append(clone.next_action())
        clone.observe(0, actions[-1])
    assert actions == [0, 0, 1, 0, 0, 1]


def test_axelrod_is_imported_only_when_used() -> None:
    code = (
        "import sys, gymnasium, tom_envs; env = gymnasium.make('tom/IPD-v0'); env.reset(seed=0); "
        "assert 'axelrod' not in sys.modules, 'axelrod was imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# ---------------------------------------------------------------------- collections


def test_deterministic_collection_holds_tit_for_tat(deterministic_partners: list[AxelrodPartner]) -> None:
    names = [p.name for p in deterministic_partners]
    assert "axelrod:Tit For Tat" in names
    assert "axelrod:Darwin" not in names
    assert all(not p.classifier["stochastic"] for p in deterministic_partners)
    for p in deterministic_partners:
        assert not any(
            axl.Classifiers[flag](p.player) for flag in ("inspects_source", "manipulates_source", "manipulates_state")
        )
        assert not p.classifier["long_run_time"]


def test_collection_query_filters_on_axelrod_classifiers() -> None:
    found = axelrod_partners(stochastic=False, memory_depth=1)
    assert found and all(p.classifier["memory_depth"] == 1 for p in found)
    assert "axelrod:BackStabber" in [p.name for p in axelrod_partners(makes_use_of="length")]


def test_collection_rejects_unknown_query_keys() -> None:
    with pytest.raises(UnknownPartner, match="colour"):
        axelrod_partners(colour="red")


def test_collection_members_can_share_one_env(deterministic_partners: list[AxelrodPartner]) -> None:
    env = gym.make("tom/IPD-v0", partners=deterministic_partners[:20], horizon=5)
    env.reset(seed=0)
    for _ in range(5):
        env.step(0)
