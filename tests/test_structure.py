"""The shape of the code, read from the source (issue 25, docs/architecture.md "Layout").

* Each layer (``tom_envs``, ``wrappers``, ``policies``, ``benchmarks``) keeps its shared core apart
  from its families: a family's code is in ``<layer>/<family>/``; the other sub-packages of a layer
  are the named core packages (:data:`CORE_PACKAGES`).
* No shared module names a family in its code: no identifier, import or string literal (outside
  docstrings, which may use a family as an example) holds a declared family's name. The
  families are the declared ones (entry-point group ``tom_envs.families``), so a new family is held
  to the rule without editing this test.
* No file outside ``tests/`` is over 600 lines; no function in ``benchmarks/`` takes more than 8
  parameters and none anywhere more than 12 (``self``/``cls`` not counted).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

from tom_envs.family import families, is_builtin

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("tom_envs", "wrappers", "policies", "benchmarks")
#: Sub-packages of a layer that are its shared core, not a family.
CORE_PACKAGES = {"tom_envs": {"checks"}, "policies": {"llm"}, "benchmarks": {"report", "harnesses", "train"}}
#: Data folders shipped inside a family's package (not Python packages of their own).
MAX_LINES = 600
MAX_PARAMS = {"benchmarks": 8}
MAX_PARAMS_ANYWHERE = 12
#: An env's constructor: the flat keyword arguments gymnasium.make passes (a config object would not go
#: through the registry's kwargs)
MAX_ENV_PARAMS = 14


def _builtin() -> list:
    """The families this project declares (a plugin installed beside it is its author's: not checked here)."""
    return [fam for fam in families() if is_builtin(fam.name)]


def _family_folders() -> set[str]:
    return {fam.name for fam in _builtin()}


def _python_files(layer: str) -> list[Path]:
    return sorted(p for p in (ROOT / layer).rglob("*.py") if "__pycache__" not in p.parts)


def _shared_files() -> list[Path]:
    fams = _family_folders()
    return [
        p
        for layer in LAYERS
        for p in _python_files(layer)
        if not (len(p.relative_to(ROOT / layer).parts) > 1 and p.relative_to(ROOT / layer).parts[0] in fams)
    ]


_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def _words(text: str) -> list[str]:
    """The lower-cased word parts of a text: snake_case, kebab-case, CamelCase and prose alike."""
    return [w.lower() for w in _WORD.findall(text)]


def _family_words() -> dict[str, tuple[tuple[str, ...], ...]]:
    """Per family, the word sequences that name it (its name and its command, in word parts)."""
    return {fam.name: tuple({tuple(_words(fam.name)), tuple(_words(fam.command))}) for fam in _builtin()}


def _names_family(text: str, spellings: tuple[tuple[str, ...], ...]) -> bool:
    words = _words(text)
    return any(words[i : i + len(s)] == list(s) for s in spellings for i in range(len(words) - len(s) + 1))


def _code_tokens(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every NAME and non-docstring STRING token of a module."""
    source = path.read_text(encoding="utf-8")
    docstrings = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                docstrings.update(range(first.lineno, first.end_lineno + 1))
        if isinstance(node, ast.Assign) or isinstance(node, ast.AnnAssign):
            pass
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.NAME or (tok.type == tokenize.STRING and tok.start[0] not in docstrings):
            out.append((tok.start[0], tok.string))
        elif tok.type == tokenize.FSTRING_MIDDLE if hasattr(tokenize, "FSTRING_MIDDLE") else False:
            out.append((tok.start[0], tok.string))
    return out


def test_the_four_families_are_declared():
    assert {"matrix", "common_ground", "persuasion", "negotiation"} <= _family_folders()


@pytest.mark.parametrize("layer", LAYERS)
def test_a_layers_sub_packages_are_its_families_or_its_named_core(layer):
    subs = {p.name for p in (ROOT / layer).iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    stray = subs - _family_folders() - CORE_PACKAGES.get(layer, set())
    assert not stray, f"{layer}/ has sub-packages that are neither a declared family nor its core: {sorted(stray)}"


def test_no_shared_module_names_a_family():
    words = _family_words()
    found = []
    for path in _shared_files():
        for line, text in _code_tokens(path):
            for fam, pattern in words.items():
                if _names_family(text, pattern):
                    found.append(f"{path.relative_to(ROOT)}:{line}: {text[:60]!r} names the family {fam!r}")
    assert not found, "shared code names families (move it into the family's folder):\n" + "\n".join(found)


def test_the_name_check_catches_a_family_name():
    words = _family_words()
    for text in (
        "perf_matrix",
        "LLMMatrixPolicy",
        "'benchmarks.negotiation.table'",
        "common_ground",
        "CommonGround",
        '"common-ground"',
        "persuasion_live",
    ):
        assert any(_names_family(text, s) for s in words.values()), text
    for text in ("matrixes_are_not", "commonly", "persuasive", "family", "scorer", "common_sense ground"):
        assert not any(_names_family(text, s) for s in words.values()), text


def test_no_file_outside_tests_is_over_600_lines():
    long = [
        f"{p.relative_to(ROOT)}: {n} lines"
        for layer in LAYERS
        for p in _python_files(layer)
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    ]
    assert not long, f"files over {MAX_LINES} lines (split them by concern):\n" + "\n".join(long)


def _params(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    a = fn.args
    names = [x.arg for x in a.posonlyargs + a.args]
    n = len(names) + len(a.kwonlyargs) + bool(a.vararg) + bool(a.kwarg)
    return n - (1 if names and names[0] in ("self", "cls") else 0)


def _env_inits(tree: ast.AST) -> set[ast.AST]:
    """The ``__init__`` of every env class (a class named ``*Env``): its keyword arguments are what
    ``gymnasium.make(id, **kwargs)`` / ``tom_envs.make`` pass, flat by the Gymnasium convention."""
    return {
        item
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef) and node.name.endswith("Env")
        for item in node.body
        if isinstance(item, ast.FunctionDef) and item.name == "__init__"
    }


def test_no_function_takes_too_many_parameters():
    over = []
    for layer in LAYERS:
        for path in _python_files(layer):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            envs = _env_inits(tree) if layer == "tom_envs" else set()
            for node in ast.walk(tree):
                limit = MAX_ENV_PARAMS if node in envs else MAX_PARAMS.get(layer, MAX_PARAMS_ANYWHERE)
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _params(node) > limit:
                    over.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}: {_params(node)} > {limit}")
    assert not over, "functions with too many parameters (take a typed config object):\n" + "\n".join(over)


def test_no_module_imports_another_modules_private_names():
    """A name with a leading underscore is its module's own: another module that needs it gets a public one."""
    found = []
    for layer in LAYERS:
        for path in _python_files(layer):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in LAYERS:
                    found += [
                        f"{path.relative_to(ROOT)}:{node.lineno}: from {node.module} import {a.name}"
                        for a in node.names
                        if a.name.startswith("_") and not a.name.startswith("__")
                    ]
    assert not found, "private names imported across modules:\n" + "\n".join(found)
