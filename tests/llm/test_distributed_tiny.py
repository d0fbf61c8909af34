"""``--executor ray`` with an LLM cell on the tiny model: 2 Ray workers, each a client of vLLM's
OpenAI-compatible server serving the tests' tiny random Llama, write the same results files as the
in-process run (tests/test_distributed.py covers every command on a scripted server; this is the
real engine behind the workers)."""

from __future__ import annotations

import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("psutil")

from tests.test_distributed import _same_in_ray, two_cpu_ray  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def local_ray():
    """A local Ray instance of 2 CPUs for the module."""
    yield from two_cpu_ray()


def test_an_llm_cell_on_the_tiny_model_gives_the_same_records_on_two_ray_workers(
    local_ray, openai_server, tmp_path, capsys
):
    files = _same_in_ray(
        capsys,
        tmp_path,
        "persuasion",
        "--policy",
        "llm",
        "--qtypes",
        "judge_qa",
        "--episodes",
        "1",
        "--lockstep",
        "2",
        "--backend",
        "openai",
        "--base-url",
        openai_server,
        "--model",
        "tiny",
        "--max-resamples",
        "1",
        "--fallback",
        "random",
        "--max-tokens",
        "8",
        workers=2,
    )
    assert len(files) == 1 and all(text for text in files.values())
