"""Scenario schema, built-in cases, validation errors and the ProMediate importer."""

from __future__ import annotations

import json
import warnings

import pytest

from tom_envs.negotiation import BUILTIN_SCENARIOS, PromediateFormatWarning, Scenario, ScenarioError

EXPECTED = {
    "williams_medical_center": (5, 3),
    "hopkins_hmo": (3, 5),
    "st_francis_hospital": (5, 4),
    "ias": (4, 4),
    "flagship": (6, 4),
    "river_basin": (6, 3),
}


def _tiny() -> dict:
    return {
        "name": "tiny",
        "background": "A small case.",
        "topics": [{"name": "T", "options": [{"label": "a", "text": "A"}, {"label": "b", "text": "B"}]}],
        "parties": [
            {"name": "P", "preferences": {"T": {"ranking": ["a", "b"]}}},
            {"name": "Q", "preferences": {"T": {"ranking": ["b", "a"], "unacceptable": ["a"]}}},
        ],
    }


@pytest.mark.parametrize("name", BUILTIN_SCENARIOS)
def test_builtin_scenarios_match_002_appendix_b1(name):
    sc = Scenario.builtin(name)
    assert (len(sc.parties), len(sc.topics)) == EXPECTED[name]
    assert sc.budget == max(20, 2 * len(sc.parties) * len(sc.topics))
    # every topic is contested: not all parties share a first choice
    for k in range(len(sc.topics)):
        assert len({sc.top_option(i, k) for i in range(len(sc.parties))}) > 1 or len(sc.topics[k].options) == 2


def test_hopkins_topics_and_options_follow_the_paper():
    sc = Scenario.builtin("hopkins_hmo")
    assert [len(t.options) for t in sc.topics] == [2, 3, 5, 3, 2]
    assert [o.text for o in sc.topics[3].options] == ["Open", "Dual", "Exclusive"]


def test_from_file_round_trip(tmp_path):
    path = tmp_path / "case.json"
    path.write_text(json.dumps(_tiny()), encoding="utf-8")
    sc = Scenario.from_file(path)
    assert sc.acceptability(1, 0) == [0.0, 1.0]  # unacceptable option scores 0
    assert sc.budget == 20


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: d["parties"][0]["preferences"]["T"].update(ranking=["a"]), "exactly once"),
        (lambda d: d["parties"][0]["preferences"].pop("T"), "no preference for topic 'T'"),
        (lambda d: d["parties"][1]["preferences"]["T"].update(unacceptable=["z"]), "not option labels"),
        (lambda d: d["parties"][1]["preferences"]["T"].update(unacceptable=["a", "b"]), "every option is unacceptable"),
        (lambda d: d["parties"].append(dict(d["parties"][0])), "two partys are named 'P'"),
        (lambda d: d.update(conflict_mode="angry"), "conflict_mode"),
        (lambda d: d["topics"][0]["options"].append({"label": "a", "text": "again"}), "repeats an option label"),
        (lambda d: d["parties"][0]["preferences"]["T"].update(utilities={"a": float("nan"), "b": 0.0}), "finite"),
        (
            lambda d: d["parties"][0]["preferences"]["T"].update(utilities={"a": 0.1, "b": 0.9}),
            "contradict the ranking",
        ),
        (
            lambda d: (
                d["topics"][0]["options"].pop(),
                [p["preferences"]["T"].update(ranking=["a"], unacceptable=[]) for p in d["parties"]],
            ),
            "needs at least two options",
        ),
        (lambda d: d.update(turns_per_party_topic=1e6), "turns_per_party_topic"),
        (lambda d: d.update(turn_budget=10**9), "turn_budget"),
    ],
)
def test_validation_errors_name_the_file_and_the_problem(tmp_path, mutate, message):
    data = _tiny()
    mutate(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ScenarioError) as err:
        Scenario.from_file(path)
    assert str(path) in str(err.value) and message in str(err.value)


def test_missing_file_and_bad_json(tmp_path):
    with pytest.raises(ScenarioError, match="no such scenario file"):
        Scenario.from_file(tmp_path / "nope.json")
    (tmp_path / "x.json").write_text("{oops", encoding="utf-8")
    with pytest.raises(ScenarioError, match="not valid JSON"):
        Scenario.from_file(tmp_path / "x.json")
    with pytest.raises(ScenarioError, match="unknown built-in"):
        Scenario.builtin("atlantis")


# ---------------------------------------------------------------------- ProMediate-Eval importer
CASE_A = {  # headings "## Issue 1: Name" and "1. Name:", markers "(a)" and "Option 2A:", names in other case
    "instruction": "The Harbour Town council meets about reopening the old ferry pier.\nIssues:\n{issues}\nOptions:\n{options}",
    "issues": "## Issue 1: Pier Funding\nWho pays for the repairs?\n## Issue 2: Opening Hours\n3. Fishing Access: Can anglers keep using the pier?",
    "options": (
        "1. Pier Funding: (a) The town pays everything (b) The ferry company pays half (c) A regional grant pays most\n"
        "2. Opening Hours:\nOption 2A: Daytime only\nOption 2B: Until midnight\nOption 2C: Around the clock\n"
        "3. Fishing Access: anglers and ferries will share the space somehow"
    ),
    "topics": ["Pier Funding", "Opening Hours", "Fishing Access"],
    "config": {
        "ANA TORRES": {"im_threshold": 3.5, "system1_prob": 0.2, "interrupt_threshold": 4.0},
        "ben okoro": {"im_threshold": 3.0, "system1_prob": 0.1, "interrupt_threshold": 4.5},
        "Mediator": {"im_threshold": 3.0, "system1_prob": 0.0, "interrupt_threshold": 3.5},
    },
    "names": {
        "Ana Torres": (
            "# Background\nRuns the harbour cafe.\n## Identity\nOwner of a small business near the pier\n"
            "## Opinions\n1. Pier Funding: First choice: (c), Second choice: (b), Third choice: (a)\n"
            "2. Opening Hours: First choice: (2B), Second choice: (2A)\n## Strategy\nKeep the customers coming."
        ),
        "Ben Okoro": "# Background\nFerry operator.\n## Opinions\nWants long hours and low costs.",
        "mediator": "# Identity\nA neutral facilitator hired by the council.",
    },
}
CASE_B = {  # no topics list, markers "(A):" and "(1)."
    "instruction": "Two farms share a well. {issues} {options}",
    "issues": "1. Pumping schedule: who pumps when?\n2. Repair costs - who pays to fix the pump?",
    "options": "1. Pumping schedule: (A): Alternate days (B): Mornings for one farm, evenings for the other\n"
    "2. Repair costs: (1). Split evenly (2). By water used (3). The larger farm pays",
    "config": {"Kim": {"im_threshold": 3}, "Lou": {"im_threshold": 3}},
    "names": {"kim": "## Opinions\n- Pumping schedule: first choice (B)", "LOU": "## Background\nNew to the valley."},
}


def _write(tmp_path, case, name="case.json"):
    path = tmp_path / name
    path.write_text(json.dumps(case), encoding="utf-8")
    return path


def test_promediate_import_keeps_every_party_and_topic(tmp_path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sc = Scenario.from_promediate(_write(tmp_path, CASE_A))
    assert [p.name for p in sc.parties] == ["Ana Torres", "Ben Okoro"]
    assert [t.name for t in sc.topics] == ["Pier Funding", "Opening Hours", "Fishing Access"]
    assert [o.label for o in sc.topics[0].options] == ["a", "b", "c"]
    assert [o.label for o in sc.topics[1].options] == ["2A", "2B", "2C"]
    assert sc.topics[1].options[1].text == "Until midnight"
    assert sc.topics[2].options_unparsed  # kept as text ...
    msgs = [str(w.message) for w in caught if issubclass(w.category, PromediateFormatWarning)]
    assert any("'Fishing Access'" in m for m in msgs)  # ... with a warning naming the topic
    assert any("Ben Okoro" in m for m in msgs)  # no ranking in his profile
    ana = sc.parties[0]
    assert ana.preferences["Pier Funding"].ranking == ["c", "b", "a"]
    assert ana.preferences["Opening Hours"].ranking == ["2B", "2A", "2C"]
    assert ana.meta == {
        "im_threshold": 3.5,
        "system1_prob": 0.2,
        "interrupt_threshold": 4.0,
    }  # config matched across case
    assert "Runs the harbour cafe" in ana.persona and ana.role.startswith("Owner")
    assert "{issues}" not in sc.background and "Pier Funding" in sc.background


def test_promediate_import_other_markers_and_letter_case(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PromediateFormatWarning)
        sc = Scenario.from_promediate(_write(tmp_path, CASE_B, "well.json"))
    assert sc.name == "well"
    assert [t.name for t in sc.topics] == ["Pumping schedule", "Repair costs"]
    assert [o.label for o in sc.topics[0].options] == ["A", "B"]
    assert [o.text for o in sc.topics[1].options] == ["Split evenly", "By water used", "The larger farm pays"]
    assert [p.name for p in sc.parties] == ["kim", "LOU"]
    assert sc.parties[0].preferences["Pumping schedule"].ranking == ["B", "A"]


def test_imported_case_runs_in_the_env(tmp_path):
    from tom_envs.negotiation.env import NegotiationEnv

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PromediateFormatWarning)
        sc = Scenario.from_promediate(_write(tmp_path, CASE_B))
    env = NegotiationEnv(scenario=sc)
    env.reset(seed=0)
    for agent in env.agent_iter():
        _, _, term, trunc, info = env.last()
        env.step(None if term or trunc else 0)
    assert info["episode"]["turns"] == 20


def test_promediate_errors(tmp_path):
    with pytest.raises(ScenarioError, match="missing keys"):
        Scenario.from_promediate(_write(tmp_path, {"names": {}}))
    one = dict(CASE_B, names={"Kim": "x", "Mediator": "y"}, config={})
    with warnings.catch_warnings(), pytest.raises(ScenarioError, match="need at least 2"):
        warnings.simplefilter("ignore", PromediateFormatWarning)
        Scenario.from_promediate(_write(tmp_path, one))
