"""``tom-envs batch FILE``: command lines run in one process, ``${VARIABLE}`` lines, resuming, and what the
records' ``.runs`` lines name."""

from __future__ import annotations

import json

import pytest

from benchmarks.__main__ import main
from benchmarks.batch import BatchFileError, read_commands

TABULAR = "matrix --policy tabular --games RPS --partners tit_for_tat --horizon 5 --episodes 2"


def _runs(folder):
    return [json.loads(line) for p in sorted(folder.rglob("*.runs")) for line in p.read_text().splitlines()]


def test_a_batch_runs_its_lines_and_names_each_as_written(tmp_path, monkeypatch, capsys):
    """``${OUT}`` is expanded to run, but the ``.runs`` lines keep it as the file writes it (no folder of the
    machine); a line naming an unset variable is skipped with a note; a rerun resumes (nothing appended)."""
    monkeypatch.setenv("TOM_ENVS_TEST_OUT", str(tmp_path / "res"))
    monkeypatch.delenv("TOM_ENVS_TEST_UNSET", raising=False)
    batch = tmp_path / "commands.txt"
    batch.write_text(
        f"# a comment\ntom-envs {TABULAR} \\\n  --out ${{TOM_ENVS_TEST_OUT}}\n"
        f"{TABULAR} --out ${{TOM_ENVS_TEST_UNSET}}/x\n"
    )
    assert main(["batch", str(batch), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [c["line"] for c in out["commands"]] == [2] and out["commands"][0]["exit"] == 0
    assert out["skipped"] == [{"line": 4, "why": "needs ${TOM_ENVS_TEST_UNSET} (unset)"}]
    (run,) = _runs(tmp_path / "res")
    assert run["command"] == ["tom-envs", *TABULAR.split(), "--out", "${TOM_ENVS_TEST_OUT}"]
    assert str(tmp_path) not in json.dumps(run["command"])
    files = {p: p.read_bytes() for p in (tmp_path / "res").rglob("*") if p.is_file() and not p.name.endswith(".lock")}
    assert main(["batch", str(batch), "--format", "json"]) == 0
    assert {p: p.read_bytes() for p in files} == files  # resumed: nothing recomputed or appended


def test_a_failing_line_stops_the_batch_and_is_named(tmp_path, capsys):
    batch = tmp_path / "commands.txt"
    batch.write_text(
        f"{TABULAR} --out {tmp_path / 'res'}\nmatrix --games NOPE --out {tmp_path / 'res'}\n"
        f"{TABULAR} --horizon 6 --out {tmp_path / 'res'}\n"
    )
    status = main(["batch", str(batch)])
    err = capsys.readouterr().err
    assert status != 0 and f"{batch}:2" in err and "[batch 3/3]" not in err


@pytest.mark.parametrize(
    "text, problem",
    [
        ("matrix --policy 'tabular\n", "quote"),
        ("batch other.txt\n", "another batch"),
        ("# nothing\n\n", "holds no command"),
        ("matrix \\\n", "nothing follows"),
    ],
)
def test_a_bad_batch_file_is_a_named_error(tmp_path, text, problem):
    batch = tmp_path / "commands.txt"
    batch.write_text(text)
    with pytest.raises(BatchFileError, match=problem):
        read_commands(batch)
