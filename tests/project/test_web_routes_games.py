"""The game list, the game page, its phases, calendar, game file and maps, and the API's docs page are written in
FastAPI's own terms (docs/architecture.md, "The web"):

- no function of their route modules fetches the web service, the viewer, the site, the JSON writer or the form
  for itself: a route declares them as dependencies, and a helper is handed them as arguments. The game page's
  two local dependencies are the exception: they hand over the web service and an anonymous viewer on the event
  loop, so the page served from memory waits for no thread of the pool;
- each of their JSON calls is annotated to return its answer model, never a plain ``dict`` or a ``Response``;
- the templates these routes fill with a model read its attributes (a model has no item access, no ``.get``).

Read from the source with ``ast``, so the test says which function breaks the rule.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import dippouch.web

WEB = Path(dippouch.web.__file__).resolve().parent
MODULES = [WEB / "routes" / "games.py", WEB / "routes" / "api_docs.py"]
FETCHERS = {"web_of", "viewer_of", "site_of", "writer", "read_form", "_form"}
"""What a route used to call for itself, and now declares as a dependency."""
LOCAL_DEPENDENCIES = {"_web_at_once", "_viewer_at_once"}
"""The game page's own dependencies (async, so the cached page is served on the event loop): they are what
fetches, for that route."""
VERBS = ("get", "post", "put", "delete", "patch")

MODEL_TEMPLATES = {
    "game.html": ("g", "b", "h", "u", "a"),
    "phase.html": ("g", "ph", "s", "ln"),
    "index.html": ("g",),
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


def _is_page(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A route kept out of the OpenAPI document (``include_in_schema=False``): a page, like /api/docs."""
    return any(
        isinstance(d, ast.Call)
        and any(
            k.arg == "include_in_schema" and isinstance(k.value, ast.Constant) and not k.value.value for k in d.keywords
        )
        for d in fn.decorator_list
    )


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
def test_no_route_or_helper_fetches_what_a_dependency_hands_over(path: Path) -> None:
    tree = _tree(path)
    bad = [f for fn in _functions(tree) if fn.name not in LOCAL_DEPENDENCIES for f in _fetches(fn)]
    assert not bad, f"{path.name}: declare these as dependencies (WebDep, ViewerDep, WriterDep, a posted form): {bad}"
    partials = [
        ast.unparse(n)
        for n in ast.walk(tree)
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "_form" for t in n.targets)
    ]
    assert not partials, f"{path.name}: a module-level form reader; declare the form as a dependency: {partials}"


def _plain(annotation: ast.expr | None) -> bool:
    """A return annotation that names no model: missing, ``dict``/``dict[...]``/``Any``, a list of those, or a
    ``Response``."""
    if annotation is None:
        return True
    text = ast.unparse(annotation).replace(" ", "")
    if text.startswith("list["):
        text = text[5:-1]
    return text in ("Any", "dict", "Response", "JSONResponse") or text.startswith("dict[")


def test_every_json_call_returns_its_answer_model() -> None:
    routes = [(path, fn) for path in MODULES for fn in _functions(_tree(path)) if _route_path(fn)]
    json_calls = [(path, fn) for path, fn in routes if str(_route_path(fn)).startswith("/api/") and not _is_page(fn)]
    # The game list, a game, a phase and the game file (GET and POST) at least: the test reads real routes.
    assert len(json_calls) >= 5, json_calls
    bad = [
        f"{path.name}:{fn.lineno} {fn.name} -> {ast.unparse(fn.returns) if fn.returns else 'nothing'}"
        for path, fn in json_calls
        if _plain(fn.returns)
    ]
    assert not bad, f"JSON calls must be annotated with their answer model: {bad}"


@pytest.mark.parametrize("template", sorted(MODEL_TEMPLATES))
def test_templates_read_the_models_attributes(template: str) -> None:
    text = (WEB / "templates" / template).read_text(encoding="utf-8")
    names = "|".join(MODEL_TEMPLATES[template])
    item = re.compile(rf"\b(?:{names})(?:\.\w+)*(?:\[\s*['\"]|\.get\()")
    bad = [m.group(0) for m in item.finditer(text)]
    assert not bad, f"{template}: a model has no item access or .get: {bad}"


def test_the_page_only_pictures_are_never_sent_nor_documented() -> None:
    """The game's and a phase's SVG are declared for the pages and excluded from the JSON answers and the
    OpenAPI document (they are their own resources)."""
    from dippouch.web.answers import GameView, PhaseView

    for model, fields in ((GameView, ("map_svg",)), (PhaseView, ("map_svg", "after_svg"))):
        schema = model.model_json_schema(mode="serialization")
        for f in fields:
            assert model.model_fields[f].exclude, (model.__name__, f)
            assert f not in schema["properties"], (model.__name__, f)


def test_the_game_page_from_memory_waits_for_no_thread() -> None:
    """The game page's dependencies are all async: FastAPI runs a plain-function dependency in a thread of the
    pool, and the anonymous page kept in memory is served on the event loop, while a busy game's readers (or
    the submissions that change it) hold every thread."""
    import inspect

    from fastapi.routing import APIRoute

    from dippouch.web.routes.games import router

    route = next(
        r for r in router.routes if isinstance(r, APIRoute) and r.path == "/games/{name}" and "GET" in r.methods
    )
    assert inspect.iscoroutinefunction(route.endpoint)
    calls = [d.call for d in route.dependant.dependencies]
    assert calls, "the page declares its web service and viewer"
    sync = [getattr(c, "__name__", repr(c)) for c in calls if not inspect.iscoroutinefunction(c)]
    assert not sync, f"dependencies that would take a thread of the pool: {sync}"
