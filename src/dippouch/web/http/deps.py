"""What the web's routers share: the dependencies a route declares (the web service, the site, the viewer, the
JSON writer, the signed-in person, a game the viewer may see, the seat they order), the JSON API's answer
declaration, page rendering, cookies, and a game's address.

A route names what it needs as a parameter (``web: WebDep, viewer: ViewerDep``) and FastAPI hands it over,
refusing the request before the route runs when the need is not met (no key, a game the viewer may not see, a
seat they do not hold); the posted form is :data:`dippouch.web.http.forms.FormDep`.

Kept apart from :mod:`dippouch.web.app`, which builds the application and includes the routers
(:mod:`dippouch.web.api`, :mod:`dippouch.web.pages`): the routers import these helpers from here, so no
module of the web imports the one that imports it (tests/project/test_import_layers.py).
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Generic, Literal, TypeVar
from urllib.parse import quote, unquote

from babel.support import NullTranslations
from fastapi import Depends
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, Response
from fastapi.templating import Jinja2Templates
from pydantic import BaseModel
from starlette.requests import Request

from dippouch.bots.memory import Memory
from dippouch.bots.seats import Think, memory_data, think_from_data
from dippouch.core.messages import N_, Msg, as_msg, msg
from dippouch.core.orders import Order
from dippouch.core.position import Position
from dippouch.core.variant import Variant
from dippouch.i18n import DEFAULT, LANGUAGES, best_language, translations
from dippouch.play.replays import ReplayExports
from dippouch.settings import Site
from dippouch.store.people.persons import Preferences, preferences
from dippouch.web.http.budget import WorkBudget, timed_endpoint
from dippouch.web.http.encoded import OFFERED, Gapped, chosen
from dippouch.web.http.pool import Jobs
from dippouch.web.http.security import (
    CSRF_HEADER,
    FLASH_COOKIE,
    HOST_PREFIX,
    Forbidden,
    NeedsKey,
    RateLimiter,
    Viewer,
    WebError,
    check_csrf,
    client_id,
    csrf_cookie,
    csrf_field,
    csrf_for_session,
    flash_cookie,
    over_https,
    request_state,
    session_cookie,
    session_token,
)
from dippouch.web.http.service import Web
from dippouch.web.views.answers.base import ErrorAnswer, web_said

I18N_DOMAIN = "site"
"""The catalogue of the refusals said here (the JSON API gives their English, a page its reader's words)."""

__all__ = [
    "ERRORS",
    "NEEDS_KEY",
    "NEED_PERSON",
    "OrderingSeat",
    "PersonDep",
    "SeatDep",
    "SiteDep",
    "ViewerDep",
    "VisibleGame",
    "WebDep",
    "WriterDep",
    "after_sign_in",
    "answers",
    "api_language",
    "asker",
    "board_answer",
    "budget_of",
    "can_charge",
    "charged",
    "charged_job",
    "find_viewer",
    "forget_next",
    "game_url",
    "known_language",
    "language",
    "local_page",
    "made_once",
    "metered",
    "pool_of",
    "remember_next",
    "remember_preferences",
    "render",
    "render_html",
    "set_csrf_cookie",
    "set_flash",
    "set_session_cookie",
    "site_of",
    "speaks",
    "stored_language",
    "stored_preferences",
    "thinking",
    "time_zone",
    "typed_again",
    "typed_cookie",
    "viewer_of",
    "web_of",
    "words",
    "writer",
]

ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorAnswer, "description": what}
    for status, what in (
        (400, "The request was refused as it stands (what is wrong, and the closest valid alternative)."),
        (401, "The call needs a key."),
        (403, "The key does not allow this call (or the CSRF token is missing)."),
        (404, "No such game, phase, power or variant (or one the caller may not see)."),
        (413, "The request body is too large."),
        (422, "The request is not in the expected shape."),
        (429, "Too many requests from this address: try again after Retry-After seconds."),
        (503, "Busy: try again after Retry-After seconds."),
    )
}
"""Every refusal a JSON call may answer, each with the one error shape (:class:`ErrorAnswer`)."""

NEEDS_KEY = N_(
    "this call needs a key: send a player's or coordinator's key as 'Authorization: Bearer dp_...' "
    "(or sign in with its link, and send the page's token in X-CSRF-Token)"
)
"""What a state-changing JSON call tells a caller who sent no credentials: both ways in."""

T = TypeVar("T")
AnswerT = TypeVar("AnswerT", bound=BaseModel)


def web_of(request: Request) -> Web:
    return request.app.state.web  # type: ignore[no-any-return]


def site_of(request: Request) -> Site:
    """The installation's public address and hosts: every absolute link is made from it, never from the
    request's own headers (dippouch.settings)."""
    return request.app.state.site  # type: ignore[no-any-return]


def viewer_of(request: Request) -> Viewer:
    """Who is asking: a bearer key (API), else the session cookie, else nobody."""
    v = request_state(request).get("viewer")
    if v is not None:
        return v  # type: ignore[no-any-return]
    web = web_of(request)
    auth = request.headers.get("authorization", "")
    viewer = Viewer()
    if auth.lower().startswith("bearer "):
        # A bearer key is a sign-in: wrong keys count against the sign-in limit, as wrong links do, and a
        # right one is accepted even from an address over that limit (only guessing is limited).
        limiter: RateLimiter = request.app.state.limiter
        grant = web.access.find_key(auth[7:].strip())
        if grant is None:
            limiter.failed("signin", client_id(request), "failed sign-ins")
            raise Forbidden(msg("the bearer key is unknown or revoked"))
        viewer = Viewer([grant], by_bearer=True)
    else:
        token = session_token(request)
        if token:
            info = web.access.session_info(token, now=web.now())
            if info is not None:
                viewer = Viewer(info[0], session_token=token, person_id=info[1])
    request.state.viewer = viewer
    return viewer


def answers(model: Any) -> dict[str, Any]:
    """A JSON route's answers: ``model`` in the OpenAPI document, each answer checked against it, with exactly
    the fields its data has (a field the data leaves out is not added as null), and :data:`ERRORS` for its
    refusals, wherever the route is later added."""
    return {"response_model": model, "response_model_exclude_unset": True, "responses": ERRORS}


class MadeJSON(Response, Generic[AnswerT]):
    """An answer of model ``AnswerT`` whose JSON was made once and kept (compressed once, too), answered as it
    was made: the route still declares, and mypy still checks, the model its bytes are of
    (tests/project/test_web_routes.py reads the model off ``MadeJSON[Model]``)."""

    media_type = "application/json"

    @staticmethod
    def encode(answer: AnswerT) -> bytes:
        """``answer``'s JSON as :func:`answers` has FastAPI write it: by alias, the fields its data has."""
        return answer.model_dump_json(by_alias=True, exclude_unset=True).encode()


def writer(request: Request, need: str = NEEDS_KEY) -> Viewer:
    """The caller of a state-changing JSON call: a bearer key, or a signed-in browser that proves with the
    page's token (``X-CSRF-Token``) that the call came from our page. ``need`` is what a caller with neither
    is told, for calls that want a particular kind of sign-in."""
    viewer = viewer_of(request)
    if not viewer.signed_in:
        raise NeedsKey(need)
    if not viewer.by_bearer:
        check_csrf(request, request.headers.get(CSRF_HEADER))
    return viewer


NEED_PERSON = N_(
    "sign in as a person first: ask for a link by e-mail on the sign-in page (/signin); a player's or "
    "coordinator's key alone has no person behind it"
)
"""What a call that is a person's own (their account, addresses, absences, sign-ups, notifications) tells a
caller with no person signed in."""


async def _web(request: Request) -> Web:
    return web_of(request)


async def _site(request: Request) -> Site:
    return site_of(request)


async def find_viewer(request: Request) -> Viewer:
    """Who asks (:data:`ViewerDep`; a route taking the request alone awaits it), found on the event loop when
    there is nothing to look up (no key, no session: nobody), else in the thread pool (a key or a session is
    read from the database). FastAPI runs a plain-function dependency in a thread of the pool: a page served
    from memory must not wait for one while a busy game's readers hold them all."""
    if getattr(request.state, "viewer", None) is None and (
        request.headers.get("authorization") or session_token(request)
    ):
        return await run_in_threadpool(_viewer_timed, request)
    return viewer_of(request)


_viewer_timed = timed_endpoint(viewer_of)
"""The viewer's lookup in a thread of the pool, its CPU time charged with the request's (as the endpoints')."""


@timed_endpoint
def _writer(request: Request) -> Viewer:
    return writer(request)


@timed_endpoint
def person_of(request: Request) -> int:
    """The signed-in person's id (a session signed in by a mailed link or a passkey; a key alone is no person)."""
    viewer = viewer_of(request)
    if viewer.person_id is None:
        raise NeedsKey(NEED_PERSON)
    return viewer.person_id


@timed_endpoint
def visible_game(request: Request, name: str) -> str:
    """The game ``name`` in the path, which the viewer may see (404 otherwise: no difference shown between a game
    that does not exist and a private one)."""
    web_of(request).require_visible(name, viewer_of(request))
    return name


@dataclass(frozen=True)
class OrderingSeat:
    """A power the viewer may order in a game: as its player, or as its stand-in while the player is away
    (``stand_in``); ``power`` is the variant's own spelling of the name in the path."""

    game: str
    power: str
    variant: Variant
    stand_in: bool


@timed_endpoint
def seat_of(request: Request, name: str, power: str) -> OrderingSeat:
    """The seat ``name``/``power`` of the path, for a viewer who may order it (403 otherwise, 404 for a game
    they may not see or a power the variant does not have)."""
    variant, power, stand_in = web_of(request).require_seat(name, power, viewer_of(request))
    return OrderingSeat(name, power, variant, stand_in)


WebDep = Annotated[Web, Depends(_web)]
"""The web service on the app's game database (handed over on the event loop: no thread of the pool)."""
SiteDep = Annotated[Site, Depends(_site)]
"""The installation's public address, which absolute links are made from."""
ViewerDep = Annotated[Viewer, Depends(find_viewer)]
"""Who is asking (perhaps nobody): a thread of the pool only when a key or session must be looked up."""
WriterDep = Annotated[Viewer, Depends(_writer)]
"""The caller of a state-changing JSON call: a bearer key, or a signed-in browser with the page's CSRF token."""
PersonDep = Annotated[int, Depends(person_of)]
"""The signed-in person's id."""
VisibleGame = Annotated[str, Depends(visible_game)]
"""The game in the path, which the viewer may see."""
SeatDep = Annotated[OrderingSeat, Depends(seat_of)]
"""The seat in the path (``name``, ``power``), which the viewer may order."""


def game_url(name: str) -> str:
    """A game's page: its name quoted whole (a slash or ``?`` in a name stays part of it)."""
    return "/games/" + quote(name, safe="")


LANGUAGE_COOKIE = "lang"
"""A visitor's chosen language (a signed-in person's choice is also kept with the person)."""

CHOICE_TTL = 60.0
"""Seconds a signed-in person's stored language is remembered by this process between reads (a choice made in
another process, or on another server, shows here within that time; one made here shows at once)."""


def language(request: Request) -> str:
    """The language this request is answered in: the choice this browser made (the ``lang`` cookie), else the
    signed-in person's stored choice, else their browser's (Accept-Language), else English."""
    state = request_state(request)
    lang: str | None = state.get("language")
    if lang is None:
        chosen = request.cookies.get(LANGUAGE_COOKIE)
        if chosen not in LANGUAGES:
            chosen = stored_language(request)
        lang = state["language"] = best_language(request.headers.get("accept-language"), chosen)
    return lang


def api_language(request: Request) -> str:
    """The language the JSON API answers in: English, the language programs read, unless the caller asks for
    another (``?lang=de``: a page's script, as press.js sends a message)."""
    return known_language(request.query_params.get("lang", ""))


def known_language(asked: str) -> str:
    """``asked`` if the site speaks it, else English: what a route declaring its own ``lang`` parameter (to
    document it) answers in, as :func:`api_language` reads it."""
    return asked if asked in LANGUAGES else DEFAULT


def _choices(web: Web) -> dict[int, tuple[float, Preferences]]:
    return web.kept("language.choices", dict)


def stored_preferences(request: Request) -> Preferences:
    """The signed-in person's stored language and time zone, when the request's viewer is already known (a page
    looks them up anyway: this never adds a session lookup) and is a person; nothing chosen otherwise. Read at
    most once a :data:`CHOICE_TTL` per person and process, so a page costs no query for them."""
    viewer: Viewer | None = request_state(request).get("viewer")
    if viewer is None or viewer.person_id is None:
        return Preferences()
    web = web_of(request)
    choices = _choices(web)
    hit = choices.get(viewer.person_id)
    now = time.monotonic()
    if hit is not None and now - hit[0] < CHOICE_TTL:
        return hit[1]
    got = preferences(web.read, viewer.person_id)
    if len(choices) > 20_000:
        choices.clear()
    choices[viewer.person_id] = (now, got)
    return got


def stored_language(request: Request) -> str | None:
    """The signed-in person's stored language (:func:`stored_preferences`), if they chose one."""
    return stored_preferences(request).language


def time_zone(request: Request) -> str | None:
    """The zone the reader's dates and times are shown in, if they chose one (a signed-in person's)."""
    return stored_preferences(request).time_zone


def remember_preferences(request: Request, person_id: int, chosen: Preferences) -> None:
    """A person's choices just stored by this process: its pages show them at once."""
    _choices(web_of(request))[person_id] = (time.monotonic(), chosen)


def words(request: Request) -> NullTranslations:
    """The request's catalogue, for text a route writes itself (flash messages, refusals):
    ``words(request).gettext("...")``."""
    return translations(language(request))


def layer_words(request: Request, message: BaseException | Msg) -> str:
    """A refusal or a message of the layers under the pages (kept, logged and answered to the JSON API in
    English) as this request's page says it: its message value (an error's :attr:`msg`) by its id in the page's
    language, a hint worded as the web words it (:func:`dippouch.web.views.answers.base.web_said`). An exception of a
    library that carries no message value is said by its text."""
    if isinstance(message, Msg):
        m = message
    else:
        carried = getattr(message, "msg", None)
        m = carried if isinstance(carried, Msg) else as_msg(str(message))
    return web_said(m, language(request))


def speaks(request: Request, resp: Response) -> None:
    """Say which language a page is in, and that it differs by the browser's language and cookies (a shared
    cache must not hand a German page to a French reader)."""
    resp.headers["Content-Language"] = language(request)
    resp.headers.add_vary_header("Accept-Language")
    resp.headers.add_vary_header("Cookie")


def render(
    request: Request,
    template: str,
    context: dict[str, Any],
    *,
    status: int = 200,
    headers: dict[str, str] | None = None,
) -> HTMLResponse:
    try:
        viewer = viewer_of(request)  # first: a signed-in person's stored language is theirs
    except WebError:
        viewer = Viewer()
    templates: Jinja2Templates = request.app.state.templates[language(request)]
    flash = request.cookies.get(flash_cookie(request))
    # A refusal is flashed with a leading "!" (never in a quoted message): the page announces it as an alert.
    flash_error = bool(flash and flash.startswith("!"))
    shown = unquote(flash.removeprefix("!"))[:400] if flash else None
    carried = typed_again(request)
    ctx = {
        "viewer": viewer,
        "csrf": csrf_field(request),
        "flash": shown,
        "flash_error": flash_error,
        "carried_form": carried,
        **context,
    }
    resp = templates.TemplateResponse(request, template, ctx, status_code=status, headers=headers)
    if flash:
        resp.delete_cookie(FLASH_COOKIE, path="/")  # renamed with its prefix over https, as it was set
    if carried is not None or request.cookies.get(typed_cookie(request)):
        forget_typed(request, resp)
    set_csrf_cookie(request, resp)
    speaks(request, resp)
    return resp


CSRF_PLACEHOLDER = "__dippouch_csrf_placeholder__"
"""What a page made once carries where each answer puts its reader's CSRF field (:class:`dippouch.web.http.encoded
.Gapped`): a game's shared page, a sandbox's page."""


def fresh_page(request: Request) -> bool:
    """Whether the page this request asks for shows nothing of the request's own but the CSRF field (no flashed
    message, no refused form carried back), so a page made once may answer it."""
    return not request.cookies.get(flash_cookie(request)) and not request.cookies.get(typed_cookie(request))


def gapped_answer(request: Request, page: Gapped, headers: dict[str, str]) -> HTMLResponse:
    """A page made once (:class:`Gapped`, :data:`CSRF_PLACEHOLDER` in its gaps) with this reader's CSRF field put
    in: gzipped from the parts compressed once when the browser takes gzip, else plain; the CSRF cookie set and
    the page's language said. ``headers`` gets the coding."""
    fill = csrf_field(request).encode()
    if chosen(request.headers.get("accept-encoding"), ("gzip",)):
        headers["Content-Encoding"] = "gzip"
        body = page.gzip(fill)
    else:
        body = page.plain(fill)
    resp = HTMLResponse(body, headers=headers)
    set_csrf_cookie(request, resp)
    speaks(request, resp)
    return resp


def board_answer(request: Request, web: Web, made: tuple[str, str], digest: str, *, public: bool) -> Response:
    """A board file (``made``: its hash and text, :func:`dippouch.web.views.maps.board_file`) asked for under the
    hash ``digest``: kept a year (by shared caches too where ``public``), its address naming its content; 304 to
    the browser that has it; compressed once a process for every reader, as each new reader's browser fetches it
    once. An old hash (a page from before the board changed) is answered with the board as it is now, not to be
    kept."""
    current, svg = made
    if digest != current:
        return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": "no-cache"})
    headers = {
        "ETag": f'"board-{current}"',
        "Cache-Control": f"{'public' if public else 'private'}, max-age=31536000, immutable",
        "Vary": "Accept-Encoding",
    }
    if headers["ETag"] in request.headers.get("if-none-match", ""):
        return Response(status_code=304, headers=headers)
    coding = chosen(request.headers.get("accept-encoding"), OFFERED)
    if coding is None:
        return Response(svg, media_type="image/svg+xml", headers=headers)
    headers["Content-Encoding"] = coding
    body = web.maps.encoded(("board", current), coding, lambda: svg)
    return Response(body, media_type="image/svg+xml", headers=headers)


def render_html(request: Request, template: str, context: dict[str, Any]) -> str:
    """A page as text, for the page cache (no flash, no per-visitor state beyond what ``context`` says)."""
    templates: Jinja2Templates = request.app.state.templates[language(request)]
    ctx = {"request": request, "viewer": Viewer(), "flash": None, "flash_error": False, "carried_form": None, **context}
    return templates.get_template(template).render(ctx)


def set_private_cookie(
    request: Request, resp: Response, name: str, value: str, max_age: int, samesite: Literal["lax", "strict"] = "lax"
) -> None:
    """A cookie of this site's own: for every path, out of scripts' reach, sent over HTTPS only when the site is
    served over it, and by other sites' links only when ``samesite`` is "lax" (a session, a language, a draft)."""
    secure = over_https(request)
    if _PLAIN.fullmatch(name) and _PLAIN.fullmatch(value):
        # What Starlette's set_cookie writes for such a value, without its SimpleCookie (a seventh of the CPU of a
        # page answered from memory to a first-time visitor, whose every answer sets the form token's cookie).
        line = f"{name}={value}; HttpOnly; Max-Age={max_age}; Path=/; SameSite={samesite}{'; Secure' if secure else ''}"
        resp.raw_headers.append((b"set-cookie", line.encode("latin-1")))
        return
    resp.set_cookie(name, value, httponly=True, samesite=samesite, secure=secure, path="/", max_age=max_age)


_PLAIN = re.compile(r"[A-Za-z0-9!#$%&'*+\-.^_`|~:]+")
"""A cookie name or value written as it is (``http.cookies``' legal characters: anything else it quotes)."""


NEXT_COOKIE = "dp_next"
"""The page a browser asked for before it was told to sign in, where signing in then takes it (an hour)."""


def local_page(path: str) -> str | None:
    """``path`` if it names a page of this site (a path and its query), else None: never another site's address
    (``//host``, a backslash that browsers read as a slash), never a control character, at most 2,000 long."""
    if not path.startswith("/") or path.startswith("//") or "\\" in path or len(path) > 2000:
        return None
    if any(ord(c) < 32 or ord(c) == 127 for c in path):
        return None
    return path


def remember_next(request: Request, resp: Response, path: str) -> None:
    """Take the browser to ``path`` once it has signed in (a link mailed to a person and opened on another
    device, where they are not signed in yet)."""
    if (page := local_page(path)) is not None:
        set_private_cookie(request, resp, NEXT_COOKIE, quote(page, safe=""), 60 * 60)


def after_sign_in(request: Request, default: str = "/me") -> str:
    """Where a browser that has just signed in goes: the page it asked for before (:func:`remember_next`), else
    ``default``; the answer that signs it in forgets that page (:func:`forget_next`)."""
    return local_page(unquote(request.cookies.get(NEXT_COOKIE, ""))) or default


def forget_next(request: Request, resp: Response) -> None:
    if NEXT_COOKIE in request.cookies:
        resp.delete_cookie(NEXT_COOKIE, path="/", secure=over_https(request), httponly=True)


def set_csrf_cookie(request: Request, resp: Response) -> None:
    state = request_state(request)
    if state.get("csrf_new", False):
        set_private_cookie(request, resp, csrf_cookie(request), state["csrf"], 60 * 60 * 24 * 30, "strict")


def set_session_cookie(request: Request, resp: Response, token: str) -> None:
    """Sign the browser in under session ``token``: its cookie, and the CSRF token that goes with that
    session (the page it lands on carries the new one; a form from before the sign-in no longer posts)."""
    set_private_cookie(request, resp, session_cookie(request), token, 60 * 60 * 24 * 30)
    request.state.csrf, request.state.csrf_new = csrf_for_session(token), True
    set_csrf_cookie(request, resp)


def set_flash(resp: Response, message: str, *, error: bool = False) -> None:
    """The message the next page shows once (and announces to a screen reader); ``error`` for a refusal,
    which it announces as an alert."""
    value = ("!" if error else "") + quote(message[:400])
    resp.set_cookie(FLASH_COOKIE, value, httponly=True, samesite="lax", path="/", max_age=60)


TYPED_COOKIE = "dp_typed"
"""What a refused form carried back to its page (dippouch.web.http.forms.refused_form sets it)."""


def typed_cookie(request: Request) -> str:
    """``__Host-`` prefixed over https, like the flash: another host of the domain cannot fill our forms."""
    return HOST_PREFIX + TYPED_COOKIE if over_https(request) else TYPED_COOKIE


def typed_again(request: Request) -> dict[str, Any] | None:
    """What a refused form carried back, for the page to fill in again (``None`` if nothing, or nothing
    readable: the cookie is the browser's to send, so its shape is checked, never trusted)."""
    raw = request.cookies.get(typed_cookie(request))
    if not raw:
        return None
    try:
        got = json.loads(unquote(raw))
    except ValueError:
        return None
    if not isinstance(got, dict) or not isinstance(got.get("action"), str) or not isinstance(got.get("fields"), dict):
        return None
    fields = {
        str(k): [str(x) for x in v][:100]
        for k, v in got["fields"].items()
        if isinstance(v, list) and all(isinstance(x, str) for x in v)
    }
    return {"action": got["action"], "fields": fields}


def forget_typed(request: Request, resp: Response) -> None:
    """Shown once: the page that filled the form in drops the cookie."""
    resp.delete_cookie(typed_cookie(request), path="/", secure=over_https(request), httponly=True)


def asker(request: Request) -> str:
    """Whom expensive work is charged to (dippouch.web.http.budget): the signed-in person, by their id, from whatever
    address they come (a person's budget is theirs, not their network's); else the address."""
    try:
        person = viewer_of(request).person_id
    except WebError:  # a bearer key that is unknown: the route refuses it; the address pays for the asking
        person = None
    return f"person {person}" if person is not None else f"address {client_id(request)}"


def budget_of(request: Request) -> WorkBudget:
    return request.app.state.budget  # type: ignore[no-any-return]


def charged(request: Request, work: Callable[[], T], *, lane: str = "check", estimate: float = 0.0) -> T:
    """``work`` run in the budget's ``lane`` and charged to the :func:`asker`: ``estimate`` CPU seconds are
    reserved before it runs (429 with the wait, and ``work`` never called, when they do not fit), then
    replaced by what it took. Lanes: ``check`` (line checks, sandboxes, adjudications, move searches),
    ``draw`` (replays, game books, PDF maps, previews), ``process`` (a coordinator's "process now")."""
    return budget_of(request).run(asker(request), work, lane=lane, estimate=estimate)


def metered(request: Request, work: Callable[[], T]) -> T:
    """``work`` (a player's submission and its line checks: cheap unless the text is long and misspelt) run in
    the calling thread and its CPU time charged to the :func:`asker` after it ran; refused (429 with the wait)
    only when their share is spent, in no lane (:meth:`dippouch.web.http.budget.WorkBudget.metered`)."""
    return budget_of(request).metered(asker(request), work)


def pool_of(request: Request) -> Jobs:
    """Where expensive work runs (dippouch.web.http.pool): the server's worker processes, or the calling thread."""
    return request.app.state.pool  # type: ignore[no-any-return]


def charged_job(
    request: Request, job: Callable[..., T], *args: Any, lane: str = "check", estimate: float = 0.0, **kwargs: Any
) -> T:
    """``job(*args, **kwargs)`` (a top-level function, its arguments picklable: dippouch.web.http.pool) run in the work
    pool's processes of ``lane``, charged to the :func:`asker` as :func:`charged` charges: the CPU time it took
    there."""
    return charged(request, lambda: pool_of(request).call(lane, job, *args, **kwargs), lane=lane, estimate=estimate)


def thinking(request: Request) -> Think:
    """Where the bots of a coordinator's request think (a "process now", a bot seated): the work pool's
    processing lane, charged with the request's own time (:func:`charged`)."""
    pool = pool_of(request)

    def think(
        level: str, variant: Variant, position: Position, power: str, rng: random.Random, memory: Memory | None
    ) -> list[Order]:
        return pool.call("process", think_from_data, level, variant, position, power, rng, memory_data(memory))

    return think


def can_charge(request: Request, *, lane: str = "check", estimate: float = 0.0) -> None:
    """Refuse now (429 or 503) what :func:`charged` would refuse, reserving nothing: for a route that would
    otherwise read a large body before it knows."""
    budget_of(request).check(asker(request), lane=lane, estimate=estimate)


def made_once(
    request: Request, exports: ReplayExports, key: tuple[object, ...], make: Callable[[], bytes], *, estimate: float
) -> bytes:
    """The bytes kept under ``key``, or made by ``make`` and kept: a first making (a replay drawn, a game book)
    takes seconds to minutes, so it runs in the budget's drawing lane, its ``estimate`` charged to the asker
    before it starts; a kept one costs nothing."""
    data = exports.cached(key)
    if data is None:
        data = charged(request, lambda: exports.made(key, make), lane="draw", estimate=estimate)
    return bytes(data)


VARY = "Accept-Language, Cookie, Authorization"
"""What a game's page or file depends on besides its address: the reader's language, their cookies (a session,
the CSRF token its forms carry, a chosen language) and their key."""


def game_file(
    data: bytes,
    media_type: str,
    game: str,
    suffix: str,
    max_age: int | None = None,
    disposition: Literal["inline", "attachment"] = "inline",
) -> Response:
    """A file made of a game, named after the game (ASCII letters, digits and ``-_.`` kept, the rest ``_``: a
    header value carries no other) and ``suffix``; ``max_age``: seconds a browser may keep it; an attachment is
    saved rather than shown."""
    filename = "".join(c if c.isascii() and (c.isalnum() or c in "-_.") else "_" for c in game)[:100] or "game"
    headers = {"Content-Disposition": f'{disposition}; filename="{filename}{suffix}"'}
    if max_age is not None:
        # Kept by the browser, it must not be shown to a reader it was not made for: another language chosen
        # within the minute, or another person signed in on the same browser.
        headers["Cache-Control"] = f"private, max-age={max_age}"
        headers["Vary"] = VARY
    return Response(data, media_type=media_type, headers=headers)
