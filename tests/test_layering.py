"""The package layering of docs/architecture.md, read from the source: no import cycles, no upward imports.

``tom_envs`` imports nothing from ``wrappers``, ``policies`` or ``benchmarks``; ``wrappers`` only from
``tom_envs``; ``policies`` from ``tom_envs`` and ``wrappers``; ``benchmarks`` from all. Imports inside
functions (the lazy ones) count too: a lazy import hides a cycle from Python, not from a reader.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("tom_envs", "wrappers", "policies", "benchmarks")
ALLOWED = {
    "tom_envs": {"tom_envs"},
    "wrappers": {"tom_envs", "wrappers"},
    "policies": {"tom_envs", "wrappers", "policies"},
    "benchmarks": set(PACKAGES),
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """Our modules that ``name`` imports anywhere in its source (resolved to modules that exist)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_pkg = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".") if is_pkg else name.split(".")[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{a.name}" for a in node.names] + [base]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name and target.split(".")[0] in PACKAGES:
                found.add(target)
    return found


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    known = set(mods)
    return {name: _imports(name, path, known) for name, path in mods.items()}


def test_no_package_imports_a_layer_above_it() -> None:
    bad = [
        f"{a} imports {b}"
        for a, deps in _graph().items()
        for b in deps
        if b.split(".")[0] not in ALLOWED[a.split(".")[0]]
    ]
    assert bad == []


def _is_parent_package(a: str, b: str) -> bool:
    # a package's __init__ re-exporting its own modules is not a cycle worth a name
    return b.startswith(a + ".") or a.startswith(b + ".")


def test_no_import_cycles_between_modules() -> None:
    graph = {a: {b for b in deps if not _is_parent_package(a, b)} for a, deps in _graph().items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert cycles == [], "modules that import each other (directly or through others): " + "; ".join(
        " <-> ".join(c) for c in cycles
    )


@pytest.mark.parametrize("pkg", PACKAGES)
def test_every_package_is_scanned(pkg: str) -> None:
    assert any(name.split(".")[0] == pkg for name in _modules())
