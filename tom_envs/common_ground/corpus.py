"""Readers and writers for the two published Common-ToM formats (seed 003).

* The **common-ground corpus** (``cg/<cid>_<annotator>_....tsv``): one tab-separated file per
  conversation, one row per event. Only the columns ``Sentence``, ``Eno.``, ``Event``, ``Bel(A)``,
  ``Bel(B)``, ``CG(A)`` and ``CG(B)`` are read.
* The **question files** (``questions/<cid>_<annotator>_yn_questions.csv.gz``): gzip CSV, one
  yes/no question per row.

Every row is validated with pydantic; a malformed one raises :class:`DatasetError` naming the
file and the row (1-based line number of the file, header = line 1). Where these files sit in a data
folder, 003's split and the release's pinned files are :mod:`tom_envs.common_ground.data_folder`'s
(its names are re-exported here).
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
from typing import Iterable, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from tom_envs.errors import DatasetError
from tom_envs.common_ground.data_folder import (  # re-exported: the folder's layout used to live here
    CORPUS_NAME,
    DEFAULT_ANNOTATOR,
    KNOWN_ANNOTATORS,
    QUESTION_NAME,
    RELEASE_FILES,
    SAMPLE_DATA_DIR,
    SAMPLE_MARKER,
    SPLIT_CIDS,
    TEST_CIDS,
    TRAIN_CIDS,
    DataFolder,
    IncompleteSplit,
    UnknownConversation,
    annotator_name,
    check_file,
    is_bundled_sample,
    missing_conversations,
    pick_annotator,
    scan,
    split_cids,
)

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
        match = CORPUS_NAME.match(path.name)
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


__all__ = [
    "BELIEF_LABELS",
    "CG_LABELS",
    "CORPUS_COLUMNS",
    "CORPUS_NAME",
    "DEFAULT_ANNOTATOR",
    "KNOWN_ANNOTATORS",
    "MARKER",
    "MISSING_EVENT_TEXT",
    "QUESTION_CERTAINTIES",
    "QUESTION_COLUMNS",
    "QUESTION_NAME",
    "RELEASE_FILES",
    "SAMPLE_DATA_DIR",
    "SAMPLE_MARKER",
    "SPLIT_CIDS",
    "TEST_CIDS",
    "TRAIN_CIDS",
    "Belief",
    "CGStatus",
    "Conversation",
    "CorpusRow",
    "DataFolder",
    "IncompleteSplit",
    "QuestionRow",
    "UnknownConversation",
    "annotator_name",
    "check_file",
    "is_bundled_sample",
    "missing_conversations",
    "parse_annotations",
    "pick_annotator",
    "read_corpus",
    "read_questions",
    "scan",
    "split_cids",
    "write_questions",
]
