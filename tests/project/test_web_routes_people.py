"""The people's routes (accounts, open games, the roster, notifications, unsubscribe, the installable app, signing
in) are written in FastAPI's own terms: a route declares what it needs as dependencies (``WebDep``, ``ViewerDep``,
``PersonDep``, a posted form ...) instead of fetching it in its body, and a JSON call returns its answer model.

Read from the source with :mod:`ast`, so a route that slips back to the old plumbing fails here by name, whatever
the tests that call it happen to cover.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import dippouch.web

WEB = Path(dippouch.web.__file__).resolve().parent
MODULES = [
    WEB / "accounts.py",
    WEB / "openings.py",
    WEB / "roster.py",
    WEB / "notify.py",
    WEB / "unsubscribe.py",
    WEB / "installable.py",
    WEB / "routes" / "signin.py",
]
FETCHERS = {"web_of", "viewer_of", "site_of", "writer", "read_form", "_form", "_person", "person_of"}
"""What a route used to call for itself (and the modules' own "signed-in person" helpers), now declared as a
dependency."""
LOOSE = {"dict", "Dict", "Any", "Response", "JSONResponse"}
"""Return annotations that say nothing of a JSON call's answer (the model is the one description of it)."""


def _routes(tree: ast.Module) -> list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str]]:
    """Each route function of the module with its path as written (``@router.post("/api/...", ...)``)."""
    out = []
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for d in node.decorator_list:
            if (
                isinstance(d, ast.Call)
                and isinstance(d.func, ast.Attribute)
                and d.func.attr in ("get", "post", "put", "delete", "patch")
                and d.args
            ):
                first = d.args[0]
                path = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else ""
                if isinstance(first, ast.Name):
                    path = first.id  # a constant's name (installable.OFFLINE): a page, not a call
                out.append((node, path))
    return out


def _names(node: ast.AST | None) -> set[str]:
    """Every name in an annotation (``list[dict[str, Any]]``: list, dict, str, Any), quoted ones too."""
    if node is None:
        return set()
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return _names(ast.parse(node.value, mode="eval").body)
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | {
        n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)
    }


def problems(source: str, module: str) -> list[str]:
    """What is wrong with the routes of ``source``: calls to the old plumbing, loose JSON answers, an ``async``
    route that awaits nothing (FastAPI runs a plain one in its thread pool)."""
    found = []
    for fn, path in _routes(ast.parse(source)):
        where = f"{module}:{fn.lineno} {fn.name}"
        for call in ast.walk(fn):
            if isinstance(call, ast.Call):
                name = call.func.id if isinstance(call.func, ast.Name) else getattr(call.func, "attr", "")
                if name in FETCHERS:
                    found.append(f"{where} calls {name}()")
                if name == "run_in_threadpool":
                    found.append(f"{where} calls run_in_threadpool(): declare the route a plain def")
        if path.startswith("/api/") and _names(fn.returns) & LOOSE:
            found.append(f"{where} answers {ast.unparse(fn.returns) if fn.returns else 'nothing'}, not its model")
        if isinstance(fn, ast.AsyncFunctionDef) and not any(isinstance(n, ast.Await) for n in ast.walk(fn)):
            found.append(f"{where} is async and awaits nothing")
    return found


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_routes_declare_what_they_need_and_answer_their_models(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    assert _routes(ast.parse(source)), f"{path.name}: the reader finds no route (the checks would pass vacuously)"
    assert problems(source, path.name) == []


def test_the_check_finds_the_old_plumbing() -> None:
    """Written as the routes were before: every kind of problem is reported."""
    old = """
@router.get("/api/me", **answers(MeView))
def me_api(request: Request) -> dict[str, Any]:
    web, viewer, pid = _person(request)
    return me_view(web, viewer, pid)


@router.post("/api/signin/passkey", **answers(SignedIn))
def passkey_signin(request: Request) -> Response:
    return JSONResponse({"ok": True})


@router.get("/api/roster", **answers(list[RosterAnswer]))
def api_roster(request: Request) -> "list[dict[str, Any]]":
    return installation_roster(web_of(request), viewer_of(request))


@router.post("/me/calendar", include_in_schema=False)
async def me_calendar(request: Request) -> Response:
    form = await _form(request)
    return await run_in_threadpool(_calendar_action, request, form.get("action", ""))


@router.post("/notifications/targets/{target_id}/remove", include_in_schema=False)
async def post_remove(request: Request, target_id: int) -> Response:
    remove_target(web_of(request).store, 1, target_id)
    return redirect("/notifications", "Removed.")
"""
    found = problems(old, "old.py")
    assert any("me_api calls _person()" in p for p in found)
    assert any("me_api answers dict[str, Any]" in p for p in found)
    assert any("passkey_signin answers Response" in p for p in found)
    assert any("api_roster answers" in p for p in found)
    assert any("api_roster calls web_of()" in p for p in found) and any("calls viewer_of()" in p for p in found)
    assert any("me_calendar calls _form()" in p for p in found)
    assert any("me_calendar calls run_in_threadpool()" in p for p in found)
    assert any("post_remove is async and awaits nothing" in p for p in found)
    # A page may answer a Response: only a JSON call's answer is its model.
    assert not any("me_calendar answers" in p for p in found)
