"""The frozen evaluation set of the v3 readers (docs/reader_v3.md): unchanged, and each reader no worse on it.

The set was written from the spec by someone who never saw a reader; it is never tuned on. Each reader was scored on
it once, after its last change. Its figures are a regression floor, not the issue's gate (>= 95 % per class, no hostile
line landing), which neither reader meets: the scripted ``ReaderV3`` scored 64.7 % reading accuracy with 3 of 68 hostile
lines read as a pitch; the learned ``LearnedReaderV3`` 74.9 % with 4 of 68.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from tom_envs.persuasion.reader_v3 import ReaderV3, load_labelled, score_reader
from tom_envs.persuasion.reader_v3_learned import LearnedReaderV3

FROZEN = Path(__file__).parent / "data" / "persuasion" / "reader_v3_frozen.jsonl"
SHA256 = "0008a5d0ebe9d67ef297c4c5770b81c49e5722aee56a77fbf7a42b60fa587dc4"
#: (reading accuracy, hostile lines read as a pitch, concern accuracy) when each reader was scored
WHEN_SCORED = {"scripted": (ReaderV3, 0.647, 3, 0.715), "learned": (LearnedReaderV3, 0.748, 4, 0.728)}


def test_the_frozen_set_is_unchanged():
    assert hashlib.sha256(FROZEN.read_bytes()).hexdigest() == SHA256


@pytest.mark.parametrize("name", sorted(WHEN_SCORED))
def test_each_reader_is_no_worse_on_the_frozen_set_than_when_it_was_scored(name):
    reader, reading, landed, concern = WHEN_SCORED[name]
    score = score_reader(reader(), load_labelled(FROZEN))
    assert score["n"] == 394
    assert score["reading_accuracy"] >= reading - 1e-9
    assert len(score["hostile_read_as_pitch"]) <= landed
    assert score["concern_accuracy"] >= concern
