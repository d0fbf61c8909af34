"""The "add a family" tutorial is a test: docs/tutorial_add_a_family.md's steps are the files in docs/tutorial/,
and this test builds the package from them, installs it the way pip leaves a package (a ``*.dist-info`` folder
with the entry point of the tutorial's ``pyproject.toml``, on ``sys.path``; no network), and runs the tutorial's
own tests (``check_env``) and the command the family gets (``tom-envs false-belief``)."""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import tom_envs
from tom_envs import family as families_module

ROOT = Path(__file__).resolve().parents[1]
TUTORIAL = ROOT / "docs" / "tutorial"
DOC = ROOT / "docs" / "tutorial_add_a_family.md"
#: the package's modules, in the order of the tutorial's steps
MODULES = ("env.py", "envs.py", "agents.py", "benchmark.py", "family.py")
ENV_ID = "tom/FalseBelief-v0"


def _project() -> dict:
    return tomllib.loads((TUTORIAL / "pyproject.toml").read_text(encoding="utf-8"))["project"]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The tutorial's package built from its step files into a fresh folder with its ``dist-info`` (name,
    version and the ``tom_envs.families`` entry point read from the tutorial's ``pyproject.toml``), on
    ``sys.path``, found by :func:`tom_envs.family.refresh`; undone afterwards."""
    project = _project()
    ((name, value),) = project["entry-points"][families_module.GROUP].items()
    package = value.partition(".")[0]
    target = tmp_path_factory.mktemp("tutorial_site")
    (target / package).mkdir()
    (target / package / "__init__.py").write_text('"""The tutorial\'s family (docs/tutorial)."""\n', encoding="utf-8")
    for module in MODULES:
        (target / package / module).write_text((TUTORIAL / module).read_text(encoding="utf-8"), encoding="utf-8")
    info = target / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(f"[{families_module.GROUP}]\n{name} = {value}\n", encoding="utf-8")
    sys.path.insert(0, str(target))
    importlib.invalidate_caches()
    try:
        assert name in [f.name for f in families_module.refresh()]
        yield target
    finally:
        sys.path.remove(str(target))
        from benchmarks import family as benchmarks_family

        benchmarks_family.unregister("false-belief")
        if ENV_ID in tom_envs.REGISTRY:
            tom_envs.registration.unregister(ENV_ID)
        for mod in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
            del sys.modules[mod]
        families_module._discovered.cache_clear()


@pytest.mark.slow
def test_the_tutorials_own_tests_pass_on_the_installed_package(site):
    """Step 6's file, run as its author runs it: every ``test_*`` function of docs/tutorial/test_false_belief.py
    (check_env over the whole conformance suite, and the belief tracker above the reality floor)."""
    spec = importlib.util.spec_from_file_location("tutorial_tests", TUTORIAL / "test_false_belief.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    tests = [getattr(module, n) for n in dir(module) if n.startswith("test_")]
    assert len(tests) == 2
    for test in tests:
        test()


@pytest.mark.slow
def test_the_generated_command_plays_the_installed_family(site, tmp_path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    argv = [
        "false-belief",
        "--policy",
        "tracker,reality",
        "--episodes",
        "2",
        "--format",
        "json",
        "--out",
        str(tmp_path),
    ]
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", *argv], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = json.loads(done.stdout)
    assert [(r["env_id"], r["policy"], r["episodes"]) for r in rows] == [(ENV_ID, "tracker", 2), (ENV_ID, "reality", 2)]
    for row in rows:
        assert {"return", "tom_accuracy", "accuracy", "false_belief_turns"} <= set(row)
    assert list(tmp_path.rglob("*.jsonl")), "the runner wrote no results file"


def test_the_doc_walks_through_every_step_file_and_names_every_declared_field():
    from benchmarks.family import Benchmark
    from tom_envs.family import Family

    text = DOC.read_text(encoding="utf-8")
    steps = re.findall(r"^## Step (\d+)", text, flags=re.M)
    assert steps == [str(i) for i in range(1, len(steps) + 1)] and len(steps) >= 6
    for path in sorted(TUTORIAL.iterdir()):
        assert f"docs/tutorial/{path.name}" in text, f"the tutorial does not show {path.name}"
    for cls in (Family, Benchmark):
        missing = [f.name for f in dataclasses.fields(cls) if f"`{f.name}`" not in text]
        assert not missing, f"docs/tutorial_add_a_family.md names no {cls.__name__} field {missing}"
