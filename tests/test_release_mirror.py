"""TOM_ENVS_RELEASE_MIRROR: the downloads fetch the release hosts' addresses from a mirror (an offline machine)."""

from __future__ import annotations

import warnings
from types import SimpleNamespace

import pytest

from tests.release_mirror import MirrorServer, build_mirror, download_problems
from tom_envs.download import MIRROR_ENV, ReleaseMirrorError, mirrored


@pytest.fixture(scope="module")
def mirror(tmp_path_factory):
    folder = tmp_path_factory.mktemp("mirror")
    sources = build_mirror(folder)
    server = MirrorServer(folder)
    yield server, sources
    server.close()


def _download(args, monkeypatch, capsys, env_value):
    """``tom-envs data download ARGS`` (the same parser and run, in this process) with the mirror set to
    ``env_value``; a CompletedProcess-like result."""
    from tom_envs.download import main

    if env_value is None:
        monkeypatch.delenv(MIRROR_ENV, raising=False)
    else:
        monkeypatch.setenv(MIRROR_ENV, env_value)
    capsys.readouterr()
    with warnings.catch_warnings():  # a loader's warnings printed as the command prints them (release files have some)
        warnings.simplefilter("always")
        code = main(args)
    out, err = capsys.readouterr()
    return SimpleNamespace(returncode=code, stdout=out, stderr=err)


def test_an_address_on_a_release_host_goes_to_the_mirror(monkeypatch):
    monkeypatch.setenv(MIRROR_ENV, "http://127.0.0.1:8080/m/")
    assert mirrored("https://raw.githubusercontent.com/o/r/main/data/x.json") == (
        "http://127.0.0.1:8080/m/raw.githubusercontent.com/o/r/main/data/x.json"
    )
    assert mirrored("https://api.github.com/repos/o/r/contents/data/cg") == (
        "http://127.0.0.1:8080/m/api.github.com/repos/o/r/contents/data/cg"
    )
    assert mirrored("https://example.org/data/x.json") == "https://example.org/data/x.json"  # not a release host
    monkeypatch.setenv(MIRROR_ENV, "")
    assert mirrored("https://raw.githubusercontent.com/o/r/x") == "https://raw.githubusercontent.com/o/r/x"


@pytest.mark.parametrize(
    "value", ["127.0.0.1:8080", "ftp://host/", "http://", "http://host:99999", "http://host:x", "http://h/?a=1"]
)
def test_a_malformed_mirror_is_a_named_error(monkeypatch, value):
    monkeypatch.setenv(MIRROR_ENV, value)
    with pytest.raises(ReleaseMirrorError, match=MIRROR_ENV):
        mirrored("https://raw.githubusercontent.com/o/r/main/x")


def test_the_command_refuses_a_malformed_mirror_before_writing(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    run = _download(["persuasion", "--dest", "out"], monkeypatch, capsys, "not-a-url")
    assert run.returncode == 2 and f"error: {MIRROR_ENV}='not-a-url'" in run.stderr
    assert not (tmp_path / "out").exists()


def test_the_downloads_fetch_from_the_mirror_and_report_what_it_lacks(mirror, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    server, sources = mirror
    for args in (["persuasion", "--dest", "p"], ["negotiation", "--dest", "n"], ["common-ground", "--dest", "c"]):
        server.requests.clear()
        run = _download(args, monkeypatch, capsys, server.url)
        assert not download_problems(run.returncode, run.stdout, run.stderr, server, sources, tmp_path), run.stderr
        assert {path.split("/")[1] for path, _ in server.requests} <= {"raw.githubusercontent.com", "api.github.com"}


def test_an_explicit_address_elsewhere_is_fetched_as_given(mirror, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    server, sources = mirror
    server.requests.clear()
    base = f"{server.url}/raw.githubusercontent.com/Yu-Fangxu/PersuasiveToM/main/data"
    run = _download(
        ["persuasion", "--dest", "p", "--types", "desire_ee", "--base-url", base], monkeypatch, capsys, "http://x:1"
    )
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "p" / "desire_ee.json").is_file() and server.requests


def test_the_docs_check_fails_a_download_that_ignored_the_mirror(mirror, tmp_path, monkeypatch, capsys):
    """The control of the docs test's check: a run that never asked the mirror is not a download from it."""
    monkeypatch.chdir(tmp_path)
    server, sources = mirror
    server.requests.clear()
    run = _download(["persuasion", "--dest", "p"], monkeypatch, capsys, "http://127.0.0.1:9")  # nothing listens there
    assert run.returncode == 2
    assert download_problems(run.returncode, run.stdout, run.stderr, server, sources, tmp_path)
