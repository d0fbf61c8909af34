"""``tom-envs crossplay`` with LLM agents on the seated ids (docs/crossplay.md): an LLM persuader and an LLM persuadee
join two-seat persuasion, an LLM social mediator joins negotiation; the real OpenAI backend talks to a loopback
scripted server; both seats' literal ToM is kept where an LLM predicts, and a rerun sends no request."""

from __future__ import annotations

import json
import zlib

import pytest

from tests.llm.scripted_server import ScriptedServer
from tom_envs.negotiation.scenario import resolve_scenario

SCENARIO = resolve_scenario("hopkins_hmo")


def reply(content: str, seed: int | None) -> str:
    """Well-formed replies for the persuasion seats and the social mediator, varying with the seed."""
    r = (seed or 0) ^ zlib.crc32(content[-200:].encode())
    if "Desire: no | considering" in content:  # the persuader: its guess of the persuadee's mind, then a line
        return (
            f"Desire: {('no', 'considering')[r % 2]}\nBelief: {('trusting', 'wary')[r // 2 % 2]}\n"
            f"Intention: {('cost', 'timing', 'fit', 'doubt', 'effort')[r % 5]}\n"
            "Line: It is free for you, and everyone I know has done it."
        )
    if "Tone: flat | cold | warm | agree" in content:  # the persuadee: a reply and its guess of the next principle
        return (
            f"Tone: {('flat', 'cold', 'warm')[r % 3]}\nConcern: {('none', 'cost', 'timing')[r % 3]}\n"
            f"Next: {('reciprocity', 'scarcity', 'consensus', 'authority', 'commitment', 'liking')[r % 6]}\n"
            "Say: I am not sure yet."
        )
    if "estimate what each party privately prefers" in content:
        return json.dumps(
            {
                "predictions": {
                    p.name: {t.name: t.options[r % len(t.options)].label for t in SCENARIO.topics}
                    for p in SCENARIO.parties
                }
            }
        )
    if '{"intervene": false} to stay silent' in content:
        if r % 3:
            return json.dumps({"intervene": False})
        return json.dumps(
            {
                "intervene": True,
                "strategy": "problem_solving",
                "topic": SCENARIO.topics[r % len(SCENARIO.topics)].name,
                "target": SCENARIO.parties[r % len(SCENARIO.parties)].name,
                "utterance": "Could we try a package?",
            }
        )
    return "I do not know."


def _run(main, capsys, argv: list[str], server: ScriptedServer) -> tuple[dict, int]:
    assert main(argv) == 0
    rows = json.loads(capsys.readouterr().out)
    asked = len(server.requests)
    assert main(argv) == 0  # a rerun resumes: every episode is on file, no request is sent
    capsys.readouterr()
    assert len(server.requests) == asked
    return rows, asked


@pytest.mark.slow  # 98 LLM-seated persuasion episodes and 24 negotiation episodes over loopback HTTP (~30 s)
def test_llm_agents_join_each_seat_and_predict(tmp_path, capsys, monkeypatch):
    from benchmarks.__main__ import main

    monkeypatch.setenv("TOM_ENVS_POLICY_ENTROPY", "11")
    server = ScriptedServer(reply)
    llm = [
        "--learner-steps",
        "0",
        "--backend",
        "openai",
        "--base-url",
        server.url,
        "--model",
        "scripted",
        "--max-resamples",
        "1",
        "--episodes",
        "2",
        "--format",
        "json",
    ]
    try:
        pers, asked = _run(
            main,
            capsys,
            ["crossplay", "--env", "tom/Persuasion-TwoSeat-v1", "--horizon", "2", *llm, "--out", str(tmp_path / "p")],
            server,
        )
        neg, _ = _run(
            main,
            capsys,
            ["crossplay", "--env", "tom/Negotiation-v1", "--horizon", "20", *llm, "--out", str(tmp_path / "n")],
            server,
        )
    finally:
        server.close()
    seats = {r["agent"]: r.get("seat") for r in pers["ratings"]}
    assert seats["llm_persuader"] == "persuader_0" and seats["llm_persuadee"] == "persuadee_0" and len(seats) == 14
    assert len(pers["pairings"]) == 7 * 7
    both = next(p for p in pers["pairings"] if (p["row"], p["col"]) == ("llm_persuader", "llm_persuadee"))
    assert both["row_tom"] is not None and both["col_tom"] is not None  # literal ToM both ways
    assert asked > 0
    record = json.loads(
        next((tmp_path / "p" / "crossplay").glob("*_llm_persuader_vs_persona_busy_*.jsonl")).read_text().splitlines()[0]
    )
    assert record["cell"]["row"]["identity"]["model"] == "scripted"
    counted = record["episode"]["policy_stats"]["persuader_0"]  # this episode's requests, not the run's so far
    assert (
        counted["decisions"] == record["episode"]["rounds"] and "persuadee_0" not in record["episode"]["policy_stats"]
    )
    rated = {r["agent"]: r for r in neg["ratings"]}
    assert rated["llm_social"]["seat"] == "mediator_0" and rated["llm_social"]["tom"] is not None
    assert [p["col"] for p in neg["pairings"] if p["row"] == "llm_social"] == [
        "parties_accommodating",
        "parties_avoiding",
        "parties_general",
        "parties_competing",
    ]
