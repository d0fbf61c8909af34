"""``--policy llm`` in the persuasion and common-ground benchmark commands.

End to end through the command line on a scripted loopback OpenAI-shaped server (its answers are
a fixed rule, so the expected accuracy is computed here from the raw data files), resuming from
the JSONL records, and once on the real tiny vLLM engine behind vLLM's OpenAI-compatible server.
"""

from __future__ import annotations

import argparse
import ast
import csv
import gzip
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.common_ground import benchmark as cg_bench
from benchmarks.persuasion import benchmark as pers_bench
from benchmarks.matrix.benchmark import ResultsFileWarning, RunnerError
from tom_envs.common_ground import SAMPLE_DATA_DIR as CG_SAMPLE
from tom_envs.persuasion import SAMPLE_DATA_DIR as PERSUASION_SAMPLE
from tom_envs.qa import LETTERS

from .scripted_server import ScriptedServer

OPTION_LINE = re.compile(r"^([A-J])\. (.*)$", re.MULTILINE)
LLM_KEYS = {
    "model",
    "model_identity",
    "qa_mode",
    "scoring",
    "parse_failures",
    "resamples",
    "fallbacks",
    "llm_retries",
    "llm_http_4xx",
    "llm_http_5xx",
    "llm_timeout",
    "llm_connection",
    "llm_invalid_reply",
}
#: The persuasion llm rows also say which rule read each answer and how many letters named no option shown.
PERSUASION_LLM_KEYS = LLM_KEYS | {"parse_rules", "invalid_answers"}


def rule_answer(content: str) -> str:
    """The scripted model's rule: the option whose text sorts first (it ignores the order shown)."""
    block = content.split("\nOptions:\n", 1)[1].split("\n\n", 1)[0]
    options = OPTION_LINE.findall(block)
    letter, _ = min(options, key=lambda o: o[1])
    return f"Let me see.\nThe answer is {letter}."


@pytest.fixture
def scripted():
    server = ScriptedServer(lambda content, seed: rule_answer(content), garbage=3, bad_reply="I would rather not say.")
    yield server
    server.close()


def cli(module, capsys, *argv: str) -> list[dict]:
    parser = argparse.ArgumentParser()
    module.add_arguments(parser)
    assert module.run(parser.parse_args([*argv, "--format", "json"])) == 0
    return json.loads(capsys.readouterr().out)


# ---------------------------------------------------------------------- expected accuracies from the raw files
def persuasion_expected() -> dict[str, float]:
    """Percent of questions per type whose correct option is the one whose text sorts first."""
    out = {}
    for path in sorted(PERSUASION_SAMPLE.glob("*.json")):
        hits = []
        for rec in json.loads(path.read_text(encoding="utf-8")):
            choices = rec["choices"] if isinstance(rec["choices"], list) else ast.literal_eval(rec["choices"])
            first = min(choices)
            right = choices[LETTERS.index(rec["answerKey"])]
            # the rule picks one option text whatever the order shown; a repeated one (the release's
            # truncated distractors) is never the right option, so any copy of it is wrong
            assert choices.count(first) == 1 or right != first
            hits.append(right == first)
        out[path.stem] = 100.0 * sum(hits) / len(hits)
    return out


def common_ground_expected() -> dict[object, tuple[int, float]]:
    """(questions, percent answered "No") per order and overall: the rule always picks "No" over "Yes"."""
    rows = [
        r
        for path in sorted((CG_SAMPLE / "questions").glob("*.csv.gz"))
        for r in csv.DictReader(gzip.open(path, "rt", encoding="utf-8"))
    ]
    out = {}
    for order in ("all", 1, 2, 3):
        mine = [r for r in rows if order == "all" or int(r["order"]) == order]
        out[order] = (len(mine), 100.0 * sum(r["answer"] == "No" for r in mine) / len(mine))
    return out


# ---------------------------------------------------------------------- persuasion
def test_persuasion_llm_rows_match_the_data_and_a_rerun_resumes(scripted, tmp_path, capsys):
    argv = [
        "--env",
        "qa",
        "--policy",
        "random,llm",
        "--backend",
        "openai",
        "--base-url",
        scripted.url,
        "--model",
        "x",
        "--qa-mode",
        "cot",
        "--repetitions",
        "2",
        "--out",
        str(tmp_path),
    ]
    rows = cli(pers_bench, capsys, *argv)
    random_rows = [r for r in rows if r["policy"] == "random"]
    llm_rows = [r for r in rows if r["policy"] == "llm"]
    assert [r["qtype"] for r in llm_rows] == [r["qtype"] for r in random_rows]
    for mine, theirs in zip(llm_rows, random_rows):
        assert set(mine) == set(theirs) | PERSUASION_LLM_KEYS and mine["n"] == theirs["n"]
        assert mine["parse_rules"] == {"ours": mine["n"] * 2} and mine["invalid_answers"] == 0
    expected = persuasion_expected()
    for r in llm_rows:
        assert r["accuracy"] == pytest.approx(expected[r["qtype"]]) and r["accuracy_ci"] == 0.0, r
        assert (r["model"], r["qa_mode"], r["scoring"], r["fallbacks"]) == ("x", "cot", False, 0)
    # the three unusable replies were re-asked and counted, never turned into answers
    assert sum(r["resamples"] for r in llm_rows) == sum(r["parse_failures"] for r in llm_rows) == 3
    (path,) = (tmp_path / "persuasion").glob("qa_llm_*.jsonl")
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert sorted((r["repetition"], r["dialogue"]) for r in records) == [(r, d) for r in (0, 1) for d in "012"]
    n = len(scripted.requests)
    assert n == 2 * 90 + 3
    assert cli(pers_bench, capsys, *argv) == rows and len(scripted.requests) == n  # resumed: nothing recomputed


def test_persuasion_llm_dialogues_share_backend_calls(scripted, tmp_path, capsys):
    scripted.garbage = 0
    cli(
        pers_bench,
        capsys,
        "--policy",
        "llm",
        "--backend",
        "openai",
        "--base-url",
        scripted.url,
        "--model",
        "x",
        "--qtypes",
        "judge_qa",
        "--repetitions",
        "2",
        "--out",
        str(tmp_path),
    )
    (path,) = (tmp_path / "persuasion").glob("qa_llm_*.jsonl")
    stats = [json.loads(line)["llm_stats"] for line in path.read_text().splitlines()]
    # 3 dialogues x 2 repetitions, 3 questions each, all in lockstep: 3 calls shared by the 6 episodes
    assert [s["backend_calls"] for s in stats] == [3] * 6 and [s["questions"] for s in stats] == [3] * 6
    assert len(scripted.requests) == 18


def test_persuasion_a_truncated_record_is_recomputed_alone(scripted, tmp_path, capsys):
    scripted.garbage = 0  # so the recomputed dialogue's counters match the first run's
    argv = [
        "--policy",
        "llm",
        "--backend",
        "openai",
        "--base-url",
        scripted.url,
        "--model",
        "x",
        "--qtypes",
        "judge_qa,desire_ee",
        "--repetitions",
        "1",
        "--out",
        str(tmp_path),
    ]
    rows = cli(pers_bench, capsys, *argv)
    (path,) = (tmp_path / "persuasion").glob("qa_llm_*.jsonl")
    text = path.read_text()
    path.write_text(text[: text.rindex("\n", 0, len(text) - 1) + 20])  # a run killed while writing the last line
    n = len(scripted.requests)
    with pytest.warns(ResultsFileWarning, match="truncated"):
        again = cli(pers_bench, capsys, *argv)
    assert again == rows and len(scripted.requests) - n == 7  # one dialogue: 3 judge_qa + 4 desire_ee questions
    assert len(path.read_text().splitlines()) == 3


def test_persuasion_results_are_keyed_by_model_and_mode(scripted, tmp_path, capsys):
    base = [
        "--policy",
        "llm",
        "--backend",
        "openai",
        "--base-url",
        scripted.url,
        "--qtypes",
        "judge_qa",
        "--repetitions",
        "1",
        "--out",
        str(tmp_path),
    ]
    cli(pers_bench, capsys, *base, "--model", "x")
    cli(pers_bench, capsys, *base, "--model", "y")
    cli(pers_bench, capsys, *base, "--model", "x", "--qa-mode", "cot")
    assert len(list((tmp_path / "persuasion").glob("qa_llm_*.jsonl"))) == 3
    assert len(scripted.requests) == 3 + 3 * 9


# ---------------------------------------------------------------------- common ground
def test_common_ground_llm_rows_match_the_data_and_a_rerun_resumes(scripted, tmp_path, capsys):
    argv = [
        "--policy",
        "random,oracle-beliefs,llm",
        "--split",
        "all",
        "--backend",
        "openai",
        "--base-url",
        scripted.url,
        "--model",
        "x",
        "--qa-mode",
        "zero_shot",
        "--no-scoring",
        "--out",
        str(tmp_path),
    ]
    rows = cli(cg_bench, capsys, *argv)
    assert [r["policy"] for r in rows] == ["random"] * 4 + ["oracle-beliefs"] * 4 + ["llm"] * 4
    random_rows, llm_rows = rows[:4], rows[8:]
    expected = common_ground_expected()
    for mine, theirs in zip(llm_rows, random_rows):
        assert set(mine) == set(theirs) | LLM_KEYS and mine["order"] == theirs["order"]
        n, accuracy = expected[mine["order"]]
        assert mine["n"] == n and mine["accuracy"] == pytest.approx(accuracy), mine
    total = llm_rows[0]
    assert (total["model"], total["qa_mode"], total["scoring"]) == ("x", "zero_shot", False)
    assert (total["parse_failures"], total["resamples"], total["fallbacks"]) == (3, 3, 0)
    assert sum(r["resamples"] for r in llm_rows[1:]) == 3
    (path,) = (tmp_path / "common_ground").glob("llm_*.jsonl")
    assert sorted(json.loads(line)["cid"] for line in path.read_text().splitlines()) == [4245, 4431]
    n = len(scripted.requests)
    from tom_envs.common_ground.env import CommonToMEnv

    asked = sum(len(ep) for ep in CommonToMEnv(split="all").episodes)  # tom/CommonToM-v2: fillers are asked too
    assert n == asked + 3 and asked > expected["all"][0]
    assert cli(cg_bench, capsys, *argv) == rows and len(scripted.requests) == n  # resumed: nothing recomputed


def test_common_ground_table_reports_the_fallback_counts(scripted, tmp_path, capsys):
    parser = argparse.ArgumentParser()
    cg_bench.add_arguments(parser)
    args = parser.parse_args(
        [
            "--policy",
            "llm",
            "--split",
            "train",
            "--backend",
            "openai",
            "--base-url",
            scripted.url,
            "--model",
            "x",
            "--out",
            str(tmp_path),
        ]
    )
    assert cg_bench.run(args) == 0
    out = capsys.readouterr().out
    assert "llm (x, our prompt, zero_shot): 0 random fallbacks and 3 re-asks over 95 answers" in out


# ---------------------------------------------------------------------- bad input, lazy imports
def test_llm_policy_without_a_model_is_a_named_error(capsys, tmp_path):
    parser = argparse.ArgumentParser()
    pers_bench.add_arguments(parser)
    with pytest.raises(RunnerError, match="--model"):
        pers_bench.run(parser.parse_args(["--policy", "random,llm", "--out", str(tmp_path)]))
    with pytest.raises(RunnerError, match="--scoring applies to --qa-mode zero_shot"):
        pers_bench.run(parser.parse_args(["--policy", "llm", "--model", "m", "--qa-mode", "cot", "--scoring"]))
    parser = argparse.ArgumentParser()
    cg_bench.add_arguments(parser)
    assert cg_bench.run(parser.parse_args(["--policy", "llm", "--out", str(tmp_path)])) == 2
    assert "--policy llm needs --model" in capsys.readouterr().err
    assert not tmp_path.joinpath("persuasion").exists() and not tmp_path.joinpath("common_ground").exists()

    from benchmarks.__main__ import main

    assert main(["persuasion", "--policy", "llm", "--backend", "openai", "--model", "m"]) == 2
    assert "--base-url" in capsys.readouterr().err


def test_scripted_runs_import_no_llm_packages(tmp_path):
    code = (
        "import sys; from benchmarks.__main__ import main; "
        f"main(['persuasion', '--repetitions', '1', '--format', 'json', '--out', {str(tmp_path)!r}]); "
        f"main(['common-ground', '--format', 'json', '--out', {str(tmp_path)!r}]); "
        "sys.exit(sorted({'vllm', 'openai', 'torch'} & set(sys.modules)) or 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=Path(__file__).parents[2])
    assert done.returncode == 0, done.stderr[-2000:]


# ---------------------------------------------------------------------- the real tiny engine
@pytest.mark.slow
def test_tiny_model_through_the_cli_counts_its_fallbacks(openai_server, tmp_path, capsys):
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
    ]
    rows = cli(pers_bench, capsys, *argv, "--no-scoring", "--max-resamples", "1", "--fallback", "random")
    assert [r["n"] for r in rows] == [4, 3]
    for r in rows:  # every question: one try, or a re-ask; a fallback after a failed re-ask
        assert r["parse_failures"] == r["resamples"] + r["fallbacks"] and r["fallbacks"] <= r["resamples"] <= r["n"]
    assert sum(r["fallbacks"] for r in rows) >= 1  # a random model does not say "The answer is A"
    (path,) = (tmp_path / "persuasion").glob("qa_llm_*.jsonl")
    (record,) = [json.loads(line) for line in path.read_text().splitlines()]
    assert sum(a["fallback"] for a in record["answers"]) == sum(r["fallbacks"] for r in rows)
    # scoring through the same server: no generation, so nothing to re-ask
    scored = cli(pers_bench, capsys, *argv, "--scoring")
    assert all(r["scoring"] and r["parse_failures"] == r["fallbacks"] == 0 for r in scored)
    assert all(0.0 <= r["accuracy"] <= 100.0 for r in scored)
