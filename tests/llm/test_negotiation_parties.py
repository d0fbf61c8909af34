"""LLM parties in the negotiation benchmark: the runner's AEC loop plays them, and each turn the
parties decide together (one backend call per prompting stage), on the scripted loopback server."""

from __future__ import annotations

import json

import pytest

from benchmarks.__main__ import main
from benchmarks.negotiation import PartyTeam
from benchmarks.runner import env_id_for, make_env, play_aec
from policies.negotiation_llm import LLMMediator, LLMParty
from tom_envs.negotiation.env import MEDIATOR
from wrappers import AECTextObservation

from .scripted_server import scripted_backend
from .test_negotiation_llm import SCENARIO, scripted_reply


@pytest.fixture
def scripted():
    with scripted_backend(scripted_reply) as pair:
        yield pair


def _episode(backend, seed: int) -> tuple[dict, dict, object]:
    env = AECTextObservation(make_env(env_id_for("negotiation", "aec", difficulty="medium"), record=False,
                                      scenario=SCENARIO, party_seats="all", turn_budget=20))
    parties = {seat: LLMParty(backend, SCENARIO, fallback="raise") for seat in env.possible_agents if seat != MEDIATOR}
    team = PartyTeam(env, parties)
    result = play_aec(env, {**team.seats(), MEDIATOR: LLMMediator(backend, SCENARIO, variant="generic")}, seed)
    return result.info["episode"], parties, env


def test_the_runner_plays_llm_parties_one_backend_call_per_stage_and_turn(scripted):
    _, backend = scripted
    summary, parties, env = _episode(backend, seed=1)
    assert summary["turns"] == 20
    lead = next(iter(parties.values())).caller
    thoughts = [n for stage, n in lead.calls if stage == "thought"]
    assert thoughts and all(n == len(parties) for n in thoughts)  # every party's thought in one call
    spoken = [e for e in env.events if e.get("party") is not None]
    assert spoken and all(e["text"].startswith("I think this is fair") for e in spoken)
    assert sum(p.stats["decisions"] for p in parties.values()) >= len(thoughts) * len(parties)


def test_same_seed_same_episode(scripted):
    _, backend = scripted
    assert _episode(backend, seed=4)[0] == _episode(backend, seed=4)[0]


def test_benchmark_with_llm_parties_counts_their_decisions_and_resumes(scripted, tmp_path, capsys):
    server, _ = scripted
    argv = ["negotiation", "--parties", "llm", "--policy", "none,social", "--mode", "medium", "--scenarios",
            "hopkins_hmo", "--episodes", "1", "--backend", "openai", "--base-url", server.url, "--model", "scripted",
            "--out", str(tmp_path), "--format", "json"]
    assert main(argv) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["mediator"], r["parties"]) for r in rows] == [("none", "llm"), ("social", "llm")]
    assert all(r["llm_decisions"] > 0 and r["llm_fallbacks"] == 0 for r in rows)
    records = [json.loads(line) for path in sorted((tmp_path / "negotiation").glob("*.jsonl"))
               for line in path.read_text().splitlines()]
    assert all("parties" in rec["llm_stats"] for rec in records)
    n = len(server.requests)
    assert main(argv) == 0 and json.loads(capsys.readouterr().out) == rows and len(server.requests) == n


def test_llm_parties_need_a_model(tmp_path, capsys):
    assert main(["negotiation", "--parties", "llm", "--out", str(tmp_path)]) == 2
    assert "--model" in capsys.readouterr().err
