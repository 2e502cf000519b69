"""The player's page and press routes (dippouch.web.routes.play, dippouch.web.press) in FastAPI's own terms:
each route names what it needs as a dependency (the web, the viewer, the writer, the seat, the posted form)
instead of fetching it inside its body, and each JSON call returns its answer model, the one the OpenAPI
document declares, rather than a dict the model would only check on the way out.

Read from the source with ``ast``: a route that slips back to ``web_of(request)`` or ``-> dict[str, Any]``
still works, so only reading it finds it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "dippouch" / "web"
MODULES = [SRC / "routes" / "play.py", SRC / "press.py"]

FETCHERS = {"web_of", "viewer_of", "site_of", "writer", "read_form"}
"""What a route declares as a dependency (WebDep, ViewerDep, SiteDep, WriterDep, FormDep or posted(...))."""

ROUTE_METHODS = {"get", "post", "put", "patch", "delete", "api_route"}


def _partials(tree: ast.Module) -> set[str]:
    """Module-level names bound to ``functools.partial(...)`` (a ``_form = partial(read_form, ...)`` reader)."""
    out: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            f = node.value.func
            called = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if called == "partial":
                out |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return out


def _route(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[str, ast.Call] | None:
    """The path of a ``@router.<method>(path, ...)`` decorator and the decorator's call, or ``None``."""
    for dec in fn.decorator_list:
        if (
            isinstance(dec, ast.Call)
            and isinstance(dec.func, ast.Attribute)
            and dec.func.attr in ROUTE_METHODS
            and dec.args
            and isinstance(dec.args[0], ast.Constant | ast.BinOp)
        ):
            path = dec.args[0]
            text = ast.unparse(path)
            if isinstance(path, ast.BinOp):  # "/api" + _P
                text = text.replace(" ", "")
            return text, dec
    return None


def _called(node: ast.Call) -> str:
    f = node.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def _answer_model(dec: ast.Call) -> str | None:
    """The model of the decorator's ``**answers(Model)``, as written."""
    for kw in dec.keywords:
        if kw.arg is None and isinstance(kw.value, ast.Call) and _called(kw.value) == "answers" and kw.value.args:
            return ast.unparse(kw.value.args[0])
    return None


def problems(source: str) -> list[str]:
    """What in ``source``'s routes is not said in FastAPI's terms, one line each (empty: nothing)."""
    tree = ast.parse(source)
    partials = _partials(tree)
    out: list[str] = []
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        route = _route(fn)
        if route is None:
            continue
        path, dec = route
        for node in ast.walk(fn):
            if isinstance(node, ast.Call):
                name = _called(node)
                if name in FETCHERS or name in partials or name == "_form":
                    out.append(f"{fn.name} calls {name}() instead of declaring it as a dependency")
        if not path.lstrip("'\"").startswith("/api"):
            continue
        returns = ast.unparse(fn.returns) if fn.returns is not None else ""
        bare = returns.replace(" ", "")
        if not returns or bare.startswith(("dict", "list[dict", "Response", "dict[")) or bare.endswith("Response"):
            out.append(f"{fn.name} ({path}) returns {returns or 'no annotation'}, not its answer model")
            continue
        model = _answer_model(dec)
        if model is not None and bare not in (model, f"list[{model}]") and model not in (bare, f"list[{bare}]"):
            out.append(f"{fn.name} ({path}) returns {returns}, but answers({model}) declares the model")
    return out


@pytest.mark.parametrize("module", MODULES, ids=lambda p: p.name)
def test_routes_declare_what_they_need_and_return_their_model(module: Path) -> None:
    assert problems(module.read_text(encoding="utf-8")) == []


def test_the_check_finds_a_route_that_fetches_or_answers_a_dict() -> None:
    """The check itself can fail: the old shapes of these routes are each found."""
    old = """
import functools
from typing import Any
_form = functools.partial(read_form, max_fields=200)

@router.post("/games/{name}/play/{power}/vote", include_in_schema=False)
async def play_vote(request: Request, name: str, power: str) -> Response:
    form = await _form(request)
    web = web_of(request)
    return redirect("/", "x")

@router.get("/api" + _P, **answers(PressView))
def api_panel(request: Request, name: str, power: str) -> dict[str, Any]:
    return panel(web_of(request), name, power, viewer_of(request))

@router.post("/api/games/{name}/powers/{power}/vote", **answers(VoteAnswer))
def api_vote(request: Request, name: str, power: str, body: VoteIn) -> Receipt:
    viewer = writer(request)
    return Receipt()
"""
    found = problems(old)
    assert any("play_vote calls _form()" in p for p in found)
    assert any("play_vote calls web_of()" in p for p in found)
    assert any("api_panel" in p and "dict[str, Any]" in p for p in found)
    assert any("api_panel calls viewer_of()" in p for p in found)
    assert any("api_vote calls writer()" in p for p in found)
    assert any("api_vote" in p and "answers(VoteAnswer)" in p for p in found)
