"""Download faults, the same in both QA families (issue 29): a transfer cut mid-file, a body shorter or
longer than its Content-Length, a broken answer, a file missing upstream, a malformed file -- each a named
error reported by its destination path (never a ``.part-*`` path), the other files still fetched, and the
command's exit status 2 with one ``error:`` line and no traceback; loader warnings as one line."""

from __future__ import annotations

import gzip
import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tom_envs.common_ground import SAMPLE_DATA_DIR
from tom_envs.common_ground import download as cg_download
from tom_envs.download import DownloadError, IncompleteDownload, fetch, save_validated
from tom_envs.errors import DatasetError
from tom_envs.persuasion import download as pers_download
from tom_envs.persuasion.data import RELEASE_VERIFIED

PERSUASION_SAMPLE = Path(pers_download.__file__).parent / "sample_data"


class _Site(BaseHTTPRequestHandler):
    """Serves ``files`` (path -> bytes); ``faults`` (path -> kind) break some answers on purpose."""

    files: dict[str, bytes] = {}
    faults: dict[str, str] = {}

    def log_message(self, format, *args):  # noqa: A002
        pass

    def do_GET(self):  # noqa: N802
        body, fault = self.files.get(self.path), self.faults.get(self.path)
        if body is None:
            self.send_error(404)
            return
        if fault == "reset":  # the connection closes before any status line
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        self.send_response(200)
        announced = len(body) + 100 if fault in ("cut", "short") else len(body)
        self.send_header("Content-Length", str(announced))
        self.end_headers()
        self.wfile.write(body[: len(body) // 2] if fault == "cut" else body)
        if fault == "cut":
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)


@pytest.fixture
def site():
    handler = type("Handler", (_Site,), {"files": {}, "faults": {}})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield handler, f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()
    thread.join()


def _common_ground_site(handler, base):
    for part in ("cg", "questions", "prompts"):
        for path in (SAMPLE_DATA_DIR / part).iterdir():
            handler.files[f"/data/{part}/{path.name}"] = path.read_bytes()
    listing = [{"name": p.name, "download_url": f"{base}/data/cg/{p.name}"} for p in (SAMPLE_DATA_DIR / "cg").iterdir()]
    handler.files["/api/cg.json"] = json.dumps(listing).encode()


def _persuasion_site(handler):
    for qtype in RELEASE_VERIFIED:
        handler.files[f"/data/{qtype}.json"] = (PERSUASION_SAMPLE / f"{qtype}.json").read_bytes()


@pytest.mark.parametrize(
    "fault, message", [("cut", "cut short"), ("reset", "broken|cannot connect"), ("short", "cut short|Content-Length")]
)
def test_fetch_turns_every_transfer_fault_into_a_download_error(site, fault, message):
    handler, base = site
    handler.files["/f"], handler.faults["/f"] = b"x" * 1000, fault
    with pytest.raises(DownloadError, match=message):
        fetch(f"{base}/f", timeout=5)


def test_a_body_longer_than_announced_is_an_error(site, monkeypatch):
    handler, base = site
    handler.files["/f"] = b"x" * 10
    import http.client

    real = http.client.HTTPMessage.get

    def lying(self, name, default=None):  # the server announces fewer bytes than it sends
        return (
            "5" if name == "Content-Length" and self.get_all("Content-Length") == ["10"] else real(self, name, default)
        )

    monkeypatch.setattr(http.client.HTTPMessage, "get", lying)
    with pytest.raises(DownloadError, match="got 10 bytes, but the server announced 5"):
        fetch(f"{base}/f", timeout=5)


@pytest.mark.parametrize("family", ["common-ground", "persuasion"])
@pytest.mark.parametrize("fault", ["cut", "missing", "malformed"])
def test_both_families_fetch_the_rest_and_fail_naming_the_file(site, tmp_path, capsys, family, fault):
    handler, base = site
    if family == "common-ground":
        _common_ground_site(handler, base)
        bad = "/data/questions/4245_Magda_yn_questions.csv.gz"
        run = lambda: cg_download.download(
            tmp_path / "d",
            cids=(4245, 4431),
            base_url=f"{base}/data",  # noqa: E731
            listing_url=f"{base}/api/cg.json",
            timeout=5,
        )
        name = "questions/4245_Magda_yn_questions.csv.gz"
        others = 4  # two corpus files, the other question file, the prompt file
    else:
        _persuasion_site(handler)
        bad = "/data/desire_ee.json"
        run = lambda: pers_download.download(
            tmp_path / "d",
            RELEASE_VERIFIED,
            base_url=f"{base}/data",  # noqa: E731
            timeout=5,
            prompts=False,
        )
        name = "desire_ee"
        others = 3
    if fault == "cut":
        handler.faults[bad] = "cut"
    elif fault == "missing":
        del handler.files[bad]
    else:
        handler.files[bad] = gzip.compress(b"nonsense") if family == "common-ground" else b"[{]"
    error = DatasetError if fault == "malformed" else IncompleteDownload
    with pytest.raises(error) as exc:
        run()
    message = str(exc.value)
    assert name in message and ".part-" not in message
    if fault != "missing":
        assert str(tmp_path / "d") in message  # named by where it would have gone
    saved = [p for p in (tmp_path / "d").rglob("*") if p.is_file()]
    assert len(saved) == others and not list((tmp_path / "d").rglob(".part-*"))
    assert ".part-" not in capsys.readouterr().err


def test_the_command_exits_2_with_one_error_line(site, tmp_path, capsys):
    from tom_envs.download import main

    handler, base = site
    _common_ground_site(handler, base)
    handler.faults["/data/questions/4431_Magda_yn_questions.csv.gz"] = "cut"
    code = main(
        [
            "common-ground",
            "--dest",
            str(tmp_path / "d"),
            "--base-url",
            f"{base}/data",
            "--listing-url",
            f"{base}/api/cg.json",
            "--timeout",
            "5",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    (line,) = [x for x in err.splitlines() if x.startswith("error:")]
    assert "incomplete" in line and "4431_Magda_yn_questions.csv.gz" in line


def test_a_validator_s_message_names_the_destination_not_the_part_file(tmp_path):
    def reject(path):
        raise DatasetError(f"{path}: bad row 3")

    target = tmp_path / "q" / "f.csv.gz"
    with pytest.raises(DatasetError) as exc:
        save_validated(b"x", target, reject, "http://example.invalid/f")
    assert str(target) in str(exc.value) and ".part-" not in str(exc.value) and "bad row 3" in str(exc.value)


@pytest.mark.filterwarnings("always::UserWarning")
def test_loader_warnings_print_as_one_line_without_source(site, tmp_path, capsys):
    from tom_envs.download import main

    handler, base = site
    _common_ground_site(handler, base)
    lines = (SAMPLE_DATA_DIR / "cg" / "4431_Magda_sample.tsv").read_text(encoding="utf-8").split("\n")
    i = next(
        i
        for i, line in enumerate(lines)
        if i and len(line.split("\t")) > 3 and line.split("\t")[2] and line.split("\t")[3]
    )
    cells = lines[i].split("\t")
    lines[i] = "\t".join([*cells[:2], "", *cells[3:]])  # an annotated event without Event text: a loader warning
    tsv = "\n".join(lines).encode("utf-8")
    handler.files["/data/cg/4431_Magda_sample.tsv"] = tsv
    assert (
        main(
            [
                "common-ground",
                "--dest",
                str(tmp_path / "d"),
                "--base-url",
                f"{base}/data",
                "--listing-url",
                f"{base}/api/cg.json",
                "--conversations",
                "4431",
                "--only",
                "cg",
            ]
        )
        == 0
    )
    err = capsys.readouterr().err
    warned = [x for x in err.splitlines() if "Event text" in x]
    assert tsv and warned and all(x.startswith("warning: ") and ".part-" not in x for x in warned)
    assert "warnings.warn" not in err and "conv = " not in err
