"""The core's layers only point down: no import circle among its modules, and no import of the shell.

Imports are read from the source (every ``import`` statement, at module level or inside a function, except
those under ``if TYPE_CHECKING:``), so a circle hidden behind a function-level import counts as one. Each
core module is also imported on its own in a fresh interpreter: an import order that only works when
another module happens to be imported first fails there.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import dippouch

ROOT = Path(dippouch.__file__).parent
CORE = ROOT / "core"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(CORE.rglob("*.py"))}


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(name: str, path: Path) -> set[str]:
    """The dippouch modules ``name`` imports (a submodule import also imports its package)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else [])
                )
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    out: set[str] = set()
    for mod in found:
        if not mod.startswith("dippouch"):
            continue
        # ``from dippouch.core.rules import w3k`` names a module; ``from dippouch.core.orders import Build`` not.
        parts = mod.split(".")
        while parts and ".".join(parts) not in MODULES and not (ROOT.parent / Path(*parts)).with_suffix(".py").exists():
            if (ROOT.parent / Path(*parts) / "__init__.py").exists():
                break
            parts.pop()
        if parts:
            out.add(".".join(parts))
    out.discard(name)
    return out


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def strong(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in graph:
                continue
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return found


def test_the_reader_sees_the_imports() -> None:
    """The static reading finds what it must (otherwise the checks below would pass vacuously)."""
    assert "dippouch.core.legality" in GRAPH["dippouch.core.movement"]
    assert "dippouch.core.rules.base" in GRAPH["dippouch.core.rules.w3k"]
    assert "dippouch.core.rules.w3k" in GRAPH["dippouch.core.rules"]
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_circle_in_core() -> None:
    assert _cycles(GRAPH) == []


def test_core_never_imports_the_shell() -> None:
    bad = {name: sorted(m for m in deps if not m.startswith("dippouch.core")) for name, deps in GRAPH.items()}
    assert {k: v for k, v in bad.items() if v} == {}


@pytest.mark.parametrize("module", sorted(MODULES))
def test_each_core_module_imports_on_its_own(module: str) -> None:
    done = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
