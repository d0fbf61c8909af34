"""The report's live v3 part (issue 39): built from the records `tom-envs persuasion --env live --live-env
tom/Persuasion-v3` stores, it shows the exact references and the gates per family and turn budget, each persuader
beside its exact value and the no-ToM floors, and the plane with one colour per persuader."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
from statistics import mean

import pytest

from benchmarks.persuasion import benchmark as bench
from benchmarks.persuasion.report_live_v3 import live_v3_section
from benchmarks.report import build_report
from benchmarks.report.load import read_family
from tom_envs.persuasion.mind_v3 import family_v3_named
from tom_envs.persuasion.planning_v3 import references_v3

FAMILIES = ("health", "work")


def _play(res, horizon: int) -> list[dict]:
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    argv = ["--env", "live", "--live-env", "tom/Persuasion-v3", "--families", ",".join(FAMILIES), "--episodes", "5"]
    args = parser.parse_args([*argv, "--horizon", str(horizon), "--out", str(res), "--format", "json"])
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert bench.run(args) == 0
    return json.loads(buf.getvalue())


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    root = tmp_path_factory.mktemp("v3report")
    printed = {h: _play(root / "res", h) for h in (2, 4)}  # T = 2: the gates fail there, T = 4: they hold
    return root, printed


@pytest.fixture(scope="module")
def section(played):
    """The v3 subsection built once from the stored records (drawing its figure)."""
    root, _ = played
    fam = read_family(root / "res", "persuasion")
    written: list[str] = []
    out = root / "figs"
    out.mkdir(exist_ok=True)
    blocks, panels = live_v3_section(fam.files, out, root, written)
    return blocks, panels, written


def _table(blocks, caption_start):
    (table,) = [b for b in blocks if b["kind"] == "table" and b["caption"].startswith(caption_start)]
    return [dict(zip(table["columns"], r["cells"])) for r in table["rows"]]


def _value(cell) -> float:
    return float(cell["value"])


def test_the_gate_table_has_the_exact_differences_and_says_pass_or_fail_per_turn_budget(played, section):
    _, printed = played
    blocks, _, _ = section
    rows = _table(blocks, "Live persuasion v3: exact references and issue 39's gates")
    for h in (2, 4):
        group = f"Persuasion-v3, H={h}"
        for f in FAMILIES:
            (row,) = [r for r in rows if r["family"] == f and r["env, horizon"] == group]
            e = references_v3(family_v3_named(f), h)
            assert _value(row["best memory-less %"]) == pytest.approx(100 * e.memoryless)
            assert _value(row["value of memory (bayes - memory-less) (>= 10)"]) == pytest.approx(
                100 * e.value_of_memory
            )
            assert _value(row["oracle - bayes (>= 5)"]) == pytest.approx(100 * (e.oracle - e.bayes))
        (least,) = [r for r in rows if r["family"] == "every family (least)" and r["env, horizon"] == group]
        # the command printed the same verdicts
        verdict = {g["label"]: g["pass"] for g in printed[h][0]["gates"]}
        for label, ok in verdict.items():
            assert f"{label} {'pass' if ok else 'FAIL'}" in least["gates"]
        (paired,) = [r for r in rows if r["family"].startswith("played, paired") and r["env, horizon"] == group]
        command = {g["label"]: g["played_points"] for g in printed[h][0]["gates"]}
        assert _value(paired["value of memory (bayes - memory-less) (>= 10)"]) == pytest.approx(
            command["value of memory (bayes - memory-less)"]
        )
    assert all(g["pass"] for g in printed[4][0]["gates"])
    assert not all(g["pass"] for g in printed[2][0]["gates"])  # T = 2 is too short for memory to pay 10 points


def test_each_persuader_row_equals_the_records_and_stands_beside_its_exact_value_and_floors(played, section):
    _, printed = played
    blocks, _, _ = section
    rows = _table(blocks, "Live persuasion v3: success per persuader")
    for h in (2, 4):
        by_policy = {r["policy"]: r for r in printed[h]}
        for policy, command in by_policy.items():
            (row,) = [
                r
                for r in rows
                if r["persuader"] == policy and r["family"] == "all" and r["env, horizon"] == f"Persuasion-v3, H={h}"
            ]
            assert int(row["episodes"]) == 10
            assert _value(row["success %"]) == pytest.approx(command["success"])
            assert _value(row["its exact %"]) == pytest.approx(command["exact_success"])
            assert _value(row["floor: best memory-less %"]) == pytest.approx(100 * command["memoryless"])
            assert _value(row["floor: echo %"]) == pytest.approx(100 * command["echo"])
            assert _value(row["floor: open-loop %"]) == pytest.approx(100 * command["open_loop"])
            assert _value(row["majority stake %"]) == pytest.approx(100 * command["stake_majority"])
            if command["source_accuracy"] is not None:
                assert _value(row["source ToM %"]) == pytest.approx(command["source_accuracy"])


def test_the_plane_gives_each_persuader_one_colour_and_the_report_shows_the_section(played, section):
    root, _ = played
    _, panels, written = section
    assert [p["title"] for p in panels] == ["Persuasion-v3, H=2, all families", "Persuasion-v3, H=4, all families"]
    assert any(w.endswith("live_v3_plane.png") for w in written)
    audit = json.loads((root / "figs" / "live_v3_plane.figure.json").read_text())
    colours = {}
    for panel in audit["panels"]:
        for series in panel["series"]:
            assert colours.setdefault(series["agent"], series["color"]) == series["color"]
    assert set(colours) == {"random", "echo", "memoryless", "bayes", "oracle"}  # open-loop predicts nothing
    assert len(set(colours.values())) == len(colours)
    report = build_report(root / "res", root / "report")
    text = (root / "report" / "index.md").read_text()
    assert report["index"].is_file() and "Live persuasion v3: the value of memory" in text
    assert "persuasion/live_v3_plane.png" in text
    # the stored episodes' mean success is the table's
    fam = read_family(root / "res", "persuasion")
    bayes = [
        r["episode"]["success"] for f in fam.files for r in f.records if r["policy"] == "bayes" and r["horizon"] == 4
    ]
    assert len(bayes) == 10 and f"{100 * mean(bayes):.1f}" in text
