"""The web app's ASGI layers, around every request: security headers, cache lifetimes, a bound on request
bodies (their size, and how long each part may take to arrive), each client's pace of requests, and request
latency by route for the metrics."""

from __future__ import annotations

import asyncio
import functools
import math
import time
from collections.abc import Callable, Mapping
from html import escape
from urllib.parse import parse_qs, quote

from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from dippouch.core.messages import Msg, msg, quantity
from dippouch.i18n import best_language
from dippouch.saying import say
from dippouch.settings import Site
from dippouch.web.http import stalls
from dippouch.web.http.assets import current
from dippouch.web.http.budget import OnLoop, handled, handling
from dippouch.web.http.metrics import request_seconds
from dippouch.web.http.security import host_prefixed, security_headers
from dippouch.web.views.answers.base import error_data

__all__ = [
    "BODY_TIMEOUT",
    "IMMUTABLE",
    "LARGER_BODIES",
    "MAX_BODY",
    "MAX_IMPORT",
    "Headers",
    "Hosts",
    "KnownHosts",
    "Latency",
    "Pace",
    "RequestPace",
    "bodiless",
    "body_bound",
    "cache_lifetime",
    "finished",
    "pace_client",
    "timed",
    "too_large",
]

I18N_DOMAIN = "site"

MAX_BODY = 2_000_000
MAX_IMPORT = 16_000_000
"""Bytes a game file sent to be imported may hold: a W3K game's export is 4.4 MB after 20 game years (measured,
one version of orders a power and phase), about twice that after 40."""
LARGER_BODIES = {"/coordinate/import": MAX_IMPORT, "/api/games/import": MAX_IMPORT}
"""The paths that may be sent more than :data:`MAX_BODY`: their routes ask who is calling before they read a byte
of the body, so nobody but a coordinator has one this large read."""
BODY_TIMEOUT = 10.0
SLOW_BODY = f"the request body stopped arriving (nothing for {BODY_TIMEOUT:g} seconds)"


def body_bound(path: str) -> int:
    """The most a request's body to ``path`` may hold."""
    return LARGER_BODIES.get(path, MAX_BODY)


def too_large(path: str) -> Msg:
    """The refusal of a body over :func:`body_bound`, with the bound."""
    return msg("request body too large (at most %(most)s bytes)", most=quantity(body_bound(path)))


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
        # A Content-Length over the bound is refused at the first read of the body, none of it read: raised, the
        # refusal is answered by the app's handler as every other, a page in the reader's language to a browser
        # and JSON to the API (answered here, a browser's upload got English JSON).
        most = body_bound(scope.get("path", ""))
        over = any(
            k == b"content-length" and (not v.isdigit() or len(v) > 12 or int(v) > most)
            for k, v in scope.get("headers", [])
        )
        received = 0
        more = True

        async def counted() -> Message:
            nonlocal received, more
            if over:
                raise StarletteHTTPException(413)
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
                if received > most:
                    # An HTTPException: FastAPI passes it through its body parsing to the app's handler, which
                    # says the bound (too_large).
                    raise StarletteHTTPException(413)
            else:
                more = False
            return message

        async def send_with(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = finished(scope, int(message["status"]), message.get("headers", []))
            await send(message)

        await self.app(scope, counted, send_with)


def bodiless(scope: Scope) -> bool:
    """Whether a request says it sends no body (no Content-Length but 0, no Transfer-Encoding): one that
    :class:`Headers` need not count or bound."""
    for k, v in scope.get("headers", []):
        if k == b"transfer-encoding" or (k == b"content-length" and v != b"0"):
            return False
    return True


def finished(scope: Scope, status: int, headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """An answer's headers as they leave (:class:`Headers`): the security headers added, Vary said once, the
    Cache-Control it lacks (:func:`cache_lifetime`), and over HTTPS its cookies named for the host alone."""
    if scope.get("scheme") == "https":
        headers = [(k, host_prefixed(v) if k == b"set-cookie" else v) for k, v in headers]
    return [*one_vary(headers), *security_headers(), *cache_lifetime(scope, status, headers)]


def one_vary(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """The answer's Vary said once, each name once: a route, the page's cache and the compression each add the
    names they depend on (a game page said ``Accept-Language, Cookie, Authorization, Accept-Encoding,
    Accept-Language, Cookie, Accept-Encoding``)."""
    said = [v for k, v in headers if k == b"vary"]
    if len(said) < 2 and not any(b"," in v for v in said):
        return headers
    value = _one_vary(tuple(said))
    rest = [(k, v) for k, v in headers if k != b"vary"]
    return [*rest, (b"vary", value)] if value else rest


@functools.lru_cache(maxsize=64)
def _one_vary(said: tuple[bytes, ...]) -> bytes:
    """The names of Vary values said, each once, in the order first said: the app says a few combinations."""
    names: dict[bytes, bytes] = {}
    for value in said:
        for name in value.split(b","):
            name = name.strip()
            if name:
                names.setdefault(name.lower(), name)
    return b", ".join(names.values())


IMMUTABLE = b"public, max-age=31536000, immutable"
"""A static file named by its content's hash (web/http/assets.py): kept a year, never asked for again."""


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


PATH_SAFE = "/:@!$&'()*+,;=-._~"
"""What a path keeps unquoted when it is written into a link again: RFC 3986's path characters, but ``%`` (the
path is read decoded, so a ``%`` in it was sent as ``%25`` and goes back so)."""


def reader_language(scope: Scope) -> str:
    """The language of a request the layers refuse before the app: the reader's choice (its cookie), else their
    browser's."""
    chosen: str | None = None
    accept: str | None = None
    for k, v in scope.get("headers", []):
        if k == b"cookie":
            for part in v.split(b";"):
                name, _, value = part.strip().partition(b"=")
                if name == b"lang":
                    chosen = value.decode("latin-1")
        elif k == b"accept-language":
            accept = v.decode("latin-1")
    return best_language(accept, chosen)


def wants_page(scope: Scope) -> bool:
    """Whether a request the layers refuse is a browser's for a page (it accepts HTML, and is not the API's), to
    be answered with a page rather than JSON, as the app tells them apart."""
    if str(scope.get("path", "")).startswith("/api/"):
        return False
    accept = next((v for k, v in scope.get("headers", []) if k == b"accept"), b"")
    return not accept.startswith(b"application/json") and b"text/html" in accept


def layer_page(
    said: Msg,
    lang: str,
    status: int,
    *,
    headers: Mapping[str, str] | None = None,
    link: str | None = None,
    again: int | None = None,
) -> HTMLResponse:
    """A refusal of the layers as a small page in the reader's language: nothing of the site's own pages (their
    header names who is signed in, and a refused host is perhaps another site's page reading ours), ``link``
    where to go instead, ``again``: seconds after which the page loads itself again."""
    text = escape(say(said, lang, "web"))
    body = [
        "<!doctype html>",
        f'<html lang="{escape(lang)}">',
        '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="color-scheme" content="light dark">',  # the browser's own colours follow a dark system
        f'<meta http-equiv="refresh" content="{again}">' if again is not None else "",
        f"<title>{status} · dippouch</title></head>",
        f"<body><h1>dippouch</h1><p>{text}</p>",
        f'<p><a href="{escape(link)}">{escape(link)}</a></p>' if link else "",
        "</body></html>",
    ]
    return HTMLResponse("\n".join(b for b in body if b), status_code=status, headers=dict(headers or {}))


class Hosts:
    """Requests for any host but the site's own are refused before the app sees them (the site is the app's
    ``state.site``, read at each request, so a test server can name the port it was given).

    Links are made from the configured address, not from ``Host``; this refusal is the second wall, and it
    keeps a page elsewhere that rebinds its own name to this machine's address from reading our pages as
    its own origin."""

    UNNAMED = ("/healthz", "/metrics")
    """Asked for by the machine's own health checks and the operator's Prometheus under internal names
    (``127.0.0.1:8000``, ``web:8000``); they make no links, and ``/metrics`` checks its client itself."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._known = KnownHosts()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or scope.get("path") in self.UNNAMED:
            await self.app(scope, receive, send)
            return
        site = scope["app"].state.site
        host = next((v for k, v in scope.get("headers", []) if k == b"host"), b"")
        if self._known.named(site, host):
            await self.app(scope, receive, send)
            return
        name = host.decode("ascii") if host.isascii() else ""
        shown = name[:80] if name.isprintable() else "(unreadable)"
        refused = msg(
            "this server does not answer for host %(host)s; it is %(site)s", host=repr(shown), site=site.public_url
        )
        resp: Response
        if wants_page(scope):
            # A person who typed the machine's address or an old name: told where the site is, with a link to
            # the same page there (a GET's; the path alone, quoted).
            there = site.public_url + quote(str(scope.get("path", "/")), safe=PATH_SAFE)
            link = there if scope.get("method") in ("GET", "HEAD") else site.public_url + "/"
            resp = layer_page(refused, reader_language(scope), 400, link=link)
        else:
            resp = JSONResponse(error_data(refused, "en", 400), status_code=400)
        await resp(scope, receive, send)


class KnownHosts:
    """``Host`` values that name the site, kept as sent: a site answers to a few names, and every request sends
    one. Only values that name it are kept (others are whatever a client makes up)."""

    KEPT = 16

    def __init__(self) -> None:
        self._site: object = None
        self._allowed: set[bytes] = set()

    def named(self, site: Site, host: bytes) -> bool:
        """Whether ``host`` (a request's header as sent, empty without one) names ``site``."""
        if site is self._site and host in self._allowed:
            return True
        if not host.isascii() or not site.allows(host.decode("ascii")):
            return False
        if site is not self._site or len(self._allowed) >= self.KEPT:
            self._site, self._allowed = site, set()
        self._allowed.add(host)
        return True


class Latency(_HttpLayer):
    """Request latency by route, as a plain ASGI layer (Starlette's BaseHTTPMiddleware would run the app
    in a task group and turn an exception raised while the body is read into an ExceptionGroup: a 500)."""

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
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
            timed(scope, status, started)


def timed(scope: Scope, status: int, started: float) -> None:
    """A request's time since ``started`` (:func:`time.perf_counter`) counted under its route's pattern
    (``/games/{name}``, not the address: one series per page, not per game) and, when slow, traced
    (:mod:`dippouch.web.http.stalls`)."""
    path = getattr(scope.get("route"), "path", None) or "unmatched"
    ended = time.perf_counter()
    request_seconds(scope.get("method", ""), path, status).observe(ended - started)
    if ended - started > stalls.SLOW and (tracing := stalls.sampler()) is not None:
        tracing.slow(scope.get("method", ""), scope.get("path", ""), status, started, ended)


class RequestPace:
    """How fast each client may send requests: ``rate`` a second on average, ``burst`` at once, by the generic
    cell rate algorithm (a request is due ``1 / rate`` after the one before it; up to ``burst`` may come early).
    A request that comes earlier than that is held until it is due, at most ``patience`` seconds (a tarpit: an
    ``asyncio.sleep``, which costs the server no computing and a script that sends as fast as it is answered its
    speed); one that would wait longer is refused and does not count.

    What one request may cost is bounded elsewhere (the body's size, the work budget); this bounds how many, so
    a script that sends as fast as it is answered, each answer a cheap refusal, cannot turn its refusals
    into the server's whole time. Kept in memory, per server process, like the rate limits.

    And how many at once: a session's or a key's requests are worked on ``at_once`` at a time, the others
    waiting their turn in the event loop (:meth:`turn`). The server's threads share one interpreter, and a
    player's request, which gives the interpreter up at each statement it sends the database, waited for it
    behind every thread a person's script kept busy (four threads: four requests computing at once). A client
    known by its address alone is not held: many people may share one."""

    KEPT = 100_000

    def __init__(
        self,
        rate: float,
        burst: float,
        *,
        patience: float = 2.0,
        at_once: int = 0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.interval = 1.0 / rate
        self.tolerance = (burst - 1) * self.interval
        self.patience = patience
        self.clock = clock
        self.due: dict[bytes, float] = {}
        """Per client, when its next request is due at the average rate (the theoretical arrival time)."""
        self.at_once = at_once
        self.turns: dict[bytes, tuple[asyncio.Semaphore, list[int]]] = {}
        """Per client with requests in hand: its turns, and how many of its requests hold or wait for one."""

    async def turn(self, client: bytes) -> Callable[[], None]:
        """Wait for one of ``client``'s turns (:attr:`at_once` of them) and answer what gives it back (once; again
        does nothing): the request holds it while it is worked on, until its answer begins, so a stream (press
        as it arrives) holds none while it lasts. A client known by its address alone (``a:``), or any with no
        limit set, goes at once."""
        if self.at_once <= 0 or client.startswith(b"a:"):
            return _nothing
        got = self.turns.get(client)
        if got is None:
            got = self.turns[client] = (asyncio.Semaphore(self.at_once), [0])
        sem, users = got

        def leave() -> None:
            users[0] -= 1
            if users[0] == 0:
                del self.turns[client]

        users[0] += 1
        try:
            await sem.acquire()
        except BaseException:
            leave()
            raise
        held = [True]

        def give_back() -> None:
            if held[0]:
                held[0] = False
                sem.release()
                leave()

        return give_back

    def free(self, client: bytes) -> bool:
        """Whether a request of ``client`` would go at once (:meth:`wait` 0), not counting it."""
        now = self.clock()
        return max(self.due.get(client, now), now) - self.tolerance <= now

    def wait(self, client: bytes) -> float | None:
        """Seconds ``client``'s request must wait for its turn (0: now), or None when it would wait longer
        than ``patience`` (refused, and not counted)."""
        now = self.clock()
        due = max(self.due.get(client, now), now)
        wait = max(0.0, due - self.tolerance - now)
        if wait > self.patience:
            return None
        if len(self.due) >= self.KEPT:  # forget clients whose requests are all in the past
            for k in [k for k, v in self.due.items() if v <= now][: self.KEPT // 2]:
                del self.due[k]
        self.due[client] = due + self.interval
        return wait

    def retry_after(self, client: bytes) -> int:
        """Whole seconds until ``client`` may send again without being refused."""
        due = self.due.get(client, 0.0)
        return max(1, math.ceil(due - self.tolerance - self.patience - self.clock()))


def _nothing() -> None:
    pass


def pace_client(scope: Scope) -> bytes:
    """Who a request is from, for its pace: the session cookie or the key it sends (a person's script goes no
    faster from many addresses), else its address."""
    for k, v in scope.get("headers", []):
        if k == b"authorization" and bytes(v[:7]).lower() == b"bearer ":
            return b"k:" + bytes(v[7:200])
        if k == b"cookie":
            for part in bytes(v).split(b";"):
                name, _, value = part.strip().partition(b"=")
                if name in (b"dp_session", b"__Host-dp_session") and value:
                    return b"s:" + value[:200]
    client = scope.get("client")
    return b"a:" + (client[0].encode() if client else b"unknown")


class Pace(_HttpLayer):
    """Each client's requests at the pace the app's :class:`RequestPace` (``app.state.pace``; None: no pace, as
    with the rate limits off) allows; static files and the health and metrics checks are not counted (they
    cost next to nothing and a page brings several). A signed-in person's paced request is charged to their
    work budget too (:meth:`dippouch.web.http.budget.WorkBudget.charge_request`)."""

    FREE = ("/static/", "/healthz", "/metrics")

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        pace: RequestPace | None = getattr(scope["app"].state, "pace", None)
        if pace is None or str(scope.get("path", "")).startswith(self.FREE):
            await self.app(scope, receive, send)
            return
        client = pace_client(scope)
        wait = pace.wait(client)
        if wait is None:
            await self.refuse(scope, receive, send, pace.retry_after(client))
            return
        if wait > 0:
            await asyncio.sleep(wait)
        give_back = await pace.turn(client)

        async def answering(message: Message) -> None:
            if message["type"] == "http.response.start":
                give_back()  # worked on until its answer begins: a stream's life holds no turn
            await send(message)

        token = handling()
        measured: OnLoop[None] = OnLoop(self.app(scope, receive, answering))
        try:
            await measured
        finally:
            give_back()
            cost = handled(token, measured.seconds)
        budget = getattr(scope["app"].state, "budget", None)
        viewer = scope.get("state", {}).get("viewer")
        person = getattr(viewer, "person_id", None)
        # Asked as fast as the pace allows, even cheap pages add up: each is charged to the person's work budget
        # (the key its routes charge expensive work to: dippouch.web.http.deps.asker), what its endpoint took. The
        # charges go to the shared ledger in batches, written from a thread: the loop never waits for the database.
        if budget is not None and person is not None and budget.charge_request(f"person {person}", cost):
            await run_in_threadpool(budget.send)

    @staticmethod
    async def refuse(scope: Scope, receive: Receive, send: Send, retry: int) -> None:
        """429 in the reader's language (their choice's cookie, else their browser's), said before the app
        reads the body or asks the store anything."""
        slower = msg(
            "You are sending requests faster than this site allows one visitor (at most %(rate)s a second on "
            "average); wait %(seconds)s s and go on more slowly.",
            rate=quantity(1 / scope["app"].state.pace.interval),
            seconds=retry,
        )
        headers = {"Retry-After": str(retry), "Connection": "close"}
        lang = reader_language(scope)
        resp: Response
        if wants_page(scope):
            resp = layer_page(slower, lang, 429, headers=headers, again=retry)
        else:
            resp = JSONResponse(error_data(slower, lang, 429), status_code=429, headers=headers)
        await resp(scope, receive, send)
