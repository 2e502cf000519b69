"""Every refusal the layers under the pages raise has a template in the ``rules`` catalogue, German and French;
every refusal the web raises itself (``BadInput``, ``Forbidden``, ``NotFound`` ...) is marked for its own catalogue
or read by a template.

The store, the play layer, the press rules, the people's rules and the rules of procedure (:mod:`dippouch.game`)
refuse in English, with the error classes of :mod:`dippouch.core.errors` (``DippouchError`` and its
subclasses: ``GameError``, ``PressRulesError``, ``RecordNotFound`` ...) and a day typed wrong with
:class:`dippouch.people.dates.DateError` (a ``ValueError``: the absences and addresses pages show it). A page
shows such a refusal through :func:`dippouch.said.said`, which writes it in the page's language only when a
template of :data:`dippouch.said.LAYER_MESSAGES` reads it back; a text no template reads stays English on a
German page.

This check reads the layers' source (and the web's, for the layers' classes it raises) with :mod:`ast`, finds
every message given to one of those error classes, and reads it back with the templates of the German and the
French ``rules`` catalogue, as ``said`` does. An f-string is read as its shape: each ``{value}`` is filled with
``1`` (a name, a number and a nested message all read it), a ``{"s" if n != 1 else ""}`` with each of its
words, and a module's text constant (``{EXAMPLE}``, upper case) with its text. Two classes build their message
themselves: ``PressRefused(Refusal(rule, text))`` is read as ``not sent (rule): text``, and ``PhaseFailed`` is
not read (:data:`OPERATORS_ONLY`). A message value (``msg(...)``, ``pmsg(...)``) is read by its id in the
catalogues, and so are the messages handed to a module's function that builds one from them
(``_closest(msg(...), word, choices)``: what it adds is its own ``msg()``, which the catalogue check finds
translated). A text that no template reads must be in :data:`NOT_YET`, named by its file
and its shape; a text built elsewhere (a variable, a call) is named there as ``<built: the expression>``.
:data:`NOT_YET` only shrinks: the check fails when it names a text a template now reads, or a text the source
no longer has.

A text passed on (``str(e)`` of the engine's error, a refusal made by the press rules) cannot be read from the
source where it is raised. :data:`PASSED_ON` names each such place with the texts it carries, made by running
the code that makes them (a misspelt power, an unknown scoring system ...), and the check reads those as
``said`` does (whole, or part by part between ``; ``). A pass-through must be in :data:`NOT_YET` or in
:data:`PASSED_ON`, like any other text; a :data:`PASSED_ON` entry the source no longer has fails too.

The web's own refusals (``BadInput`` and the other ``WebError`` classes, ``Forbidden``, ``NeedsKey``,
``NotFound``, ``TooMany``, ``Busy``, raised in ``src/dippouch/web``) are the web's words: each must be marked
for the request's catalogue (``words(request).gettext(...)``, ``_(...)``, ``gettext(...) % {...}``, or a
function of the module or a table of the function that returns only such texts), be read by a German and a
French template of the ``rules`` catalogue (the application's handler says every ``WebError``'s message through
``said``, on a page and to the JSON API asked for a language), or pass on the text of a project error it
caught (``except GameError as e: raise BadInput(str(e))``: the layers' check above covers that text, and the
application's handler says it in the page's language). A route of the JSON API (``/api/...``) is
left out: its refusals stay English, for programs (docs/translating.md). A text the source does not show
(``deps.writer``'s ``need``, a day renamed for the API) is named in :data:`WEB_PASSED_ON` with a function that
makes it, and must be read. Bare English is named in :data:`WEB_NOT_YET`, which only shrinks too.

Run it as a script to print the texts no template reads, and the web's bare ones, in the lists' form::

    .venv/bin/python tests/project/test_layer_refusals_said.py
"""

from __future__ import annotations

import ast
import importlib
import itertools
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
sys.path.insert(0, str(SRC))

LAYERS = (
    "dippouch/store",
    "dippouch/play",
    "dippouch/press",
    "dippouch/people",
    "dippouch/game.py",
    "dippouch/interop",
    "dippouch/web",
)
"""Where the layers' error classes are raised with a message a page may show (through the routes'
``layer_words`` and the application's handlers); the web raises a few of them itself (a day typed wrong)."""

NOT_LAYERS = frozenset(
    {
        # The server's database address, refused when the server starts: an operator's message, never a page's.
        "dippouch/store/db.py",
        # Imports and exports of other programs' files and the DAIDE protocol: their refusals reach the command
        # line (import-mila, variants import-diplicity, import-dpjudge) and DAIDE clients, never a page: no
        # module of the web imports them (test_no_page_reaches_the_interop_modules). A door that shows them
        # takes them off this list, and the check reads them.
        "dippouch/interop",
        "dippouch/play/mila.py",
        "dippouch/play/daide.py",
    }
)

OPERATORS_ONLY = ("dippouch.store.claims.PhaseFailed",)
"""Error classes no page shows: processing a phase failed (the scheduler logs it, skips the phase and goes on);
their first argument is not a message either (``PhaseFailed(phase_id, game, phase, error)``)."""

FILL = "1"
"""What an f-string's value is read as: a name, a number and a nested message's template all read it."""

LANGS = ("de", "fr")


def _excluded(rel: str) -> bool:
    return any(rel == n or rel.startswith(n + "/") for n in NOT_LAYERS)


def _files(layers: tuple[str, ...] = LAYERS) -> list[Path]:
    out: list[Path] = []
    for layer in layers:
        p = SRC / layer
        out.extend([p] if p.is_file() else sorted(p.rglob("*.py")))
    return [p for p in out if not _excluded(p.relative_to(SRC).as_posix()) and "migrations" not in p.parts]


def _resolve(module: object, func: ast.expr) -> object:
    """The object ``func`` (a name or ``a.b.C``) names in ``module``, or None."""
    parts: list[str] = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name):
        return None
    obj = getattr(module, func.id, None)
    for name in reversed(parts):
        obj = getattr(obj, name, None)
    return obj


def _classes() -> tuple[type, ...]:
    from dippouch.core.errors import DippouchError
    from dippouch.people.dates import DateError

    return (DippouchError, DateError)


def _error_class(module: object, func: ast.expr) -> type | None:
    """The project's error class ``func`` names in ``module`` (one of :func:`_classes`), or None."""
    obj = _resolve(module, func)
    if not isinstance(obj, type) or not issubclass(obj, _classes()):
        return None
    return obj


def _constant(module: ModuleType | None, node: ast.expr) -> str | None:
    """A module's text constant (``EXAMPLE``: upper case) that ``node`` names, or None."""
    if module is None or not isinstance(node, ast.Name) or not node.id.isupper():
        return None
    value = getattr(module, node.id, None)
    return value if isinstance(value, str) else None


def _shapes(node: ast.expr, module: ModuleType | None = None) -> list[str] | None:
    """The texts ``node`` makes, with each value filled (:data:`FILL`); None when it is not written in place."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if (c := _constant(module, node)) is not None:
        return [c]  # a module's text constant given whole (raise NeedsKey(NEED_PERSON))
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
                    and (a := _shapes(e.body, module)) is not None
                    and (b := _shapes(e.orelse, module)) is not None
                ):
                    pieces.append(a + b)
                elif v.conversion == -1 and v.format_spec is None and (c := _constant(module, e)) is not None:
                    pieces.append([c])
                elif v.conversion == ord("r"):
                    pieces.append([f"'{FILL}'"])
                else:
                    pieces.append([FILL])
        return ["".join(p) for p in itertools.islice(itertools.product(*pieces), 64)]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _shapes(node.left, module), _shapes(node.right, module)
        if left is None or right is None:
            return None
        return [a + b for a in left for b in right]
    if isinstance(node, ast.IfExp):
        a, b = _shapes(node.body, module), _shapes(node.orelse, module)
        return None if a is None or b is None else a + b
    return None


def _name(node: ast.expr) -> str:
    """A text's name in :data:`NOT_YET`: its shape with each value as ``{}``, or ``<built: ...>``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(str(v.value) if isinstance(v, ast.Constant) else "{}" for v in node.values)
    return f"<built: {ast.unparse(node)}>"


MESSAGE_MAKERS = {"msg": 0, "nmsg": 0, "pmsg": 1}
"""dippouch.core.messages' makers of a message value, and which argument is its id: a refusal made of one is said
by its id (dippouch.saying), so the check asks the catalogues for the id itself rather than reading a text."""
MSG = "msg:"
"""The mark of a shape that is a message value's id (:func:`_message_id`)."""


def _message_id(node: ast.expr) -> str | None:
    """The id of the message ``node`` makes (``msg("no unit in %(place)s", ...)``), or None when it makes none; a
    message told apart by its context (``pmsg("press rule", "quiet phase")``) as the catalogues key it
    (``press rule\x04quiet phase``)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in MESSAGE_MAKERS):
        return None
    at = MESSAGE_MAKERS[node.func.id]
    first = node.args[at] if len(node.args) > at else None
    if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
        return None
    if at:
        context = node.args[0]
        if not (isinstance(context, ast.Constant) and isinstance(context.value, str)):
            return None
        return f"{context.value}\x04{first.value}"
    return first.value


def _inner_message_ids(node: ast.expr) -> list[str] | None:
    """The ids of the messages a module's own function is handed to build one
    (``_closest(msg("unknown press kind %(kind)s", ...), kind, KINDS)``), or None when ``node`` is no such call:
    the messages the function adds are its own ``msg()`` calls, which the catalogue check finds translated."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)) or node.func.id in ("str", "repr"):
        return None
    ids = [mid for n in ast.walk(node) if isinstance(n, ast.expr) and (mid := _message_id(n)) is not None]
    return ids or None


def _translated(message_id: str, lang: str) -> bool:
    """Whether ``lang``'s catalogues say the message ``message_id`` (a message value is said by its id): it has a
    translation, which may be written as the English is (``settings: %(reason)s`` in German)."""
    from dippouch.i18n import translations

    # gettext's table of the translated messages (a missing, empty or fuzzy one is not in it); gettext() itself
    # answers the id for a message missing and for one translated as itself alike.
    return message_id in getattr(translations(lang), "_catalog", {})


def _refused_as(module: ModuleType, cls: type, arg: ast.expr) -> tuple[str, list[str] | None]:
    """(name, shapes) of the message ``cls(arg, ...)`` has."""
    from dippouch.store.press import PressRefused

    if (mid := _message_id(arg)) is not None:
        return mid, [MSG + mid]

    if (
        issubclass(cls, PressRefused)
        and isinstance(arg, ast.Call)
        and isinstance(arg.func, ast.Name)
        and arg.func.id == "Refusal"
        and len(arg.args) == 2
    ):
        # PressRefused(Refusal(rule, text)) says f"not sent ({rule}): {text}" (store.press.PressRefused)
        rule, text = arg.args
        ids = [_message_id(rule), _message_id(text)]
        if all(ids):
            # message values: PressRefused's own "not sent (%(rule)s): %(reason)s" holds them
            return f"not sent ({ids[0]}): {ids[1]}", [MSG + str(i) for i in ids]
        rules, texts = _shapes(rule, module), _shapes(text, module)
        shapes = None if rules is None or texts is None else [f"not sent ({r}): {t}" for r in rules for t in texts]
        return f"not sent ({_name(rule)}): {_name(text)}", shapes
    if (inner := _inner_message_ids(arg)) is not None:
        return _name(arg), [MSG + i for i in inner]
    return _name(arg), _shapes(arg, module)


def _module(path: Path) -> tuple[str, ModuleType]:
    rel = path.relative_to(SRC).as_posix()
    return rel, importlib.import_module(rel.removesuffix(".py").replace("/", "."))


def refusals() -> Iterator[tuple[str, int, str, list[str] | None]]:
    """(file, line, name, shapes) of every message given to an error class in :data:`LAYERS`."""
    skipped = tuple(getattr(importlib.import_module(m), c) for m, _, c in (o.rpartition(".") for o in OPERATORS_ONLY))
    for path in _files():
        rel, module = _module(path)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and node.args and (cls := _error_class(module, node.func)) is not None:
                if issubclass(cls, skipped):
                    continue
                name, shapes = _refused_as(module, cls, node.args[0])
                yield rel, node.lineno, name, shapes


def _templates_read(text: str, lang: str) -> bool:
    from dippouch.said import _templates

    return any(t.pattern.fullmatch(text) for t in _templates(lang)[0])


def _read(shape: str, lang: str) -> bool:
    """Whether a template of ``lang`` reads ``shape`` as a page shows it (a hint is a value the web words by its
    key, so the text is read as the layer wrote it)."""
    if shape.startswith(MSG):
        return _translated(shape.removeprefix(MSG), lang)
    return _templates_read(shape, lang)


def _said_reads(text: str, lang: str) -> bool:
    """Whether :func:`dippouch.said.said` reads ``text`` as a page shows it: whole, or each of its parts between
    ``; `` in its turn (as ``said`` reads notes and refusals joined into one line)."""
    return _templates_read(text, lang) or ("; " in text and all(_said_reads(p, lang) for p in text.split("; ")))


def unread() -> dict[tuple[str, str], int]:
    """(file, name) -> line of each refusal some shape of which a German or French template does not read."""
    out: dict[tuple[str, str], int] = {}
    for rel, line, name, shapes in refusals():
        if shapes is None or not all(_read(s, lang) for s in shapes for lang in LANGS):
            out.setdefault((rel, name), line)
    return out


def _refused(make: Callable[[], object]) -> str:
    """The text of the error ``make`` raises."""
    try:
        make()
    except Exception as e:  # the text is what is checked; the class is the source's
        return str(e.args[0]) if isinstance(e, KeyError) and e.args else str(e)
    raise AssertionError("expected a refusal")


def _standard() -> object:
    from dippouch.catalog import load_variant

    return load_variant("standard")


def _power_refused() -> list[str]:
    """Variant.power's refusal (a NotFound, a KeyError), as ``except KeyError as e: ... str(e.args[0])`` passes it
    on: a name close to a power's, and one close to none."""
    from dippouch.store.rows import power_name

    v = _standard()
    return [_refused(lambda: power_name(v, "Englnd")), _refused(lambda: power_name(v, "Xyzzy"))]  # type: ignore[arg-type]


def _system_refused() -> list[str]:
    from dippouch.play.records import find_system

    return [_refused(lambda: find_system("sum of squars"))]


def _place_refused() -> list[str]:
    from dippouch.play.sandbox import _place

    v = _standard()
    return [_refused(lambda: _place(v, "Londn")), _refused(lambda: _place(v, "Qqqqqq"))]  # type: ignore[arg-type]


def _board_refused() -> list[str]:
    """The engine's refusal of a board the sandbox reads back (jsonio): a unit where it cannot stand."""
    from dippouch.play.sandbox import _read as read_board

    v = _standard()
    boards = [
        {"phase": "Spring 1901 Movement", "units": [{"power": "England", "unit": "F mun"}]},
        {"phase": "Spring 1901 Movement", "units": [{"power": "England", "unit": "A nth"}]},
        {"phase": "Spring 1901 Movement", "units": [{"power": "England", "unit": "F spa"}]},
    ]
    return [_refused(lambda b=b: read_board(v, b)) for b in boards]  # type: ignore[arg-type,misc]


def _press_refused() -> list[str]:
    """The press rules' refusals as PressRefused says them; every rule's is read back in
    tests/web/test_i18n_lobby_and_refusals.py (test_every_press_refusal_listed_is_read_back)."""
    from dippouch.press.rules import Attempt, PressRules, refusal
    from dippouch.store.press import PressRefused

    powers = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")
    base = Attempt(sender="England", recipients=("France",), powers=powers, phase_kind="movement", text="Hello")
    out = []
    for rules, attempt in (
        (PressRules(), Attempt(**{**base.__dict__, "text": " "})),
        (PressRules(kind="none"), base),
        (PressRules(quiet_phases=frozenset({"movement"})), base),
        (PressRules(kind="public"), base),
    ):
        why = refusal(rules, attempt)
        assert why is not None
        out.append(str(PressRefused(why)))
    return out


PASSED_ON: dict[tuple[str, str], Callable[[], list[str]]] = {
    # Variant.power's own words (no power 'Englnd' in standard; did you mean England? Powers: ...)
    ("dippouch/store/rows.py", "<built: e.msg>"): _power_refused,
    ("dippouch/store/press.py", "<built: e.msg>"): _power_refused,
    # the scoring engine's (dippouch.ranking): no scoring system 'x' (did you mean 'sos'?); the systems are ...
    ("dippouch/play/records.py", "<built: e.msg>"): _system_refused,
    # the order notation's (a province misspelt) and the board reader's (a unit where it cannot stand)
    ("dippouch/play/sandbox.py", "<built: e.msg>"): _place_refused,
    ("dippouch/play/sandbox.py", "<built: why if isinstance(why, Msg) else e.msg>"): _board_refused,
    # an engine's refusal that ran in the work pool, sent back with its message value (web/pool._travels)
    ("dippouch/web/pool.py", "<built: e.msg>"): _board_refused,
    # the press rules' refusals, PressRefused(why)
    ("dippouch/store/press.py", "<built: why>"): _press_refused,
}
"""Texts passed on or built from pieces, which the source does not show: (file, name) -> the texts, made by
the code that makes them."""


# The refusals no template reads yet, by file: each one here is English on every page. Only shrinks: give a
# text a template in dippouch.said.LAYER_MESSAGES (German and French), then take it off this list.
NOT_YET: frozenset[tuple[str, str]] = frozenset()


# --------------------------------------------------------------------------------------------------
# The web's own refusals: marked for the request's catalogue

GETTEXT = frozenset({"_", "gettext", "ngettext", "pgettext", "npgettext"})


def _marked(node: ast.expr) -> bool:
    """Whether ``node`` is a text marked for a catalogue: a gettext call, or one filled with ``%``."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return _marked(node.left)
    if isinstance(node, ast.Call):
        f = node.func
        return (isinstance(f, ast.Name) and f.id in GETTEXT) or (isinstance(f, ast.Attribute) and f.attr in GETTEXT)
    return False


def _returns(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.expr]:
    return [n.value for n in ast.walk(fn) if isinstance(n, ast.Return) and n.value is not None]


def _api_route(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether ``fn`` is a route of the JSON API (``@router.post("/api/...")``), whose refusals stay English."""
    return any(
        isinstance(d, ast.Call)
        and isinstance(d.func, ast.Attribute)
        and d.func.attr in ("get", "post", "put", "patch", "delete")
        and d.args
        and isinstance(d.args[0], ast.Constant)
        and str(d.args[0].value).startswith("/api/")
        for d in fn.decorator_list
    )


class _WebRefusals(ast.NodeVisitor):
    """Every ``BadInput(text)`` (or another ``WebError``'s) of a web module, with what it passes on: (line, name,
    ok)."""

    def __init__(self, module: ModuleType, tree: ast.Module) -> None:
        self.module = module
        self.functions = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
        self.caught: list[tuple[str, tuple[type, ...]]] = []  # the enclosing handlers' names and classes
        self.tables: list[dict[str, ast.expr]] = []  # each enclosing function's names bound to one value
        self.found: list[tuple[int, str, bool]] = []

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        if _api_route(node):
            return  # the JSON API's words: English for programs (a caller asks for a language with ?lang=)
        bound: dict[str, ast.expr] = {}
        for n in ast.walk(node):
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
                bound[n.targets[0].id] = n.value
        self.tables.append(bound)
        self.generic_visit(node)
        self.tables.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        types = node.type.elts if isinstance(node.type, ast.Tuple) else [node.type] if node.type else []
        classes = tuple(c for t in types if isinstance(c := _resolve(self.module, t), type))
        self.caught.append((node.name or "", classes if len(classes) == len(types) else ()))
        self.generic_visit(node)
        self.caught.pop()

    def visit_Call(self, node: ast.Call) -> None:
        from dippouch.web.security import WebError

        cls = _resolve(self.module, node.func)
        if node.args and isinstance(cls, type) and issubclass(cls, WebError):
            arg = node.args[0]
            self.found.append((node.lineno, _name(arg), self._ok(arg)))
        self.generic_visit(node)

    def _ok(self, arg: ast.expr) -> bool:
        if _marked(arg):
            return True
        if (mid := _message_id(arg)) is not None:
            return all(_translated(mid, lang) for lang in LANGS)
        if (shapes := _shapes(arg, self.module)) is not None and all(
            _templates_read(s, lang) for s in shapes for lang in LANGS
        ):
            # a text the rules catalogue reads: the application's handler says every WebError's message through
            # said, on a page and to the JSON API asked for a language (?lang=de)
            return True
        if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name) and arg.func.id in self.functions:
            # a function of the module that returns only marked texts (_name_too_long(request, name))
            returns = _returns(self.functions[arg.func.id])
            return bool(returns) and all(_marked(r) for r in returns)
        if isinstance(arg, ast.Subscript) and isinstance(arg.value, ast.Name) and self.tables:
            # a table of marked texts (too_short[k])
            table = self.tables[-1].get(arg.value.id)
            return isinstance(table, ast.Dict) and all(v is not None and _marked(v) for v in table.values)
        return self._passed_on(arg)

    def _passed_on(self, arg: ast.expr) -> bool:
        """``str(e)``, ``str(e.args[0])`` or ``e.msg`` (its message value) of a project error caught by an
        enclosing ``except ... as e``."""
        if isinstance(arg, ast.Attribute) and arg.attr == "msg" and isinstance(arg.value, ast.Name):
            e: ast.expr = arg.value
        elif isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name) and arg.func.id == "str" and arg.args:
            e = arg.args[0]
        else:
            return False
        if isinstance(e, ast.Subscript) and isinstance(e.value, ast.Attribute) and e.value.attr == "args":
            e = e.value.value
        if not isinstance(e, ast.Name):
            return False
        for name, classes in reversed(self.caught):
            if name == e.id:
                return bool(classes) and all(issubclass(c, _classes()) for c in classes)
        return False


def web_refusals() -> Iterator[tuple[str, int, str, bool]]:
    """(file, line, name, marked, read or passed on) of every ``WebError`` the web raises."""
    for path in sorted((SRC / "dippouch/web").rglob("*.py")):
        rel, module = _module(path)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found = _WebRefusals(module, tree)
        found.visit(tree)
        for line, name, ok in found.found:
            yield rel, line, name, ok


def web_bare() -> dict[tuple[str, str], int]:
    """(file, name) -> line of each ``WebError`` given bare English."""
    out: dict[tuple[str, str], int] = {}
    for rel, line, name, ok in web_refusals():
        if not ok:
            out.setdefault((rel, name), line)
    return out


def _needs_key_refused() -> list[str]:
    """What ``deps.writer`` tells a caller with no credentials: its default, and what each caller passes."""
    from dippouch.web import deps, roster

    return [deps.NEEDS_KEY, roster.NEED_SIGN_IN]


def _api_day_refused() -> list[str]:
    """A day typed wrong in the JSON API's absences, with the API's field names (``roster._api_error``)."""
    from dippouch.web import roster
    from dippouch.web.security import BadInput

    out = []
    for first, last in (("", "2026-08-03"), ("2026-13-01", "2026-08-03"), ("2026-08-10", "2026-08-03"), ("x", "")):
        try:
            roster._api_days(first, last)
        except BadInput as e:
            out.append(e.message)
    assert len(out) == 4
    return out


WEB_PASSED_ON: dict[tuple[str, str], Callable[[], list[str]]] = {
    ("dippouch/web/deps.py", "<built: need>"): _needs_key_refused,
    ("dippouch/web/roster.py", "<built: Msg(_API_DAYS_OUT_OF_ORDER.get(m.id, m.id), args, m.plural, m.context)>"): (
        _api_day_refused
    ),
}
"""The web's texts made elsewhere or rewritten, which the source does not show where they are raised: (file,
name) -> the texts, made by the code; each must be read by a German and a French template."""


# The web's BadInput (and other WebError) texts in bare English, by file: each is English on every page. Only
# shrinks: mark the text for the request's catalogue (words(request).gettext), or give it a German and a French
# template in dippouch.said.LAYER_MESSAGES, then take it off this list.
WEB_NOT_YET: frozenset[tuple[str, str]] = frozenset()


# --------------------------------------------------------------------------------------------------
# The application's own answers (web/app.py's handlers: a page that is not there, a request it cannot read)

APP = "dippouch/web/app.py"

APP_BUILT = frozenset(
    {
        # a WebError's or a layer's message value (exc.msg), passed to _refused, which passes it to _answer: the
        # web's and the layers' checks above read it where it is raised
        "<built: exc.msg>",
        "<built: message>",
        # Starlette's answer: 404, 405 and 413 are message values; another status's detail is Starlette's English
        "<built: known.get(exc.status_code) or Msg(str(exc.detail))>",
        # pydantic's words (a field missing, a value of the wrong type) stay English, in a said sentence
    }
)
"""The messages web/app.py answers with that are made elsewhere, each with where it is read, or why not."""


def _app_answers(source: str, module: ModuleType) -> Iterator[tuple[int, str, bool]]:
    """(line, name, read) of every message the application answers with (``_answer(request, status, message)``):
    read when it is said (``_refusal(request, text)``) and a German and a French template reads ``text``."""
    tree = ast.parse(source)
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        bound = {
            n.targets[0].id: n.value
            for n in ast.walk(fn)
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
        }
        for call in ast.walk(fn):
            if not (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Name)
                and call.func.id in ("_answer", "_refused")
            ):
                continue
            if len(call.args) < 3:
                continue
            message = call.args[2]
            if isinstance(message, ast.Name) and message.id in bound:
                message = bound[message.id]
            if (mid := _message_id(message)) is not None:
                # a message value, said by its id in the reader's language
                yield call.lineno, _name(message), all(_translated(mid, lang) for lang in LANGS)
                continue
            said = (
                isinstance(message, ast.Call)
                and isinstance(message.func, ast.Name)
                and message.func.id == "_refusal"
                and len(message.args) == 2
            )
            if not said:
                yield call.lineno, _name(message), False
                continue
            assert isinstance(message, ast.Call)
            text = message.args[1]
            if isinstance(text, ast.Name) and text.id in bound:
                text = bound[text.id]
            shapes = _shapes(text, module)
            read = shapes is not None and all(_templates_read(s, lang) for s in shapes for lang in LANGS)
            yield call.lineno, _name(text), read


def app_unread() -> dict[str, int]:
    """name -> line of each answer of web/app.py no template reads."""
    from dippouch.web import app

    found = _app_answers((SRC / APP).read_text(encoding="utf-8"), app)
    return {name: line for line, name, read in found if not read}


def test_the_application_s_answers_are_said_in_the_reader_s_language() -> None:
    unread_here = app_unread()
    new = sorted(set(unread_here) - APP_BUILT)
    assert not new, "web/app.py answers in bare English (say it: _refusal(request, text), with a template):\n" + (
        "\n".join(f"  line {unread_here[n]}: {n}" for n in new)
    )
    gone = sorted(APP_BUILT - set(unread_here))
    assert not gone, f"APP_BUILT names answers web/app.py no longer has: {gone}"


def test_the_application_check_fails_on_a_bare_answer() -> None:
    from dippouch.web import app

    found = _app_answers(
        """
def handlers(request, exc):
    _answer(request, 400, "oops")                                          # bare: fails
    _answer(request, 400, _refusal(request, "oops"))                       # said, but no template: fails
    _answer(request, 404, _refusal(request, "no such page"))               # said and read
    text = f"internal error {x}: this is a bug in dippouch; it has been logged under that id"
    _answer(request, 500, _refusal(request, text))                         # a name bound to a read text
""",
        app,
    )
    assert [(name, read) for _, name, read in found] == [
        ("oops", False),
        ("oops", False),
        ("no such page", True),
        ("internal error {}: this is a bug in dippouch; it has been logged under that id", True),
    ]


# --------------------------------------------------------------------------------------------------


def test_every_refusal_has_a_template() -> None:
    missing = unread()
    new = sorted(set(missing) - NOT_YET - set(PASSED_ON))
    assert not new, f"{len(new)} refusal(s) no German or French template of dippouch.said reads:\n" + "\n".join(
        f"  {rel}:{missing[rel, name]}: {name}" for rel, name in new
    )


def test_not_yet_only_shrinks() -> None:
    missing = unread()
    done = sorted(NOT_YET - set(missing))
    assert not done, "NOT_YET names texts a template reads now, or the source no longer has; take them off:\n" + (
        "\n".join(f"  {rel}: {name}" for rel, name in done)
    )


def _unsaid(
    passed_on: Mapping[tuple[str, str], Callable[[], Iterable[str]]], reads: Callable[[str, str], bool]
) -> list[tuple[tuple[str, str], str, str]]:
    """(place, text, language) of each text a pass-through makes that ``reads`` does not read in German or French."""
    return [
        (where, text, lang)
        for where, make in passed_on.items()
        for text in make()
        for lang in LANGS
        if not reads(text, lang)
    ]


def test_what_is_passed_on_is_read_as_said_reads_it() -> None:
    missing = unread()
    gone = sorted(set(PASSED_ON) - set(missing))
    assert not gone, f"PASSED_ON names texts the source no longer has, or a template reads whole: {gone}"
    assert not set(PASSED_ON) & NOT_YET
    unsaid = _unsaid(PASSED_ON, _said_reads)
    assert not unsaid, "passed on, but no template reads them:\n" + "\n".join(f"  {u}" for u in unsaid)


def test_the_check_reads_an_f_string_by_its_shape() -> None:
    joined = ast.parse('f"no power {p!r} in {g}"', mode="eval").body
    assert _shapes(joined) == ["no power '1' in 1"]
    assert _read("no power '1' in 1", "de")  # "no power %(power)s in %(game)s"
    plural = ast.parse("f\"{n} game{'s' if n != 1 else ''} left\"", mode="eval").body
    assert _shapes(plural) == ["1 games left", "1 game left"]
    assert _name(plural) == "{} game{} left"
    assert not _read("no such text anywhere", "fr")


def test_the_check_reads_a_module_s_text_constant_as_its_text() -> None:
    from dippouch.people import dates

    node = ast.parse('f"{field}: a day is needed, as in {EXAMPLE}"', mode="eval").body
    assert _shapes(node, dates) == [f"1: a day is needed, as in {dates.EXAMPLE}"]
    assert _shapes(node) == ["1: a day is needed, as in 1"]  # without the module: a value


def test_the_check_reads_a_refused_message_as_press_refused_says_it() -> None:
    from dippouch.store import press

    node = ast.parse("Refusal('channel', f'no channel {c} of {p} in {g}')", mode="eval").body
    assert _refused_as(press, press.PressRefused, node) == (
        "not sent (channel): no channel {} of {} in {}",
        ["not sent (channel): no channel 1 of 1 in 1"],
    )


def test_said_reads_a_joined_text_part_by_part_or_not_at_all() -> None:
    assert _said_reads("no game 'x'; no game 'y'", "de")
    assert not _said_reads("no game 'x'; something else", "de")


def _web_check(source: str) -> list[tuple[int, str, bool]]:
    from dippouch.web import roster

    tree = ast.parse(source)
    found = _WebRefusals(roster, tree)
    found.visit(tree)
    return found.found


def test_the_web_check_fails_on_bare_english_and_passes_marked_or_passed_on_texts() -> None:
    found = _web_check(
        """
@router.post("/api/games/{name}/keys")
async def api_key(name):
    raise BadInput("role must be player or coordinator")                     # the JSON API's: not read


def page(request, n, text):
    w = words(request)
    if n:
        raise BadInput("no such game")                                       # bare: fails
    if n > 1:
        raise BadInput(f"{n} is too many")                                   # bare: fails
    raise BadInput(w.gettext("No game %(name)s here.") % {"name": n})        # marked
    try:
        clean_address(text)
    except GameError as e:
        raise BadInput(str(e)) from None                                     # a layer's text passed on
    except KeyError as e:
        raise BadInput(str(e.args[0])) from None                             # not known to be a layer's: fails
    table = {"a": _("first"), "b": _("second")}
    raise BadInput(table[text])                                              # a table of marked texts
    raise BadInput(_too_long(request, n))                                    # a function that marks its texts
    raise BadInput(_bare(n))                                                 # one that does not: fails


def _too_long(request, n):
    return words(request).gettext("at most %(n)s") % {"n": n}


def _bare(n):
    return f"at most {n}"
"""
    )
    assert [(name, ok) for _, name, ok in found] == [
        ("no such game", False),
        ("{} is too many", False),
        ("<built: w.gettext('No game %(name)s here.') % {'name': n}>", True),
        ("<built: str(e)>", True),
        ("<built: str(e.args[0])>", False),
        ("<built: table[text]>", True),
        ("<built: _too_long(request, n)>", True),
        ("<built: _bare(n)>", False),
    ]


def test_the_web_check_reads_every_web_error_class_and_takes_a_text_a_template_reads() -> None:
    from dippouch.web import security

    tree = ast.parse(
        """
def page(request, name, n):
    raise Forbidden("you may not")                                           # bare: fails
    raise WebNotFound(f"no page {name!r}")                                      # bare: fails
    raise TooMany(f"too many, wait {n} s", n)                                # bare: fails
    raise NeedsKey(words(request).gettext("sign in first"))                 # marked
    raise WebNotFound(f"no game {name!r}")                                      # the rules catalogue reads it
    raise ValueError("not the web's")                                        # not a WebError: not read
"""
    )
    found = _WebRefusals(security, tree)
    found.visit(tree)
    assert [(name, ok) for _, name, ok in found.found] == [
        ("you may not", False),
        ("no page {}", False),
        ("too many, wait {} s", False),
        ("<built: words(request).gettext('sign in first')>", True),
        ("no game {}", True),
    ]


def test_the_web_marks_its_own_refusals() -> None:
    bare = web_bare()
    new = sorted(set(bare) - WEB_NOT_YET - set(WEB_PASSED_ON))
    assert not new, f"{len(new)} WebError text(s) of the web in bare English (mark them: words(request).gettext):\n" + (
        "\n".join(f"  {rel}:{bare[rel, name]}: {name}" for rel, name in new)
    )


def test_what_the_web_passes_on_is_read() -> None:
    bare = web_bare()
    gone = sorted(set(WEB_PASSED_ON) - set(bare))
    assert not gone, f"WEB_PASSED_ON names texts the source no longer has: {gone}"
    assert not set(WEB_PASSED_ON) & WEB_NOT_YET
    unsaid = _unsaid(WEB_PASSED_ON, _templates_read)
    assert not unsaid, "the web passes these on, but no template reads them:\n" + "\n".join(f"  {u}" for u in unsaid)


def test_web_not_yet_only_shrinks() -> None:
    done = sorted(WEB_NOT_YET - set(web_bare()))
    assert not done, "WEB_NOT_YET names texts marked now, or gone; take them off:\n" + (
        "\n".join(f"  {rel}: {name}" for rel, name in done)
    )


def test_no_page_reaches_the_interop_modules() -> None:
    """NOT_LAYERS leaves out the interop modules because no page shows their refusals: no module of the web
    imports them (or the play layer's doors to them)."""
    doors = ("dippouch.interop", "dippouch.play.mila", "dippouch.play.daide")
    for path in sorted((SRC / "dippouch/web").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names]
            else:
                continue
            hit = [n for n in names if n.startswith(doors)]
            assert not hit, f"{path.relative_to(SRC)}:{node.lineno} imports {hit}: take it off NOT_LAYERS"


if __name__ == "__main__":
    for (rel, name), line in sorted(unread().items()):
        if (rel, name) not in PASSED_ON:
            print(f"    ({rel!r}, {name!r}),  # line {line}")
    print(len(set(unread()) - set(PASSED_ON)), "not read", file=sys.stderr)
    for (rel, name), line in sorted(web_bare().items()):
        print(f"    ({rel!r}, {name!r}),  # line {line}")
    print(len(web_bare()), "bare in the web", file=sys.stderr)
