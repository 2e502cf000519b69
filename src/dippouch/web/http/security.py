"""The web's defences, in one place: who the caller is, CSRF, rate limits, security headers, errors.

Every refusal is an exception of :class:`WebError`'s family; the app turns each into a page or a JSON
answer with the same plain message, never a traceback.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from starlette.requests import Request

from dippouch.core.messages import N_, Msg, as_msg, msg
from dippouch.store.access import STAND_IN, Grant

__all__ = [
    "CSRF_COOKIE",
    "SESSION_COOKIE",
    "BadInput",
    "Busy",
    "Forbidden",
    "NeedsKey",
    "RateLimiter",
    "TooMany",
    "Viewer",
    "WebError",
    "WebNotFound",
    "check_csrf",
    "csrf_cookie",
    "csrf_field",
    "csrf_for_session",
    "flash_cookie",
    "host_prefixed",
    "over_https",
    "request_state",
    "security_headers",
    "session_cookie",
    "session_token",
]

SESSION_COOKIE = "dp_session"
CSRF_COOKIE = "dp_csrf"
FLASH_COOKIE = "dp_flash"
HOST_PREFIX = "__Host-"
"""Over https the cookies are named ``__Host-dp_session`` and ``__Host-dp_csrf``: a browser keeps such a
cookie only if it was set Secure, with Path=/ and no Domain, by this very host, so a neighbouring subdomain
or a plain-http page on the network cannot plant one (cookie tossing). Plain http (a localhost server) keeps
the plain names, which browsers refuse to prefix."""
CSRF_FIELD = "csrf"
CSRF_HEADER = "x-csrf-token"

I18N_DOMAIN = "site"
"""The catalogue of this module's refusals (locale/<lang>/LC_MESSAGES/site.po)."""

COUNTED = (
    N_("failed sign-ins"),
    N_("sign-in links asked for"),
    N_("sign-in links asked for this address"),
    N_("sign-in attempts"),
    N_("practice games started"),
    N_("adjudication requests"),
    N_("sandboxes started or steps adjudicated"),
    N_("sandbox changes"),
    N_("submissions"),
    N_("line checks"),
)
"""What the rate limits count (:meth:`RateLimiter.hit`'s ``what``), said in the reader's words inside the
refusal: a new one is added here, for the catalogue."""


class WebError(Exception):
    status = 400

    def __init__(self, message: Msg | str) -> None:
        self.msg = as_msg(message)
        self.message = str(self.msg)
        """The English, as logs and the JSON API's ``error`` read it (said in a page's language from :attr:`msg`)."""
        super().__init__(self.message)


class BadInput(WebError):
    status = 400


class Forbidden(WebError):
    status = 403


class NeedsKey(WebError):
    """A call that acts for someone, made with no key and no session: 401, before any CSRF check (there is
    nothing to protect, and "needs a key" is what the caller has to hear)."""

    status = 401


class WebNotFound(WebError):
    status = 404


class TooMany(WebError):
    status = 429

    def __init__(self, message: Msg | str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


@dataclass
class Viewer:
    """The caller: the grants of their session cookie or bearer key (none for an anonymous visitor)."""

    grants: list[Grant] = field(default_factory=list)
    session_token: str | None = None
    by_bearer: bool = False
    person_id: int | None = None
    """The person signed in on this browser (their seats are among ``grants``), if any."""

    @property
    def signed_in(self) -> bool:
        """Holding any key or seat, or signed in as a person (who may have neither yet)."""
        return bool(self.grants) or self.person_id is not None

    def plays(self, game: str, power: str) -> bool:
        return any(g.role == "player" and g.game == game and g.power == power for g in self.grants)

    def powers(self, game: str) -> list[str]:
        return [g.power for g in self.grants if g.role == "player" and g.game == game and g.power]

    def coordinates(self, game: str | None) -> bool:
        """A game's coordinator, or the installation's (``game=None`` asks for the installation's)."""
        return any(
            g.role == "coordinator" and (g.game is None or (game is not None and g.game == game)) for g in self.grants
        )

    def coordinated_games(self) -> list[str | None]:
        return [g.game for g in self.grants if g.role == "coordinator"]

    def in_game(self, game: str) -> bool:
        """Plays, coordinates, or stands in for a seat of ``game`` today: who may open a private game's pages
        (what each may read there is decided by the pages themselves)."""
        return (
            self.coordinates(game)
            or bool(self.powers(game))
            or any(g.role == STAND_IN and g.game == game for g in self.grants)
        )


# --------------------------------------------------------------------------------------------------
# Cookies


def request_state(request: Request) -> dict[str, Any]:
    """What ``request.state`` holds, as the dict it is kept in: a name asked for and absent costs no
    AttributeError, each request asks for several (its language, its form token, its viewer)."""
    return request.scope.setdefault("state", {})  # type: ignore[no-any-return]


def over_https(request: Request) -> bool:
    """Whether the request came over https (as the server, behind a trusted proxy its ``X-Forwarded-Proto``, says
    in the scope): what ``request.url.scheme`` reads, without building the URL each time. The site's cookies are
    then ``__Host-`` prefixed and Secure."""
    return request.scope.get("scheme") == "https"


def session_cookie(request: Request) -> str:
    """The session cookie's name for this request (``__Host-`` prefixed over https)."""
    return HOST_PREFIX + SESSION_COOKIE if over_https(request) else SESSION_COOKIE


def csrf_cookie(request: Request) -> str:
    return HOST_PREFIX + CSRF_COOKIE if over_https(request) else CSRF_COOKIE


def flash_cookie(request: Request) -> str:
    """The one-time message's cookie (``__Host-`` prefixed over https, so a cookie tossed in by another host of
    the domain cannot put words on our pages). Answers set it as ``dp_flash``; :func:`host_prefixed` renames it
    on the way out."""
    return HOST_PREFIX + FLASH_COOKIE if over_https(request) else FLASH_COOKIE


def host_prefixed(header: bytes) -> bytes:
    """A ``Set-Cookie`` value for ``dp_flash`` as an https answer sends it: ``__Host-`` prefixed and ``Secure``
    (the helpers that set it are not handed the request, and need not be)."""
    name = FLASH_COOKIE.encode() + b"="
    if not header.startswith(name):
        return header
    out = HOST_PREFIX.encode() + header
    return out if b"; secure" in out.lower() else out + b"; Secure"


def session_token(request: Request) -> str | None:
    """The browser's session secret, from the cookie of this scheme's name only: over https a plain
    ``dp_session`` (which anyone on the same site could have planted) is not read."""
    return request.cookies.get(session_cookie(request)) or None


# --------------------------------------------------------------------------------------------------
# CSRF: a token every form echoes (and script requests send in a header), and same-origin checks.
#
# A signed-in browser's token is derived from its session secret (an HMAC keyed by it), so it is bound to
# the session: a token read or planted elsewhere does not fit another session, and it changes at every
# sign-in. A browser without a session (the sign-in form) gets a random token in a cookie to echo. Forms
# carry the token masked with a fresh random pad on every page, so a compressed page never repeats the
# same secret bytes (BREACH); the unmasked token is accepted too (scripts that read the cookie).

_CSRF_LABEL = b"dippouch csrf token v1"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes | None:
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (ValueError, TypeError):
        return None


def csrf_for_session(session: str) -> str:
    """The CSRF token of the session whose secret is ``session``."""
    return _b64(hmac.new(session.encode(), _CSRF_LABEL, hashlib.sha256).digest())


def csrf_token(request: Request) -> str:
    """This browser's CSRF token: its session's, else the CSRF cookie's value, else a new one the response
    will set. The CSRF cookie is (re)set to the token when it differs."""
    state = request_state(request)
    token = state.get("csrf")
    if token is None:
        cookie = request.cookies.get(csrf_cookie(request), "")
        session = session_token(request)
        if session:
            token = csrf_for_session(session)
        else:
            token = cookie if 30 <= len(cookie) <= 100 and cookie.isascii() else secrets.token_urlsafe(32)
        state["csrf"] = token
        state["csrf_new"] = token != cookie
    return str(token)


def csrf_field(request: Request) -> str:
    """The token as a form or page carries it: masked with a new random pad each time (BREACH)."""
    raw = csrf_token(request).encode()
    pad = secrets.token_bytes(len(raw))
    return "m." + _b64(pad + _xor(pad, raw))


def _xor(a: bytes, b: bytes) -> bytes:
    """``a`` and ``b`` (of one length) combined byte by byte, done as one big number: every page's form token is
    masked so, and a byte at a time is some 45 steps of the interpreter each answer."""
    return (int.from_bytes(a) ^ int.from_bytes(b)).to_bytes(len(a))


def _unmask(sent: str) -> str:
    if not sent.startswith("m.") or len(sent) > 300:
        return sent
    data = _unb64(sent[2:])
    if not data or len(data) % 2:
        return sent
    half = len(data) // 2
    return _xor(data[:half], data[half:]).decode("latin-1")


def _expected_csrf(request: Request) -> str | None:
    session = session_token(request)
    if session:
        return csrf_for_session(session)
    cookie = request.cookies.get(csrf_cookie(request), "")
    return cookie or None


def _same_origin(request: Request) -> bool:
    origin = request.headers.get("origin")
    if origin is None:
        return True  # browsers send Origin on cross-site posts; its absence is a same-site or non-browser call
    if origin == "null":
        return False
    host = request.headers.get("host", "")
    return origin.split("://", 1)[-1] == host


def check_csrf(request: Request, sent: str | None) -> None:
    """Refuse a state-changing request from a browser that did not get its form from us."""
    if not _same_origin(request):
        raise Forbidden(
            msg(
                "this request came from another site (Origin %(origin)s, host %(host)s); it was refused",
                origin=repr(request.headers.get("origin")),
                host=repr(request.headers.get("host")),
            )
        )
    expected = _expected_csrf(request)
    if not expected or not sent or not hmac.compare_digest(expected.encode(), _unmask(str(sent)).encode()):
        raise Forbidden(
            msg("the form's security token is missing or out of date (CSRF check); reload the page and send it again")
        )


# --------------------------------------------------------------------------------------------------
# Rate limits: a sliding window per (bucket, client), in memory (one server process; see docs)


class RateLimiter:
    def __init__(self, limits: dict[str, tuple[int, float]], clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.clock = clock
        self.hits: dict[tuple[str, str], deque[float]] = {}
        self.lock = threading.Lock()

    def hit(self, bucket: str, client: str, what: str, *, count_it: bool = True) -> None:
        """Refuse (429) a client that used up its allowance in the window; else count this request
        (unless ``count_it`` is false: the caller counts only failures, with :meth:`note`)."""
        if bucket not in self.limits:
            return
        count, window = self.limits[bucket]
        now = self.clock()
        with self.lock:
            q = self.hits.setdefault((bucket, client), deque())
            while q and q[0] <= now - window:
                q.popleft()
            if len(q) >= count:
                wait = max(1, int(q[0] + window - now + 1))
                raise TooMany(
                    msg(
                        "too many %(counted)s from you: at most %(count)s in %(seconds)s seconds; try again in "
                        "%(wait)s s",
                        counted=Msg(what),
                        count=count,
                        seconds=int(window),
                        wait=wait,
                    ),
                    wait,
                )
            if count_it:
                q.append(now)
            if len(self.hits) > 100_000:  # forget idle clients rather than grow without bound
                for key in [k for k, v in self.hits.items() if not v or v[-1] <= now - window][:50_000]:
                    del self.hits[key]

    def failed(self, bucket: str, client: str, what: str) -> None:
        """Count a failure (a wrong key): refused (429) once the client has used up its allowance, so
        guessing stops there while right keys, which never reach here, are still accepted."""
        self.hit(bucket, client, what, count_it=False)
        self.note(bucket, client)

    def note(self, bucket: str, client: str) -> None:
        if bucket in self.limits:
            with self.lock:
                self.hits.setdefault((bucket, client), deque()).append(self.clock())


class Busy(WebError):
    status = 503

    def __init__(self, message: Msg | str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def client_id(request: Request) -> str:
    return request.client.host if request.client else "unknown"


# --------------------------------------------------------------------------------------------------
# Headers

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)


_SECURITY_HEADERS: Sequence[tuple[bytes, bytes]] = (
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=()"),
    (b"cross-origin-opener-policy", b"same-origin"),
)
"""The headers every answer carries (:class:`dippouch.web.http.middleware.Headers`)."""


def security_headers() -> Sequence[tuple[bytes, bytes]]:
    return _SECURITY_HEADERS
