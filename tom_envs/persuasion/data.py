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

ANSWER_LETTERS = "ABCDEF"
_ID = re.compile(r"^\s*(?P<dialogue>\S+?)-(?P<turn>\d+)\s*$")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"'}

#: Whose mental state each file asks about.
ROLES: dict[str, str] = {
    "desire_er": "persuader", "belief_er": "persuader", "intent_er": "persuader",
    "desire_ee": "persuadee", "belief_ee": "persuadee", "intent_ee": "persuadee",
    "behavior_qa": "persuader", "judge_qa": "persuader",
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

    @model_validator(mode="after")
    def _key_in_choices(self) -> "Record":
        if not self.choices:
            raise ValueError("choices is empty")
        if self.answer_index >= len(self.choices):
            raise ValueError(f"answerKey {self.answerKey!r} is outside the {len(self.choices)} choices {self.choices!r}")
        return self

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

    Raises:
        DatasetError: bad JSON, not a list, or a malformed record (names file and index).
    """
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise DatasetError(f"{path}: cannot be read ({exc}); check the file or download it again") from None
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{path}: bad JSON at line {exc.lineno}, column {exc.colno} ({exc.msg}); "
                           "download the file again or fix it by hand") from None
    if not isinstance(raw, list):
        raise DatasetError(f"{path}: expected a JSON list of records, got {type(raw).__name__}")
    return [Question(qtype, _validate(path, i, rec), str(path), i) for i, rec in enumerate(raw)]


def _validate(path: Path, index: int, rec: object) -> Record:
    if not isinstance(rec, dict):
        raise DatasetError(f"{path}: record {index}: expected a JSON object, got {type(rec).__name__}")
    try:
        return Record.model_validate(rec)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'record'}: {_short(e)}" for e in exc.errors())
        raise DatasetError(f"{path}: record {index} ({rec.get('dialogue_id', '?')}): {problems}. Every record needs "
                           "dialogue_id, dialogue, question, background, choices (strings) and answerKey (A-F)") from None


def _short(err: dict) -> str:
    return "missing field" if err["type"] == "missing" else str(err["msg"]).removeprefix("Value error, ")


def load_dataset(data_dir: str | Path | None = None, qtypes: Iterable[str] | None = None) -> dict[str, list[Question]]:
    """Read the question files found in ``data_dir`` (default: the bundled sample).

    Args:
        data_dir: folder holding any subset of ``<qtype>.json`` files.
        qtypes: the types wanted; each must have its file. Default: every file present.

    Returns:
        Validated questions per type, in Table 5's column order.

    Raises:
        DatasetError: an unknown type, a wanted file missing, no file at all, or a bad record.
    """
    folder = Path(data_dir) if data_dir is not None else SAMPLE_DATA_DIR
    wanted = list(QTYPES) if qtypes is None else list(qtypes)
    unknown = [q for q in wanted if q not in QTYPES]
    if unknown:
        raise DatasetError(f"unknown question types {unknown}; choose from {', '.join(QTYPES)}")
    present = [q for q in QTYPES if q in wanted and (folder / f"{q}.json").is_file()]
    missing = [q for q in wanted if q not in present]
    if qtypes is not None and missing:
        raise DatasetError(f"{folder}: no file for {missing}; fetch them with "
                           f"`tom-envs data download persuasion --out {folder}`")
    if not present:
        raise DatasetError(f"{folder}: none of the PersuasiveToM files ({', '.join(q + '.json' for q in QTYPES)}); "
                           f"fetch them with `tom-envs data download persuasion --out {folder}`")
    return {q: load_file(folder / f"{q}.json", q) for q in present}


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
