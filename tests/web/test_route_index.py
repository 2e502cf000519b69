"""The routes found by their first segment (dippouch.web.http.route_index): every address must reach the route the
whole table, tried in order, would give it (the same route, matched as fully), including the partial matches that
answer 405 and addresses no route takes; and a route added after the app is made must be found."""

from __future__ import annotations

import re

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.routing import BaseRoute, Match

from dbsupport import migrated_sqlite
from dippouch.web.app import create_app
from dippouch.web.http.route_index import RouteIndex
from websupport import TEST_SITE


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> FastAPI:
    return create_app(migrated_sqlite(tmp_path_factory.mktemp("routes") / "games.db"), limits={}, site=TEST_SITE)


def _index(app: FastAPI) -> RouteIndex:
    index = app.router.middleware_stack
    assert isinstance(index, RouteIndex)
    return index


def _first(routes: list[BaseRoute], path: str, method: str) -> tuple[BaseRoute, Match] | None:
    """What a router makes of an address: its first full match, else its first partial one."""
    scope = {"type": "http", "path": path, "root_path": "", "method": method, "headers": []}
    partial = None
    for route in routes:
        match, _ = route.matches(scope)
        if match == Match.FULL:
            return route, match
        if match == Match.PARTIAL and partial is None:
            partial = (route, match)
    return partial


def _same(app: FastAPI, path: str, method: str) -> None:
    whole = _first(app.router.routes, path, method)
    found = _first(_index(app).router_for(path).routes, path, method)
    assert found == whole, (path, method)
    # The route the Front asks (web/http/front.py): the table's first full match, or none.
    scope = {"type": "http", "path": path, "root_path": "", "method": method, "headers": []}
    matched = _index(app).matched(scope)
    full = whole if whole is not None and whole[1] == Match.FULL else None
    assert (matched[0] if matched else None) == (full[0] if full else None), (path, method)


def _examples(path: str) -> list[str]:
    """The route's path with each parameter given a plain value, then one with a dot and a dash."""
    out = []
    for value in ("x", "g-1.svg"):

        def filled(m: re.Match[str], value: str = value) -> str:
            return "a/b" if m.group(1) else value

        out.append(re.sub(r"\{[^}:]+(:path)?\}", filled, path))
    return out


def test_every_route_s_address_reaches_the_route_the_whole_table_gives(app: FastAPI) -> None:
    routes = app.router.routes
    assert len(routes) > 200
    for route in routes:
        path: str = getattr(route, "path")  # noqa: B009 - every route of the table has one; BaseRoute does not say so
        for example in [*_examples(path), *_examples(path + "/style.css")]:
            for method in ("GET", "POST", "DELETE", "PUT"):
                _same(app, example, method)
                _same(app, example + "/", method)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(["games", "api", "g", "play", "FRA", "orders", "static", "healthz", "", "x.svg"]), max_size=5
    )
)
def test_any_address_reaches_what_the_whole_table_gives(app: FastAPI, parts: list[str]) -> None:
    _same(app, "/" + "/".join(parts), "GET")
    _same(app, "/" + "/".join(parts), "POST")


def test_an_address_tries_only_its_segment_s_routes(app: FastAPI) -> None:
    index = _index(app)
    assert len(index.router_for("/healthz").routes) == 1
    assert len(index.router_for("/no-such-page").routes) == 0
    assert 0 < len(index.router_for("/games/g").routes) < len(app.router.routes) // 3


def test_answers_through_the_index(app: FastAPI) -> None:
    c = TestClient(app, raise_server_exceptions=False)
    assert c.get("/healthz").status_code == 200
    missing = c.get("/no-such-page")
    assert missing.status_code == 404 and "<html" in missing.text
    wrong = c.get("/signout")  # a POST route asked with GET
    assert wrong.status_code == 405 and wrong.headers["allow"] == "POST"  # the methods it takes, as RFC 9110 asks
    page = c.post("/games/g")  # the game page, a plain route, takes GET and HEAD
    assert page.status_code == 405 and set(page.headers["allow"].split(", ")) == {"GET", "HEAD"}
    api = c.delete("/api/games")
    assert api.status_code == 405 and api.headers["allow"] == "GET" and "error" in api.json()
    assert c.get("/static/app.css").status_code == 200


def test_a_route_added_after_the_app_is_found(tmp_path_factory: pytest.TempPathFactory) -> None:
    late = create_app(migrated_sqlite(tmp_path_factory.mktemp("late") / "games.db"), limits={}, site=TEST_SITE)
    c = TestClient(late, raise_server_exceptions=False)
    assert c.get("/later").status_code == 404

    @late.get("/later")
    def later() -> dict[str, str]:
        return {"found": "yes"}

    assert c.get("/later").json() == {"found": "yes"}
