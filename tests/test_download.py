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
    assert listed == shared.downloads() and set(listed) == {"persuasion", "common-ground", "negotiation"}


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


@pytest.mark.parametrize(
    "argv",
    [
        ["data", "download", "persuasion", "--timeout", "0"],
        ["data", "download", "persuasion", "--timeout", "soon"],
        ["data", "download", "common-ground", "--timeout", "-1"],
    ],
)
def test_bad_timeouts_are_usage_errors(argv, capsys):
    from benchmarks.__main__ import main

    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert "error:" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["data", "download", "persuasion", "--types", " , "],
        ["data", "download", "persuasion", "--types", "desire_xx"],
        ["data", "download", "common-ground", "--conversations", ""],
        ["data", "download", "common-ground", "--conversations", "12,x"],
    ],
)
def test_empty_or_malformed_lists_are_named_errors(argv, tmp_path, capsys):
    from benchmarks.__main__ import main

    assert main([*argv, "--dest", str(tmp_path / "d")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and "Traceback" not in err


def test_a_saved_file_has_the_user_s_mode_and_warnings_name_it(tmp_path):
    """The part file is written as any file of the user's (umask mode, not mkstemp's 0600), and what the
    loader warns about while validating names the file as saved, not the hidden part file."""
    import os
    import warnings

    from tom_envs.download import save_validated
    from tom_envs.errors import DatasetError

    def validate(path):
        warnings.warn(f"{path}: something to say", UserWarning)

    mask = os.umask(0o022)
    try:
        with pytest.warns(UserWarning) as caught:
            target = save_validated(b"x", tmp_path / "sub" / "file.tsv", validate)
    finally:
        os.umask(mask)
    assert target.read_bytes() == b"x" and (target.stat().st_mode & 0o777) == 0o644
    assert [str(w.message) for w in caught] == [f"{target}: something to say"]
    assert sorted(p.name for p in target.parent.iterdir()) == ["file.tsv"]  # no part folder left

    def reject(path):
        raise DatasetError("bad")

    with pytest.raises(DatasetError, match="malformed, not saved"):
        save_validated(b"y", tmp_path / "sub" / "other.tsv", reject)
    assert sorted(p.name for p in target.parent.iterdir()) == ["file.tsv"]
