"""Live persuasion v1 as an environment: API checks, seeding, the information rule, words that
matter, the persuaders against the exact references, and the benchmark's rows."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import tom_envs
from benchmarks.persuasion.live import PersuasionBenchmarkError, format_live_table, live_rows, play_episode
from policies.persuasion.scripted import (
    BayesPersuader,
    MindOraclePersuader,
    MindRandomPersuader,
    OpenLoopPersuader,
    TrackingPersuader,
)
from tom_envs.errors import EpisodeEnded, InvalidAction, ResetNeeded
from tom_envs.persuasion.mind import NOTHING
from tom_envs.persuasion.mind_env import PersuasionMindEnv
from tom_envs.persuasion.mind_text import PERSUADER_LINES
from tom_envs.persuasion.principles import PRINCIPLES
from tom_envs.persuasion.reader import ScriptedReader
from tom_envs.persuasion.scenarios import FAMILIES
from wrappers import TextObservation


@pytest.fixture(autouse=True)
def _results_in_tmp(tmp_path, monkeypatch):
    """The commands store their records under --out (default results/ in the working directory): run each test
    in its own temporary folder, so nothing lands in the checkout and no stale record from another commit is read."""
    monkeypatch.chdir(tmp_path)


ID = "tom/Persuasion-v1"
HIDDEN_KEYS = {"persona", "state", "state_index", "regret"}


def test_env_passes_the_gymnasium_and_sb3_checkers():
    check_env(gym.make(ID).unwrapped, skip_render_check=False)
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    sb3_checker.check_env(gym.make(ID).unwrapped, warn=True)


def _transcript(seed: int, actions=(0, 5, 3, 4)) -> list:
    env = PersuasionMindEnv()
    obs, info = env.reset(seed=seed)
    out = [obs.tolist(), env.text()]
    for a in actions:
        obs, r, term, _, info = env.step(a)
        out += [obs.tolist(), r, info["utterance"], info["reply"], env.tom_truth()]
        if term:
            break
    return out


def test_same_seed_same_dialogue_and_transcripts_vary():
    assert _transcript(4) == _transcript(4)
    openings = {_transcript(s)[1].split("\n")[0] for s in range(40)}
    replies = {line for s in range(40) for line in _transcript(s)[5::5]}
    assert len(openings) > 15 and len(replies) > 20


def test_nothing_hidden_is_returned_unless_exposed():
    env = PersuasionMindEnv()
    _, info = env.reset(seed=0)
    assert not HIDDEN_KEYS & set(info)
    _, _, _, _, info = env.step(0)
    assert not HIDDEN_KEYS & set(info)
    text = TextObservation(env).reset(seed=0)[0]
    persona = env.family.personas[env.model.state(env.state_index).persona].name
    assert persona not in text and "wary" not in text and "intention" not in text
    _, info = PersuasionMindEnv(expose_state=True).reset(seed=0)
    assert {"persona", "state", "state_index"} <= set(info)


def test_two_personas_with_the_same_dialogue_are_indistinguishable_before_the_end():
    """Same seed, two forced personas: where their dialogues coincide, everything returned coincides
    (the persona shows only through the replies it causes)."""
    env_a, env_b = PersuasionMindEnv(families="health"), PersuasionMindEnv(families="health")
    same = 0
    for seed in range(60):
        oa, ia = env_a.reset(seed=seed, options={"persona": "skeptic"})
        ob, ib = env_b.reset(seed=seed, options={"persona": "procrastinator"})
        if oa.tolist() == ob.tolist():
            same += 1
            assert ia == ib
    assert same > 0


def test_misuse_raises_named_errors():
    env = PersuasionMindEnv(horizon=1)
    with pytest.raises(ResetNeeded):
        env.step(0)
    env.reset(seed=0)
    for bad in (6, -1, 1.5, "liking", True, {"action": 9}, {"utterance": 3}, {}, {"say": "hi"}):
        with pytest.raises(InvalidAction):
            env.step(bad)
    _, _, terminated, truncated, info = env.step(0)
    assert terminated and not truncated and "episode" in info
    with pytest.raises(EpisodeEnded):
        env.step(0)
    with pytest.raises(Exception, match="family"):
        PersuasionMindEnv(families="space travel")


# ---------------------------------------------------------------------- words matter
def test_every_templated_line_reads_as_its_principle_and_chatter_reads_as_nothing():
    reader = ScriptedReader()
    for fam in FAMILIES:
        for sc in fam.scenarios:
            for name, lines in PERSUADER_LINES.items():
                for line in lines:
                    assert reader.read(line.format(goal=sc.goal), sc.goal) == PRINCIPLES.index(name)
            assert reader.read(f"You should {sc.goal}.", sc.goal) == NOTHING
    for chatter in ("blah blah irrelevant text", "The weather is nice today.", "", "   ", "Did you see the match?"):
        assert reader.read(chatter, "join the book club") == NOTHING


def test_the_persuadee_reacts_to_the_words_not_to_the_label():
    env = PersuasionMindEnv()
    env.reset(seed=1)
    _, _, _, _, info = env.step({"action": 3, "utterance": "blah blah irrelevant text"})
    assert info["heard"] == "nothing" and info["declared"] == "authority"
    _, _, _, _, info = env.step({"utterance": "Experts recommend it; the research evidence is solid."})
    assert info["heard"] == "authority" and info["declared"] is None


class _Talker(BayesPersuader):
    """The Bayes-optimal persuader speaking its choice as a templated line, or saying ``chatter``."""

    def __init__(self, chatter: str | None = None) -> None:
        super().__init__()
        self.chatter = chatter

    def act(self, observation, info):
        a = super().act(observation, info)
        return {
            "utterance": self.chatter if self.chatter else PERSUADER_LINES[PRINCIPLES[a]][0].format(goal=info["goal"])
        }


def test_a_persuader_that_says_nothing_useful_cannot_score_like_one_that_argues():
    env = PersuasionMindEnv(families=["health", "work"])
    talk = [play_episode(env, _Talker(), s) for s in range(150)]
    blah = [play_episode(env, _Talker("blah blah irrelevant text"), s) for s in range(150)]
    assert np.mean([e["success"] for e in blah]) == 0.0 and all(
        h == ["nothing"] * 4 for h in (e["heard"] for e in blah)
    )
    assert np.mean([e["success"] for e in talk]) > 0.6
    assert np.mean([e["regret"] for e in blah]) > 0.6  # the fair optimum's success, given away turn by turn


# ---------------------------------------------------------------------- persuaders vs the exact references
def _rate(policy_cls, family: str, n: int, seed: int = 0) -> tuple[float, float, list[dict]]:
    env = PersuasionMindEnv(families=family, **getattr(policy_cls, "env_kwargs", {}))
    eps = [play_episode(env, policy_cls(), seed + i) for i in range(n)]
    return float(np.mean([e["success"] for e in eps])), float(np.mean([e["regret"] for e in eps])), eps


@pytest.mark.parametrize("family", ["charity", "leisure"])
def test_bayes_open_loop_and_oracle_persuaders_achieve_their_exact_values(family):
    n = 400
    for cls, key in (
        (BayesPersuader, "bayes_success"),
        (OpenLoopPersuader, "open_loop_success"),
        (MindOraclePersuader, "oracle_success"),
    ):
        rate, regret, eps = _rate(cls, family, n)
        p = eps[0][key]
        assert abs(rate - p) < 4 * np.sqrt(p * (1 - p) / n) + 1e-9, (cls.__name__, rate, p)
        if cls is BayesPersuader:
            assert regret == pytest.approx(0.0, abs=1e-12)
        if cls is MindOraclePersuader:
            assert all(e["oracle_regret"] == pytest.approx(0.0, abs=1e-12) for e in eps)
            assert all(e[f"{t}_accuracy"] == 100.0 for e in eps for t in ("desire", "belief", "intention"))


def test_regret_is_the_gap_to_the_bayes_optimal_success_in_expectation():
    rate, regret, eps = _rate(MindRandomPersuader, "work", 500, seed=3)
    assert abs((eps[0]["bayes_success"] - rate) - regret) < 0.07


def test_tracking_reads_the_state_better_than_the_prior_and_random():
    acc = {}
    for cls in (MindRandomPersuader, OpenLoopPersuader, TrackingPersuader):
        _, _, eps = _rate(cls, "shopping", 200, seed=7)
        acc[cls.__name__] = {t: np.mean([e[f"{t}_accuracy"] for e in eps]) for t in ("belief", "intention")}
    assert acc["TrackingPersuader"]["intention"] > acc["OpenLoopPersuader"]["intention"] + 20
    assert acc["TrackingPersuader"]["intention"] > acc["MindRandomPersuader"]["intention"] + 20
    assert acc["TrackingPersuader"]["belief"] > acc["MindRandomPersuader"]["belief"] + 20


# ---------------------------------------------------------------------- the benchmark
def test_live_rows_per_family_with_references_and_value_of_tracking():
    import argparse

    v1 = argparse.Namespace(live_env="tom/Persuasion-v1")  # v1 stays selectable by id (v2 is the default)
    rows = {
        r["policy"]: r
        for r in live_rows(
            ["random", "open-loop", "tracking", "bayes", "oracle"], episodes=30, seed=0, families="health,work", args=v1
        )
    }
    for r in rows.values():
        assert set(r["by_family"]) == {"health", "work"} and r["episodes"] == 30 and r["version"] == "v1"
        assert r["env_id"] == "tom/Persuasion-v1"
        assert r["value_of_tracking"] >= 0.10 and r["value_of_information"] > 0
        for key in ("success", "regret", "fair_regret", "desire_accuracy", "belief_accuracy", "intention_accuracy"):
            assert key in r and all(key in fr for fr in r["by_family"].values())
    assert rows["bayes"]["regret"] == pytest.approx(0.0, abs=1e-12) and rows["oracle"]["regret"] == pytest.approx(
        0.0, abs=1e-12
    )
    assert rows["oracle"]["regret_against"] == "oracle" and rows["random"]["regret_against"] == "bayes"
    assert rows["oracle"]["intention_accuracy"] == 100.0
    text = "\n".join(format_live_table(list(rows.values())))
    assert "value of tracking" in text and "health" in text and "intention ToM %" in text
    json.dumps(list(rows.values()))
    with pytest.raises(PersuasionBenchmarkError):
        live_rows(["gpt"], episodes=1, seed=0)
    with pytest.raises(PersuasionBenchmarkError):
        live_rows(["random"], episodes=1, seed=0, families="space")


def test_the_scripted_reader_counts_cues_and_breaks_ties_by_what_comes_first():
    reader = ScriptedReader()
    assert reader.read("You said you'd try; just once, as a small first step. Also, everyone does it.") == 4
    assert reader.read("Everyone is going. And experts recommend it.") == 2  # one cue each: consensus comes first
    assert reader.read("Experts recommend it, and everyone is going.") == 3


def test_the_live_command_without_policy_plays_every_scripted_persuader(capsys):
    import argparse

    from benchmarks.persuasion import benchmark as bench

    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    assert (
        bench.run(parser.parse_args(["--env", "live", "--episodes", "2", "--families", "work", "--format", "json"]))
        == 0
    )
    rows = json.loads(capsys.readouterr().out)
    assert [r["policy"] for r in rows] == ["random", "echo", "echo-memory", "open-loop", "tracking", "bayes", "oracle"]
    assert {r["env_id"] for r in rows} == {"tom/Persuasion-v2"}  # v2 by default, named in every row
    assert parser.parse_args(["--env", "qa"]).policy == "random"  # the QA default is unchanged


def test_pickle_round_trip_mid_episode():
    import pickle

    env = PersuasionMindEnv(families="leisure")
    env.reset(seed=5)
    env.step(2)
    clone = pickle.loads(pickle.dumps(env))
    for a in (5, 4, 1):
        x, y = env.step(a), clone.step(a)
        assert x[0].tolist() == y[0].tolist() and x[1:3] == y[1:3] and x[4]["reply"] == y[4]["reply"]
        if x[2]:
            break


def test_a_misbehaving_reader_and_a_family_without_scenarios_are_named_errors():
    from tom_envs.persuasion.mind import Family
    from tom_envs.persuasion.reader import ReaderError

    class Broken:
        def read(self, utterance, goal):
            return "authority"

    env = PersuasionMindEnv(reader=Broken())
    env.reset(seed=0)
    with pytest.raises(ReaderError, match="Broken"):
        env.step({"utterance": "Experts say so."})
    bare = Family("bare", "bare", FAMILIES[0].personas, FAMILIES[0].weights)
    with pytest.raises(Exception, match="no scenarios"):
        PersuasionMindEnv(families=[bare])


@pytest.mark.parametrize("env_id", ["tom/Persuasion-v1", "tom/Persuasion-TwoSeat-v1"])
def test_v1_names_a_horizon_past_what_its_exact_planning_supports_instead_of_hanging(env_id):
    from tom_envs.persuasion.planning import V1_MAX_HORIZON, references
    from tom_envs.persuasion.planning_v2 import UnsupportedHorizon

    with pytest.raises(UnsupportedHorizon, match="tom/Persuasion-v2"):
        tom_envs.make(env_id, horizon=V1_MAX_HORIZON + 1)
    with pytest.raises(UnsupportedHorizon):  # the references a benchmark computes before any env
        references(None, 40)
