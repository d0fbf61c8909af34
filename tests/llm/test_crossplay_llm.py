"""``tom-envs crossplay`` with an LLM agent in the population (docs/crossplay.md): the shared LLM options build it,
it plays both seats against every other agent through the real OpenAI backend talking to a loopback scripted
server, and its predictions give it a literal-ToM figure in both directions."""

from __future__ import annotations

import json
import re

from tests.llm.scripted_server import ScriptedServer


def labelled(content: str, seed: int | None) -> str:
    """A deterministic model: a label of the asked list, picked by the request's seed."""
    labels = re.findall(r"one of: (.*)\.$", content.strip().splitlines()[-1])[0].split(", ")
    return f"Answer: {labels[(seed or 0) % len(labels)]}"


def test_an_llm_agent_plays_every_pairing_in_both_seats_and_predicts(tmp_path, capsys, monkeypatch):
    from benchmarks.__main__ import main

    monkeypatch.setenv("TOM_ENVS_POLICY_ENTROPY", "7")
    server = ScriptedServer(labelled)
    try:
        argv = [
            "crossplay",
            "--env",
            "tom/RPS-Parallel-v0",
            "--episodes",
            "2",
            "--horizon",
            "4",
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
            "--out",
            str(tmp_path),
            "--format",
            "json",
        ]
        assert main(argv) == 0
        rows = json.loads(capsys.readouterr().out)
        asked = len(server.requests)
        assert main(argv) == 0  # a rerun resumes: every episode is on file, no request is sent
        capsys.readouterr()
        assert len(server.requests) == asked
    finally:
        server.close()
    agents = {r["agent"]: r for r in rows["ratings"]}
    assert len(agents) == 7 and agents["llm_social_qa"]["agent_kind"] == "llm"
    llm = [p for p in rows["pairings"] if "llm_social_qa" in (p["row"], p["col"])]
    assert len(llm) == 13
    both = next(p for p in rows["pairings"] if (p["row"], p["col"]) == ("llm_social_qa", "tabular"))
    assert both["row_tom"] is not None and both["col_tom"] is not None  # literal ToM both ways
    assert asked == 2 * 2 * 4 * (12 + 2)  # predict + act, per round, episode and seat taken (12 pairings, self-play 2)
    record = json.loads(
        next((tmp_path / "crossplay").glob("tom-RPS-Parallel-v0_llm_social_qa_vs_tabular_*.jsonl"))
        .read_text()
        .splitlines()[0]
    )
    identity = record["cell"]["row"]["identity"]
    assert identity["model"] == "scripted" and identity["strategy"] == "social_qa"
    assert all(s[2] is not None for s in record["steps"])  # the LLM predicted every round
