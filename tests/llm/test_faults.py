"""Backend faults counted where they belong (issue 30): every retry of a server request (HTTP 4xx/5xx worth
retrying, timeouts, connection failures, invalid 200 replies) is counted per request by the backend
(``last_faults``), added by the caller to the request's owner (its episode), stored in the episode's record as
``llm_faults`` and summed in the rows (``llm_retries``, ...). Retries never change a result or its key.

Real components: the CLI's ``main`` and the real ``OpenAIBackend`` against a loopback server on 127.0.0.1 that
answers scripted faults (statuses, HTML bodies with HTTP 200, replies held past the client's timeout).
"""

from __future__ import annotations

import json
import re
import threading
from collections import deque
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import numpy as np
import pytest

from benchmarks.__main__ import main
from benchmarks.results import FAULTS_FIELD, fault_columns
from policies.llm import OpenAIBackend
from policies.llm.base import ChatRequest, ScoreRequest, new_faults
from policies.llm.caller import FAULT_COUNTERS, Ask, Caller, EventLog, ScoreAsk, split_faults
from policies.llm.errors import RetryBudgetExhausted
from tests.llm.scripted_server import _LoopbackServer

HANG_S = 6.0
TIMEOUT_S = 2.0


def labelled_reply(content: str, seed: int | None) -> str:
    """A deterministic model: for a prompt ending "one of: A, B, C." a label picked by the seed (one seed in four
    gets an unusable reply); for other prompts its content reversed."""
    found = re.findall(r"one of: (.*)\.$", content.strip().splitlines()[-1])
    if not found:
        return content[::-1]
    labels, seed = found[0].split(", "), seed or 0
    return "I am not sure." if seed % 4 == 0 else f"Answer: {labels[seed % len(labels)]}"


class FaultyServer(_LoopbackServer):
    """``POST /v1/chat/completions`` (replies by :func:`labelled_reply`) and ``/v1/completions`` (echo: every
    character a token of log-probability -1), with scripted faults.

    ``script`` is consumed one behaviour per attempt in arrival order: ``"ok"``, an HTTP status, ``"garbage"``
    (HTTP 200 with an HTML body) or ``"hang"`` (answered after :data:`HANG_S`, past the client's timeout).
    ``by_content`` maps the last message's content to behaviours for its successive attempts (before ``script``).
    """

    def __init__(self) -> None:
        self.script: deque = deque()
        self.by_content: dict[str, deque] = {}
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        self.released = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                chat = self.path.endswith("/chat/completions")
                content = body["messages"][-1]["content"] if chat else str(body.get("prompt"))
                with server.lock:
                    server.requests.append(body)
                    planned = server.by_content.get(content)
                    if planned:
                        behaviour = planned.popleft()
                    else:
                        behaviour = server.script.popleft() if server.script else "ok"
                try:
                    self._answer(behaviour, chat, body, content)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout)
                    pass

            def _answer(self, behaviour: object, chat: bool, body: dict, content: str) -> None:
                if behaviour == "hang":
                    server.released.wait(HANG_S)
                    behaviour = "ok"
                if behaviour == "garbage":
                    return self._send(200, b"<html><body>502 Bad Gateway</body></html>", "text/html")
                if behaviour != "ok":
                    error = {"error": {"message": f"scripted {behaviour}", "type": "test"}}
                    return self._send(int(behaviour), json.dumps(error).encode())  # type: ignore[arg-type]
                if chat:
                    payload = {
                        "id": "x",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body.get("model", ""),
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": "stop",
                                "message": {"role": "assistant", "content": labelled_reply(content, body.get("seed"))},
                            }
                        ],
                        "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8},
                    }
                else:
                    n = len(content)
                    logprobs = {
                        "tokens": list(content),
                        "text_offset": list(range(n)),
                        "token_logprobs": [None] + [-1.0] * (n - 1),
                        "top_logprobs": [None] * n,
                    }
                    payload = {
                        "id": "c",
                        "object": "text_completion",
                        "created": 0,
                        "model": body.get("model", ""),
                        "choices": [{"index": 0, "text": content, "finish_reason": "length", "logprobs": logprobs}],
                        "usage": {"prompt_tokens": n, "completion_tokens": 0, "total_tokens": n},
                    }
                self._send(200, json.dumps(payload).encode())

            def _send(self, status: int, data: bytes, content_type: str = "application/json") -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._serve(Handler)

    def close(self) -> None:
        self.released.set()
        super().close()


@pytest.fixture
def server():
    srv = FaultyServer()
    yield srv
    srv.close()


def faults(**counts: int) -> dict[str, int]:
    out = new_faults()
    out.update(counts)
    out["retries"] = sum(v for k, v in out.items() if k != "retries")
    return out


def backend(server: FaultyServer, **kwargs) -> OpenAIBackend:
    options = {"timeout": TIMEOUT_S, "max_retries": 4, "retry_budget_s": 30, "backoff_base": 0.05, **kwargs}
    return OpenAIBackend(server.url, "scripted", **options)


# --------------------------------------------------------------------------------------------- backend -> caller
def test_the_backend_counts_each_requests_retries_by_cause(server):
    server.by_content = {"a": deque([500, "garbage", 429]), "c": deque(["hang", 503])}
    with backend(server) as b:
        requests = [ChatRequest([{"role": "user", "content": c}], 8, 0.0, 1) for c in "abc"]
        replies = b.generate(requests)
        assert [r.text for r in replies] == ["a", "b", "c"]
        assert b.last_faults() == [
            faults(http_5xx=1, invalid_reply=1, http_4xx=1),
            faults(),
            faults(timeout=1, http_5xx=1),
        ]
        assert b.stats.retries == 5 and b.stats.requests == 3
        assert b.stats.faults == {"http_4xx": 1, "http_5xx": 2, "timeout": 1, "connection": 0, "invalid_reply": 1}
        b.generate(requests[1:2])  # the next call's own counts
        assert b.last_faults() == [faults()]


def test_a_scoring_prompt_shared_by_two_requests_counts_for_the_first_that_needed_it(server):
    server.script.extend([500, "garbage"])
    with backend(server, max_concurrency=1) as b:
        scores = b.score([ScoreRequest("xy", [" z"]), ScoreRequest("xy", [" z"]), ScoreRequest("pq", [" r"])])
        assert scores[0] == scores[1] == [-2.0]
        counted = b.last_faults()
    assert sum(f["retries"] for f in counted) == 2 and counted[1] == faults()  # request 1 sent nothing of its own


def test_the_caller_adds_each_requests_faults_to_its_owner_and_only_then():
    class Scripted:
        """A backend whose every call reports the given faults per request."""

        def __init__(self, per_call: list[list[dict]]) -> None:
            self.per_call, self.calls = per_call, 0

        def generate(self, requests):
            self.calls += 1
            return [type("G", (), {"text": "7", "prompt_tokens": 1, "completion_tokens": 1})() for _ in requests]

        def score(self, requests):
            self.calls += 1
            return [[-1.0] * len(r.continuations) for r in requests]

        def last_faults(self):
            return self.per_call[self.calls - 1]

    owners = [EventLog(np.random.default_rng(k)) for k in range(3)]
    b = Scripted([[faults(http_5xx=2), faults(), faults(timeout=1)], [faults(), faults(invalid_reply=1), faults()]])
    caller = Caller(b, max_tokens=4)
    asks = [Ask(f"q{k}", parse=int, owner=o) for k, o in enumerate(owners)]
    caller.ask("s", asks)
    caller.score("t", [ScoreAsk("p", [" a"], owner=o) for o in owners])
    assert {k: owners[0].stats[k] for k in ("llm_retries", "llm_http_5xx")} == {"llm_retries": 2, "llm_http_5xx": 2}
    assert "llm_timeout" in owners[2].stats and "llm_invalid_reply" in owners[1].stats
    assert not [k for k in owners[0].stats if k in ("llm_timeout", "llm_invalid_reply")]  # zeros are not written
    rest, counted = split_faults(dict(owners[2].stats))
    assert counted == faults(timeout=1) and not set(rest) & set(FAULT_COUNTERS)
    assert split_faults({"0": dict(owners[0].stats), "1": dict(owners[1].stats)})[1] == faults(
        http_5xx=2, invalid_reply=1
    )
    assert split_faults({"episodes": 3})[1] is None and split_faults(None) == (None, None)  # not a caller's counters


def test_a_request_that_keeps_timing_out_names_the_timeout_option(server):
    server.script.extend(["hang", "hang"])
    with backend(server, max_retries=1) as b, pytest.raises(RetryBudgetExhausted) as err:
        b.generate([ChatRequest([{"role": "user", "content": "x"}], 8, 0.0, 1)])
    text = str(err.value)
    assert "--max-retries" in text and "--retry-budget" in text and "--timeout" in text


# --------------------------------------------------------------------------------------------- records and rows
def matrix_argv(server: FaultyServer, out: Path, *extra: str) -> list[str]:
    return [
        "matrix",
        "--policy",
        "llm",
        "--strategies",
        "qa",
        "--backend",
        "openai",
        "--base-url",
        server.url,
        "--model",
        "scripted",
        "--games",
        "RPS",
        "--partners",
        "single_action",
        "--horizon",
        "3",
        "--fallback",
        "random",
        "--max-resamples",
        "1",
        "--timeout",
        str(TIMEOUT_S),
        "--max-retries",
        "4",
        "--retry-budget",
        "30",
        "--format",
        "json",
        "--out",
        str(out),
        *extra,
    ]


def run_matrix(capsys, argv: list[str]) -> tuple[list[dict], list[dict], str]:
    assert main(argv) == 0
    captured = capsys.readouterr()
    rows = json.loads(captured.out)
    out = Path(argv[argv.index("--out") + 1])
    records = [
        json.loads(line) for path in sorted((out / "matrix").glob("*.jsonl")) for line in path.read_text().splitlines()
    ]
    return rows, sorted(records, key=lambda r: r["seed"]), captured.err


def without_run(records: list[dict]) -> list[dict]:
    """Records without what differs between two runs: stamps, wall times, the faults."""
    return [{k: v for k, v in r.items() if k not in ("code", "wall_s", FAULTS_FIELD)} for r in records]


@pytest.mark.slow
def test_injected_faults_are_counted_in_their_episodes_records_and_the_row(server, tmp_path, capsys):
    """Episodes one at a time (--lockstep 1), so the server's script meets known requests: the first request of
    episode 0 gets a 500, an HTML page and a hang before it is served; the first of episode 1 a 503."""
    rows, clean, err = run_matrix(capsys, matrix_argv(server, tmp_path / "clean", "--episodes", "2", "--lockstep", "1"))
    assert [r[FAULTS_FIELD] for r in clean] == [faults(), faults()]
    assert {k: rows[0][k] for k in ("llm_retries", "llm_http_5xx", "llm_timeout")} == dict.fromkeys(
        ("llm_retries", "llm_http_5xx", "llm_timeout"), 0
    )
    assert "retried" not in err
    sent = clean[0]["episode"]["policy_stats"]["requests"]  # episode 0's requests (the same in every run)
    server.script.extend([500, "garbage", "hang", *["ok"] * sent, 503])
    rows, faulty, err = run_matrix(
        capsys, matrix_argv(server, tmp_path / "faulty", "--episodes", "2", "--lockstep", "1")
    )
    assert [r[FAULTS_FIELD] for r in faulty] == [faults(http_5xx=1, invalid_reply=1, timeout=1), faults(http_5xx=1)]
    assert {k: v for k, v in rows[0].items() if k.startswith("llm_")} == {
        "llm_retries": 4,
        "llm_http_4xx": 0,
        "llm_http_5xx": 2,
        "llm_timeout": 1,
        "llm_connection": 0,
        "llm_invalid_reply": 1,
    }
    assert without_run(faulty) == without_run(clean)  # same results, same keys
    assert [p.name for p in (tmp_path / "faulty" / "matrix").glob("*.jsonl")] == [
        p.name for p in (tmp_path / "clean" / "matrix").glob("*.jsonl")
    ]
    assert "needed 4 retried attempt(s) (2 HTTP 5xx, 1 timed out, 1 invalid reply)" in err
    assert "episodes written by this run" not in err  # said once (the records' note is for backends built elsewhere)
    from benchmarks.matrix.benchmark import format_table

    assert "Server retries: 4 (2 http_5xx, 1 timeout, 1 invalid_reply)" in format_table(rows)
    assert "Server retries" not in format_table([{**rows[0], "llm_retries": 0}])
    assert main(["report", str(tmp_path / "faulty"), "--out", str(tmp_path / "report")]) == 0
    page = (tmp_path / "report" / "index.md").read_text()
    assert "server retries: 4 over 2 LLM record(s) (http_5xx 2, timeout 1, invalid_reply 1)" in page
    assert not [line for line in page.splitlines() if "Stored but not shown" in line and "llm_faults" in line]


def test_in_a_lockstep_batch_every_retry_is_counted_once_for_some_episode(server, tmp_path, capsys):
    server.script.extend([500, 502, "garbage", 429])
    rows, records, _ = run_matrix(capsys, matrix_argv(server, tmp_path, "--episodes", "3"))
    assert len(records) == 3
    total = fault_columns(records)
    assert total == {
        "llm_retries": 4,
        "llm_http_4xx": 1,
        "llm_http_5xx": 2,
        "llm_timeout": 0,
        "llm_connection": 0,
        "llm_invalid_reply": 1,
    }
    assert {k: rows[0][k] for k in total} == total
    assert all(set(FAULT_COUNTERS).isdisjoint(r["episode"]["policy_stats"]) for r in records)


def test_scripted_records_and_rows_carry_no_fault_keys(tmp_path, capsys):
    assert (
        main(
            [
                "matrix",
                "--games",
                "RPS",
                "--partners",
                "single_action",
                "--policy",
                "tabular",
                "--episodes",
                "2",
                "--horizon",
                "3",
                "--format",
                "json",
                "--out",
                str(tmp_path),
            ]
        )
        == 0
    )
    rows = json.loads(capsys.readouterr().out)
    assert not [k for row in rows for k in row if k.startswith("llm_")]
    lines = [line for path in (tmp_path / "matrix").glob("*.jsonl") for line in path.read_text().splitlines()]
    assert lines and not [line for line in lines if FAULTS_FIELD in line]


def test_persuasion_qa_rows_carry_the_runs_retries(server, tmp_path, capsys):
    server.script.extend([500, "garbage"])
    assert (
        main(
            [
                "persuasion",
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
                "--fallback",
                "random",
                "--max-resamples",
                "0",
                "--max-retries",
                "3",
                "--format",
                "json",
                "--out",
                str(tmp_path),
            ]
        )
        == 0
    )
    rows = json.loads(capsys.readouterr().out)
    records = [
        json.loads(line) for path in (tmp_path / "persuasion").glob("*.jsonl") for line in path.read_text().splitlines()
    ]
    assert fault_columns(records)["llm_retries"] == 2
    assert {(r["llm_retries"], r["llm_http_5xx"], r["llm_invalid_reply"]) for r in rows} == {(2, 1, 1)}


def test_common_ground_rows_carry_the_runs_retries(server, tmp_path, capsys):
    server.script.extend([503])
    assert (
        main(
            [
                "common-ground",
                "--policy",
                "llm",
                "--backend",
                "openai",
                "--base-url",
                server.url,
                "--model",
                "x",
                "--fallback",
                "random",
                "--max-resamples",
                "0",
                "--max-retries",
                "3",
                "--format",
                "json",
                "--out",
                str(tmp_path),
            ]
        )
        == 0
    )
    rows = json.loads(capsys.readouterr().out)
    assert [r["order"] for r in rows] == ["all", 1, 2, 3]
    # the run's: a conversation's requests serve every order
    assert {(r["llm_retries"], r["llm_http_5xx"], r["llm_timeout"]) for r in rows} == {(1, 1, 0)}


@pytest.mark.parametrize("persuader", ["bayes-plain", "llm"])
def test_live_persuasion_counts_the_llm_readers_retries_with_the_persuaders(server, tmp_path, capsys, persuader):
    """``--reader llm``: the reader inside the env meets the faults; its retries are the episode's."""
    server.script.extend([500, "garbage"])
    argv = [
        "persuasion",
        "--env",
        "live",
        "--policy",
        persuader,
        "--reader",
        "llm",
        "--backend",
        "openai",
        "--base-url",
        server.url,
        "--model",
        "x",
        "--fallback",
        "random",
        "--max-resamples",
        "0",
        "--max-retries",
        "3",
        "--episodes",
        "1",
        "--families",
        "health",
        "--format",
        "json",
    ]
    assert main([*argv, "--out", str(tmp_path)]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    records = [
        json.loads(line) for path in (tmp_path / "persuasion").glob("*.jsonl") for line in path.read_text().splitlines()
    ]
    assert fault_columns(records)["llm_retries"] == 2 and len(records) == 1
    assert (row["llm_retries"], row["llm_http_5xx"], row["llm_invalid_reply"]) == (2, 1, 1)
    (rec,) = records  # the reader's own counters are kept with the episode, whoever persuades
    assert rec["reader_stats"]["decisions"] >= 1 and "retries" not in rec["reader_stats"]
    server.script.extend([503])
    assert main(argv) == 0  # not stored: the row counts the run's
    (row,) = json.loads(capsys.readouterr().out)
    assert (row["llm_retries"], row["llm_http_5xx"]) == (1, 1)


def test_negotiation_rows_carry_the_retries_of_their_records(server, tmp_path, capsys):
    server.script.extend([500, "garbage"])
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
                "--runs",
                "1",
                "--backend",
                "openai",
                "--base-url",
                server.url,
                "--model",
                "x",
                "--fallback",
                "random",
                "--max-retries",
                "3",
                "--format",
                "json",
                "--out",
                str(tmp_path),
            ]
        )
        == 0
    )
    rows = json.loads(capsys.readouterr().out)
    records = [
        json.loads(line)
        for path in (tmp_path / "negotiation").rglob("*.jsonl")
        for line in path.read_text().splitlines()
    ]
    assert fault_columns(records)["llm_retries"] == 2
    llm_rows = [r for r in rows if "llm_retries" in r]
    assert [(r["llm_retries"], r["llm_http_5xx"], r["llm_invalid_reply"]) for r in llm_rows] == [(2, 1, 1)]


# --------------------------------------------------------------------------------------------- the server options
def command(name: str, url: str) -> list[str]:
    """A short LLM run of each family's command against ``url``."""
    llm = ["--backend", "openai", "--base-url", url, "--fallback", "random", "--format", "json"]
    return {
        "matrix": [
            "matrix",
            "--policy",
            "llm",
            "--strategies",
            "qa",
            "--model",
            "x",
            "--games",
            "RPS",
            "--partners",
            "single_action",
            "--horizon",
            "2",
            "--episodes",
            "1",
            *llm,
        ],
        "common-ground": ["common-ground", "--policy", "llm", "--model", "x", *llm],
        "persuasion": ["persuasion", "--policy", "llm", "--model", "x", "--repetitions", "1", *llm],
        "negotiation": [
            "negotiation",
            "--policy",
            "llm-generic",
            "--mode",
            "hard",
            "--scenarios",
            "hopkins_hmo",
            "--runs",
            "1",
            "--model",
            "x",
            *llm,
        ],
    }[name]


@pytest.mark.parametrize("name", ["matrix", "common-ground", "persuasion", "negotiation"])
@pytest.mark.parametrize(
    "fault,options,says",
    [
        (500, ["--max-retries", "0"], "--max-retries N"),
        ("hang", ["--timeout", "0.3", "--max-retries", "0"], "raise timeout (--timeout SECONDS"),
        (503, ["--retry-budget", "0.001"], "the call's retry budget of 0.001 s"),
    ],
)
def test_the_server_options_of_every_command_reach_its_backend(server, tmp_path, capsys, name, fault, options, says):
    """Each bound stops the run where it should, with a named error that names the options to raise."""
    server.script.extend([fault])
    assert main([*command(name, server.url), "--out", str(tmp_path), *options]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and says in err and "Traceback" not in err
