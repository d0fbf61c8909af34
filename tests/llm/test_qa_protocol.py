"""``--protocol authors`` for the LLM answerer, end to end on the scripted loopback server (and once
on the tiny vLLM model): the release's messages in the published option order, its answer rule,
bounded and counted re-samples at T = 0.7; the lenient reply forms in both protocols."""

from __future__ import annotations

import argparse
import ast
import json

import gymnasium as gym
import pytest

from benchmarks import persuasion as pers_bench
from benchmarks.errors import RunnerError
from policies.llm.qa import AUTHORS_SYSTEM, LLMQAAnswerer, authors_messages
from tom_envs.persuasion import SAMPLE_DATA_DIR

from .scripted_server import ScriptedServer, scripted_backend


def raw() -> dict[str, list[dict]]:
    out = {}
    for path in sorted(SAMPLE_DATA_DIR.glob("*.json")):
        records = json.loads(path.read_text(encoding="utf-8"))
        for rec in records:
            if isinstance(rec["choices"], str):
                rec["choices"] = ast.literal_eval(rec["choices"])
        out[path.stem] = records
    return out


def share_of(letter: str, records: list[dict]) -> float:
    return 100.0 * sum(r["answerKey"] == letter for r in records) / len(records)


def cli(capsys, *argv: str) -> list[dict]:
    parser = argparse.ArgumentParser()
    pers_bench.add_arguments(parser)
    assert pers_bench.run(parser.parse_args([*argv, "--format", "json"])) == 0
    return json.loads(capsys.readouterr().out)


def llm_argv(server: ScriptedServer, tmp_path, *extra: str) -> list[str]:
    return ["--policy", "llm", "--backend", "openai", "--base-url", server.url, "--model", "x", "--repetitions", "1",
            "--out", str(tmp_path), *extra]


@pytest.fixture
def server():
    box = {"reply": "A"}
    srv = ScriptedServer(lambda content, seed: box["reply"])
    srv.box = box
    yield srv
    srv.close()


def test_an_always_A_model_under_the_authors_protocol_scores_the_share_of_A(server, tmp_path, capsys):
    rows = cli(capsys, *llm_argv(server, tmp_path, "--protocol", "authors"))
    data = raw()
    for r in rows:
        assert r["protocol"] == "authors" and r["scoring"] is False
        assert r["accuracy"] == pytest.approx(share_of("A", data[r["qtype"]])), r
        assert r["parse_rules"] == {"authors": r["n"]} and r["parse_failures"] == r["fallbacks"] == 0
    by_question = {}
    for rec in data.values():
        for q in rec:
            by_question.setdefault(q["question"], []).append(q)
    for body in server.requests:
        system, user = body["messages"]
        assert system == {"role": "system", "content": AUTHORS_SYSTEM["zero_shot"]}
        assert user["content"].startswith("\nDialogue History:\n") and user["content"].endswith("\nAnswer:")
        assert body["temperature"] == 0.7 and body["max_tokens"] == 500
        question = user["content"].split("\nQuestion:\n", 1)[1].split("\nChoices:", 1)[0]
        shown = [line[3:] for line in user["content"].split("\nChoices:\n", 1)[1].splitlines()[:-1]]
        assert any(shown == q["choices"] for q in by_question[question])  # the published order
    assert len(server.requests) == sum(len(v) for v in data.values())


@pytest.mark.parametrize("reply, rule", [("(A)", "lenient"), ("The answer is A", "lenient"), ("A. Yes", "authors")])
def test_lenient_forms_are_read_in_the_authors_protocol_and_counted(server, tmp_path, capsys, reply, rule):
    server.box["reply"] = reply
    rows = cli(capsys, *llm_argv(server, tmp_path, "--protocol", "authors", "--qtypes", "desire_ee,judge_qa"))
    data = raw()
    for r in rows:
        assert r["parse_rules"] == {rule: r["n"]} and r["accuracy"] == pytest.approx(share_of("A", data[r["qtype"]]))


@pytest.mark.parametrize("reply", ["A", "A.", "A. Yes", "(A)", "The answer is A"])
def test_our_protocol_reads_the_same_forms(server, tmp_path, capsys, reply):
    server.box["reply"] = reply
    rows = cli(capsys, *llm_argv(server, tmp_path, "--qtypes", "judge_qa"))
    assert rows[0]["protocol"] == "ours" and rows[0]["parse_rules"] == {"ours": rows[0]["n"]}
    assert rows[0]["parse_failures"] == 0


def test_letters_beyond_the_options_are_wrong_or_re_asked(server, tmp_path, capsys):
    server.box["reply"] = "D"  # desire_ee has three options; the sample's env has six option slots
    row = cli(capsys, *llm_argv(server, tmp_path, "--protocol", "authors", "--qtypes", "desire_ee,intent_er"))[1]
    assert row["qtype"] == "desire_ee" and row["accuracy"] == 0.0 and row["invalid_answers"] == row["n"]
    server.box["reply"] = "F"  # with three option slots only: re-asked, then the flagged random fallback
    rows = cli(capsys, *llm_argv(server, tmp_path / "f", "--protocol", "authors", "--qtypes", "desire_ee",
                                 "--max-resamples", "1", "--fallback", "random"))
    assert rows[0]["fallbacks"] == rows[0]["n"] and rows[0]["parse_failures"] == 2 * rows[0]["n"]
    assert rows[0]["parse_rules"] == {"fallback": rows[0]["n"]}


def test_unreadable_replies_are_re_sampled_at_0_7_bounded_and_counted():
    replies = iter(["I think so", "Hard to say, really", "B"])
    with scripted_backend(lambda content, seed: next(replies)) as (server, backend):
        answerer = LLMQAAnswerer(backend, protocol="authors", scoring=False, temperature=0.0, max_resamples=2)
        answerer.reset(0)
        obs, info = gym.make("tom/PersuasiveToM-v0", shuffle_choices=False).reset(seed=0)
        assert answerer.act(obs, info) == 1
        assert [b["temperature"] for b in server.requests] == [0.0, 0.7, 0.7]
        log = answerer.last_step_log()[0]
        assert log["parse_failures"] == 2 and log["parse_rule"] == "authors" and not log["fallback"]


def test_the_authors_protocol_refuses_scoring_and_merges_the_system_message_for_gemma(server, tmp_path, capsys):
    parser = argparse.ArgumentParser()
    pers_bench.add_arguments(parser)
    with pytest.raises(RunnerError, match="--protocol authors generates replies"):
        pers_bench.run(parser.parse_args([*llm_argv(server, tmp_path, "--protocol", "authors"), "--scoring"]))
    argv = llm_argv(server, tmp_path, "--protocol", "authors", "--qtypes", "judge_qa")
    argv[argv.index("x")] = "google/gemma-2-9b-it"
    cli(capsys, *argv)
    (message,) = server.requests[-1]["messages"]
    assert message["role"] == "user" and message["content"].startswith(AUTHORS_SYSTEM["zero_shot"] + "\n\nDialogue")


def test_cot_under_the_authors_protocol_reads_the_answer_is_line(server, tmp_path, capsys):
    server.box["reply"] = "Let's see. John hesitates.\nThe answer is B."
    rows = cli(capsys, *llm_argv(server, tmp_path, "--protocol", "authors", "--qa-mode", "cot", "--qtypes", "judge_qa"))
    assert rows[0]["accuracy"] == pytest.approx(share_of("B", raw()["judge_qa"]))
    system, user = server.requests[-1]["messages"]
    assert system["content"] == AUTHORS_SYSTEM["cot"] and user["content"].endswith("Answer: Let's think step by step.")


def test_the_authors_messages_are_built_from_the_observation():
    obs = {"question": "Q?", "choices": ("Yes", "No", ""), "n_choices": 2, "context": "A says: hi\nB says: no"}
    (system, user) = authors_messages(obs, "zero_shot")
    assert user["content"] == ("\nDialogue History:\nA says: hi\nB says: no\n\nQuestion:\nQ?\nChoices:\nA. Yes\nB. No"
                               "\nAnswer:")


@pytest.mark.slow
def test_tiny_model_under_the_authors_protocol(openai_server, tmp_path, capsys):
    argv = ["--policy", "llm", "--backend", "openai", "--base-url", openai_server, "--model", "tiny", "--split", "dev",
            "--qtypes", "desire_ee,judge_qa", "--repetitions", "1", "--out", str(tmp_path), "--protocol", "authors",
            "--max-tokens", "8", "--max-resamples", "1", "--fallback", "random"]
    rows = cli(capsys, *argv)
    assert [r["n"] for r in rows] == [4, 3]
    for r in rows:
        assert r["protocol"] == "authors" and r["parse_failures"] == r["resamples"] + r["fallbacks"]
        assert sum(r["parse_rules"].values()) == r["n"] and 0.0 <= r["accuracy"] <= 100.0
    (path,) = (tmp_path / "persuasion").glob("*.jsonl")
    (record,) = [json.loads(line) for line in path.read_text().splitlines()]
    assert all(a["parse_rule"] == "fallback" if a["fallback"] else a["parse_rule"] in ("authors", "lenient")
               for a in record["answers"])
    print("tiny model, authors protocol:", [(r["qtype"], r["accuracy"], r["parse_rules"], r["resamples"])
                                            for r in rows])
