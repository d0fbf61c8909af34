"""Data integrity of the QA families (issue 29): a split is whole or a named error says what is missing
(``--allow-partial`` for those who mean it); unknown conversation ids are errors; every released row is
cross-checked (template, order and certainty vs its text, answer vs its labels, cid vs its file, duplicates)
with an error naming the file and the record; an empty PersuasiveToM file is an error, not a dropped column.
Issue 41: a file named like one of the release's must hold the release's record count and sha256, else a named
error (``--allow-partial``: the rows and records are marked ``partial``); the bundled samples and files under
other names are not checked; Common-ToM's majority-class floor; stored records call the gold answer ``gold``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchmarks.common_ground import benchmark as cg_bench
from tom_envs.common_ground import SAMPLE_DATA_DIR, read_questions
from tom_envs.common_ground.corpus import SAMPLE_MARKER, IncompleteSplit, UnknownConversation, write_questions
from tom_envs.common_ground.env import CommonToMEnv, load_split
from tom_envs.common_ground.questions import InconsistentQuestion
from tom_envs.errors import DatasetError, InvalidFlag, TomEnvsError
from tom_envs.persuasion import SAMPLE_DATA_DIR as PERSUASION_SAMPLE
from tom_envs.persuasion.data import RELEASE_VERIFIED, IncompleteRelease, load_dataset

#: The whole-folder fixture's files carry an annotator name of their own: the release's file names are checked
#: against the release's record counts and hashes, which a folder built from our sample cannot pass.
WHO = "Tester"
QFILE = f"4431_{WHO}_yn_questions.csv.gz"


from tests.qa_helpers import command_args as _args
from tests.qa_helpers import results_in_tmp  # noqa: F401  (autouse: each test in its own folder)


@pytest.fixture
def release_like(tmp_path):
    """The bundled sample laid out as a whole folder of one's own (every conversation of 003's splits, under
    the annotator name :data:`WHO`): conversations 4245 (train) and 4431 (test) copied, and 4248, 4310 (train)
    as copies of 4245's files under their names (the same rows, cid column rewritten)."""
    root = tmp_path / "data"
    shutil.copytree(SAMPLE_DATA_DIR, root)
    (root / SAMPLE_MARKER).unlink()  # no longer the sample: a folder that claims to be whole
    for cid in (4245, 4431):
        rows = read_questions(root / "questions" / f"{cid}_Magda_yn_questions.csv.gz")
        write_questions(
            [r.model_copy(update={"annotator": WHO}) for r in rows],
            root / "questions" / f"{cid}_{WHO}_yn_questions.csv.gz",
        )
        (root / "questions" / f"{cid}_Magda_yn_questions.csv.gz").unlink()
        (root / "cg" / f"{cid}_Magda_sample.tsv").rename(root / "cg" / f"{cid}_{WHO}_sample.tsv")
    rows = read_questions(root / "questions" / f"4245_{WHO}_yn_questions.csv.gz")
    for cid in (4248, 4310):
        write_questions(
            [r.model_copy(update={"cid": cid}) for r in rows], root / "questions" / f"{cid}_{WHO}_yn_questions.csv.gz"
        )
        shutil.copy(root / "cg" / f"4245_{WHO}_sample.tsv", root / "cg" / f"{cid}_{WHO}_sample.tsv")
    return root


# ---------------------------------------------------------------------- Common-ToM: whole splits
def test_a_whole_folder_loads_and_a_deleted_file_is_a_named_error(release_like, capsys):
    assert sorted(load_split(release_like, "train")) == [4245, 4248, 4310]
    (release_like / "questions" / f"4248_{WHO}_yn_questions.csv.gz").unlink()
    with pytest.raises(
        IncompleteSplit, match=r"split 'train' is incomplete: conversation\(s\) \[4248\].*--allow-partial"
    ):
        load_split(release_like, "train")
    assert sorted(load_split(release_like, "train", allow_partial=True)) == [4245, 4310]
    assert sorted(load_split(release_like, "test")) == [4431]  # the test split is whole
    for argv in (
        ["--counts"],
        ["--split", "train", "--policy", "question-only"],
        ["--split", "test", "--policy", "random"],
    ):  # random's yes-rate comes from the training split
        assert cg_bench.run(_args(cg_bench, "--data-dir", str(release_like), *argv)) == 2
        assert "incomplete" in capsys.readouterr().err
    assert cg_bench.run(_args(cg_bench, "--data-dir", str(release_like), "--counts", "--allow-partial")) == 0
    with pytest.raises(InvalidFlag):
        CommonToMEnv(data_dir=release_like, allow_partial="yes")


def test_the_sample_and_its_copies_are_partial_on_purpose(tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(SAMPLE_DATA_DIR, copy)
    assert sorted(load_split(copy, "train")) == [4245]  # marked SAMPLE.md: taken as it is
    (copy / SAMPLE_MARKER).unlink()
    with pytest.raises(IncompleteSplit, match=r"\[4248, 4310\]"):
        load_split(copy, "train")


def test_unknown_conversation_ids_are_errors(release_like):
    with pytest.raises(UnknownConversation, match=r"\[9999\]"):
        load_split(release_like, [4431, 9999])
    env = CommonToMEnv(data_dir=release_like, split=[4431])
    with pytest.raises(UnknownConversation, match="9999"):
        env.reset(seed=0, options={"cid": 9999})


# ---------------------------------------------------------------------- Common-ToM: rows cross-checked
def _edit(root, i, **update):
    path = root / "questions" / QFILE
    rows = read_questions(path)
    rows[i] = rows[i].model_copy(update=update)
    write_questions(rows, path)
    return rows


def _flip_order(row):
    """The order column off by one (the text keeps its chain)."""
    return {"order": 1 if row.order != 1 else 2}


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda r: {"answer": "No" if r.answer == "Yes" else "Yes"}, r"record 5: answer .* give"),
        (_flip_order, r"record 5: order column .* text is of order"),
        (lambda r: {"belief_Q": "PS" if r.belief_Q != "PS" else "CT+"}, r"record 5: belief_Q column"),
        (lambda r: {"cid": 4245}, r"record 5: cid column 4245, but the file is conversation 4431's"),
        (lambda r: {"question": "Is the sky blue?"}, r"record 5: not a Common-ToM question"),
    ],
)
def test_a_bad_row_is_a_named_error_with_file_and_record(release_like, edit, message):
    row = read_questions(release_like / "questions" / QFILE)[4]
    _edit(release_like, 4, **edit(row))
    with pytest.raises(InconsistentQuestion, match=message) as exc:
        load_split(release_like, "test")
    assert QFILE in str(exc.value) and isinstance(exc.value, DatasetError)


def test_a_duplicate_row_is_a_named_error(release_like):
    path = release_like / "questions" / QFILE
    rows = read_questions(path)
    write_questions(rows + [rows[2]], path)
    with pytest.raises(InconsistentQuestion, match=rf"record {len(rows) + 1}: repeats record 3"):
        load_split(release_like, "test")


def test_the_released_sample_passes_every_cross_check():
    assert sum(len(v) for v in load_split(None, "all").values()) == sum(
        len(read_questions(p)) for p in (SAMPLE_DATA_DIR / "questions").iterdir()
    )


# ---------------------------------------------------------------------- PersuasiveToM
@pytest.fixture
def persuasion_release(tmp_path):
    root = tmp_path / "pers"
    root.mkdir()
    for q in RELEASE_VERIFIED:
        shutil.copy(PERSUASION_SAMPLE / f"{q}.json", root / f"{q}.json")
    shutil.copy(PERSUASION_SAMPLE / SAMPLE_MARKER, root / SAMPLE_MARKER)  # our sample's files: not the release's
    return root


def _persuasion(*argv):
    from benchmarks.__main__ import main

    return main(["persuasion", *argv])


def test_a_deleted_persuasion_file_fails_the_command_unless_allowed(persuasion_release, capsys):
    argv = ["--data-dir", str(persuasion_release), "--policy", "always-first", "--repetitions", "1", "--format", "json"]
    assert _persuasion(*argv) == 0
    capsys.readouterr()
    (persuasion_release / "judge_qa.json").unlink()
    assert _persuasion(*argv) == 2
    err = capsys.readouterr().err
    assert "judge_qa.json are missing" in err and "--allow-partial" in err
    with pytest.raises(IncompleteRelease):
        load_dataset(persuasion_release, allow_partial=False)
    assert _persuasion(*argv, "--allow-partial") == 0
    assert [r["qtype"] for r in json.loads(capsys.readouterr().out)] == ["desire_ee", "intent_ee", "behavior_qa"]
    assert _persuasion(*argv, "--qtypes", "desire_ee") == 0  # named types: what they name


def test_an_empty_persuasion_file_is_an_error_not_a_dropped_column(persuasion_release, capsys):
    (persuasion_release / "desire_ee.json").write_text("[]", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"desire_ee.json: holds no records"):
        load_dataset(persuasion_release)
    assert _persuasion("--data-dir", str(persuasion_release), "--policy", "always-first", "--repetitions", "1") == 2
    assert "holds no records" in capsys.readouterr().err


def test_unknown_dialogue_ids_are_errors():
    from tom_envs.persuasion.qa_env import PersuasiveToMEnv

    with pytest.raises(DatasetError, match="not in the data"):
        PersuasiveToMEnv(split=["2", "no-such-dialogue"])


# ---------------------------------------------------------------------- files named like the release's (issue 41)
def test_a_common_tom_file_under_a_release_name_must_be_the_release_s(tmp_path, capsys):
    """Our sample's test file, in a folder that does not say it is a sample, claims to be the release's
    4431_Magda file: its record count and hash are not the release's, so it is a named error, or partial."""
    from tom_envs.common_ground.corpus import RELEASE_FILES
    from tom_envs.common_ground.env import load_checked_split
    from tom_envs.release_files import ReleaseMismatch

    copy = tmp_path / "copy"
    shutil.copytree(SAMPLE_DATA_DIR, copy)
    (copy / SAMPLE_MARKER).unlink()
    n = len(read_questions(copy / "questions" / "4431_Magda_yn_questions.csv.gz"))
    expected = RELEASE_FILES["questions/4431_Magda_yn_questions.csv.gz"]
    with pytest.raises(
        ReleaseMismatch,
        match=rf"4431_Magda_yn_questions.csv.gz: not the release's .*\({n} records "
        rf"where the release has {expected.records}; sha256 .*--allow-partial",
    ):
        load_split(copy, "test")
    rows, differences = load_checked_split(copy, "test", allow_partial=True)
    assert sum(map(len, rows.values())) == n and len(differences) == 1
    assert cg_bench.run(_args(cg_bench, "--data-dir", str(copy), "--policy", "random")) == 2
    assert "not the release's" in capsys.readouterr().err
    assert cg_bench.run(_args(cg_bench, "--data-dir", str(copy), "--policy", "random", "--allow-partial")) == 0
    captured = capsys.readouterr()
    assert "random [partial]" in captured.out and "[partial]: scored on data" in captured.out
    assert "note: --allow-partial" in captured.err
    env = CommonToMEnv(data_dir=copy, allow_partial=True)
    assert env.partial and len(env.release_differences) == 1  # cg/4431_Magda_sample.tsv: not a release name


def test_the_bundled_sample_and_one_s_own_files_are_not_marked(release_like, capsys):
    assert not CommonToMEnv().partial and CommonToMEnv().release_differences == ()
    assert not CommonToMEnv(data_dir=release_like).partial  # other file names: one's own data, not checked
    assert cg_bench.run(_args(cg_bench, "--policy", "random", "--format", "json")) == 0
    assert all(r["partial"] is False for r in json.loads(capsys.readouterr().out))


def test_a_split_taken_partially_is_marked_partial(release_like, capsys):
    (release_like / "questions" / f"4248_{WHO}_yn_questions.csv.gz").unlink()
    argv = [
        "--data-dir",
        str(release_like),
        "--split",
        "train",
        "--policy",
        "question-only",
        "--format",
        "json",
        "--allow-partial",
    ]
    assert cg_bench.run(_args(cg_bench, *argv)) == 0
    captured = capsys.readouterr()
    assert all(r["partial"] is True for r in json.loads(captured.out))
    assert "conversation 4248 of split 'train' has no file" in captured.err


def test_stored_records_name_the_gold_answer_gold_and_say_whether_partial(capsys):
    from tom_envs.common_ground.metrics import f1_columns, gold_answer

    assert cg_bench.run(_args(cg_bench, "--policy", "question-only", "--format", "json", "--out", "res")) == 0
    (stored,) = Path("res/common_ground").glob("scripted_question_only_*.jsonl")
    records = [json.loads(line) for line in stored.read_text().splitlines()]
    assert all(r["partial"] is False for r in records)
    questions = [q for r in records for q in r["questions"]]
    assert all("gold" in q and "answer" not in q for q in questions)
    old = [{**{k: v for k, v in q.items() if k != "gold"}, "answer": q["gold"]} for q in questions]  # before issue 41
    assert gold_answer(old[0]) == gold_answer(questions[0]) and f1_columns(old) == f1_columns(questions)


def test_the_majority_class_floor_answers_the_training_majority_everywhere(capsys):
    from policies.common_ground.scripted import MajorityClassPolicy

    train = read_questions(SAMPLE_DATA_DIR / "questions" / "4245_Magda_yn_questions.csv.gz")
    policy = MajorityClassPolicy.from_questions(train)
    assert policy.answer == int(2 * sum(r.answer == "Yes" for r in train) > len(train))
    test = read_questions(SAMPLE_DATA_DIR / "questions" / "4431_Magda_yn_questions.csv.gz")
    share = 100.0 * sum(int(r.answer == "Yes") == policy.answer for r in test) / len(test)
    assert cg_bench.run(_args(cg_bench, "--policy", "majority-class", "--format", "json")) == 0
    total = json.loads(capsys.readouterr().out)[0]
    assert total["accuracy"] == pytest.approx(share) and total["n"] == len(test)
    assert cg_bench.run(_args(cg_bench, "--policy", "random")) == 0
    (line,) = [x for x in capsys.readouterr().out.splitlines() if x.startswith("majority-class floor")]
    assert f": {share:.1f} / " in line
    with pytest.raises(TomEnvsError, match="answers 0"):
        MajorityClassPolicy(2)


def test_a_persuasion_file_under_a_release_name_must_be_the_release_s(tmp_path, capsys):
    from tom_envs.persuasion.data import load_checked_dataset
    from tom_envs.release_files import ReleaseMismatch

    own = tmp_path / "own"
    own.mkdir()
    shutil.copy(PERSUASION_SAMPLE / "judge_qa.json", own / "judge_qa.json")  # not the release's, under its name
    with pytest.raises(
        ReleaseMismatch,
        match=r"judge_qa.json: not the release's judge_qa \(\d+ records where the "
        r"release has 2041",
    ):
        load_dataset(own, "judge_qa", allow_partial=False)
    assert list(load_checked_dataset(own, "judge_qa")[1]) == ["judge_qa"]  # the library's default takes it
    argv = [
        "--data-dir",
        str(own),
        "--qtypes",
        "judge_qa",
        "--policy",
        "always-first",
        "--repetitions",
        "1",
        "--format",
        "json",
    ]
    assert _persuasion(*argv) == 2
    assert "not the release's judge_qa" in capsys.readouterr().err
    assert _persuasion(*argv, "--allow-partial") == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert (row["partial"], row["release_file"]) == (True, "differs")
    assert _persuasion(*argv[:-2], "--allow-partial") == 0
    assert "judge_qa     " in (out := capsys.readouterr().out) and "[partial]" in out
