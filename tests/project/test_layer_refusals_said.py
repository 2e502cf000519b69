"""Every refusal the layers under the pages raise has a template in the ``rules`` catalogue, German and French.

The store, the play layer, the press rules, the people's rules and the rules of procedure (:mod:`dippouch.game`)
refuse in English, with the error classes of :mod:`dippouch.core.errors` (``DippouchError`` and its
subclasses: ``GameError``, ``PressRulesError``, ``RecordNotFound`` ...). A page shows such a refusal through
:func:`dippouch.said.said`, which writes it in the page's language only when a template of
:data:`dippouch.said.LAYER_MESSAGES` reads it back; a text no template reads stays English on a German page.

This check reads the layers' source with :mod:`ast`, finds every message given to one of those error classes,
and reads it back with the templates of the German and the French ``rules`` catalogue, as ``said`` does. An
f-string is read as its shape: each ``{value}`` is filled with ``1`` (a name, a number and a nested message all
read it), and a ``{"s" if n != 1 else ""}`` with each of its words. A text that no template reads must be in
:data:`NOT_YET`, named by its file and its shape; a text built elsewhere (a variable, a call) is named there as
``<built: the expression>``. :data:`NOT_YET` only shrinks: the check fails when it names a text a template now
reads, or a text the source no longer has.

Run it as a script to print the texts no template reads, in :data:`NOT_YET`'s form::

    .venv/bin/python tests/project/test_layer_refusals_said.py
"""

from __future__ import annotations

import ast
import importlib
import itertools
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"

LAYERS = ("dippouch/store", "dippouch/play", "dippouch/press", "dippouch/people", "dippouch/game.py")
"""The layers whose refusals reach pages (through the routes' ``layer_words`` and the application's handlers)."""

NOT_LAYERS = frozenset(
    {
        # The server's database address, refused when the server starts: an operator's message, never a page's.
        "dippouch/store/db.py",
    }
)

FILL = "1"
"""What an f-string's value is read as: a name, a number and a nested message's template all read it."""

LANGS = ("de", "fr")


def _files() -> list[Path]:
    out: list[Path] = []
    for layer in LAYERS:
        p = SRC / layer
        out.extend([p] if p.is_file() else sorted(p.rglob("*.py")))
    return [p for p in out if p.relative_to(SRC).as_posix() not in NOT_LAYERS and "migrations" not in p.parts]


def _error_class(module: object, func: ast.expr) -> bool:
    """Whether ``func`` (a name or ``a.b.C`` in ``module``) is one of the project's error classes."""
    from dippouch.core.errors import DippouchError

    parts: list[str] = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name):
        return False
    obj = getattr(module, func.id, None)
    for name in reversed(parts):
        obj = getattr(obj, name, None)
    return isinstance(obj, type) and issubclass(obj, DippouchError)


def _shapes(node: ast.expr) -> list[str] | None:
    """The texts ``node`` makes, with each value filled (:data:`FILL`); None when it is not written in place."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        pieces: list[list[str]] = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                pieces.append([str(v.value)])
            elif isinstance(v, ast.FormattedValue):
                e = v.value
                if (
                    isinstance(e, ast.IfExp)
                    and v.conversion == -1
                    and v.format_spec is None
                    and (a := _shapes(e.body)) is not None
                    and (b := _shapes(e.orelse)) is not None
                ):
                    pieces.append(a + b)
                elif v.conversion == ord("r"):
                    pieces.append([f"'{FILL}'"])
                else:
                    pieces.append([FILL])
        return ["".join(p) for p in itertools.islice(itertools.product(*pieces), 64)]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _shapes(node.left), _shapes(node.right)
        if left is None or right is None:
            return None
        return [a + b for a in left for b in right]
    if isinstance(node, ast.IfExp):
        a, b = _shapes(node.body), _shapes(node.orelse)
        return None if a is None or b is None else a + b
    return None


def _name(node: ast.expr) -> str:
    """A text's name in :data:`NOT_YET`: its shape with each value as ``{}``, or ``<built: ...>``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(str(v.value) if isinstance(v, ast.Constant) else "{}" for v in node.values)
    return f"<built: {ast.unparse(node)}>"


def refusals() -> Iterator[tuple[str, int, str, list[str] | None]]:
    """(file, line, name, shapes) of every message given to an error class in :data:`LAYERS`."""
    sys.path.insert(0, str(SRC))
    for path in _files():
        rel = path.relative_to(SRC).as_posix()
        module = importlib.import_module(rel.removesuffix(".py").replace("/", "."))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and node.args and _error_class(module, node.func):
                arg = node.args[0]
                yield rel, node.lineno, _name(arg), _shapes(arg)


def _read(shape: str, lang: str) -> bool:
    """Whether a template of ``lang`` reads ``shape`` as a page shows it (a command-line hint in the web's words,
    :func:`dippouch.web.inputs.web_words`, as ``layer_words`` and the application's handlers pass it to ``said``)."""
    from dippouch.said import _templates
    from dippouch.web.inputs import web_words

    return any(t.pattern.fullmatch(web_words(shape)) for t in _templates(lang)[0])


def unread() -> dict[tuple[str, str], int]:
    """(file, name) -> line of each refusal some shape of which a German or French template does not read."""
    out: dict[tuple[str, str], int] = {}
    for rel, line, name, shapes in refusals():
        if shapes is None or not all(_read(s, lang) for s in shapes for lang in LANGS):
            out.setdefault((rel, name), line)
    return out


# The refusals no template reads yet, by file: each one here is English on every page. Only shrinks: give a
# text a template in dippouch.said.LAYER_MESSAGES (German and French), then take it off this list.
NOT_YET: frozenset[tuple[str, str]] = frozenset(
    {
        # dippouch/game.py: the rules of procedure: settings, durations, time zones, order text limits, positions
        ("dippouch/game.py", "a position is a JSON object with 'phase', 'units', 'supply_centers' and 'home_centers'"),
        (
            "dippouch/game.py",
            "unknown time zone {}{} ({} characters); use an IANA name such as UTC, Europe/London or America/Mexico_City",
        ),
        (
            "dippouch/game.py",
            "unknown time zone {}{} Use an IANA name such as UTC, Europe/London or America/Mexico_City",
        ),
        # dippouch/play/practice.py: practice games
        (
            "dippouch/play/practice.py",
            "<built: f'no pace {pace!r}; choose one of ' + ', '.join((f'{k} ({v[0]})' for k, v in PACES.items()))>",
        ),
        # dippouch/play/records.py: the records page: a game's scores
        ("dippouch/play/records.py", "<built: str(e)>"),
        # dippouch/play/sandbox.py: the sandbox
        ("dippouch/play/sandbox.py", "<built: str(e).removeprefix(f'{e.where}: ') if e.where else str(e)>"),
        ("dippouch/play/sandbox.py", "<built: str(e)>"),
        ("dippouch/play/sandbox.py", "line {} ({}): {}{}; correct or delete it to adjudicate"),
        # dippouch/press/rules.py: press settings refused (PressRulesError)
        # Read on pages (the hint "; did you mean 'x'?" is a part of its own there), not by its shape.
        ("dippouch/press/rules.py", "unknown phase kind {} in quiet_phases{}"),
        # dippouch/store/claims.py
        ("dippouch/store/claims.py", "<built: phase_id>"),
        # dippouch/store/games.py: the coordinator's desk: games, extensions, roll-backs
        (
            "dippouch/store/games.py",
            'a position is a JSON object like {"phase": "Spring 1901 Movement", "units": [...]}',
        ),
        # dippouch/store/history.py
        ("dippouch/store/history.py", "<built: str(e)>"),
        # dippouch/store/openings.py: the lobby's store
        # These two are read on pages by "yours is %(score)d%%" and "yours is no record yet", not by their shape
        # ("yours is 1").
        ("dippouch/store/openings.py", "{} asks a reliability of at least {}%; yours is {}"),
        (
            "dippouch/store/openings.py",
            "{} asks a reliability of at least {}%; yours is {} (orders on time in other games raise it; an anonymous game counts once it ends)",
        ),
        # dippouch/store/press.py: press: channels, mutes and blocks
        ("dippouch/store/press.py", "<built: Refusal('channel', f'no channel {in_channel} of {sender} in {g.name}')>"),
        ("dippouch/store/press.py", "<built: str(e.args[0])>"),
        ("dippouch/store/press.py", "<built: why>"),
        # dippouch/store/rows.py
        ("dippouch/store/rows.py", "<built: str(e.args[0])>"),
        ("dippouch/store/rows.py", "game {} is over{} (roll back to reopen it)"),
        (
            "dippouch/store/rows.py",
            "the copy of variant {} stored with game {} no longer loads: {}; `dippouch upgrade-variant {}` switches the game to the variant file",
        ),
        # These two are read on pages by the refused submission's templates ("... The open phase is %(open)s, ..."):
        # their last sentence is built from pieces, so their shape ("... recorded. 11.") is not.
        ("dippouch/store/rows.py", "{} is not open in game {}; these orders were not recorded. {}{}."),
        ("dippouch/store/rows.py", "{} was processed{}, before these orders arrived; they were not recorded. {}{}."),
        # dippouch/store/sealing.py
        (
            "dippouch/store/sealing.py",
            "<built: f\"the open phase's orders are sealed until its deadline: an {what} opens them, and the players are told who did it, when and why; give the reason (e.g. --reason 'moving the game to a new server')\" if what.startswith('unsealed') else f\"the open phase's orders are sealed until its deadline: a {what} opens them, and the players are told who did it, when and why; give the reason\">",
        ),
        # dippouch/store/tournaments.py: tournaments
        ("dippouch/store/tournaments.py", "no tournament {}{}.{}"),
        # dippouch/store/transfer.py: the coordinator's desk: seating, replacements, hand-overs
        ("dippouch/store/transfer.py", "<built: f'game file is incomplete or damaged: {type(e).__name__} {e}'[:300]>"),
        (
            "dippouch/store/transfer.py",
            "<built: f'game file: version {version!r} is not a game file version (this dippouch writes 1)'[:200]>",
        ),
    }
)


def test_every_refusal_has_a_template() -> None:
    missing = unread()
    new = sorted(set(missing) - NOT_YET)
    assert not new, f"{len(new)} refusal(s) no German or French template of dippouch.said reads:\n" + "\n".join(
        f"  {rel}:{missing[rel, name]}: {name}" for rel, name in new
    )


def test_not_yet_only_shrinks() -> None:
    missing = unread()
    done = sorted(NOT_YET - set(missing))
    assert not done, "NOT_YET names texts a template reads now, or the source no longer has; take them off:\n" + (
        "\n".join(f"  {rel}: {name}" for rel, name in done)
    )


def test_the_check_reads_an_f_string_by_its_shape() -> None:
    joined = ast.parse('f"no power {p!r} in {g}"', mode="eval").body
    assert _shapes(joined) == ["no power '1' in 1"]
    assert _read("no power '1' in 1", "de")  # "no power %(power)s in %(game)s"
    plural = ast.parse("f\"{n} game{'s' if n != 1 else ''} left\"", mode="eval").body
    assert _shapes(plural) == ["1 games left", "1 game left"]
    assert _name(plural) == "{} game{} left"
    assert not _read("no such text anywhere", "fr")


if __name__ == "__main__":
    for (rel, name), line in sorted(unread().items()):
        print(f"    ({rel!r}, {name!r}),  # line {line}")
    print(len(unread()), file=sys.stderr)
