"""The game page's router is matched early (the busiest page; every route before it was tried at each of its
requests), which is safe only while none of its routes takes a request meant for another router's route."""

from __future__ import annotations

import re
from collections.abc import Sequence

from fastapi import APIRouter
from fastapi.routing import APIRoute
from starlette.routing import BaseRoute, Match, Route

from dippouch.web.app import create_app, feature_routers
from dippouch.web.routes import games


def _sample(path: str) -> str:
    """A request path the route of ``path`` answers: each parameter filled with 1 (a number fits every kind)."""
    return re.sub(r"\{[^}]+\}", "1", path)


def _taken(first: Sequence[BaseRoute], others: Sequence[BaseRoute]) -> list[str]:
    """The requests of ``others``' routes that a route of ``first``, tried before them, would answer."""
    taken = []
    for other in others:
        assert isinstance(other, APIRoute)
        for method in sorted(other.methods or ()):
            scope = {"type": "http", "method": method, "path": _sample(other.path), "root_path": ""}
            for route in first:
                if route.matches(scope)[0] == Match.FULL:
                    assert isinstance(route, Route)
                    taken.append(f"{method} {other.path} would be answered by {route.path}")
    return taken


def _others() -> list[BaseRoute]:
    return [r for router in feature_routers() if router is not games.router for r in router.routes]


def test_no_route_of_the_first_router_takes_another_s_request() -> None:
    others = _others()
    assert len(others) > 100
    assert _taken(games.router.routes, others) == []


def test_the_check_finds_a_route_that_would_take_another_s() -> None:
    greedy = APIRouter()

    @greedy.get("/games/{name}/{anything}")
    def _greedy(name: str, anything: str) -> None: ...

    taken = _taken([*games.router.routes, *greedy.routes], _others())
    assert "GET /games/{name}/opening would be answered by /games/{name}/{anything}" in taken


def test_the_game_page_is_among_the_first_routes_tried() -> None:
    app = create_app("sqlite://")
    paths = [r.path if isinstance(r, Route) else "" for r in app.router.routes]
    # After the openings' own (which must come first) only: 24 routes tried, not 59.
    assert paths.index("/games/{name}") < 30
