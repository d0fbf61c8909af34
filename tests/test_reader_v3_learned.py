"""The learned v3 reader (issue 39): its training set, its weights rebuilt bit for bit, and how it reads lines
written here by hand (none of them in its training set; a frozen evaluation set is not read here)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tom_envs.persuasion.reader_v3 import (
    READING_CLASSES,
    ReaderV3,
    ReaderV3Error,
    ReadingV3,
    load_labelled,
    score_reader,
)
from tom_envs.persuasion.reader_v3_learned import (
    WEIGHTS,
    LearnedReaderV3,
    ReaderWeightsError,
    UnknownReaderError,
    load_weights,
    make_reader_v3,
)

DATA = Path(__file__).parent / "data" / "persuasion"
TRAIN = DATA / "reader_v3_train.jsonl"
DEV = DATA / "reader_v3_dev.jsonl"
#: 58 lines written for the second round after its training set, read once by its weights (commit 39ac51d): 55 right,
#: every hostile line hostile (the first learned reader: 46 right, 16 of the 20 hostile lines hostile); the final
#: weights, rebuilt after two false-alarm fixes in the frames, read 53 right, every hostile line still hostile
PROBE_RIGHT = 53
PROBE = DATA / "reader_v3_probe.jsonl"
#: NEW_PITCHES read right: 18 by the first learned reader, 22 by the second round's
MEASURED_NEW_PITCHES = 22


@pytest.fixture(scope="module")
def reader():
    return LearnedReaderV3()


def test_the_training_set_is_large_balanced_and_varied():
    items = load_labelled(TRAIN)
    labels = [i.reading.label for i in items]
    assert len(items) >= 2000
    assert all(labels.count(c) >= 200 for c in READING_CLASSES), {c: labels.count(c) for c in READING_CLASSES}
    assert len({i.text for i in items}) == len(items)
    assert {"negation", "nonsense", "insult-unlisted", "sarcasm", "stuffing", "tease", "concern"} <= {
        i.note for i in items
    }


def test_the_training_set_is_what_the_composer_writes():
    from benchmarks.persuasion.reader_v3_corpus import build_corpus

    assert [json.loads(line) for line in TRAIN.read_text().splitlines()] == build_corpus()


@pytest.mark.slow
def test_the_weights_are_rebuilt_bit_for_bit_from_the_training_files():
    pytest.importorskip("sklearn")
    from benchmarks.persuasion.reader_v3_train import build

    arrays, meta = build()
    stored = load_weights(WEIGHTS)
    assert meta == stored["meta"]
    for head in ("reading", "concern"):
        assert np.array_equal(arrays[f"{head}_W"].astype(np.float32), stored[head]["W"].astype(np.float32))
        assert np.array_equal(arrays[f"{head}_b"].astype(np.float32), stored[head]["b"].astype(np.float32))


#: lines written here, none in the training set: the first twelve were read by the first trained weights (8 right),
#: after which the composed set gained phrasings; the last twelve were written after that and read once (7 right);
#: the second round's reader reads 22 of the 24 right.
NEW_PITCHES = [
    ("My physio, who treats marathon runners, told me to get you doing this.", "authority"),
    ("The pharmacist on the high street says the jab is worth having.", "authority"),
    ("Just about every family on our road has one of these now.", "consensus"),
    ("Your whole five-a-side team signed the pledge yesterday.", "consensus"),
    ("They've only got two rooms left at that price.", "scarcity"),
    ("Applications close on the thirtieth, and they won't reopen.", "scarcity"),
    ("I sat with your gran every afternoon she was in hospital.", "reciprocity"),
    ("Come canvassing with me and I'll mow your lawn all summer.", "reciprocity"),
    ("You told me in January you wanted to run a half marathon.", "commitment"),
    ("You've always said people should use their vote.", "commitment"),
    ("You're honestly one of the warmest people I've ever met.", "liking"),
    ("We've stuck together since primary school, you and me.", "liking"),
    ("Our neighbour, a retired GP, thinks you should get it looked at.", "authority"),
    ("Pretty much the whole staffroom has done the training.", "consensus"),
    ("There were ten bikes this morning and now there are two.", "scarcity"),
    ("I helped you carry all those boxes up four flights of stairs.", "reciprocity"),
    ("You wrote on your fridge that you would walk every day.", "commitment"),
    ("You have the most wonderful way with animals.", "liking"),
    ("The free trial only runs until the weekend.", "scarcity"),
    ("Half my running club swears by it.", "consensus"),
    ("You remember volunteering last spring and loving it.", "commitment"),
    ("In return for your time, we will cover your travel.", "reciprocity"),
    ("Your old coach reckons you'd walk into the team.", "authority"),
    ("We've always been on the same wavelength.", "liking"),
]


def test_most_principles_in_new_words_are_read_as_their_pitch(reader):
    """A floor, not the gate: the share read right when this test was written (see NEW_PITCHES)."""
    right = [line for line, principle in NEW_PITCHES if reader.read(line).principle == principle]
    assert len(right) >= MEASURED_NEW_PITCHES, sorted(set(line for line, _ in NEW_PITCHES) - set(right))


@pytest.mark.parametrize(
    "line",
    [
        "Only a right plum would skip the check-up the doctors are begging you to get.",
        "Don't be such a soggy crouton, the whole street has signed.",
        "Listen here, you gormless kettle, the offer ends Friday.",
        "Oh well done, you've missed the deadline again, what a surprise.",
        "Sign it, or your manager hears about your little habit.",
        "Even a toddler could see the experts are right.",
    ],
)
def test_hostility_in_new_words_is_hostile_and_carries_no_concern(reader, line):
    assert reader.read(line) == ReadingV3("hostile")


@pytest.mark.parametrize(
    "line, kind",
    [
        ("I'm not going to claim the doctors back this.", "nothing"),
        ("Don't sign up just because your friends have.", "nothing"),
        ("Experts recommend it, your friends love it, and it ends tomorrow.", "stuffed"),
        ("What time does the bus get in?", "nothing"),
    ],
)
def test_negations_stuffing_and_nonsense(reader, line, kind):
    assert reader.read(line).kind == kind


def test_lines_written_after_training_read_as_when_first_read(reader):
    """A floor from the probe batch's one reading: its accuracy, and every hostile line hostile, none landing."""
    items = load_labelled(PROBE)
    score = score_reader(reader, items)
    assert score["n"] == 58 and score["reading_accuracy"] >= PROBE_RIGHT / 58 - 1e-9
    assert score["reading"]["hostile"]["recall"] == 1.0 and score["hostile_read_as_pitch"] == []
    # one probe line turned out to be in the first round's atoms already; the others are in no training file
    overlap = {i.text for i in items} & {i.text for path in (TRAIN, DEV) for i in load_labelled(path)}
    assert overlap == {"You're about as useful as a chocolate teapot."}


@pytest.mark.parametrize(
    "line",
    [
        "Even a halfwit could manage the form, so what's stopping you?",
        "Absolute doughnut. The experts have said so for years.",
        "Keep waiting, Your Majesty, the places will surely hold themselves for you.",
        "Sign it, or you'll be sorry.",
        "Either you come on Saturday or you're off the team.",
    ],
)
def test_hostility_beside_a_principle_never_lands(reader, line):
    assert reader.read(line) == ReadingV3("hostile")


@pytest.mark.parametrize(
    "line",
    [
        "You look tired, are you okay?",
        "Do you even like running? I never asked.",
        pytest.param(
            "I'm such a muppet, I forgot my purse.",
            marks=pytest.mark.xfail(strict=True, reason="known miss of the final weights (docs/reader_v3.md, probe)"),
        ),
        "I think you're wrong, but I respect it.",
        "Total bargain, honestly.",
    ],
)
def test_harmless_lines_addressed_to_you_are_not_hostile(reader, line):
    assert reader.read(line).kind != "hostile"


def test_a_concern_is_read_beside_the_kind(reader):
    assert reader.read("Would it put your mind at rest if it cost nothing?").concern == "cost"


def test_hostile_wins_whenever_the_scripted_frames_find_hostility(reader):
    scripted = ReaderV3()
    lines = [i.text for i in load_labelled(DEV)]
    flagged = [t for t in lines if scripted.explain(t)["hostile"]]
    assert len(flagged) > 100
    assert all(reader.read(t).kind == "hostile" for t in flagged)


def test_the_reader_fits_its_development_lines(reader):
    scores = score_reader(reader, load_labelled(DEV))
    assert scores["reading_accuracy"] >= 0.95 and scores["hostile_read_as_pitch"] == []


def test_the_goal_itself_is_no_reason(reader):
    assert reader.read("Join the most popular club in town.").principle == "consensus"
    assert (
        reader.read("Join the most popular club in town.", goal="join the most popular club in town").kind == "nothing"
    )


def test_reading_is_deterministic(reader):
    lines = [i.text for i in load_labelled(DEV)][:200]
    assert [reader.read(t) for t in lines] == [LearnedReaderV3().read(t) for t in lines]


def test_an_empty_line_reads_as_nothing(reader):
    assert reader.read("  ") == ReadingV3("nothing")


@pytest.mark.parametrize("bad", [None, 3, b"Experts recommend it."])
def test_a_non_str_utterance_is_a_named_error(reader, bad):
    with pytest.raises(ReaderV3Error, match="takes the line as a str"):
        reader.read(bad)


def test_a_missing_or_bad_weights_file_is_a_named_error(tmp_path):
    with pytest.raises(ReaderWeightsError, match="no such weights file.*reader_v3_train"):
        LearnedReaderV3(tmp_path / "absent.npz")
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(ReaderWeightsError, match="not a numpy .npz"):
        LearnedReaderV3(tmp_path / "junk.npz")
    np.savez(tmp_path / "nometa.npz", reading_W=np.zeros(3))
    with pytest.raises(ReaderWeightsError, match="no readable 'meta'"):
        LearnedReaderV3(tmp_path / "nometa.npz")


def test_a_weights_file_of_the_wrong_shape_is_a_named_error(tmp_path):
    with np.load(WEIGHTS) as data:
        arrays = {k: data[k] for k in data.files}
    arrays["concern_W"] = arrays["concern_W"][:, :10]
    np.savez(tmp_path / "cut.npz", **arrays)
    with pytest.raises(ReaderWeightsError, match="concern_W is"):
        LearnedReaderV3(tmp_path / "cut.npz")


def test_the_factory_names_both_readers():
    assert isinstance(make_reader_v3(), LearnedReaderV3)
    assert isinstance(make_reader_v3("scripted"), ReaderV3)
    with pytest.raises(UnknownReaderError, match="pass one of"):
        make_reader_v3("llm")
