"""The server options of the LLM group (--timeout --max-retries --retry-budget) reach the backend, and a run
that survived server trouble says so on stderr."""

from __future__ import annotations

import argparse

from benchmarks.__main__ import main
from benchmarks.cli_backends import backend_from_args
from benchmarks.cli_llm import add_llm_options


def _argv(server, tmp_path, *extra):
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
        "tiny",
        "--games",
        "RPS",
        "--partners",
        "always_rock",
        "--episodes",
        "1",
        "--horizon",
        "2",
        "--fallback",
        "random",
        "--max-resamples",
        "0",
        "--format",
        "json",
        "--out",
        str(tmp_path),
        *extra,
    ]


def test_the_server_options_reach_the_backend():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=0)
    add_llm_options(parser)
    args = parser.parse_args(
        [
            "--backend",
            "openai",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--model",
            "m",
            "--timeout",
            "2.5",
            "--max-retries",
            "1",
            "--retry-budget",
            "7",
        ]
    )
    backend = backend_from_args(args)
    try:
        assert (backend.timeout, backend.max_retries, backend.retry_budget_s) == (2.5, 1, 7.0)
    finally:
        backend.close()


def test_a_run_that_survived_server_errors_says_so(fake_openai, tmp_path, capsys):
    fake_openai.script.extend([500, 503])
    assert main(_argv(fake_openai, tmp_path, "--max-retries", "3", "--retry-budget", "10")) == 0
    err = capsys.readouterr().err
    assert f"the server at {fake_openai.url} needed 2 retried attempt(s)" in err


def test_without_retries_a_server_error_stops_the_run_with_a_named_error(fake_openai, tmp_path, capsys):
    fake_openai.script.extend([500])
    assert main(_argv(fake_openai, tmp_path, "--max-retries", "0")) == 2
    assert "error:" in capsys.readouterr().err
