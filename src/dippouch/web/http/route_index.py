"""The app's routes found by their path's first segment, not tried one after another.

A router tries its routes in order until one matches; the app has some 240, so an address near the end of the
table (``/healthz``, ``/sw.js``, the manifest) or one that does not exist tries every one of them: 0.4 ms of
CPU back to back and about a millisecond at a slow pace, on this project's two-CPU machine, more than the rest
of a request costs (benchmarks/README.md, "The routes found by their first segment"). Routes whose paths begin
with different literal segments can never match the same address, so only those that share the address's first
segment (and those whose first segment is not literal, wherever they stand) need trying, in the table's own
order: :class:`RouteIndex` keeps one router a segment with just those, and answers exactly as the whole table
would (tests/web/test_route_index.py compares every route's address both ways).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fastapi.routing import APIRouter
from starlette._utils import get_route_path  # the routers' own reading of the path below the root
from starlette.routing import BaseRoute, Match
from starlette.types import Receive, Scope, Send

__all__ = ["RouteIndex", "first_segment", "install"]

REMEMBERED = 4096
"""Addresses :meth:`RouteIndex.fresh_match` remembers at most (all forgotten when full): a site's busy addresses
are its games' pages, a few thousand at most."""

ANY = None
"""The key of a route whose first segment is not literal (a parameter in it): tried for every address."""


def first_segment(path: str) -> str:
    """An address's first segment: ``games`` for ``/games/g/play/FRA``, ``""`` for ``/``."""
    return path[1:].partition("/")[0]


def route_segment(route: BaseRoute) -> str | None:
    """The literal first segment a route's addresses all have; :data:`ANY` when it holds a parameter (or the route
    says nothing of its path: a host's routes)."""
    path = getattr(route, "path", None)
    if not isinstance(path, str) or not path.startswith("/"):
        return ANY
    segment = first_segment(path)
    return ANY if "{" in segment else segment


@dataclass(frozen=True)
class _Index:
    table: list[BaseRoute]
    size: int
    last: BaseRoute | None
    """The table the index was made of, its length and last route: made again when the table changes (a route
    added after the app), told by these three rather than by comparing every route at every request."""
    segments: tuple[tuple[BaseRoute, str | None], ...]
    """Each route of the table, in its order, with its first segment."""
    literal: frozenset[str]
    rest: APIRouter
    """The routes of :data:`ANY` alone: what an address of no literal segment in the table may match."""
    by_segment: dict[str, APIRouter] = field(default_factory=dict)
    """Each segment's router, made when an address first asks for it (a test's app asks for a few of 34)."""
    by_path: dict[tuple[str, str, str], tuple[BaseRoute, Scope] | None] | None = None
    """The route each (method, root path, path) of a request as the server made it goes to
    (:meth:`RouteIndex.fresh_match`); None where a route of the table may match on more than those (one with no
    path of its own, such as a host's)."""


class RouteIndex:
    """The main router's dispatch (its ``middleware_stack``), handing each request to the router of its first
    segment. The main router stays the app's router (``scope["router"]``: links are made from every route)."""

    def __init__(self, main: APIRouter) -> None:
        self.main = main
        self._index: _Index | None = None

    def _made(self) -> _Index:
        table = self.main.routes
        index = self._index
        if (
            index is not None
            and index.table is table
            and index.size == len(table)
            and (not table or index.last is table[-1])
        ):
            return index
        segments = tuple((r, route_segment(r)) for r in table)
        index = _Index(
            table,
            len(segments),
            table[-1] if table else None,
            segments,
            frozenset(s for _, s in segments if s is not None),
            self._router([r for r, s in segments if s is ANY]),
            by_path={} if all(isinstance(getattr(r, "path", None), str) for r in table) else None,
        )
        self._index = index
        return index

    def _router(self, routes: list[BaseRoute]) -> APIRouter:
        router = APIRouter(routes=routes, redirect_slashes=self.main.redirect_slashes)
        router.form_limits = self.main.form_limits
        return router

    def router_for(self, path: str) -> APIRouter:
        """The router whose routes an address (its path below the app's root) is tried against."""
        index = self._made()
        segment = first_segment(path)
        router = index.by_segment.get(segment)
        if router is None:
            if segment not in index.literal:
                return index.rest
            router = self._router([r for r, s in index.segments if s == segment or s is ANY])
            index.by_segment[segment] = router  # two threads making it at once make the same router
        return router

    def matched(self, scope: Scope) -> tuple[BaseRoute, Scope] | None:
        """The route an HTTP request goes to, as the router would choose it (the first of its table that matches
        it fully), with what that route adds to the request's scope; None when none does, or when the table
        is not dispatched by this index (FastAPI's routes of the lowest priority)."""
        if scope["type"] != "http" or getattr(self.main, "_low_priority_routes", None):
            return None
        for route in self.router_for(get_route_path(scope)).routes:
            match, child = route.matches(scope)
            if match is Match.FULL:
                return route, child
        return None

    def fresh_match(self, scope: Scope) -> tuple[BaseRoute, Scope] | None:
        """:meth:`matched` for a request as the server made it (no router has added to its scope), remembered by
        its method, root path and path: the same address asked again (a game's page, read by every visitor) is
        found without trying the routes' patterns, which a route's match depends on alone (one that depends on
        more, a host's route, leaves nothing remembered). Each answer's scope is its own copy."""
        index = self._made()
        memo = index.by_path
        if memo is None or scope["type"] != "http":
            return self.matched(scope)
        key = (scope["method"], scope.get("root_path", ""), scope["path"])
        if key in memo:
            found = memo[key]
        else:
            found = self.matched(scope)
            if len(memo) >= REMEMBERED:
                memo.clear()
            memo[key] = found
        if found is None:
            return None
        route, child = found
        return route, {**child, "path_params": dict(child.get("path_params", {}))}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # FastAPI's routes of the lowest priority (a front end's files) are tried after every other: kept whole.
        if scope["type"] not in ("http", "websocket") or getattr(self.main, "_low_priority_routes", None):
            await self.main.app(scope, receive, send)
            return
        scope.setdefault("router", self.main)
        await self.router_for(get_route_path(scope)).app(scope, receive, send)


def install(main: APIRouter) -> None:
    """The main router dispatching by :class:`RouteIndex` (unless something already wraps its dispatch, which
    stays as it is)."""
    if main.middleware_stack == main.app:
        main.middleware_stack = RouteIndex(main)
