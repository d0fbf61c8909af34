"""Server faults met by Ray workers (issue 30): with ``--executor ray`` each worker holds its own client of the
server, so the driver builds no backend; the retries are counted in the workers' records (``llm_faults``), summed
in the rows, and the driver's stderr note reads them from the records it wrote."""

from __future__ import annotations

import json

import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("psutil")

from benchmarks.__main__ import main  # noqa: E402
from benchmarks.results import fault_columns  # noqa: E402
from tests.llm.test_faults import FaultyServer, faults, matrix_argv  # noqa: E402
from tests.test_distributed import two_cpu_ray  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def local_ray():
    """A local Ray instance of 2 CPUs for the module."""
    yield from two_cpu_ray()


def test_faults_met_in_ray_workers_are_in_the_records_the_rows_and_the_note(local_ray, tmp_path, capsys):
    server = FaultyServer()
    try:
        server.script.extend([500, "garbage", 503])
        argv = matrix_argv(
            server, tmp_path, "--episodes", "4", "--lockstep", "2", "--executor", "ray", "--ray-workers", "2"
        )
        assert main(argv) == 0
    finally:
        server.close()
    captured = capsys.readouterr()
    rows = json.loads(captured.out)
    records = [
        json.loads(line) for path in (tmp_path / "matrix").glob("*.jsonl") for line in path.read_text().splitlines()
    ]
    assert len(records) == 4
    total = {
        "llm_retries": 3,
        "llm_http_4xx": 0,
        "llm_http_5xx": 2,
        "llm_timeout": 0,
        "llm_connection": 0,
        "llm_invalid_reply": 1,
    }
    assert fault_columns(records) == total and {k: rows[0][k] for k in total} == total
    assert sum(r["llm_faults"]["retries"] for r in records) == 3 and all(
        set(r["llm_faults"]) == set(faults()) for r in records
    )
    assert (
        "the episodes written by this run needed 3 retried server attempt(s) (2 HTTP 5xx, 1 invalid reply)"
        in captured.err
    )
