"""Common-ToM benchmark fidelity to 003 (issue 13): context mode, the random row's expectation, bad input."""

from __future__ import annotations

import argparse
import gzip
import json
import shutil

import pytest

from benchmarks.common_ground import benchmark as bench
from tom_envs.common_ground import SAMPLE_DATA_DIR, read_questions


@pytest.fixture(autouse=True)
def _results_in_tmp(tmp_path, monkeypatch):
    """The commands store their records under --out (default results/ in the working directory): run each test
    in its own temporary folder, so nothing lands in the checkout and no stale record from another commit is read."""
    monkeypatch.chdir(tmp_path)


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    return parser.parse_args(list(argv))


def test_the_benchmark_defaults_to_the_papers_window_and_prints_the_mode(capsys):
    assert _args().context == "window"
    assert bench.run(_args("--policy", "oracle-beliefs")) == 0
    assert "context: window" in capsys.readouterr().out
    assert bench.run(_args("--policy", "oracle-beliefs", "--context", "online")) == 0
    assert "context: online" in capsys.readouterr().out


def test_the_random_row_reports_its_expected_accuracy(capsys):
    assert bench.run(_args("--policy", "random", "--format", "json")) == 0
    total = json.loads(capsys.readouterr().out)[0]
    train = [
        r for name in ("4245_Magda_yn_questions.csv.gz",) for r in read_questions(SAMPLE_DATA_DIR / "questions" / name)
    ]
    p_yes = sum(r.answer == "Yes" for r in train) / len(train)
    test = read_questions(SAMPLE_DATA_DIR / "questions" / "4431_Magda_yn_questions.csv.gz")
    yes = sum(r.answer == "Yes" for r in test) / len(test)
    assert abs(total["expected_accuracy"] - (p_yes * yes + (1 - p_yes) * (1 - yes))) < 1e-12
    assert total["context"] == "window"
    assert bench.run(_args("--policy", "random")) == 0
    assert "random: expected accuracy" in capsys.readouterr().out


def test_a_corrupted_training_file_is_an_error_not_a_coin_flip(tmp_path, capsys):
    shutil.copytree(SAMPLE_DATA_DIR, tmp_path / "data")
    bad = tmp_path / "data" / "questions" / "4245_Magda_yn_questions.csv.gz"
    bad.write_bytes(gzip.compress(gzip.decompress(bad.read_bytes()).replace(b",Yes,", b",Maybe,", 1)))
    assert bench.run(_args("--data-dir", str(tmp_path / "data"), "--policy", "random")) == 2
    err = capsys.readouterr().err
    assert "training split" in err and "4245_Magda_yn_questions.csv.gz" in err


def test_every_published_row_of_table_3_is_printed_with_its_setting(capsys):
    assert bench.run(_args("--policy", "oracle-beliefs")) == 0
    out = capsys.readouterr().out
    assert len(bench.PUBLISHED) == 7 and set(bench.PUBLISHED) == set(bench.PUBLISHED_SETTINGS)
    assert bench.PUBLISHED["gpt-4-0613 (Zero-Shot)"] == (63.4, 65.5, 62.5, 62.1)
    for name in bench.PUBLISHED:
        assert f"003: {name}" in out and f"003 {name}: " in out


def test_question_file_errors_name_the_record_and_the_line(tmp_path):
    from tom_envs.common_ground.corpus import QUESTION_COLUMNS
    from tom_envs.errors import DatasetError
    import pytest

    good = gzip.decompress((SAMPLE_DATA_DIR / "questions" / "4431_Magda_yn_questions.csv.gz").read_bytes()).decode()
    header, *records = good.split("\n")
    # every answer is broken, so the first record fails; its context spans several lines
    text = good.replace(",Yes,end,", ",Maybe,end,").replace(",No,end,", ",Maybe,end,")
    path = tmp_path / "4431_Magda_yn_questions.csv.gz"
    path.write_bytes(gzip.compress(text.encode()))
    with pytest.raises(DatasetError, match=r"record 1 \(ending on line \d+\)"):
        read_questions(path)
    assert "answer" in QUESTION_COLUMNS and len(records) > 3


def test_a_question_past_the_conversation_s_last_sentence_is_an_error(tmp_path):
    import pytest

    from tom_envs.errors import DatasetError

    good = gzip.decompress((SAMPLE_DATA_DIR / "questions" / "4431_Magda_yn_questions.csv.gz").read_bytes()).decode()
    header, first = good.split("\n", 1)
    sno = first.split(",", 1)[0]
    path = tmp_path / "4431_Magda_yn_questions.csv.gz"
    path.write_bytes(gzip.compress(f"{header}\n99{first[len(sno) :]}".encode()))
    with pytest.raises(DatasetError, match=r"record 1 .*sno 99 points past the conversation"):
        read_questions(path)
