"""The frozen evaluation set of the v3 reader (docs/reader_v3.md): unchanged, and the reader no worse on it.

The set was written from the spec by someone who never saw the reader; it is never tuned on. Its figures are a
regression floor, not the issue's gate (>= 95 % per class, no hostile line landing), which the reader does not
meet: measured 64.7 % reading accuracy, 3 of 68 hostile lines read as a pitch.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from tom_envs.persuasion.reader_v3 import ReaderV3, load_labelled, score_reader

FROZEN = Path(__file__).parent / "data" / "persuasion" / "reader_v3_frozen.jsonl"
SHA256 = "0008a5d0ebe9d67ef297c4c5770b81c49e5722aee56a77fbf7a42b60fa587dc4"


def test_the_frozen_set_is_unchanged():
    assert hashlib.sha256(FROZEN.read_bytes()).hexdigest() == SHA256


def test_the_reader_is_no_worse_on_the_frozen_set_than_when_it_was_scored():
    score = score_reader(ReaderV3(), load_labelled(FROZEN))
    assert score["n"] == 394
    assert score["reading_accuracy"] >= 0.647 - 1e-9
    assert len(score["hostile_read_as_pitch"]) <= 3
    assert score["concern_accuracy"] >= 0.715
