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

A first try's part that answers from memory alone (:data:`NOW`: a page the process holds) is asked sooner still,
before any layer (:class:`App`), which then does the layers' part in that answer itself, by their own functions.

The layers outside it (security headers, hosts, pace, latency) are every answer's, and so is the compression:
an answer compressed already (a kept page, gzipped once) goes out as it is, any other through a compression
layer as the app's (:data:`SMALLEST`). An error raised by a first try hands the request to the app, whose
route meets it again where the app's handlers say it in the reader's terms (a busy database 503, a value it
cannot store 400, a bug 500 with its id in the log), as if no first try had been made.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from fastapi import FastAPI
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette_compress import CompressMiddleware

from dippouch.web.http.encoded import accepted
from dippouch.web.http.middleware import KnownHosts, bodiless, finished, pace_client, timed
from dippouch.web.http.route_index import RouteIndex

__all__ = ["EARLY", "NOW", "SMALLEST", "App", "FirstTry", "Front", "NowTry", "early"]

SMALLEST = 1000
"""The app's compression layer (inside :class:`Front`) and the Front's own leave answers shorter than this, in
bytes, as they are."""

FirstTry = Callable[[Request], Awaitable[Response | None]]

EARLY: dict[object, FirstTry] = {}
"""Each route's first try, by the route's endpoint."""

NowTry = Callable[[Request], Response | None]

NOW: dict[object, NowTry] = {}
"""Each route's answer from memory (part of its first try, asking nothing and awaiting nothing), by the route's
endpoint: what :class:`App` answers before every layer."""


def early(endpoint: object, first: FirstTry, now: NowTry | None = None) -> None:
    """Give the route of ``endpoint`` the first try ``first``; the route calls it itself too (the same answer
    whichever layer reaches it), and goes on where it answers None. ``now``: the part of ``first`` that answers
    from memory alone, tried before every layer (:class:`App`); ``first`` tries it too."""
    EARLY[endpoint] = first
    if now is not None:
        NOW[endpoint] = now


def _index(app: FastAPI, known: RouteIndex | None) -> RouteIndex:
    """The one route table's index (:func:`dippouch.web.http.route_index.install`), as the app's router holds it."""
    if known is not None:
        return known
    stack = app.router.middleware_stack
    return stack if isinstance(stack, RouteIndex) else RouteIndex(app.router)


class App(FastAPI):
    """The web app, whose routes' answers from memory (:data:`NOW`) are given before any layer of it: a visitor's
    game page held by the process, at a reader's pace, cost as much again going through the layers as it did
    to answer (benchmarks/README.md, "A held page answered before every layer"). The layers' part in such an
    answer is theirs, called here: the host named (:class:`~dippouch.web.http.middleware.Hosts`), no body
    (:class:`~dippouch.web.http.middleware.Headers`), the client's pace (:class:`~dippouch.web.http.middleware.Pace`:
    a visitor known by their address, whose request goes at once), the headers every answer leaves with, and
    its time counted under its route (:class:`~dippouch.web.http.middleware.Latency`). Anything else (another
    host, a body, a request held or refused by its pace, a browser that takes no gzip, an answer to be asked or
    made) goes through the layers as before."""

    _route_index: RouteIndex | None = None
    _hosts: KnownHosts | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "GET" and NOW and await self._lane(scope, receive, send):
            return
        await super().__call__(scope, receive, send)

    async def _lane(self, scope: Scope, receive: Receive, send: Send) -> bool:
        """Whether the request was answered from memory, before the layers."""
        started = time.perf_counter()
        host = coding = b""
        for k, v in scope["headers"]:
            if k == b"host":
                host = v
            elif k == b"accept-encoding":
                coding = v
        if self.root_path or not accepted(coding.decode("latin-1"), "gzip") or not bodiless(scope):
            return False
        hosts = self._hosts = self._hosts or KnownHosts()
        if not hosts.named(self.state.site, host):
            return False
        pace = getattr(self.state, "pace", None)
        client = pace_client(scope)
        if pace is not None and not (client.startswith(b"a:") and pace.free(client)):
            return False
        index = self._route_index = _index(self, self._route_index)
        found = index.fresh_match(scope)
        now = NOW.get(getattr(found[0], "endpoint", None)) if found is not None else None
        if found is None or now is None:
            return False
        scope["app"] = self
        scope.update(found[1])
        scope["route"] = found[0]
        try:
            answer = now(Request(scope, receive))
        except Exception:  # the layers and the route meet it again, and say it
            answer = None
        if answer is None:
            return False
        if pace is not None:
            pace.wait(client)  # counted: it goes at once (free, and nothing awaited since)
        status = answer.status_code
        await send(
            {"type": "http.response.start", "status": status, "headers": finished(scope, status, answer.raw_headers)}
        )
        await send({"type": "http.response.body", "body": answer.body})
        timed(scope, status, started)
        return True


class Front:
    """The layer that calls a GET request's route's first try (:data:`EARLY`) before the framework; the index
    is the app's router's (:func:`dippouch.web.http.route_index.install`), found at the first request."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._index: RouteIndex | None = None
        self._compressed = CompressMiddleware(_answer, minimum_size=SMALLEST)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "GET" and EARLY:
            index = self._index = _index(scope["app"], self._index)
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
