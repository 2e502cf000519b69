"""The web app's ASGI layers, around every request: security headers, cache lifetimes, and a bound on request
bodies (their size, and how long each part may take to arrive), and request latency by route for the metrics."""

from __future__ import annotations

import asyncio
import time
from urllib.parse import parse_qs

from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from dippouch.web.assets import current
from dippouch.web.security import host_prefixed, security_headers

__all__ = ["BODY_TIMEOUT", "IMMUTABLE", "MAX_BODY", "Headers", "Hosts", "Latency", "cache_lifetime"]

MAX_BODY = 2_000_000
TOO_LARGE = f"request body too large (at most {MAX_BODY:,} bytes)"
BODY_TIMEOUT = 10.0
SLOW_BODY = f"the request body stopped arriving (nothing for {BODY_TIMEOUT:g} seconds)"


class _HttpLayer:
    """An ASGI layer that acts on HTTP requests only: the rest (lifespan, websockets) pass through untouched."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self.http(scope, receive, send)

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        raise NotImplementedError


class Headers(_HttpLayer):
    """Security headers on every answer, and a size limit on request bodies: refused before reading when
    Content-Length says so, and counted as they arrive when it is absent (a chunked body has none)."""

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        for k, v in scope.get("headers", []):
            if k == b"content-length" and (not v.isdigit() or len(v) > 12 or int(v) > MAX_BODY):
                resp = JSONResponse({"error": TOO_LARGE, "status": 413}, status_code=413)
                await resp(scope, receive, send)
                return
        received = 0
        more = True

        async def counted() -> Message:
            nonlocal received, more
            if more:  # the body is still arriving: each part must come within BODY_TIMEOUT (slow clients)
                try:
                    message = await asyncio.wait_for(receive(), BODY_TIMEOUT)
                except TimeoutError:
                    more = False
                    raise StarletteHTTPException(408, SLOW_BODY) from None
            else:  # after the body, receive() waits for a disconnect for as long as the answer takes
                message = await receive()
            if message["type"] == "http.request":
                more = bool(message.get("more_body", False))
                received += len(message.get("body", b""))
                if received > MAX_BODY:
                    # An HTTPException: FastAPI passes it through its body parsing to the app's handler.
                    raise StarletteHTTPException(413, TOO_LARGE)
            else:
                more = False
            return message

        extra = security_headers()

        https = scope.get("scheme") == "https"

        async def send_with(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = message.get("headers", [])
                if https:
                    headers = [(k, host_prefixed(v) if k == b"set-cookie" else v) for k, v in headers]
                lifetime = cache_lifetime(scope, int(message["status"]), headers)
                message["headers"] = [*headers, *extra, *lifetime]
            await send(message)

        await self.app(scope, counted, send_with)


IMMUTABLE = b"public, max-age=31536000, immutable"
"""A static file named by its content's hash (web/assets.py): kept a year, never asked for again."""


def cache_lifetime(scope: Scope, status: int, headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """The Cache-Control an answer lacks: a year for a static file whose address carries its own hash; asked
    again each time (``no-cache``: a 304 while it is unchanged) for a static file named without it, or with an
    old hash, and for every page (a page shows the game as it is now). An answer that says already is left
    as it is (the maps' own year, the private pages' no-store), and so is a refused page (a 404 says nothing of the
    address's lifetime: the maps' tests hold it to that)."""
    if any(k == b"cache-control" for k, _ in headers):
        return []
    path = str(scope.get("path", ""))
    if path.startswith("/static/"):
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        fresh = status == 200 and current(path.removeprefix("/static/"), (query.get("v") or [""])[0])
        return [(b"cache-control", IMMUTABLE if fresh else b"no-cache")]
    html = any(k == b"content-type" and v.startswith(b"text/html") for k, v in headers)
    return [(b"cache-control", b"no-cache")] if html and status == 200 else []


class Hosts:
    """Requests for any host but the site's own are refused before the app sees them (the site is the app's
    ``state.site``, read at each request, so a test server can name the port it was given).

    Links are made from the configured address, not from ``Host``; this refusal is the second wall, and it
    keeps a page elsewhere that rebinds its own name to this machine's address from reading our pages as
    its own origin."""

    UNNAMED = ("/healthz", "/metrics")
    """Asked for by the machine's own health checks and the operator's Prometheus under internal names
    (``127.0.0.1:8000``, ``web:8000``); they make no links, and ``/metrics`` checks its client itself."""

    KEPT = 16
    """``Host`` values already allowed, kept as sent: a site answers to a few names, and every request sends one.
    Only allowed values are kept (refused ones are whatever a client makes up)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._site: object = None
        self._allowed: set[bytes] = set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or scope.get("path") in self.UNNAMED:
            await self.app(scope, receive, send)
            return
        site = scope["app"].state.site
        host = next((v for k, v in scope.get("headers", []) if k == b"host"), b"")
        if site is self._site and host in self._allowed:
            await self.app(scope, receive, send)
            return
        try:
            name = host.decode("ascii")
        except UnicodeDecodeError:
            name = ""
        if not site.allows(name):
            shown = name[:80] if name.isprintable() else "(unreadable)"
            resp = JSONResponse(
                {
                    "error": f"this server does not answer for host {shown!r}; it is {site.public_url}",
                    "status": 400,
                },
                status_code=400,
            )
            await resp(scope, receive, send)
            return
        if site is not self._site or len(self._allowed) >= self.KEPT:
            self._site, self._allowed = site, set()
        self._allowed.add(host)
        await self.app(scope, receive, send)


class Latency(_HttpLayer):
    """Request latency by route, as a plain ASGI layer (Starlette's BaseHTTPMiddleware would run the app
    in a task group and turn an exception raised while the body is read into an ExceptionGroup: a 500)."""

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        from dippouch.web.metrics import REQUEST_SECONDS

        started = time.perf_counter()
        status = 500

        async def send_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, send_status)
        finally:
            # The route's pattern (/games/{name}), not the address: one series per page, not per game.
            path = getattr(scope.get("route"), "path", None) or "unmatched"
            REQUEST_SECONDS.labels(scope.get("method", ""), path, str(status)).observe(time.perf_counter() - started)
