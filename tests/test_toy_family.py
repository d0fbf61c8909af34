"""A fifth family takes an env module, one ``register`` call and one benchmark declaration, and nothing
else: the ``tom-envs`` command, the runner, the ToM recorder and the resumable results come with them."""

from __future__ import annotations

import dataclasses
import json

import gymnasium as gym
import pytest
from gymnasium import spaces

import tom_envs
from benchmarks import family
from benchmarks.__main__ import main
from policies.base import BasePolicy
from tom_envs.tom import ToMSpec


# ---------------------------------------------------------------------- the family's env module
class ContraryEnv(gym.Env):
    """Toy env: a contrary partner plays the opposite of the agent's last move (0 first); the agent
    scores 1 when it matches the partner. Literal ToM: predict the partner's move."""

    observation_space = spaces.Discrete(3)  # the agent's last move, 2 at the start
    action_space = spaces.Discrete(2)
    tom_spec = ToMSpec(targets={"partner_action": spaces.Discrete(2)}, outcome=("matches",))

    def __init__(self, horizon: int = 4) -> None:
        self.horizon = horizon

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[int, dict]:
        super().reset(seed=seed)
        self.t, self.matches, self.mine, self.partner = 0, 0, None, None
        return 2, {}

    def step(self, action: int) -> tuple[int, float, bool, bool, dict]:
        self.partner = 0 if self.mine is None else 1 - self.mine
        self.mine = int(action)
        self.matches += int(self.mine == self.partner)
        self.t += 1
        return (
            self.mine,
            float(self.mine == self.partner),
            self.t >= self.horizon,
            False,
            {"partner_action": self.partner},
        )

    def tom_truth(self) -> dict:
        return {} if self.partner is None else {"partner_action": self.partner}

    def tom_outcome(self) -> dict:
        return {"matches": self.matches}


class Anticipate(BasePolicy):
    """Expects the contrary move and plays it."""

    makes_predictions = True

    def predict(self, observation: int, info: dict) -> int:
        return 0 if observation == 2 else 1 - int(observation)

    def act(self, observation: int, info: dict) -> int:
        return self.predict(observation, info)


class Coin(BasePolicy):
    """Predicts and plays at random."""

    makes_predictions = True

    def predict(self, observation: int, info: dict) -> int:
        return int(self.rng.integers(2))

    def act(self, observation: int, info: dict) -> int:
        return int(self.rng.integers(2))


# ---------------------------------------------------------------------- one register call, one declaration
@pytest.fixture
def toy_family():
    tom_envs.register("tom/Contrary-v0", f"{__name__}:ContraryEnv", family="contrary", summary="a toy family")
    family.register(
        family.Benchmark(
            name="contrary",
            help="the toy family: match a contrary partner",
            policies={"anticipate": lambda cell: Anticipate(), "coin": lambda cell: Coin()},
            metrics=("return", "tom_accuracy", "matches"),
            published={("tom/Contrary-v0", "anticipate"): {"return": 4.0}},
        )
    )
    yield
    family.unregister("contrary")
    tom_envs.registration.unregister("tom/Contrary-v0")


def test_the_cli_runs_a_declared_family_and_resumes(toy_family, tmp_path, capsys):
    argv = [
        "contrary",
        "--policy",
        "anticipate,coin",
        "--episodes",
        "5",
        "--seed",
        "3",
        "--out",
        str(tmp_path),
        "--format",
        "json",
    ]
    assert main(argv) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["env_id"], r["policy"], r["episodes"]) for r in rows] == [
        ("tom/Contrary-v0", "anticipate", 5),
        ("tom/Contrary-v0", "coin", 5),
    ]
    smart, coin = rows
    assert smart["return"] == 4.0 and smart["matches"] == 4.0 and smart["tom_accuracy"] == 100.0
    assert smart["return_ci"] == 0.0 and 0.0 <= coin["tom_accuracy"] <= 100.0
    files = sorted((tmp_path / "contrary").glob("*.jsonl"))
    assert len(files) == 2 and all(len(f.read_text().splitlines()) == 5 for f in files)
    before = [f.read_bytes() for f in files]

    assert main(argv) == 0  # a rerun resumes: same rows, nothing appended
    assert json.loads(capsys.readouterr().out) == rows
    assert [f.read_bytes() for f in files] == before
    assert main([*argv[:4], "7", *argv[5:]]) == 0  # more episodes: only the new seeds run
    assert all(len(f.read_text().splitlines()) == 7 for f in files)
    assert [f.read_bytes()[: len(b)] for f, b in zip(files, before)] == before


def test_lockstep_gives_the_episodes_of_one_by_one(toy_family, tmp_path, capsys):
    base = ["contrary", "--policy", "coin", "--episodes", "6", "--format", "json"]
    assert main([*base, "--out", str(tmp_path / "a")]) == 0
    one = json.loads(capsys.readouterr().out)
    assert main([*base, "--out", str(tmp_path / "b"), "--lockstep", "4"]) == 0
    many = json.loads(capsys.readouterr().out)
    assert one == many


def test_the_table_shows_the_published_numbers_and_help_lists_the_family(toy_family, tmp_path, capsys):
    assert main(["contrary", "--episodes", "2", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "anticipate" in out and "4.000 ± 0.000 (4)" in out and "published" in out
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0 and "contrary" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:
        main(["contrary", "--policy", "genius"])
    assert exc.value.code == 2 and "unknown policy 'genius'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["contrary", "--env", "tom/IPD-v0"])  # not an id of this family
    assert exc.value.code == 2 and "unknown env id 'tom/IPD-v0'; choose from tom/Contrary-v0" in capsys.readouterr().err


def test_a_declared_plot_gets_the_records_and_the_plot_option(toy_family, tmp_path, capsys):
    def plot(records: dict, folder):
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "episodes.txt"
        path.write_text("\n".join(f"{key} {len(recs)}" for key, recs in records.items()))
        return [path]

    family.register(dataclasses.replace(family.get("contrary"), plot=plot))
    assert main(["contrary", "--episodes", "2", "--out", str(tmp_path / "r"), "--plot", str(tmp_path / "p")]) == 0
    assert f"wrote {tmp_path / 'p' / 'episodes.txt'}" in capsys.readouterr().out
    assert [line.split()[1] for line in (tmp_path / "p" / "episodes.txt").read_text().splitlines()] == ["2"]
