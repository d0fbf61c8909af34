"""Issue 28 with LLM parties on the scripted loopback server: an agreement on an option a party blocks is
never full consensus, stances on a party's own blocked option are counted, the LLM parties' thoughts,
motivation and turn-allocation predictions are in the record, and ``--agreement llm`` reaches the
LLM agreement judge."""

from __future__ import annotations

import json

import pytest

from benchmarks.__main__ import main
from benchmarks.negotiation.cells import level_env_id
from benchmarks.runner_aec import play_aec
from benchmarks.runner_envs import make_env
from policies.negotiation.llm import LLMParty, PartyTeam
from policies.negotiation.scripted import NoAgentMediator
from tom_envs.negotiation.env import MEDIATOR
from wrappers import AECTextObservation

from .scripted_server import scripted_backend
from .test_negotiation_llm import SCENARIO, scripted_reply

# Formulary status (c): Dr. Morgan Hale blocks it (tom_envs/negotiation/scenarios/hopkins_hmo.json)
TOPIC = "Formulary status"
BLOCKED = "c"


def blocked_reply(content: str, seed: int) -> str:
    """The loopback replies, except that every thought argues for the blocked option."""
    if "Form up to" in content and "private thoughts" in content:
        return json.dumps(
            {
                "thoughts": [
                    {"content": f"{TOPIC} should be ({BLOCKED}).", "topic": TOPIC, "option": BLOCKED, "stimuli": []}
                    for _ in range(2)
                ]
            }
        )
    return scripted_reply(content, seed)


@pytest.fixture
def blocked():
    with scripted_backend(blocked_reply) as pair:
        yield pair


def test_llm_parties_agreeing_on_a_blocked_option_is_not_full_consensus(blocked):
    _, backend = blocked
    k = [t.name for t in SCENARIO.topics].index(TOPIC)
    blocker = next(p.name for i, p in enumerate(SCENARIO.parties) if SCENARIO.blocks(i, k, 2))
    env = AECTextObservation(
        make_env(level_env_id("medium", 1), record=False, scenario=SCENARIO, party_seats="all", turn_budget=30)
    )
    parties = {
        seat: LLMParty(backend, SCENARIO, fallback="raise", strategy="release")
        for seat in env.possible_agents
        if seat != MEDIATOR
    }
    team = PartyTeam(env, parties)
    ep = play_aec(env, {**team.seats(), MEDIATOR: NoAgentMediator()}, 3).info["episode"]
    assert all(row[TOPIC] == BLOCKED for row in ep["final_attitudes"].values())  # every party said (c) ...
    assert ep["agreed"][TOPIC] == BLOCKED and ep["blocked_agreements"] == 1  # ... on an option one party blocks
    assert ep["topic_consensus"][TOPIC][-1] < 1.0 and ep["deals"] == 0
    assert {s["party"] for s in ep["blocked_stances"] if s["topic"] == TOPIC} == {blocker}
    # the LLM parties' side of every turn: thoughts, motivation scores, the predicted next speaker
    assert team.log and all(set(entry["parties"]) == set(SCENARIO.party_names) for entry in team.log)
    first = next(iter(team.log[1]["parties"].values()))
    assert first["thoughts"] and first["scores"] and "allocated" in first
    json.dumps(team.log)


def test_benchmark_records_party_logs_and_reaches_the_llm_agreement_judge(blocked, tmp_path, capsys):
    server, _ = blocked
    argv = [
        "negotiation",
        "--parties",
        "llm",
        "--agreement",
        "llm",
        "--policy",
        "none",
        "--mode",
        "medium",
        "--scenarios",
        "hopkins_hmo",
        "--episodes",
        "1",
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
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["blocked_agreements"] >= 0 and rows[0]["deals"] is not None
    assert rows[0]["llm_fallbacks_by"]["agreement"]["decisions"] > 0 and not rows[0]["llm_all_random"]
    path = next((tmp_path / "negotiation").glob("*.jsonl"))
    rec = json.loads(path.read_text().splitlines()[0])
    assert rec["episode"]["party_log"] and rec["episode"]["transcript"]
    assert "agreement" in rec["llm_stats"]
    assert any("Rate how far these two parties agree" in r["messages"][-1]["content"] for r in server.requests)
