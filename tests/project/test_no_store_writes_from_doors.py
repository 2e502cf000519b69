"""No door writes to the store itself: what people and coordinators do is a use case in ``play/``, which every
door calls (issue 54), so a door cannot drift from the others (the command line's replace once left the old
player's link working where the desk's revoked it).

How a write is told from a read, from the store's own code (no list kept by hand):

1. A store function or method is a *writer* when its body opens a write transaction: a ``with`` whose items
   call ``.begin()`` (``with db.session() as s, s.begin():``, the store's one way to write). A function that
   calls a writer by name is a writer too (to a fixed point), and so is a name a store class binds to a
   writer (``pause = deadlines.pause``; ``GameStore`` binds none: it forwards nothing).
2. A door's call is a store write when it calls a writer's name on something that is the store: an expression
   ending in ``store`` or ``access`` (``web.store.pause``, ``store.assign``, ``web.access.create_key``), the
   command line's ``_store(db)``, a module of ``dippouch.store`` imported under any name, or a writer
   imported by name from ``dippouch.store``.

3. The same holds for the store's modules' own functions (rule 1 read per module: a function that opens a
   write transaction, or calls one of its own module's that does), called by a door through ``from
   dippouch.store.X import f`` or a module of ``dippouch.store`` imported under a name
   (:func:`door_module_writes`).

The doors are ``web/``, ``cli/``, ``mail/`` and ``interop/``. The store objects' writes (2) are at 0 (21 at the
issue's filing: the coordinator's clock, seats, games, keys and held mail, now use cases in ``play/``) and stay
there: :data:`CEILING`. The module functions' (3) are at 0 too and stay there (:data:`MODULE_CEILING`): what a
person does to their account, press, roster, openings and sandbox are use cases in ``play/``, and so is what the
mail channel records of its own letters (a message claimed and what became of it, a mailbox read up to a message,
a token taught, a queued message leased and sent: ``play/mail_intake.py``, ``play/mail_out.py``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from sourcesupport import tree as parsed

SRC = Path(__file__).resolve().parents[2] / "src" / "dippouch"
DOORS = ("web", "cli", "mail", "interop")

CEILING = 0
"""Store writes left in the doors. Lower it as calls move into use cases; never raise it."""

MODULE_CEILING = 0
"""Door calls of the store modules' writing functions left (rule 3): none (20 before the mail channel's records
became use cases)."""

DOORS_OWN = frozenset({"start_session", "end_session", "find_key", "add_to_session", "marker", "keep_page"})
"""Writes that are the web door's own plumbing, not something done to a game: a sign-in's session started and
ended, a key's last use noted as it is looked up, the pages' cache (its marker, and a page kept once made). No other door has them to share."""


def _store_modules() -> Iterator[Path]:
    for path in sorted((SRC / "store").rglob("*.py")):
        if "migrations" not in path.parts:
            yield path


def _opens_a_write(fn: ast.AST) -> bool:
    for node in ast.walk(fn):
        if isinstance(node, ast.With):
            for item in node.items:
                call = item.context_expr
                if (
                    isinstance(call, ast.Call)
                    and isinstance(call.func, ast.Attribute)
                    and call.func.attr in ("begin", "begin_nested")
                ):
                    return True
    return False


def _called_names(fn: ast.AST) -> set[str]:
    out = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name):
                out.add(node.func.id)
            elif isinstance(node.func, ast.Attribute):
                out.add(node.func.attr)
    return out


def store_writers() -> set[str]:
    """The names of the store's writing methods (rule 1 of the module's docstring): what a door reaches through
    the store object it holds (``GameStore``, ``AccessStore`` ...)."""
    functions: dict[str, list[ast.AST]] = {}
    members: set[str] = set()
    aliases: list[tuple[str, str]] = []
    for path in _store_modules():
        tree = parsed(path)
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                functions.setdefault(node.name, []).append(node)
            elif isinstance(node, ast.ClassDef):
                for stmt in node.body:
                    if isinstance(stmt, ast.FunctionDef):
                        members.add(stmt.name)
                    elif (
                        isinstance(stmt, ast.Assign)
                        and len(stmt.targets) == 1
                        and isinstance(stmt.targets[0], ast.Name)
                        and isinstance(stmt.value, ast.Attribute)
                    ):
                        aliases.append((stmt.targets[0].id, stmt.value.attr))
                        members.add(stmt.targets[0].id)
    writers = {name for name, defs in functions.items() if any(_opens_a_write(d) for d in defs)}
    while True:
        more = {
            name
            for name, defs in functions.items()
            if name not in writers and not name.startswith("_") and any(_called_names(d) & writers for d in defs)
        }
        more |= {alias for alias, target in aliases if target in writers and alias not in writers}
        if not more:
            return {name for name in writers if name in members and not name.startswith("_")}
        writers |= more


def _is_store(node: ast.expr, store_modules: set[str]) -> bool:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "_store":
        return True
    if isinstance(node, ast.Name) and node.id in store_modules:
        return True
    text = ast.unparse(node)
    return text.endswith(("store", "access"))


def door_writes() -> list[str]:
    """Each store write a door makes, as ``path:line name`` (rule 2)."""
    writers = store_writers()
    found = []
    for door in DOORS:
        for path in sorted((SRC / door).rglob("*.py")):
            tree = parsed(path)
            modules: set[str] = set()
            imported: set[str] = set()
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.module:
                    if node.module == "dippouch.store":
                        modules |= {a.asname or a.name for a in node.names}
                    elif node.module.startswith("dippouch.store."):
                        imported |= {a.asname or a.name for a in node.names if a.name in writers}
                elif isinstance(node, ast.Import):
                    modules |= {a.asname or a.name for a in node.names if a.name.startswith("dippouch.store")}
            for node in ast.walk(tree):
                if not isinstance(node, ast.Call):
                    continue
                f = node.func
                hit = (isinstance(f, ast.Attribute) and f.attr in writers and _is_store(f.value, modules)) or (
                    isinstance(f, ast.Name) and f.id in imported
                )
                name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
                if hit and name not in DOORS_OWN:
                    found.append(f"{path.relative_to(SRC)}:{node.lineno} {name}")
    return found


def _module_name(path: Path) -> str:
    return "dippouch." + ".".join(path.relative_to(SRC.parent).with_suffix("").parts[1:])


def store_module_writers() -> set[tuple[str, str]]:
    """(module, function) of the store modules' writing functions (rule 3)."""
    defs: dict[tuple[str, str], ast.AST] = {}
    for path in _store_modules():
        for node in parsed(path).body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                defs[(_module_name(path), node.name)] = node
    writers = {key for key, node in defs.items() if _opens_a_write(node)}
    while True:
        more = {
            (mod, name)
            for (mod, name), node in defs.items()
            if (mod, name) not in writers and any((mod, c) in writers for c in _called_names(node))
        }
        if not more:
            return writers
        writers |= more


def door_module_writes() -> list[str]:
    """Each call a door makes of a store module's writing function, as ``path:line module.function``."""
    writers = store_module_writers()
    found = []
    for door in DOORS:
        for path in sorted((SRC / door).rglob("*.py")):
            tree = parsed(path)
            modules: dict[str, str] = {}
            names: dict[str, tuple[str, str]] = {}
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.module == "dippouch.store":
                    modules |= {a.asname or a.name: f"dippouch.store.{a.name}" for a in node.names}
                elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("dippouch.store."):
                    names |= {a.asname or a.name: (node.module, a.name) for a in node.names}
                elif isinstance(node, ast.Import):
                    modules |= {
                        a.asname: a.name for a in node.names if a.asname and a.name.startswith("dippouch.store.")
                    }
            for node in ast.walk(tree):
                if not isinstance(node, ast.Call):
                    continue
                f = node.func
                key = None
                if isinstance(f, ast.Name) and f.id in names:
                    key = names[f.id]
                elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in modules:
                    key = (modules[f.value.id], f.attr)
                if key in writers and key[1] not in DOORS_OWN:
                    found.append(f"{path.relative_to(SRC)}:{node.lineno} {key[0]}.{key[1]}")
    return found


def test_the_rule_finds_the_store_writes_it_is_meant_to() -> None:
    """The rule can fail: the store's known writers are writers, its known readers are not."""
    writers = store_writers()
    assert {"create_key", "revoke_key", "set_visibility"} <= writers  # the store objects' methods (AccessStore)
    assert not {"keys", "status", "players"} & writers
    modules = store_module_writers()  # the store modules' functions, which GameStore no longer forwards
    for module, name in [("deadlines", "pause"), ("deadlines", "resume"), ("deadlines", "extend")]:
        assert (f"dippouch.store.{module}", name) in modules
    for module, name in [("history", "rollback"), ("games", "assign"), ("games", "create_game")]:
        assert (f"dippouch.store.{module}", name) in modules
    for module, name in [("transfer", "import_game"), ("submissions", "submit"), ("games", "set_email")]:
        assert (f"dippouch.store.{module}", name) in modules
    readers = [("status", "status"), ("games", "players"), ("history", "history"), ("history", "phase_record")]
    assert not {(f"dippouch.store.{module}", name) for module, name in readers} & modules
    tree = ast.parse("def f(web, store):\n    web.store.pause('g')\n    store.status('g')\n")
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    assert [_is_store(c.func.value, set()) for c in calls if isinstance(c.func, ast.Attribute)] == [True, True]


def test_no_door_writes_to_the_store() -> None:
    found = door_writes()
    assert len(found) <= CEILING, "store writes made by a door, not a use case in play/:\n" + "\n".join(found)


def test_the_doors_write_no_more_through_the_stores_modules() -> None:
    writers = store_module_writers()
    assert {("dippouch.store.mail.inbox", "dismiss_held"), ("dippouch.store.openings", "open_game")} <= writers
    assert ("dippouch.store.openings", "opening") not in writers
    found = door_module_writes()
    assert len(found) <= MODULE_CEILING, (
        f"{len(found)} calls of the store modules' writing functions from doors (at most {MODULE_CEILING}): move "
        "the new one into a use case in play/\n" + "\n".join(found)
    )
