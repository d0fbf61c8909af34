"""LLM parties in the negotiation benchmark: the runner's AEC loop plays them, and each turn the
parties decide together (one backend call per prompting stage), on the scripted loopback server."""

from __future__ import annotations

import json

import pytest

from benchmarks.__main__ import main
from benchmarks.negotiation.benchmark import PartyTeam
from benchmarks.negotiation.cells import level_env_id
from benchmarks.runner_aec import play_aec
from benchmarks.runner_envs import make_env
from policies.negotiation.llm import LLMMediator, LLMParty
from tom_envs.negotiation.env import MEDIATOR
from wrappers import AECTextObservation

from .scripted_server import scripted_backend
from .test_negotiation_llm import SCENARIO, scripted_reply


@pytest.fixture
def scripted():
    with scripted_backend(scripted_reply) as pair:
        yield pair


def _episode(backend, seed: int) -> tuple[dict, dict, object]:
    env = AECTextObservation(
        make_env(level_env_id("medium", 1), record=False, scenario=SCENARIO, party_seats="all", turn_budget=20)
    )
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
    argv = [
        "negotiation",
        "--parties",
        "llm",
        "--policy",
        "none,social",
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
    assert [(r["mediator"], r["parties"]) for r in rows] == [("none", "llm"), ("social", "llm")]
    assert all(r["llm_decisions"] > 0 and r["llm_fallbacks"] == 0 for r in rows)
    records = [
        json.loads(line)
        for path in sorted((tmp_path / "negotiation").glob("*.jsonl"))
        for line in path.read_text().splitlines()
    ]
    assert all("parties" in rec["llm_stats"] for rec in records)
    n = len(server.requests)
    assert main(argv) == 0 and json.loads(capsys.readouterr().out) == rows and len(server.requests) == n


def test_llm_parties_need_a_model(tmp_path, capsys):
    assert main(["negotiation", "--parties", "llm", "--out", str(tmp_path)]) == 2
    assert "--model" in capsys.readouterr().err


# --------------------------------------------------------------------------------------------- the release's loop
def _loop_episode(backend, seed: int, mode: str = "competing", budget: int = 20):
    env = AECTextObservation(
        make_env(
            level_env_id("hard", 1),
            record=False,
            scenario=SCENARIO,
            party_seats="all",
            turn_budget=budget,
            conflict_mode=mode,
        )
    )
    parties = {
        seat: LLMParty(backend, SCENARIO, fallback="raise", strategy="release")
        for seat in env.possible_agents
        if seat != MEDIATOR
    }
    team = PartyTeam(env, parties)
    from policies.negotiation.scripted import NoAgentMediator

    result = play_aec(env, {**team.seats(), MEDIATOR: NoAgentMediator()}, seed)
    return result.info["episode"], parties, env


def test_release_loop_stages_turn_taking_and_memory(scripted):
    server, backend = scripted
    summary, parties, env = _loop_episode(backend, seed=2)
    assert summary["turns"] == 20
    lead = parties["party_0"].caller
    stages = [stage for stage, _ in lead.calls]
    n = len(parties)
    # per turn: who gets the floor (not before the first line), every party's thoughts in one call, every
    # thought's motivation in one call, and only the chosen speaker's thought put into words
    assert stages[:3] == ["thought", "motivation", "articulation"]
    assert stages[3:7] == ["turn", "thought", "motivation", "articulation"]
    assert all(k == n for s, k in lead.calls if s == "thought")
    assert all(k <= 2 * n for s, k in lead.calls if s == "motivation")
    assert all(k == 1 for s, k in lead.calls if s in ("articulation", "turn"))
    speakers = [e.get("party") for e in env.unwrapped.events]
    assert all(x is not None for x in speakers) and all(a != b for a, b in zip(speakers, speakers[1:]))
    # the speaker's motivation is its thought's score (1.01 ** silence applied, clipped, one decimal)
    for p in parties.values():
        assert all(1.0 <= s <= 5.0 and round(s, 1) == s for s in p.last["scores"])
        assert p.mind.seen == len(env.unwrapped.events) - 1 and len(p.mind.stm) == p.mind.seen
        assert any(m.saliency > 0 for m in p.mind.ltm)
    # memories with saliency reach the prompts as MEM# lines, thoughts as THO# lines
    prompts = [m["content"] for req in server.requests for m in req.get("messages", []) if m["role"] == "user"]
    later = [t for t in prompts if "Form up to 2 distinct private thoughts" in t and "CON#" in t]
    assert any("MEM#" in t.split("Salient memories:")[1].split("Previous thoughts:")[0] for t in later)
    assert any("THO#" in t.split("Previous thoughts:")[1] for t in later)


def test_release_loop_parties_are_told_their_conflict_mode(scripted):
    server, backend = scripted
    from tom_envs.negotiation.render import MODE_PERSONAS

    for mode in ("competing", "accommodating"):
        server.requests.clear()
        _loop_episode(backend, seed=1, mode=mode)
        prompts = [m["content"] for req in server.requests for m in req.get("messages", []) if m["role"] == "user"]
        thoughts = [t for t in prompts if "private thoughts" in t]
        assert thoughts and all(MODE_PERSONAS[mode] in t for t in thoughts)
        other = "accommodating" if mode == "competing" else "competing"
        assert not any(MODE_PERSONAS[other] in t for t in prompts)


def test_release_loop_same_seed_same_episode(scripted):
    _, backend = scripted
    assert _loop_episode(backend, seed=5)[0] == _loop_episode(backend, seed=5)[0]


@pytest.mark.slow
def test_table_1_with_release_loop_parties_through_the_cli(scripted, tmp_path, capsys):
    server, _ = scripted
    argv = [
        "negotiation",
        "--parties",
        "llm",
        "--policy",
        "none,social",
        "--mode",
        "easy,medium,hard",
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
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "compe/social" in out and "CC ↑" in out and "Parties: LLM" in out and "SCRIPTED" not in out
    assert main([*argv, "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["conflict_mode"], r["mediator"]) for r in rows] == [
        (m, med) for m in ("accommodating", "avoiding", "general", "competing") for med in ("none", "social")
    ]
    assert all(r["parties"] == "llm" and r["llm_fallbacks"] == 0 and r["llm_decisions"] > 0 for r in rows)
    records = [
        json.loads(line)
        for path in sorted((tmp_path / "negotiation").glob("*.jsonl"))
        for line in path.read_text().splitlines()
    ]
    assert {rec["episode"]["turns"] for rec in records} == {4 * 3 * 5}  # the release's 4 x parties x topics


# --------------------------------------------------------------------------------------------- the tiny vLLM model
SMALL = {
    "name": "small_lease",
    "title": "A shop lease",
    "background": "A landlord and a tenant renew a shop lease.",
    "topics": [
        {
            "name": "Rent",
            "question": "Monthly rent?",
            "options": [{"label": "a", "text": "Same rent"}, {"label": "b", "text": "Rent up 5%"}],
        },
        {
            "name": "Term",
            "question": "How long?",
            "options": [{"label": "a", "text": "One year"}, {"label": "b", "text": "Three years"}],
        },
    ],
    "parties": [
        {
            "name": "Landlord",
            "role": "owner",
            "goal": "higher rent",
            "preferences": {"Rent": {"ranking": ["b", "a"]}, "Term": {"ranking": ["b", "a"]}},
        },
        {
            "name": "Tenant",
            "role": "shop keeper",
            "goal": "stable costs",
            "preferences": {"Rent": {"ranking": ["a", "b"]}, "Term": {"ranking": ["b", "a"]}},
        },
    ],
}


@pytest.mark.slow
def test_release_loop_parties_on_the_tiny_vllm_server_through_the_cli(openai_server, tmp_path, capsys):
    """The real vLLM server on the tiny model, through the command: a garbage reply falls back to a random
    choice at once (``--max-resamples 0``); the Table 1 run completes and counts them."""
    path = tmp_path / "small.json"
    path.write_text(json.dumps(SMALL))
    argv = [
        "negotiation",
        "--parties",
        "llm",
        "--policy",
        "social",
        "--mode",
        "hard",
        "--scenarios",
        str(path),
        "--episodes",
        "1",
        "--backend",
        "openai",
        "--base-url",
        openai_server,
        "--model",
        "tiny",
        "--fallback",
        "random",
        "--max-resamples",
        "0",
        "--max-tokens",
        "16",  # the tiny random model never stops: 256-token replies made this test minutes long
        "--out",
        str(tmp_path / "res"),
        "--format",
        "json",
    ]
    assert main(argv) == 0  # no re-ask here (the in-process test below re-asks)
    rows = json.loads(capsys.readouterr().out)
    assert [(r["mediator"], r["parties"]) for r in rows] == [("social", "llm")]
    assert all(r["llm_decisions"] > 0 and 0 < r["llm_fallbacks"] <= r["llm_decisions"] for r in rows)
    records = [
        json.loads(line)
        for p in sorted((tmp_path / "res" / "negotiation").glob("*.jsonl"))
        for line in p.read_text().splitlines()
    ]
    assert {rec["episode"]["turns"] for rec in records} == {20}  # 4 x 2 x 2 = 16, at least 20
    assert all(rec["llm_stats"]["parties"]["fallbacks"] > 0 for rec in records)


@pytest.mark.slow
def test_release_loop_parties_on_the_in_process_vllm_engine(vllm_backend, tmp_path):
    from benchmarks.negotiation.benchmark import NegotiationLLM, NegotiationRun, evaluate

    path = tmp_path / "small.json"
    path.write_text(json.dumps(SMALL))
    fast = {"max_resamples": 1, "max_tokens": 8, "temperature": 1.0}

    def factory(scenario):
        return LLMParty(vllm_backend, scenario, fallback="random", strategy="release", **fast)

    rows, records = evaluate(
        NegotiationRun(
            levels=("hard",),
            mediators=("none",),
            scenarios=(str(path),),
            runs=1,
            out=tmp_path / "res",
            parties="llm",
            llm=NegotiationLLM(party=factory),
        )
    )
    (rec,) = records[("competing", "none")]
    assert rec["episode"]["turns"] == 20 and rows[0]["parties"] == "llm"
    stats = rec["llm_stats"]["parties"]
    assert stats["decisions"] > 0 and stats["fallbacks"] > 0
