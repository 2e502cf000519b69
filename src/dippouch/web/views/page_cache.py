"""A game's pages made once per state of the game and shared by every web process (the database keeps them:
:mod:`dippouch.store.page_cache`), and the conditional requests that let a browser polling a page get "304 Not
Modified" for one query and no rendering.

A shared page's version names everything it was made from: the game's state (its change marker and page
version, whether the open phase's deadline has passed and what it then waits for) and the code that made it
(the templates' and catalogues' digest: a new release never serves a page an old one made). An ETag adds the
reader's own part (language, session, CSRF cookie, time zone), so one reader's answer never matches another's
request, and a signed-in person's page is never taken for a visitor's.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import format_datetime, parsedate_to_datetime
from functools import cache
from pathlib import Path
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request

from dippouch.core.messages import msg
from dippouch.i18n import LOCALE_DIR
from dippouch.store import page_cache as store_pages
from dippouch.store.db import DatabaseBusy
from dippouch.store.loop_reads import LoopReads
from dippouch.store.page_cache import Shared
from dippouch.web.http.deps import CSRF_PLACEHOLDER, VARY, language, time_zone
from dippouch.web.http.encoded import Gapped, Pieces, cut
from dippouch.web.http.metrics import shared_pages
from dippouch.web.http.security import (
    Viewer,
    WebNotFound,
    csrf_token,
    flash_cookie,
    request_state,
    session_token,
)
from dippouch.web.http.service import Web

__all__ = [
    "Current",
    "conditional",
    "current",
    "current_on_loop",
    "deadline_forms",
    "deadline_shown",
    "etag_of",
    "game_headers",
    "has_deadline_forms",
    "hold",
    "kept_pieces",
    "last_modified",
    "made",
    "made_deflated",
    "not_modified",
    "personal",
    "read_once",
    "required",
    "shown",
    "unchanged",
    "unmodified_since",
]

log = logging.getLogger(__name__)

HERE = Path(__file__).resolve().parent.parent


@cache
def code_digest() -> str:
    """What the running code makes pages with, in a few characters: the version, and every template's and
    catalogue's content (read once a process: a deployment restarts it). By content, not modification times:
    processes on two hosts of one release share their pages, where the files' times would differ."""
    from dippouch import __version__

    h = hashlib.sha256(__version__.encode())
    for root, pattern in ((HERE / "templates", "*.html"), (LOCALE_DIR, "*.po")):
        for f in sorted(root.rglob(pattern)):
            h.update(str(f.relative_to(root)).encode())
            h.update(f.read_bytes())
    return h.hexdigest()[:12]


@dataclass(frozen=True)
class Current:
    """A game's state now, as a page of one kind and language is versioned, and that page as last kept."""

    shared: Shared
    version: str
    kept_as: str
    """The version the page is kept under: :attr:`version`, but for a kind made with its deadline box in every
    form (:data:`DUE_APART`), which is kept across its deadline."""
    due: bool
    """Whether the deadline has passed (part of :attr:`version`, so of the ETag and this process's memory)."""
    changed: datetime | None = field(default=None, compare=False)
    """When what the page shows last changed (:func:`current`), for Last-Modified."""
    passing: tuple[str, datetime] | None = field(default=None, compare=False)
    """(:attr:`version`, :attr:`changed`) once the deadline passes, the state as it is; None without a deadline
    ahead."""

    @property
    def reading(self) -> tuple[str, Any]:
        """The game's (visibility, change marker) as read with the page: a page made to be kept under this
        version is made of this very reading (:meth:`dippouch.web.http.service.Web.require_visible`'s ``reading``)."""
        return self.shared.visibility, self.shared.marker

    @property
    def kept(self) -> bytes | None:
        """The kept page if it was made for this very state (:attr:`kept_as`), else None: its text in UTF-8, as the
        database sent it (a visitor's page is served from its bytes)."""
        return self.shared.data if self.made else None

    @property
    def made(self) -> bool:
        """Whether a page is kept for this very state (:attr:`kept_as`)."""
        return self.shared.version == self.kept_as


@dataclass
class _Started:
    """When this app first made an answer with Last-Modified (per app: :meth:`Web.kept`): an answer's time is
    never earlier, so a browser that kept an answer of the code that ran before is not told it is unchanged."""

    at: datetime | None = None


def current(web: Web, name: str, kind: str, lang: str, *, page: bool = True) -> Current | None:
    """The game's state and its kept page (without ``page``: whether one is kept for this state alone,
    :attr:`Current.made`), in one query. None: no such game."""
    began = time.monotonic()
    got = store_pages.shared_page(web.read, name, kind, lang, page=page)
    return None if got is None else _current(web, name, kind, lang, got, began)


async def current_on_loop(web: Web, reads: LoopReads, name: str, kind: str, lang: str) -> Current | None:
    """:func:`current`, its query sent and awaited on the event loop (:mod:`dippouch.store.loop_reads`)."""
    began = time.monotonic()
    got = await store_pages.shared_page_on_loop(reads, name, kind, lang)
    return None if got is None else _current(web, name, kind, lang, got, began)


async def currents_on_loop(web: Web, reads: LoopReads, names: list[str], kind: str, lang: str) -> dict[str, Current]:
    """:func:`current_on_loop` of each of ``names``, in one query (a game not there: left out)."""
    began = time.monotonic()
    got = await store_pages.shared_pages_on_loop(reads, names, kind, lang)
    return {name: _current(web, name, kind, lang, shared, began) for name, shared in got.items()}


def _current(web: Web, name: str, kind: str, lang: str, got: Shared, began: float) -> Current:
    # The game's marker came with it: kept as this process's reading, which the rest of the request (its
    # variant, its view) and the next second's requests take rather than asking again. A page made to be kept
    # under this state is handed the reading itself (Current.reading): another thread may keep another.
    web.saw(name, got.visibility, got.marker, got.variant_hash, began=began)
    # A page says when the deadline has passed (and what the phase waits for then, read when it is made: the
    # coordinator's review of held mail, or processing). Only the passing is in the version, and whether mail
    # may hold the phase (the lookup reads it: mail taken in past the deadline is shown): asking what the phase
    # waits for on every request would cost a reader of an overdue game several queries each time.
    now = web.now()
    digest = code_digest()
    state = ".".join(str(n) for n in got.state)
    # What the answer shows changed last when the game did, when the deadline passed (a page says so), or when
    # this code started making answers, whichever is latest.
    started = web.kept(__name__, _Started)
    if started.at is None:
        started.at = now
    before = max(t for t in (got.changed, started.at) if t is not None)
    version = f"{digest}:{state}::{lang}"
    if got.deadline is None:
        return Current(got, version, version, False, before)
    passing = (f"{digest}:{state}:{'due+mail' if got.may_wait else 'due'}:{lang}", max(before, got.deadline))
    if now >= got.deadline:  # a kind kept across its deadline keeps the version before it
        return Current(got, passing[0], version if kind in DUE_APART else passing[0], True, passing[1])
    return Current(got, version, version, False, before, passing)


DUE_APART = frozenset({"page"})
"""The kinds of page kept across their deadline: made with the deadline box in each of its forms
(:func:`deadline_forms`), the one the moment calls for shown as each is served (:func:`deadline_shown`). A
visitor's game page was otherwise made again when its deadline passed, about a second before its phase was
processed and it was made again anyway (at a thousand games turning every 30 s, about one request in ten)."""

_FORMS = ("<!--dp:deadline-->", "<!--dp:processing-->", "<!--dp:review-->", "<!--/dp:deadline-->")


def deadline_forms(before: str, processing: str, review: str) -> str:
    """The deadline box before its deadline and past it (waiting for processing, or for the coordinator's
    review), marked for :func:`deadline_shown` to keep one."""
    return "".join(m + box for m, box in zip(_FORMS, (before, processing, review, ""), strict=True))


def deadline_shown(html: str, waits: str | None) -> str:
    """``html`` with one of its deadline box's forms (:func:`deadline_forms`): the one past the deadline,
    waiting for ``waits`` (``processing`` or ``review``), or (None) the one before. A page without them as is."""
    if _FORMS[0] not in html:
        return html
    pieces, marks, _ = cut(html, _FORMS)
    return "".join(piece for piece, kept in zip(pieces, shown_pieces(marks, waits), strict=True) if kept)


def has_deadline_forms(html: str | bytes) -> bool:
    """Whether ``html`` (a text, or its UTF-8 bytes) carries the deadline box's forms (a game under way with a
    deadline)."""
    if isinstance(html, str):
        return _FORMS[0] in html
    return _FORMS[0].encode() in html


def no_game(name: str) -> WebNotFound:
    """The refusal :meth:`Web.require_visible` gives: a game that is not there and one the reader may not see
    are refused alike."""
    return WebNotFound(msg("no game %(game)s here", game=repr(name)))


def required(web: Web, name: str, kind: str, lang: str) -> Current:
    """:func:`current` for a game the reader was just let see: one gone since is not found."""
    now = current(web, name, kind, lang)
    if now is None:
        raise no_game(name)
    return now


def made(
    web: Web, name: str, kind: str, lang: str, now: Current, make: Callable[[], str], *, waited: bool = False
) -> str:
    """The page of ``kind`` for the state ``now``: the kept one, or made by ``make`` and kept for every process.
    The caller holds the game's page lock (:meth:`Web.page_lock`); one that ``waited`` for it looks again
    first, and takes the page the thread it waited for made rather than making it again."""
    body = made_deflated(web, name, kind, lang, now, make, waited=waited)[0]
    return body if isinstance(body, str) else body.decode()


DEFLATED = frozenset({"page"})
"""The kinds served gzipped as they are kept (a visitor's game page): kept with their pieces deflated
(:class:`Pieces`, cut at :data:`MARKS`), so that only the process or worker that makes one compresses it."""

MARKS = (CSRF_PLACEHOLDER, *_FORMS)
"""Where a kept page is cut: its CSRF fields' gaps and its deadline box's forms (:func:`shown`)."""


def made_deflated(
    web: Web, name: str, kind: str, lang: str, now: Current, make: Callable[[], str], *, waited: bool = False
) -> tuple[str | bytes, Pieces | None]:
    """:func:`made`, and for a kind of :data:`DEFLATED` its pieces deflated (None: kept before they were, or not
    such a kind). The page read back with its pieces is its UTF-8 bytes (:func:`kept_pieces`)."""
    if (got := kept_pieces(now, kind)) is not None:
        shared_pages(kind, "kept").inc()
        return got
    if waited:
        again = current(web, name, kind, lang)
        if again is not None and again.version == now.version and (got := kept_pieces(again, kind)) is not None:
            shared_pages(kind, "kept").inc()
            return got
    shared_pages(kind, "made").inc()
    body = make()
    pieces = Pieces.of(body, MARKS) if kind in DEFLATED else None
    try:
        store_pages.keep_page(
            web.store,
            now.shared.game_id,
            kind,
            lang,
            now.kept_as,
            body,
            web.now(),
            deflated=pieces.packed(MARKS) if pieces is not None else None,
        )
    except DatabaseBusy:
        # A busy database (SQLite's writer lock held for long) does not hold the reader up: the page not kept
        # is made again by the next reader.
        log.warning("the shared page %s/%s of %r was not kept: the database is busy", kind, lang, name)
    return body, pieces


def kept_pieces(now: Current, kind: str) -> tuple[str | bytes, Pieces | None] | None:
    """The page of ``kind`` kept for the state ``now`` (None: none kept for it), and for a kind of
    :data:`DEFLATED` its pieces deflated (None: kept before they were). A page with its pieces is left in the
    UTF-8 bytes the database sent (cut there, never decoded); any other is its text."""
    data = now.kept
    if data is None:
        return None
    if kind in DEFLATED and now.shared.deflated is not None:
        pieces = Pieces.unpacked(data, MARKS, now.shared.deflated)
        if pieces is not None:
            return data, pieces
    return data.decode(), None


def personal(request: Request, *, forms: bool = True) -> str:
    """What of the request makes its answer the reader's own: their session (or key), their language and time
    zone, and with ``forms`` (a page) the CSRF token its forms carry: the token this answer gives a first-time
    visitor, so their next request, which carries it, matches. Hashed into the ETag, never shown."""
    parts = (
        session_token(request) or "",
        request.headers.get("authorization") or "",
        csrf_token(request) if forms else "",
        language(request),
        time_zone(request) or "",
    )
    return "\x1f".join(parts)


def etag_of(version: str, *own: str) -> str:
    """A weak ETag (the page is the same in meaning; its CSRF field is masked afresh each time) of ``version``
    and the reader's ``own`` part."""
    h = hashlib.sha256("\x1e".join((version, *own)).encode()).hexdigest()[:24]
    return f'W/"{h}"'


def not_modified(request: Request, etag: str) -> bool:
    """Whether the request's If-None-Match names ``etag`` (weak comparison, as RFC 9110 has it for GET). A
    request carrying a one-time message (a flash) is never answered 304: the message must be shown."""
    if request.cookies.get(flash_cookie(request)):
        return False
    asked = request.headers.get("if-none-match")
    if not asked:
        return False
    if asked.strip() == "*":
        return True
    bare = etag.removeprefix("W/")
    return any(t.strip().removeprefix("W/") == bare for t in asked.split(","))


def conditional(etag: str, changed: datetime | None = None, now: datetime | None = None) -> dict[str, str]:
    """The headers of an answer that may be asked for again conditionally: kept by the browser (never by a
    shared cache), and checked with the server each time it is shown; with ``changed`` (and the time ``now``
    the answer is made), its Last-Modified too (:func:`last_modified`)."""
    headers = {"ETag": etag, "Cache-Control": "private, no-cache", "Vary": VARY}
    if changed is not None and now is not None:
        headers["Last-Modified"] = format_datetime(last_modified(changed, now), usegmt=True)
    return headers


def last_modified(changed: datetime, now: datetime) -> datetime:
    """The Last-Modified of an answer made at ``now`` of what changed at ``changed``, in whole seconds (an
    HTTP date has no fraction). Rounded up once that second is over, so an If-Modified-Since naming it is
    answered 304 until the next change; rounded down while it lasts, since a second change within the same
    second would otherwise carry the same date and be taken for unchanged (such an answer is then never
    confirmed by its date: its ETag does it)."""
    down = changed.astimezone(UTC).replace(microsecond=0)
    up = down if down == changed else datetime.fromtimestamp(math.ceil(changed.timestamp()), UTC)
    return up if now >= up else down


def unmodified_since(request: Request, changed: datetime | None) -> bool:
    """Whether the request's If-Modified-Since is at or after ``changed``: only when it names no ETag
    (If-None-Match wins when both are sent, RFC 9110 section 13.1.3), carries no one-time message, and the
    date reads (one that does not is ignored, as the RFC says)."""
    asked = request.headers.get("if-modified-since")
    if changed is None or not asked or request.headers.get("if-none-match"):
        return False
    if request.cookies.get(flash_cookie(request)):
        return False
    try:
        since = parsedate_to_datetime(asked)
    except (TypeError, ValueError, IndexError):
        return False
    if since.tzinfo is None:
        since = since.replace(tzinfo=UTC)
    return changed <= since


def unchanged(request: Request, headers: dict[str, str], changed: datetime | None, *, forms: bool = False) -> bool:
    """Whether the request is answered 304: its If-None-Match names the answer's ETag, or (naming none) its
    If-Modified-Since is no earlier than ``changed``. A page with ``forms`` is confirmed by date only to a browser
    that has its CSRF token already (the page it kept carries that token; a browser without one gets a page
    with a new one)."""
    if not_modified(request, headers["ETag"]):
        return True
    if forms and (csrf_token(request) and request_state(request).get("csrf_new", True)):
        return False
    return unmodified_since(request, changed)


def visible(web: Web, name: str, viewer: Viewer, kind: str, lang: str) -> Current:
    """:func:`current`, for a reader who may see the game (else :func:`no_game`): its visibility comes with its
    state in the one query, and only a private game, which :meth:`Web.require_visible` lets its own people
    see, asks who the reader is."""
    now = current(web, name, kind, lang)
    if now is None:
        raise no_game(name)
    if now.shared.visibility == "private":
        web.require_visible(name, viewer)
    return now


def game_headers(request: Request, web: Web, name: str, viewer: Viewer, what: str) -> dict[str, str]:
    """The conditional headers of an answer ``what`` (``api``, ``map``, ``ics``) about a game that changes only
    with the game's state, for a reader who may see the game (checked first); a request naming them is
    answered 304 here (an HTTPException the app answers without a body), before anything is made."""
    now = visible(web, name, viewer, what, "")
    headers = conditional(etag_of(now.version, what, personal(request, forms=False)), now.changed, web.now())
    if unchanged(request, headers, now.changed):
        raise HTTPException(304, headers=headers)
    return headers


def hold(lock: threading.Lock) -> bool:
    """Take ``lock``, waiting if another thread holds it; whether it had to wait (:func:`made`'s ``waited``)."""
    if lock.acquire(blocking=False):
        return False
    lock.acquire()
    return True


KEPT_BYTES = 48_000_000
"""The bound of :func:`read_once`'s parts in a process, in bytes: past it, every kept one is dropped and read
again when asked for."""


def shown(body: str | bytes, pieces: Pieces | None, waits: str | None) -> Gapped:
    """A kept page as it is shown now (:func:`deadline_shown`), in parts with its CSRF gaps, plain and
    compressed: made of its ``pieces`` deflated where it has them (not compressed again, nor searched for its
    marks), else deflated here. The caller holds it with the page (``Web.pages``): it is made once a process
    for each state of the page."""
    if pieces is not None:
        return pieces.gapped(shown_pieces(pieces.marks, waits), CSRF_PLACEHOLDER)
    return Gapped.of(deadline_shown(body if isinstance(body, str) else body.decode(), waits), CSRF_PLACEHOLDER)


def shown_pieces(marks: Sequence[str], waits: str | None) -> list[bool]:
    """Which pieces of a page cut at the deadline box's forms (and at other marks: ``marks``, those between the
    pieces) are shown: all but the forms the moment does not call for (``waits``: :func:`deadline_shown`)."""
    form = {"processing": 1, "review": 2}.get(waits or "", 0)
    inside: int | None = None  # the form of the box the pieces are in; None outside it
    kept = [True]
    for mark in marks:
        if mark in _FORMS:
            at = _FORMS.index(mark)
            inside = at if at < len(_FORMS) - 1 else None
        kept.append(inside is None or inside == form)
    return kept


@dataclass
class _Read:
    """Shared parts read back from their JSON (per app: :meth:`Web.kept`), by the text kept in the database."""

    parts: dict[str, Any] = field(default_factory=dict)
    size: int = 0


def read_once(web: Web, text: str) -> Any:
    """``text`` (a shared part kept as JSON, :func:`made`'s) as data, decoded once a process for each text: every
    signed-in reader's page starts from it. The data is shared: never changed by its reader."""
    kept = web.kept(__name__ + ".read_once", _Read)
    data = kept.parts.get(text)
    if data is None:
        data = json.loads(text)
        with web.lock:
            if kept.size + len(text) > KEPT_BYTES:
                kept.parts.clear()
                kept.size = 0
            kept.parts[text] = data
            kept.size += len(text)
    return data
