"""``data download negotiation`` against a loopback HTTP server serving our sample case.

Our sample (``tests/data/negotiation/cases/harbour.json``, written by us in the release's case
format) is served under the release's six file names, as ``cases/<case>.json``."""

from __future__ import annotations

import functools
import shutil
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tom_envs.errors import DatasetError
from tom_envs.negotiation import Scenario
from tom_envs.negotiation import download as dl

SAMPLE = Path(__file__).parent / "data" / "negotiation" / "cases" / "harbour.json"


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - keep test output clean
        pass


@pytest.fixture
def server(tmp_path):
    root = tmp_path / "mirror"
    (root / "cases").mkdir(parents=True)
    for case in dl.CASES:
        if case != "francis":  # one case missing upstream (answers 404)
            shutil.copy(SAMPLE, root / "cases" / f"{case}.json")
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(root)))
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield {"root": root, "base_url": f"http://127.0.0.1:{httpd.server_address[1]}/cases"}
    httpd.shutdown()
    httpd.server_close()


def test_download_fetches_validates_and_reports_missing(server, tmp_path, capsys):
    dest = tmp_path / "data" / "promediate" / "cases"
    paths = dl.download(dest, base_url=server["base_url"])
    assert [p.name for p in paths] == [f"{c}.json" for c in dl.CASES if c != "francis"]
    assert "skipped francis.json: missing upstream" in capsys.readouterr().err
    assert [p.name for p in Scenario.from_file(paths[0]).parties] == ["Ana", "Ben", "Cleo"]
    assert dl.downloaded_cases(dest) == paths


def test_download_rejects_a_case_the_importer_rejects(server, tmp_path):
    (server["root"] / "cases" / "hmo.json").write_text('{"names": {}}', encoding="utf-8")
    with pytest.raises(DatasetError, match="missing keys"):
        dl.download(tmp_path / "d", cases=["hmo"], base_url=server["base_url"])
    assert not (tmp_path / "d").exists()  # nothing saved, no empty folder left


def test_download_command_line_and_unknown_case(server, tmp_path, capsys):
    from benchmarks.__main__ import main

    dest = tmp_path / "c"
    assert (
        main(
            [
                "data",
                "download",
                "negotiation",
                "--dest",
                str(dest),
                "--cases",
                "hmo,river",
                "--base-url",
                server["base_url"],
            ]
        )
        == 0
    )
    assert sorted(p.name for p in dest.iterdir()) == ["hmo.json", "river.json"]
    with pytest.raises(DatasetError, match="unknown case 'atlantis'"):
        dl.download(tmp_path / "e", cases=["atlantis"], base_url=server["base_url"])


def test_downloaded_cases_follow_the_environment_variable(tmp_path, monkeypatch):
    assert dl.downloaded_cases(tmp_path) == []
    shutil.copy(SAMPLE, tmp_path / "river.json")
    monkeypatch.setenv(dl.ENV_VAR, str(tmp_path))
    assert dl.downloaded_cases() == [tmp_path / "river.json"]
