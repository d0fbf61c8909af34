"""Helpers that several tom_envs modules share (issue 40): each does what its callers did before, once."""

from __future__ import annotations

import argparse

import pytest

from tom_envs.download import add_folder_arguments
from tom_envs.errors import DatasetError, UnsupportedRenderMode, check_render_mode, json_object
from tom_envs.persuasion.mind_v3 import FAMILIES_V3, family_v3_named
from tom_envs.persuasion.principles import InvalidPersona
from tom_envs.persuasion.scenarios import FAMILIES, FAMILIES_V2, family_named, family_v2_named


def test_json_object_reads_an_object_and_names_the_place_and_the_fix_otherwise():
    assert json_object('{"a": 1}', "f.json", DatasetError, "fix it") == {"a": 1}
    with pytest.raises(DatasetError, match=r"^f\.json: not valid JSON \(line 2, column 1: .*\); fix it$"):
        json_object('{"a": 1,\n', "f.json", DatasetError, "fix it")
    with pytest.raises(DatasetError, match=r"^f\.json: a JSON list, not an object; fix it$"):
        json_object("[1]", "f.json", DatasetError, "fix it")


def test_render_modes_outside_the_offered_ones_are_named():
    check_render_mode(None, ["ansi"])
    check_render_mode("human", ["ansi", "human"])
    with pytest.raises(UnsupportedRenderMode, match=r"render_mode must be 'ansi', 'human' or None, got 'rgb'"):
        check_render_mode("rgb", ["ansi", "human"])


@pytest.mark.parametrize(
    "lookup, families", [(family_named, FAMILIES), (family_v2_named, FAMILIES_V2), (family_v3_named, FAMILIES_V3)]
)
def test_each_version_finds_its_families_by_name_and_lists_them_otherwise(lookup, families):
    assert all(lookup(f.name) is f for f in families)
    with pytest.raises(InvalidPersona, match=f"unknown scenario family 'nope'; choose from {families[0].name}, "):
        lookup("nope")


def test_folder_arguments_fill_args_out_and_base_url():
    parser = argparse.ArgumentParser()
    add_folder_arguments(parser, "data/x", "where it looks", "https://example.org/x", "<case>.json")
    assert vars(parser.parse_args([])) == {"out": "data/x", "base_url": "https://example.org/x"}
    assert parser.parse_args(["--out", "d"]).out == parser.parse_args(["--dest", "d"]).out == "d"
    assert "folder URL holding <case>.json" in parser.format_help()
