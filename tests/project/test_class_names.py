"""No two public classes of ``src/`` share a name (issue 54): a reader who meets ``Proposal`` or ``Seat`` in a
module should not have to look which of three it is, and a search for a class should find one. The check reads
every module's syntax tree (no import) and counts the names defined as a public class (no leading underscore)
at the top of more than one module. The count may only fall: :data:`RECORDED` is the count when it was last
lowered (the goal is 0); a count above it fails and names the classes."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

from sourcesupport import tree as parsed

SRC = Path(__file__).resolve().parents[2] / "src"

RECORDED = 0
"""Public class names defined in more than one module of ``src/`` when last counted: lower it as they go."""


def shared_names(src: Path = SRC) -> dict[str, list[str]]:
    """Each public class name defined at the top of more than one module under ``src``, with those modules."""
    where: dict[str, list[str]] = defaultdict(list)
    for path in sorted(src.rglob("*.py")):
        for node in parsed(path).body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                where[node.name].append(str(path.relative_to(src)))
    return {name: paths for name, paths in sorted(where.items()) if len(paths) > 1}


def test_no_more_public_class_names_are_shared() -> None:
    shared = shared_names()
    listed = "\n".join(f"  {name}: {', '.join(paths)}" for name, paths in shared.items())
    print(f"public class names shared by modules: {len(shared)}\n{listed}")
    assert len(shared) <= RECORDED, (
        f"{len(shared)} public class names are defined in more than one module, more than the {RECORDED} "
        f"recorded: name the new one after what it is in its own module\n{listed}"
    )


def test_the_check_finds_a_shared_name_and_ignores_private_and_nested_ones(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("class Seat: ...\nclass _Row: ...\n", encoding="utf-8")
    (tmp_path / "b.py").write_text(
        "class Seat: ...\nclass _Row: ...\ndef f():\n    class Board: ...\n", encoding="utf-8"
    )
    (tmp_path / "c.py").write_text("class Board: ...\n", encoding="utf-8")
    assert shared_names(tmp_path) == {"Seat": ["a.py", "b.py"]}
