"""The ProMediate-Eval importer on the release's preference forms.

Our sample ``tests/data/negotiation/cases/harbour.json`` is written by us in the release's case
format and uses every form the six released cases use. With ``TOM_ENVS_PROMEDIATE_RELEASE`` set to
a clone of github.com/microsoft/ProMediate-Eval, the six cases themselves are checked against our
reading of their text (first choice and blocked options of every party on every topic).
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

import pytest

from tom_envs.negotiation import PromediateFormatWarning, Scenario, ScenarioError
from tom_envs.negotiation.errors import PromediateImportError

SAMPLE = Path(__file__).parent / "data" / "negotiation" / "cases" / "harbour.json"
RELEASE = os.environ.get("TOM_ENVS_PROMEDIATE_RELEASE")


def _load(path=SAMPLE, **kw) -> Scenario:
    with warnings.catch_warnings():
        warnings.simplefilter("error", PromediateFormatWarning)  # the sample imports without a warning
        return Scenario.from_promediate(path, **kw)


def _pref(sc: Scenario, party: str, topic: int):
    return next(p for p in sc.parties if p.name == party).preferences[sc.topics[topic].name]


def test_sample_reads_every_preference_form():
    sc = _load()
    # "- First choice: (1C)" / "- Block: (1A)" / "Strongly against: (3A)"
    assert _pref(sc, "Ana", 0).ranking == ["1C", "1B", "1A"] and _pref(sc, "Ana", 0).unacceptable == ["1A"]
    assert _pref(sc, "Ana", 2).unacceptable == ["3A"]
    # "A. ... is your first choice" / "is **unacceptable**" / option named by its text / "**Barely Acceptable**"
    assert _pref(sc, "Ben", 0).ranking == ["1A", "1C", "1B"] and _pref(sc, "Ben", 0).unacceptable == ["1B"]
    assert _pref(sc, "Ben", 1).ranking == ["2A", "2B", "2C"] and _pref(sc, "Ben", 1).unacceptable == []
    # "- First Choice" followed by a paragraph naming the option by its text; an option never mentioned
    assert _pref(sc, "Ben", 2).ranking == ["3B", "3A", "3C"] and _pref(sc, "Ben", 2).unstated == ["3C"]
    # "### A." headings, "Option #2 is your first choice", "Options #1 & 3 are both unacceptable"
    assert _pref(sc, "Cleo", 0).ranking == ["1B", "1A", "1C"]
    assert _pref(sc, "Cleo", 1).unacceptable == ["2A", "2C"]
    # "Your first choice is Option C", "Option A would be your last choice, but ... not acceptable"
    assert _pref(sc, "Cleo", 2).ranking[0] == "3C" and _pref(sc, "Cleo", 2).unacceptable == ["3A"]
    assert all(pr.source == "stated" for p in sc.parties for pr in p.preferences.values())


def test_sample_identity_priorities_and_thresholds():
    sc = _load()
    ana, ben, cleo = sc.parties
    assert (ana.role, ana.goal) == ("Cafe owner", "Bring visitors to the pier every evening.")  # "Role: " dropped
    assert ben.goal == "Keep costs low and the pier safe."  # "Goal:" as well as "Main Goal:"
    assert ana.priorities == ["Long opening hours", "No new town taxes"]  # "Top priorities"
    assert cleo.priorities == ["Opening Hours", "Pier Funding"]  # "Issue III is the most important ..."
    assert ben.turn_taking.im_threshold == 3.2 and ben.turn_taking.interrupt_threshold == 2.7
    assert ben.turn_taking.system1_prob == 0
    assert sc.mediator is not None and sc.mediator.turn_taking.im_threshold == 3.8
    assert "{issues}" in sc.mediator.persona
    # options: "boat(s)" is not an option marker, River-style bullets lose their trailing " -"
    assert [o.text for o in sc.topics[1].options] == [
        "Ferries only",
        "Ferries and fishing boats",
        "Any boat(s) with a permit",
    ]
    assert sc.topics[0].options[0].text == "The town pays everything"
    assert sc.topics[0].question == "Who pays for the repairs?"


def test_nothing_stated_is_warned_per_pair_or_an_error_when_strict(tmp_path):
    case = json.loads(SAMPLE.read_text(encoding="utf-8"))
    case["names"]["Ben"] = "## Identity\nRole: Ferry operator\n## Opinions\nWants long hours and low costs."
    path = tmp_path / "quiet.json"
    path.write_text(json.dumps(case), encoding="utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sc = Scenario.from_promediate(path)
    msgs = [str(w.message) for w in caught if issubclass(w.category, PromediateFormatWarning)]
    assert sum("'Ben'" in m and "listed option order" in m for m in msgs) == 3  # one warning per pair
    assert any("3 of 9 party-topic pairs" in m for m in msgs)  # and the count
    assert {pr.source for pr in sc.parties[1].preferences.values()} == {"listed_order"}
    with pytest.raises(PromediateImportError, match="'Ben' on 'Pier Funding'"):
        Scenario.from_promediate(path, strict=True)


def test_from_file_takes_a_promediate_case():
    sc = Scenario.from_file(SAMPLE)  # what every CLI --scenarios path goes through
    assert [p.name for p in sc.parties] == ["Ana", "Ben", "Cleo"]


@pytest.mark.parametrize(
    "content, message",
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe", "not a UTF-8 text file"),
        (b"[1, 2]", "JSON object"),
        (b'{"names": {}, "options": ""}', "missing keys"),
    ],
)
def test_bad_case_files_are_named_errors(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(ScenarioError, match=message):
        Scenario.from_promediate(path)
    with pytest.raises(ScenarioError, match=message):
        Scenario.from_file(path)


RELEASE_FIRST_AND_BLOCKED = {
    "hmo": {
        "Alex": [("b", []), ("c", []), ("a", []), ("c", ["a"]), ("b", [])],
        "Jamie": [("b", []), ("b", []), ("a", []), ("c", ["a"]), ("b", [])],
        "Lee": [("a", []), ("a", []), ("c", []), ("a", ["c"]), ("a", [])],
    },
    "flagship": {
        "Atchison": [("a", []), ("b", []), ("a", []), ("d", [])],
        "Delling": [("a", ["e"]), ("a", []), ("d", []), ("d", ["a"])],
        "Gordon": [("d", ["a", "b"]), ("c", []), ("a", []), ("a", [])],
        "Langton": [("e", ["a", "b"]), ("a", []), ("a", []), ("a", [])],
        "Ross": [("c", []), ("a", []), ("a", []), ("a", [])],  # (d) $60M blocks no option of the file (issue 28)
        "Stiles": [("a", []), ("a", ["c"]), ("b", []), ("d", ["a"])],
    },
    "river": {
        "Basin": [("1D", ["1A", "1B"]), ("2D", []), ("3C", [])],
        "Darbin": [("1B", ["1C"]), ("2A", ["2B"]), ("3A", ["3C"])],
        "Eastland": [("1B", ["1C"]), ("2C", ["2A", "2D"]), ("3B", [])],
        "Ministry": [("1A", []), ("2C", ["2A"]), ("3A", ["3C"])],
        "Northland": [("1B", ["1D"]), ("2C", []), ("3B", ["3C"])],
        "Southland": [("1C", []), ("2D", ["2C"]), ("3C", [])],
    },
    "ias": {
        "Chung": [("1", ["2"]), ("2", ["3"]), ("1", []), ("1", [])],
        "Coles": [("1", []), ("1", []), ("1", ["2"]), ("1", ["2"])],
        "Mckenzie": [("2", []), ("3", []), ("2", ["1", "3"]), ("2", ["3"])],
        "Rossi": [("3", []), ("1", ["2", "3"]), ("3", []), ("1", [])],
    },
    "williams": {
        "Bradley": [("d", ["b"]), ("a", ["c"]), ("c", ["a"])],
        "Patricia": [("a", ["d"]), ("a", []), ("c", ["a"])],
        "Robert": [("d", ["a"]), ("c", ["a"]), ("c", ["a"])],
        "Steward": [("d", ["a", "b"]), ("b", ["a"]), ("c", ["a"])],
        "Susan": [("a", ["d"]), ("b", []), ("a", ["c"])],
    },
    "francis": {
        "Bennett": [("A", ["B", "D"]), ("A", ["C"]), ("C", ["A"]), ("C", ["B"])],
        "Macnamara": [("B", ["A"]), ("C", ["B"]), ("A", ["B", "C"]), ("B", ["C"])],
        "Marshall": [("A", ["B", "D"]), ("A", []), ("B", ["A"]), ("A", ["B"])],
        "Mason": [("A", ["B", "D"]), ("A", ["C"]), ("C", ["A"]), ("C", ["B"])],
        "Parker": [("D", ["A", "B"]), ("B", ["A"]), ("C", ["B"]), ("C", ["B"])],
    },
}


@pytest.mark.skipif(not RELEASE, reason="set TOM_ENVS_PROMEDIATE_RELEASE to a clone of microsoft/ProMediate-Eval")
@pytest.mark.parametrize("case", sorted(RELEASE_FIRST_AND_BLOCKED))
def test_release_cases_import_with_every_first_choice_and_blocked_option(case):
    """The table above is our reading of each profile (checked by hand, case by case)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", PromediateFormatWarning)  # no pair falls back to the listed order
        sc = Scenario.from_promediate(Path(RELEASE) / "cases" / f"{case}.json", strict=True)
    got = {
        p.name: [(p.preferences[t.name].ranking[0], sorted(p.preferences[t.name].unacceptable)) for t in sc.topics]
        for p in sc.parties
    }
    assert got == RELEASE_FIRST_AND_BLOCKED[case]
    assert all(p.turn_taking is not None and p.turn_taking.im_threshold == 3.0 for p in sc.parties)
    assert sc.mediator.turn_taking.im_threshold == 3.8 and sc.mediator.turn_taking.interrupt_threshold == 3.8
    assert not any(p.role.startswith("Role") for p in sc.parties) and all(p.goal for p in sc.parties)
    assert all(len(t.options) >= 2 and not any(o.text.endswith(" -") for o in t.options) for t in sc.topics)
    if case == "flagship":
        assert sc.topics[1].labels == ["a", "b", "c"]  # no option "(s)" from "engine(s)"
