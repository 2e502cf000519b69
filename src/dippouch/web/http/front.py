"""Answers given before the web framework: a route's first try, asked by the app's outer layers alone.

A visitor's game page kept in memory or in the database costs little of its own (a dictionary lookup, or one
query awaited on the event loop); at a reader's pace, going through the framework's layers to reach it (the
error and exception layers, the compression, the router, the endpoint's wrapper) cost about as much again
(benchmarks/README.md, "The visitor's game page answered before the framework"). A route may name a first try
(:func:`early`): a coroutine taking the request and answering it, or None when it cannot answer at once
(anything else the route does: another reader, a page to make, an error to say). :class:`Front` finds the
route a GET request goes to in the one route table, in the table's order (:meth:`RouteIndex.matched`), and
calls its first try there; what it does not answer goes on to the app, with whatever the first try left in the
request's state for the route.

The layers outside it (security headers, hosts, pace, latency) are every answer's, and so is the compression:
an answer compressed already (a kept page, gzipped once) goes out as it is, any other through a compression
layer as the app's (:data:`SMALLEST`). An error raised by a first try hands the request to the app, whose
route meets it again where the app's handlers say it in the reader's terms (a busy database 503, a value it
cannot store 400, a bug 500 with its id in the log), as if no first try had been made.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette_compress import CompressMiddleware

from dippouch.web.http.route_index import RouteIndex

__all__ = ["EARLY", "SMALLEST", "FirstTry", "Front", "early"]

SMALLEST = 1000
"""The app's compression layer (inside :class:`Front`) and the Front's own leave answers shorter than this, in
bytes, as they are."""

FirstTry = Callable[[Request], Awaitable[Response | None]]

EARLY: dict[object, FirstTry] = {}
"""Each route's first try, by the route's endpoint."""


def early(endpoint: object, first: FirstTry) -> None:
    """Give the route of ``endpoint`` the first try ``first``; the route calls it itself too (the same answer
    whichever layer reaches it), and goes on where it answers None."""
    EARLY[endpoint] = first


class Front:
    """The layer that calls a GET request's route's first try (:data:`EARLY`) before the framework; the index
    is the app's router's (:func:`dippouch.web.http.route_index.install`), found at the first request."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._index: RouteIndex | None = None
        self._compressed = CompressMiddleware(_answer, minimum_size=SMALLEST)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "GET" and EARLY:
            index = self._index
            if index is None:
                stack = scope["app"].router.middleware_stack
                index = self._index = stack if isinstance(stack, RouteIndex) else RouteIndex(scope["app"].router)
            found = index.matched(scope)
            first = EARLY.get(getattr(found[0], "endpoint", None)) if found is not None else None
            if found is not None and first is not None:
                scope.update(found[1])
                scope["route"] = found[0]  # as the router sets it: the latency's label
                try:
                    answer = await first(Request(scope, receive))
                except Exception:  # said by the app's handlers, which are inside this layer
                    answer = None
                if answer is not None:
                    if "content-encoding" in answer.headers:
                        await answer(scope, receive, send)
                    else:
                        scope[_ANSWER] = answer
                        await self._compressed(scope, receive, send)
                    return
        await self.app(scope, receive, send)


_ANSWER = "dippouch.answer"


async def _answer(scope: Scope, receive: Receive, send: Send) -> None:
    """The first try's answer (left in the scope), as an app for the compression layer to wrap."""
    await scope[_ANSWER](scope, receive, send)
