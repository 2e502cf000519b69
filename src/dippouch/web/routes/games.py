"""The game list, a game's page, its phases, calendar, game file and maps: pages and JSON."""

from __future__ import annotations

import hashlib
import json
import time
from datetime import datetime
from functools import partial
from typing import Any

from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, Response
from markupsafe import Markup
from pydantic import BaseModel, Field
from starlette.requests import Request

from dippouch.catalog import variants_usable
from dippouch.core.messages import N_
from dippouch.i18n import DEFAULT
from dippouch.web.http.budget import PDF_MAP, PREVIEW
from dippouch.web.http.deps import (
    CSRF_PLACEHOLDER,
    ViewerDep,
    VisibleGame,
    WebDep,
    WriterDep,
    answers,
    api_language,
    board_answer,
    charged_job,
    find_viewer,
    game_file,
    gapped_answer,
    language,
    render,
    render_html,
    viewer_of,
    web_of,
    words,
)
from dippouch.web.http.encoded import OFFERED, Gapped, Pieces, chosen
from dippouch.web.http.forms import PageForm
from dippouch.web.http.front import early
from dippouch.web.http.metrics import shared_pages
from dippouch.web.http.page_trust import Warrant
from dippouch.web.http.security import (
    BadInput,
    Viewer,
    WebNotFound,
    flash_cookie,
    request_state,
    session_token,
)
from dippouch.web.http.service import PAGE_TTL, HeldPage, Web
from dippouch.web.views import games, history, page_cache, practice
from dippouch.web.views.anonymity import seen_powers, takes_part
from dippouch.web.views.answers.games import GameFile, GameListing, GameView, PhaseView
from dippouch.web.views.fog import fog_powers, fog_tag, refuse_in_fog, sight_key
from dippouch.web.views.maps import NO_MAP, pdf_of, preview_of

I18N_DOMAIN = "games"

router = APIRouter(tags=["api"])


def _listing(web: Web, viewer: Viewer) -> list[GameListing]:
    return [GameListing.model_validate(g) for g in games.games_list(web, viewer)]


def _game(
    web: Web,
    name: str,
    viewer: Viewer,
    lang: str | None = None,
    *,
    reading: tuple[str, Any] | None = None,
    picture: bool = False,
) -> GameView:
    """The game as its page (``lang``: the reader's language, which its report is in) and its JSON call (the
    report in the game's own language, as mailed) show it; ``reading`` and ``picture``:
    :func:`dippouch.web.views.games.game_view`'s."""
    return GameView.model_validate(games.game_view(web, name, viewer, lang, reading=reading, picture=picture))


def _phase(
    web: Web, name: str, phase_id: int, viewer: Viewer, *, maps: bool = True, lang: str | None = None
) -> PhaseView:
    """A phase as its page and its JSON call show it: for the game's coordinator, with every version sent;
    the pictures drawn for the page only (``maps``); the report in ``lang`` (the page's reader's language),
    else in the game's own."""
    ph = history.phase_view(web, name, phase_id, viewer, maps=maps, lang=lang)
    subs = history.phase_submissions(web, name, phase_id, viewer)
    if subs is not None:
        ph["submissions"] = subs
    return PhaseView.model_validate(ph)


@router.get("/", include_in_schema=False, response_class=HTMLResponse)
def home(request: Request, web: WebDep, viewer: ViewerDep) -> Response:
    good, _broken = variants_usable()
    variants = [(v.name, v.title) for v in good]
    listed = _listing(web, viewer)
    mine_practice = {g.name for g in listed if g.mine} & practice.practice_games(web) if viewer.grants else set()
    return render(
        request,
        "index.html",
        {
            "games": [g for g in listed if g.name not in mine_practice],
            "practice_games": [g for g in listed if g.name in mine_practice],
            "variants": variants,
            "practice": practice.form_choices(),
        },
    )


ACTIONS = "<!--dippouch:actions-->"
ROSTER = "<!--dippouch:roster-->"
"""Where the reader's own part goes into the game page's shared part (``_game_main.html``)."""


def _anonymous(request: Request) -> bool:
    """A visitor whose page is the same as every other anonymous visitor's (but for the CSRF token)."""
    return not (
        session_token(request) or request.headers.get("authorization") or request.cookies.get(flash_cookie(request))
    )


def _from_cache(request: Request, web: Web, made: tuple[str, datetime | None], page: Gapped | None) -> Response:
    """The anonymous page made for ``made`` (its version, and when what it shows changed): 304 to a browser that
    has it (its ETag names the version and this visitor's CSRF token, which the page's forms carry; or, naming
    no ETag, its If-Modified-Since is no earlier), else the page (``page``: None only where the caller knows
    it is a 304) with this visitor's token, gzipped from the parts compressed once when the browser takes
    gzip."""
    version, changed = made
    etag = page_cache.etag_of(version, "page", page_cache.personal(request))
    headers = page_cache.conditional(etag, changed, web.now())
    headers["Vary"] = f"{headers['Vary']}, Accept-Encoding"  # on a 304 too: it stands for the answer it confirms
    if page is None or page_cache.unchanged(request, headers, changed, forms=True):
        return Response(status_code=304, headers=headers)
    return gapped_answer(request, page, headers)


def _page_key(request: Request, name: str) -> tuple[str, ...]:
    """The anonymous game page's key in this process's memory: one page per language (``Web.touched`` drops
    every one of a game the moment this process changes it)."""
    return _key(name, language(request))


def _key(name: str, lang: str) -> tuple[str, ...]:
    return ("game", name, lang)


@router.route("/games/{name}", methods=["GET"], include_in_schema=False)
async def game_page(request: Request) -> Response:
    """The game page, made once per state of the game and language and shared by every web process
    (:mod:`dippouch.web.views.page_cache`), the reader's own part put in. Anonymous visitors (everyone following a
    game reloads this page: the busiest of a site) are answered on the event loop where they can be
    (:func:`visitor_page`, also asked before the framework: :mod:`dippouch.web.http.front`), and in a thread of the
    pool where the page is to be made or what its phase waits for to be read.

    A plain route (Starlette's, in the router's order), taking the request alone: FastAPI's solving of a route's
    dependencies was a third of the CPU of a page served from memory, and at a reader's pace about 0.2 ms of
    the 1.7 a kept page cost (benchmarks/README.md). Who asks is looked up only for a reader who is not
    anonymous."""
    answer = await visitor_page(request)
    if answer is not None:
        return answer
    name: str = request.path_params["name"]
    web = web_of(request)
    if not _anonymous(request):
        viewer = await find_viewer(request)
        return await run_in_threadpool(_own_page, request, web, viewer, name)
    nobody = viewer_of(request)  # no key, no session: nothing to look up
    state = request_state(request)
    if _READ not in state:
        return await run_in_threadpool(_anonymous_page, request, web, nobody, name)
    now: page_cache.Current | None
    now, warrant = state[_READ]
    if now is None or now.shared.visibility == "private":
        raise page_cache.no_game(name)
    return await run_in_threadpool(_anonymous_page, request, web, nobody, name, now, warrant)


_READ = "game_page_read"
"""Where :func:`visitor_page` leaves the game's state it read (None: no such game), with the warrant it was read
under, for the rest of the route."""


async def visitor_page(request: Request) -> Response | None:
    """An anonymous visitor's game page answered on the event loop, or None: from this process's memory, looked
    up without the database (nor a thread of the pool) for :data:`PAGE_TTL` seconds, then confirmed against the
    game's state: one query (awaited on the loop where the database allows: :mod:`dippouch.store.loop_reads`,
    the state it read left for the route), a 304 to a browser that has it, or the page kept for that state.
    None for anyone else, and where a page is to be made or what its phase waits for is to be read."""
    state = request_state(request)
    if not _anonymous(request) or _READ in state:
        return None  # tried before the framework already: what it read is the route's
    name: str = request.path_params["name"]
    web = web_of(request)
    if (answer := _in_memory(request, web, name)) is not None:
        return answer
    reads = web.loop_reads
    if reads is None or not reads.usable:
        return None
    warrant = web.page_trust.warrant(name)  # before the query: a change it does not see voids it
    now = await page_cache.current_on_loop(web, reads, name, "page", language(request))
    state[_READ] = (now, warrant)
    if now is None or now.shared.visibility == "private":
        return None
    return _served(request, web, name, now, on_loop=True, warrant=warrant)


def visitor_page_now(request: Request) -> Response | None:
    """:func:`visitor_page` where this process's memory answers it, asking nothing (the front's lane:
    :mod:`dippouch.web.http.front`); None for anyone else, and where the page is to be confirmed."""
    if not _anonymous(request):
        return None
    return _in_memory(request, web_of(request), request.path_params["name"])


def _in_memory(request: Request, web: Web, name: str) -> Response | None:
    """An anonymous visitor's page from this process's memory: fresh (:data:`PAGE_TTL`), or held with nothing
    heard of its game since; None: none, or it is to be confirmed."""
    key = _page_key(request, name)
    page = web.pages.get(key)
    if page is None or page.visibility == "private":
        return None
    if time.monotonic() - page.at < PAGE_TTL:
        shared_pages("page", "memory").inc()
        return _from_cache(request, web, page.made, page.page)
    held = page if _held(web, name, page) else _passed(web, key, name, page)
    if held is None:
        return None
    shared_pages("page", "held").inc()
    return _from_cache(request, web, held.made, held.page)


def _held(web: Web, name: str, page: HeldPage) -> bool:
    """Whether ``page`` is still the game's without asking: heard of no change since it was read (and its
    deadline not passed)."""
    trust = page.trust
    return trust is not None and web.page_trust.holds(name, trust[0], trust[1], web.now())


def _passed(web: Web, key: tuple[str, ...], name: str, page: HeldPage) -> HeldPage | None:
    """``page`` past its deadline, held in its place, where nothing else is heard of since it was read and its
    phase waits for processing alone: the game's state is the one it was read with, and the page kept for it
    the one it was made of (kept across the deadline), so its pieces are shown as a look would show them,
    without the look (at a thousand games turning every 30 s, a reader in five came in that second or two).
    None: it is to be looked at."""
    trust, past = page.trust, page.past
    if trust is None or trust[1] is None or past is None or not web.page_trust.holds(name, trust[0], None, web.now()):
        return None
    pieces, made = past
    shown = page_cache.shown(b"", pieces, "processing")
    held = HeldPage(time.monotonic(), made, page.visibility, shown, (trust[0], None))
    web.hold_page(key, held)
    return held


def _past(now: page_cache.Current, pieces: Pieces | None) -> tuple[Pieces, tuple[str, datetime]] | None:
    """What a page of the state ``now`` is shown by once its deadline passes without a look (:func:`_passed`):
    its pieces, and its version and Last-Modified then. None where that is to be looked at: no deadline ahead
    (none, or passed already: the page shows it), a phase that may then wait for the coordinator's review of its
    mail (read when it is shown), a page kept without its pieces."""
    if pieces is None or now.passing is None or now.shared.may_wait:
        return None
    return pieces, now.passing


async def read_in(web: Web, names: list[str], lang: str) -> None:
    """The visitors' pages of ``names`` in ``lang`` kept anew by other processes, read into this process's memory
    in one query before their first readers ask, where the memory holds the game's page already (a game someone
    here reads) and the new one may be shown as kept (nothing more to ask: :func:`_asks`)."""
    reads = web.loop_reads
    held = [name for name in names if _key(name, lang) in web.pages]
    if not held or reads is None or not reads.usable:
        return
    warrants = {name: web.page_trust.warrant(name) for name in held}
    for name, now in (await page_cache.currents_on_loop(web, reads, held, "page", lang)).items():
        key = _key(name, lang)
        if now.shared.visibility != "private" and not _asks(now) and key in web.pages:
            _hold_kept(web, key, name, now, warrants[name])


def _trust(now: page_cache.Current, warrant: Warrant | None) -> tuple[Warrant, datetime | None] | None:
    """What a page of the state ``now`` read under ``warrant`` is held by: its deadline before it (the page then
    says it has passed); past it, nothing but a change (what the phase then waits for changes with the mail,
    which is heard of too: migration 0037)."""
    return None if warrant is None else (warrant, None if now.due else now.shared.deadline)


def _rewait(now: page_cache.Current, warrant: Warrant | None) -> bool:
    """Whether what the phase of ``now``, past its deadline, waits for is to be read again rather than shown as
    this process last read it: when its page, held, was let go by a change heard of (its mail may have changed).
    Not while nothing is heard: the page in memory is then shown as it is until the game's state changes."""
    return warrant is not None and _asks(now)


def _asks(now: page_cache.Current) -> bool:
    """Whether the page of the state ``now`` is shown only once what its phase waits for is read (a query): past
    its deadline, in a game whose phase may wait for the coordinator's review of its mail (else it waits for
    processing, which the lookup told already)."""
    return now.due and now.shared.may_wait and (kept := now.kept) is not None and page_cache.has_deadline_forms(kept)


early(game_page, visitor_page, visitor_page_now)


def _anonymous_page(
    request: Request,
    web: Web,
    viewer: Viewer,
    name: str,
    now: page_cache.Current | None = None,
    warrant: Warrant | None = None,
) -> Response:
    """A visitor's page, of the game's state ``now`` when it was read already (under ``warrant``). The game's
    visibility comes with its state in the one query: a private game is seen by its players, coordinators and
    stand-ins only, none of whom a visitor without a key or session is."""
    lang = language(request)
    if now is None:
        now = page_cache.current(web, name, "page", lang)
        if now is None or now.shared.visibility == "private":
            raise page_cache.no_game(name)
    answer = _served(request, web, name, now, on_loop=False, warrant=warrant)
    if answer is not None:
        return answer
    key = _page_key(request, name)
    made = (now.version, now.changed)
    page = web.pages.get(key)
    building = web.page_lock(name)
    if page is not None:
        # The game changed since its page was made, and no process has made the new one yet. One request of
        # this process makes it; the others that arrive meanwhile get the page as it was until that is done
        # (tens of milliseconds), rather than each waiting in a server thread: a busy game's readers would
        # otherwise take every thread, and the submissions that changed the game would queue behind them. A
        # phase processed by this process drops the page at once (Web.touched), so nobody is shown a phase
        # this process processed as open.
        if not building.acquire(blocking=False):
            shared_pages("page", "memory").inc()
            return _from_cache(request, web, page.made, page.page)
        waited = False
    else:
        waited = page_cache.hold(building)
    try:
        make = partial(made_page, request, web, viewer, name, lang, now.reading)
        body, pieces = page_cache.made_deflated(web, name, "page", lang, now, make, waited=waited)
        page_now = _shown(web, name, now, body, pieces)
        trust = _trust(now, warrant)
        web.hold_page(key, HeldPage(time.monotonic(), made, now.shared.visibility, page_now, trust, _past(now, pieces)))
    finally:
        building.release()
    return _from_cache(request, web, made, page_now)


def _served(
    request: Request, web: Web, name: str, now: page_cache.Current, *, on_loop: bool, warrant: Warrant | None = None
) -> Response | None:
    """A visitor's page of the state ``now`` without making it: this process's own, a 304, or the page kept
    for that state. None: it is to be made; or, ``on_loop`` (no query may be sent), its deadline has passed and
    what the phase then waits for is still to be read."""
    key = _page_key(request, name)
    made = (now.version, now.changed)
    page = web.pages.get(key)
    if page is not None and page.made[0] == now.version and not _rewait(now, warrant):
        past = _past(now, None if page.past is None else page.past[0])  # the mail may have changed
        held = page._replace(
            at=time.monotonic(), visibility=now.shared.visibility, trust=_trust(now, warrant), past=past
        )
        web.hold_page(key, held)
        shared_pages("page", "memory").inc()
        return _from_cache(request, web, page.made, page.page)
    etag = page_cache.etag_of(now.version, "page", page_cache.personal(request))
    if page_cache.unchanged(request, {"ETag": etag}, now.changed, forms=True):
        return _from_cache(request, web, made, None)  # a 304: nothing made
    if on_loop and _asks(now):
        return None  # before its pieces are unpacked: the thread that reads what the phase waits for unpacks them
    kept = _hold_kept(web, key, name, now, warrant)
    if kept is None:
        return None
    shared_pages("page", "kept").inc()
    return _from_cache(request, web, made, kept)


def _hold_kept(
    web: Web, key: tuple[str, ...], name: str, now: page_cache.Current, warrant: Warrant | None
) -> Gapped | None:
    """The page kept for the state ``now`` as shown now, put in this process's memory under ``key`` (held by
    ``warrant``); None: none is kept for that state."""
    kept = page_cache.kept_pieces(now, "page")
    if kept is None:
        return None
    page = _shown(web, name, now, *kept)
    made = (now.version, now.changed)
    web.hold_page(
        key, HeldPage(time.monotonic(), made, now.shared.visibility, page, _trust(now, warrant), _past(now, kept[1]))
    )
    return page


def _shown(web: Web, name: str, now: page_cache.Current, body: str | bytes, pieces: Pieces | None) -> Gapped:
    """The page ``body`` as shown now: past its deadline, with what the phase then waits for (a query where it
    may be the coordinator's review: :attr:`dippouch.store.page_cache.Shared.may_wait`)."""
    if not (now.due and page_cache.has_deadline_forms(body)):
        return page_cache.shown(body, pieces, None)
    return page_cache.shown(body, pieces, games.waits_for(web, name) if now.shared.may_wait else "processing")


def made_page(request: Request, web: Web, viewer: Viewer, name: str, lang: str, reading: tuple[str, Any]) -> str:
    """The anonymous page whole (the CSRF field a placeholder each visitor's token replaces) of the game as
    ``reading`` (:attr:`dippouch.web.views.page_cache.Current.reading`: the state it is kept under); made by its first
    reader, or ahead of them by the worker that processed the game (:mod:`dippouch.web.views.prepared`)."""
    # Not asking what a phase past its deadline waits for: the page is kept across it (DUE_APART).
    g = GameView.model_validate(games.game_view(web, name, viewer, lang, reading=reading, overdue=False, picture=True))
    context: dict[str, Any] = {"g": g, "actions": "", "roster": ""}
    if g.state == "active" and g.deadline:
        # Kept across the deadline: each form of the box, the one the moment calls for shown as it is served.
        macros = request.app.state.templates[language(request)].get_template("_macros.html")
        box = macros.make_module({"request": request}).deadline
        forms = (str(box(g)), *(str(box(g.model_copy(update={"overdue": w}))) for w in ("processing", "review")))
        context["deadline_box"] = Markup(page_cache.deadline_forms(*forms))
    main = render_html(request, "_game_main.html", context)
    return render_html(request, "game.html", {"g": g, "main": Markup(main), "csrf": CSRF_PLACEHOLDER})


_HEAD = ("name", "phase", "variant", "variant_title", "preview_url", "state")
"""What of the game the page's head (title, description, preview, the powers' colours) shows."""


def _own_page(request: Request, web: Web, viewer: Viewer, name: str) -> Response:
    """A signed-in reader's game page: the shared part every reader who sees the game as they do shares (the
    same names hidden or shown, the same people's matters), made once per state and language; their seats'
    buttons and links put in."""
    lang = language(request)
    seen = seen_powers(web, name, viewer)
    member = takes_part(viewer, name)
    sight = "all" if seen is None else hashlib.sha256("\n".join(sorted(seen)).encode()).hexdigest()[:16]
    sight = sight_key(sight, fog_powers(web, name, viewer))
    kind = f"main-{'member' if member else 'reader'}-{sight}"
    now = page_cache.visible(web, name, viewer, kind, lang)
    practice.note_visit(web, name, viewer)  # a game bots alone play that someone looks at is not paused
    my_powers, coordinator = viewer.powers(name), viewer.coordinates(name)
    own = (page_cache.personal(request), ",".join(my_powers), str(coordinator))
    headers = page_cache.conditional(page_cache.etag_of(now.version, kind, *own), now.changed, web.now())
    if page_cache.unchanged(request, headers, now.changed, forms=True):
        return Response(status_code=304, headers=headers)

    def make() -> str:
        g = _game(web, name, viewer, lang, reading=now.reading, picture=True)
        main = render_html(request, "_game_main.html", {"g": g, "actions": Markup(ACTIONS), "roster": Markup(ROSTER)})
        return json.dumps({"g": {k: getattr(g, k) for k in _HEAD}, "main": main}, ensure_ascii=False)

    building = web.page_lock(name)
    waited = page_cache.hold(building)
    try:
        shared = page_cache.read_once(web, page_cache.made(web, name, kind, lang, now, make, waited=waited))
    finally:
        building.release()
    mine = request.app.state.templates[lang].env.get_template("_game_personal.html").module
    main = (
        shared["main"]
        .replace(ACTIONS, str(mine.actions(name, my_powers, coordinator, shared["g"].get("state") == "finished")), 1)
        .replace(ROSTER, str(mine.roster(name, bool(my_powers or coordinator))), 1)
    )
    return render(request, "game.html", {"g": shared["g"], "main": Markup(main)}, headers=headers)


@router.get("/games/{name}/phases/{phase_id}", include_in_schema=False, response_class=HTMLResponse)
def phase_page(request: Request, name: str, phase_id: int, web: WebDep, viewer: ViewerDep) -> Response:
    lang = language(request)
    ph = _phase(web, name, phase_id, viewer, lang=lang)
    g = _game(web, name, viewer, lang)
    return render(request, "phase.html", {"ph": ph, "g": g})


@router.get("/games/{name}/calendar.ics", include_in_schema=False)
def calendar(request: Request, name: str, web: WebDep, viewer: ViewerDep) -> Response:
    """The deadlines as a calendar feed, which calendar programs poll: 304 while the game stands still."""
    headers = page_cache.game_headers(request, web, name, viewer, "ics")
    data = history.calendar_ics(web, name, viewer)
    return Response(data, media_type="text/calendar; charset=utf-8", headers=headers)


UNSEALED_BY_POST = N_(
    "an unsealed export opens the seal, which the players are shown: ask for it with the desk's form "
    "\u201cExport with this phase's orders unsealed\u201d (a POST with the reason), not a link"
)


@router.get("/games/{name}/export.json", include_in_schema=False)
def export(request: Request, name: str, web: WebDep, viewer: ViewerDep, unsealed: bool = False) -> Response:
    if unsealed:
        # A GET must change nothing: a link (on another site, too) must not open the seal.
        raise BadInput(words(request).gettext(UNSEALED_BY_POST))
    refuse_in_fog(web, name, viewer)
    return _game_file(name, history.export(web, name, viewer))


@router.post("/games/{name}/export.json", include_in_schema=False)
def export_unsealed(form: PageForm, name: str, web: WebDep, viewer: ViewerDep) -> Response:
    """The coordinator's file with the open phase's orders unsealed, to move a running game; the reason is
    recorded and shown to the players. (The form first: a post from another site is refused as that.)"""
    refuse_in_fog(web, name, viewer)  # a coordinator who plays in a fog game sees as a player
    data = history.export(web, name, viewer, unsealed=True, reason=form.get("reason", ""))
    return _game_file(name, data)


def _game_file(name: str, data: dict[str, Any]) -> Response:
    """The game file as a download, written as the store made it (the JSON call answers it as :class:`GameFile`)."""
    text = json.dumps(data, ensure_ascii=False, indent=1)
    return game_file(text.encode(), "application/json", name, ".json", disposition="attachment")


def _svg(web: Web, viewer: Viewer, name: str, phase: int | None, lang: str = DEFAULT) -> str:
    svg = games.game_map(web, name, viewer, lang=lang) if phase is None else _phase_svg(web, name, phase, viewer, lang)
    if svg is None:
        raise WebNotFound(NO_MAP)
    return svg


def _phase_svg(web: Web, name: str, phase: int, viewer: Viewer, lang: str = DEFAULT) -> str | None:
    """A phase's own picture (orders and results drawn once processed), as its page shows it."""
    svg = history.phase_view(web, name, phase, viewer, lang=None if lang == DEFAULT else lang)["map_svg"]
    return None if svg is None else str(svg)


@router.get("/games/{name}/map.svg", include_in_schema=False)
def map_svg(request: Request, name: str, web: WebDep, viewer: ViewerDep, phase: int | None = None) -> Response:
    """The game's map now (or a phase's): 304 while the game stands still. Its own words in the language the
    address names (``?lang=de``: the page's links name the reader's; another language: English)."""
    lang = api_language(request)
    what = ("map" if phase is None else f"map-{phase}") + ("" if lang == DEFAULT else f"-{lang}")
    headers = page_cache.game_headers(request, web, name, viewer, what)
    return Response(_svg(web, viewer, name, phase, lang), media_type="image/svg+xml", headers=headers)


@router.get("/games/{name}/phases/{phase_id}/map-{view}.svg", include_in_schema=False)
def phase_map(
    request: Request,
    name: VisibleGame,
    phase_id: int,
    view: str,
    web: WebDep,
    viewer: ViewerDep,
) -> Response:
    """One picture of a phase (``MAP_VIEWS``), the same for as long as it exists: the browser keeps it. Kept
    private (not in shared caches): a game can be made private later. Its own words (the heading's phase, the
    legend) in the language a page in German or French names in the address (another language: English)."""
    from dippouch import __version__

    lang = api_language(request)
    said = "" if lang == DEFAULT else f"-{lang}"
    etag = f'"{phase_id}-{view}-{__version__}{fog_tag(fog_powers(web, name, viewer))}{said}"'
    headers = {"ETag": etag, "Cache-Control": "private, max-age=31536000, immutable", "Vary": "Accept-Encoding"}
    if etag in request.headers.get("if-none-match", ""):
        return Response(status_code=304, headers=headers)
    coding = chosen(request.headers.get("accept-encoding"), OFFERED)
    if coding is None:
        plain = games.phase_map(web, name, phase_id, view, viewer, lang=lang)
        return Response(plain, media_type="image/svg+xml", headers=headers)
    # Compressed once for every reader (a standard map: some 220 KB plain, 65 KB in brotli), not per request.
    headers["Content-Encoding"] = coding
    picture = games.phase_map_encoded(web, name, phase_id, view, viewer, coding, lang)
    return Response(picture, media_type="image/svg+xml", headers=headers)


@router.get("/games/{name}/board-{digest}.svg", include_in_schema=False)
def board_svg(request: Request, name: str, digest: str, web: WebDep, viewer: ViewerDep) -> Response:
    """The board's fixed parts of a game whose copy of its variant draws another board than the variant's file
    does now (the pages of every other game name the variant's: :func:`dippouch.web.views.games.board_url`),
    which its pages draw by reference (``<use>``). Kept in shared caches too unless the game is private: it
    shows the variant's board, nothing of the game (:func:`dippouch.web.http.deps.board_answer`)."""
    current, svg, visibility = games.board(web, name, viewer)
    return board_answer(request, web, (current, svg), digest, public=visibility != "private")


@router.get("/games/{name}/phases/{phase_id}/preview-{view}.png", include_in_schema=False)
def phase_preview(
    request: Request, name: VisibleGame, phase_id: int, view: str, web: WebDep, viewer: ViewerDep
) -> Response:
    """A phase's picture as a link's preview (Open Graph, Twitter cards): what a game's link pasted where players
    organise (Discord, Slack, a mail program) shows. The same for as long as the phase exists, like the SVG."""
    from dippouch import __version__

    etag = f'"preview-{phase_id}-{view}-{__version__}{fog_tag(fog_powers(web, name, viewer))}"'
    headers = {"ETag": etag, "Cache-Control": "private, max-age=31536000, immutable"}
    if etag in request.headers.get("if-none-match", ""):
        return Response(status_code=304, headers=headers)
    svg = games.phase_map(web, name, phase_id, view, viewer)
    maps = web.maps
    # A first drawing takes a second: charged to the asker in the drawing lane, as a PDF map's is.
    png = maps.cached_preview(svg) or maps.keep_preview(
        svg, charged_job(request, preview_of, svg, lane="draw", estimate=PREVIEW)
    )
    if png is None:
        raise WebNotFound(N_("previews need the map renderer, which is not installed"))
    return Response(png, media_type="image/png", headers=headers)


@router.get("/games/{name}/map.pdf", include_in_schema=False)
def map_pdf(request: Request, name: str, web: WebDep, viewer: ViewerDep, phase: int | None = None) -> Response:
    maps = web.maps
    lang = api_language(request)
    svg = _svg(web, viewer, name, phase, lang)
    variant = web.variant_of(name)
    # A first drawing takes seconds: charged to the asker in the drawing lane.
    pdf = maps.cached_pdf(svg) or maps.keep_pdf(
        svg, charged_job(request, pdf_of, svg, variant, lang, lane="draw", estimate=PDF_MAP)
    )
    if pdf is None:
        raise WebNotFound(N_("PDF maps need the map renderer, which is not installed"))
    return game_file(pdf, "application/pdf", name, ".pdf")


@router.get("/api/games", **answers(list[GameListing]))
def api_games(web: WebDep, viewer: ViewerDep) -> list[GameListing]:
    """Listed games (and the caller's own)."""
    return _listing(web, viewer)


@router.get("/api/games/{name}", **answers(GameView))
def api_game(request: Request, response: Response, name: str, web: WebDep, viewer: ViewerDep) -> GameView:
    """A game's public state: phase, deadline, who has sent orders and who is ready (never what), centres, last
    report. With its ETag: a client polling it with If-None-Match gets 304 until the game changes."""
    response.headers.update(page_cache.game_headers(request, web, name, viewer, "api"))
    return _game(web, name, viewer)


@router.get("/api/games/{name}/phases/{phase_id}", **answers(PhaseView))
def api_phase(name: str, phase_id: int, web: WebDep, viewer: ViewerDep) -> PhaseView:
    """One phase of the history: position, orders and results once processed, report, neighbours; for the
    game's coordinator also every version each power sent (sealed until the deadline)."""
    return _phase(web, name, phase_id, viewer, maps=False)


@router.get("/api/games/{name}/export", **answers(GameFile))
def api_export(name: str, web: WebDep, viewer: ViewerDep, unsealed: bool = False) -> GameFile:
    """The game file (submissions only for the coordinator; the open phase's sealed until its deadline:
    to move a running game the coordinator asks for it unsealed with ``POST``, giving the reason)."""
    if unsealed:
        raise BadInput(
            "an unsealed export opens the seal, which the players are shown: POST to this address with "
            '{"reason": "..."}; a GET changes nothing'
        )
    refuse_in_fog(web, name, viewer)
    return GameFile.model_validate(history.export(web, name, viewer))


class UnsealIn(BaseModel):
    reason: str = Field(max_length=500, description="why the sealed orders are opened: shown to the players")


@router.post("/api/games/{name}/export", **answers(GameFile))
def api_export_unsealed(name: str, body: UnsealIn, web: WebDep, viewer: WriterDep) -> GameFile:
    """The coordinator's game file with the open phase's orders unsealed, to move a running game; the
    opening is recorded with the reason and shown to the players."""
    refuse_in_fog(web, name, viewer)  # a coordinator who plays in a fog game sees as a player
    return GameFile.model_validate(history.export(web, name, viewer, unsealed=True, reason=body.reason))
