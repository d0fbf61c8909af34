"""The v3 reader (issue 39): it reads a line for a principle, hostility and a concern, scored on the
development set ``tests/data/persuasion/reader_v3_dev.jsonl`` (848 lines written by the reader's author,
in the spec's format; the frozen evaluation set is someone else's and is not read here).

Measured on the dev set (``score_reader(ReaderV3(), load_labelled(DEV))``): precision and recall are
1.000 for the reading classes (n = 70, 69, 71, 71, 64, 65, 175, 50, 213 for reciprocity, scarcity,
consensus, authority, commitment, liking, nothing, stuffed, hostile) except authority precision 0.986 and
nothing recall 0.994; concerns 1.000 except cost 0.964 / 0.964 (n = 28), timing precision 0.958 (n = 46),
none recall 0.997 (n = 730). No hostile line reads as a pitch. These are figures on lines the reader was
tuned on; on seven batches of fresh lines, each read once before any tuning, the reading accuracy was 0.56,
0.56, 0.64, 0.62, 0.61, 0.70 and 0.73 (docs/reader_v3.md).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tom_envs.persuasion.principles import PRINCIPLES
from tom_envs.persuasion.reader_v3 import (
    CONCERN_CLASSES,
    READING_CLASSES,
    LabelledSetError,
    ReaderV3,
    ReaderV3Error,
    ReadingV3,
    load_labelled,
    score_reader,
)

DEV = Path(__file__).parent / "data" / "persuasion" / "reader_v3_dev.jsonl"
FLOOR = 0.95


@pytest.fixture(scope="module")
def dev():
    return load_labelled(DEV)


@pytest.fixture(scope="module")
def scores(dev):
    return score_reader(ReaderV3(), dev)


def test_the_dev_set_is_large_and_varied(dev):
    labels = [item.reading.label for item in dev]
    assert len(dev) >= 250
    assert labels.count("hostile") >= 60
    assert all(labels.count(c) >= 20 for c in READING_CLASSES)
    notes = {item.note for item in dev}
    assert {"terse", "negation", "nonsense", "insult-unlisted", "sarcasm", "threat", "stuffing", "tease"} <= notes


@pytest.mark.parametrize("cls", READING_CLASSES)
def test_each_reading_class_reaches_the_floor_on_the_dev_set(scores, cls):
    s = scores["reading"][cls]
    assert s["precision"] >= FLOOR and s["recall"] >= FLOOR, s


@pytest.mark.parametrize("cls", CONCERN_CLASSES)
def test_each_concern_class_reaches_the_floor_on_the_dev_set(scores, cls):
    s = scores["concern"][cls]
    assert s["precision"] >= FLOOR and s["recall"] >= FLOOR, s


def test_no_hostile_dev_line_reads_as_a_pitch(dev):
    reader = ReaderV3()
    assert [i.text for i in dev if i.reading.kind == "hostile" and reader.read(i.text).kind == "pitch"] == []


@pytest.mark.parametrize(
    "line, kind, principle",
    [
        ("Only a complete numpty would say no; experts recommend it.", "hostile", None),  # v1/v2 read authority
        ("Only a total flibbertigibbet would pass this up.", "hostile", None),  # a word no list holds
        ("You absolute splodge, the offer ends Friday.", "hostile", None),
        ("Experts recommend running.", "pitch", "authority"),  # terse: v2 read nothing
        ("I'm not saying experts recommend it.", "nothing", None),
        ("asdf experts qwerty recommend zzz", "nothing", None),
        ("Experts recommend it, everyone's doing it, and only a few spots are left.", "stuffed", None),
        ("You goof, I'm only teasing.", "nothing", None),
    ],
)
def test_lines_the_old_readers_got_wrong(line, kind, principle):
    reading = ReaderV3().read(line)
    assert (reading.kind, reading.principle) == (kind, principle)


def test_hostile_lines_carry_no_concern():
    assert ReaderV3().read("What kind of clown says no to free money?") == ReadingV3("hostile", None, None)


def test_a_nothing_line_can_address_a_concern():
    assert ReaderV3().read("Is the price what worries you?") == ReadingV3("nothing", None, "cost")


def test_the_goal_itself_is_no_reason():
    reader = ReaderV3()
    assert reader.read("Join the most popular club in town.").principle == "consensus"
    assert (
        reader.read("Join the most popular club in town.", goal="join the most popular club in town").kind == "nothing"
    )


def test_reading_is_deterministic(dev):
    a, b = ReaderV3(), ReaderV3()
    assert [a.read(i.text) for i in dev] == [b.read(i.text) for i in dev] == [a.read(i.text) for i in dev]


@pytest.mark.parametrize("bad", [None, 3, b"Experts recommend it.", ["a line"]])
def test_a_non_str_utterance_is_a_named_error(bad):
    with pytest.raises(ReaderV3Error, match="takes the line as a str"):
        ReaderV3().read(bad)


def test_a_non_str_goal_is_a_named_error():
    with pytest.raises(ReaderV3Error, match="goal must be a str"):
        ReaderV3().read("Experts recommend it.", goal=7)


def test_an_empty_line_reads_as_nothing():
    assert ReaderV3().read("   ") == ReadingV3("nothing")


def test_readings_are_checked():
    with pytest.raises(ValueError, match="principle"):
        ReadingV3("pitch")
    with pytest.raises(ValueError, match="concern"):
        ReadingV3("hostile", None, "cost")
    assert ReadingV3("pitch", "liking").label == "liking" and ReadingV3("stuffed").label == "stuffed"


GOOD = {"text": "Experts recommend it.", "kind": "pitch", "principle": "authority", "concern": None, "note": "terse"}


@pytest.mark.parametrize(
    "bad, says",
    [
        ("{not json", "line 2: not valid JSON"),
        ("[1, 2]", "line 2: a JSON list"),
        (json.dumps({**GOOD, "kind": "pitchy"}), "line 2: kind must be one of"),
        (json.dumps({k: v for k, v in GOOD.items() if k != "concern"}), "line 2: missing concern"),
        (json.dumps({**GOOD, "principle": None}), "line 2: a pitch names one principle"),
        (json.dumps({**GOOD, "text": ""}), "line 2: 'text' must be a non-empty string"),
        (json.dumps({**GOOD, "concern": "price"}), "line 2: concern must be None or one of"),
    ],
)
def test_a_malformed_set_line_is_a_named_error_naming_the_line_and_the_fix(tmp_path, bad, says):
    path = tmp_path / "set.jsonl"
    path.write_text(json.dumps(GOOD) + "\n" + bad + "\n")
    with pytest.raises(LabelledSetError, match=says) as e:
        load_labelled(path)
    assert "one JSON object per line" in str(e.value) or "fix" in str(e.value)


def test_a_missing_or_empty_set_is_a_named_error(tmp_path):
    with pytest.raises(LabelledSetError, match="no such file"):
        load_labelled(tmp_path / "absent.jsonl")
    (tmp_path / "empty.jsonl").write_text("\n\n")
    with pytest.raises(LabelledSetError, match="no labelled lines"):
        load_labelled(tmp_path / "empty.jsonl")


class _Always:
    """A reader that reads every line as one fixed reading (to check the scorer's arithmetic)."""

    def __init__(self, reading: ReadingV3) -> None:
        self.reading = reading

    def read(self, utterance: str, goal: str | None = None) -> ReadingV3:
        return self.reading


def test_the_scorer_computes_precision_recall_and_confusion(tmp_path):
    rows = [
        {**GOOD},
        {**GOOD, "text": "Hi.", "kind": "nothing", "principle": None, "concern": None},
        {**GOOD, "text": "You twit.", "kind": "hostile", "principle": None},
    ]
    path = tmp_path / "set.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = score_reader(_Always(ReadingV3("pitch", "authority", "cost")), load_labelled(path))
    auth = result["reading"]["authority"]
    assert auth["precision"] == pytest.approx(1 / 3) and auth["recall"] == 1.0 and auth["f1"] == pytest.approx(0.5)
    assert result["reading"]["nothing"]["recall"] == 0.0 and result["reading"]["nothing"]["precision"] is None
    assert result["reading_confusion"]["hostile"]["authority"] == 1
    assert result["concern_confusion"]["none"]["cost"] == 3 and result["concern"]["cost"]["precision"] == 0.0
    assert result["hostile_read_as_pitch"] == ["You twit."]
    assert set(result["reading"]) == set(READING_CLASSES) == {*PRINCIPLES, "nothing", "stuffed", "hostile"}


@pytest.mark.parametrize(
    "line, hostile",
    [
        ("Absolute doughnut. The experts have been telling you this for years.", True),
        ("Utter plank, sign it.", True),
        ("Keep waiting, Your Majesty, the places will hold themselves for you.", True),
        ("A trained chimp could follow the doctor's advice.", True),
        ("Even a halfwit could see this is a good deal.", True),
        ("Do you even listen?", True),
        ("Total bargain, honestly.", False),
        ("Absolute legend.", False),
        ("You look tired, are you okay?", False),
        ("Do you even like running?", False),
        ("You daft thing, I'd be lost without you at the quiz.", False),
        ("Ha, I'm such an idiot, I forgot the forms, could you sign them?", False),
        ("I'm not asking because I did you a favour.", False),
        ("I'm not asking, I'm telling you.", True),
        ("I'm an idiot, but you're a bigger idiot.", True),
    ],
)
def test_hostility_frames_of_the_second_round(line, hostile):
    """Constructions added in issue 39's second round, and look-alikes that stay harmless."""
    assert bool(ReaderV3().explain(line)["hostile"]) is hostile


def test_the_word_lists_count_families_and_stems():
    from tom_envs.persuasion.reader_v3_lexicon import LEXICON_NAMES, lexicon_counts

    assert lexicon_counts("The orthodontist reckons it is clinically proven.")["lex:authority"] == 4
    assert "lex:insult" in lexicon_counts("You pudding-brain.")
    assert lexicon_counts("What time is the bus?") == {}
    assert set(lexicon_counts("Everyone loves it, only two left, experts agree.")) <= set(LEXICON_NAMES)


def test_the_word_lists_are_features_only_when_scaled():
    from tom_envs.persuasion.reader_v3_features import SCRIPTED, FeatureSettings, featurise

    line = "The orthodontist reckons so."
    evidence = ReaderV3().explain(line)
    slot = FeatureSettings().buckets + SCRIPTED.index("lex:authority")
    assert slot not in featurise(line, evidence, FeatureSettings())
    assert featurise(line, evidence, FeatureSettings(lexicon_scale=3.0))[slot] == pytest.approx(2.0)  # 3 * 2 words / 3
