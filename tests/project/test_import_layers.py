"""The package's layers only point down: no import circle among any of its modules, not even for the type
checker; the core imports no shell module; only the store speaks SQL; and each "never" of docs/architecture.md's
layers holds (the store imports nothing above it, notify no way in, the renderer no store).

Imports are read from the source (every ``import`` statement, at module level or inside a function), so a
circle hidden behind a function-level import counts as one. Two graphs are read: the imports that run
(``graph()``: those under ``if TYPE_CHECKING:`` left out) and every import (``typed_graph()``: those too, since a
module typed on another depends on it as much as one calling it). Each core module is also imported on its
own in a fresh interpreter: an import order that only works when another module happens to be imported
first fails there.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from functools import cache
from pathlib import Path

import pytest

import dippouch
from sourcesupport import statements, tree

ROOT = Path(dippouch.__file__).parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(ROOT.rglob("*.py"))}
CORE_MODULES = sorted(m for m in MODULES if m == "dippouch.core" or m.startswith("dippouch.core."))


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


@cache
def _imports(name: str, path: Path, *, outside: bool = False, typing: bool = False) -> frozenset[str]:
    """The dippouch modules ``name`` imports (a submodule import also imports its package); with ``outside``,
    the top-level names of the other packages it imports instead (``sqlalchemy``, ``alembic``...); with
    ``typing``, the imports under ``if TYPE_CHECKING:`` too. An import is a statement: only statements are
    read, never the expressions in them."""
    found: set[str] = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]

    def typed(node: ast.AST) -> list[ast.stmt] | None:
        return node.orelse if isinstance(node, ast.If) and _type_checking(node) and not typing else None

    for node in statements(tree(path), skip=typed):
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
    if outside:
        return frozenset(m.split(".")[0] for m in found if m and not m.startswith("dippouch"))
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
    return frozenset(out)


@cache
def graph() -> dict[str, frozenset[str]]:
    """The imports that run: module -> the dippouch modules it imports (read when a test first asks, once a
    process: every test process collects this file, few run it)."""
    return {name: _imports(name, path) for name, path in MODULES.items()}


@cache
def typed_graph() -> dict[str, frozenset[str]]:
    """Every import, those under ``if TYPE_CHECKING:`` too."""
    return {name: _imports(name, path, typing=True) for name, path in MODULES.items()}


def _cycles(graph: Mapping[str, AbstractSet[str]]) -> list[list[str]]:
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
    assert "dippouch.core.order_checks" in graph()["dippouch.core.movement"]
    assert "dippouch.core.rules.base" in graph()["dippouch.core.rules.w3k.hooks"]
    assert "dippouch.core.rules.w3k" in graph()["dippouch.core.rules"]
    assert "dippouch.web.routes.games" in graph()["dippouch.web.app"]  # imported inside create_app
    assert "dippouch.store.repository" in graph()["dippouch.web.http.service"]
    assert "sqlalchemy" in _imports("dippouch.store.db", MODULES["dippouch.store.db"], outside=True)
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    # Under ``if TYPE_CHECKING:`` in core/lookup.py: read for the typed graph only.
    assert "dippouch.core.position" in typed_graph()["dippouch.core.lookup"]
    assert "dippouch.core.position" not in graph()["dippouch.core.lookup"]
    assert all(graph()[name] <= typed_graph()[name] for name in MODULES)


def test_no_import_circle_anywhere_in_the_package() -> None:
    assert _cycles(graph()) == [], "modules that import each other at run time"


def test_no_import_circle_even_for_the_type_checker() -> None:
    """A circle closed by an import under ``if TYPE_CHECKING:`` runs, but the modules still depend on each
    other: neither can be understood, moved or typed without the other. What both need belongs to a third
    module (core/fast/decisions.py), or the lower one types on what is below it (the store's rooms take the
    ``Database``, not the ``GameStore`` facade they are part of)."""
    assert _cycles(typed_graph()) == [], "modules that import each other once TYPE_CHECKING imports are counted"


def _room(name: str) -> str:
    """``dippouch.store.bots`` -> ``store``; a top-level module is its own room (``report``)."""
    return name.split(".")[1] if name.count(".") else ""


def test_no_circle_between_rooms() -> None:
    """The rooms (the packages under dippouch/ and its top-level modules) stack as floors: counting every
    import, no two rooms import each other, even through others (docs/architecture.md draws the floors)."""
    rooms: dict[str, set[str]] = {}
    for name, deps in typed_graph().items():
        rooms.setdefault(_room(name), set()).update(_room(m) for m in deps if _room(m) not in ("", _room(name)))
    assert _cycles(rooms) == [], "rooms that import each other, module by module"


def _reaching(rooms: set[str], above: set[str]) -> dict[str, list[str]]:
    """Module of ``rooms`` -> the modules of ``above`` it imports, TYPE_CHECKING imports counted."""
    found = {
        name: sorted(m for m in typed_graph()[name] if _room(m) in above) for name in MODULES if _room(name) in rooms
    }
    return {k: v for k, v in found.items() if v}


def test_the_store_imports_nothing_above_it() -> None:
    """The store keeps rows: what a bot level is, how a MILA game converts, how a report or a map reads, how
    mail and notifications go out, and the ways in are the rooms above it, which call the store, never the
    reverse (practice games' rules are in bots/practice.py, MILA games in play/mila.py, a stored phase's
    report and map in play/reports.py)."""
    above = {"bots", "interop", "report", "render", "mail", "notify", "web", "cli", "worker", "play"}
    assert _reaching({"store"}, above) == {}


STORE_DOMAINS = frozenset(
    {"learning", "mail", "moderation", "notify", "people", "press", "ratings", "sandboxes", "tournaments"}
)
"""The store's domain sub-packages, around its games core (docs/architecture.md)."""
CORE_HOOKS: dict[tuple[str, str], str] = {}
"""(core module, domain module) -> why the core still names that domain. Empty: each domain registers its part
with the core (store/domains.py) from its ``hooks`` module, which the store package imports
(tests/store/test_domains.py); the list only shrinks, so it stays empty."""


def _store_core() -> set[str]:
    """The games core: the modules at store/'s top that the facade (store/repository.py) is made of, through
    every import they make."""
    top = {
        m for m in MODULES if m.count(".") == 2 and m.startswith("dippouch.store.") and MODULES[m].name != "__init__.py"
    }
    core: set[str] = set()
    todo = ["dippouch.store.repository"]
    while todo:
        name = todo.pop()
        if name not in core:
            core.add(name)
            todo.extend(m for m in graph()[name] if m in top)
    return core


def test_the_store_core_never_names_a_domain() -> None:
    """The domains register with the games core (store/domains.py) and read its rows; the core never names a
    domain, not even inside a function."""
    packages = {p.parent.name for p in (ROOT / "store").glob("*/__init__.py")}
    assert packages - {"migrations"} == STORE_DOMAINS, "a sub-package of the store is a domain: list it"
    core = _store_core()
    assert {"dippouch.store.rows", "dippouch.store.processing", "dippouch.store.games"} <= core
    assert not any(m.split(".")[2] in STORE_DOMAINS for m in core), "a domain module counted as the core"
    naming = {
        (name, m)
        for name in core
        for m in typed_graph()[name]
        if m.startswith("dippouch.store.") and m.split(".")[2] in STORE_DOMAINS
    }
    assert naming - set(CORE_HOOKS) == set(), "the core names a domain: let the domain take the core's values"
    assert set(CORE_HOOKS) - naming == set(), "these hooks are gone: take them off the list"


def test_notify_imports_no_way_in() -> None:
    """Notifications are told to people by the ways in (mail, web, the command line, the worker), which pass
    what notify needs (the mail's sender address: notify.transports.MailSender)."""
    assert _reaching({"notify"}, {"mail", "web", "cli", "worker", "play"}) == {}


def test_the_renderer_does_no_store_access() -> None:
    """The renderer draws what it is handed (a variant, a position, a phase record); the store is read by its
    callers (play/reports.py for the results mail's map)."""
    assert _reaching({"render"}, {"store", "play", "mail", "notify", "web", "cli", "worker"}) == {}


def test_core_never_imports_the_shell() -> None:
    bad = {name: sorted(m for m in graph()[name] if not m.startswith("dippouch.core")) for name in CORE_MODULES}
    assert {k: v for k, v in bad.items() if v} == {}


def test_the_core_does_no_io() -> None:
    """No module of the core imports what reads files, the environment, the clock or the network; finding,
    reading and caching variant files is the catalog's work (dippouch.catalog, dippouch.compiled)."""
    io = {"os", "pathlib", "pickle", "tempfile", "shutil", "socket", "subprocess", "time", "datetime", "tomllib"}
    io |= {"io", "glob", "urllib", "http", "sqlite3", "logging", "threading", "sys"}
    found = {name: sorted(_imports(name, MODULES[name], outside=True) & io) for name in CORE_MODULES}
    assert {k: v for k, v in found.items() if v} == {}


def test_only_the_store_imports_sqlalchemy_or_alembic() -> None:
    """The store is the one home of SQL: web/, mail/, worker/ and cli/ use its public functions."""
    speaks_sql = {
        name
        for name, path in MODULES.items()
        if _imports(name, path, outside=True) & {"sqlalchemy", "alembic"}
        and not (name == "dippouch.store" or name.startswith("dippouch.store."))
    }
    assert speaks_sql == set(), "only dippouch.store may speak SQL"


def test_rule_modules_are_loaded_one_way() -> None:
    """Only core.lookup.load_rule_modules loads the rule package; no other module imports it by name."""
    importers = sorted(name for name, deps in graph().items() if "dippouch.core.rules" in deps)
    assert importers == []
    by_name = sorted(
        name
        for name, path in MODULES.items()
        if "import_module(" in path.read_text(encoding="utf-8") and name != "dippouch.core.lookup"
    )
    assert by_name == []


def test_the_renderer_imports_no_rule_module() -> None:
    """The renderer draws a variant's orders by the shapes their kinds registered (``core.lookup``), never
    by naming a variant's order classes: no module under render/ imports a rule module, even inside a
    function, nor names one in its text."""
    rules = {name for name in MODULES if name.startswith("dippouch.core.rules")}
    render = sorted(name for name in MODULES if name.startswith("dippouch.render"))
    assert render and rules
    importers = {name: sorted(graph()[name] & rules) for name in render if graph()[name] & rules}
    assert importers == {}
    naming = sorted(name for name in render if "core.rules" in MODULES[name].read_text(encoding="utf-8"))
    assert naming == []


@pytest.mark.parametrize("module", CORE_MODULES)
def test_each_core_module_imports_on_its_own(module: str) -> None:
    done = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]


def test_the_rules_about_people_and_press_are_pure() -> None:
    """dippouch.people and dippouch.press decide (an address in force, an absence's effect, a reliability, an
    assignment from wishes, whether a message may be sent) from what they are handed: they import nothing of
    the shell but the core's errors, and nothing that does I/O, so the web, mail and bots all ask one truth."""
    pure = [n for n in MODULES if n.split(".")[:2] in (["dippouch", "people"], ["dippouch", "press"])]
    assert len(pure) >= 4
    shell = {
        n: sorted(m for m in graph()[n] if not m.startswith(("dippouch.core", "dippouch.people", "dippouch.press")))
        for n in pure
    }
    assert {k: v for k, v in shell.items() if v} == {}
    io = {"os", "pathlib", "socket", "subprocess", "sqlite3", "sqlalchemy", "urllib", "http", "threading"}
    found = {n: sorted(_imports(n, MODULES[n], outside=True) & io) for n in pure}
    assert {k: v for k, v in found.items() if v} == {}


def test_the_letters_are_read_without_the_shell() -> None:
    """dippouch.letters reads a mail (its subject, body, attachments, the proof of its sender) and writes the
    letters sent back (receipts, refusals) from what it is handed: it imports the core, the rules of procedure
    (``game``) and the words (``i18n``, ``names``, ``saying``) only, and nothing that opens a file, a socket or
    the database, so the use cases below the mail door (play/mail_intake.py, play/held_mail.py) read and answer
    a mail themselves."""
    letters = [n for n in MODULES if n == "dippouch.letters" or n.startswith("dippouch.letters.")]
    assert {"dippouch.letters.subject", "dippouch.letters.message", "dippouch.letters.proof"} <= set(letters)
    words = {"dippouch.i18n", "dippouch.names", "dippouch.saying"}
    shell = {
        n: sorted(
            m
            for m in typed_graph()[n]
            if not m.startswith(("dippouch.core", "dippouch.letters", "dippouch.game")) and m not in words
        )
        for n in letters
    }
    assert {k: v for k, v in shell.items() if v} == {}
    io = {"os", "pathlib", "socket", "subprocess", "sqlite3", "sqlalchemy", "urllib", "http", "threading", "smtplib"}
    io |= {"imaplib"}
    found = {n: sorted(_imports(n, MODULES[n], outside=True) & io) for n in letters}
    assert {k: v for k, v in found.items() if v} == {}


def test_the_use_cases_never_reach_up_into_a_door() -> None:
    """play/ is under every door: a use case that acts on a mail reads it with dippouch.letters, never by
    importing the mail door (nor the web, the command line or the worker)."""
    assert _reaching({"play"}, {"mail", "web", "cli", "worker"}) == {}
