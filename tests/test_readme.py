"""Cheap checks of the docs' command lines: pastable as shown, and parsed by the CLI.

Every python block and shell line is run, each on its own, by tests/test_docs_run.py."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_names_the_two_setup_commands():
    text = README.read_text(encoding="utf-8")
    assert "make demo" in text and "make test" in text


def _command_lines(text: str) -> list[str]:
    """Every ``python -m benchmarks`` / ``tom-envs`` command line of the README's bash blocks."""
    lines = []
    for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split("  #")[0].strip()
            for prefix in (".venv/bin/python -m benchmarks ", "python -m benchmarks ", "tom-envs "):
                if line.startswith(prefix):
                    lines.append(line[len(prefix) :])
    return lines


def _argv(line: str) -> list[str]:
    """A README line as argv, exactly as a shell would split it (no placeholders: a line is run as pasted)."""
    import shlex

    return shlex.split(line)


DOCS = sorted((README.parent / "docs").glob("*.md"))


def test_readme_command_lines_are_pastable():
    """No ``[optional]`` parts, ``a|b`` alternatives or ``...`` in a command line: each one runs as pasted."""
    for line in [line for doc in (README, *DOCS) for line in _command_lines(doc.read_text(encoding="utf-8"))]:
        code = re.sub(r"'[^']*'|\"[^\"]*\"", "''", line.split("  #")[0])  # a quoted argument (JSON) is pasted as is
        assert not re.search(r"\[[^\]]*\]|(?<![:/])\|(?!\|)|(^|\s)\.\.\.(\s|$)", code), line


def test_readme_command_lines_parse():
    from benchmarks.__main__ import build_parser

    lines = _command_lines(README.read_text(encoding="utf-8"))
    assert len(lines) >= 15 and any(line.startswith("--version") for line in lines)
    lines += [line for doc in DOCS for line in _command_lines(doc.read_text(encoding="utf-8"))]
    for line in lines:
        argv = _argv(line)
        try:
            build_parser().parse_args(argv)
        except SystemExit as exc:
            if exc.code != 0:  # --version / --help exit 0
                raise AssertionError(f"README command line no longer parses: {line}") from None
