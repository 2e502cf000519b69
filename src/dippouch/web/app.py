"""The web application: :func:`create_app` builds it on a game database.

Server-rendered pages (Jinja2) that work without JavaScript (forms post and redirect), a little plain
JavaScript shipped in ``static/`` for live line checks, click entry on the map and countdowns, and a JSON
API with the same operations (OpenAPI at ``/docs``). No inline script anywhere: the Content Security
Policy forbids it.
"""

from __future__ import annotations

import inspect
import logging
import math
import secrets
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from datetime import datetime
from functools import cache, partial
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jinja2
from fastapi import APIRouter, FastAPI
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from markupsafe import Markup
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect, Request

from dippouch import __version__, compiled, settings
from dippouch.bots import LEVEL_WORDS
from dippouch.bots.negotiate import TAG
from dippouch.bots.seats import bot_level
from dippouch.core.errors import DippouchError, NotFound
from dippouch.core.messages import Msg, msg
from dippouch.game import Changed
from dippouch.i18n import LANGUAGES, format_date, format_datetime, language_name, phase_words, translations
from dippouch.mail.notices import mail_unavailable
from dippouch.mail.settings import use_store as use_mail_store
from dippouch.names import coast_words
from dippouch.numbers import number_or_none
from dippouch.saying import number, percent, say
from dippouch.settings import Site, metrics_networks
from dippouch.settings import site as installation_site
from dippouch.store.db import DatabaseBusy, DatabaseError, DatabaseRefusedValue, out_of_range
from dippouch.store.loop_reads import LoopReads
from dippouch.store.page_notices import PageNotices
from dippouch.store.repository import GameStore
from dippouch.web.http import route_index
from dippouch.web.http.assets import static_url
from dippouch.web.http.budget import Ledger, StoreLedger, WorkBudget, timed_endpoint
from dippouch.web.http.deps import api_language, render, time_zone
from dippouch.web.http.deps import language as page_language
from dippouch.web.http.forms import refused_form
from dippouch.web.http.front import SMALLEST, App, Front
from dippouch.web.http.middleware import Headers, Hosts, Latency, Pace, RequestPace, too_large
from dippouch.web.http.pool import Inline, Jobs, thinking_in
from dippouch.web.http.security import (
    Busy,
    NeedsKey,
    RateLimiter,
    TooMany,
    WebError,
)
from dippouch.web.http.service import Web
from dippouch.web.views.answers.base import error_data, web_said

I18N_DOMAIN = "site"
"""The catalogue of the application's own answers (a page that is not there, a request it cannot read)."""

__all__ = ["create_app", "feature_routers", "for_people", "kept_gettext", "request_pace", "routes"]

HERE = Path(__file__).resolve().parent
RETRY_BY_ITSELF = 120
"""The longest wait (seconds) after which a refused page asks again by itself (error.html, app.js)."""
log = logging.getLogger("dippouch.web")

DEFAULT_LIMITS: dict[str, tuple[int, float]] = {
    "signin": (10, 60.0),
    "submit": (30, 60.0),
    "check": (240, 60.0),
    "adjudicate": (60, 60.0),
    "signin_mail": (20, 3600.0),  # sign-in links asked for, per client (web/routes/accounts.py)
    "signin_mail_address": (5, 3600.0),  # ... and per e-mail address
    "practice": (6, 600.0),
}


def for_people(text: str) -> str:
    """``text`` without the lines that start with the structured tag of bots' press (:data:`TAG`), unless
    nothing else is left (a program's letter to a program is shown whole)."""
    kept = [line for line in str(text).splitlines() if not line.lstrip().startswith(TAG)]
    return "\n".join(kept).strip() if any(line.strip() for line in kept) else str(text)


def work_budget(*, unlimited: bool = False, ledger: Ledger | None = None) -> WorkBudget:
    """The budget of expensive work (dippouch.web.http.budget), its figures the installation's settings, its shares
    kept in ``ledger`` for every process; unlimited (no share charged, the lanes kept) with the rate limits
    off, for load tests and tests' sites."""
    if unlimited:
        return WorkBudget(math.inf)
    s = settings.current()
    return WorkBudget(s.work_seconds, site_seconds=s.work_site_seconds, longest=s.work_job_seconds, ledger=ledger)


def request_pace() -> RequestPace:
    """The installation's pace of requests per client (``DIPPOUCH_REQUEST_RATE``, ``DIPPOUCH_REQUEST_BURST``,
    ``DIPPOUCH_REQUEST_AT_ONCE``)."""
    s = settings.current()
    return RequestPace(s.request_rate, s.request_burst, at_once=s.request_at_once)


def routes(app: FastAPI, *routers: APIRouter) -> None:
    """The one way routes join the app: each feature's router (its pages and its JSON calls), in the order
    given, which is the order they are matched in.

    The routes join the app's own list rather than through ``app.include_router``: FastAPI matches an included
    router's routes twice (to pick the router, then the route), so every request would walk the routes
    before its own twice (a 404: every route, twice). A router that brought a lifespan or start-up handlers
    would need ``include_router``: none does (tests/project/test_web_routes.py)."""
    for router in routers:
        if router.on_startup or router.on_shutdown:
            raise ValueError("a router with start-up or shut-down handlers needs app.include_router")
        for route in router.routes:
            # Each synchronous endpoint's CPU time is the request's charge to its asker's work budget (Pace).
            call = getattr(getattr(route, "dependant", None), "call", None)
            if call is not None and not inspect.iscoroutinefunction(call) and not getattr(call, "timed", False):
                route.dependant.call = timed_endpoint(call)  # type: ignore[attr-defined]
        app.router.routes.extend(router.routes)


def feature_routers() -> tuple[APIRouter, ...]:
    """Every feature's router, in the order their routes are matched (imported here: each imports the helpers
    of :mod:`dippouch.web.http.deps`, never this module)."""
    from dippouch.web.routes import (
        accounts,
        api_docs,
        coordinate,
        duels,
        explorer,
        gamebook,
        games,
        installable,
        language,
        learn,
        mail_setup,
        moderation,
        notify,
        openings,
        outbox,
        play,
        press,
        puzzles,
        ratings,
        records,
        replay,
        review,
        roster,
        sandbox,
        signin,
        tournaments,
        unsubscribe,
        variants,
    )

    return (
        openings.router,  # before games: /api/games/new and /open are its own
        # Early: the game page is the site's busiest, and every route before it is tried at each of its
        # requests (58 were); none of its routes takes another's request (tests/web/test_routes_first.py).
        games.router,
        accounts.router,
        press.router,  # before coordinate: /games/{name}/coordinate/press is its own
        replay.router,
        gamebook.router,
        records.router,
        ratings.router,
        explorer.router,
        puzzles.router,
        tournaments.router,
        duels.router,
        play.router,
        coordinate.router,
        variants.router,
        sandbox.router,
        learn.router,
        signin.router,
        api_docs.router,
        review.router,
        roster.router,
        notify.router,
        outbox.router,
        mail_setup.router,
        moderation.router,
        unsubscribe.router,
        installable.router,
        language.router,
    )


class _CompiledPages(jinja2.BytecodeCache):
    """The pages' compiled code, kept for the process: every app it makes (a test's site, a restarted one) and
    every language's environment loads a template's code compiled once, rather than compiling it again (the 52
    pages in three languages took about 2 s of CPU at every start). The code is the same for every language: a
    page's words are looked up when it renders. Jinja checks each template's source against the code's checksum,
    so an edited template is compiled afresh.

    Kept on disk too, beside the built variants (:mod:`dippouch.compiled`: the user's own private folder, keyed
    by the code and the Python version), so that a new process (a restarted server, a worker that makes pages)
    reads the code rather than compiling every page again: 0.74-0.78 s of CPU at each start on this machine,
    0.10-0.13 s read back."""

    def __init__(self) -> None:
        self.code: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        # Code of another source or Jinja is dropped by the bucket as it is read: the page is compiled afresh.
        data = self.code.get(bucket.key)
        if data is not None:
            bucket.bytecode_from_string(data)
            return
        kept = compiled.fetch(_page_key(bucket))
        if isinstance(kept, bytes):
            bucket.bytecode_from_string(kept)
            if bucket.code is not None:
                self.code[bucket.key] = kept

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        data = bucket.bytecode_to_string()
        self.code[bucket.key] = data
        compiled.keep(_page_key(bucket), data)


def _page_key(bucket: jinja2.bccache.Bucket) -> str:
    """A page's code on disk: by its template (Jinja's key), the source it was compiled from, and what compiles it
    (Jinja's version, and the web package's modules: the environment's set-up, its filters and globals, whose
    names the compiled code looks up)."""
    return f"page\n{bucket.key}\n{bucket.checksum}\n{jinja2.__version__}\n{_web_stamp()}"


@cache
def _web_stamp() -> str:
    """The web package's modules' stamps, read at the first page's code looked up on disk, not at import."""
    return compiled.files_stamp(sorted(HERE.rglob("*.py")))


_COMPILED = _CompiledPages()


def _stored(text: object) -> Msg | str:
    """What the ``said`` filter is given, as a message: a message value, a stored one's data (a phase's result
    keeps ``why``: id and values), or a text."""
    if isinstance(text, Msg):
        return text
    if isinstance(text, Mapping) and "id" in text:
        return Msg.from_data(text)
    return str(text)


@cache
def _templates(lang: str) -> Jinja2Templates:
    """The pages in language ``lang``: one Jinja environment per language, its catalogues installed (text is
    marked ``{{ _("...") }}`` / ``{% trans %}``; newstyle gettext escapes the values put into a translation, as
    the page escapes everything else).

    One for the process, shared by every app it makes: nothing in it is an app's (its globals and filters are
    the module's, the reader's part comes with each render), and each new environment loaded every page's code
    again at the app's start (about 50 ms of CPU, once for each test's site)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=True,
        extensions=["jinja2.ext.i18n"],
        bytecode_cache=_COMPILED,
        # The templates ship inside the package and change only with it (a new release restarts the server):
        # not asked of the disk at each use, which every page and each macro module it imports did (a stat each,
        # some 2 % of a web process's CPU where readers make pages).
        auto_reload=False,
    )
    env.install_gettext_translations(translations(lang), newstyle=True)  # type: ignore[attr-defined]
    env.globals["gettext"] = kept_gettext(translations(lang).gettext)
    env.globals["quote"] = quote
    # Why mail cannot be sent now (None when it can): the sign-in pages say so where a newcomer waits for a link.
    env.globals["mail_unavailable"] = mail_unavailable
    env.globals["static"] = static_url  # /static/NAME?v=HASH: kept a year by browsers
    env.globals["lang"] = lang
    # The language choice (_language.html): every language, each named in itself.
    env.globals["languages"] = LANGUAGES
    env.globals["language_name"] = language_name

    # Dates and times as the page's language writes them, in the reader's time zone if they chose one, else
    # the zone the template names (a game's), else UTC: {{ t|datetime }}, {{ t|date(zone=g.timezone) }}.
    @jinja2.pass_context
    def _date(ctx: jinja2.runtime.Context, value: Any, form: str = "medium", zone: str | None = None) -> str:
        return format_date(value, lang, _reader_zone(ctx) or zone, form)

    @jinja2.pass_context
    def _datetime(ctx: jinja2.runtime.Context, value: Any, form: str = "medium", zone: str | None = None) -> str:
        return format_datetime(value, lang, _reader_zone(ctx) or zone, form)

    env.filters["date"] = _date
    env.filters["datetime"] = _datetime
    # A message of the layers under the pages (an adjudicator's reason) in the page's language, by its id and
    # values; a text stored before messages were values that no migration could read is shown as it is (or as
    # the catalogue translates it whole): {{ r.reason|said }}.
    env.filters["said"] = lambda text: say(_stored(text), lang, "web") if text else text
    # A score, a rating or a share as the page's language writes numbers (14,29 and 57 % on a German page, as
    # the end mail writes them): {{ s.score|number(2) }}, {{ b.share|percent }}.
    env.filters["number"] = lambda value, places=None: number(value, lang, places)
    env.filters["percent"] = lambda value, places=0: percent(value, lang, places)
    # A phase's name with its season and kind in the page's language (Frühjahr 1901 Bewegung): {{ st.phase|phase }}.
    # A name a view has said already is left as it is (its words are no longer English).
    env.filters["phase"] = lambda name: phase_words(str(name), lang) if name else name
    # A place's split coast in the page's language (Spain (Südküste)): {{ place|coast }}.
    env.filters["coast"] = lambda name: coast_words(str(name), lang) if name else name
    env.filters["bot_level"] = lambda level: say(LEVEL_WORDS[level], lang) if level in LEVEL_WORDS else level
    # The level of the bot a player's name stands for ("bot:random"), or None for a person: a person reads
    # "a bot: random" in their language where the program's name for the seat was.
    env.filters["bot_of"] = bot_level
    # A value as a person sets it in a variant's file or a JSON body (false), not as Python spells it (False).
    env.filters["as_set"] = lambda value: ("true" if value else "false") if isinstance(value, bool) else value
    # A letter as a person reads it: the structured lines bots and programs add for each other ("[dippouch] YES
    # SUP A bur - mun", dippouch.bots.negotiate) left out where the sentence says the same.
    env.filters["for_people"] = for_people
    env.globals["reader_time_zone"] = jinja2.pass_context(_reader_zone)
    env.globals["first_time"] = jinja2.pass_context(_first_time)
    return Jinja2Templates(env=env)


KEPT_WORDS = 20_000
"""The bound of a language's words :func:`kept_gettext` keeps (a template's texts are a few thousand; a page
that translated texts of its own making would otherwise grow it without end)."""


def kept_gettext(translate: Callable[[str], str]) -> Callable[..., str]:
    """Jinja's newstyle ``gettext`` (what ``_("...")`` and ``{% trans %}`` call), its answer for a text without
    values kept for the environment's life: a page calls it some sixty times, each call looking the text up in
    the catalogue, marking it safe and formatting it with no values, the same work for the same text every time.
    With values it does what Jinja's own does (the values escaped into the translated text)."""
    kept: dict[tuple[str, bool], str] = {}

    @jinja2.pass_context
    def gettext(ctx: jinja2.runtime.Context, text: str, /, **values: Any) -> str:
        escape = bool(ctx.eval_ctx.autoescape)
        if not values:
            said = kept.get((text, escape))
            if said is not None:
                return said
        found: str = Markup(translate(text)) if escape else translate(text)
        said = found % values
        if not values:
            if len(kept) >= KEPT_WORDS:
                kept.clear()
            kept[(text, escape)] = said
        return said

    return gettext


def _first_time(ctx: jinja2.runtime.Context, what: str) -> bool:
    """True the first time a page asks about ``what``: a partial included twice (the language choice, in the
    footer and on the account page) shows its one-off part (a form with ids) once."""
    request = ctx.get("request")
    if not isinstance(request, Request):
        return True
    shown: set[str] = getattr(request.state, "shown_once", None) or set()
    request.state.shown_once = shown
    if what in shown:
        return False
    shown.add(what)
    return True


def _reader_zone(ctx: jinja2.runtime.Context) -> str | None:
    """The time zone the page's reader chose (a signed-in person's), if any."""
    request = ctx.get("request")
    return time_zone(request) if isinstance(request, Request) else None


def create_app(
    db_url: str | None = None,
    *,
    store: GameStore | None = None,
    clock: Callable[[], datetime] | None = None,
    scheduler: bool = False,
    scheduler_interval: float = 15.0,
    limits: dict[str, tuple[int, float]] | None = None,
    site: Site | None = None,
    pace: RequestPace | None = None,
    pool: Jobs | None = None,
) -> FastAPI:
    """The app on the database at ``db_url`` (or an open ``store``).

    ``scheduler`` runs the in-process deadline scheduler while the app runs (``dippouch serve`` turns it on).
    ``site`` is the public address links are made from and the hosts answered (default: the installation's,
    :func:`dippouch.settings.site`); it is ``app.state.site``, which a server may set once it knows its port.
    ``pace``: how fast each client may send requests (:func:`request_pace`: the installation's; ``dippouch
    serve`` sets it unless the rate limits are off); None lets every client go as fast as it likes, as the
    tests' sites do, which send hundreds of requests from one client in a second.
    ``pool``: where expensive work runs (:func:`dippouch.web.http.pool.work_pool`: worker processes, which ``dippouch
    serve`` starts; closed when the app stops); None runs it in the request's own thread, as the tests' sites do.
    """
    store = store or GameStore(db_url)
    # The mail server saved on the desk's mail page is this database's: the pages' "mail is not set up" and
    # the in-process scheduler's mail task read it (dippouch.mail.settings.load_settings).
    use_mail_store(store)
    web = Web(store, clock)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        from dippouch.web.http.scheduler import DeadlineScheduler
        from dippouch.web.routes.games import read_in

        # Compiled once before the first request: a server that starts under load otherwise has every
        # thread compile the same templates at once (Jinja's cache is filled by whoever gets there first).
        for env in (t.env for t in templates.values()):
            for template in env.list_templates(extensions=["html"]):
                env.get_template(template)
        # The bots of the games it processes think in the work pool, not in its thread (dippouch.web.http.pool).
        jobs = app.state.pool
        think = None if isinstance(jobs, Inline) else thinking_in(jobs)
        reads = LoopReads.of(store)
        notices = None
        if reads is not None:
            await reads.open()
            web.loop_reads = reads
            # Told of every changed game, a visitor's page held is served without asking until its game changes
            # (dippouch.web.http.page_trust); a page kept anew of a game read here is read in before it is asked.
            notices = PageNotices.of(store, web.page_trust.heard, web.page_trust.set_listening)
            if notices is not None:
                web.page_trust.read_in = partial(read_in, web)
                web.page_trust.start()
                notices.start()
        sched = DeadlineScheduler(web, interval=scheduler_interval, think=think) if scheduler else None
        if sched is not None:
            sched.start()
        try:
            yield
        finally:
            if sched is not None:
                sched.stop()
            if notices is not None:
                await notices.stop()
                await web.page_trust.stop()
            if reads is not None:
                web.loop_reads = None
                await reads.close()
            if pool is not None:
                await run_in_threadpool(pool.close)  # waits for a job under way: not on the loop

    app = App(
        title="dippouch",
        description="Games of Diplomacy variants: game pages, orders, coordination, variants, adjudication.",
        version=__version__,
        lifespan=lifespan,
        docs_url=None,  # our own page (pages.api_docs): FastAPI's loads Swagger UI from a CDN
        redoc_url=None,
        openapi_url="/api/openapi.json",
        # The app's metrics are Prometheus' (/metrics); FastAPI's own OpenTelemetry, asked at every request
        # whether a tracer or meter was set up, never is here.
        telemetry={"tracing": False, "metrics": False, "logs": False},
    )
    app.state.web = web
    app.state.site = site or installation_site()
    app.state.limiter = RateLimiter(DEFAULT_LIMITS if limits is None else limits)
    app.state.budget = work_budget(unlimited=limits == {}, ledger=StoreLedger(web.store, web.read))
    app.state.pace = pace
    app.state.pool = pool if pool is not None else Inline()
    app.state.templates = templates = {lang: _templates(lang) for lang in LANGUAGES}

    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")

    routes(app, *feature_routers())

    def _is_api(request: Request) -> bool:
        return request.url.path.startswith("/api/") or request.headers.get("accept", "").startswith("application/json")

    def _answer(request: Request, status: int, message: Msg, headers: dict[str, str] | None = None) -> Response:
        if _is_api(request):
            return JSONResponse(error_data(message, api_language(request), status), status_code=status, headers=headers)
        text = web_said(message, page_language(request))
        context: dict[str, object] = {"status": status, "message": text}
        viewer = getattr(request.state, "viewer", None)
        if status in (401, 403) and request.method == "GET" and getattr(viewer, "person_id", None) is None:
            # A page a person may open once signed in here (a mailed link opened on another device): signing in
            # brings them back to it.
            query = request.url.query
            context["signin_next"] = request.url.path + (f"?{query}" if query else "")
        wait = number_or_none((headers or {}).get("Retry-After", ""))
        if status in (429, 503) and request.method == "GET" and wait is not None and wait <= RETRY_BY_ITSELF:
            # A page or a drawing asked for while its asker's share of the work is spent (a GIF, then the game's
            # book): the page asks again by itself once the wait is over, rather than leave a bare "slow down".
            query = request.url.query
            context["retry_in"], context["retry_url"] = wait, request.url.path + (f"?{query}" if query else "")
        return render(request, "error.html", context, status=status, headers=headers)

    def _refused(request: Request, status: int, message: Msg, headers: dict[str, str] | None = None) -> Response:
        # A browser's form refused for what it said goes back to its page, the refusal in the page's words.
        if status == 400 and not _is_api(request):
            back = refused_form(request, web_said(message, page_language(request)))
            if back is not None:
                return back
        return _answer(request, status, message, headers)

    @app.exception_handler(WebError)
    async def _web_error(request: Request, exc: WebError) -> Response:
        headers = {"Retry-After": str(exc.retry_after)} if isinstance(exc, TooMany | Busy) else None
        if isinstance(exc, NeedsKey):
            headers = {"WWW-Authenticate": 'Bearer realm="dippouch"'}
        return _refused(request, exc.status, exc.msg, headers)

    @app.exception_handler(DippouchError)
    async def _game_error(request: Request, exc: DippouchError) -> Response:
        return _refused(
            request, 404 if isinstance(exc, NotFound) else 409 if isinstance(exc, Changed) else 400, exc.msg
        )

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> Response:
        parts = []
        for e in exc.errors()[:5]:
            where = ".".join(str(x) for x in e.get("loc", ()) if x not in ("body", "query", "path"))
            parts.append(f"{where or 'request'}: {e.get('msg', 'invalid')}")
        if not parts:
            return _answer(request, 422, msg("the request is not in the expected shape"))
        # pydantic's words stay English (its own, with no catalogue here), the sentence around them is said
        return _answer(
            request, 422, msg("the request is not in the expected shape: %(problems)s", problems="; ".join(parts))
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 304:  # a JSON call's "Not Modified" (dippouch.web.views.page_cache): no body
            return Response(status_code=304, headers=exc.headers)
        known = {
            404: msg("no such page"),
            405: msg("this address does not take that method"),
            413: too_large(request.url.path),
        }
        said = known.get(exc.status_code) or Msg(str(exc.detail))
        # A 405 names the methods the address takes (Allow: RFC 9110 wants it), as the router raised them.
        return _answer(request, exc.status_code, said, dict(exc.headers) if exc.headers else None)

    @app.exception_handler(DatabaseBusy)
    async def _db(request: Request, exc: DatabaseBusy) -> Response:
        log.warning("database busy or unavailable: %s", exc.orig)
        busy = msg("the game database is busy or unavailable; try again in a moment")
        return _answer(request, 503, busy, {"Retry-After": "2"})

    @app.exception_handler(OverflowError)
    async def _overflow(request: Request, exc: OverflowError) -> Response:
        return _answer(request, 400, msg("a number in the request is far too large"))

    @app.exception_handler(DatabaseRefusedValue)
    async def _refused_value(request: Request, exc: DatabaseRefusedValue) -> Response:
        # PostgreSQL refuses what SQLite takes or answers as not there: an id past its integer column
        # (/people/2147483648), text with a NUL character (/games/%00). Logged as a warning: the value was
        # the request's.
        log.warning("the database refused a value of %s %s: %s", request.method, request.url.path, exc.orig)
        if out_of_range(exc):
            return _answer(request, 400, msg("a number in the request is far too large"))
        refused = msg(
            "the request contains a value the database cannot store (a NUL character, or a number out of range)"
        )
        return _answer(request, 400, refused)

    @app.exception_handler(RecursionError)
    async def _deep(request: Request, exc: RecursionError) -> Response:
        return _answer(request, 400, msg("the request is nested too deeply"))

    @app.exception_handler(UnicodeError)
    async def _unicode(request: Request, exc: UnicodeError) -> Response:
        return _answer(request, 400, msg("the request contains text that is not valid Unicode"))

    @app.exception_handler(ClientDisconnect)
    async def _gone(request: Request, exc: ClientDisconnect) -> Response:
        # The client went away while sending (an aborted upload): nobody to answer, nothing to report.
        log.debug("client disconnected during %s %s", request.method, request.url.path)
        return Response(status_code=400)

    @app.exception_handler(Exception)
    async def _bug(request: Request, exc: Exception) -> Response:
        # A bare KeyError lands here too: a name the user got wrong is a NotFound (404 above), so a KeyError
        # is a bug. The id ties what the person sees to the log's traceback, and the exception's own text
        # (a key, perhaps a secret) stays in the log.
        error_id = secrets.token_hex(6)
        log.exception("internal error %s on %s %s", error_id, request.method, request.url.path)
        bug = msg("internal error %(id)s: this is a bug in dippouch; it has been logged under that id", id=error_id)
        return _answer(request, 500, bug)

    from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

    @app.get("/healthz", include_in_schema=False)
    def healthz() -> Response:
        """200 while the database answers; 503 when it does not. Anyone may ask, so the answer says only
        "database unavailable"; the database's own text (file paths, host names, user names) goes to the log."""
        try:
            store.ping()
        except DatabaseError as e:
            log.warning("health check: database unavailable: %s: %s", type(e).__name__, getattr(e, "orig", e))
            return JSONResponse(
                {"status": "unhealthy", "role": "web", "error": "database unavailable"}, status_code=503
            )
        return JSONResponse({"status": "ok", "role": "web", "scheduler": scheduler})

    @app.get("/metrics", include_in_schema=False)
    def metrics(request: Request) -> Response:
        """Prometheus metrics: request latency, and phases processed when the in-process scheduler runs. Only
        for the networks ``DIPPOUCH_METRICS_FROM`` names (this machine by default): to anyone else it is a page
        that does not exist."""
        if not _metrics_client(request):
            return _answer(request, 404, msg("no such page"))
        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)

    def _metrics_client(request: Request) -> bool:
        import ipaddress

        try:
            address = ipaddress.ip_address(request.client.host if request.client else "")
        except ValueError:
            return False
        return any(address in net for net in metrics_networks())

    from starlette_compress import CompressMiddleware

    # Innermost: compressed answers are counted and given their security headers like any other. BREACH
    # (a secret guessed from compressed sizes when attacker-chosen text is reflected beside it): the CSRF
    # token on every page is masked afresh each time (security.csrf_field); the session cookie is SameSite,
    # so a page elsewhere cannot make the browser fetch our signed-in pages for it to measure; and a new link
    # (secret.html) is a different random secret on every answer.
    app.add_middleware(CompressMiddleware, minimum_size=SMALLEST)
    app.add_middleware(Front)  # outside the compression, which it applies itself where an answer needs it
    app.add_middleware(Latency)
    app.add_middleware(Pace)  # inside Hosts: another host's requests are refused before they count
    app.add_middleware(Hosts)  # inside Headers: a refused host still gets the security headers
    app.add_middleware(Headers)
    route_index.install(app.router)
    return app
