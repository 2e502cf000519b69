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
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"

RECORDED = 0
"""The errors built from formatted text in ``src/`` when this was last counted: lower it as they go."""

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
    trees = {p: ast.parse(p.read_text(encoding="utf-8")) for p in sorted(src.rglob("*.py"))}
    errors = error_classes(trees) | OUTSIDE
    found: Counter[str] = Counter()
    for path, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _base_name(node.func) in errors:
                message = _message(node)
                if message is not None and formatted(message):
                    found[str(path.relative_to(src))] += 1
    return found


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
