"""The coordinator's desk, the variants, the mail review, the outbox and the mail setup page are written in
FastAPI's own terms (docs/architecture.md, "The web"):

- no function of their modules fetches the web service, the viewer, the site, the JSON writer or the form for
  itself: a route declares them as dependencies, and a helper is handed them as arguments;
- each of their JSON calls is annotated to return its answer model (the adjudication contract's route, which
  answers the contract's own JSON, is the one exception);
- the templates these routes fill with a model read its attributes (a model has no item access, no ``.get``,
  and a field it declares is always defined, so ``is defined`` would always be true);
- the import form is the one form here that declares a file field.

Read from the source with ``ast``, so the test says which function breaks the rule.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import dippouch.web

WEB = Path(dippouch.web.__file__).resolve().parent
MODULES = [
    WEB / "routes" / "coordinate.py",
    WEB / "routes" / "variants.py",
    WEB / "review.py",
    WEB / "outbox.py",
    WEB / "mail_setup.py",
]
FETCHERS = {"web_of", "viewer_of", "site_of", "writer", "read_form", "_form"}
"""What a route used to call for itself, and now declares as a dependency."""
CONTRACT = "/api/adjudicate"
"""The adjudication contract's route answers the contract's own JSON (docs/adjudication-contract.md)."""
VERBS = ("get", "post", "put", "delete", "patch")

MODEL_TEMPLATES = {
    "coordinate.html": ("c", "g", "k", "s", "pl"),
    "coordinate_home.html": ("g",),
    "variant.html": ("v", "p", "k", "o"),
    "moves.html": ("v", "mv", "u", "d", "m", "k"),
}
"""Templates handed a model, with the names in them that stand for a model (or one of its nested models)."""


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _route_path(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """The path a function is routed at (``@router.get("/path", ...)``), or ``None`` for a helper."""
    for d in fn.decorator_list:
        if isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute) and d.func.attr in VERBS and d.args:
            first = d.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                return first.value
            return ast.unparse(first)
    return None


def _functions(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def _fetches(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """The fetchers ``fn`` calls, by name or as an attribute (``deps.web_of(...)``), or hands on to be called
    (``run_in_threadpool(read_form, ...)``, ``partial(read_form, ...)``)."""
    found = []
    for n in ast.walk(fn):
        if isinstance(n, ast.Call):
            for target in (n.func, *n.args):
                name = target.id if isinstance(target, ast.Name) else getattr(target, "attr", None)
                if name in FETCHERS:
                    found.append(f"{fn.name}:{n.lineno} {name}")
    return found


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_the_modules_have_routes(path: Path) -> None:
    """The reader below finds what it checks (a renamed decorator would make every other test pass empty)."""
    assert any(_route_path(fn) for fn in _functions(_tree(path)))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_nothing_fetches_what_a_dependency_hands_over(path: Path) -> None:
    bad = [f for fn in _functions(_tree(path)) for f in _fetches(fn)]
    assert bad == [], "declare WebDep, ViewerDep, SiteDep, WriterDep or a posted() form instead"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_no_module_level_form_partial(path: Path) -> None:
    """A ``functools.partial(read_form, ...)`` kept at module level is the old way of stating a form's limits."""
    bad = [
        ast.unparse(n)[:80]
        for n in ast.walk(_tree(path))
        if isinstance(n, ast.Call)
        and ast.unparse(n.func).endswith("partial")
        and any(isinstance(a, ast.Name) and a.id in FETCHERS for a in n.args)
    ]
    assert bad == []


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_json_calls_return_their_models(path: Path) -> None:
    bad = []
    for fn in _functions(_tree(path)):
        where = _route_path(fn)
        if where is None or not where.startswith("/api/") or where == CONTRACT:
            continue
        returns = ast.unparse(fn.returns) if fn.returns else ""
        loose = re.match(r"(dict|list\[dict|Response|JSONResponse|Any|object)\b", returns)
        if not returns or loose:
            bad.append(f"{fn.name} ({where}) -> {returns or 'nothing declared'}")
    assert bad == []


def test_only_the_import_form_declares_a_file() -> None:
    """A posted file is refused by its field's name unless the route declares it: only the import takes one."""
    declared = []
    for path in MODULES:
        for n in ast.walk(_tree(path)):
            if (
                isinstance(n, ast.Call)
                and ast.unparse(n.func).endswith("posted")
                and any(k.arg == "files" for k in n.keywords)
            ):
                declared.append((path.name, ast.unparse(n)))
    assert len(declared) == 1 and declared[0][0] == "coordinate.py" and "('file',)" in declared[0][1], declared
    tree = _tree(MODULES[0])
    imports = [fn for fn in _functions(tree) if _route_path(fn) == "/coordinate/import"]
    assert imports and "ImportForm" in ast.unparse(imports[0].args), "the import route reads the form with its file"


@pytest.mark.parametrize("template", sorted(MODEL_TEMPLATES))
def test_templates_read_models_by_attribute(template: str) -> None:
    text = (WEB / "templates" / template).read_text(encoding="utf-8")
    names = "|".join(MODEL_TEMPLATES[template])
    bad = re.findall(rf"\b(?:{names})\[[\"'][^\]]*\]", text)
    bad += re.findall(rf"\b(?:{names})\.get\(", text)
    bad += re.findall(rf"\b(?:{names})\.\w+ is (?:not )?defined", text)
    assert bad == [], f"{template}: a model has attributes, not items (and its fields are always defined)"
