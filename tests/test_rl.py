"""``tom-envs rl``: the RLTask contract over every declared task, training, the probe, resuming,
determinism and named errors (docs/rl.md)."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

from benchmarks.rl import RLError, RLRun, RLTask, run, task_for, tasks  # noqa: E402
from benchmarks.rl_eval import PROBE_SEED0, ProbePlan, probe_for  # noqa: E402
from benchmarks.rl_train import ALGOS, Training, train, wrapped  # noqa: E402
from tom_envs.family import families, load_object  # noqa: E402

DECLARED = [(fam.name, target) for fam in families() for target in fam.rl]
ROW_KEYS = {
    "family",
    "env_id",
    "algo",
    "steps",
    "split",
    "seeds",
    "policy",
    "tom_accuracy",
    "tom_accuracy_ci",
    "tom_source",
}


def _quiet(*args):
    pass


def test_every_family_declares_rl_tasks():
    assert {name for name, _ in DECLARED} == {fam.name for fam in families() if fam.rl}
    assert len(DECLARED) >= 4


@pytest.mark.parametrize("family, target", DECLARED, ids=[t for _, t in DECLARED])
def test_every_id_of_a_declared_task_builds_its_splits_with_vector_observations(family, target):
    from stable_baselines3.common.env_checker import check_env

    import tom_envs

    task = load_object(target)
    assert isinstance(task, RLTask) and task.env_ids and {"train", "test"} <= set(task.splits)
    for k, env_id in enumerate(task.env_ids):
        assert task_for(env_id)[1] is task
        kwargs = {name: tom_envs.REGISTRY[env_id].example_kwargs[name] for name in task.needs_kwargs.get(env_id, ())}
        for split in ("train", "test"):
            env = wrapped(task.make_env(env_id, split, **kwargs), task.observation)
            if k == 0:
                check_env(env, warn=False)  # SB3's checker: a flat float Box the env's observations belong to
            obs, _ = env.reset(seed=3)
            for _ in range(20):
                assert env.observation_space.contains(obs)
                obs, _, terminated, truncated, _ = env.step(env.action_space.sample())
                if terminated or truncated:
                    obs, _ = env.reset()
            env.close()


def _run(tmp_path, env_id="tom/IPD-v0", algo="ppo", **kw):
    config = RLRun(env_id, algo, **{"steps": 256, "seeds": 1, "episodes": 2, "n_envs": 2, **kw})
    return run(config, tmp_path, log=_quiet)


@pytest.mark.parametrize("algo", [a for a in ALGOS if a != "maskable_ppo"])
def test_each_algorithm_trains_briefly_on_a_matrix_game(tmp_path, algo):
    if algo in ("recurrent_ppo",):
        pytest.importorskip("sb3_contrib")
    rows = _run(tmp_path, algo=algo, steps=128 if algo != "recurrent_ppo" else 64)
    agent, *refs = rows
    assert ROW_KEYS | {"regret", "regret_ci"} <= set(agent)
    assert agent["policy"] == algo and agent["split"] == "test" and agent["seeds"] == [0]
    assert agent["tom_source"].startswith(
        "probe on the " + ("LSTM hidden state" if algo == "recurrent_ppo" else "policy network's last latent layer")
    )
    assert isinstance(agent["tom_accuracy"], float) and isinstance(agent["regret"], float)
    assert [r["policy"] for r in refs] == ["tabular"] and refs[0]["tom_source"] == "own count model"


@pytest.mark.parametrize("algo", ["maskable_ppo", "ppo"])
def test_qa_agents_train_with_masks_and_answer_as_their_prediction(tmp_path, algo):
    pytest.importorskip("sb3_contrib")
    rows = _run(tmp_path, "tom/CommonToM-v2", algo, episodes=None, seeds=2)
    agent = rows[0]
    assert ROW_KEYS | {"accuracy", "accuracy_ci"} <= set(agent) and agent["seeds"] == [0, 1]
    assert agent["tom_source"] == "the action (the answer is the prediction)"
    assert agent["accuracy"] == pytest.approx(agent["tom_accuracy"])  # every scored answer is a prediction
    assert {r["policy"] for r in rows[1:]} == {"question-only", "random"}
    assert not list((tmp_path / "rl" / "models").glob("*probe*"))


def test_a_rerun_loads_the_models_and_records_without_training_again(tmp_path):
    first = _run(tmp_path, seeds=2)
    files = {p: p.read_bytes() for p in (tmp_path / "rl").rglob("*") if p.is_file() and p.suffix != ".runs"}
    messages = []
    second = run(RLRun("tom/IPD-v0", "ppo", steps=256, seeds=2, episodes=2, n_envs=2), tmp_path, log=messages.append)
    assert second == first  # the training's CPU time too: kept with the model
    assert sum("loading" in m for m in messages) == 2 and not any(m.startswith("trained") for m in messages)
    assert {p: p.read_bytes() for p in files} == files  # nothing rewritten


def _untimed(rows):
    """Rows without the training's CPU time (measured, so never equal between two trainings)."""
    return [{k: v for k, v in r.items() if k != "cpu_s_per_million_steps"} for r in rows]


def test_same_seed_same_rows(tmp_path):
    assert _untimed(_run(tmp_path / "a")) == _untimed(_run(tmp_path / "b"))


def test_a_probes_row_stands_beside_its_majority_floor_seed_count_and_cpu_time(tmp_path):
    """The probe's ToM % is read against the same agent on the same episodes predicting the train split's
    majority class (issue 42); the row says how many seeds and how much CPU a million training steps took."""
    agent = _run(tmp_path, seeds=2)[0]
    assert agent["seed_count"] == 2 and agent["cpu_s_per_million_steps"] > 0
    assert 0 <= agent["tom_majority"] <= 100
    assert agent["tom_gain"] == pytest.approx(agent["tom_accuracy"] - agent["tom_majority"])
    by_model: dict = {}  # per trained model: its records and its floor's, the same episodes but the prediction
    for f in (tmp_path / "rl").glob("ppo_tom-IPD-v0_test_*.jsonl"):
        records = [json.loads(line) for line in f.read_text().splitlines()]
        cell = records[0]["cell"]
        by_model.setdefault(cell["model"], {})[cell.get("tom_from", "probe")] = records
    assert len(by_model) == 2 and all(set(v) == {"probe", "train_majority"} for v in by_model.values())
    for pair in by_model.values():
        assert [r["episode"]["return"] for r in pair["probe"]] == [
            r["episode"]["return"] for r in pair["train_majority"]
        ]


def test_the_majority_floor_is_the_train_splits_most_frequent_truth():
    from benchmarks.rl_probe import MajorityProbe, majority_of

    layout = {"action": ("discrete", 0, 3), "grid": ("multi", [0, 1], [2, 2], (2,))}
    truths = [
        {"action": 2, "grid": [1, 2]},
        {"action": 2, "grid": [0, 2]},
        {"action": 0, "grid": [1, 1]},
        {"action": None},
    ]
    majority = majority_of(truths, layout)
    assert majority == {"action": [2], "grid": [1, 2]}
    pred = MajorityProbe(layout, majority).predict(np.zeros(4))
    assert pred["action"] == 2 and pred["grid"].tolist() == [1, 2]


def test_the_probe_is_fitted_on_train_split_episodes_only(tmp_path):
    _, task = task_for("tom/IPD-v0")
    splits = []

    def recording(env_id, split, **kw):
        splits.append(split)
        return task.make_env(env_id, split, **kw)

    spy = dataclasses.replace(task, make_env=recording)
    training = Training("tom/IPD-v0", "ppo", 128, 0, 2)
    model = train(spy, training, tmp_path, _quiet)
    probe = probe_for(spy, ProbePlan(training, 3), model, tmp_path, _quiet)
    assert set(splits) == {"train"}
    assert probe.trained_on["split"] == "train" and probe.trained_on["episodes"] == [PROBE_SEED0 + i for i in range(3)]
    assert probe.trained_on["rows"] == {"partner_action": 300}
    pred = probe.predict(np.zeros(probe.mean.shape))
    assert pred in (0, 1)


@pytest.fixture
def untrained_id():
    """A registered id no family's RL task trains on."""
    import tom_envs

    tom_envs.register("tom/NoRLTask-v0", "tom_envs.matrix.env:MatrixGameEnv", kwargs={"game": "IPD"})
    yield "tom/NoRLTask-v0"
    tom_envs.registration.unregister("tom/NoRLTask-v0")


def test_an_id_without_a_task_is_a_named_error(tmp_path, untrained_id):
    with pytest.raises(RLError, match="no family declares an RL task for 'tom/NoRLTask-v0'"):
        run(RLRun(untrained_id), tmp_path, log=_quiet)


@pytest.mark.parametrize(
    "config, message",
    [
        (RLRun("tom/NoSuch-v0"), "is not a registered id; ids RL agents train on: "),
        (RLRun("tom/MatrixGame-v0"), "tom/MatrixGame-v0 needs payoffs, action_labels in --env-kwargs"),
        (RLRun("tom/MatrixGame-Parallel-v0", seat="player_1"), "needs payoffs, action_labels in --env-kwargs"),
        (RLRun("tom/IPD-Parallel-v0", seat="player_2"), "train one of the seats player_0, player_1"),
        (RLRun("tom/IPD-v0", env_kwargs={"game": "RPS"}), "game='RPS' contradicts the id: make 'tom/RPS-v0' instead"),
        (RLRun("tom/IPD-Parallel-v0", env_kwargs={"game": "RPS"}), "contradicts the id: make 'tom/RPS-Parallel-v0'"),
        (
            RLRun("tom/IPD-v0", env_kwargs={"partners": "tit_for_tat"}),
            "names partners, which tom/IPD-v0's task sets itself",
        ),
        (
            RLRun("tom/IPD-Parallel-v0", env_kwargs={"colour": 1}),
            "names colour, which tom/IPD-Parallel-v0's env does not take",
        ),
        (RLRun("tom/IPD-v0", env_kwargs={"colour": 1}), "tom/IPD-v0's env does not take them"),
        (RLRun("tom/IPD-v0", env_kwargs={"history": 0}), "tom/IPD-v0's env rejects them: history must be"),
        (RLRun("tom/IPD-v0", env_kwargs=[1]), "--env-kwargs is a JSON object"),
        (RLRun("tom/IPD-Parallel-v0", env_kwargs={"seat": "player_1"}), "--env-kwargs names seat: give --seat instead"),
        (RLRun("tom/CommonToM-v2", env_kwargs={"split": "all"}), "task passes no keyword arguments to its env"),
        (RLRun("tom/IPD-v0", split="dev"), "--split 'dev' is not a split"),
        (RLRun("tom/IPD-v0", seat="player_0"), "--seat is for multi-agent ids"),
        (RLRun("tom/IPD-v0", "maskable_ppo"), "needs an observation with an action_mask"),
        (RLRun("tom/IPD-v0", "sac"), "unknown --algo 'sac'"),
        (RLRun("tom/IPD-v0", seeds=0), "--seeds must be an integer >= 1"),
        (RLRun("tom/IPD-v0", data_dir="."), "reads no dataset folder"),
        (RLRun("tom/CommonToM-v2", episodes=5), "has 1 episode(s), each evaluated once"),
        (RLRun("tom/CommonToM-v2", data_dir="/nonexistent/folder"), "is not a folder"),
    ],
)
def test_bad_options_are_named_errors_before_any_training(tmp_path, config, message):
    with pytest.raises(RLError) as exc:
        run(config, tmp_path, log=_quiet)
    assert message in str(exc.value)
    assert not (tmp_path / "rl").exists()


def test_every_declared_id_is_listed_once():
    found = tasks()
    assert "tom/IPD-v0" in found and found["tom/IPD-v0"][0] == "matrix"


def test_the_command_prints_json_rows_and_resumes(tmp_path, capsys):
    from benchmarks.__main__ import main

    argv = [
        "rl",
        "--env",
        "tom/IPD-v0",
        "--algo",
        "a2c",
        "--steps",
        "200",
        "--seeds",
        "2",
        "--episodes",
        "2",
        "--n-envs",
        "2",
        "--out",
        str(tmp_path),
    ]
    assert main([*argv, "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["policy"] for r in rows] == ["a2c", "tabular"] and rows[0]["seeds"] == [0, 1]
    assert main(argv) == 0
    printed = capsys.readouterr()
    assert printed.err.count("loading") == 2 and "ToM from" in printed.out and "note: regret" in printed.out


def test_the_report_shows_rl_rows_next_to_their_references_on_the_plane(tmp_path):
    from benchmarks.report import build_report

    _run(tmp_path / "results")
    _run(tmp_path / "results")  # a rerun adds no second copy of the rows
    rows_file = tmp_path / "results" / "rl" / "rows_ppo_tom-IPD-v0_test.jsonl"
    assert len(rows_file.read_text().splitlines()) == 2
    report = build_report(tmp_path / "results", tmp_path / "report")
    text = report["markdown"].read_text()
    assert "RL agents (tom-envs rl)" in text and "| ppo | test | 256 | 1 |" in text and "| tabular | test |" in text
    assert (tmp_path / "report" / "rl" / "plane.png").is_file() and (tmp_path / "report" / "overview.png").is_file()


class _SummaryInInfo:
    """A task env whose info carries its own ``"episode"`` summary at the end (as live persuasion v1 and
    negotiation do): SB3 reads ``info["episode"]["r"]`` of any such info unless a Monitor overwrites it."""

    def __new__(cls):
        import gymnasium as gym
        from gymnasium import spaces

        class Env(gym.Env):
            observation_space, action_space = spaces.Discrete(3), spaces.Discrete(2)

            def reset(self, *, seed=None, options=None):
                super().reset(seed=seed)
                self.t = 0
                return 0, {}

            def step(self, action):
                self.t += 1
                done = self.t == 4
                return self.t % 3, float(action), done, False, ({"episode": {"summary": "mine"}} if done else {})

        return Env()


@pytest.mark.slow
def test_training_needs_no_monitor_from_the_user():
    from stable_baselines3 import PPO

    from benchmarks.rl_train import training_env

    task = RLTask(env_ids=("tom/IPD-v0",), make_env=lambda env_id, split: _SummaryInInfo(), outcome="return")
    venv, _ = training_env(task, Training("tom/IPD-v0", "ppo", 64, 0, 2))
    model = PPO("MlpPolicy", venv, n_steps=16, batch_size=16, seed=0, device="cpu")
    model.learn(total_timesteps=64, log_interval=1)  # logs ep_rew_mean each rollout: no KeyError 'r'
    assert model.ep_info_buffer and all(set(ep) >= {"r", "l"} for ep in model.ep_info_buffer)
