"""The retired evaluation set of the v3 readers (docs/reader_v3.md): unchanged, and each reader no worse on it.

The set was written from the spec by someone who never saw a reader and was frozen until each reader had been scored
on it once (the scripted ``ReaderV3``: 64.7 % reading accuracy, 3 of 68 hostile lines read as a pitch; the first
learned ``LearnedReaderV3``: 74.9 %, 4 of 68). It was then **retired as a test set**: since issue 39's second round it is
development data, and the learned reader trains on it, so its figures here are figures on lines it learned from, not
held-out ones (a newer frozen set, never read while building the reader, is the held-out test). The checks are
regression floors.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from tom_envs.persuasion.reader_v3 import ReaderV3, load_labelled, score_reader
from tom_envs.persuasion.reader_v3_learned import LearnedReaderV3

RETIRED = Path(__file__).parent / "data" / "persuasion" / "reader_v3_frozen.jsonl"
SHA256 = "0008a5d0ebe9d67ef297c4c5770b81c49e5722aee56a77fbf7a42b60fa587dc4"
#: the scripted reader when it was scored while the set was frozen: reading accuracy, hostile lines read as a pitch,
#: concern accuracy (its hostility frames have gained constructions since: 66.0 %, 1 landing)
SCRIPTED_WHEN_SCORED = (0.647, 3, 0.715)
#: the learned reader of the second round, trained on the set (development figures): reading accuracy 1.000
LEARNED_DEVELOPMENT = 0.99


def test_the_retired_set_is_unchanged():
    assert hashlib.sha256(RETIRED.read_bytes()).hexdigest() == SHA256


def test_the_scripted_reader_is_no_worse_on_the_retired_set_than_when_it_was_scored():
    reading, landed, concern = SCRIPTED_WHEN_SCORED
    score = score_reader(ReaderV3(), load_labelled(RETIRED))
    assert score["n"] == 394
    assert score["reading_accuracy"] >= reading - 1e-9
    assert len(score["hostile_read_as_pitch"]) <= landed
    assert score["concern_accuracy"] >= concern


def test_the_learned_reader_fits_the_retired_set_and_no_hostile_line_lands():
    reader = LearnedReaderV3()
    items = load_labelled(RETIRED)
    score = score_reader(reader, items)
    assert score["reading_accuracy"] >= LEARNED_DEVELOPMENT
    assert score["reading"]["hostile"]["recall"] == 1.0
    hostile = [i.text for i in items if i.reading.kind == "hostile"]
    assert [t for t in hostile if reader.read(t).kind in ("pitch", "stuffed")] == []


# ------------------------------------------------------------------------------ the second frozen set (held out)
#: written blind to the readers (tests/data/persuasion/README_frozen_v2.md), scored once on 2026-11-29 after the
#: second round: reading accuracy, hostile lines that land (read as a pitch or stuffed); no reader trains on it
FROZEN_V2 = Path(__file__).parent / "data" / "persuasion" / "reader_v3_frozen_v2.jsonl"
SHA256_V2 = "1e4aaed35c877583bf72516b0ba19c6b3f3e6363d5a1e2a1320db24384f1fe7d"
LEARNED_WHEN_SCORED_V2 = (0.7666, 10)
SCRIPTED_WHEN_SCORED_V2 = (0.6129, 12)


def test_the_second_frozen_set_is_unchanged():
    assert hashlib.sha256(FROZEN_V2.read_bytes()).hexdigest() == SHA256_V2


def _landed(reader, items) -> int:
    return sum(reader.read(i.text).kind in ("pitch", "stuffed") for i in items if i.reading.kind == "hostile")


def test_each_reader_is_no_worse_on_the_second_frozen_set_than_when_it_was_scored():
    items = load_labelled(FROZEN_V2)
    assert len(items) == 527
    for reader, (reading, landed) in (
        (LearnedReaderV3(), LEARNED_WHEN_SCORED_V2),
        (ReaderV3(), SCRIPTED_WHEN_SCORED_V2),
    ):
        score = score_reader(reader, items)
        assert score["reading_accuracy"] >= reading - 5e-5, type(reader).__name__
        assert _landed(reader, items) <= landed, type(reader).__name__


def test_no_training_file_holds_a_line_of_the_second_frozen_set_beyond_the_short_generic_ones():
    """The training files and the second frozen set share only short lines that anyone writes ("ok", "How was your
    weekend?"): a reader trained on the set's lines would make its figures development ones."""
    import re

    def norm(text: str) -> str:
        return re.sub(r"[^a-z0-9 ]", "", text.lower()).strip()

    data = FROZEN_V2.parent
    seen = {
        norm(i.text)
        for name in ("reader_v3_train.jsonl", "reader_v3_dev.jsonl", "reader_v3_frozen.jsonl", "reader_v3_probe.jsonl")
        for i in load_labelled(data / name)
    }
    shared = [i.text for i in load_labelled(FROZEN_V2) if norm(i.text) in seen]
    assert len(shared) <= 7 and all(len(t.split()) <= 8 for t in shared), shared
