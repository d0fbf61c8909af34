"""``tom-envs rl`` on the two-learner parallel matrix ids and the custom-game ids (docs/rl.md):
:class:`wrappers.ParallelSeat`, the matrix task's :class:`~benchmarks.matrix.rl.PartnerSeat`, ``--seat``
and ``--env-kwargs``."""

from __future__ import annotations

import json

import numpy as np
import pytest
from gymnasium import spaces

import tom_envs
import wrappers
from benchmarks.matrix.rl import PartnerSeat, make_env
from tom_envs.errors import EpisodeEnded, ResetNeeded
from tom_envs.matrix.games import get_game
from wrappers.single_seat import SingleSeatError

CHICKEN = {"payoffs": [[[0, 0], [-1, 1]], [[1, -1], [-10, -10]]], "action_labels": ["Swerve", "Straight"]}


def _quiet(*args):
    pass


def _trajectory(env, seed, actions):
    obs, _ = env.reset(seed=seed)
    out = [int(obs)]
    for a in actions:
        obs, reward, terminated, truncated, _ = env.step(int(a))
        out.append((int(obs), reward, terminated, truncated, dict(env.unwrapped.tom_truth())))
        if terminated:
            break
    return out, env.unwrapped.tom_outcome()


class Recording:
    """A policy that records what it is handed, playing a fixed action."""

    def __init__(self, action=0):
        self.action, self.seen, self.seeds = action, [], []

    def reset(self, seed=None):
        self.seeds.append(seed)

    def act(self, observation, info):
        self.seen.append((observation, dict(info)))
        return self.action


# ---------------------------------------------------------------------- ParallelSeat
def test_the_seat_sees_exactly_what_the_parallel_env_shows_it_and_the_other_its_own_view():
    other = Recording(action=1)
    seat = wrappers.ParallelSeat(tom_envs.make("tom/IPD-Parallel-v0", horizon=3), "player_0", {"player_1": other})
    twin = tom_envs.make("tom/IPD-Parallel-v0", horizon=3)
    obs, info = seat.reset(seed=4)
    t_obs, t_info = twin.reset(seed=4)
    assert obs == t_obs["player_0"] and info == t_info["player_0"]
    for a in (0, 1, 1):
        step = seat.step(a)
        t_obs, t_rew, t_term, t_trunc, t_info = twin.step({"player_0": a, "player_1": 1})
        assert step == (
            t_obs["player_0"],
            t_rew["player_0"],
            t_term["player_0"],
            t_trunc["player_0"],
            t_info["player_0"],
        )
    # the other seat was asked with its own last observation and info, before the round was played
    assert [o for o, _ in other.seen] == [4, 2, 3]  # start symbol, then (D, C) and (D, D) seen from player_1
    assert other.seen[1][1] == {"other_action": 0}
    with pytest.raises(EpisodeEnded):
        seat.step(0)


def test_the_seat_predicts_the_other_seats_action_and_is_scored_through_the_recorder():
    seat = wrappers.ParallelSeat(
        tom_envs.make("tom/RPS-Parallel-v0", horizon=5), "player_1", {"player_0": Recording(2)}
    )
    assert seat.tom_spec.predictor == "player_1" and set(seat.tom_spec.targets) == {"player_0"}
    env = wrappers.ToMRecorder(seat)
    env.reset(seed=0)
    for _ in range(5):
        env.record_prediction(2)
        *_, info = env.step(0)
    summary = info["tom"]["episode"]
    assert summary["tom_accuracy"] == 100.0 and summary["outcome"] == {
        "return_player_0": -5.0,
        "return_player_1": 5.0,
    }  # rock beats scissors


def test_a_seat_wrapper_is_seeded_like_single_seat():
    from wrappers.single_seat import other_seed

    other = Recording()
    seat = wrappers.ParallelSeat(tom_envs.make("tom/IBS-Parallel-v0", horizon=2), "player_0", {"player_1": other})
    seat.reset(seed=9)
    seat.reset()
    assert other.seeds[0] == other_seed(9, 0) and other.seeds[1] != other.seeds[0]


def test_seat_misuse_is_a_named_error():
    par = tom_envs.make("tom/IPD-Parallel-v0")
    with pytest.raises(SingleSeatError, match="not an agent"):
        wrappers.ParallelSeat(par, "player_9", {"player_1": Recording()})
    with pytest.raises(SingleSeatError, match="no policy for 'player_1'"):
        wrappers.ParallelSeat(par, "player_0", {})
    with pytest.raises(SingleSeatError, match="act"):
        wrappers.ParallelSeat(par, "player_0", {"player_1": object()})
    with pytest.raises(ResetNeeded):
        wrappers.ParallelSeat(par, "player_0", {"player_1": Recording()}).step(0)


# ---------------------------------------------------------------------- the matrix task's seats
@pytest.mark.parametrize("game", ["RPS", "IBS", "IPD"])
@pytest.mark.parametrize("split", ["train", "test"])
def test_player_0_of_a_parallel_id_is_the_single_agent_id(game, split):
    """Same seeds, same actions: the same observations, rewards, truths and regret (the same partner draws)."""
    single = make_env(f"tom/{game}-v0", split)
    seat = make_env(f"tom/{game}-Parallel-v0", split, seat="player_0")
    rng = np.random.default_rng(1)
    for seed in range(8):
        actions = rng.integers(get_game(game).n_actions, size=100)
        one, one_out = _trajectory(single, seed, actions)
        two, two_out = _trajectory(seat, seed, actions)
        assert [s[:4] for s in one[1:]] == [s[:4] for s in two[1:]] and one[0] == two[0]
        assert [s[4]["partner_action"] for s in one[1:]] == [s[4]["player_1"] for s in two[1:]]
        assert one_out == two_out


def test_player_1_plays_the_transposed_game_against_partners_built_for_it():
    """player_1 of IBS-Parallel is the custom single-agent game IBS.transposed() against the same split."""
    ibs = get_game("IBS").transposed()
    custom = {
        "payoffs": [[list(c) for c in row] for row in ibs.payoffs],
        "action_labels": list(ibs.action_labels),
        "partner_action_labels": list(ibs.partner_action_labels),
        "name": ibs.name,
    }
    for split in ("train", "test"):
        single = make_env("tom/MatrixGame-v0", split, **custom)
        seat = make_env("tom/IBS-Parallel-v0", split, seat="player_1")
        assert isinstance(seat, PartnerSeat) and seat.game.payoffs == ibs.payoffs
        rng = np.random.default_rng(2)
        for seed in range(6):
            actions = rng.integers(2, size=100)
            one, one_out = _trajectory(single, seed, actions)
            two, two_out = _trajectory(seat, seed, actions)
            assert [s[:4] for s in one[1:]] == [s[:4] for s in two[1:]] and one_out == two_out


@pytest.mark.parametrize("seat", ["player_0", "player_1"])
def test_the_checker_finds_no_leak_in_a_seat_as_rl_trains_and_tests_it(seat):
    from benchmarks.rl_eval import recorded_env
    from benchmarks.rl import task_for
    from tom_envs.checks import check_information_rule

    task = task_for("tom/IPD-Parallel-v0")[1]
    report = check_information_rule(recorded_env(task, "tom/IPD-Parallel-v0", "test", {"seat": seat}), strict=False)
    assert report.ok, str(report)


# ---------------------------------------------------------------------- the command
@pytest.mark.slow
def test_both_seats_train_with_their_own_models_records_and_rows(tmp_path):
    from benchmarks.rl import RLRun, run

    rows = {
        s: run(
            RLRun("tom/IBS-Parallel-v0", "ppo", steps=128, seeds=1, episodes=2, n_envs=2, seat=s), tmp_path, log=_quiet
        )
        for s in ("player_0", "player_1")
    }
    assert [r["seat"] for r in rows["player_1"]] == ["player_1", "player_1"]
    assert [r["policy"] for r in rows["player_0"]] == ["ppo", "tabular"] and rows["player_0"][0]["seat"] == "player_0"
    assert len(list((tmp_path / "rl" / "models").glob("ppo_*.zip"))) == 2
    kept = sorted(p.name for p in (tmp_path / "rl").glob("rows_*.jsonl"))
    assert kept == [
        "rows_ppo_tom-IBS-Parallel-v0_player_0_test.jsonl",
        "rows_ppo_tom-IBS-Parallel-v0_player_1_test.jsonl",
    ]
    default = run(RLRun("tom/IBS-Parallel-v0", "ppo", steps=128, seeds=1, episodes=2, n_envs=2), tmp_path, log=_quiet)
    assert default == rows["player_0"]  # --seat defaults to player_0: the same keys, loaded
    from benchmarks.report import build_report

    text = build_report(tmp_path, tmp_path / "report")["markdown"].read_text()
    for seat in ("player_0", "player_1"):  # one table per seat: neither hides the other's rows
        assert text.count(f"tom/IBS-Parallel-v0 seat {seat} (lower regret is better)") == 1, seat


@pytest.mark.slow
def test_a_custom_game_trains_from_env_kwargs_keyed_into_models_and_rows(tmp_path, capsys):
    from benchmarks.__main__ import main

    argv = [
        "rl",
        "--env",
        "tom/MatrixGame-v0",
        "--steps",
        "128",
        "--seeds",
        "1",
        "--episodes",
        "2",
        "--n-envs",
        "2",
        "--out",
        str(tmp_path),
        "--format",
        "json",
    ]
    assert main([*argv, "--env-kwargs", json.dumps(CHICKEN)]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["policy"] for r in rows] == ["ppo", "tabular"] and all(r["env_kwargs"] == CHICKEN for r in rows)
    assert all(isinstance(r["regret"], float) for r in rows)
    other = dict(CHICKEN, payoffs=[[[0, 0], [-2, 2]], [[2, -2], [-10, -10]]])
    assert main([*argv, "--env-kwargs", json.dumps(other)]) == 0
    capsys.readouterr()
    assert len(list((tmp_path / "rl" / "models").glob("ppo_*.zip"))) == 2  # other payoffs: another model
    assert len((tmp_path / "rl" / "rows_ppo_tom-MatrixGame-v0_test.jsonl").read_text().splitlines()) == 4
    from benchmarks.report import build_report

    text = build_report(tmp_path, tmp_path / "report")["markdown"].read_text()
    for game in (CHICKEN, other):  # one table per custom game
        assert text.count(f"tom/MatrixGame-v0 {json.dumps(game, sort_keys=True)} (") == 1


@pytest.mark.parametrize(
    "text, message",
    [
        ("{payoffs: 1}", "is not JSON"),
        ("[1, 2]", "must be a JSON object"),
    ],
)
def test_env_kwargs_that_are_not_a_json_object_stop_the_command(tmp_path, capsys, text, message):
    from benchmarks.__main__ import main

    with pytest.raises(SystemExit) as exc:
        main(["rl", "--env", "tom/MatrixGame-v0", "--env-kwargs", text, "--out", str(tmp_path)])
    assert exc.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "rl").exists()


def test_a_custom_game_without_payoffs_says_what_to_pass(tmp_path, capsys):
    from benchmarks.__main__ import main

    assert main(["rl", "--env", "tom/MatrixGame-Parallel-v0", "--out", str(tmp_path)]) != 0
    err = capsys.readouterr().err
    assert "needs payoffs, action_labels in --env-kwargs" in err and '--env-kwargs \'{"name":"Chicken"' in err


def test_the_help_names_the_new_options(capsys):
    from benchmarks.__main__ import main

    with pytest.raises(SystemExit):
        main(["rl", "--help"])
    out = capsys.readouterr().out
    assert "--env-kwargs JSON" in out and "custom game's payoffs" in out and "seats it lets you choose" in out


def test_a_seat_observation_is_the_parallel_envs_space():
    env = make_env("tom/RPS-Parallel-v0", "train", seat="player_1", history=2)
    assert env.observation_space == spaces.MultiDiscrete([10, 10])
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    for _ in range(100):
        obs, *_ = env.step(0)
        assert env.observation_space.contains(obs)
