"""The game list, a game's page, its phases, calendar, game file and maps: pages and JSON."""

from __future__ import annotations

import functools
import json
import time
from typing import Any

from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, Field
from starlette.requests import Request

from dippouch.catalog import variants_usable
from dippouch.web import games, history, practice
from dippouch.web import games as game_pages
from dippouch.web.answers import (
    GameFile,
    GameListing,
    GameView,
    PhaseView,
)
from dippouch.web.deps import (
    answers,
    render,
    render_html,
    set_csrf_cookie,
    viewer_of,
    web_of,
    writer,
)
from dippouch.web.forms import read_form
from dippouch.web.security import (
    BadInput,
    NotFound,
    client_id,
    csrf_field,
    flash_cookie,
    session_token,
)
from dippouch.web.service import PAGE_TTL

router = APIRouter(tags=["api"])

MAX_FIELDS = 200
"""Fields a page's form may post (the coordinator's player table posts two a power)."""
MAX_PART_SIZE = 1_000_000
"""Bytes a page's text field may hold: orders are measured and refused in words by the submission itself."""

_form = functools.partial(read_form, max_fields=MAX_FIELDS, max_part_size=MAX_PART_SIZE)


@router.get("/", include_in_schema=False, response_class=HTMLResponse)
def home(request: Request) -> Response:
    web = web_of(request)
    viewer = viewer_of(request)
    good, _broken = variants_usable()
    variants = [(v.name, v.title) for v in good]
    listed = games.games_list(web, viewer)
    mine_practice = {g["name"] for g in listed if g["mine"]} & practice.practice_games(web) if viewer.grants else set()
    return render(
        request,
        "index.html",
        {
            "games": [g for g in listed if g["name"] not in mine_practice],
            "practice_games": [g for g in listed if g["name"] in mine_practice],
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
    return resp


@router.get("/games/{name}", include_in_schema=False, response_class=HTMLResponse)
async def game_page(request: Request, name: str) -> Response:
    """The game page. Anonymous visitors (everyone following a game reloads this page: the busiest of a
    site) get a page rendered once per change of the game and served from memory, looked up without
    the database for :data:`PAGE_TTL` seconds, then confirmed against the game's change marker."""
    web = web_of(request)
    if _anonymous(request):
        page = web.pages.get(("game", name))
        if page is not None and page[2] != "private" and time.monotonic() - page[0] < PAGE_TTL:
            return _from_cache(request, page[3])
    return await run_in_threadpool(_game_page, request, name)


def _game_page(request: Request, name: str) -> Response:
    web = web_of(request)
    viewer = viewer_of(request)
    anonymous = _anonymous(request) and not viewer.grants
    if not anonymous:
        g = games.game_view(web, name, viewer)
        ctx = {"g": g, "my_powers": viewer.powers(name), "coordinator": viewer.coordinates(name)}
        return render(request, "game.html", ctx)
    st = web.state(name)
    page = web.pages.get(("game", name))
    if st is not None and page is not None and st[0] != "private" and page[1] == st[1]:
        web.pages[("game", name)] = (time.monotonic(), page[1], st[0], page[3])
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
        page = web.pages.get(("game", name))
        if st is not None and page is not None and st[0] != "private" and page[1] == st[1]:
            return _from_cache(request, page[3])  # made by the request this one waited for
        g = games.game_view(web, name, viewer)
        ctx = {"g": g, "my_powers": [], "coordinator": False, "csrf": PLACEHOLDER}
        html = render_html(request, "game.html", ctx)
        if st is not None:  # kept under the marker read before it was made (the view's own is the reader's)
            web.pages[("game", name)] = (time.monotonic(), st[1], g["visibility"], html)
    finally:
        building.release()
    return _from_cache(request, html)


@router.get("/games/{name}/phases/{phase_id}", include_in_schema=False, response_class=HTMLResponse)
def phase_page(request: Request, name: str, phase_id: int) -> Response:
    web = web_of(request)
    viewer = viewer_of(request)
    ph = history.phase_view(web, name, phase_id, viewer)
    g = games.game_view(web, name, viewer)
    subs = history.phase_submissions(web, name, phase_id, viewer)
    return render(request, "phase.html", {"ph": ph, "g": g, "subs": subs})


@router.get("/games/{name}/calendar.ics", include_in_schema=False)
def calendar(request: Request, name: str) -> Response:
    data = history.calendar_ics(web_of(request), name, viewer_of(request))
    return Response(data, media_type="text/calendar; charset=utf-8")


UNSEALED_BY_POST = (
    "an unsealed export opens the seal, which the players are shown: ask for it with the desk's form "
    "\u201cExport with this phase's orders unsealed\u201d (a POST with the reason), not a link"
)


@router.get("/games/{name}/export.json", include_in_schema=False)
def export(request: Request, name: str, unsealed: bool = False) -> Response:
    if unsealed:
        # A GET must change nothing: a link (on another site, too) must not open the seal.
        raise BadInput(UNSEALED_BY_POST)
    return _game_file(request, name, history.export(web_of(request), name, viewer_of(request)))


@router.post("/games/{name}/export.json", include_in_schema=False)
async def export_unsealed(request: Request, name: str) -> Response:
    """The coordinator's file with the open phase's orders unsealed, to move a running game; the reason is
    recorded and shown to the players."""
    form = await _form(request)
    web, viewer = web_of(request), viewer_of(request)
    reason = form.get("reason", "")
    data = await run_in_threadpool(history.export, web, name, viewer, unsealed=True, reason=reason)
    return _game_file(request, name, data)


def _game_file(request: Request, name: str, data: dict[str, Any]) -> Response:
    return Response(
        json.dumps(data, ensure_ascii=False, indent=1),
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="{_ascii(name)}.json"'},
    )


def _svg(request: Request, name: str, phase: int | None) -> str:
    web = web_of(request)
    viewer = viewer_of(request)
    svg = (
        games.game_map(web, name, viewer) if phase is None else history.phase_view(web, name, phase, viewer)["map_svg"]
    )
    if svg is None:
        raise NotFound("no map can be drawn for this game yet (the map renderer or this variant's geometry is missing)")
    return str(svg)


@router.get("/games/{name}/map.svg", include_in_schema=False)
def map_svg(request: Request, name: str, phase: int | None = None) -> Response:
    return Response(_svg(request, name, phase), media_type="image/svg+xml")


@router.get("/games/{name}/phases/{phase_id}/map-{view}.svg", include_in_schema=False)
def phase_map(request: Request, name: str, phase_id: int, view: str) -> Response:
    """One picture of a phase (``MAP_VIEWS``), the same for as long as it exists: the browser keeps it. Kept
    private (not in shared caches): a game can be made private later."""
    from dippouch import __version__

    web = web_of(request)
    viewer = viewer_of(request)
    web.require_visible(name, viewer)
    etag = f'"{phase_id}-{view}-{__version__}"'
    headers = {"ETag": etag, "Cache-Control": "private, max-age=31536000, immutable"}
    if etag in request.headers.get("if-none-match", ""):
        return Response(status_code=304, headers=headers)
    return Response(games.phase_map(web, name, phase_id, view, viewer), media_type="image/svg+xml", headers=headers)


@router.get("/games/{name}/map.pdf", include_in_schema=False)
def map_pdf(request: Request, name: str, phase: int | None = None) -> Response:
    web = web_of(request)
    maps = web.maps
    svg = _svg(request, name, phase)
    variant = web.variant_of(name)
    # A first drawing takes seconds: it is charged to the address's work budget and runs in the work lane.
    pdf = maps.cached_pdf(svg) or request.app.state.budget.run(client_id(request), lambda: maps.phase_pdf(svg, variant))
    if pdf is None:
        raise NotFound("PDF maps need the map renderer, which is not installed")
    return Response(
        pdf, media_type="application/pdf", headers={"Content-Disposition": f'inline; filename="{_ascii(name)}.pdf"'}
    )


def _ascii(name: str) -> str:
    return "".join(c if c.isascii() and (c.isalnum() or c in "-_.") else "_" for c in name)[:100] or "game"


@router.get("/api/games", **answers(list[GameListing]))
def api_games(request: Request) -> list[dict[str, Any]]:
    """Listed games (and the caller's own)."""
    return game_pages.games_list(web_of(request), viewer_of(request))


@router.get("/api/games/{name}", **answers(GameView))
def api_game(request: Request, name: str) -> dict[str, Any]:
    """A game's public state: phase, deadline, who has sent orders and who is ready (never what), centres, last report."""
    g = game_pages.game_view(web_of(request), name, viewer_of(request))
    g.pop("map_svg", None)
    return g


@router.get("/api/games/{name}/phases/{phase_id}", **answers(PhaseView))
def api_phase(request: Request, name: str, phase_id: int) -> dict[str, Any]:
    """One phase of the history: position, orders and results once processed, report, neighbours; for the
    game's coordinator also every version each power sent (sealed until the deadline)."""
    web, viewer = web_of(request), viewer_of(request)
    ph = history.phase_view(web, name, phase_id, viewer)
    ph.pop("map_svg", None)
    ph.pop("after_svg", None)
    subs = history.phase_submissions(web, name, phase_id, viewer)
    if subs is not None:
        ph["submissions"] = subs
    return ph


@router.get("/api/games/{name}/export", **answers(GameFile))
def api_export(request: Request, name: str, unsealed: bool = False) -> dict[str, Any]:
    """The game file (submissions only for the coordinator; the open phase's sealed until its deadline:
    to move a running game the coordinator asks for it unsealed with ``POST``, giving the reason)."""
    if unsealed:
        raise BadInput(
            "an unsealed export opens the seal, which the players are shown: POST to this address with "
            '{"reason": "..."}; a GET changes nothing'
        )
    return history.export(web_of(request), name, viewer_of(request))


class UnsealIn(BaseModel):
    reason: str = Field(max_length=500, description="why the sealed orders are opened: shown to the players")


@router.post("/api/games/{name}/export", **answers(GameFile))
def api_export_unsealed(request: Request, name: str, body: UnsealIn) -> dict[str, Any]:
    """The coordinator's game file with the open phase's orders unsealed, to move a running game; the
    opening is recorded with the reason and shown to the players."""
    viewer = writer(request)
    return history.export(web_of(request), name, viewer, unsealed=True, reason=body.reason)
