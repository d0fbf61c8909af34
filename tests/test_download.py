"""One download mechanism (tom_envs.download) behind ``data download NAME`` and its older aliases."""

from __future__ import annotations

import pytest

from tests.test_common_ground_download import server  # noqa: F401  (the loopback mirror fixture)
from tom_envs import download as shared
from tom_envs.common_ground import download as cg_download
from tom_envs.persuasion import download as p_download


def test_every_family_raises_the_one_download_error():
    assert cg_download.DownloadError is shared.DownloadError is p_download.DownloadError
    assert issubclass(shared.DownloadError, OSError)


def test_every_listed_dataset_has_a_download_command():
    from benchmarks.data import _datasets

    listed = {d.name: d.download for d in _datasets() if d.download}
    assert listed == shared.DOWNLOADS


def test_shared_entry_point_and_old_alias_fetch_the_same_files(server, tmp_path, capsys):  # noqa: F811
    argv = ["--conversations", "4431", "--base-url", server["base_url"], "--listing-url", server["listing_url"]]
    assert shared.main(["common-ground", "--dest", str(tmp_path / "new"), *argv]) == 0
    assert cg_download.main(["--dest", str(tmp_path / "old"), *argv]) == 0
    new = sorted(p.relative_to(tmp_path / "new") for p in (tmp_path / "new").rglob("*") if p.is_file())
    old = sorted(p.relative_to(tmp_path / "old") for p in (tmp_path / "old").rglob("*") if p.is_file())
    assert new == old and len(new) == 3  # corpus, questions, prompt file


def test_only_http_addresses_are_fetched(tmp_path):
    with pytest.raises(shared.DownloadError, match="http"):
        shared.fetch("file:///etc/passwd")
    with pytest.raises(shared.DownloadError, match="http"):
        p_download.download(tmp_path, ["judge_qa"], base_url="ftp://example.org/data")


@pytest.mark.parametrize("argv", [
    ["data", "download", "persuasion", "--timeout", "0"],
    ["data", "download", "persuasion", "--timeout", "soon"],
    ["data", "download", "common-ground", "--timeout", "-1"],
])
def test_bad_timeouts_are_usage_errors(argv, capsys):
    from benchmarks.__main__ import main

    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert "error:" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [
    ["data", "download", "persuasion", "--types", " , "],
    ["data", "download", "persuasion", "--types", "desire_xx"],
    ["data", "download", "common-ground", "--conversations", ""],
    ["data", "download", "common-ground", "--conversations", "12,x"],
])
def test_empty_or_malformed_lists_are_named_errors(argv, tmp_path, capsys):
    from benchmarks.__main__ import main

    assert main([*argv, "--dest", str(tmp_path / "d")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and "Traceback" not in err
