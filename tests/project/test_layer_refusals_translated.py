"""Every refusal a page may show that the layers raise as a plain text (no values) is translated whole.

A refusal is a message value (``msg(template, **values)``): the catalogue check (test_i18n_catalogues.py) finds
its id and fails when German or French lacks it, and test_no_formatted_messages.py fails on one built from
formatted text. What neither sees is a refusal raised with a plain text, written in the call or kept in a
module's constant (``raise GameError("the game is over")``, ``raise WebNotFound(NO_SANDBOX)``): a door says it
by its id, so it is German only if a catalogue has that whole text. This check reads the layers' source (no
import), finds each such text given to an error class of ``src/`` and fails on one that German or French does
not translate: mark it (``msg("...")``, or ``N_("...")`` for a constant) and translate it.
"""

from __future__ import annotations

import ast
import sys
from functools import cache
from pathlib import Path

import pytest

from dippouch.i18n import translations
from sourcesupport import tree as parsed

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_no_formatted_messages import OUTSIDE, _base_name, _message, error_classes

SRC = Path(__file__).resolve().parents[2] / "src"

LAYERS = (
    "dippouch/store",
    "dippouch/play",
    "dippouch/press",
    "dippouch/people",
    "dippouch/game",
    "dippouch/web",
)
"""Where a refusal a page shows is raised (the web's own too)."""

NOT_SHOWN = frozenset(
    {
        # The server's database address, refused when the server starts: an operator's message.
        ("dippouch/store/db.py", None),
        # Programs' files and the DAIDE protocol: refused to the command line and DAIDE clients, never a page.
        ("dippouch/play/mila.py", None),
        ("dippouch/play/daide.py", None),
        # The JSON API's own refusals of a request's shape: for the program that sent it, in English.
        ("dippouch/web/routes/coordinate.py", "role must be player or coordinator"),
        ("dippouch/web/routes/variants.py", "the request body is not UTF-8 text"),
        (
            "dippouch/web/routes/games.py",
            'an unsealed export opens the seal, which the players are shown: POST to this address with {"reason": '
            '"..."}; a GET changes nothing',
        ),
    }
)
"""Files (None: the whole file) or texts of a file whose refusals no page shows."""


def _shown(rel: str, text: str) -> bool:
    return (rel, None) not in NOT_SHOWN and (rel, text) not in NOT_SHOWN and "migrations" not in rel


@cache
def plain_refusals(src: Path = SRC, layers: tuple[str, ...] = LAYERS) -> list[tuple[str, int, str]]:
    """(file, line, text) of each error raised in ``layers`` with a plain text: a string in the call, or a
    module-level constant holding one (marked with ``N_`` or not)."""
    trees = {p: parsed(p) for p in sorted(src.rglob("*.py"))}
    # Every module's classes, for the error classes; only the layers' calls are read.
    errors = error_classes(trees) | OUTSIDE
    found: list[tuple[str, int, str]] = []
    for path, tree in trees.items():
        rel = path.relative_to(src).as_posix()
        if not any(rel == layer or rel.startswith(layer + "/") for layer in layers):
            continue
        constants: dict[str, str] = {}
        for top in tree.body:
            if (
                isinstance(top, ast.Assign)
                and len(top.targets) == 1
                and isinstance(top.targets[0], ast.Name)
                and (text := _text(top.value)) is not None
            ):
                constants[top.targets[0].id] = text
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and _base_name(node.func) in errors):
                continue
            message = _message(node)
            text = constants.get(message.id) if isinstance(message, ast.Name) else _text(message)
            if text and text.strip() and _shown(rel, text):
                found.append((rel, node.lineno, text))
    return found


def _text(node: ast.expr | None) -> str | None:
    """The plain text ``node`` writes: a string, or ``N_("...")`` / ``msg("...")`` of one with no values."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if (
        isinstance(node, ast.Call)
        and _base_name(node.func) in ("N_", "msg")
        and len(node.args) == 1
        and not node.keywords
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return node.args[0].value
    return None


@pytest.mark.parametrize("lang", ["de", "fr"])
def test_every_plain_refusal_a_page_shows_is_translated_whole(lang: str) -> None:
    words = translations(lang)
    missing = [f"  {rel}:{line}: {text!r}" for rel, line, text in plain_refusals() if words.gettext(text) == text]
    assert not missing, f"{len(missing)} refusal(s) a page shows in English, not in the {lang} catalogue:\n" + (
        "\n".join(missing)
    )


def test_the_check_finds_a_plain_refusal_in_the_call_and_in_a_constant(tmp_path: Path) -> None:
    layer = tmp_path / "dippouch" / "store"
    layer.mkdir(parents=True)
    (layer / "m.py").write_text(
        "class GameError(Exception): ...\n"
        "GONE = 'the game is gone'\n"
        "MARKED = N_('the game is marked')\n"
        "def f():\n"
        "    raise GameError('the game is over')\n"
        "def g():\n"
        "    raise GameError(GONE)\n"
        "def h():\n"
        "    raise GameError(MARKED)\n"
        "def i(x):\n"
        "    raise GameError(msg('no game %(game)s', game=x))\n",
        encoding="utf-8",
    )
    found = [(line, text) for _, line, text in plain_refusals(tmp_path, ("dippouch/store",))]
    assert found == [(5, "the game is over"), (7, "the game is gone"), (9, "the game is marked")]
