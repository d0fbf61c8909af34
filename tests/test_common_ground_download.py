"""The Common-ToM download command against a loopback HTTP server serving our sample files."""

from __future__ import annotations

import argparse
import functools
import json
import shutil
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tom_envs.common_ground import SAMPLE_DATA_DIR, scan
from tom_envs.common_ground import download as dl
from tom_envs.download import IncompleteDownload
from tom_envs.errors import DatasetError


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - keep test output clean
        pass


@pytest.fixture
def server(tmp_path):
    """A mirror of the repository layout: data/cg, data/questions and a GitHub-style listing of data/cg."""
    root = tmp_path / "site"
    shutil.copytree(SAMPLE_DATA_DIR / "cg", root / "data" / "cg")
    shutil.copytree(SAMPLE_DATA_DIR / "questions", root / "data" / "questions")
    shutil.copytree(SAMPLE_DATA_DIR / "prompts", root / "data" / "prompts")
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(root)))
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    listing = [
        {"name": p.name, "type": "file", "download_url": f"{base}/data/cg/{p.name}"}
        for p in sorted((root / "data" / "cg").iterdir())
    ]
    (root / "api").mkdir()
    (root / "api" / "cg.json").write_text(json.dumps(listing))
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield {"root": root, "base_url": f"{base}/data", "listing_url": f"{base}/api/cg.json"}
    httpd.shutdown()
    httpd.server_close()
    thread.join()


def test_download_fetches_validates_and_lays_out_the_files(server, tmp_path):
    dest = tmp_path / "data"
    paths = dl.download(
        dest, cids=(4245, 4431), parts=dl.PARTS, base_url=server["base_url"], listing_url=server["listing_url"]
    )
    assert sorted(p.relative_to(dest).as_posix() for p in paths) == [
        "cg/4245_Magda_sample.tsv",
        "cg/4431_Magda_sample.tsv",
        "prompts/gpt-zero-shot",
        "questions/4245_Magda_yn_questions.csv.gz",
        "questions/4431_Magda_yn_questions.csv.gz",
    ]
    for p in paths:
        assert p.read_bytes() == (SAMPLE_DATA_DIR / p.parent.name / p.name).read_bytes()
    folder = scan(dest)
    assert sorted(folder.corpus) == [(4245, "Magda"), (4431, "Magda")]
    assert not list(dest.rglob(".part-*"))


def test_download_keeps_existing_files_unless_forced(server, tmp_path):
    dest = tmp_path / "data"
    kwargs = dict(cids=(4431,), base_url=server["base_url"], listing_url=server["listing_url"])
    dl.download(dest, **kwargs)
    target = dest / "questions" / "4431_Magda_yn_questions.csv.gz"
    target.write_bytes(b"stale")
    dl.download(dest, **kwargs)
    assert target.read_bytes() == b"stale"
    dl.download(dest, force=True, **kwargs)
    assert target.read_bytes() == (SAMPLE_DATA_DIR / "questions" / target.name).read_bytes()


def test_download_reports_missing_files_and_rejects_malformed_ones(server, tmp_path):
    with pytest.raises(
        dl.DownloadError, match=r"nothing was fetched.*questions/4248_Magda_yn_questions.csv.gz.*HTTP 404"
    ):
        dl.download(tmp_path / "a", cids=(4248,), parts=("questions",), base_url=server["base_url"])
    with pytest.raises(dl.DownloadError, match="no corpus file"):
        dl.download(tmp_path / "b", cids=(4248,), parts=("cg",), listing_url=server["listing_url"])
    (server["root"] / "data" / "questions" / "4431_Magda_yn_questions.csv.gz").write_bytes(b"not gzip")
    with pytest.raises(DatasetError, match="malformed"):
        dl.download(tmp_path / "c", cids=(4431,), parts=("questions",), base_url=server["base_url"])
    assert not (tmp_path / "c" / "questions" / "4431_Magda_yn_questions.csv.gz").exists()


def test_download_command_line(server, tmp_path, capsys):
    parser = argparse.ArgumentParser()
    dl.add_arguments(parser)
    args = parser.parse_args(
        [
            "--dest",
            str(tmp_path / "d"),
            "--conversations",
            "4431",
            "--base-url",
            server["base_url"],
            "--listing-url",
            server["listing_url"],
        ]
    )
    assert dl.run(args) == 0
    fetched = capsys.readouterr().out.split()
    assert (
        len(fetched) == 3 and str(tmp_path / "d" / "prompts" / "gpt-zero-shot") in fetched
    )  # corpus, questions, prompt
    args = parser.parse_args(["--dest", str(tmp_path / "p"), "--base-url", server["base_url"], "--only", "prompts"])
    assert dl.run(args) == 0
    assert capsys.readouterr().out.split() == [str(tmp_path / "p" / "prompts" / "gpt-zero-shot")]
    args = parser.parse_args(
        ["--dest", str(tmp_path / "e"), "--base-url", "http://127.0.0.1:1/nowhere", "--only", "questions"]
    )
    assert dl.run(args) == 2
    assert "cannot connect" in capsys.readouterr().err
    assert dl.run(parser.parse_args(["--conversations", "x"])) == 2


def test_data_download_and_list_commands(server, tmp_path, capsys):
    from benchmarks.__main__ import main

    assert (
        main(
            [
                "data",
                "download",
                "common-ground",
                "--dest",
                str(tmp_path / "d"),
                "--conversations",
                "4431",
                "--base-url",
                server["base_url"],
                "--listing-url",
                server["listing_url"],
            ]
        )
        == 0
    )
    files = capsys.readouterr().out.split()
    assert len(files) == 3  # corpus, questions, prompt file
    assert (
        main(
            [
                "data",
                "download",
                "common-ground",
                "--dest",
                str(tmp_path / "d"),
                "--conversations",
                "4431",
                "--base-url",
                server["base_url"],
                "--listing-url",
                server["listing_url"],
                "--format",
                "json",
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out) == {"files": files}
    assert main(["data", "list", "--format", "json"]) == 0
    listed = {d["name"]: d for d in json.loads(capsys.readouterr().out)}
    assert set(listed) == {"persuasion", "common-ground", "negotiation"}
    assert listed["common-ground"]["envs"] == ["tom/CommonToM-v2"]
    assert listed["common-ground"]["download"] == "tom_envs.common_ground.download"


def test_download_against_the_release_layout_fetches_what_exists_and_reports_the_rest(server, tmp_path, capsys):
    cg = server["root"] / "data" / "cg"
    (cg / "4245_Magda_sample.tsv").rename(cg / "4245_PlatinumMagdaFULL_230615.tsv")  # the release's naming
    listing = json.loads((server["root"] / "api" / "cg.json").read_text())
    for entry in listing:
        if entry["name"] == "4245_Magda_sample.tsv":
            entry["name"] = "4245_PlatinumMagdaFULL_230615.tsv"
            entry["download_url"] = entry["download_url"].replace("4245_Magda_sample.tsv", entry["name"])
    (server["root"] / "api" / "cg.json").write_text(json.dumps(listing))
    dest = tmp_path / "data"
    # what exists is fetched and saved; the folder is partial, so the download fails naming what is missing
    with pytest.raises(IncompleteDownload, match=r"questions/4310_Magda_yn_questions.csv.gz.*cg/4310\*Magda\*.tsv"):
        dl.download(
            dest,
            cids=(4245, 4310, 4431),
            parts=dl.PARTS,
            base_url=server["base_url"],
            listing_url=server["listing_url"],
        )
    assert sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file()) == [
        "cg/4245_PlatinumMagdaFULL_230615.tsv",
        "cg/4431_Magda_sample.tsv",
        "prompts/gpt-zero-shot",
        "questions/4245_Magda_yn_questions.csv.gz",
        "questions/4431_Magda_yn_questions.csv.gz",
    ]
    err = capsys.readouterr().err
    assert "skipped questions/4310_Magda_yn_questions.csv.gz" in err and "skipped conversation 4310" in err
    assert sorted(scan(dest).corpus) == [(4245, "Magda"), (4431, "Magda")]


def test_the_prompt_file_is_validated_and_reported_when_missing_upstream(server, tmp_path, capsys):
    prompt = server["root"] / "data" / "prompts" / "gpt-zero-shot"
    prompt.write_text("Answer this: {question}", encoding="utf-8")  # no {context}
    with pytest.raises(DatasetError, match="exactly the fields"):
        dl.download(tmp_path / "a", cids=(4431,), parts=("prompts",), base_url=server["base_url"])
    assert not (tmp_path / "a" / "prompts" / "gpt-zero-shot").exists()
    prompt.unlink()
    with pytest.raises(IncompleteDownload, match="missing upstream .*prompts/gpt-zero-shot"):
        dl.download(tmp_path / "b", cids=(4431,), parts=("questions", "prompts"), base_url=server["base_url"])
    assert [p.name for p in (tmp_path / "b").rglob("*") if p.is_file()] == ["4431_Magda_yn_questions.csv.gz"]
    assert "skipped prompts/gpt-zero-shot: missing upstream" in capsys.readouterr().err


def test_an_unreachable_listing_names_the_listing_option(tmp_path):
    with pytest.raises(dl.DownloadError, match="--listing-url"):
        dl.download(
            tmp_path,
            cids=(4431,),
            parts=("cg",),
            base_url="http://127.0.0.1:9/data",
            listing_url="http://127.0.0.1:9/api/cg.json",
            timeout=2,
        )


def test_the_default_folder_is_the_readme_s():
    parser = argparse.ArgumentParser()
    dl.add_arguments(parser)
    assert parser.parse_args([]).dest == "data/common_tom"
