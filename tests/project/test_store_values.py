"""Values, not database rows, leave the store: no public function of a store module hands out a mapped row
(a subclass of ``store.models.Base``), nor a container or a value of its own that holds one; and no module
outside the store imports the mapped classes.

A row read in a session that has closed is a trap for the caller: its unloaded attributes raise, and its
loaded ones look like data one could change and save. The rooms above the store read frozen values instead.

A function that takes a ``Session`` or a row works inside a transaction the store opened (``rows.game_row``,
``standing.standing_versions``): only the store's rooms hold a session or a row, so such a function is a
room's helper, not a door out, and may hand back rows of that same session.

Return types are read from the annotations (``typing.get_type_hints``), so a function that returns a row
without saying so is not caught; mypy (strict) checks that each annotation is true.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import pkgutil
import re
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session

import dippouch
import dippouch.store
from dippouch.store.models import Base, PhaseRow
from sourcesupport import tree as parsed

STORE_MODULES = sorted(
    m.name
    for m in pkgutil.walk_packages(dippouch.store.__path__, "dippouch.store.")
    if not m.name.startswith("dippouch.store.migrations")
)
"""The games core's modules and every domain's (``store/press/``, ``store/mail/``...), sub-packages included."""
ROOT = Path(dippouch.__file__).parent
SOURCES = {
    ".".join(p.relative_to(ROOT.parent).with_suffix("").parts).removesuffix(".__init__"): p
    for p in sorted(ROOT.rglob("*.py"))
}
MAPPED = {m.class_ for m in Base.registry.mappers}
MAPPED_NAMES = {c.__name__ for c in MAPPED}

# "module:function" -> why it may still hand out rows. Empty: every door of the store hands out values.
ALLOWED: dict[str, str] = {}


def _functions() -> Iterator[tuple[str, Callable[..., Any]]]:
    """Every public function of a store module, and every public method of a class it defines (each once,
    under the module that defines it: the facade's methods are the rooms' functions)."""
    seen: set[int] = set()
    for name in STORE_MODULES:
        module = importlib.import_module(name)
        for attr, obj in vars(module).items():
            if attr.startswith("_") or getattr(obj, "__module__", None) != name:
                continue
            found: list[tuple[str, Any]] = []
            if inspect.isfunction(obj):
                found.append((attr, obj))
            elif inspect.isclass(obj) and obj not in MAPPED:
                for meth, fn in vars(obj).items():
                    fn = fn.__func__ if isinstance(fn, staticmethod | classmethod) else fn
                    if not meth.startswith("_") and inspect.isfunction(fn) and fn.__module__ == name:
                        found.append((f"{attr}.{meth}", fn))
            for qual, fn in found:
                if id(fn) not in seen:
                    seen.add(id(fn))
                    yield f"{name}:{qual}", fn


def _hints(fn: Callable[..., Any]) -> dict[str, Any]:
    """The function's annotations, resolved; one naming a type imported only for the type checker is left
    as its text (read by name below)."""
    try:
        return typing.get_type_hints(fn)
    except NameError:
        return dict(getattr(fn, "__annotations__", {}))


def _holds_a_row(tp: Any, seen: set[int] | None = None) -> bool:
    """Whether the type is a mapped class, or holds one: in its arguments (``list[PhaseRow]``,
    ``PhaseRow | None``), or in a field of a dataclass or a NamedTuple of the store's."""
    seen = set() if seen is None else seen
    if id(tp) in seen:
        return False
    seen.add(id(tp))
    if isinstance(tp, str):
        return bool(set(re.findall(r"\w+", tp)) & MAPPED_NAMES)
    if isinstance(tp, type) and issubclass(tp, Base):
        return True
    if any(_holds_a_row(arg, seen) for arg in typing.get_args(tp)):
        return True
    if (
        isinstance(tp, type)
        and tp.__module__.startswith("dippouch.store")
        and (dataclasses.is_dataclass(tp) or hasattr(tp, "_fields"))
    ):
        return any(_holds_a_row(field, seen) for field in _hints(tp).values())
    return False


def _works_in_a_session(hints: dict[str, Any]) -> bool:
    """Takes a ``Session`` or a row: a room's helper inside a transaction the store opened."""
    for name, tp in hints.items():
        if name == "return":
            continue
        if isinstance(tp, str):
            if "Session" in re.findall(r"\w+", tp) or _holds_a_row(tp):
                return True
        elif tp is Session or any(a is Session for a in typing.get_args(tp)) or _holds_a_row(tp):
            return True
    return False


def _doors_handing_out_rows() -> dict[str, str]:
    out = {}
    for where, fn in _functions():
        hints = _hints(fn)
        if "return" in hints and _holds_a_row(hints["return"]) and not _works_in_a_session(hints):
            out[where] = str(hints["return"])
    return out


def test_the_reader_sees_the_store() -> None:
    """The reading finds what it must, or the checks below would pass vacuously: the functions, the helpers
    that work in a session, and a row inside a container or a dataclass."""
    found = dict(_functions())
    assert "dippouch.store.history:history" in found and "dippouch.store.access:AccessStore.phases" in found
    assert "dippouch.store.press.messages:send" in found, "a domain's sub-package is read too"
    assert _works_in_a_session(_hints(found["dippouch.store.rows:game_row"]))

    @dataclasses.dataclass(frozen=True)
    class Holder:
        rows: list[PhaseRow]

    Holder.__module__ = "dippouch.store.example"
    assert _holds_a_row(list[PhaseRow]) and _holds_a_row(PhaseRow | None) and _holds_a_row("PhaseRow | None")
    assert _holds_a_row(Holder) and not _holds_a_row(dict[str, int])


def test_no_door_of_the_store_hands_out_a_row() -> None:
    found = _doors_handing_out_rows()
    assert {k: v for k, v in found.items() if k not in ALLOWED} == {}, "return a frozen value instead"
    assert set(ALLOWED) <= set(found), "these hand out values now: take them off the list"


def _imported(module: str) -> set[str]:
    """The modules (and names) a module's source imports, anywhere in it, ``if TYPE_CHECKING:`` included."""
    found: set[str] = set()
    for node in ast.walk(parsed(SOURCES[module])):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def test_no_module_outside_the_store_imports_the_rows() -> None:
    """The mapped classes are the store's: a module above it that imports them reads rows the store handed
    out, or builds its own queries."""
    models = {
        m
        for m in SOURCES
        if m.startswith("dippouch.store.models") or (m.startswith("dippouch.store.") and m.endswith(".models"))
    }
    assert "dippouch.store.models" in models and "dippouch.store.mail.models" in models
    reaching = {name: sorted(_imported(name) & models) for name in SOURCES if not name.startswith("dippouch.store")}
    assert {k: v for k, v in reaching.items() if v} == {}


def test_the_rooms_are_typed_on_the_database_not_the_facade() -> None:
    """Each room takes the ``Database``; the facade (``store/repository.py``'s ``GameStore``) is made of the
    rooms, so a room that named it, even only for the type checker, would depend on what depends on it."""
    rooms = [m for m in STORE_MODULES if m != "dippouch.store.repository"]
    facade = {"dippouch.store.repository", "dippouch.store.GameStore", "dippouch.store.repository.GameStore"}
    assert "dippouch.store.repository.GameStore" in _imported("dippouch.store"), "the reader sees the facade"
    naming = {m: sorted(_imported(m) & facade) for m in rooms}
    assert {m: found for m, found in naming.items() if found} == {}
