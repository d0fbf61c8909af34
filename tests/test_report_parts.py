"""The pieces report sections are built with (:mod:`benchmarks.report.parts`): a figure drawn only where there are
panels, its file recorded as the page links it, and the section dict."""

from __future__ import annotations

import json

from benchmarks.report import figures
from benchmarks.report.load import FamilyData
from benchmarks.report.parts import drawn_figure, plane_section, section_of

SERIES = {
    "agent": "ppo",
    "variant": "",
    "x": [1, 2, 3],
    "mean": [1.0, 2.0, 1.5],
    "lo": [0.5, 1.5, 1.0],
    "hi": [1.5, 2.5, 2.0],
}


def test_no_panels_draw_no_figure_and_add_no_block(tmp_path):
    written: list[str] = []
    out = tmp_path / "rl"
    assert drawn_figure(figures.curves, out / "curves.png", "title", [], "measure", "caption", written, tmp_path) == []
    assert plane_section("title", "caption", [], "variant", written, out, tmp_path) == []
    assert written == [] and not out.exists()


def test_a_drawn_figure_is_one_block_linked_relative_to_the_page(tmp_path):
    written: list[str] = []
    panels = [{"title": "return", "xlabel": "steps", "ylabel": "return", "series": [SERIES]}]
    blocks = drawn_figure(
        figures.curves, tmp_path / "rl" / "curves.png", "Curves", panels, "measure", "The caption.", written, tmp_path
    )
    assert blocks == [{"kind": "figure", "src": "rl/curves.png", "caption": "The caption."}]
    assert written == ["rl/curves.png"] and (tmp_path / "rl" / "curves.png").is_file()
    audit = json.loads((tmp_path / "rl" / "curves.figure.json").read_text(encoding="utf-8"))
    assert [s["agent"] for s in audit["panels"][0]["series"]] == ["ppo"]


def test_the_plane_section_has_its_heading_and_the_family_plane(tmp_path):
    written: list[str] = []
    panels = [
        {
            "title": "game",
            "xlabel": "ToM %",
            "ylabel": "regret",
            "xlim": (0, 100),
            "points": [{"agent": "ppo", "variant": "", "x": 50.0, "xci": 5.0, "y": 1.0, "yci": 0.1}],
        }
    ]
    blocks = plane_section("Plane", "Its caption.", panels, "horizon", written, tmp_path / "matrix", tmp_path)
    assert blocks == [
        {"kind": "h3", "text": "Literal vs functional ToM"},
        {"kind": "figure", "src": "matrix/plane.png", "caption": "Its caption."},
    ]
    assert written == ["matrix/plane.png"]


def test_a_section_names_its_family_folder_and_keeps_the_key_order_of_the_cached_file():
    fam = FamilyData(folder="rl", files=[])
    section = section_of(fam, "RL agents", [{"kind": "p", "text": "x"}], [], ["rl/plane.png"])
    assert list(section) == ["family", "title", "blocks", "panels", "figures"]
    assert section["family"] == "rl" and section["figures"] == ["rl/plane.png"]
