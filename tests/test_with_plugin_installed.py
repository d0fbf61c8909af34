"""``make test`` with the example plugin installed (issue 40): the tests that read what is installed pass.

The hidden-role plugin (``tests/plugins/hidden_role/``) is pip-installed into a folder of its own, as a user installs
a family beside the suite, and put first on the path of a fresh pytest process that runs every test module that
enumerates installed families, ids, commands or harness tasks (:data:`ENUMERATING`; its fast tests). Those are the
tests whose outcome an installed plugin can change: the rest never look at what is installed. Without the plugin the
same modules run in the main suite.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "tests" / "plugins" / "hidden_role"
#: every test module that enumerates what is installed (families(), the registry, the commands, the harness tasks)
ENUMERATING = (
    "tests/test_registry_conformance.py",
    "tests/test_structure.py",
    "tests/test_family_plugins.py",
    "tests/test_cli.py",
    "tests/test_cli_vocabulary.py",
    "tests/test_inspect.py",
    "tests/test_rl.py",
    "tests/test_vector_env.py",
    "tests/test_games.py",
    "tests/test_information_checker.py",
    "tests/test_tom_contract.py",
    "tests/test_train.py",
)


def test_the_modules_that_enumerate_what_is_installed_list_them():
    """:data:`ENUMERATING` is complete: a test module that calls ``families()`` or reads the registry is in it."""
    pattern = re.compile(r"\bfamilies\(\)|\bgym\.registry\b|\bgym\.envs\.registry\b|\bREGISTRY\b\s*(?:\.|\))")
    found = {
        f"tests/{p.name}"
        for p in (ROOT / "tests").glob("test_*.py")
        if p.name != Path(__file__).name and pattern.search(p.read_text())
    }
    assert found <= set(ENUMERATING), f"add to ENUMERATING: {sorted(found - set(ENUMERATING))}"


#: the modules run whole with the plugin installed (fast; they read the installed families themselves)
RUN_WHOLE = (
    "tests/test_structure.py",
    "tests/test_family_plugins.py",
    "tests/test_cli_vocabulary.py",
    "tests/test_tom_contract.py",
    "tests/test_games.py",
)


def _pytest(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "0", "-m", "not slow", "-p", "no:cacheprovider", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )


def _collected(env: dict) -> set[str]:
    run = _pytest(env, "--collect-only", *ENUMERATING)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    return {line for line in run.stdout.splitlines() if "::" in line}


def test_the_suite_passes_with_the_plugin_installed(tmp_path):
    """Installed, the plugin is found; the enumerating modules collect; every test the plugin adds or changes
    (collected with it and not without) passes, and so do the whole modules of :data:`RUN_WHOLE`."""
    source, target = tmp_path / "src", tmp_path / "site"
    shutil.copytree(PLUGIN, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index"]
    subprocess.run([*pip, "--target", str(target), str(source)], check=True, capture_output=True, timeout=120)
    bare = dict(os.environ, PYTHONPATH=str(ROOT))
    installed = dict(os.environ, PYTHONPATH=os.pathsep.join([str(target), str(ROOT)]))
    probe = subprocess.run(
        [sys.executable, "-c", "from tom_envs.family import families; print([f.name for f in families()])"],
        env=installed,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "hidden_role" in probe.stdout, probe.stdout + probe.stderr
    with_plugin, without = _collected(installed), _collected(bare)
    assert without - with_plugin == set(), f"installing the plugin drops tests: {sorted(without - with_plugin)[:10]}"
    added = sorted(with_plugin - without)
    run = _pytest(installed, *RUN_WHOLE, *[t for t in added if not t.startswith(RUN_WHOLE)])
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert re.search(r"\d+ passed", run.stdout), run.stdout[-2000:]
