"""The web's routes are added one way and written one way (docs/architecture.md, "The web, in FastAPI's own
terms").

- Each feature's module holds one router with its pages and its JSON calls; ``dippouch.web.app.routes`` is the only
  place routes join the app (no module adds routes to another's router), and the app's table is exactly the
  feature routers' routes in order, beside the app's own health and metrics addresses.
- JSON calls live under ``/api/``, are in the OpenAPI document and declare their answer and refusals; pages are not
  in it.
- No function of the web's routers fetches the web service, the viewer, the site, the JSON writer or the form
  for itself: a route declares them as dependencies (``WebDep``, ``ViewerDep``, ``FormDep`` ...), and a helper is
  handed them as arguments. One form reader, with each route's limits declared where the route is. The one
  exception is :data:`PLAIN`: a page too busy to pay for FastAPI's solving of dependencies, a plain route
  (``@router.route``) taking the request alone.
- A JSON call returns the model it declares, not a dict the model would describe a second time; the templates
  handed a model read its attributes.

Read from the source with ``ast`` where the test names the function that breaks a rule.
"""

from __future__ import annotations

import ast
import inspect
import re
import typing
from pathlib import Path

import pytest
from fastapi.routing import APIRoute
from starlette.routing import Route

import dippouch.web
from dippouch.web.app import create_app, feature_routers
from dippouch.web.http.deps import MadeJSON
from sourcesupport import tree as parsed

WEB = Path(dippouch.web.__file__).resolve().parent
MODULES = sorted(p for p in WEB.rglob("*.py") if "answers" not in p.parts)
FETCHERS = {"web_of", "viewer_of", "site_of", "writer", "read_form", "_form"}
"""What a route used to fetch for itself, and now declares as a dependency."""
DEPENDENCIES = WEB / "http" / "deps.py", WEB / "http" / "forms.py"
"""Where the dependencies themselves are made from those functions."""
VERBS = ("get", "post", "put", "delete", "patch", "route")
PLAIN = {"/games/{name}": "game_page"}
"""The plain routes (Starlette's ``Route``, not FastAPI's ``APIRoute``), each a page, and the function that is
it: the game page, the busiest of a site, whose dependencies cost a third of its CPU from memory
(benchmarks/README.md, issue 57). Another needs as good a reason, measured."""

MODEL_TEMPLATES = {
    "game.html": ("g", "b", "h", "u", "a"),
    "phase.html": ("g", "ph", "s", "ln"),
    "index.html": ("g",),
    "play.html": ("p", "g", "press"),
    "press_panel.html": ("press",),
    "coordinate.html": ("c", "g", "k", "s", "pl"),
    "coordinate_home.html": ("g",),
    "variant.html": ("v", "p", "k", "o"),
    "moves.html": ("v", "mv", "u", "d", "m", "k"),
    "me.html": ("me",),
    "roster.html": ("e",),
}
"""Templates handed a model, with the names in them that stand for a model (or one of its nested models)."""


def _tree(path: Path) -> ast.Module:
    return parsed(path)


def _route_path(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """The path a function is a route for, as written (``"/api" + _P`` for a path built from a constant)."""
    for d in fn.decorator_list:
        if isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute) and d.func.attr in VERBS and d.args:
            return ast.unparse(d.args[0])
    return None


def _functions(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def _dependencies(tree: ast.Module) -> set[str]:
    """The module's own dependencies: the functions it hands to ``Depends`` or ``posted(csrf=...)`` (a need
    with its own refusal's words), which are made from the fetchers."""
    out: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and ast.unparse(n.func) in ("Depends", "posted"):
            out |= {a.id for a in [*n.args, *(k.value for k in n.keywords)] if isinstance(a, ast.Name)}
    return out


def _first_tries(tree: ast.Module, routes: set[str]) -> set[str]:
    """The functions the module gives ``routes`` as their first try and its answer from memory
    (``early(route, first, now)``): a plain route's own parts, asked before the framework (web/http/front.py)."""
    return {
        arg.id
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        and getattr(n.func, "id", None) == "early"
        and len(n.args) in (2, 3)
        and isinstance(n.args[0], ast.Name)
        and n.args[0].id in routes
        for arg in n.args[1:]
        if isinstance(arg, ast.Name)
    }


def _fetches(tree: ast.Module) -> list[str]:
    """Each use of a fetcher (called, or handed to ``run_in_threadpool``/``partial``) by a function of the module
    other than its own dependencies and the plain routes (:data:`PLAIN`), and each form-reading ``partial`` made
    at module level."""
    plain = {(repr(path), name) for path, name in PLAIN.items()}
    routes = {fn.name for fn in _functions(tree) if (_route_path(fn), fn.name) in plain}
    own = _dependencies(tree) | routes | _first_tries(tree, routes)
    bad = [
        f"{fn.name}:{n.lineno} uses {n.id}"
        for fn in _functions(tree)
        if fn.name not in own
        for n in ast.walk(fn)
        if isinstance(n, ast.Name) and n.id in FETCHERS
    ]
    for node in tree.body:
        if isinstance(node, ast.Assign) and "read_form" in ast.unparse(node.value):
            bad.append(f"module level:{node.lineno} {ast.unparse(node)[:60]}")
    return bad


def test_the_reader_finds_the_routes() -> None:
    found = sum(1 for p in MODULES for fn in _functions(_tree(p)) if _route_path(fn) is not None)
    assert found == sum(len(r.routes) for r in feature_routers()) + 2  # and the app's /healthz and /metrics


def test_each_module_has_at_most_one_router_and_none_adds_to_another() -> None:
    bad = []
    for path in MODULES:
        tree = _tree(path)
        made = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "APIRouter"]
        if len(made) > 1:
            bad.append(f"{path.name}: {len(made)} routers")
        for n in ast.walk(tree):
            if isinstance(n, ast.Attribute) and n.attr in ("add_api_route", "include_router"):
                bad.append(f"{path.name}:{n.lineno} {n.attr}")
            if (
                isinstance(n, ast.Attribute)
                and n.attr == "extend"
                and isinstance(n.value, ast.Attribute)
                and n.value.attr == "routes"
                and path.name != "app.py"
            ):
                bad.append(f"{path.name}:{n.lineno} routes.extend")
    assert bad == []


def test_the_app_serves_exactly_the_feature_routers_routes_in_order() -> None:
    app = create_app("sqlite://")
    own = [r for r in app.router.routes if isinstance(r, Route)]  # not the static files' Mount
    expected = [r for router in feature_routers() for r in router.routes]
    assert [r for r in own if r.path not in ("/healthz", "/metrics", app.openapi_url)] == expected
    assert len(expected) > 150


def test_json_calls_are_under_api_documented_and_pages_are_not() -> None:
    plain = []
    for router in feature_routers():
        for r in router.routes:
            assert isinstance(r, Route)
            if not isinstance(r, APIRoute):
                plain.append(r.path)
                assert not r.include_in_schema and not r.path.startswith("/api/"), f"{r.path}: a plain JSON call"
            elif r.include_in_schema:
                assert r.path.startswith("/api/"), f"{r.path}: a JSON call outside /api/"
                declared = r.response_model is not None or (200 in r.responses and "model" in r.responses[200])
                assert declared, f"{r.path}: no declared answer"
                assert 400 in r.responses and 404 in r.responses, f"{r.path}: refusals undeclared"
            else:
                assert r.path == "/api/docs" or not r.path.startswith("/api/"), f"{r.path}: a JSON call left out"
    assert plain == list(PLAIN)


@pytest.mark.parametrize("path", [p for p in MODULES if p not in DEPENDENCIES], ids=lambda p: str(p.relative_to(WEB)))
def test_nothing_fetches_what_a_dependency_hands_over(path: Path) -> None:
    assert _fetches(_tree(path)) == []


def test_the_check_finds_the_old_plumbing() -> None:
    old = ast.parse(
        "import functools\n"
        "_form = functools.partial(read_form, max_fields=200)\n"
        "@router.post('/x')\n"
        "async def x(request):\n"
        "    form = await _form(request)\n"
        "    return await run_in_threadpool(work, web_of(request), viewer_of(request))\n"
        "def helper(request):\n"
        "    return functools.partial(site_of, request)\n"
    )
    assert len(_fetches(old)) == 5


def test_only_a_plain_routes_first_try_may_fetch() -> None:
    source = (
        "@router.route('/games/{name}')\n"
        "async def game_page(request):\n"
        "    return web_of(request)\n"
        "async def first(request):\n"
        "    return web_of(request)\n"
        "@router.get('/other')\n"
        "async def other(request):\n"
        "    return None\n"
        "async def second(request):\n"
        "    return web_of(request)\n"
        "early(game_page, first)\n"
        "early(other, second)\n"
    )
    assert _fetches(ast.parse(source)) == ["second:10 uses web_of"]


def test_json_calls_return_the_model_they_declare() -> None:
    """Read off the routes themselves: the endpoint's return type is the answer model FastAPI documents, so
    mypy checks what a view returns against what the OpenAPI document says."""
    checked = 0
    for router in feature_routers():
        for r in router.routes:
            if not (isinstance(r, APIRoute) and r.include_in_schema):
                continue
            returns = typing.get_type_hints(r.endpoint).get("return")
            if typing.get_origin(returns) is MadeJSON:  # its JSON made once, of the model it names
                (returns,) = typing.get_args(returns)
            if r.response_model is None:  # the adjudication contract: its own JSON, as the command line's
                assert r.path == "/api/adjudicate", r.path
                continue
            assert returns == r.response_model, f"{r.path}: returns {returns}, declares {r.response_model}"
            checked += 1
    assert checked > 60


def test_only_the_import_form_declares_a_file() -> None:
    """A posted file is refused by its field's name unless the route declares it: only the import takes one."""
    declared = [
        (path.name, ast.unparse(n))
        for path in MODULES
        for n in ast.walk(_tree(path))
        if isinstance(n, ast.Call)
        and ast.unparse(n.func).endswith("posted")
        and any(k.arg == "files" for k in n.keywords)
    ]
    assert len(declared) == 1 and declared[0][0] == "forms.py" and "('file',)" in declared[0][1], declared
    takers = [
        r.path
        for router in feature_routers()
        for r in router.routes
        if isinstance(r, APIRoute) and "ImportForm" in str(inspect.signature(r.endpoint))
    ]
    assert takers == ["/coordinate/import"]


@pytest.mark.parametrize("template", sorted(MODEL_TEMPLATES))
def test_templates_read_models_by_attribute(template: str) -> None:
    text = (WEB / "templates" / template).read_text(encoding="utf-8")
    names = "|".join(MODEL_TEMPLATES[template])
    bad = re.findall(rf"(?<![\w.])(?:{names})\[\s*[\"']", text)
    bad += re.findall(rf"(?<![\w.])(?:{names})\.get\(", text)
    bad += re.findall(rf"\b(?:{names})\.\w+ is (?:not )?defined", text)
    assert bad == [], f"{template}: a model has attributes, not items (and its fields are always defined)"


def test_the_page_only_pictures_are_never_sent_nor_documented() -> None:
    """The game's, a phase's and a variant's SVG are declared for the pages and excluded from the JSON answers
    and the OpenAPI document (each is a resource of its own)."""
    from dippouch.web.views.answers.games import GameView, PhaseView
    from dippouch.web.views.answers.variants import VariantView

    for model, fields in ((GameView, ("map_svg",)), (PhaseView, ("map_svg", "after_svg")), (VariantView, ("map_svg",))):
        schema = model.model_json_schema(mode="serialization")
        for f in fields:
            assert model.model_fields[f].exclude, (model.__name__, f)
            assert f not in schema["properties"], (model.__name__, f)


def test_the_game_page_from_memory_waits_for_no_thread() -> None:
    """The game page is a coroutine taking the request alone: the anonymous page kept in memory is served on
    the event loop while a busy game's readers (or the submissions that change it) hold every thread, and no
    dependency (which FastAPI would run in a thread were it a plain function) stands before it."""
    from dippouch.web.routes.games import router

    route = next(r for r in router.routes if isinstance(r, Route) and r.path == "/games/{name}")
    assert not isinstance(route, APIRoute) and route.methods == {"GET", "HEAD"}
    assert inspect.iscoroutinefunction(route.endpoint)
    assert list(inspect.signature(route.endpoint).parameters) == ["request"]


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(WEB)))
def test_an_async_route_awaits_something(path: Path) -> None:
    """A route that awaits nothing is a plain ``def``: FastAPI runs it in the thread pool, where its database
    work does not hold up the event loop that every other request waits on."""
    idle = [
        fn.name
        for fn in _functions(_tree(path))
        if isinstance(fn, ast.AsyncFunctionDef)
        and _route_path(fn) is not None
        and not any(isinstance(n, ast.Await | ast.AsyncFor | ast.AsyncWith) for n in ast.walk(fn))
    ]
    assert idle == []
