"""Matrix games: payoffs of seed 004, validation of user games, label sets, registration."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import tom_envs
from tom_envs.errors import InvalidGame, InvalidPartner, UnknownPartner
from tom_envs.matrix.games import IBS, IPD, RPS, MatrixGame, get_game


def test_payoffs_match_seed_004_tables_5_to_7():
    assert RPS.focal_payoffs.tolist() == [[0, -1, 1], [1, 0, -1], [-1, 1, 0]]
    assert RPS.partner_payoffs.tolist() == (-RPS.focal_payoffs).tolist()
    assert IBS.payoffs == (((10, 7), (0, 0)), ((0, 0), (7, 10)))
    assert IPD.payoffs == (((8, 8), (0, 10)), ((10, 0), (5, 5)))


def test_stage_regret_is_best_response_regret():
    # RPS: predicting Rock -> play Paper; vs Scissors that loses (-1) where the best is +1
    assert RPS.stage_regret[0, 2] == 2.0 and RPS.stage_regret[0, 1] == 1.0 and RPS.stage_regret[0, 0] == 0.0
    assert RPS.stage_regret[[0, 1, 2], [1, 2, 0]].tolist() == [1.0, 1.0, 1.0]
    assert IBS.stage_regret.tolist() == [[0, 7], [10, 0]]
    assert IPD.stage_regret.tolist() == [[0, 0], [0, 0]]  # defecting is dominant


@pytest.mark.parametrize(
    "game, label_set, expected",
    [
        (RPS, "letters", ("R", "P", "S")),
        (RPS, "neutral", ("J", "F", "B")),
        (RPS, "canonical", ("Rock", "Paper", "Scissors")),
        (RPS, "nonsense", ("Pasta", "Rice", "Bread")),
        (IBS, "canonical", ("Fight", "Ballet")),
        (IBS, "neutral", ("J", "F")),
        (IPD, "canonical", ("Cooperate", "Defect")),
        (IPD, "letters", ("C", "D")),
        (IPD, "nonsense", ("Pasta", "Rice")),
    ],
)
def test_label_sets_of_seed_004(game, label_set, expected):
    assert game.labels(label_set) == expected


def test_repeated_label_set_repeats_21_times():
    assert RPS.labels("repeated") == ("J" * 21, "F" * 21, "B" * 21)


def test_unknown_label_set_is_a_named_error():
    with pytest.raises(InvalidGame, match="label set"):
        RPS.labels("emoji")


def test_symmetric_table_of_numbers():
    g = MatrixGame(name="StagHunt", payoffs=[[4, 0], [3, 3]], action_labels=["Stag", "Hare"])
    assert g.payoffs == (((4, 4), (0, 3)), ((3, 0), (3, 3)))


def test_transposed_swaps_seats():
    t = IBS.transposed()
    assert t.payoffs == (((7, 10), (0, 0)), ((0, 0), (10, 7)))
    assert t.transposed() == IBS


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"payoffs": [[1, 2], [3]]}, "different or zero lengths"),
        ({"payoffs": [[1, float("nan")], [3, 4]]}, "must be finite"),
        ({"payoffs": [[1, float("inf")], [3, 4]]}, "must be finite"),
        ({"payoffs": [[1, "x"], [3, 4]]}, "not a number"),
        ({"payoffs": [[1, 2, 3], [4, 5, 6]]}, "must be square"),
        ({"payoffs": [[1]]}, "at least 2 actions"),
        ({"payoffs": [[(1, 2), 3], [4, 5]]}, "mix numbers and pairs"),
        ({"payoffs": [[(1, 2, 3), (1, 2)], [(1, 2), (1, 2)]]}, "pair"),
        ({"action_labels": ["a"]}, "has 1 labels but the payoff table has 2 rows"),
        ({"action_labels": ["a", "a"]}, "distinct"),
        ({"action_labels": "ab"}, "list of 2 strings"),
        ({"name": "my game"}, "not a valid game name"),
    ],
)
def test_invalid_games_raise_a_clear_named_error(fields, message):
    spec = {"name": "G", "payoffs": [[1, 2], [3, 4]], "action_labels": ["a", "b"], **fields}
    with pytest.raises(InvalidGame, match=message):
        MatrixGame(**spec)


def test_non_square_game_needs_partner_labels():
    with pytest.raises(InvalidGame, match="partner_action_labels"):
        MatrixGame(name="G", payoffs=[[(1, 1), (0, 0), (2, 2)], [(0, 0), (1, 1), (3, 3)]], action_labels=["a", "b"])
    g = MatrixGame(
        name="G",
        payoffs=[[(1, 1), (0, 0), (2, 2)], [(0, 0), (1, 1), (3, 3)]],
        action_labels=["a", "b"],
        partner_action_labels=["x", "y", "z"],
    )
    assert g.tit_for_tat_style == "best_response" and (g.n_actions, g.n_partner_actions) == (2, 3)


def test_unknown_game_name_lists_the_builtins():
    with pytest.raises(InvalidGame, match="RPS, IBS, IPD"):
        get_game("Chess")


@pytest.fixture
def scratch_ids():
    """Ids a test registers; removed afterwards so the global registry stays as it was."""
    before = set(tom_envs.REGISTRY)
    yield
    for env_id in set(tom_envs.REGISTRY) - before:
        tom_envs.registration.unregister(env_id)


def test_register_matrix_game_end_to_end(scratch_ids):
    env_id = tom_envs.matrix.register_matrix_game(
        "Chicken",
        payoffs=[[(0, 0), (-1, 1)], [(1, -1), (-10, -10)]],
        action_labels=["Swerve", "Straight"],
        partners=["tit_for_tat", "always_straight"],
    )
    assert env_id == "tom/Chicken-v0" and env_id in tom_envs.REGISTRY
    env = gym.make(env_id, expose_partner=True)
    obs, info = env.reset(seed=0)
    assert info["partner"] in {"tit_for_tat", "always_straight"}
    _, reward, *_ = env.step(1)
    assert reward in {1.0, -10.0}
    with pytest.raises(ValueError, match="already registered"):
        tom_envs.matrix.register_matrix_game("Chicken", [[0, -1], [1, -10]], ["Swerve", "Straight"])


def test_register_matrix_game_validates_before_registering(scratch_ids):
    with pytest.raises(InvalidGame):
        tom_envs.matrix.register_matrix_game("Broken", payoffs=[[1, 2]], action_labels=["a", "b"])
    with pytest.raises(UnknownPartner, match="Valid names"):
        tom_envs.matrix.register_matrix_game(
            "Broken2", payoffs=[[1, 2], [3, 4]], action_labels=["a", "b"], partners="nobody"
        )
    with pytest.raises(InvalidPartner):
        from tom_envs.matrix.partners import get_partner

        tom_envs.matrix.register_matrix_game(
            "Broken3", payoffs=[[1, 2], [3, 4]], action_labels=["a", "b"], partners=[get_partner("IPD", "tit_for_tat")]
        )
    assert not {"tom/Broken-v0", "tom/Broken2-v0", "tom/Broken3-v0"} & set(tom_envs.REGISTRY)


def test_generic_matrix_game_id_takes_payoffs_as_kwargs():
    env = gym.make(
        "tom/MatrixGame-v0", payoffs=np.array([[3, 0], [5, 1]]), action_labels=["C", "D"], partners="always_c"
    )
    env.reset(seed=0)
    assert env.step(1)[1] == 5.0
    with pytest.raises(InvalidGame, match="needs payoffs="):
        gym.make("tom/MatrixGame-v0")
