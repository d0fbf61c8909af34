"""Readers and writers for the two published Common-ToM formats (seed 003).

* The **common-ground corpus** (``cg/<cid>_<annotator>_....tsv``): one tab-separated file per
  conversation, one row per event. Only the columns ``Sentence``, ``Eno.``, ``Event``, ``Bel(A)``,
  ``Bel(B)``, ``CG(A)`` and ``CG(B)`` are read.
* The **question files** (``questions/<cid>_<annotator>_yn_questions.csv.gz``): gzip CSV, one
  yes/no question per row.

Every row is validated with pydantic; a malformed one raises :class:`DatasetError` naming the
file and the row (1-based line number of the file, header = line 1).
"""

from __future__ import annotations

import csv
import gzip
import io
import math
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Literal, Sequence

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

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
#: The event text the release's generator writes for an annotated event whose Event cell is empty.
MISSING_EVENT_TEXT = "None"

BELIEF_LABELS: tuple[str, ...] = ("CT+", "PS", "CT-", "NB")
CG_LABELS: tuple[str, ...] = ("JA", "IN", "RT", "NA")
QUESTION_CERTAINTIES: tuple[str, ...] = ("CT+", "PS", "CT-")
MARKER = "🛑"
CORPUS_COLUMNS: tuple[str, ...] = ("Sentence", "Eno.", "Event", "Bel(A)", "Bel(B)", "CG(A)", "CG(B)")
QUESTION_COLUMNS: tuple[str, ...] = (
    "sno",
    "eno",
    "belief_A",
    "belief_B",
    "belief_Q",
    "cg_A",
    "cg_B",
    "order",
    "question",
    "answer",
    "context_type",
    "cid",
    "annotator",
    "context",
)
_ANNOTATION_COLUMNS = {"Bel(A)": ("A", "belief"), "Bel(B)": ("B", "belief"), "CG(A)": ("A", "cg"), "CG(B)": ("B", "cg")}
# "NA" may appear in a CG cell as an explicit "no status"; the published labels are JA, IN, RT.
_ALLOWED = {"belief": set(BELIEF_LABELS), "cg": {"JA", "IN", "RT", "NA"}}
_SPEAKER = re.compile(r"^\s*([AB])\s*:")
_CORPUS_NAME = re.compile(r"^(\d+)_([^_]+)_.*\.tsv$")
_QUESTION_NAME = re.compile(r"^(\d+)_([^_]+)_yn_questions\.csv\.gz$")

Belief = Literal["CT+", "PS", "CT-", "NB"]
CGStatus = Literal["JA", "IN", "RT", "NA"]


# ---------------------------------------------------------------------- corpus rows


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def parse_annotations(cell: str, kind: Literal["belief", "cg"]) -> list[tuple[str, float]]:
    """The ``(label, eno)`` items of one annotation cell, in the order written.

    Empty cells, the text ``None`` and a bare number (an export glitch of the corpus) hold no
    annotation and give ``[]``.

    Raises:
        ValueError: an item is not ``"LABEL eno"`` or its label is not allowed in this column.
    """
    text = cell.strip()
    if not text or text == "None" or _is_number(text):
        return []
    items = []
    for raw in text.split(","):
        parts = raw.split()
        if len(parts) != 2 or not _is_number(parts[1]):
            raise ValueError(f"annotation item {raw.strip()!r} is not of the form 'LABEL eno' (e.g. 'PS 3.5')")
        label, eno = parts[0], float(parts[1])
        if label not in _ALLOWED[kind]:
            raise ValueError(f"label {label!r} is not a {kind} label; expected one of {sorted(_ALLOWED[kind])}")
        items.append((label, eno))
    return items


class CorpusRow(BaseModel):
    """One event row of a corpus file (validated)."""

    model_config = ConfigDict(frozen=True)

    line: int
    sentence: str | None
    eno: float
    event: str | None
    annotations: tuple[tuple[str, str, str, float], ...]  # (speaker, kind, label, eno)

    @property
    def sno(self) -> int:
        """The sentence number (the integer part of ``Eno.``)."""
        return math.floor(self.eno)

    @field_validator("sentence")
    @classmethod
    def _speaker_prefix(cls, value: str | None) -> str | None:
        if value is not None and not _SPEAKER.match(value):
            raise ValueError(f"the sentence {value[:40]!r} does not start with the speaker ('A: ...' or 'B: ...')")
        return value


def _corpus_row(line: int, cells: dict[str, str]) -> CorpusRow:
    eno_text = cells["Eno."].strip()
    if not _is_number(eno_text):
        raise ValueError(f"Eno. {eno_text!r} is not a number like '14' or '14.3'")
    annotations = []
    for column, (speaker, kind) in _ANNOTATION_COLUMNS.items():
        try:
            annotations += [(speaker, kind, lab, eno) for lab, eno in parse_annotations(cells[column], kind)]
        except ValueError as exc:
            raise ValueError(f"column {column}: {exc}") from None
    sentence, event = cells["Sentence"].strip(), cells["Event"].strip()
    return CorpusRow(
        line=line,
        sentence=sentence or None,
        eno=float(eno_text),
        event=event if event and event != "None" else None,
        annotations=tuple(annotations),
    )


@dataclass
class Conversation:
    """One annotated conversation of the corpus.

    Attributes:
        cid: the conversation id (e.g. 4431).
        annotator: whose annotation this is (e.g. ``"Magda"``).
        path: the file it was read from.
        sentences: sentence number -> text (``"A: ..."``), in conversation order.
        events: event number (``Eno.``) -> the event's text.
        rows: the validated rows, in file order.
    """

    cid: int
    annotator: str
    path: Path
    sentences: dict[int, str] = field(default_factory=dict)
    events: dict[float, str] = field(default_factory=dict)
    rows: list[CorpusRow] = field(default_factory=list)

    @property
    def snos(self) -> list[int]:
        return list(self.sentences)

    def speaker(self, sno: int) -> str:
        """``"A"`` or ``"B"``: who says sentence ``sno``."""
        match = _SPEAKER.match(self.sentences[sno])
        return match.group(1) if match else ""


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DatasetError(f"{path}: not UTF-8 text ({exc}); re-download the file") from None


def read_corpus(path: str | Path, cid: int | None = None, annotator: str | None = None) -> Conversation:
    """Read and validate one corpus TSV.

    Args:
        path: the ``.tsv`` file.
        cid: the conversation id; by default taken from the file name ``<cid>_<annotator>_....tsv``.
        annotator: the annotator's name; by default taken from the file name.

    Raises:
        DatasetError: a missing column, a malformed row (named by file and line), sentences out of
            order, a new sentence without text, or an annotation naming an event not in the file.
    """
    path = Path(path)
    if cid is None or annotator is None:
        match = _CORPUS_NAME.match(path.name)
        if match is None:
            raise DatasetError(
                f"{path}: corpus files are named '<cid>_<annotator>_....tsv'; rename it or pass cid= and annotator="
            )
        cid, annotator = cid if cid is not None else int(match.group(1)), annotator or annotator_name(match.group(2))
    reader = csv.DictReader(io.StringIO(_read_text(path)), delimiter="\t")
    missing = [c for c in CORPUS_COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise DatasetError(f"{path}: missing column(s) {missing}; a corpus file has the columns {list(CORPUS_COLUMNS)}")
    conv = Conversation(cid=int(cid), annotator=str(annotator), path=path)
    for line, cells in enumerate(reader, start=2):
        if None in cells or any(cells[c] is None for c in CORPUS_COLUMNS):
            raise DatasetError(f"{path}, line {line}: wrong number of tab-separated cells for the header")
        try:
            row = _corpus_row(line, cells)
        except (ValueError, ValidationError) as exc:
            raise DatasetError(f"{path}, line {line}: {_message(exc)}") from None
        _add_row(conv, row, path)
    if not conv.rows:
        raise DatasetError(f"{path}: the file has no rows")
    _check_references(conv, path)
    return conv


def _add_row(conv: Conversation, row: CorpusRow, path: Path) -> None:
    last = conv.snos[-1] if conv.sentences else None
    if last is not None and row.sno < last:
        raise DatasetError(
            f"{path}, line {row.line}: sentence {row.sno} comes after sentence {last}; rows must be in conversation order"
        )
    if row.sno != last:
        if row.sentence is None:
            raise DatasetError(
                f"{path}, line {row.line}: the first row of sentence {row.sno} has an empty Sentence cell"
            )
        conv.sentences[row.sno] = row.sentence
    if row.event is not None:
        if row.eno in conv.events:
            raise DatasetError(f"{path}, line {row.line}: event {row.eno:g} is defined twice")
        conv.events[row.eno] = row.event
    conv.rows.append(row)


def _check_references(conv: Conversation, path: Path) -> None:
    """Every annotated event must have a row; one whose Event cell is empty gets the text ``"None"``.

    The release annotates a few events with no Event text (e.g. ``CT+ 60`` in 4248); the authors'
    generator keeps them with the event text "None", so they are accepted the same way, with one
    warning per file.
    """
    enos = {row.eno for row in conv.rows}
    textless: list[float] = []
    for row in conv.rows:
        for _speaker, _kind, label, eno in row.annotations:
            if eno in conv.events:
                continue
            if eno not in enos:
                raise DatasetError(
                    f"{path}, line {row.line}: '{label} {eno:g}' names event {eno:g}, which has no row "
                    "in the file; fix the annotation or add the event's row"
                )
            textless.append(eno)
            conv.events[eno] = MISSING_EVENT_TEXT
    if textless:
        conv.events = {row.eno: conv.events[row.eno] for row in conv.rows if row.eno in conv.events}
        warnings.warn(
            f"{path}: event(s) {', '.join(f'{e:g}' for e in sorted(set(textless)))} are annotated but have "
            f"no Event text; kept with the text {MISSING_EVENT_TEXT!r} as the release's generator does",
            UserWarning,
            stacklevel=3,
        )


def annotator_name(field_text: str) -> str:
    """The annotator a file-name field names: the known annotator it contains, else the field itself.

    ``"PlatinumMagdaFULL"`` -> ``"Magda"``; ``"Tester"`` -> ``"Tester"``.
    """
    hits = [name for name in KNOWN_ANNOTATORS if name in field_text]
    return hits[0] if len(hits) == 1 else field_text


def _message(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
    return str(exc)


# ---------------------------------------------------------------------- question files


class QuestionRow(BaseModel):
    """One yes/no question of a question file (the released columns)."""

    model_config = ConfigDict(frozen=True)

    sno: int
    eno: float
    belief_A: Belief
    belief_B: Belief
    belief_Q: Literal["CT+", "PS", "CT-"]
    cg_A: CGStatus
    cg_B: CGStatus
    order: int = Field(ge=1, le=3)
    question: str
    answer: Literal["Yes", "No"]
    context_type: str
    cid: int
    annotator: str
    context: str

    @field_validator("context")
    @classmethod
    def _has_marker(cls, value: str) -> str:
        if value.count(MARKER) != 1:
            raise ValueError(f"the context must mark the question's sentence with exactly one {MARKER}")
        return value

    @model_validator(mode="after")
    def _sno_within_the_conversation(self) -> "QuestionRow":
        sentences = self.context.count("\n") + 1
        if not 1 <= self.sno <= sentences:
            raise ValueError(
                f"sno {self.sno} points past the conversation, whose context has {sentences} sentences "
                "(sno counts the context's lines from 1)"
            )
        return self

    @property
    def labels(self) -> tuple[str, str, str, str]:
        """``(belief_A, belief_B, cg_A, cg_B)``: the label group of the question."""
        return (self.belief_A, self.belief_B, self.cg_A, self.cg_B)

    @property
    def proposition(self) -> tuple[int, int, float]:
        """``(cid, sno, eno)``: one event at one time point."""
        return (self.cid, self.sno, self.eno)

    def to_csv_cells(self) -> list[str]:
        values = self.model_dump()
        return [_format_cell(values[c]) for c in QUESTION_COLUMNS]


def _format_cell(value: object) -> str:
    return repr(value) if isinstance(value, float) else str(value)


def read_questions(path: str | Path) -> list[QuestionRow]:
    """Read and validate one gzip CSV question file.

    Raises:
        DatasetError: the file is not gzip, a column is missing, or a row (named by its record number
            and line) is malformed.
    """
    path = Path(path)
    try:
        with gzip.open(path, "rt", encoding="utf-8-sig", newline="") as f:
            text = f.read()
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise DatasetError(
            f"{path}: cannot read it as gzip-compressed UTF-8 CSV ({exc}); re-download or regenerate it"
        ) from None
    reader = csv.DictReader(io.StringIO(text, newline=""))
    missing = [c for c in QUESTION_COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise DatasetError(
            f"{path}: missing column(s) {missing}; a question file has the columns {list(QUESTION_COLUMNS)}"
        )
    rows = []
    for number, record in enumerate(reader, start=1):
        where = f"{path}, record {number} (ending on line {reader.line_num})"
        if None in record or any(record[c] is None for c in QUESTION_COLUMNS):
            raise DatasetError(f"{where}: wrong number of cells for the header")
        try:
            rows.append(QuestionRow.model_validate({c: record[c] for c in QUESTION_COLUMNS}))
        except ValidationError as exc:
            raise DatasetError(f"{where}: {_message(exc)}") from None
    return rows


def write_questions(rows: Iterable[QuestionRow], path: str | Path) -> Path:
    """Write a question file in the released format (gzip CSV; byte-identical for identical rows)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    buf = io.StringIO(newline="")
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(QUESTION_COLUMNS)
    for row in rows:
        writer.writerow(row.to_csv_cells())
    with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
        gz.write(buf.getvalue().encode("utf-8"))
    return path


# ---------------------------------------------------------------------- data folders


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
    corpus = _files(root / "cg", _CORPUS_NAME, "*.tsv")
    questions = _files(root / "questions", _QUESTION_NAME, "*.csv.gz")
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


def check_file(folder: "DataFolder", path: Path, records: int, allow_partial: bool) -> str | None:
    """:func:`tom_envs.release_files.check_release_file` for a file of ``folder`` (``cg/`` or ``questions/``):
    None for a file that is the release's, one not named like the release's, or any file of a sample
    folder (:func:`is_bundled_sample`); else the difference (``allow_partial``) or
    :class:`~tom_envs.release_files.ReleaseMismatch`."""
    if is_bundled_sample(folder):
        return None
    fix = "Download the release again (python -m benchmarks data download common-ground --dest DIR --force)"
    return check_release_file(path, f"{path.parent.name}/{path.name}", records, RELEASE_FILES, allow_partial, fix)


def is_bundled_sample(folder: "DataFolder") -> bool:
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
