"""Families are plugins: declarations found through the ``tom_envs.families`` entry-point group, the
built-in ones too, and shared code (CLI, report, data listing, downloads) reads them from there."""

from __future__ import annotations

import sys
from pathlib import Path
import textwrap
from importlib.metadata import entry_points

import pytest

from tom_envs.family import GROUP, Family, FamilyError, families, family, refresh


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """Install a distribution the way pip leaves one (a ``*.dist-info`` folder with ``entry_points.txt``)
    on ``sys.path``; yields a function taking the module source and the entry point's value."""

    def install(source: str, value: str = "fake_family_pkg:FAMILY") -> None:
        (tmp_path / "fake_family_pkg.py").write_text(textwrap.dedent(source), encoding="utf-8")
        info = tmp_path / "fake_family_pkg-0.1.dist-info"
        info.mkdir()
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-family-pkg\nVersion: 0.1\n", encoding="utf-8")
        (info / "entry_points.txt").write_text(f"[{GROUP}]\nfake = {value}\n", encoding="utf-8")
        monkeypatch.syspath_prepend(str(tmp_path))
        monkeypatch.delitem(sys.modules, "fake_family_pkg", raising=False)  # another test's copy
        refresh()

    yield install
    sys.modules.pop("fake_family_pkg", None)
    monkeypatch.undo()
    refresh()


def test_the_built_in_families_are_entry_points_of_the_group():
    names = {ep.name for ep in entry_points(group=GROUP)}
    assert {"matrix", "common_ground", "persuasion", "negotiation"} <= names
    assert [f.name for f in families()][:4] == ["matrix", "common_ground", "persuasion", "negotiation"]
    assert family("common-ground") is family("common_ground")


def test_a_third_party_family_is_found_and_listed_after_the_built_in_ones(installed):
    installed("""
        from tom_envs.family import Family
        FAMILY = Family(name="fake_role", command="fake-role")
    """)
    found = families()
    names = [f.name for f in found]
    assert names.index("fake_role") > max(
        names.index(n) for n in ("matrix", "common_ground", "persuasion", "negotiation")
    )
    assert family("fake_role").results_folder == "fake_role"
    from benchmarks.report.load import family_labels
    from benchmarks.report.sections import builder, generic

    assert family_labels()["fake_role"] == "fake-role" and builder("fake_role") is generic


def test_an_entry_point_that_is_not_a_family_is_a_named_error(installed):
    with pytest.raises(FamilyError, match="not a tom_envs.family.Family"):
        installed("FAMILY = {'name': 'oops'}\n")


def test_bad_family_names_and_unknown_families_are_named_errors():
    with pytest.raises(FamilyError, match="letters, digits and underscores"):
        Family(name="two words")
    with pytest.raises(FamilyError, match="no family 'nosuch'"):
        family("nosuch")


def test_shared_code_reads_the_declarations():
    from benchmarks.data import _datasets
    from tom_envs.download import downloads

    assert [d.name for d in _datasets()] == ["common-ground", "persuasion", "negotiation"]
    assert downloads() == {f.command: f.download for f in families() if f.download}


def test_a_familys_commands_and_retired_commands_come_from_its_declaration(installed, capsys):
    from benchmarks.__main__ import build_parser, main

    installed("""
        from benchmarks.cli import Command
        from tom_envs.family import Family

        def hello(args):
            print(f"hello {args.name}")
            return 0

        GREET = Command("greet", "say hello", lambda p: p.add_argument("--name", default="world"), hello)
        FAMILY = Family(name="fake_role", command="fake-role", commands=("fake_family_pkg:GREET",),
                        retired_commands={"old-greet": "use `tom-envs greet`"})
    """)
    assert main(["greet", "--name", "you"]) == 0 and capsys.readouterr().out == "hello you\n"
    assert main(["old-greet", "--name", "x"]) == 2
    assert "`tom-envs old-greet` is no longer a command: use `tom-envs greet`" in capsys.readouterr().err
    commands = build_parser()._subparsers._group_actions[0].choices
    assert {"demo", "perf", "rl", "matrix", "greet"} <= set(commands) and "old-greet" not in commands


def test_a_declared_command_that_is_not_a_command_is_a_named_error(installed):
    from benchmarks.__main__ import build_parser

    installed("""
        from tom_envs.family import Family
        GREET = print
        FAMILY = Family(name="fake_role", commands=("fake_family_pkg:GREET",))
    """)
    with pytest.raises(FamilyError, match="not a benchmarks.cli.Command"):
        build_parser()


def test_of_family_loads_a_familys_objects_in_order_and_names_one_of_another_kind():
    """``benchmarks.declarations.of_family``: what ``tom-envs`` (commands), crossplay and selfplay read from a declaration."""
    from benchmarks.cli import Command
    from benchmarks.crossplay import CrossplayTask
    from benchmarks.declarations import of_family

    fam = family("matrix")
    assert [c.name for c in of_family(fam, "commands", Command)] == ["demo", "perf"]
    with pytest.raises(
        FamilyError,
        match=r"family 'matrix': benchmarks.matrix.commands:DEMO is a Command, not a benchmarks.crossplay.CrossplayTask",
    ):
        of_family(fam, "commands", CrossplayTask)


def test_the_built_in_retired_command_says_what_replaced_it(capsys):
    from benchmarks.__main__ import main

    assert main(["common-ground-download", "--dest", "x"]) == 2
    assert "use `tom-envs data download common-ground`" in capsys.readouterr().err


@pytest.mark.parametrize("fam", families(), ids=lambda f: f.name)
def test_every_declared_part_of_a_family_loads(fam):
    from tom_envs.family import load_object

    targets = [fam.envs, fam.benchmark, fam.report_section, fam.download, fam.dataset, *fam.commands]
    for target in filter(None, targets):
        assert load_object(target) is not None, target
    if fam.report_section:
        assert callable(load_object(fam.report_section))


def test_the_standard_layout_names_the_familys_own_folders():
    fam = Family.standard("fake_role", download=True, order=50)
    assert (fam.envs, fam.benchmark, fam.report_section, fam.download, fam.dataset) == (
        "tom_envs.fake_role.ids",
        "benchmarks.fake_role.benchmark",
        "benchmarks.fake_role.report:fake_role",
        "tom_envs.fake_role.download",
        "tom_envs.fake_role.family:dataset",
    )
    assert Family.standard("x", benchmark=None).benchmark is None


def test_a_plugins_code_is_in_its_results_key_and_a_change_makes_them_fresh(installed, tmp_path):
    from benchmarks.family import EnvCell
    from tom_envs.family import is_builtin, plugin_identity

    source = """
        from tom_envs.family import Family
        FAMILY = Family(name="fake_role", command="fake-role")
        SCORE = 0.8
    """
    installed(source)
    first = plugin_identity("fake_role")
    assert first["distribution"] == "fake-family-pkg" and first["version"] == "0.1" and not is_builtin("fake_role")
    cell = EnvCell("fake_role", "tom/Hidden-v0", "tally")
    assert cell.config()["plugin"] == first
    key = cell.key
    module = next(p for p in sys.path if (Path(p) / "fake_family_pkg.py").is_file())
    (Path(module) / "fake_family_pkg.py").write_text(textwrap.dedent(source).replace("0.8", "0.5"), encoding="utf-8")
    refresh()
    assert plugin_identity("fake_role")["modules_sha256"] != first["modules_sha256"]
    assert EnvCell("fake_role", "tom/Hidden-v0", "tally").key != key  # the old rows are not reused
    # a built-in family's key is the suite's own (stamped by version and commit), unchanged by plugins
    assert plugin_identity("matrix") is None and "plugin" not in EnvCell("matrix", "tom/IPD-v0", "random").config()


@pytest.mark.parametrize("name, command", [("report", ""), ("rl", ""), ("toy", "registry"), ("batch", "")])
def test_a_family_that_takes_a_core_word_is_a_named_error(name, command):
    with pytest.raises(FamilyError, match="takes the core word"):
        Family(name=name, command=command)


def test_the_registry_command_lists_plugin_ids_too(installed, capsys):
    from benchmarks.__main__ import main

    installed("""
        import gymnasium as gym
        import tom_envs
        from tom_envs.family import Family

        class Blank(gym.Env):
            observation_space = gym.spaces.Discrete(1)
            action_space = gym.spaces.Discrete(1)

        if "tom/FakeBlank-v0" not in tom_envs.ids():
            tom_envs.register("tom/FakeBlank-v0", "fake_family_pkg:Blank", family="fake_blank",
                              summary="a plugin's id")
        FAMILY = Family(name="fake_blank", command="fake-blank")
    """)
    try:
        assert main(["registry"]) == 0
        table = capsys.readouterr().out
    finally:
        from tom_envs.registration import unregister

        unregister("tom/FakeBlank-v0")
    assert "`tom/FakeBlank-v0`" in table and "fake-family-pkg" in table and "`tom/IPD-v0`" in table
    from tom_envs.registration import markdown_table

    assert "FakeBlank" not in markdown_table()  # the README's table: the built-in ids


@pytest.mark.parametrize(
    ("field", "module", "kind"),
    [("rl", "rl", "RLTask"), ("crossplay", "crossplay", "CrossplayTask"), ("selfplay", "selfplay", "SelfplayTask")],
)
def test_a_declared_task_of_another_kind_is_a_named_error_of_its_command(installed, field, module, kind):
    import importlib

    installed(f"""
        from tom_envs.family import Family
        NOT_A_TASK = 42
        FAMILY = Family(name="fake_role", {field}=("fake_family_pkg:NOT_A_TASK",))
    """)
    with pytest.raises(
        FamilyError,
        match=rf"'fake_role': fake_family_pkg:NOT_A_TASK is a int, not a benchmarks\.{module}\.{kind}",
    ):
        importlib.import_module(f"benchmarks.{module}").tasks()


def test_an_rl_declaration_that_does_not_import_leaves_the_other_families_ids(installed):
    from benchmarks.rl import RLError, task_for, tasks

    installed("""
        from tom_envs.family import Family
        FAMILY = Family(name="fake_role", rl=("fake_family_missing_module:TASK",))
    """)
    broken: dict[str, str] = {}
    found = tasks(broken)
    assert "tom/IPD-v0" in found and found["tom/IPD-v0"][0] == "matrix"
    assert (
        list(broken) == ["fake_family_missing_module:TASK"]
        and "ModuleNotFoundError" in broken["fake_family_missing_module:TASK"]
    )
    with pytest.raises(RLError, match="fake_family_missing_module:TASK did not import"):
        task_for("tom/NoSuchGame-v0")
