"""LLM parties on ``tom/Negotiation-v2`` (the release's turn order and opening line), on the scripted
loopback server: a party line is put into words once, and only when it is said."""

from __future__ import annotations

import json

import pytest

from benchmarks.__main__ import main
from benchmarks.negotiation.benchmark import PartyTeam
from benchmarks.negotiation.cells import level_env_id
from benchmarks.runner_aec import play_aec
from benchmarks.runner_envs import make_env
from policies.negotiation.llm import LLMParty
from policies.negotiation.scripted import SocialMediator
from tom_envs.negotiation.env import MEDIATOR
from tom_envs.negotiation.env_v2 import OPENING_LINE
from wrappers import AECTextObservation

from .scripted_server import scripted_backend
from .test_negotiation_llm import SCENARIO, scripted_reply


@pytest.fixture
def scripted():
    with scripted_backend(scripted_reply) as pair:
        yield pair


def _articulations(out, env: str) -> list[tuple[int, int, int]]:
    """(articulations, party lines, mediator lines) of each record of a run."""
    rows = []
    for path in (out / "negotiation").glob("*.jsonl"):
        for line in path.read_text().splitlines():
            rec = json.loads(line)
            if (rec.get("env_version") or 1) != int(env[-1]):
                continue
            ep = rec["episode"]
            said = [e for e in ep["transcript"] if e.get("kind") != "opening"]
            worded = sum(1 for turn in ep["party_log"] for p in turn["parties"].values() if p.get("articulation"))
            rows.append(
                (worded, sum(e.get("party") is not None for e in said), sum(e["seat"] == MEDIATOR for e in said))
            )
    return rows


def test_inner_thoughts_parties_word_exactly_the_lines_said_on_v2(scripted, tmp_path, capsys):
    server, _ = scripted
    argv = [
        "negotiation",
        "--parties",
        "llm-inner-thoughts",
        "--policy",
        "social",
        "--mode",
        "medium",
        "--scenarios",
        "hopkins_hmo",
        "--runs",
        "1",
        "--budget",
        "paper",
        "--backend",
        "openai",
        "--base-url",
        server.url,
        "--model",
        "scripted",
        "--out",
        str(tmp_path),
        "--format",
        "json",
    ]
    assert main(argv) == 0
    assert main([*argv, "--env", "tom/Negotiation-v2"]) == 0
    capsys.readouterr()
    [(worded1, lines1, med1)] = _articulations(tmp_path, "v1")
    [(worded2, lines2, med2)] = _articulations(tmp_path, "v2")
    assert med1 > 0 and worded1 == lines1 + med1  # v1: a line worded every turn, wasted where the mediator spoke
    assert med2 > 0 and worded2 == lines2  # v2: one articulation per party line, none wasted


def test_release_loop_parties_hear_the_opening_and_are_asked_only_when_the_mediator_passes(scripted):
    server, backend = scripted
    env = AECTextObservation(
        make_env(level_env_id("hard", 2), record=False, scenario=SCENARIO, party_seats="all", turn_budget=20)
    )
    parties = {
        seat: LLMParty(backend, SCENARIO, fallback="raise", strategy="release")
        for seat in env.possible_agents
        if seat != MEDIATOR
    }
    team = PartyTeam(env, parties)
    play_aec(env, {**team.seats(), MEDIATOR: SocialMediator()}, 2)
    events = env.unwrapped.events
    assert events[0]["text"] == OPENING_LINE and events[0]["seat"] == MEDIATOR
    lead = parties["party_0"].caller
    stages = [stage for stage, _ in lead.calls]
    said = [e for e in events[1:] if e.get("party") is not None]
    mediated = [e for e in events[1:] if e["seat"] == MEDIATOR]
    assert mediated, "the social mediator should speak in 20 turns"
    # one round of stages per turn the mediator passed (the opening is a line: the floor is predicted at once)
    assert stages[:4] == ["turn", "thought", "motivation", "articulation"]
    assert stages.count("articulation") == len(said) and stages.count("turn") == len(said)
    assert len(team.log) == len(said)
    prompts = [m["content"] for req in server.requests for m in req["messages"] if m["role"] == "user"]
    assert any(OPENING_LINE in p for p in prompts if "Form up to" in p)


def test_an_llm_mediator_in_lockstep_on_v2_equals_one_by_one(scripted, tmp_path, capsys):
    server, _ = scripted
    episodes = []
    for lockstep in ("1", "2"):
        out = tmp_path / lockstep
        assert (
            main(
                [
                    "negotiation",
                    "--policy",
                    "llm-generic",
                    "--mode",
                    "hard",
                    "--scenarios",
                    "hopkins_hmo",
                    "--episodes",
                    "2",
                    "--env",
                    "tom/Negotiation-v2",
                    "--lockstep",
                    lockstep,
                    "--backend",
                    "openai",
                    "--base-url",
                    server.url,
                    "--model",
                    "scripted",
                    "--out",
                    str(out),
                    "--format",
                    "json",
                ]
            )
            == 0
        )
        episodes.append(
            [
                json.loads(line)["episode"]
                for path in sorted((out / "negotiation").glob("*.jsonl"))
                for line in path.read_text().splitlines()
            ]
        )
    capsys.readouterr()
    assert len(episodes[0]) == 2 and episodes[0] == episodes[1]
    assert all(ep["transcript"][0]["text"] == OPENING_LINE for ep in episodes[0])
