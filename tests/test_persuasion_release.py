"""PersuasiveToM against the public release's layout: download, bad input, the release's quirks.

The download runs against a loopback HTTP server serving our sample in the release's layout
(``<owner>/<repo>/main/data/<qtype>.json``, only the four files we could verify upstream, and
``<owner>/<repo>/main/evaluation/evaluate.py``: our sample script in the release's code layout). Tests on
the release itself run when ``TOM_ENVS_PERSUASION_RELEASE`` names a clone of
github.com/Yu-Fangxu/PersuasiveToM (the folder holding ``data/``).
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import os
import shutil
import threading
from pathlib import Path

import pytest

from tom_envs.errors import DatasetError
from tom_envs.persuasion import QTYPES, SAMPLE_DATA_DIR
from tom_envs.persuasion import download as dl
from tom_envs.persuasion.prompts import RELEASE_PROMPT_PATH, read_authors_prompts
from tom_envs.persuasion.data import (
    RELEASE_COUNTS,
    RELEASE_UNVERIFIED,
    RELEASE_VERIFIED,
    load_dataset,
    repeated_options,
)
from tom_envs.persuasion.qa_env import PersuasiveToMEnv
from tests.persuasion_records import release_record, write_records

RELEASE = os.environ.get("TOM_ENVS_PERSUASION_RELEASE")
needs_release = pytest.mark.skipif(not RELEASE, reason="set TOM_ENVS_PERSUASION_RELEASE to a clone of the release")


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(root: Path):
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(root)))
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    return httpd, thread


@pytest.fixture
def release_site(tmp_path):
    """Our sample's four verified types in the release's raw-file layout on 127.0.0.1."""
    data = tmp_path / "site" / dl.REPOSITORY / "main" / "data"
    data.mkdir(parents=True)
    for qtype in RELEASE_VERIFIED:
        shutil.copy(SAMPLE_DATA_DIR / f"{qtype}.json", data / f"{qtype}.json")
    (data.parent / "evaluation").mkdir()
    shutil.copy(SAMPLE_DATA_DIR / RELEASE_PROMPT_PATH, data.parent / RELEASE_PROMPT_PATH)
    httpd, thread = serve(tmp_path / "site")
    yield {
        "data": data,
        "script": data.parent / RELEASE_PROMPT_PATH,
        "base_url": f"http://127.0.0.1:{httpd.server_address[1]}/{dl.REPOSITORY}/main/data",
    }
    httpd.shutdown()
    httpd.server_close()
    thread.join()


# ---------------------------------------------------------------------- download
def test_download_fetches_what_the_release_has_and_reports_the_rest(release_site, tmp_path, capsys):
    from benchmarks.__main__ import main

    dest = tmp_path / "got"
    assert main(["data", "download", "persuasion", "--dest", str(dest), "--base-url", release_site["base_url"]]) == 0
    out, err = capsys.readouterr()
    names = sorted(Path(p).name for p in out.split())
    assert names == sorted([*(f"{q}.json" for q in RELEASE_VERIFIED), "evaluate.py"])
    for qtype in RELEASE_UNVERIFIED:
        assert f"skipped {qtype}.json: missing upstream" in err
    assert f"5 of 9 files in {dest}" in err and "evaluate.py" not in err  # eight question files and the script
    for qtype in RELEASE_VERIFIED:
        assert (dest / f"{qtype}.json").read_bytes() == (release_site["data"] / f"{qtype}.json").read_bytes()
    assert (dest / RELEASE_PROMPT_PATH).read_bytes() == release_site["script"].read_bytes()
    assert read_authors_prompts(dest / RELEASE_PROMPT_PATH).source == "file"  # our sample script, not the release's
    assert not list(dest.glob(".part-*"))
    data = load_dataset(dest)
    assert list(data) == [q for q in QTYPES if q in RELEASE_VERIFIED] and repeated_options(data) == {"intent_ee": 1}


def test_a_malformed_file_is_named_not_saved_and_the_others_are_kept(release_site, tmp_path, capsys):
    write_records(release_site["data"], "judge_qa", [release_record(answerKey="F")])
    dest = tmp_path / "got"
    with pytest.raises(DatasetError, match=r"judge_qa\.json is malformed.*record 0"):
        dl.download(dest, base_url=release_site["base_url"])
    assert sorted(p.name for p in dest.iterdir()) == [
        "behavior_qa.json",
        "desire_ee.json",
        "evaluation",
        "intent_ee.json",
    ]
    assert "skipped judge_qa.json" in capsys.readouterr().err


def test_a_missing_evaluation_script_is_reported_like_the_other_files(release_site, tmp_path, capsys):
    release_site["script"].unlink()
    dest = tmp_path / "got"
    paths = dl.download(dest, base_url=release_site["base_url"])
    err = capsys.readouterr().err
    assert f"skipped {RELEASE_PROMPT_PATH}: missing upstream" in err and "will use our prompts" in err
    assert f"missing upstream: {', '.join(RELEASE_UNVERIFIED)}, {RELEASE_PROMPT_PATH}" in err
    assert sorted(p.name for p in paths) == sorted(f"{q}.json" for q in RELEASE_VERIFIED)
    assert not (dest / "evaluation").exists()


def test_an_unrecognised_evaluation_script_is_named_and_not_saved(release_site, tmp_path, capsys):
    release_site["script"].write_text("def evaluate(args, client, problem):\n  return 'A'\n", encoding="utf-8")
    dest = tmp_path / "got"
    message = (
        r"evaluate\.py is malformed.*layout of the release's evaluation/evaluate\.py was not recognised: "
        r"not found in evaluate\(\): system_prompt"
    )
    with pytest.raises(DatasetError, match=message):
        dl.download(dest, base_url=release_site["base_url"])
    assert sorted(p.name for p in dest.iterdir()) == sorted(f"{q}.json" for q in RELEASE_VERIFIED)
    assert f"skipped {RELEASE_PROMPT_PATH}:" in capsys.readouterr().err


def test_the_script_can_be_skipped_or_fetched_from_its_own_address(release_site, tmp_path):
    paths = dl.download(tmp_path / "a", RELEASE_VERIFIED, base_url=release_site["base_url"], prompts=False)
    assert all(p.suffix == ".json" for p in paths) and not (tmp_path / "a" / "evaluation").exists()
    moved = release_site["data"].parent / "elsewhere.py"
    release_site["script"].rename(moved)
    url = release_site["base_url"].rsplit("/", 1)[0] + "/elsewhere.py"
    paths = dl.download(tmp_path / "b", ["judge_qa"], base_url=release_site["base_url"], prompt_url=url)
    assert paths[-1] == tmp_path / "b" / RELEASE_PROMPT_PATH and paths[-1].read_bytes() == moved.read_bytes()
    assert dl.prompts_url("https://x.org/o/r/main/data/") == "https://x.org/o/r/main/evaluation/evaluate.py"


def test_nothing_fetched_is_an_error_and_leaves_no_folder(release_site, tmp_path):
    dest = tmp_path / "nothing"
    with pytest.raises(dl.DownloadError, match="nothing was fetched"):
        dl.download(dest, RELEASE_UNVERIFIED, base_url=release_site["base_url"])
    assert not dest.exists()
    with pytest.raises(dl.DownloadError, match="cannot connect"):
        dl.download(dest, ["judge_qa"], base_url="http://127.0.0.1:9/data", timeout=2)
    assert not dest.exists()


def test_the_default_folder_is_the_readme_s():
    parser = argparse.ArgumentParser()
    dl.add_arguments(parser)
    args = parser.parse_args([])
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    assert args.out == "data/persuasive_tom" and f"--data-dir {args.out}" in readme
    assert args.types.split(",") == list(QTYPES)


# ---------------------------------------------------------------------- bad input, named
@pytest.mark.parametrize(
    "records, message",
    [
        ([release_record(), release_record(dialogue_id="0-0")], "records 0 and 1 both have dialogue_id '0-0'"),
        ([release_record(question="  ")], "question is empty"),
        ([release_record(choices=["Yes"], answerKey="A")], "one option"),
        ([release_record(choices=["No", "Yes", "No"], answerKey="A")], "appears more than once"),
    ],
)
def test_malformed_files_are_named_errors(tmp_path, records, message):
    write_records(tmp_path, "desire_ee", records)
    with pytest.raises(DatasetError, match="desire_ee.json") as err:
        load_dataset(tmp_path)
    assert message in str(err.value)


def test_repeated_distractors_are_kept_and_counted(tmp_path):
    write_records(
        tmp_path,
        "intent_ee",
        [
            release_record(choices=["Mr", "Mr", "Mr. Li wants it", "Mr"], answerKey="C"),
            release_record(dialogue_id="0-2", choices=["a", "b"], answerKey="A"),
            release_record(dialogue_id="0-4", choices=["x", "x", "y"], answerKey="C"),
        ],
    )
    data = load_dataset(tmp_path)
    assert len(data["intent_ee"]) == 3 and repeated_options(data) == {"intent_ee": 2}
    assert PersuasiveToMEnv(data_dir=tmp_path).repeated_options == {"intent_ee": 2}


def test_the_bundled_sample_has_the_repeated_distractor_quirk():
    assert repeated_options(load_dataset()) == {"intent_ee": 1}


def test_folder_and_path_errors(tmp_path):
    with pytest.raises(DatasetError, match="folder not found"):
        load_dataset(tmp_path / "nowhere")
    write_records(tmp_path / "f", "desire_ee", [release_record()])
    with pytest.raises(DatasetError, match="is a file, not a folder"):
        load_dataset(tmp_path / "f" / "desire_ee.json")
    (tmp_path / "d" / "judge_qa.json").mkdir(parents=True)
    with pytest.raises(DatasetError, match=r"judge_qa\.json: is a folder"):
        load_dataset(tmp_path / "d")


def test_qtypes_as_a_string_names_types_not_characters(tmp_path):
    write_records(tmp_path, "desire_ee", [release_record()])
    write_records(tmp_path, "judge_qa", [release_record(choices=["Yes", "No"])])
    assert list(load_dataset(tmp_path, "desire_ee")) == ["desire_ee"]
    assert list(load_dataset(tmp_path, "judge_qa, desire_ee")) == ["desire_ee", "judge_qa"]
    env = PersuasiveToMEnv(data_dir=tmp_path, qtypes="judge_qa")
    assert [it.qtype for ep in env.episodes for it in ep] == ["judge_qa"]
    with pytest.raises(DatasetError, match="unknown question types"):
        load_dataset(tmp_path, "desire_er,belief")
    with pytest.raises(DatasetError, match="names no question type"):
        load_dataset(tmp_path, " , ")


def test_strict_env_needs_every_file(tmp_path):
    write_records(tmp_path, "desire_ee", [release_record()])
    assert PersuasiveToMEnv(data_dir=tmp_path).n_questions == 1
    with pytest.raises(DatasetError, match="no file for") as err:
        PersuasiveToMEnv(data_dir=tmp_path, strict=True)
    assert all(q in str(err.value) for q in QTYPES if q != "desire_ee")
    assert PersuasiveToMEnv(data_dir=tmp_path, strict=True, qtypes=["desire_ee"]).n_questions == 1


# ---------------------------------------------------------------------- the release itself
@needs_release
def test_the_release_loads_exactly_with_its_counted_quirk():
    data = load_dataset(Path(RELEASE) / "data")
    assert {q: len(v) for q, v in data.items() if q in RELEASE_VERIFIED} == RELEASE_COUNTS
    assert repeated_options(data) == {"intent_ee": 112}


@needs_release
def test_download_against_a_loopback_copy_of_the_release(tmp_path, capsys):
    root = tmp_path / "site" / dl.REPOSITORY / "main"
    shutil.copytree(Path(RELEASE) / "data", root / "data", ignore=shutil.ignore_patterns("*.md"))
    shutil.copytree(Path(RELEASE) / "evaluation", root / "evaluation")
    httpd, thread = serve(tmp_path / "site")
    try:
        base = f"http://127.0.0.1:{httpd.server_address[1]}/{dl.REPOSITORY}/main/data"
        paths = dl.download(tmp_path / "got", base_url=base)
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()
    present = {p.stem for p in (root / "data").glob("*.json")}
    assert {p.stem for p in paths if p.suffix == ".json"} == present >= set(RELEASE_VERIFIED)
    assert paths[-1] == tmp_path / "got" / RELEASE_PROMPT_PATH
    assert paths[-1].read_bytes() == (Path(RELEASE) / RELEASE_PROMPT_PATH).read_bytes()
    assert read_authors_prompts(paths[-1]).source == "release"
    err = capsys.readouterr().err
    assert all(f"skipped {q}.json: missing upstream" in err for q in set(QTYPES) - present)


def test_data_list_says_what_the_release_has_and_its_quirks(capsys):
    from benchmarks.__main__ import main

    assert main(["data", "list", "--format", "json"]) == 0
    (entry,) = [d for d in json.loads(capsys.readouterr().out) if d["name"] == "persuasion"]
    notes = "\n".join(entry["notes"])
    assert f"verified in the release: {', '.join(RELEASE_VERIFIED)}" in notes
    assert f"not verified here: {', '.join(RELEASE_UNVERIFIED)}" in notes
    assert all(f"quirk, {q}:" in notes for q in ("judge_qa", "desire_ee", "intent_ee"))
    assert main(["data", "list"]) == 0
    assert "note:   quirk, judge_qa: answerable from the question's wording alone" in capsys.readouterr().out


@needs_release
def test_nothing_returned_with_a_desire_ee_question_beats_the_question_itself():
    """The release's desire_ee answers persist within a dialogue (66.5 % of consecutive ones repeat).
    With the default feedback (answers come back when the dialogue ends) a probe reading everything
    returned -- observation, info, reward -- answers held-out dialogues no better than the same probe
    reading the observation alone, whose floor is the data's own prior (where "Yes" is shown, and the
    dialogue's stage). Measured: 63.28 % both (chance 34.26 %); under ``feedback="step"`` 65.64 %."""
    from tests.test_information_rule import probe_report

    kwargs = {"unit": "episode", "repeats": 1, "data_dir": Path(RELEASE) / "data", "qtypes": "desire_ee"}
    everything = probe_report("tom/PersuasiveToM-v1", "step", **kwargs)
    observed = probe_report("tom/PersuasiveToM-v1", "step", observation_only=True, **kwargs)
    assert everything["probe"] <= observed["probe"] + everything["margin"], (everything, observed)


# ---------------------------------------------------------------------- the release's files, count and hash (issue 41)
def _cut_release(tmp_path: Path, qtype: str, keep: int) -> Path:
    """A copy of the release's ``qtype`` file holding its first ``keep`` records (a download cut short)."""
    folder = tmp_path / "cut"
    folder.mkdir()
    records = json.loads((Path(RELEASE) / "data" / f"{qtype}.json").read_text(encoding="utf-8"))
    (folder / f"{qtype}.json").write_text(json.dumps(records[:keep]), encoding="utf-8")
    return folder


@needs_release
def test_every_verified_file_of_the_release_has_the_table_s_count_and_hash():
    from tom_envs.persuasion.data import RELEASE_FILES, load_checked_dataset
    from tom_envs.release_files import file_sha256

    data, differences = load_checked_dataset(Path(RELEASE) / "data", allow_partial=False)
    assert differences == {}
    for q, expected in RELEASE_FILES.items():
        assert (len(data[q]), file_sha256(Path(RELEASE) / "data" / f"{q}.json")) == (expected.records, expected.sha256)


@needs_release
def test_a_release_file_cut_short_is_a_named_error_or_a_partial_row(tmp_path, capsys):
    from benchmarks.__main__ import main
    from tom_envs.release_files import ReleaseMismatch

    cut = _cut_release(tmp_path, "judge_qa", 1000)
    with pytest.raises(
        ReleaseMismatch,
        match=r"judge_qa.json: not the release's judge_qa \(1000 records where the "
        r"release has 2041; sha256 .*--allow-partial",
    ):
        load_dataset(cut, "judge_qa", allow_partial=False)
    argv = [
        "persuasion",
        "--data-dir",
        str(cut),
        "--qtypes",
        "judge_qa",
        "--policy",
        "always-first",
        "--repetitions",
        "1",
        "--format",
        "json",
        "--out",
        str(tmp_path / "res"),
    ]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "1000 records where the release has 2041" in err and "data download persuasion" in err
    assert main([*argv, "--allow-partial"]) == 0
    captured = capsys.readouterr()
    (row,) = json.loads(captured.out)
    assert (row["n"], row["partial"], row["release_file"]) == (1000, True, "differs")
    assert "note: --allow-partial" in captured.err and "judge_qa.json: not the release's" in captured.err
    (stored,) = (tmp_path / "res" / "persuasion").glob("qa_always_first_*.jsonl")
    assert all(json.loads(line)["partial"] is True for line in stored.read_text().splitlines())
    env = PersuasiveToMEnv(data_dir=cut, qtypes="judge_qa")  # the env's default takes it, and says so
    assert env.partial and set(env.release_differences) == {"judge_qa"}


@needs_release
def test_the_whole_release_gives_verified_rows_never_partial(tmp_path, capsys):
    from benchmarks.__main__ import main

    assert (
        main(
            [
                "persuasion",
                "--data-dir",
                str(Path(RELEASE) / "data"),
                "--qtypes",
                "judge_qa",
                "--policy",
                "always-first",
                "--repetitions",
                "1",
                "--format",
                "json",
                "--out",
                str(tmp_path),
            ]
        )
        == 0
    )
    (row,) = json.loads(capsys.readouterr().out)
    assert (row["n"], row["partial"], row["release_file"]) == (2041, False, "verified")
