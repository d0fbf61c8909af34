"""The evaluation runner: numbers, resumable results files, JSON schema, plots."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import gymnasium as gym
import pytest

from benchmarks import policy_seeds
from benchmarks.matrix.benchmark import ResultsFileWarning, evaluate, load_records, make_cell, run_cell
from benchmarks.results import rejected_path
from tom_envs.stats import mean_ci95
from policies.matrix import RandomPolicy
from wrappers import ToMRecorder

ROOT = Path(__file__).resolve().parents[1]


def cli(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks", *args], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    if check:
        assert out.returncode == 0, out.stderr
    return out


def test_runner_numbers_equal_the_recorders(tmp_path):
    rows, _ = evaluate(["RPS"], ["always_rock"], ["random"], episodes=4, seed=10, horizon=5, out=tmp_path)
    by_hand = []
    for seed in range(10, 14):
        env = ToMRecorder(gym.make("tom/RPS-v0", partners="always_rock", horizon=5))
        pol = RandomPolicy("RPS")
        pol.reset(policy_seeds.policy_seed(seed))  # the run's policy stream, not the env seed
        obs, info = env.reset(seed=seed)
        while True:
            env.record_prediction(pol.predict(obs, info))
            obs, r, term, trunc, info = env.step(pol.act(obs, info))
            if term:
                by_hand.append(info["tom"]["episode"])
                break
    row = rows[0]
    for key in ("regret_per_step", "tom_regret_per_step", "tom_accuracy"):
        assert (row[key], row[key + "_ci"]) == mean_ci95([e[key] for e in by_hand])
    # by hand: regret of a round vs always-rock is 0 (Paper), 1 (Rock) or 2 (Scissors)
    assert row["regret_per_step"] == pytest.approx(sum(e["regret"] for e in by_hand) / 20)


def test_oracle_cell_is_exact(tmp_path):
    rows, _ = evaluate(["IPD"], ["tit_for_tat"], ["oracle"], episodes=2, seed=0, horizon=100, out=tmp_path)
    assert rows[0]["regret_per_step"] == 0.0 and rows[0]["tom_accuracy"] == 100.0
    assert rows[0]["per_partner"]["tit_for_tat"]["episodes"] == 2


def test_rerun_skips_recorded_episodes_and_extends(tmp_path):
    cell = make_cell("RPS", "single_action", "tabular", 20)
    run_cell(cell, range(3), tmp_path)
    path = cell.path(tmp_path)
    first = path.read_bytes()
    run_cell(cell, range(3), tmp_path)
    assert path.read_bytes() == first  # nothing recomputed
    recs = run_cell(cell, range(5), tmp_path)
    lines = path.read_text().splitlines()
    assert len(lines) == 5 and [json.loads(x)["seed"] for x in lines] == [0, 1, 2, 3, 4]
    assert [r["seed"] for r in recs] == [0, 1, 2, 3, 4]
    assert all(json.loads(x)["key"] == f"{cell.key}:{json.loads(x)['seed']}" for x in lines)


def test_cell_key_depends_on_the_configuration():
    assert make_cell("RPS", "single_action", "tabular", 100).key != make_cell("RPS", "single_action", "tabular", 50).key
    assert (
        make_cell("RPS", "single_action", "tabular", 100).key == make_cell("RPS", "single_action", "tabular", 100).key
    )


def test_corrupted_lines_are_moved_aside_and_truncated_ones_cut_then_recomputed(tmp_path):
    cell = make_cell("IBS", "tit_for_tat", "tabular", 10)
    clean = run_cell(cell, range(4), tmp_path / "clean")
    run_cell(cell, range(4), tmp_path)
    path = cell.path(tmp_path)
    lines = path.read_text().splitlines(keepends=True)
    lines[1] = "{this is not json\n"  # a corrupted middle line (seed 1)
    path.write_text("".join(lines) + lines[3][: len(lines[3]) // 2])  # and a truncated copy at the end
    with pytest.warns(ResultsFileWarning) as caught:
        recs = run_cell(cell, range(4), tmp_path)
    messages = " ".join(str(w.message) for w in caught)
    assert "is corrupt" in messages and "truncated" in messages
    assert [r["episode"] for r in recs] == [r["episode"] for r in clean]
    with warnings.catch_warnings():  # the corrupted middle line was moved aside: the file reads clean now
        warnings.simplefilter("error")
        assert sorted(load_records(path)) == [0, 1, 2, 3]
    assert path.read_text().endswith("\n") and path.read_text().count("\n") == 4
    assert rejected_path(path).read_text() == "{this is not json\n"


def test_unknown_policy_is_a_clear_cli_error(tmp_path):
    out = cli("matrix", "--policy", "genius", "--out", str(tmp_path), check=False)
    assert out.returncode == 2 and "unknown policy 'genius'" in out.stderr and "Traceback" not in out.stderr


def test_json_schema(tmp_path):
    out = cli(
        "matrix",
        "--policy",
        "tabular,random",
        "--games",
        "RPS,IPD",
        "--partners",
        "single_action,tit_for_tat",
        "--episodes",
        "3",
        "--seed",
        "0",
        "--horizon",
        "20",
        "--format",
        "json",
        "--out",
        str(tmp_path),
    )
    rows = json.loads(out.stdout)  # nothing but JSON on stdout
    assert out.stderr == ""  # no progress bar with --format json
    assert len(rows) == 2 * 2 * 2
    types = {
        "game": str,
        "partners": str,
        "policy": str,
        "episodes": int,
        "regret_per_step": float,
        "regret_per_step_ci": float,
        "tom_regret_per_step": float,
        "tom_regret_per_step_ci": float,
        "tom_accuracy": float,
        "tom_accuracy_ci": float,
    }
    for row in rows:
        for key, typ in types.items():
            assert isinstance(row[key], typ), (key, row[key])
        assert 0 <= row["tom_accuracy"] <= 100 and row["episodes"] == 3
    assert {(r["game"], r["partners"], r["policy"]) for r in rows} == {
        (g, p, pol) for g in ("RPS", "IPD") for p in ("single_action", "tit_for_tat") for pol in ("tabular", "random")
    }


def test_table_layout_and_plots(tmp_path):
    out = cli(
        "matrix",
        "--policy",
        "tabular,oracle",
        "--games",
        "IBS",
        "--partners",
        "single_action",
        "--episodes",
        "2",
        "--horizon",
        "30",
        "--out",
        str(tmp_path / "res"),
        "--plot",
        str(tmp_path / "plots"),
    )
    assert "ΔFunctional/T" in out.stdout and "ΔToM/T" in out.stdout and "ToM %" in out.stdout
    pngs = sorted(p.name for p in (tmp_path / "plots").iterdir())
    assert pngs == ["IBS_single_action_regret.png", "IBS_single_action_tom.png"]
    assert all((tmp_path / "plots" / p).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)


@pytest.mark.slow
def test_sigkill_loses_at_most_the_episode_in_flight(tmp_path):
    args = [
        sys.executable,
        "-m",
        "benchmarks",
        "matrix",
        "--policy",
        "tabular",
        "--games",
        "RPS",
        "--partners",
        "tit_for_tat",
        "--episodes",
        "300",
        "--horizon",
        "100",
        "--format",
        "json",
        "--out",
        str(tmp_path / "a"),
    ]
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    results = tmp_path / "a" / "matrix"
    deadline = time.time() + 120
    while time.time() < deadline:
        files = list(results.glob("*.jsonl")) if results.exists() else []
        if files and len(files[0].read_bytes().splitlines()) >= 20:
            break
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    done_before = len(load_records(next(results.glob("*.jsonl"))))
    assert 20 <= done_before < 300, "the run finished before it could be killed; make it longer"
    resumed = json.loads(cli(*args[3:]).stdout)
    fresh = json.loads(cli(*args[3:-1], str(tmp_path / "b")).stdout)
    lines = next(results.glob("*.jsonl")).read_text().splitlines()
    seeds = [json.loads(x)["seed"] for x in lines if x.strip()]
    assert sorted(seeds) == list(range(300))  # no duplicate, no missing episode
    assert resumed == fresh  # and the resumed numbers equal an uninterrupted run's


@pytest.mark.parametrize("policy", ["tabular", "random", "oracle"])
def test_lockstep_batches_give_the_same_episodes_as_one_by_one(tmp_path, policy):
    one, _ = evaluate(["RPS", "IPD"], ["single_action,tit_for_tat"], [policy], 6, 3, 25, tmp_path / "one")
    batched, _ = evaluate(
        ["RPS", "IPD"], ["single_action,tit_for_tat"], [policy], 6, 3, 25, tmp_path / "many", lockstep=4
    )
    strip = lambda rows: [{k: v for k, v in r.items() if k != "cell_key"} for r in rows]  # noqa: E731
    assert strip(one) == strip(batched)
    files = sorted((tmp_path / "many" / "matrix").glob("*.jsonl"))
    assert all(len(f.read_text().splitlines()) == 6 for f in files)


# ---------------------------------------------------------------------- the generic runner (benchmarks.runner)
def test_env_ids_come_from_the_registry_newest_version_first():
    import tom_envs
    from benchmarks.errors import RunnerError
    from benchmarks.runner_envs import env_id_for

    assert env_id_for("matrix", game="RPS") == "tom/RPS-v0"
    assert env_id_for("matrix", kind="parallel", game="IPD") == "tom/IPD-Parallel-v0"
    tom_envs.register("tom/RPS-v7", "tom_envs.matrix.env:MatrixGameEnv", kwargs={"game": "RPS"}, family="matrix")
    try:
        assert env_id_for("matrix", game="RPS") == "tom/RPS-v7"
        assert make_cell("RPS", "single_action", "random", 5).env_id == "tom/RPS-v7"
    finally:
        tom_envs.registration.unregister("tom/RPS-v7")
    with pytest.raises(RunnerError, match="no registered gymnasium env of family 'matrix'"):
        env_id_for("matrix", game="Chess")


def test_aec_episodes_with_a_policy_per_seat():
    from benchmarks.runner_aec import play_aec
    from benchmarks.runner_envs import make_env

    env = make_env("tom/RPS-Parallel-v0", horizon=6)
    seats = {"player_0": RandomPolicy("RPS"), "player_1": RandomPolicy("RPS")}
    first = play_aec(env, seats, seed=4)
    assert (
        first.summary["steps"] == 2 * 6
        and first.summary["returns"]["player_0"] == -first.summary["returns"]["player_1"]
    )
    assert play_aec(env, seats, seed=4).summary == first.summary  # seeded
    from benchmarks.errors import RunnerError

    with pytest.raises(RunnerError, match="no policy for seat 'player_1'"):
        play_aec(env, {"player_0": RandomPolicy("RPS")}, seed=0)


def test_aec_episode_scored_by_the_recorder_of_the_predictor_seat():
    from benchmarks.runner_aec import play_aec
    from benchmarks.runner_envs import make_env
    from policies.negotiation.scripted import make_mediator
    from wrappers import AECToMRecorder

    env = make_env("tom/Negotiation-v1")
    assert isinstance(env, AECToMRecorder)
    result = play_aec(env, make_mediator("social"), seed=0)
    assert {"rounds", "tom_accuracy", "outcome"} <= set(result.summary)
    assert "cc" in result.info["episode"]  # the env's own summary is kept too


def test_lockstep_needs_episodes_of_one_length():
    from benchmarks.errors import RunnerError
    from benchmarks.runner_envs import make_env
    from benchmarks.runner_episodes import lockstep_batches, play_lockstep

    envs = [make_env("tom/RPS-v0", horizon=3), make_env("tom/RPS-v0", horizon=5)]
    with pytest.raises(RunnerError, match="ended at different steps"):
        play_lockstep(envs, RandomPolicy("RPS"), [0, 1])
    assert lockstep_batches(["a", "bb", "c", "dd", "e"], 2, length=len) == [[0, 2], [4], [1, 3]]
    with pytest.raises(RunnerError, match="--lockstep must be at least 1"):
        lockstep_batches([1], 0)


def test_play_keeps_what_the_step_hook_returns_and_seeds_the_policy_apart():
    from benchmarks.runner_envs import make_env
    from benchmarks.runner_episodes import play

    env = make_env("tom/IPD-v0", partners="tit_for_tat", horizon=6)
    result = play(
        env, RandomPolicy("IPD"), 2, on_step=lambda step: (step.index, step.action, step.next_info["partner_action"])
    )
    assert [i for i, _, _ in result.steps] == list(range(6))
    actions, partner = [a for _, a, _ in result.steps], [b for _, _, b in result.steps]
    assert partner[1:] == actions[:-1]  # tit-for-tat copies the focal's last move
    assert play(env, RandomPolicy("IPD"), 2).summary == result.summary  # the hook changes nothing

    def moves(env_seed: int) -> list:
        return play(env, RandomPolicy("IPD"), env_seed, policy_seed=lambda s: 7, on_step=lambda st: st.action).steps

    assert moves(2) == moves(3)  # the random policy's moves come from its own seed only


class _Hoarder(RandomPolicy):
    """Keeps every info it is handed, by act and by observe, one by one or batched."""

    def __init__(self, game: str) -> None:
        super().__init__(game)
        self.seen: list[dict] = []

    def act(self, observation, info):
        self.seen.append(info)
        return super().act(observation, info)

    def observe(self, observation, reward, terminated, truncated, info):
        self.seen.append(info)

    def act_batch(self, observations, infos, slots=None):
        self.seen.extend(infos)
        return super().act_batch(observations, infos, slots)

    def observe_batch(self, observations, rewards, terminated, truncated, infos, slots=None):
        self.seen.extend(infos)


def test_a_policy_played_by_the_runner_never_gets_the_recorders_records():
    """The scorer is out of band, across episodes too: the last step's ``info["tom"]`` (for direct users of
    the wrapper) is not handed to the policy; the runner's hooks and summaries read the recorder."""
    from benchmarks.runner_envs import make_env
    from benchmarks.runner_episodes import play, play_lockstep

    hoarder = _Hoarder("IPD")
    env = make_env("tom/IPD-v0", horizon=5)
    results = [play(env, hoarder, s, on_step=lambda step: step.record) for s in range(3)]
    assert hoarder.seen and not any("tom" in info for info in hoarder.seen)
    assert all(len(r.steps) == 5 and r.steps[-1]["round"] == 5 and r.summary["rounds"] == 5 for r in results)
    batched = _Hoarder("IPD")
    play_lockstep([make_env("tom/IPD-v0", horizon=5) for _ in range(3)], batched, [0, 1, 2])
    assert batched.seen and not any("tom" in info for info in batched.seen)


def test_a_file_holding_another_cells_records_never_changes_a_row(tmp_path):
    """A results file renamed by hand (random's records under the tabular cell's name) is not reused:
    the foreign records are moved to <name>.rejected with a warning and the cell's own are computed."""
    tabular, rand = make_cell("IPD", "tit_for_tat", "tabular", 20), make_cell("IPD", "tit_for_tat", "random", 20)
    own = run_cell(tabular, range(3), tmp_path / "clean")
    run_cell(rand, range(3), tmp_path)
    tabular.path(tmp_path).parent.mkdir(parents=True, exist_ok=True)
    rand.path(tmp_path).rename(tabular.path(tmp_path))
    with pytest.warns(ResultsFileWarning, match="not of this cell"):
        recs = run_cell(tabular, range(3), tmp_path)
    assert [r["episode"] for r in recs] == [r["episode"] for r in own]
    assert len(rejected_path(tabular.path(tmp_path)).read_text().splitlines()) == 3
