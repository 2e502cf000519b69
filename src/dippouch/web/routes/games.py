"""The game list, a game's page, its phases, calendar, game file and maps: pages and JSON."""

from __future__ import annotations

import json
import time
from typing import Any

from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, Field
from starlette.requests import Request

from dippouch.catalog import variants_usable
from dippouch.core.messages import N_
from dippouch.web import games, history, practice
from dippouch.web.answers.games import GameFile, GameListing, GameView, PhaseView
from dippouch.web.budget import PDF_MAP, PREVIEW
from dippouch.web.deps import (
    ViewerDep,
    VisibleGame,
    WebDep,
    WriterDep,
    answers,
    charged_job,
    game_file,
    language,
    render,
    render_html,
    set_csrf_cookie,
    speaks,
    words,
)
from dippouch.web.forms import PageForm
from dippouch.web.maps import pdf_of, preview_of
from dippouch.web.security import (
    BadInput,
    NotFound,
    Viewer,
    csrf_field,
    flash_cookie,
    session_token,
)
from dippouch.web.service import PAGE_TTL, Web

I18N_DOMAIN = "games"

router = APIRouter(tags=["api"])


def _listing(web: Web, viewer: Viewer) -> list[GameListing]:
    return [GameListing.model_validate(g) for g in games.games_list(web, viewer)]


def _game(web: Web, name: str, viewer: Viewer, lang: str | None = None) -> GameView:
    """The game as its page (``lang``: the reader's language, which its report is in) and its JSON call (the
    report in the game's own language, as mailed) show it."""
    return GameView.model_validate(games.game_view(web, name, viewer, lang))


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


PLACEHOLDER = "__dippouch_csrf_placeholder__"


def _anonymous(request: Request) -> bool:
    """A visitor whose page is the same as every other anonymous visitor's (but for the CSRF token)."""
    return not (
        session_token(request) or request.headers.get("authorization") or request.cookies.get(flash_cookie(request))
    )


def _from_cache(request: Request, html: str) -> Response:
    resp = HTMLResponse(html.replace(PLACEHOLDER, csrf_field(request)))
    set_csrf_cookie(request, resp)
    speaks(request, resp)
    return resp


def _page_key(request: Request, name: str) -> tuple[str, ...]:
    """The anonymous game page's key in the page cache: one page per language. English keeps the plain key
    (``Web.touched`` drops it the moment this process changes the game); another language's page is confirmed
    against the game's change marker once it is :data:`PAGE_TTL` old."""
    lang = language(request)
    return ("game", name) if lang == "en" else ("game", name, lang)


@router.get("/games/{name}", include_in_schema=False, response_class=HTMLResponse)
async def game_page(request: Request, name: str, web: WebDep, viewer: ViewerDep) -> Response:
    """The game page. Anonymous visitors (everyone following a game reloads this page: the busiest of a
    site) get a page rendered once per change of the game and served from memory, looked up without
    the database (nor a thread of the pool) for :data:`PAGE_TTL` seconds, then confirmed against the game's
    change marker."""
    if _anonymous(request):
        page = web.pages.get(_page_key(request, name))
        if page is not None and page[2] != "private" and time.monotonic() - page[0] < PAGE_TTL:
            return _from_cache(request, page[3])
    return await run_in_threadpool(_game_page, request, web, viewer, name)


def _game_page(request: Request, web: Web, viewer: Viewer, name: str) -> Response:
    anonymous = _anonymous(request) and not viewer.grants
    if not anonymous:
        g = _game(web, name, viewer, language(request))
        practice.note_visit(web, name, viewer)  # a game bots alone play that someone looks at is not paused
        ctx = {"g": g, "my_powers": viewer.powers(name), "coordinator": viewer.coordinates(name)}
        return render(request, "game.html", ctx)
    key = _page_key(request, name)
    st = web.state(name)
    page = web.pages.get(key)
    if st is not None and page is not None and st[0] != "private" and page[1] == st[1]:
        web.pages[key] = (time.monotonic(), page[1], st[0], page[3])
        return _from_cache(request, page[3])
    building = web.page_lock(name)
    if page is not None and st is not None and st[0] != "private":
        # The game changed since its page was made. One request remakes it; the others that arrive
        # meanwhile get the page as it was until that is done (tens of milliseconds), rather than each
        # waiting in a server thread: a busy game's readers would otherwise take every thread, and the
        # submissions that changed the game would queue behind them. A phase processed by this process
        # drops the page at once (Web.touched), so nobody is shown a processed phase as open here.
        if not building.acquire(blocking=False):
            return _from_cache(request, page[3])
    else:
        building.acquire()
    try:
        st = web.state(name)
        page = web.pages.get(key)
        if st is not None and page is not None and st[0] != "private" and page[1] == st[1]:
            return _from_cache(request, page[3])  # made by the request this one waited for
        g = _game(web, name, viewer, language(request))
        ctx = {"g": g, "my_powers": [], "coordinator": False, "csrf": PLACEHOLDER}
        html = render_html(request, "game.html", ctx)
        if st is not None:  # kept under the marker read before it was made (the view's own is the reader's)
            web.pages[key] = (time.monotonic(), st[1], g.visibility, html)
    finally:
        building.release()
    return _from_cache(request, html)


@router.get("/games/{name}/phases/{phase_id}", include_in_schema=False, response_class=HTMLResponse)
def phase_page(request: Request, name: str, phase_id: int, web: WebDep, viewer: ViewerDep) -> Response:
    lang = language(request)
    ph = _phase(web, name, phase_id, viewer, lang=lang)
    g = _game(web, name, viewer, lang)
    return render(request, "phase.html", {"ph": ph, "g": g})


@router.get("/games/{name}/calendar.ics", include_in_schema=False)
def calendar(name: str, web: WebDep, viewer: ViewerDep) -> Response:
    data = history.calendar_ics(web, name, viewer)
    return Response(data, media_type="text/calendar; charset=utf-8")


UNSEALED_BY_POST = N_(
    "an unsealed export opens the seal, which the players are shown: ask for it with the desk's form "
    "\u201cExport with this phase's orders unsealed\u201d (a POST with the reason), not a link"
)


@router.get("/games/{name}/export.json", include_in_schema=False)
def export(request: Request, name: str, web: WebDep, viewer: ViewerDep, unsealed: bool = False) -> Response:
    if unsealed:
        # A GET must change nothing: a link (on another site, too) must not open the seal.
        raise BadInput(words(request).gettext(UNSEALED_BY_POST))
    return _game_file(name, history.export(web, name, viewer))


@router.post("/games/{name}/export.json", include_in_schema=False)
def export_unsealed(form: PageForm, name: str, web: WebDep, viewer: ViewerDep) -> Response:
    """The coordinator's file with the open phase's orders unsealed, to move a running game; the reason is
    recorded and shown to the players. (The form first: a post from another site is refused as that.)"""
    data = history.export(web, name, viewer, unsealed=True, reason=form.get("reason", ""))
    return _game_file(name, data)


def _game_file(name: str, data: dict[str, Any]) -> Response:
    """The game file as a download, written as the store made it (the JSON call answers it as :class:`GameFile`)."""
    text = json.dumps(data, ensure_ascii=False, indent=1)
    return game_file(text.encode(), "application/json", name, ".json", disposition="attachment")


def _svg(web: Web, viewer: Viewer, name: str, phase: int | None) -> str:
    svg = games.game_map(web, name, viewer) if phase is None else _phase_svg(web, name, phase, viewer)
    if svg is None:
        raise NotFound("no map can be drawn for this game yet (the map renderer or this variant's geometry is missing)")
    return svg


def _phase_svg(web: Web, name: str, phase: int, viewer: Viewer) -> str | None:
    """A phase's own picture (orders and results drawn once processed), as its page shows it."""
    svg = history.phase_view(web, name, phase, viewer)["map_svg"]
    return None if svg is None else str(svg)


@router.get("/games/{name}/map.svg", include_in_schema=False)
def map_svg(name: str, web: WebDep, viewer: ViewerDep, phase: int | None = None) -> Response:
    return Response(_svg(web, viewer, name, phase), media_type="image/svg+xml")


@router.get("/games/{name}/phases/{phase_id}/map-{view}.svg", include_in_schema=False)
def phase_map(
    request: Request, name: VisibleGame, phase_id: int, view: str, web: WebDep, viewer: ViewerDep
) -> Response:
    """One picture of a phase (``MAP_VIEWS``), the same for as long as it exists: the browser keeps it. Kept
    private (not in shared caches): a game can be made private later."""
    from dippouch import __version__

    etag = f'"{phase_id}-{view}-{__version__}"'
    headers = {"ETag": etag, "Cache-Control": "private, max-age=31536000, immutable"}
    if etag in request.headers.get("if-none-match", ""):
        return Response(status_code=304, headers=headers)
    return Response(games.phase_map(web, name, phase_id, view, viewer), media_type="image/svg+xml", headers=headers)


@router.get("/games/{name}/board-{digest}.svg", include_in_schema=False)
def board_svg(request: Request, name: str, digest: str, web: WebDep, viewer: ViewerDep) -> Response:
    """The board's fixed parts, which the player's page draws by reference (``<use>``): its address names its
    content's hash, so the browser keeps it a year and a second visit asks for none of it. Kept in shared caches
    too unless the game is private: it shows the variant's board, nothing of the game. An old hash (a page from
    before the variant's board changed) is answered with the board as it is now, asked for again each time."""
    current, svg, visibility = games.board(web, name, viewer)
    if digest != current:
        return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": "no-cache"})
    who = "private" if visibility == "private" else "public"
    headers = {"ETag": f'"board-{current}"', "Cache-Control": f"{who}, max-age=31536000, immutable"}
    if headers["ETag"] in request.headers.get("if-none-match", ""):
        return Response(status_code=304, headers=headers)
    return Response(svg, media_type="image/svg+xml", headers=headers)


@router.get("/games/{name}/phases/{phase_id}/preview-{view}.png", include_in_schema=False)
def phase_preview(
    request: Request, name: VisibleGame, phase_id: int, view: str, web: WebDep, viewer: ViewerDep
) -> Response:
    """A phase's picture as a link's preview (Open Graph, Twitter cards): what a game's link pasted where players
    organise (Discord, Slack, a mail program) shows. The same for as long as the phase exists, like the SVG."""
    from dippouch import __version__

    etag = f'"preview-{phase_id}-{view}-{__version__}"'
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
        raise NotFound("previews need the map renderer, which is not installed")
    return Response(png, media_type="image/png", headers=headers)


@router.get("/games/{name}/map.pdf", include_in_schema=False)
def map_pdf(request: Request, name: str, web: WebDep, viewer: ViewerDep, phase: int | None = None) -> Response:
    maps = web.maps
    svg = _svg(web, viewer, name, phase)
    variant = web.variant_of(name)
    # A first drawing takes seconds: charged to the asker in the drawing lane.
    pdf = maps.cached_pdf(svg) or maps.keep_pdf(
        svg, charged_job(request, pdf_of, svg, variant, lane="draw", estimate=PDF_MAP)
    )
    if pdf is None:
        raise NotFound("PDF maps need the map renderer, which is not installed")
    return game_file(pdf, "application/pdf", name, ".pdf")


@router.get("/api/games", **answers(list[GameListing]))
def api_games(web: WebDep, viewer: ViewerDep) -> list[GameListing]:
    """Listed games (and the caller's own)."""
    return _listing(web, viewer)


@router.get("/api/games/{name}", **answers(GameView))
def api_game(name: str, web: WebDep, viewer: ViewerDep) -> GameView:
    """A game's public state: phase, deadline, who has sent orders and who is ready (never what), centres, last report."""
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
    return GameFile.model_validate(history.export(web, name, viewer))


class UnsealIn(BaseModel):
    reason: str = Field(max_length=500, description="why the sealed orders are opened: shown to the players")


@router.post("/api/games/{name}/export", **answers(GameFile))
def api_export_unsealed(name: str, body: UnsealIn, web: WebDep, viewer: WriterDep) -> GameFile:
    """The coordinator's game file with the open phase's orders unsealed, to move a running game; the
    opening is recorded with the reason and shown to the players."""
    return GameFile.model_validate(history.export(web, name, viewer, unsealed=True, reason=body.reason))
