"""``tom/Negotiation-v2``: the release's turn order (the mediator first, the party seats only when it
passes) and its opening line; the ``negotiation --env`` option that plays it."""

from __future__ import annotations

import json

import numpy as np
import pytest

import tom_envs
from benchmarks.__main__ import main
from benchmarks.negotiation.cells import level_env_id
from policies.negotiation.scripted import SocialMediator, make_mediator
from tom_envs.negotiation.env import MEDIATOR, NegotiationEnv
from tom_envs.negotiation.env_v2 import OPENING_LINE, NegotiationEnvV2
from tom_envs.negotiation.errors import NegotiationConfigError
from tom_envs.negotiation.metrics import (
    release_consensus_change,
    release_drops,
    release_mediator_effectiveness,
    release_response_latencies,
    release_success_rate,
)


def _party_action(env, agent):
    """A fixed stance for every party seat: topic 0, its first option."""
    return {"topic": 0, "option": 0, "act": "propose", "tone": "neutral", "motivation": 0.5}


def _play(env, mediator, seed: int) -> dict:
    env.reset(seed=seed)
    mediator.reset(seed)
    info = {}
    while env.agents:
        agent = env.agent_selection
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
        else:
            env.step(mediator.act(obs, info) if agent == MEDIATOR else _party_action(env, agent))
    return info["episode"]


def test_the_mediator_acts_first_and_the_party_seats_only_when_it_passes():
    env = NegotiationEnvV2(scenario="hopkins_hmo", party_seats="all", turn_budget=20)
    env.reset(seed=0)
    assert env.agent_selection == MEDIATOR and env.possible_agents[0] == MEDIATOR
    asked = []
    while env.agents:
        agent = env.agent_selection
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        asked.append((env.turn, agent))
        # the mediator speaks in even turns, passes in odd ones
        env.step(
            {"strategy": "facilitative", "topic": 1}
            if agent == MEDIATOR and env.turn % 2 == 0
            else 0
            if agent == MEDIATOR
            else _party_action(env, agent)
        )
    by_turn: dict[int, list[str]] = {}
    for t, agent in asked:
        by_turn.setdefault(t, []).append(agent)
    parties = [f"party_{i}" for i in range(3)]
    assert all(by_turn[t] == ([MEDIATOR] if t % 2 == 0 else [MEDIATOR, *parties]) for t in range(20))
    kinds = [e["kind"] for e in env.events]
    assert kinds[0] == "opening" and kinds[1::2] == ["intervention"] * 10 and len(kinds) == 21


def test_the_mediator_opens_with_the_release_line_which_every_seat_sees():
    env = NegotiationEnvV2(scenario="hopkins_hmo", party_seats=[0], render_mode="ansi")
    env.reset(seed=3)
    opening = {
        "turn": 0,
        "speaker": "Mediator",
        "seat": MEDIATOR,
        "kind": "opening",
        "topic": None,
        "topic_index": None,
        "text": OPENING_LINE,
    }
    assert env.events == [opening]
    for seat in ("party_0", MEDIATOR):
        assert env.infos[seat]["state"]["events"] == [opening]
        assert f"[0] Mediator: {OPENING_LINE}" in env.text(seat)
    assert env.observe("party_0")[3] == env.n  # the last speaker is the mediator (v1: nobody, n + 1)
    assert env.render() == f"[0] Mediator: {OPENING_LINE}"
    episode = _play(env, SocialMediator(), 3)
    assert episode["transcript"][0] == opening


def test_a_random_party_opens_drawn_from_the_seeded_generator_and_does_not_speak_next():
    openers = {}
    for seed in range(12):
        env = NegotiationEnvV2(scenario="hopkins_hmo", opening="party")
        ep = _play(env, make_mediator("none"), seed)
        first, second = ep["transcript"][:2]
        assert first["kind"] == "opening" and first["text"] == OPENING_LINE and first["option"] is None
        assert second["party"] != first["party"]  # nobody twice in a row (the release's rule)
        openers[seed] = first["party"]
        again = _play(NegotiationEnvV2(scenario="hopkins_hmo", opening="party"), make_mediator("none"), seed)
        assert again == ep
    assert len(set(openers.values())) > 1
    # without the mediator seat a party opens by default (the release's NoAgent method)
    env = NegotiationEnvV2(scenario="hopkins_hmo", mediator=False, party_seats="all")
    env.reset(seed=1)
    assert env.events[0]["seat"].startswith("party_") and env.events[0]["kind"] == "opening"


@pytest.mark.parametrize("mediator", ["blind", "generic", "social"])
def test_with_scripted_parties_v2_moves_consensus_as_v1_and_counts_the_opening_in_the_frequency(mediator):
    """With every party scripted the turn order changes nothing (the mediator is the only seat) and the
    opening states nothing: consensus, the paper's metrics and every line after the opening are v1's."""
    v1 = _play(NegotiationEnv(scenario="ias", conflict_mode="competing"), make_mediator(mediator), 5)
    v2 = _play(NegotiationEnvV2(scenario="ias", conflict_mode="competing"), make_mediator(mediator), 5)
    assert v2["transcript"][1:] == v1["transcript"] and v2["transcript"][0]["kind"] == "opening"
    for key in ("consensus", "topic_consensus", "final_attitudes", "agreed", "other_definitions"):
        assert v2[key] == v1[key], key
    assert [{k: v for k, v in iv.items() if not k.startswith("me")} for iv in v2["interventions"]] == [
        {k: v for k, v in iv.items() if not k.startswith("me")} for iv in v1["interventions"]
    ]
    lines = len(v1["mediator_turns"])
    assert lines > 0
    assert v1["mediator_frequency"] == lines / v1["turns"]
    assert v2["mediator_frequency"] == lines / (v2["turns"] + 1)  # the release's: the opening is a line


def _release_view(ep: dict) -> tuple[list[float], dict[str, list[float]]]:
    """The series the release's scripts read for a v2 episode: one more entry, the initial one, for the opening."""
    return ep["consensus"][:1] + ep["consensus"], {k: s[:1] + s for k, s in ep["topic_consensus"].items()}


@pytest.mark.parametrize("mode", ["general", "competing"])
def test_v2_release_metrics_read_the_series_with_the_opening_entry(mode):
    """Issue 41: the release's consensus pipeline stores a score for every line, the opening included, so its
    series is ours with the initial score twice and our turn t is its line t; v1's series has no such entry.
    (tests/test_negotiation_release_logs.py runs the release's own script on every released case.)"""
    for scenario in ("hopkins_hmo", "ias", "williams_medical_center"):
        v1 = _play(NegotiationEnv(scenario=scenario, conflict_mode=mode), SocialMediator(), 2)
        v2 = _play(NegotiationEnvV2(scenario=scenario, conflict_mode=mode), SocialMediator(), 2)
        overall, topics = _release_view(v2)
        assert v1["cc"] == pytest.approx(release_consensus_change(v1["consensus"]), abs=1e-6)
        assert v2["cc"] == pytest.approx(release_consensus_change(overall), abs=1e-6)
        lines = [t + 1 for t in v2["mediator_turns"]]  # our turn t is the release's line t: the functions take t + 1
        rl = release_response_latencies(overall, lines)
        assert v2["rl_mean"] == (pytest.approx(sum(rl) / len(rl), abs=1e-6) if rl else None)
        for iv in v2["interventions"]:
            me = release_mediator_effectiveness(topics[iv["topic"]], iv["turn"] + 1)
            assert iv["me_release"] == (None if me is None else pytest.approx(me, abs=1e-6))
        assert v2["success_rate"] == release_success_rate(list(topics.values()))
        assert v2["drops"]["release"] == len(release_drops(overall))
    # a case where the entry moves CC (the release's first window holds c[0] twice)
    v1 = _play(NegotiationEnv(scenario="hopkins_hmo", conflict_mode="competing"), SocialMediator(), 0)
    v2 = _play(NegotiationEnvV2(scenario="hopkins_hmo", conflict_mode="competing"), SocialMediator(), 0)
    assert v1["consensus"] == v2["consensus"] and v1["cc"] != v2["cc"]


def test_bad_openings_are_named_errors():
    with pytest.raises(NegotiationConfigError, match="opening must be one of"):
        NegotiationEnvV2(opening="hello")
    with pytest.raises(NegotiationConfigError, match="needs the mediator seat"):
        NegotiationEnvV2(opening="mediator", mediator=False, party_seats="all")


def test_the_ids_are_registered_by_version_and_level():
    assert level_env_id("hard", 1) == "tom/Negotiation-Hard-v1"
    assert level_env_id("hard", 2) == "tom/Negotiation-Hard-v2"
    env = tom_envs.make_aec("tom/Negotiation-Easy-v2")
    assert isinstance(env, NegotiationEnvV2) and env.metadata["is_parallelizable"] is False
    with pytest.raises(tom_envs.errors.ContradictoryKwargs, match="Negotiation-Hard-v2"):
        tom_envs.make_aec("tom/Negotiation-Easy-v2", difficulty="hard")
    with pytest.raises(NegotiationConfigError, match="v3"):
        level_env_id("hard", 3)


def test_same_seed_same_v2_episode_with_party_seats():
    def run(seed):
        env = NegotiationEnvV2(scenario="flagship", party_seats=[1, 3], conflict_mode="general")
        return _play(env, SocialMediator(), seed)

    assert run(4) == run(4)
    assert np.isfinite(run(4)["cc"])


def test_the_benchmark_plays_v2_with_env_and_keys_it(tmp_path, capsys):
    common = [
        "negotiation",
        "--policy",
        "none,social",
        "--mode",
        "hard",
        "--scenarios",
        "ias",
        "--episodes",
        "1",
        "--format",
        "json",
        "--out",
        str(tmp_path),
    ]
    assert main(common) == 0
    v1_rows = json.loads(capsys.readouterr().out)
    assert main([*common, "--env", "tom/Negotiation-v2"]) == 0
    v2_rows = json.loads(capsys.readouterr().out)
    files = sorted(p.name for p in (tmp_path / "negotiation").glob("*.jsonl"))
    assert len(files) == 4  # v2 cells are keyed apart from v1's
    records = [
        json.loads(line) for p in (tmp_path / "negotiation").glob("*.jsonl") for line in p.read_text().splitlines()
    ]
    v2_records = [r for r in records if r.get("env_version") == 2]
    assert len(v2_records) == 2 and all("env_version" not in r for r in records if r not in v2_records)
    openers = {r["mediator"]: r["episode"]["transcript"][0] for r in v2_records}
    assert openers["social"]["seat"] == MEDIATOR and openers["none"]["seat"].startswith("party_")
    # scripted parties: the social mediator's episode is v1's; v2's release CC reads the series with the opening's entry
    eps = {r.get("env_version", 1): r["episode"] for r in records if r["mediator"] == "social"}
    assert eps[1]["consensus"] == eps[2]["consensus"] and v1_rows[1]["cc"] == pytest.approx(100 * eps[1]["cc"])
    rounded = release_consensus_change(eps[2]["consensus"][:1] + eps[2]["consensus"])  # the records round to 6 digits
    assert v2_rows[1]["cc"] == pytest.approx(100 * rounded, abs=1e-3) and v2_rows[1]["cc"] != v1_rows[1]["cc"]
    for bad, message in (
        ("tom/Negotiation-Hard-v2", "pick the level with --mode"),
        ("tom/Negotiation-v9", "choose from"),
    ):
        assert main([*common, "--env", bad]) == 2
        assert message in capsys.readouterr().err
