"""The layout of a Common-ToM data folder (seed 003; the published repository's ``data/``).

Where the files of the two formats (:mod:`tom_envs.common_ground.corpus`) sit and what their names say
(conversation id and annotator), the bundled sample, 003's train/test split of the conversations, and the
release's files pinned by record count and sha256: :func:`scan` finds the files of a folder,
:func:`split_cids` picks a split's conversations (an incomplete named split is an :class:`IncompleteSplit`),
:func:`check_file` checks a file against the release's and :func:`pick_annotator` chooses among a
conversation's annotators. :mod:`tom_envs.common_ground.corpus` re-exports every public name here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from tom_envs.errors import DatasetError
from tom_envs.release_files import SAMPLE_MARKER, ReleaseFile, check_release_file

#: Folder of the small sample data bundled with the package (written by us, published layout).
SAMPLE_DATA_DIR: Path = Path(__file__).resolve().parent / "sample_data"
#: The held-out test conversation of 003 (the other three are the training split).
TEST_CIDS: tuple[int, ...] = (4431,)
TRAIN_CIDS: tuple[int, ...] = (4245, 4248, 4310)
#: The annotator whose labels the released questions were generated from.
DEFAULT_ANNOTATOR = "Magda"
#: The annotators of the release; a corpus file belongs to the one whose name it contains, as the
#: release's own loader finds ``{cid}*{annotator}*.tsv`` (e.g. ``4248_PlatinumMagdaFULL_230615.tsv``).
KNOWN_ANNOTATORS: tuple[str, ...] = ("Erica", "Lana", "Lee", "Magda")
#: A corpus file's name: ``<cid>_<annotator field>_....tsv``.
CORPUS_NAME = re.compile(r"^(\d+)_([^_]+)_.*\.tsv$")
#: A question file's name: ``<cid>_<annotator field>_yn_questions.csv.gz``.
QUESTION_NAME = re.compile(r"^(\d+)_([^_]+)_yn_questions\.csv\.gz$")


def annotator_name(field_text: str) -> str:
    """The annotator a file-name field names: the known annotator it contains, else the field itself.

    ``"PlatinumMagdaFULL"`` -> ``"Magda"``; ``"Tester"`` -> ``"Tester"``.
    """
    hits = [name for name in KNOWN_ANNOTATORS if name in field_text]
    return hits[0] if len(hits) == 1 else field_text


@dataclass(frozen=True)
class DataFolder:
    """The files of a data folder laid out like the published repository's ``data/``.

    Attributes:
        root: the folder (holding ``cg/`` and/or ``questions/``).
        corpus: ``(cid, annotator) -> path`` of the corpus files found.
        questions: ``(cid, annotator) -> path`` of the question files found.
    """

    root: Path
    corpus: dict[tuple[int, str], Path]
    questions: dict[tuple[int, str], Path]


def scan(data_dir: str | Path | None = None) -> DataFolder:
    """Find the corpus and question files under ``data_dir`` (default: the bundled sample).

    Raises:
        DatasetError: the folder does not exist or holds neither ``cg/`` nor ``questions/`` files.
    """
    root = Path(data_dir) if data_dir is not None else SAMPLE_DATA_DIR
    if not root.is_dir():
        what = "is a file, not a folder" if root.exists() else "no such folder"
        raise DatasetError(
            f"{root}: {what}; pass the data folder of the Common-ToM repository (with cg/ and questions/)"
        )
    corpus = _files(root / "cg", CORPUS_NAME, "*.tsv")
    questions = _files(root / "questions", QUESTION_NAME, "*.csv.gz")
    if not corpus and not questions:
        raise DatasetError(
            f"{root}: found neither cg/<cid>_<annotator>_....tsv nor questions/<cid>_<annotator>_yn_questions.csv.gz; "
            "download them with `tom-envs data download common-ground --dest DIR`"
        )
    return DataFolder(root, corpus, questions)


def _files(folder: Path, pattern: re.Pattern, glob: str) -> dict[tuple[int, str], Path]:
    found: dict[tuple[int, str], Path] = {}
    if folder.is_dir():
        for path in sorted(folder.glob(glob)):
            match = pattern.match(path.name)
            if match:
                found.setdefault((int(match.group(1)), annotator_name(match.group(2))), path)
    return found


class IncompleteSplit(DatasetError):
    """A named split lacks some of its conversations' files (a partial download, a deleted file): the
    scores would silently cover fewer questions than 003's. Pass ``allow_partial=True``
    (``--allow-partial``) to use what is there on purpose."""


class UnknownConversation(DatasetError):
    """A conversation id asked for (an explicit split, ``reset(options={"cid": ...})``) is not in the data."""


#: The conversations of each named split (003: conversation 4431 is the test split, the others train).
SPLIT_CIDS: dict[str, tuple[int, ...]] = {
    "test": TEST_CIDS,
    "train": TRAIN_CIDS,
    "all": tuple(sorted(TEST_CIDS + TRAIN_CIDS)),
}


def split_cids(
    split: str | Sequence[int], available: Iterable[int], complete: bool = False, where: str = "the data"
) -> list[int]:
    """Conversation ids of a split (``"test"``, ``"train"``, ``"all"`` or explicit ids) among ``available``.

    Args:
        complete: a named split must have every one of its conversations (:data:`SPLIT_CIDS`) in
            ``available``; False takes what is there (the bundled sample, ``allow_partial``).
        where: what ``available`` lists, for the messages (e.g. ``"DIR/questions/"``).

    Raises:
        DatasetError: unknown split name, or no conversation of the split is available.
        IncompleteSplit: ``complete`` and a conversation of the named split is missing.
        UnknownConversation: an explicit id that is not in ``available``.
    """
    have = sorted(set(available))
    if isinstance(split, str):
        if split not in SPLIT_CIDS:
            raise DatasetError(
                f"unknown split {split!r}; use 'test' (conversation 4431), 'train' (the others) or 'all'"
            )
        missing = missing_conversations(split, have)
        if complete and missing:
            raise IncompleteSplit(
                f"split {split!r} is incomplete: conversation(s) {missing} have no file in {where} (have {have}); "
                f"its scores would cover only part of 003's questions. Re-download the release (python -m benchmarks "
                f"data download common-ground --dest DIR), or pass --allow-partial (allow_partial=True) to use the "
                f"conversations that are there"
            )
        wanted = [c for c in have if split == "all" or (c in TEST_CIDS) == (split == "test")]
    else:
        ids = [int(x) for x in split]
        unknown = [c for c in ids if c not in have]
        if unknown:
            raise UnknownConversation(
                f"conversation id(s) {unknown} are not in {where} (have {have}); name conversations that are there"
            )
        wanted = [c for c in have if c in set(ids)]
    if not wanted:
        raise DatasetError(
            f"no conversation of split {split!r} in {where} (have {have}); pick another split or data folder"
        )
    return wanted


def missing_conversations(split: str | Sequence[int], available: Iterable[int]) -> list[int]:
    """The conversations of the named ``split`` (:data:`SPLIT_CIDS`) that ``available`` lacks, when it has
    some of them (a folder with none of them is one's own data, not a part of the release); ``[]`` for
    an explicit list of ids or an unknown name."""
    if not isinstance(split, str) or split not in SPLIT_CIDS:
        return []
    have = set(available)
    missing = [c for c in SPLIT_CIDS[split] if c not in have]
    return missing if len(missing) < len(SPLIT_CIDS[split]) else []


#: The release's data files (github.com/cogstates/common-tom, ``data/``, commit 44675c1) as measured on a
#: clone: question files (records: questions; Table 2's 5,270 train and 2,104 test) and corpus files (records:
#: event rows), each with the sha256 of its bytes. A file of a data folder under one of these names is
#: checked against it (:func:`check_file`); other names are one's own data and are not.
RELEASE_FILES: dict[str, ReleaseFile] = {
    "questions/4245_Magda_yn_questions.csv.gz": ReleaseFile(
        949, "20885579301bd09621d78a66920399e50503dd6234460df8167f641fcefbc8f8"
    ),
    "questions/4248_Magda_yn_questions.csv.gz": ReleaseFile(
        2030, "dce5946933cd3ff7cde5f821e0b723f62b8a73b2b931f559a158d10003e18e60"
    ),
    "questions/4310_Magda_yn_questions.csv.gz": ReleaseFile(
        2291, "f4710c6a5f0e8ca256998278d7a7a2156dabe5b73385750a8de4d3491d908bdf"
    ),
    "questions/4431_Magda_yn_questions.csv.gz": ReleaseFile(
        2104, "b4bfc1b39285516907644d4aafe35ed09af5d1d8ce4f23e9dfe8534b1aee2884"
    ),
    "cg/4245_Magda_230613.tsv": ReleaseFile(331, "2e17322e92e7565a31145627c5b312e67db5a1908b32d01670c6866089980be6"),
    "cg/4248_PlatinumMagdaFULL_230615.tsv": ReleaseFile(
        436, "7a6747ae5cc54c626778b28a8de29498b7f4615ddf8f49ed02db7a0d14abd0bd"
    ),
    "cg/4310_PlatinumMagda_230615.tsv": ReleaseFile(
        584, "58c94ba17cf3d306384e41045b15b38764776af253b9c89e64142c09b0cb1698"
    ),
    "cg/4431_Magda_230615.tsv": ReleaseFile(389, "abc7e94b0c554fa205d130cc778c90bdba54c88b8da34b3a97b888d0d91c0517"),
}


def check_file(folder: DataFolder, path: Path, records: int, allow_partial: bool) -> str | None:
    """:func:`tom_envs.release_files.check_release_file` for a file of ``folder`` (``cg/`` or ``questions/``):
    None for a file that is the release's, one not named like the release's, or any file of a sample
    folder (:func:`is_bundled_sample`); else the difference (``allow_partial``) or
    :class:`~tom_envs.release_files.ReleaseMismatch`."""
    if is_bundled_sample(folder):
        return None
    fix = "Download the release again (python -m benchmarks data download common-ground --dest DIR --force)"
    return check_release_file(path, f"{path.parent.name}/{path.name}", records, RELEASE_FILES, allow_partial, fix)


def is_bundled_sample(folder: DataFolder) -> bool:
    """Whether ``folder`` is the sample bundled with tom-envs or a copy of it (it holds
    :data:`~tom_envs.release_files.SAMPLE_MARKER`): two conversations of four, partial on purpose, so its
    splits are taken as they are and its files are not checked against the release's (:func:`check_file`)."""
    return folder.root.resolve() == SAMPLE_DATA_DIR or (folder.root / SAMPLE_MARKER).is_file()


def pick_annotator(folder_files: dict[tuple[int, str], Path], cid: int, annotator: str | None) -> Path:
    """The file of conversation ``cid`` by ``annotator`` (or the only annotator, or the default one)."""
    names = sorted(a for c, a in folder_files if c == cid)
    if annotator is None:
        annotator = names[0] if len(names) == 1 else DEFAULT_ANNOTATOR
    if (cid, annotator) not in folder_files:
        raise DatasetError(f"conversation {cid}: no file by annotator {annotator!r} (have {names}); pass annotator=")
    return folder_files[(cid, annotator)]
