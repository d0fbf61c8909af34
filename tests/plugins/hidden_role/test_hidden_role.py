"""A fifth family as a plugin: the hidden-role package in this folder, installed the way pip installs a
third-party family and found through the entry-point group ``tom_envs.families`` only.

Nothing outside this folder names it: the CLI gets ``tom-envs hidden-role`` from its ``Benchmark``
declaration, the runner plays its AEC cells one by one and in lockstep (its LLM seat against the
loopback scripted server), the report builds its section, and the information-rule checker probes
its id (and catches a planted leak).
"""

from __future__ import annotations

import importlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tom_envs
from tom_envs import family as families_module

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
ENV_ID = "tom/HiddenRole-v0"
#: PettingZoo's api_test advises on Dict observations (warnings, not failures): the warnings allowed here
ADVICE = (r"Observation is not a NumPy array", r"Observation space for each agent probably should be")


# ---------------------------------------------------------------------- installing the plugin
@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """``pip install`` this folder's package into a fresh target (offline, no dependencies), put the
    target on ``sys.path`` and let tom_envs find it (:func:`tom_envs.family.refresh`); undone afterwards."""
    tmp = tmp_path_factory.mktemp("hidden_role")
    source, target = tmp / "src", tmp / "site"
    shutil.copytree(HERE, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__", "test_*.py"))
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--target",
            str(target),
            str(source),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    assert not (HERE / "build").exists()  # built from the copy: the source folder stays clean
    sys.path.insert(0, str(target))
    importlib.invalidate_caches()
    try:
        assert "hidden_role" in [f.name for f in families_module.refresh()]
        yield target
    finally:
        sys.path.remove(str(target))
        from benchmarks import family as benchmarks_family

        benchmarks_family.unregister("hidden-role")
        if ENV_ID in tom_envs.REGISTRY:
            tom_envs.registration.unregister(ENV_ID)
        for name in [m for m in sys.modules if m == "hidden_role" or m.startswith("hidden_role.")]:
            del sys.modules[name]
        families_module._discovered.cache_clear()


def cli(site: Path, *argv: str, check: bool = True) -> subprocess.CompletedProcess:
    """``python -m benchmarks ARGV`` in a subprocess that sees the installed plugin (``PYTHONPATH``)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", *argv], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    if check and done.returncode != 0:
        raise AssertionError(f"tom-envs {' '.join(argv)} exited {done.returncode}:\n{done.stderr[-3000:]}")
    return done


def seats(detective):
    from hidden_role.agents import ScriptedPlayer

    others = ScriptedPlayer()
    return {"player_0": detective, **{f"player_{i}": others for i in range(1, 4)}}


def reply(prompt: str, seed: int | None) -> str:
    """The scripted model: suspects whoever named a suspect first in round 1 (else player_1), names it;
    every fourth request (by its sampling seed) answers something unusable, which is re-asked."""
    if seed is not None and seed % 4 == 0:
        return "Hard to say."
    first = re.search(r"round 1: player_(\d+) suspects", prompt)
    k = int(first.group(1)) if first and first.group(1) != "0" else 1
    return f"Impostor: player_{k}\nAction: player_{k}"


# ---------------------------------------------------------------------- found through the entry point
def test_the_family_is_found_through_the_entry_point_group_only(site):
    from importlib.metadata import entry_points

    assert "hidden_role" in {ep.name for ep in entry_points(group=families_module.GROUP)}
    fam = families_module.family("hidden-role")
    assert (fam.name, fam.results_folder, fam.report_section) == (
        "hidden_role",
        "hidden_role",
        "hidden_role.report:section",
    )
    assert tom_envs.registration.record(ENV_ID).kind == "aec" and tom_envs.ids(family="hidden_role") == [ENV_ID]
    assert Path(sys.modules["hidden_role"].__file__).is_relative_to(site)  # the installed copy, not the source
    from benchmarks.report.sections import builder

    assert builder("hidden_role").__module__ == "hidden_role.report"


# ---------------------------------------------------------------------- the env's contracts
def test_the_suites_conformance_checker_passes(site):
    """As a plugin author checks a family: the shipped suite (PettingZoo's api and seed tests, the reset-option
    rule, the ToM contract; the information rule has its own test below)."""
    from tom_envs.checks import ALLOWED_WARNINGS, check_env

    report = check_env(ENV_ID, information=False, allow_warnings=(*ALLOWED_WARNINGS, *ADVICE))
    assert not report.failed and report.checks["pettingzoo_api"] == "passed"


def test_the_truth_comes_only_when_the_vote_makes_it_public(site):
    from hidden_role.env import describe

    env = tom_envs.make_aec(ENV_ID)
    env.reset(seed=3)
    steps = 0
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        assert env.tom_truth() == {} and set(env.tom_outcome().values()) == {None}
        assert reward == 0.0 and info == {} and env.text(agent) == describe(obs)
        assert obs["role"] == int(agent == f"player_{env.impostor}") and (agent != "player_0" or obs["role"] == 0)
        env.step(1 + (steps % 4))
        steps += 1
        if env.agents and all(env.terminations.values()):  # the last vote
            assert env.tom_truth() == {"impostor": env.impostor}
            assert env.infos["player_0"]["impostor"] == env.impostor
    assert steps == 4 * 3 and set(env.tom_outcome()) == {"win", "correct_vote", "impostor_votes"}


def test_no_seat_sees_who_the_impostor_is(site):
    """Counterfactual: the same seed and actions with another impostor; every seat but the impostors
    themselves receives the same observations, texts, rewards and infos until the vote is over."""

    def trace(impostor: int) -> list:
        env = tom_envs.make_aec(ENV_ID)
        env.reset(seed=5)
        env.unwrapped.impostor = impostor
        out = []
        for k, agent in enumerate(env.agent_iter()):
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                break
            if agent not in (f"player_{i}" for i in (1, 2)):  # the two impostors of the two runs know it
                out.append(
                    (agent, {key: np.asarray(v).tolist() for key, v in obs.items()}, env.text(agent), reward, info)
                )
            env.step(1 + (k * 7) % 5 % 4)
        return out

    assert trace(1) == trace(2)


def test_the_information_rule_checker_passes_and_catches_a_planted_leak(site):
    from benchmarks.runner import make_env
    from hidden_role.env import HiddenRoleEnv
    from tom_envs.checks import InformationLeak, check_information_rule

    probe = families_module.family("hidden_role").probe
    assert check_information_rule(ENV_ID, **probe).ok
    assert check_information_rule(make_env(ENV_ID), **probe).ok  # wrapped as the runner wraps it

    class Leaky(HiddenRoleEnv):
        """Tells the detective who the impostor is in its info: the planted leak."""

        def reset(self, seed=None, options=None):
            super().reset(seed, options)
            self.infos["player_0"] = {"suspect": self.impostor}

        def play(self, agent, action):
            super().play(agent, action)
            if not self.done:
                self.infos["player_0"] = {"suspect": self.impostor}

    with pytest.raises(InformationLeak, match="info.suspect equals the impostor"):
        check_information_rule(Leaky(), **probe)


# ---------------------------------------------------------------------- the LLM seat in lockstep
def test_the_llm_seat_plays_in_lockstep_one_backend_call_per_turn(site):
    from benchmarks.runner import make_env, play_aec, play_aec_lockstep
    from hidden_role.agents import LLMDetective
    from tests.llm.scripted_server import scripted_backend

    seeds = [0, 1, 2, 3, 4]
    with scripted_backend(reply) as (server, backend):
        lone = LLMDetective(backend)
        one = [play_aec(make_env(ENV_ID), seats(lone), s) for s in seeds]
        lone_calls = list(lone.caller.calls)
        many = LLMDetective(backend)
        lock = play_aec_lockstep([make_env(ENV_ID) for _ in seeds], seats(many), seeds)
    assert [r.summary for r in one] == [r.summary for r in lock]
    assert {r.summary["tom_steps"] for r in lock} == {1}
    # three turns of the detective (two talk rounds, the vote), each one call for all five episodes
    firsts = [size for _, size in many.caller.calls if size == len(seeds)]
    assert len(firsts) == 3 and all(stage == "detective" for stage, _ in many.caller.calls)
    assert len(lone_calls) >= 3 * len(seeds) and max(size for _, size in lone_calls) == 1
    stats = [r.policy_stats["0"] for r in lock]  # the detective is the first distinct policy
    assert all(s["decisions"] == 3 and s["requests"] == 3 + s["parse_failures"] for s in stats)
    assert sum(s["parse_failures"] for s in stats) > 0 and sum(s["fallbacks"] for s in stats) == 0


# ---------------------------------------------------------------------- the command, the results, the report
@pytest.mark.slow
def test_the_command_is_generated_and_lockstep_gives_the_same_rows(site, tmp_path):
    assert "hidden-role" in cli(site, "--help").stdout
    base = ["hidden-role", "--policy", "tally,random", "--episodes", "12", "--format", "json"]
    one = json.loads(cli(site, *base, "--out", str(tmp_path / "one")).stdout)
    many = json.loads(cli(site, *base, "--out", str(tmp_path / "many"), "--lockstep", "5").stdout)
    assert one == many and [r["policy"] for r in one] == ["tally", "random"]
    tally, rand = one
    assert tally["episodes"] == 12 and tally["tom_accuracy"] > rand["tom_accuracy"]
    files = sorted(p.name for p in (tmp_path / "one" / "hidden_role").glob("*.jsonl"))
    assert files == sorted(p.name for p in (tmp_path / "many" / "hidden_role").glob("*.jsonl")) and len(files) == 2
    bad = cli(site, "hidden-role", "--policy", "llm", "--out", str(tmp_path / "x"), check=False)
    assert bad.returncode == 2 and "needs an LLM backend" in bad.stderr


@pytest.mark.slow
def test_llm_seat_through_the_command_in_lockstep_and_the_report_section(site, tmp_path):
    from tests.llm.scripted_server import ScriptedServer

    server = ScriptedServer(reply)
    try:
        base = [
            "hidden-role",
            "--policy",
            "llm,tally",
            "--episodes",
            "6",
            "--format",
            "json",
            "--backend",
            "openai",
            "--base-url",
            server.url,
            "--model",
            "scripted",
            "--max-resamples",
            "3",
        ]
        lock = json.loads(cli(site, *base, "--lockstep", "3", "--out", str(tmp_path / "res")).stdout)
        sent = len(server.requests)
        one = json.loads(cli(site, *base, "--out", str(tmp_path / "one")).stdout)
    finally:
        server.close()
    assert lock == one and lock[0]["policy"] == "llm" and lock[0]["episodes"] == 6
    records = [
        json.loads(line)
        for p in (tmp_path / "res" / "hidden_role").glob("*_llm_*.jsonl")
        for line in p.read_text().splitlines()
    ]
    assert len(records) == 6 and records[0]["cell"]["policy_params"]["model"] == "scripted"
    stats = [r["episode"]["policy_stats"]["0"] for r in records]
    assert sum(s["requests"] for s in stats) == sent == 6 * 3 + sum(s["parse_failures"] for s in stats)

    out = tmp_path / "report"
    cli(site, "report", str(tmp_path / "res"), "--out", str(out))
    page = (out / "index.md").read_text(encoding="utf-8")
    assert "## Hidden role (plugin)" in page and "| llm / scripted | tom/HiddenRole-v0 | 6 |" in page
    assert "| tally | tom/HiddenRole-v0 | 6 |" in page and "chance (4 players)" in page
    assert (out / "hidden_role" / "plane.png").is_file()
