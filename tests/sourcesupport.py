"""The package's source read once a test process: the project's tests read its ~900 modules' syntax trees
(the import graph, class lengths, refusals, store writes, settings reads...), and each read them afresh, some
when their file was collected, so every test process paid for it, running them or not (8 s of CPU a process).

A tree is shared by every test that asks for it: read it, never change it."""

from __future__ import annotations

import ast
from collections.abc import Callable
from functools import cache
from pathlib import Path

__all__ = ["statements", "tree"]


def tree(path: Path) -> ast.Module:
    """``path``'s syntax tree, parsed once while the file stays as it is (a test that writes a file of its own
    and parses it gets its own tree)."""
    st = path.stat()
    return _parsed(path.resolve(), st.st_mtime_ns, st.st_size)


@cache
def _parsed(path: Path, mtime_ns: int, size: int) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")
"""The fields of a statement that hold statements (a try's handlers and a match's cases hold them in turn)."""


def statements(
    nodes: list[ast.stmt] | ast.Module, *, skip: Callable[[ast.AST], list[ast.stmt] | None] | None = None
) -> list[ast.AST]:
    """Every statement in ``nodes`` and the blocks nested in them, in source order, without descending into
    expressions: what an import, a class or a function definition can only be. ``skip``, given a statement,
    answers the block to read in its place (an ``if TYPE_CHECKING:``'s ``else``), or None to read it whole."""
    out: list[ast.AST] = []
    todo: list[ast.AST] = list(reversed(nodes.body if isinstance(nodes, ast.Module) else nodes))
    while todo:
        node = todo.pop()
        instead = skip(node) if skip is not None else None
        if instead is not None:
            todo.extend(reversed(instead))
            continue
        out.append(node)
        for field in _BLOCKS:
            inner = getattr(node, field, None)
            if isinstance(inner, list):
                todo.extend(reversed(inner))
    return out
