"""What the PersuasiveToM data tests share: one record of the release's format and a file of them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def release_record(**over: Any) -> dict[str, Any]:
    """A valid record of a PersuasiveToM question file, with the fields in ``over`` replaced."""
    rec = {
        "dialogue_id": "0-0",
        "dialogue": "A says: hi\nB says: no\n",
        "question": "Is B likely to go?",
        "background": "A asks B.",
        "choices": ["Yes", "No", "Neutral"],
        "answerKey": "B",
    }
    rec.update(over)
    return rec


def write_records(folder: Path, name: str, records: Any) -> Path:
    """``folder/<name>.json`` holding ``records`` as JSON (a string is written as it is: a malformed file)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.json"
    path.write_text(records if isinstance(records, str) else json.dumps(records), encoding="utf-8")
    return path
