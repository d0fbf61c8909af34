"""Case-file validation (issue 41): each rule of ``docs/negotiation.md`` ("Case-file rules") on edited copies
of real case files.

Cases in the release's format are our sample ``tests/data/negotiation/cases/harbour.json`` (always) and, with
``TOM_ENVS_PROMEDIATE_RELEASE=<clone of microsoft/ProMediate-Eval>``, the released ``cases/flagship.json``;
cases in the project's format are the bundled ``tom_envs/negotiation/scenarios/hopkins_hmo.json``. Each is
copied to a tmp folder, edited, and loaded: a named error whose message names the file, the field and the fix.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from tom_envs.negotiation import Scenario, ScenarioError
from tom_envs.negotiation.case_rules import (
    MAX_EPISODE_WORK,
    PROMEDIATE_KEYS,
    SCENARIO_ONLY_KEYS,
    TURN_TAKING_RANGES,
    episode_work,
)
from tom_envs.negotiation.errors import (
    CaseTooLargeError,
    EmptyIssuesError,
    MissingOptionBlockError,
    PromediateFormatWarning,
    ThresholdRangeError,
    UnknownKeyError,
)
from tom_envs.negotiation.scenario import BUILTIN_SCENARIOS

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "tests" / "data" / "negotiation" / "cases" / "harbour.json"
BUNDLED = ROOT / "tom_envs" / "negotiation" / "scenarios"
RELEASE = os.environ.get("TOM_ENVS_PROMEDIATE_RELEASE")
NEEDS_RELEASE = pytest.mark.skipif(
    not RELEASE, reason="set TOM_ENVS_PROMEDIATE_RELEASE to a clone of microsoft/ProMediate-Eval"
)
#: a case in the release's format: our sample (always) and a released case (with the release)
RELEASE_FORMAT = [pytest.param("sample", id="sample"), pytest.param("flagship", id="flagship", marks=NEEDS_RELEASE)]


def _source(which: str) -> Path:
    return SAMPLE if which == "sample" else Path(RELEASE) / "cases" / f"{which}.json"


def _copy(tmp_path: Path, src: Path, edit=None, name: str | None = None) -> Path:
    """``src`` copied to ``tmp_path`` (as ``name``), with ``edit(data)`` applied to its JSON first."""
    data = json.loads(src.read_text(encoding="utf-8"))
    if edit is not None:
        edit(data)
    path = tmp_path / (name or src.name)
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def _load(path: Path) -> Scenario:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PromediateFormatWarning)  # pairs stated only in prose: not this test's
        return Scenario.from_file(path)


def _second_block_dropped(data: dict) -> None:
    """Cut the options block of topic 2 (headed "2. ..." or "## Issue 2: ...") out of ``options``."""
    lines = data["options"].splitlines()
    start = next(i for i, line in enumerate(lines) if re.match(r"^\s*(##\s*Issue\s+)?2\s*[.:]", line))
    end = next(i for i, line in enumerate(lines) if re.match(r"^\s*(##\s*Issue\s+)?3\s*[.:]", line))
    data["options"] = "\n".join(lines[:start] + lines[end:])


def _first_party(data: dict) -> str:
    return next(k for k in data["config"] if k.casefold() != "mediator")


# ---------------------------------------------------------------------- a topic's own option block
@pytest.mark.parametrize("which", RELEASE_FORMAT)
def test_topic_without_its_own_option_block_is_named(tmp_path, which):
    original = _load(_source(which))
    path = _copy(tmp_path, _source(which), _second_block_dropped)
    with pytest.raises(MissingOptionBlockError) as exc:
        _load(path)
    msg = str(exc.value)
    assert str(path) in msg and "'options'" in msg and f"topic 2 {original.topics[1].name!r}" in msg
    assert "Add a block '2." in msg  # the fix
    # before: the topic silently took the next topic's options


@pytest.mark.parametrize("which", RELEASE_FORMAT)
def test_a_block_named_for_another_topic_is_not_taken_by_number(tmp_path, which):
    """Topic 2's block cut and topic 3's renumbered 2: the block numbered 2 is named for topic 3, so topic 2
    has none (an error) and topic 3 is never left without its options or given topic 2's."""

    def shift(data):
        _second_block_dropped(data)
        data["options"] = re.sub(
            r"^(\s*(?:##\s*Issue\s+)?)3(\s*[.:])", r"\g<1>2\2", data["options"], flags=re.MULTILINE
        )

    with pytest.raises(MissingOptionBlockError, match="topic 2"):
        _load(_copy(tmp_path, _source(which), shift))


# ---------------------------------------------------------------------- turn-taking ranges
@pytest.mark.parametrize("which", RELEASE_FORMAT)
@pytest.mark.parametrize(
    "key, value",
    [
        ("im_threshold", -1.0),
        ("interrupt_threshold", 1e308),
        ("im_threshold", 0.5),
        ("interrupt_threshold", 5.5),
        ("system1_prob", 1.5),
        ("system1_prob", -0.1),
    ],
)
def test_thresholds_outside_their_range_are_named_in_a_release_case(tmp_path, which, key, value):
    def edit(data):
        data["config"][_first_party(data)][key] = value

    path = _copy(tmp_path, _source(which), edit)
    with pytest.raises(ThresholdRangeError) as exc:
        _load(path)
    lo, hi = TURN_TAKING_RANGES[key]
    msg = str(exc.value)
    assert str(path) in msg and "config[" in msg and key in msg and f"[{lo:g}, {hi:g}]" in msg
    assert "Set it within the range" in msg


@pytest.mark.parametrize("key, value", [("im_threshold", -2.0), ("interrupt_threshold", 1e308), ("system1_prob", 2)])
def test_thresholds_outside_their_range_are_named_in_a_scenario_file(tmp_path, key, value):
    def edit(data):
        data["parties"][1]["turn_taking"] = {key: value}

    path = _copy(tmp_path, BUNDLED / "hopkins_hmo.json", edit)
    with pytest.raises(ThresholdRangeError) as exc:
        Scenario.from_file(path)
    assert str(path) in str(exc.value) and "parties[1].turn_taking" in str(exc.value) and key in str(exc.value)


def test_thresholds_at_the_ends_of_their_ranges_load(tmp_path):
    def edit(data):
        data["parties"][0]["turn_taking"] = {"im_threshold": 1.0, "interrupt_threshold": 5.0, "system1_prob": 0}
        data["mediator"] = {"turn_taking": {"intervention_threshold": 5, "system1_prob": 1.0}}

    sc = Scenario.from_file(_copy(tmp_path, BUNDLED / "hopkins_hmo.json", edit))
    assert sc.parties[0].turn_taking.interrupt_threshold == 5.0 and sc.mediator.turn_taking.intervention_threshold == 5


# ---------------------------------------------------------------------- unknown keys
@pytest.mark.parametrize("which", RELEASE_FORMAT)
def test_unknown_top_level_key_of_a_release_case_lists_the_known_ones(tmp_path, which):
    path = _copy(tmp_path, _source(which), lambda data: data.update(utilities={"a": 1.0}))
    with pytest.raises(UnknownKeyError) as exc:
        _load(path)
    msg = str(exc.value)
    assert str(path) in msg and "'utilities'" in msg and "ProMediate case" in msg
    assert all(k in msg for k in PROMEDIATE_KEYS) and "remove the key" in msg


@pytest.mark.parametrize("which", RELEASE_FORMAT)
def test_unknown_config_key_of_a_release_case_lists_the_known_ones(tmp_path, which):
    def edit(data):
        data["config"][_first_party(data)]["utilities"] = {"a": 1.0}

    path = _copy(tmp_path, _source(which), edit)
    with pytest.raises(UnknownKeyError) as exc:
        _load(path)
    assert "config[" in str(exc.value) and all(k in str(exc.value) for k in TURN_TAKING_RANGES)


@pytest.mark.parametrize(
    "edit, where, known",
    [
        (lambda d: d.update(utilities={}), None, "background"),
        (lambda d: d["topics"][0].update(hint="x"), "topics[0]", "question"),
        (
            lambda d: d["parties"][0]["preferences"]["Contract term"].update(utilitis={"a": 1}),
            "parties[0].preferences['Contract term']",
            "utilities",
        ),
    ],
)
def test_unknown_keys_of_a_scenario_file_name_where_and_the_known_ones(tmp_path, edit, where, known):
    path = _copy(tmp_path, BUNDLED / "hopkins_hmo.json", edit)
    with pytest.raises(UnknownKeyError) as exc:
        Scenario.from_file(path)
    msg = str(exc.value)
    assert str(path) in msg and "tom-envs scenario" in msg and known in msg
    assert where is None or where in msg


# ---------------------------------------------------------------------- empty issues
@pytest.mark.parametrize("which", RELEASE_FORMAT + [pytest.param("hmo", id="hmo", marks=NEEDS_RELEASE)])
@pytest.mark.parametrize("issues", ["", "  \n "])
def test_empty_issues_is_named(tmp_path, which, issues):
    """hmo has a ``topics`` list, so an empty ``issues`` was accepted before."""
    path = _copy(tmp_path, _source(which), lambda data: data.update(issues=issues))
    with pytest.raises(EmptyIssuesError) as exc:
        _load(path)
    assert str(path) in str(exc.value) and "'issues' is empty" in str(exc.value) and "1. Name" in str(exc.value)


# ---------------------------------------------------------------------- the format speaks in messages
@pytest.mark.parametrize("which", RELEASE_FORMAT)
def test_missing_options_in_a_release_case_speaks_the_release_format(tmp_path, which):
    path = _copy(tmp_path, _source(which), lambda data: data.pop("options"))
    with pytest.raises(ScenarioError) as exc:
        _load(path)
    msg = str(exc.value)
    assert "missing keys ['options']" in msg and "ProMediate case" in msg
    assert "background" not in msg and "parties" not in msg and "tom-envs scenario" not in msg


def test_missing_parties_in_a_scenario_file_speaks_the_scenario_format(tmp_path):
    path = _copy(tmp_path, BUNDLED / "hopkins_hmo.json", lambda data: data.pop("parties"))
    with pytest.raises(ScenarioError) as exc:
        Scenario.from_file(path)
    assert "tom-envs scenario" in str(exc.value) and "parties" in str(exc.value)
    assert "ProMediate" not in str(exc.value)


@pytest.mark.parametrize(
    "data, message",
    [
        ({"names": {}, "background": "x"}, "mixes the keys"),
        ({"topics": ["a"]}, "neither"),
        ([1, 2], "JSON array"),
    ],
)
def test_a_file_in_neither_or_both_formats_says_so(tmp_path, data, message):
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ScenarioError, match=message):
        Scenario.from_file(path)


def test_format_keys_follow_the_schema():
    assert set(SCENARIO_ONLY_KEYS) == set(Scenario.model_fields) - set(PROMEDIATE_KEYS)


# ---------------------------------------------------------------------- the work bound
def _crowd(n: int):
    """An edit giving the sample's three parties ``n`` members (names and config entries alike)."""

    def edit(data):
        people = [k for k in data["names"] if k != "Mediator"]
        names = {"Mediator": data["names"]["Mediator"]}
        config = {"Mediator": data["config"]["Mediator"]}
        for i in range(n):
            src = people[i % len(people)]
            names[f"{src}{i}"], config[f"{src}{i}"] = data["names"][src], data["config"][src]
        data["names"], data["config"] = names, config

    return edit


def test_a_case_above_the_work_bound_is_named_with_its_figure_and_the_override(tmp_path):
    from tom_envs.negotiation.env import NegotiationEnv

    sc = _load(_copy(tmp_path, SAMPLE, _crowd(120), "crowd.json"))
    work = episode_work(120, 3, sc.budget, 1)  # 720 turns x (120 x 3 x (120 + 36) + 720 turns x 1 seat)
    assert work == 720 * (120 * 3 * 156 + 720) > MAX_EPISODE_WORK
    with pytest.raises(CaseTooLargeError) as exc:
        NegotiationEnv(scenario=sc)
    msg = str(exc.value)
    assert "crowd.json" in msg and f"{work:,}" in msg and f"{MAX_EPISODE_WORK:,}" in msg
    assert f"max_work={work}" in msg and f"--max-work {work}" in msg  # how to proceed
    env = NegotiationEnv(scenario=sc, max_work=work)  # the documented override
    assert env.budget == 720
    with pytest.raises(CaseTooLargeError):  # the turns played count: a longer budget is more work
        NegotiationEnv(scenario=sc, max_work=work, turn_budget=721)


def test_released_cases_are_far_below_the_work_bound():
    # Flagship with the release's budget (4 x 6 x 4 = 96 turns) and LLM parties in every seat (7 seats)
    assert episode_work(6, 4, 96, 7) == 161_280 < MAX_EPISODE_WORK / 100


def test_max_work_must_be_a_positive_integer():
    from tom_envs.negotiation.env import NegotiationEnv
    from tom_envs.negotiation.errors import NegotiationConfigError

    for bad in (0, -5, 1.5, True, "1e9"):
        with pytest.raises(NegotiationConfigError, match="max_work must be a positive integer"):
            NegotiationEnv(max_work=bad)


def test_cli_stops_a_703_party_case_before_any_episode(tmp_path):
    """The review's case: 703 parties, under the turn cap (2 x 703 x 3 = 4218 turns), ran past 120 s."""
    path = _copy(tmp_path, SAMPLE, _crowd(703), "crowd703.json")
    out = tmp_path / "results"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks",
            "negotiation",
            "--scenarios",
            str(path),
            "--mediator",
            "none",
            "--mode",
            "medium",
            "--episodes",
            "1",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        check=False,
    )
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "crowd703.json" in proc.stderr and "above the bound" in proc.stderr and "--max-work" in proc.stderr
    assert not (out / "negotiation").exists()  # nothing was played


# ---------------------------------------------------------------------- what loads stays as it was
RELEASED = {  # options per topic and parties of the six released cases, as imported
    "flagship": ([5, 3, 4, 4], 6),
    "francis": ([4, 3, 4, 4], 5),
    "hmo": ([2, 3, 5, 3, 2], 3),
    "ias": ([3, 4, 3, 3], 4),
    "river": ([4, 4, 3], 6),
    "williams": ([4, 3, 3], 5),
}


@NEEDS_RELEASE
@pytest.mark.parametrize("case", sorted(RELEASED))
def test_released_cases_load_unchanged(tmp_path, case):
    from tom_envs.negotiation.env import NegotiationEnv

    src = Path(RELEASE) / "cases" / f"{case}.json"
    sc = _load(_copy(tmp_path, src))
    sizes, parties = RELEASED[case]
    assert [len(t.options) for t in sc.topics] == sizes and len(sc.parties) == parties
    assert not any(t.options_unparsed for t in sc.topics)
    texts = [tuple(o.text for o in t.options) for t in sc.topics]
    assert len(set(texts)) == len(texts)  # no topic took another topic's options
    config = {k.casefold(): v for k, v in json.loads(src.read_text(encoding="utf-8"))["config"].items()}
    for p in sc.parties:  # the config's values, kept (names matched across letter case, as the importer does)
        assert {k: v for k, v in p.turn_taking.model_dump().items() if v is not None} == config[p.name.casefold()]
    assert _load(src).model_dump() == sc.model_dump()
    NegotiationEnv(scenario=sc)  # within the work bound


@pytest.mark.parametrize("name", BUILTIN_SCENARIOS)
def test_bundled_scenarios_load_unchanged(tmp_path, name):
    from tom_envs.negotiation.env import NegotiationEnv
    from tom_envs.negotiation.scenario import load_builtin

    sc = Scenario.from_file(_copy(tmp_path, BUNDLED / f"{name}.json"))
    assert sc.model_dump() == load_builtin(name).model_dump()
    NegotiationEnv(scenario=sc)  # within the work bound


def test_sample_case_loads_unchanged(tmp_path):
    sc = _load(_copy(tmp_path, SAMPLE))
    assert [t.labels for t in sc.topics] == [["1A", "1B", "1C"], ["2A", "2B", "2C"], ["3A", "3B", "3C"]]
