"""Loader of the published PersuasiveToM files (seed 001).

The benchmark ships one JSON file per question type (see :data:`tom_envs.persuasion.QTYPES`).
Each file is a JSON list of records::

    {"dialogue_id": "12-3",            # "<dialogue>-<turn>"
     "dialogue": "Ann says: ...\\nBen says: ...\\n",   # the conversation up to that turn
     "question": "...", "background": "...",
     "choices": ["Yes", "No", "Neutral"],   # or the text of a Python list: "['Yes', 'No']"
     "answerKey": "B"}                     # a letter A-F indexing the choices

Every record is validated with pydantic; anything malformed raises
:class:`~tom_envs.errors.DatasetError` naming the file and the record index. Textual choices are
read by a small scanner for a list of quoted strings -- never ``eval``.

What the public release holds (github.com/Yu-Fangxu/PersuasiveToM, ``data/``, commit b35b9ba):
its git tree lists all eight files. Four of them (:data:`RELEASE_VERIFIED`) were read here and
load exactly (8,582 questions, 001's Table 4 counts) and are known by their record count and sha256
(:data:`RELEASE_FILES`): a file of a data folder under one of their names must be the release's
(:func:`load_checked_dataset`), else :class:`~tom_envs.release_files.ReleaseMismatch` names it, unless
``allow_partial`` (the run is then ``partial``). The bundled sample and folders holding ``SAMPLE.md`` are
not checked (:func:`is_bundled_sample`). The other four (:data:`RELEASE_UNVERIFIED`,
presumably 4 MiB or more) were absent from the copy of the release we could inspect, so their format is
not verified: our sample's files for those types are written in the format of the four verified
ones, an assumption. Known quirks of the release are reported, not fixed (:data:`RELEASE_QUIRKS`):
options repeated within a question are kept and counted (:func:`repeated_options`).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator

from tom_envs.errors import DatasetError
from tom_envs.persuasion import QTYPES, SAMPLE_DATA_DIR
from tom_envs.release_files import SAMPLE_MARKER, ReleaseFile, check_release_file

ANSWER_LETTERS = "ABCDEF"
_ID = re.compile(r"^\s*(?P<dialogue>\S+?)-(?P<turn>\d+)\s*$")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"'}

#: The files of the public release whose format was checked against the loader (all records load).
RELEASE_VERIFIED: tuple[str, ...] = ("desire_ee", "intent_ee", "behavior_qa", "judge_qa")
#: Listed in the release's git tree but not inspected here (presumably 4 MiB or more, absent from the copy we
#: had): their format is assumed to be the verified files' one. An extension point until checked.
RELEASE_UNVERIFIED: tuple[str, ...] = ("desire_er", "belief_er", "intent_er", "belief_ee")
#: The four verified files of the release (``data/<qtype>.json`` at commit daade8f) as measured on a clone: Table 4's
#: question count and the sha256 of the file's bytes. A file under one of these names is checked against it.
RELEASE_FILES: dict[str, ReleaseFile] = {
    "desire_ee": ReleaseFile(2459, "d12268862ddd59bf51696511b3c360894fa37891d0459bbe7221221894a5cb7c"),
    "intent_ee": ReleaseFile(2041, "612e4041f4b92cad54423441d76dba40edf8a936dd31740cb86a39974635637a"),
    "behavior_qa": ReleaseFile(2041, "fab9ed95d3427b74396c88879414cc7961e32ca87e50c8f038677b18b34a28cd"),
    "judge_qa": ReleaseFile(2041, "416b0daee7563782f8a330f32abac7025fd2a89175bf9e451f54aca223e44afd"),
}
#: Table 4's question counts of the four verified files; the loader reads exactly these from the release.
RELEASE_COUNTS: dict[str, int] = {q: f.records for q, f in RELEASE_FILES.items()}
#: Known quirks of the verified files, measured on the release (reported by ``data list``, the
#: benchmark's ``--format json`` and docs/persuasion_qa.md; never corrected by the loader).
RELEASE_QUIRKS: dict[str, str] = {
    "judge_qa": "answerable from the question's wording alone: answering No when the question contains "
    "'not' and Yes otherwise scores 99.7 % (2,035 of 2,041)",
    "desire_ee": "the options are always Yes, No, Neutral in that order and A (Yes) is right in 50.8 % "
    "(1,250 of 2,459): a first-option bias scores 50.8 % in the published order",
    "intent_ee": "112 questions repeat a truncated distractor (e.g. 'Mr', 'Mr', <answer>, 'Mr'): the longest "
    "option is right in 41.9 %; kept as published and counted (repeated_options)",
}


def release_status(qtype: str, differs: bool = False, sample: bool = False) -> str:
    """What a row's data for ``qtype`` is: ``"unverified"`` (a type listed upstream whose file we could not
    inspect; format assumed), ``"sample"`` (a verified type read from a sample folder, not checked),
    ``"differs"`` (a file under the release's name that is not the release's: ``allow_partial``) or
    ``"verified"`` (the release's file: its record count and sha256, :data:`RELEASE_FILES`)."""
    if qtype not in RELEASE_VERIFIED:
        return "unverified"
    return "sample" if sample else "differs" if differs else "verified"


def is_bundled_sample(folder: str | Path | None) -> bool:
    """Whether ``folder`` (None: the default) is the sample bundled with tom-envs or a folder marked like it
    (it holds :data:`~tom_envs.release_files.SAMPLE_MARKER`): not the release, so its files are taken as
    they are."""
    path = Path(folder) if folder is not None else SAMPLE_DATA_DIR
    return path.resolve() == SAMPLE_DATA_DIR or (path / SAMPLE_MARKER).is_file()


#: Whose mental state each file asks about.
ROLES: dict[str, str] = {
    "desire_er": "persuader",
    "belief_er": "persuader",
    "intent_er": "persuader",
    "desire_ee": "persuadee",
    "belief_ee": "persuadee",
    "intent_ee": "persuadee",
    "behavior_qa": "persuader",
    "judge_qa": "persuader",
}


class ChoicesParseError(ValueError):
    """A textual ``choices`` field is not a list of quoted strings."""


def parse_choices_text(text: str) -> list[str]:
    """Read the text of a Python (or JSON) list of string literals, e.g. ``"['Yes', 'No']"``.

    Only quoted strings separated by commas inside one pair of brackets are accepted; escapes
    ``\\n \\t \\r \\\\ \\' \\"`` are understood. Nothing is evaluated.

    Raises:
        ChoicesParseError: the text is anything else (a number, a nested list, bare words).
    """
    s = text.strip()
    if not (s.startswith("[") and s.endswith("]")):
        raise ChoicesParseError("expected a bracketed list such as ['Yes', 'No']")
    items: list[str] = []
    i, end = 1, len(s) - 1
    while True:
        i = _skip_space(s, i, end)
        if i == end:
            return items
        item, i = _read_string(s, i, end)
        items.append(item)
        i = _skip_space(s, i, end)
        if i == end:
            return items
        if s[i] != ",":
            raise ChoicesParseError(f"expected ',' or ']' at character {i}, found {s[i]!r}")
        i += 1


def _skip_space(s: str, i: int, end: int) -> int:
    while i < end and s[i].isspace():
        i += 1
    return i


def _read_string(s: str, i: int, end: int) -> tuple[str, int]:
    quote = s[i]
    if quote not in "'\"":
        raise ChoicesParseError(f"expected a quoted string at character {i}, found {s[i]!r}")
    out: list[str] = []
    i += 1
    while i < end:
        c = s[i]
        if c == "\\" and i + 1 < end:
            out.append(_ESCAPES.get(s[i + 1], "\\" + s[i + 1]))
            i += 2
        elif c == quote:
            return "".join(out), i + 1
        else:
            out.append(c)
            i += 1
    raise ChoicesParseError("a quoted string is not closed")


class Record(BaseModel):
    """One published question record (extra fields are kept out and ignored)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    dialogue_id: str
    dialogue: str
    question: str
    background: str
    choices: list[str]
    answerKey: str

    @field_validator("dialogue_id")
    @classmethod
    def _id_has_turn(cls, v: str) -> str:
        if not _ID.match(v):
            raise ValueError(f"dialogue_id must look like '<dialogue>-<turn>' (e.g. '12-3'), got {v!r}")
        return v.strip()

    @field_validator("choices", mode="before")
    @classmethod
    def _parse_choices(cls, v: object) -> object:
        if isinstance(v, str):
            try:
                return parse_choices_text(v)
            except ChoicesParseError as exc:
                raise ValueError(f"choices text {v[:60]!r} is not a list of strings: {exc}") from None
        if not isinstance(v, list) or not all(isinstance(c, str) for c in v):
            raise ValueError(f"choices must be a list of strings, got {v!r}"[:200])
        return v

    @field_validator("answerKey")
    @classmethod
    def _letter(cls, v: str) -> str:
        key = v.strip().upper()
        if len(key) != 1 or key not in ANSWER_LETTERS:
            raise ValueError(f"answerKey must be one letter A-F, got {v!r}")
        return key

    @field_validator("question")
    @classmethod
    def _question_text(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("question is empty; every record asks a question")
        return v

    @model_validator(mode="after")
    def _key_in_choices(self) -> "Record":
        if not self.choices:
            raise ValueError("choices is empty")
        if len(self.choices) < 2:
            raise ValueError(f"choices has one option {self.choices!r}; a question needs at least two")
        if self.answer_index >= len(self.choices):
            raise ValueError(
                f"answerKey {self.answerKey!r} is outside the {len(self.choices)} choices {self.choices!r}"
            )
        if self.choices.count(self.choices[self.answer_index]) > 1:
            raise ValueError(
                f"the right option {self.choices[self.answer_index]!r} appears more than once in "
                f"{self.choices!r}; the answer would be ambiguous"
            )
        return self

    @property
    def repeats_options(self) -> bool:
        """Whether some option appears more than once (a known quirk of the release's intent_ee)."""
        return len(set(self.choices)) != len(self.choices)

    @property
    def answer_index(self) -> int:
        """Index of the correct choice."""
        return ANSWER_LETTERS.index(self.answerKey)

    @property
    def dialogue_key(self) -> str:
        """The dialogue part of ``dialogue_id`` ("12" of "12-3")."""
        return _ID.match(self.dialogue_id).group("dialogue")  # type: ignore[union-attr]

    @property
    def turn(self) -> int:
        """The turn part of ``dialogue_id`` (3 of "12-3")."""
        return int(_ID.match(self.dialogue_id).group("turn"))  # type: ignore[union-attr]


@dataclass(frozen=True)
class Question:
    """A validated record with where it came from."""

    qtype: str
    record: Record
    source: str
    index: int


def load_file(path: Path, qtype: str) -> list[Question]:
    """Validate one published file.

    Questions whose options repeat (not the right one) are kept as published; :func:`repeated_options`
    counts them.

    Raises:
        DatasetError: a folder instead of a file, bad JSON, not a list, a malformed record, or a
            ``dialogue_id`` used twice (names file and indices).
    """
    path = Path(path)
    if path.is_dir():
        raise DatasetError(f"{path}: is a folder, not a {qtype} question file; remove or rename it")
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise DatasetError(f"{path}: cannot be read ({exc}); check the file or download it again") from None
    except json.JSONDecodeError as exc:
        raise DatasetError(
            f"{path}: bad JSON at line {exc.lineno}, column {exc.colno} ({exc.msg}); "
            "download the file again or fix it by hand"
        ) from None
    if not isinstance(raw, list):
        raise DatasetError(f"{path}: expected a JSON list of records, got {type(raw).__name__}")
    if not raw:
        raise DatasetError(
            f"{path}: holds no records (an empty list); a {qtype} file lists its questions. "
            "Download it again, or remove it and leave the type out (--qtypes)"
        )
    questions = [Question(qtype, _validate(path, i, rec), str(path), i) for i, rec in enumerate(raw)]
    first: dict[str, int] = {}
    for q in questions:
        seen = first.setdefault(q.record.dialogue_id, q.index)
        if seen != q.index:
            raise DatasetError(
                f"{path}: records {seen} and {q.index} both have dialogue_id {q.record.dialogue_id!r}; "
                "each '<dialogue>-<turn>' may appear once per file (a second one would put another "
                "turn's dialogue under that turn). Fix or remove one of them"
            )
    return questions


def repeated_options(data: dict[str, list[Question]]) -> dict[str, int]:
    """Per type, the questions whose options repeat (a quirk of the release's intent_ee: 112 of
    2,041), kept as published; types without any are left out."""
    counts = {q: sum(x.record.repeats_options for x in questions) for q, questions in data.items()}
    return {q: n for q, n in counts.items() if n}


def _validate(path: Path, index: int, rec: object) -> Record:
    if not isinstance(rec, dict):
        raise DatasetError(f"{path}: record {index}: expected a JSON object, got {type(rec).__name__}")
    try:
        return Record.model_validate(rec)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'record'}: {_short(e)}" for e in exc.errors())
        raise DatasetError(
            f"{path}: record {index} ({rec.get('dialogue_id', '?')}): {problems}. Every record needs "
            "dialogue_id, dialogue, question, background, choices (strings) and answerKey (A-F)"
        ) from None


def _short(err: dict) -> str:
    return "missing field" if err["type"] == "missing" else str(err["msg"]).removeprefix("Value error, ")


class IncompleteRelease(DatasetError):
    """A data folder lacks some of the release's verified files (:data:`RELEASE_VERIFIED`): a table of
    it would silently leave those columns out. Name the types you mean (``qtypes``/``--qtypes``) or pass
    ``allow_partial=True`` (``--allow-partial``)."""


def load_dataset(
    data_dir: str | Path | None = None,
    qtypes: Iterable[str] | str | None = None,
    require_all: bool = False,
    allow_partial: bool = True,
) -> dict[str, list[Question]]:
    """Read the question files found in ``data_dir`` (default: the bundled sample): :func:`load_checked_dataset`
    without the differences it reports."""
    return load_checked_dataset(data_dir, qtypes, require_all, allow_partial)[0]


def load_checked_dataset(
    data_dir: str | Path | None = None,
    qtypes: Iterable[str] | str | None = None,
    require_all: bool = False,
    allow_partial: bool = True,
) -> tuple[dict[str, list[Question]], dict[str, str]]:
    """Read the question files found in ``data_dir`` (default: the bundled sample), each file named like one
    of the release's verified files checked against it (:data:`RELEASE_FILES`: record count and sha256).

    Args:
        data_dir: folder holding ``<qtype>.json`` files.
        qtypes: the types wanted (a list, or one comma-separated string); each must have its file.
            Default: every file present.
        require_all: with ``qtypes=None``, every one of the eight files must be there.
        allow_partial: with ``qtypes=None``, take whatever files are present, and take files under the
            release's names that are not the release's, saying how they differ (the default, for a folder
            of one's own); False needs the four verified files of the release (:data:`RELEASE_VERIFIED`)
            when ``qtypes=None``, and the release's content in every file under their names, as ``python -m
            benchmarks persuasion`` does unless ``--allow-partial``. Sample folders
            (:func:`is_bundled_sample`) are not checked.

    Returns:
        Validated questions per type, in Table 5's column order; and per type whose file is not the
        release's (only with ``allow_partial``), one line saying how it differs (results on it are
        ``partial``).

    Raises:
        IncompleteRelease: ``qtypes=None``, not ``allow_partial``, and a verified file is missing.
        ReleaseMismatch: not ``allow_partial``, and a file under a verified file's name has another record
            count or sha256 (cut short, edited, or one's own).
        DatasetError: no such folder, an unknown type, a wanted file missing, no file at all, an empty
            file, or a bad record.
    """
    folder = Path(data_dir) if data_dir is not None else SAMPLE_DATA_DIR
    if not folder.exists():
        raise DatasetError(
            f"{folder}: folder not found; fetch the files with "
            f"`tom-envs data download persuasion --dest {folder}`, or pass the folder that holds them"
        )
    if not folder.is_dir():
        raise DatasetError(f"{folder}: is a file, not a folder; pass the folder that holds the <qtype>.json files")
    if isinstance(qtypes, str):
        qtypes = [q.strip() for q in qtypes.split(",") if q.strip()]
        if not qtypes:
            raise DatasetError(f"qtypes names no question type; choose from {', '.join(QTYPES)}")
    wanted = list(QTYPES) if qtypes is None else list(qtypes)
    unknown = [q for q in wanted if q not in QTYPES]
    if unknown:
        raise DatasetError(f"unknown question types {unknown}; choose from {', '.join(QTYPES)}")
    present = [q for q in QTYPES if q in wanted and (folder / f"{q}.json").exists()]
    missing = [q for q in wanted if q not in present]
    if (qtypes is not None or require_all) and missing:
        raise DatasetError(f"{folder}: no file for {missing}. {missing_hint(missing, folder)}")
    if not present:
        raise DatasetError(
            f"{folder}: none of the PersuasiveToM files ({', '.join(q + '.json' for q in QTYPES)}). "
            f"{missing_hint(list(QTYPES), folder)}"
        )
    lacking = [q for q in RELEASE_VERIFIED if q not in present]
    if qtypes is None and lacking and not allow_partial:
        raise IncompleteRelease(
            f"{folder}: the release's file(s) {', '.join(q + '.json' for q in lacking)} are missing, so their Table 5 "
            f"columns would silently drop out. {missing_hint(lacking, folder)} Or name the types to use "
            f"(--qtypes {','.join(present)}), or pass --allow-partial (allow_partial=True) to use the files present"
        )
    data = {q: load_file(folder / f"{q}.json", q) for q in present}
    differences: dict[str, str] = {}
    if not is_bundled_sample(folder):
        fix = f"Download the file again (tom-envs data download persuasion --dest {folder} --force)"
        for q, questions in data.items():
            difference = check_release_file(folder / f"{q}.json", q, len(questions), RELEASE_FILES, allow_partial, fix)
            if difference:
                differences[q] = difference
    return data, differences


def missing_hint(missing: Sequence[str], folder: Path) -> str:
    """How to get the ``missing`` files: the download for the verified ones; for the others, that
    the release lists them but they were not verified (the download tries them and reports a 404)."""
    fetchable = [q for q in missing if q in RELEASE_VERIFIED]
    other = [q for q in missing if q not in RELEASE_VERIFIED]
    parts = []
    if fetchable:
        parts.append(f"Fetch {', '.join(fetchable)} with `tom-envs data download persuasion --dest {folder}`.")
    if other:
        parts.append(
            f"{', '.join(other)}: listed in the release's tree but not verified here (the download tries "
            "them and reports any it cannot get); with the four verified files pass "
            f"qtypes={list(RELEASE_VERIFIED)} (--qtypes {','.join(RELEASE_VERIFIED)})."
        )
    return " ".join(parts)


def dialogues(data: dict[str, list[Question]]) -> dict[str, dict[int, list[Question]]]:
    """Questions grouped by dialogue then turn; within a turn in Table 5's type order."""
    grouped: dict[str, dict[int, list[Question]]] = defaultdict(lambda: defaultdict(list))
    for qtype in QTYPES:
        for q in data.get(qtype, []):
            grouped[q.record.dialogue_key][q.record.turn].append(q)
    return {d: dict(sorted(turns.items())) for d, turns in sorted(grouped.items(), key=lambda kv: _natural(kv[0]))}


def _natural(key: str) -> tuple:
    return (0, int(key), "") if key.isdigit() else (1, 0, key)


def split_dialogues(keys: Sequence[str], split: "str | Sequence[str]") -> list[str]:
    """The dialogue keys of a split.

    ``"all"``; ``"dev"`` (every fifth dialogue in natural order, starting with the first) and
    ``"test"`` (the rest), a fixed, seed-free partition; or an explicit list of dialogue keys.

    Raises:
        DatasetError: an unknown split name, unknown keys, or an empty split.
    """
    keys = list(keys)
    if isinstance(split, str):
        if split == "all":
            chosen = keys
        elif split in ("dev", "test"):
            chosen = [k for i, k in enumerate(keys) if (i % 5 == 0) == (split == "dev")]
        else:
            raise DatasetError(f"unknown split {split!r}; use 'all', 'dev', 'test' or a list of dialogue ids")
    else:
        unknown = [k for k in split if str(k) not in keys]
        if unknown:
            raise DatasetError(f"split names dialogues {unknown} that are not in the data (known: {keys[:10]}...)")
        chosen = [k for k in keys if k in {str(s) for s in split}]
    if not chosen:
        raise DatasetError(f"split {split!r} holds no dialogue of the {len(keys)} loaded; pick another split")
    return chosen
