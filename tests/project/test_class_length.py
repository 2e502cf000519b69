"""No class in the package is over 600 lines: a class that size holds several ideas, and the next feature
would land in it too. Split it into modules of one idea each (the game store is a facade over such modules).

Lengths are read from the source with ``ast`` (first line of the ``class`` statement, decorators left out, to
its last line). A class that is still too long today, and is another piece of work's to split, is listed
below with its current length: the test fails if it grows, and asks for the entry to go once it fits.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import dippouch
from sourcesupport import statements, tree

ROOT = Path(dippouch.__file__).parent
LIMIT = 600

# "module:Class" -> the length it has now; it may only shrink.
TOO_LONG_TODAY: dict[str, int] = {}


@cache
def lengths() -> dict[str, int]:
    """Each class's length, read when a test first asks (every test process collects this file, few run it).
    A class is a statement: only statements are read."""
    out: dict[str, int] = {}
    for path in sorted(ROOT.rglob("*.py")):
        module = ".".join(path.relative_to(ROOT.parent).with_suffix("").parts)
        for node in statements(tree(path)):
            if isinstance(node, ast.ClassDef):
                assert node.end_lineno is not None
                out[f"{module}:{node.name}"] = node.end_lineno - node.lineno + 1
    return out


def test_the_reader_sees_the_classes() -> None:
    """The reading finds what it must (otherwise the check below would pass vacuously)."""
    assert "dippouch.store.repository:GameStore" in lengths()
    assert "dippouch.store.db:Database" in lengths()
    assert lengths()["dippouch.core.position:Position"] > 10


def test_no_class_is_over_600_lines() -> None:
    too_long = {name: n for name, n in lengths().items() if n > LIMIT and name not in TOO_LONG_TODAY}
    assert too_long == {}, "split these into modules of one idea each"


def test_the_classes_still_too_long_only_shrink() -> None:
    grown = {name: (lengths().get(name), was) for name, was in TOO_LONG_TODAY.items() if lengths().get(name, 0) > was}
    assert grown == {}, "(now, listed): a listed class may only shrink"
    fits = sorted(name for name in TOO_LONG_TODAY if lengths().get(name, 0) <= LIMIT)
    assert fits == [], "these fit now (or are gone): remove them from TOO_LONG_TODAY"


def test_the_store_has_no_long_class() -> None:
    """The store is one home for SQL and one idea per module: none of its classes is on the list."""
    assert not [name for name in TOO_LONG_TODAY if name.startswith("dippouch.store.")]
    assert max(n for name, n in lengths().items() if name.startswith("dippouch.store.")) <= LIMIT
