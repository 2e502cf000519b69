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
    # Remembered (the app's lane, before every layer): the same route and scope, asked once or again.
    for _ in range(2):
        fresh = _index(app).fresh_match(dict(scope))
        assert (fresh[0] if fresh else None) == (matched[0] if matched else None), (path, method)
        assert (fresh[1] if fresh else None) == (matched[1] if matched else None), (path, method)


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


def test_a_remembered_match_is_each_askers_own_and_forgotten_with_the_table(app: FastAPI) -> None:
    index = _index(app)
    scope = {"type": "http", "path": "/games/g", "root_path": "", "method": "GET", "headers": []}
    first = index.fresh_match(dict(scope))
    assert first is not None and first[1]["path_params"] == {"name": "g"}
    first[1]["path_params"]["name"] = "changed by its asker"
    again = index.fresh_match(dict(scope))
    assert again is not None and again[1]["path_params"] == {"name": "g"} and again[0] is first[0]
    # Another root path is another address.
    below = index.fresh_match({**scope, "root_path": "/site", "path": "/site/games/g"})
    assert below is not None and below[0] is first[0]
    # A route added to the table: what was remembered of the old one is not given.
    other = FastAPI()
    other.router.routes.extend(app.router.routes)
    seen = RouteIndex(other.router)
    assert seen.fresh_match(dict(scope)) is not None

    async def ahead() -> None:
        return None

    other.router.add_api_route("/games/{name}", ahead, methods=["GET"])
    other.router.routes.insert(0, other.router.routes.pop())
    moved = seen.fresh_match(dict(scope))
    assert moved is not None and moved[1]["endpoint"] is ahead
