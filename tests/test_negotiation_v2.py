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
        env.step({"strategy": "facilitative", "topic": 1} if agent == MEDIATOR and env.turn % 2 == 0 else
                 0 if agent == MEDIATOR else _party_action(env, agent))
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
    opening = {"turn": 0, "speaker": "Mediator", "seat": MEDIATOR, "kind": "opening", "topic": None,
               "topic_index": None, "text": OPENING_LINE}
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
    opening states nothing: consensus, metrics and every line after the opening are v1's."""
    v1 = _play(NegotiationEnv(scenario="ias", conflict_mode="competing"), make_mediator(mediator), 5)
    v2 = _play(NegotiationEnvV2(scenario="ias", conflict_mode="competing"), make_mediator(mediator), 5)
    assert v2["transcript"][1:] == v1["transcript"] and v2["transcript"][0]["kind"] == "opening"
    for key in ("consensus", "topic_consensus", "cc", "tle", "rl", "interventions", "final_attitudes", "agreed"):
        assert v2[key] == v1[key], key
    lines = len(v1["mediator_turns"])
    assert lines > 0
    assert v1["mediator_frequency"] == lines / v1["turns"]
    assert v2["mediator_frequency"] == lines / (v2["turns"] + 1)  # the release's: the opening is a line


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
    common = ["negotiation", "--policy", "none,social", "--mode", "hard", "--scenarios", "ias", "--episodes", "1",
              "--format", "json", "--out", str(tmp_path)]
    assert main(common) == 0
    v1_rows = json.loads(capsys.readouterr().out)
    assert main([*common, "--env", "tom/Negotiation-v2"]) == 0
    v2_rows = json.loads(capsys.readouterr().out)
    files = sorted(p.name for p in (tmp_path / "negotiation").glob("*.jsonl"))
    assert len(files) == 4  # v2 cells are keyed apart from v1's
    records = [json.loads(line) for p in (tmp_path / "negotiation").glob("*.jsonl") for line in p.read_text().splitlines()]
    v2_records = [r for r in records if r.get("env_version") == 2]
    assert len(v2_records) == 2 and all("env_version" not in r for r in records if r not in v2_records)
    openers = {r["mediator"]: r["episode"]["transcript"][0] for r in v2_records}
    assert openers["social"]["seat"] == MEDIATOR and openers["none"]["seat"].startswith("party_")
    assert v1_rows[1]["cc"] == v2_rows[1]["cc"]  # scripted parties: the social mediator's episode is v1's
    for bad, message in (("tom/Negotiation-Hard-v2", "pick the level with --mode"), ("tom/Negotiation-v9", "choose from")):
        assert main([*common, "--env", bad]) == 2
        assert message in capsys.readouterr().err
