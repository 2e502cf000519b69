"""No error built from formatted text (issue 53): a refusal is a message value (``msg("no game %(game)s",
game=name)``), said in its reader's language where it is shown; an error made from an f-string, a ``%``, a
``.format()`` or text joined with ``+`` is English prose a door can only show as it is, or read back.

The check reads every module of ``src/`` (its syntax tree, no import) and counts each call of one of the
project's error classes (a class defined in ``src/`` that derives, at any depth, from an exception) or of
Starlette's and FastAPI's ``HTTPException`` whose message (its first argument, or ``message=``/``detail=``) is
formatted text. The count may only fall: :data:`RECORDED` is the count when it was last lowered (the goal is
0); a count above it fails and names the files.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from sourcesupport import tree as parsed

SRC = Path(__file__).resolve().parents[2] / "src"

RECORDED = 0
"""The errors built from formatted text in ``src/`` when this was last counted: lower it as they go."""

RECORDED_RESULTS = 0
"""Results built from formatted English in the layers when this was last counted."""

LAYERS = ("core/", "play/", "store/", "people/", "press/", "ranking/", "bots/", "notify/", "mail/", "letters/", "game/")
LAYER_MODULES = frozenset({"report.py", "names.py", "saying.py", "catalog.py"})
"""The rooms under the doors (``src/dippouch/`` relative) whose results :func:`count_results` reads."""

AUTHORS_TOOLS = frozenset({"bots/outside.py"})
"""Modules of the layers whose reports are for an author at the command line, like ``mapcheck``: the outside
bot runner's account of what a bot program sent wrong (``dippouch bots try``)."""

RESULT_WORDS = frozenset(
    {
        "reason",
        "why",
        "note",
        "notes",
        "problem",
        "problems",
        "detail",
        "result",
        "results",
        "refusal",
        "told",
        "dropped",
        "said",
    }
)
"""Names that say a value is something a person is told."""

OUTSIDE = frozenset({"HTTPException", "StarletteHTTPException"})
"""Error classes of the libraries under the web whose message a person reads."""

BUILTIN_BASES = frozenset({"Exception", "BaseException", "ValueError", "KeyError", "LookupError", "RuntimeError"})


def _base_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def error_classes(trees: dict[Path, ast.Module]) -> frozenset[str]:
    """The names of the classes defined in ``trees`` that derive from an exception, at any depth."""
    bases: dict[str, set[str]] = {}
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                bases.setdefault(node.name, set()).update(n for b in node.bases if (n := _base_name(b)) is not None)
    errors: set[str] = set()
    grew = True
    while grew:
        grew = False
        for name, of in bases.items():
            if name not in errors and of & (errors | BUILTIN_BASES | {"Warning"}):
                errors.add(name)
                grew = True
    return frozenset(errors)


def formatted(node: ast.expr) -> bool:
    """Whether ``node`` makes text by formatting: an f-string with values, ``%``, ``.format()``, ``+`` of text."""
    if isinstance(node, ast.JoinedStr):
        return any(isinstance(v, ast.FormattedValue) for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return _texty(node.left)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _texty(node.left) or _texty(node.right) or formatted(node.left) or formatted(node.right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        return _texty(node.func.value)
    return False


def _texty(node: ast.expr) -> bool:
    """Text written in the code: a string, an f-string, or a translation call of one (``_("...")``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return True
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.Call) and node.args and (_base_name(node.func) or "") in ("_", "gettext", "ngettext"):
        return True
    return formatted(node)


def _message(call: ast.Call) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg in ("message", "detail"):
            return kw.value
    return call.args[0] if call.args else None


def count(src: Path = SRC) -> Counter[str]:
    """Per file (relative to ``src``), the calls of an error class with a formatted message."""
    trees = {p: parsed(p) for p in sorted(src.rglob("*.py"))}
    errors = error_classes(trees) | OUTSIDE
    found: Counter[str] = Counter()
    for path, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _base_name(node.func) in errors:
                message = _message(node)
                if message is not None and formatted(message):
                    found[str(path.relative_to(src))] += 1
    return found


def english(node: ast.expr) -> bool:
    """Formatted text not made by a translation call: English written into a value."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return formatted(node) and not _translated(node.left)
    return formatted(node)


def _translated(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and (_base_name(node.func) or "") in ("_", "gettext", "ngettext", "pgettext")


def _named(node: ast.expr) -> str:
    return _base_name(node) or ""


def _results_in(tree: ast.Module) -> Iterator[int]:
    """The lines of ``tree`` where a result is built from English formatted text."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for kw in node.keywords:
                if kw.arg in RESULT_WORDS and english(kw.value):
                    yield node.lineno
            f = node.func
            if (
                isinstance(f, ast.Attribute)
                and f.attr in ("append", "extend", "insert")
                and node.args
                and english(node.args[-1])
                and _named(f.value).lstrip("_") in RESULT_WORDS
            ):
                yield node.lineno
        elif (
            isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign)
            and node.value is not None
            and english(node.value)
        ):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(_named(t).lstrip("_") in RESULT_WORDS for t in targets):
                yield node.lineno


def count_results(src: Path = SRC) -> Counter[str]:
    """Per file (relative to ``src``), the results built from English formatted text in the layers."""
    found: Counter[str] = Counter()
    root = src / "dippouch" if (src / "dippouch").is_dir() else src
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if "migrations/" in rel or rel in AUTHORS_TOOLS or not (rel.startswith(LAYERS) or rel in LAYER_MODULES):
            continue
        n = sum(1 for _ in _results_in(parsed(path)))
        if n:
            found[rel] += n
    return found


def test_no_more_results_are_built_from_formatted_text() -> None:
    found = count_results()
    total = sum(found.values())
    print(f"results built from formatted English: {total}")
    assert total <= RECORDED_RESULTS, (
        f"{total} results built from formatted English in the layers, more than the {RECORDED_RESULTS} recorded: "
        "make them message values (msg(template, **values)), said where shown:\n"
        + "\n".join(f"  {n:4d}  {w}" for w, n in found.most_common())
    )


def test_the_results_check_finds_each_way_and_spares_the_doors(tmp_path: Path) -> None:
    (tmp_path / "store").mkdir()
    (tmp_path / "web").mkdir()
    (tmp_path / "store" / "m.py").write_text(
        "def f(x, rows, notes):\n"
        "    rows.add(Row(reason=f'merged into {x}'))\n"
        "    notes.append('read ' + x)\n"
        "    why = 'no game %s' % x\n"
        "    problems.append(f'{x}: bad')\n"
        "    notes.append(msg('read %(x)s', x=x))\n"
        "    told = _('read %(x)s') % {'x': x}\n"
        "    label = f'{x}'\n"
        "    said = f'{x} votes'\n"
        "    said += f' {x} is told.'\n",
        encoding="utf-8",
    )
    (tmp_path / "web" / "page.py").write_text("def g(x, notes):\n    notes.append(f'{x}')\n", encoding="utf-8")
    assert count_results(tmp_path) == Counter({"store/m.py": 6})


def test_no_more_errors_are_built_from_formatted_text() -> None:
    found = count()
    total = sum(found.values())
    print(f"errors built from formatted text: {total}")
    for where, n in found.most_common():
        print(f"  {n:4d}  {where}")
    assert total <= RECORDED, (
        f"{total} errors built from formatted text, more than the {RECORDED} recorded: make the new ones message "
        "values (msg(template, **values)):\n" + "\n".join(f"  {n:4d}  {w}" for w, n in found.most_common())
    )


def test_the_check_finds_each_way_of_formatting(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(
        "class GameError(Exception): ...\n"
        "class Refused(GameError): ...\n"
        "def f(x):\n"
        "    raise GameError(f'no game {x!r}')\n"
        "def g(x):\n"
        "    raise Refused('no game %s' % x)\n"
        "def h(x):\n"
        "    raise GameError('no game {}'.format(x))\n"
        "def i(x):\n"
        "    raise GameError('no game ' + x)\n"
        "def j(x):\n"
        "    raise GameError(_('no game %(x)s') % {'x': x})\n"
        "def ok(x):\n"
        "    raise GameError(msg('no game %(game)s', game=x))\n"
        "def builtin(x):\n"
        "    raise ValueError(f'{x}')\n",
        encoding="utf-8",
    )
    assert count(tmp_path) == Counter({"m.py": 5})
