"""``--protocol authors`` for the LLM answerer, end to end on the scripted loopback server (and once
on the tiny vLLM model): the release's message layout in the published option order, with our
prompts or the texts read from an evaluation script in the release's layout (our bundled sample
script here; the release's own with ``TOM_ENVS_PERSUASION_RELEASE``), named in ``prompt_source``;
its answer rule, bounded and counted re-samples at T = 0.7; the lenient reply forms in both
protocols; the caller's public hooks (whole messages, re-ask temperature)."""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
from pathlib import Path

import gymnasium as gym
import pytest

from benchmarks.persuasion import benchmark as pers_bench
from benchmarks.errors import RunnerError
from policies.llm.caller import Ask, Caller
from policies.llm.errors import ReplyError
from policies.llm.qa import LLMQAAnswerer
from policies.persuasion.qa_protocol import AuthorsProtocol, authors_messages
from tom_envs.persuasion import SAMPLE_DATA_DIR
from tom_envs.persuasion.prompts import OUR_PROMPTS, RELEASE_PROMPT_PATH, PromptFileError, read_authors_prompts

RELEASE = os.environ.get("TOM_ENVS_PERSUASION_RELEASE")
SAMPLE_SCRIPT = SAMPLE_DATA_DIR / RELEASE_PROMPT_PATH

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
    return [
        "--policy",
        "llm",
        "--backend",
        "openai",
        "--base-url",
        server.url,
        "--model",
        "x",
        "--repetitions",
        "1",
        "--out",
        str(tmp_path),
        *extra,
    ]


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
        assert r["prompt_source"] == "ours" and r["prompt_file"] is None
        assert r["accuracy"] == pytest.approx(share_of("A", data[r["qtype"]])), r
        assert r["parse_rules"] == {"authors": r["n"]} and r["parse_failures"] == r["fallbacks"] == 0
    by_question = {}
    for rec in data.values():
        for q in rec:
            by_question.setdefault(q["question"], []).append(q)
    for body in server.requests:
        system, user = body["messages"]
        assert system == {"role": "system", "content": OUR_PROMPTS.system["zero_shot"]}
        assert user["content"].startswith("\nDialogue:\n") and user["content"].endswith("\nAnswer:")
        assert body["temperature"] == 0.7 and body["max_tokens"] == 500
        question = user["content"].split("\nQuestion:\n", 1)[1].split("\nOptions:", 1)[0]
        shown = [line[3:] for line in user["content"].split("\nOptions:\n", 1)[1].splitlines()[:-1]]
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


def test_letters_beyond_the_options_are_answered_and_scored_wrong_as_the_authors_script_does(server, tmp_path, capsys):
    server.box["reply"] = "D"  # desire_ee has three options; the sample's env has six option slots
    row = cli(capsys, *llm_argv(server, tmp_path, "--protocol", "authors", "--qtypes", "desire_ee,intent_er"))[1]
    assert row["qtype"] == "desire_ee" and row["accuracy"] == 0.0 and row["invalid_answers"] == row["n"]
    # judge_qa alone has two options: the authors' protocol still gives the env six slots (letters A-F), so
    # "F" is one request per question, answered and scored wrong -- never re-asked until the run aborts
    server.box["reply"] = "F"
    before = len(server.requests)
    (row,) = cli(
        capsys,
        *llm_argv(
            server,
            tmp_path / "f",
            "--protocol",
            "authors",
            "--qtypes",
            "judge_qa",
            "--max-resamples",
            "1",
            "--fallback",
            "raise",
        ),
    )
    assert row["accuracy"] == 0.0 and row["invalid_answers"] == row["n"] and row["fallbacks"] == 0
    assert row["parse_failures"] == 0 and row["parse_rules"] == {"authors": row["n"]}
    assert len(server.requests) - before == row["n"]


def test_unreadable_replies_are_re_sampled_at_0_7_bounded_and_counted():
    replies = iter(["I think so", "Hard to say, really", "B"])
    with scripted_backend(lambda content, seed: next(replies)) as (server, backend):
        answerer = LLMQAAnswerer(
            backend, protocol=AuthorsProtocol(OUR_PROMPTS), scoring=False, temperature=0.0, max_resamples=2
        )
        answerer.reset(0)
        obs, info = gym.make("tom/PersuasiveToM-v1", shuffle_choices=False).reset(seed=0)
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
    assert message["role"] == "user"
    assert message["content"].startswith(OUR_PROMPTS.system["zero_shot"] + "\n\nDialogue")


def test_cot_under_the_authors_protocol_reads_the_answer_is_line(server, tmp_path, capsys):
    server.box["reply"] = "Let's see. John hesitates.\nThe answer is B."
    rows = cli(capsys, *llm_argv(server, tmp_path, "--protocol", "authors", "--qa-mode", "cot", "--qtypes", "judge_qa"))
    assert rows[0]["accuracy"] == pytest.approx(share_of("B", raw()["judge_qa"]))
    system, user = server.requests[-1]["messages"]
    assert system["content"] == OUR_PROMPTS.system["cot"] and user["content"].endswith(OUR_PROMPTS.answer_cue["cot"])
    assert user["content"].startswith(OUR_PROMPTS.preamble + "\nDialogue:\n")


def test_the_authors_messages_are_built_from_the_observation():
    obs = {"question": "Q?", "choices": ("Yes", "No", ""), "n_choices": 2, "context": "A says: hi\nB says: no"}
    (system, user) = authors_messages(obs, "zero_shot", OUR_PROMPTS)
    assert user["content"] == "\nDialogue:\nA says: hi\nB says: no\n\nQuestion:\nQ?\nOptions:\nA. Yes\nB. No\nAnswer:"
    assert system == {"role": "system", "content": OUR_PROMPTS.system["zero_shot"]}
    sample = read_authors_prompts(SAMPLE_SCRIPT)
    (system, user) = authors_messages(obs, "cot", prompts=sample)
    assert system["content"] == sample.system["cot"]
    assert user["content"] == (
        sample.preamble + "\nConversation so far:\nA says: hi\nB says: no\n\nAsked:\nQ?"
        "\nPick one:\n(A) Yes\n(B) No\nLetter: step by step."
    )


def test_prompts_read_from_a_script_are_sent_and_named(server, tmp_path, capsys):
    sample = read_authors_prompts(SAMPLE_SCRIPT)
    server.box["reply"] = "(B)"  # the sample script's option form: read by the lenient rule
    rows = cli(
        capsys,
        *llm_argv(
            server,
            tmp_path,
            "--protocol",
            "authors",
            "--qtypes",
            "judge_qa",
            "--authors-prompts",
            str(SAMPLE_SCRIPT),
            "--policy",
            "llm,always-first",
        ),
    )
    llm, first = rows
    assert llm["prompt_source"] == "file" and llm["prompt_file"] == str(SAMPLE_SCRIPT)
    assert first["policy"] == "always-first" and first["prompt_source"] is None and first["prompt_file"] is None
    assert llm["accuracy"] == pytest.approx(share_of("B", raw()["judge_qa"]))
    assert llm["parse_rules"] == {"lenient": llm["n"]}
    system, user = server.requests[-1]["messages"]
    assert system["content"] == sample.system["zero_shot"] and user["content"].startswith("\nConversation so far:\n")
    assert user["content"].endswith(("\n(A) Yes\n(B) No\nLetter:", "\n(A) No\n(B) Yes\nLetter:"))
    # found next to --data-dir (where the download puts it); the table names it
    data = tmp_path / "data"
    shutil.copytree(SAMPLE_DATA_DIR, data)
    parser = argparse.ArgumentParser()
    pers_bench.add_arguments(parser)
    argv = llm_argv(
        server, tmp_path / "second", "--protocol", "authors", "--qtypes", "judge_qa", "--data-dir", str(data)
    )
    assert pers_bench.run(parser.parse_args(argv)) == 0
    table = capsys.readouterr().out
    assert f"llm prompts: file -- read from {data / RELEASE_PROMPT_PATH}, a script in the release's layout" in table
    assert server.requests[-1]["messages"][0]["content"] == sample.system["zero_shot"]
    (data / RELEASE_PROMPT_PATH).unlink()
    assert pers_bench.run(parser.parse_args(argv)) == 0
    assert "llm prompts: ours -- our prompts (no release evaluation/evaluate.py" in capsys.readouterr().out
    assert server.requests[-1]["messages"][0]["content"] == OUR_PROMPTS.system["zero_shot"]


def test_results_under_different_prompts_are_kept_apart(server, tmp_path, capsys):
    argv = llm_argv(server, tmp_path, "--protocol", "authors", "--qtypes", "judge_qa")
    cli(capsys, *argv)
    cli(capsys, *argv, "--authors-prompts", str(SAMPLE_SCRIPT))
    assert len(list((tmp_path / "persuasion").glob("*.jsonl"))) == 2
    before = len(server.requests)
    cli(capsys, *argv, "--authors-prompts", str(SAMPLE_SCRIPT))  # resumed: nothing asked again
    assert len(server.requests) == before


def test_bad_prompt_options_are_named_errors(server, tmp_path, tmp_path_factory):
    parser = argparse.ArgumentParser()
    pers_bench.add_arguments(parser)
    with pytest.raises(pers_bench.PersuasionBenchmarkError, match="--authors-prompts applies to --protocol authors"):
        pers_bench.run(parser.parse_args([*llm_argv(server, tmp_path), "--authors-prompts", str(SAMPLE_SCRIPT)]))
    with pytest.raises(PromptFileError, match="no evaluation script"):
        pers_bench.run(
            parser.parse_args(
                [
                    *llm_argv(server, tmp_path, "--protocol", "authors"),
                    "--authors-prompts",
                    str(tmp_path / "missing.py"),
                ]
            )
        )
    bad = tmp_path_factory.mktemp("bad") / "evaluation"
    bad.mkdir()
    (bad / "evaluate.py").write_text("print('hi')\n", encoding="utf-8")
    shutil.copy(SAMPLE_DATA_DIR / "judge_qa.json", bad.parent / "judge_qa.json")
    with pytest.raises(PromptFileError, match="not recognised"):  # a broken script next to the data is not skipped
        pers_bench.run(
            parser.parse_args([*llm_argv(server, tmp_path, "--protocol", "authors"), "--data-dir", str(bad.parent)])
        )


def test_the_caller_sends_whole_messages_and_re_asks_at_its_own_temperature():
    replies = iter(["no", "7"])

    def parse(text: str) -> int:
        if not text.isdigit():
            raise ReplyError("a number, please")
        return int(text)

    with scripted_backend(lambda content, seed: next(replies)) as (server, backend):
        caller = Caller(
            backend, max_resamples=1, temperature=0.0, max_tokens=4, reask_note=" ({error})", resample_temperature=0.9
        )
        messages = [{"role": "system", "content": "S"}, {"role": "user", "content": "U"}]
        (answer,) = caller.ask("n", [Ask("U", parse, None, None, messages)])
        assert answer.value == 7 and answer.failures == 1
        first, second = server.requests
        assert first["messages"] == messages and first["temperature"] == 0.0
        assert second["messages"] == [messages[0], {"role": "user", "content": "U (a number, please)"}]
        assert second["temperature"] == 0.9 and messages[1]["content"] == "U"
    with scripted_backend(lambda content, seed: "x") as (server, backend):
        assert Caller(backend, max_tokens=4).text("t", [Ask("U", messages=messages)]) == ["x"]
        assert server.requests[0]["messages"] == messages and server.requests[0]["temperature"] == 0.7


@pytest.mark.skipif(not RELEASE, reason="set TOM_ENVS_PERSUASION_RELEASE to a clone of the release")
def test_on_the_release_the_release_s_prompts_are_found_and_named(server, tmp_path, capsys):
    data = Path(RELEASE) / "data"
    rows = cli(
        capsys,
        *llm_argv(
            server, tmp_path, "--protocol", "authors", "--qtypes", "judge_qa", "--data-dir", str(data), "--split", "dev"
        ),
    )
    (row,) = rows
    assert row["prompt_source"] == "release" and row["prompt_file"] == str(Path(RELEASE) / RELEASE_PROMPT_PATH)
    release = read_authors_prompts(Path(RELEASE) / RELEASE_PROMPT_PATH)
    system, user = server.requests[-1]["messages"]
    assert system["content"] == release.system["zero_shot"]
    assert user["content"].endswith(release.answer_cue["zero_shot"])


@pytest.mark.slow
def test_tiny_model_under_the_authors_protocol(openai_server, tmp_path, capsys):
    argv = [
        "--policy",
        "llm",
        "--backend",
        "openai",
        "--base-url",
        openai_server,
        "--model",
        "tiny",
        "--split",
        "dev",
        "--qtypes",
        "desire_ee,judge_qa",
        "--repetitions",
        "1",
        "--out",
        str(tmp_path),
        "--protocol",
        "authors",
        "--max-tokens",
        "8",
        "--max-resamples",
        "1",
        "--fallback",
        "random",
    ]
    rows = cli(capsys, *argv)
    assert [r["n"] for r in rows] == [4, 3]
    for r in rows:
        assert r["protocol"] == "authors" and r["parse_failures"] == r["resamples"] + r["fallbacks"]
        assert sum(r["parse_rules"].values()) == r["n"] and 0.0 <= r["accuracy"] <= 100.0
    (path,) = (tmp_path / "persuasion").glob("*.jsonl")
    (record,) = [json.loads(line) for line in path.read_text().splitlines()]
    assert all(
        a["parse_rule"] == "fallback" if a["fallback"] else a["parse_rule"] in ("authors", "lenient")
        for a in record["answers"]
    )
    print(
        "tiny model, authors protocol:", [(r["qtype"], r["accuracy"], r["parse_rules"], r["resamples"]) for r in rows]
    )


def test_authors_rows_say_which_request_parameters_were_set(server, tmp_path, capsys):
    server.box["reply"] = "A"
    (row,) = cli(capsys, *llm_argv(server, tmp_path, "--protocol", "authors", "--qtypes", "judge_qa"))
    # exactly the release's request (evaluation/evaluate.py): temperature and cap, no seed
    assert row["request"] == {"temperature": 0.7, "max_tokens": 500}
    assert row["set_by_user"] == [] and row["beyond_authors"] == []
    assert {b["max_tokens"] for b in server.requests} == {500} and {b["temperature"] for b in server.requests} == {0.7}
    assert not any("seed" in b for b in server.requests)
    (row,) = cli(
        capsys, *llm_argv(server, tmp_path / "t", "--protocol", "authors", "--qtypes", "judge_qa", "--max-tokens", "32")
    )
    assert row["set_by_user"] == ["max_tokens"] and row["beyond_authors"] == ["max_tokens"]
    (row,) = cli(capsys, *llm_argv(server, tmp_path / "o", "--qtypes", "judge_qa"))
    assert "request" not in row  # our protocol makes no claim to the authors' parameters
