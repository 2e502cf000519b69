"""The HTML pages. Every form posts and redirects (or shows a result page), so nothing needs JavaScript."""

from __future__ import annotations

import functools
import json
import re
import time
from typing import Any

from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, Response
from starlette.requests import Request

from dippouch.bots import LEVELS
from dippouch.catalog import variants_usable
from dippouch.core.errors import DippouchError
from dippouch.store.access import Grant
from dippouch.store.openings import seats_left_by
from dippouch.web import desk, games, history, new_games, player_page, practice, press, variant_pages
from dippouch.web.checks import check_lines
from dippouch.web.deps import (
    game_url,
    render,
    render_html,
    set_csrf_cookie,
    set_session_cookie,
    site_of,
    viewer_of,
    web_of,
)
from dippouch.web.forms import read_form, redirect
from dippouch.web.inputs import number_or_none, web_words
from dippouch.web.security import (
    BadInput,
    Forbidden,
    NotFound,
    WebError,
    client_id,
    csrf_field,
    flash_cookie,
    session_cookie,
    session_token,
)
from dippouch.web.service import PAGE_TTL

router = APIRouter(include_in_schema=False)

MAX_FIELDS = 200
"""Fields a page's form may post (the coordinator's player table posts two a power)."""
MAX_PART_SIZE = 1_000_000
"""Bytes a page's text field may hold: orders are measured and refused in words by the submission itself."""


_form = functools.partial(read_form, max_fields=MAX_FIELDS, max_part_size=MAX_PART_SIZE)
"""A page's form, read under these limits (the import form declares its file)."""


# --------------------------------------------------------------------------------------------------
# Home, sign-in


@router.get("/", response_class=HTMLResponse)
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


@router.post("/practice")
async def practice_new(request: Request) -> Response:
    """A practice game against bots in one click: created, the visitor signed in on their power (as their
    player link would), and sent to their player page."""
    form = await _form(request)
    client = client_id(request)
    request.app.state.limiter.hit("practice", client, "practice games started")
    web = web_of(request)
    caps = getattr(request.app.state, "practice_caps", (practice.PER_CLIENT, practice.TOTAL))
    started = await run_in_threadpool(
        request.app.state.budget.run,
        client,
        functools.partial(
            practice.start_practice,
            web,
            form,
            client,
            per_client=caps[0],
            total=caps[1],
        ),
    )
    grant = await run_in_threadpool(_find_key, request, started.secret)
    base = site_of(request).public_url
    flash = (
        f"Practice game {started.game}: you play {started.power}; every other power is a bot, and they have sent "
        f"their orders. Keep your link to come back from another browser: {base}/k/{started.secret}"
    )
    return await run_in_threadpool(_sign_in, request, grant, flash)


@router.get("/signin", response_class=HTMLResponse)
def signin_form(request: Request) -> Response:
    return render(request, "signin.html", {})


def _find_key(request: Request, secret: str) -> Grant:
    """The live key ``secret`` opens. Only failures count against the sign-in limit, and a right key is
    accepted even from an address over it: a guesser behind the same address as a player (a school, an
    office, a mobile network) must not lock the player out; the guesses themselves are refused (429)."""
    grant = web_of(request).access.find_key(secret.strip())
    if grant is None:
        request.app.state.limiter.failed("signin", client_id(request), "failed sign-ins")
        raise NotFound("that key or link is unknown, mistyped or revoked; ask your coordinator for a new link")
    return grant


def _who(grant: Grant) -> str:
    if grant.role == "player" and grant.game and grant.power:
        return f"{grant.power} in {grant.game}"
    return f"coordinator of {grant.game}" if grant.game else "coordinator"


def _sign_in(request: Request, grant: Grant, flash: str | None = None) -> Response:
    """Sign the browser in with ``grant`` under a new session secret (never the one it arrived with: a
    session planted in the browser beforehand must not gain the key), keeping the keys it already held
    (a coordinator who also plays); the old session ends."""
    web = web_of(request)
    now = web.now()
    old = session_token(request)
    info = web.access.session_info(old, now=now) if old else None
    held, person_id = info if info is not None else (None, None)
    token = web.access.start_session([*(g.key_id for g in held or []), grant.key_id], now=now, person_id=person_id)
    if old and held is not None:
        web.access.end_session(old, now=now)
    if grant.role == "player" and grant.game and grant.power:
        url = f"{game_url(grant.game)}/play/{grant.power}"
    elif grant.game:
        url = f"{game_url(grant.game)}/coordinate"
    else:
        url = "/coordinate"
    if (
        person_id is not None
        and grant.role == "player"
        and (grant.game, grant.power)
        not in {(g.game, g.power) for g in held or [] if g.role == "player" and g.key_id == 0}
    ):
        url = "/me#add-seats"  # a signed-in person is offered the seat for their account (web/accounts.py)
    resp = redirect(url, flash or f"Signed in as {_who(grant)}.")
    set_session_cookie(request, resp, token)
    return resp


@router.post("/signin")
async def signin(request: Request) -> Response:
    form = await _form(request)
    secret = form.get("key", "")
    grant = await run_in_threadpool(_find_key, request, secret)
    return await run_in_threadpool(_sign_in, request, grant)


#: Sec-Fetch-Site values of a navigation the user made themselves: typed or pasted, a bookmark, a link
#: opened from a mail program (``none``), or a link on our own pages (``same-origin``).
USER_NAVIGATION = ("none", "same-origin")


@router.get("/k/{secret}")
def link(request: Request, secret: str) -> Response:
    """A player's or coordinator's link: signs this browser in and goes to the right page, in one click
    when the browser says the user opened it themselves (from a mail program, pasted, or one of our pages).
    Opened from another site (a web mail's page, or a page forging a sign-in: login CSRF), or by a browser
    that does not say, it shows a "Sign in as ..." button instead, which posts with the CSRF token."""
    grant = _find_key(request, secret)
    if request.headers.get("sec-fetch-site", "") in USER_NAVIGATION:
        return _sign_in(request, grant)
    resp = render(request, "signin_link.html", {"who": _who(grant), "key": secret.strip()})
    resp.headers["Cache-Control"] = "no-store"
    return resp


@router.post("/signout")
async def signout(request: Request) -> Response:
    await _form(request)
    web = web_of(request)
    token = session_token(request)
    if token:
        await run_in_threadpool(web.access.end_session, token, now=web.now())
    resp = redirect("/", "Signed out.")
    resp.delete_cookie(session_cookie(request), path="/", secure=request.url.scheme == "https")
    return resp


# --------------------------------------------------------------------------------------------------
# Games


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


@router.get("/games/{name}", response_class=HTMLResponse)
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


@router.get("/games/{name}/phases/{phase_id}", response_class=HTMLResponse)
def phase_page(request: Request, name: str, phase_id: int) -> Response:
    web = web_of(request)
    viewer = viewer_of(request)
    ph = history.phase_view(web, name, phase_id, viewer)
    g = games.game_view(web, name, viewer)
    subs = history.phase_submissions(web, name, phase_id, viewer)
    return render(request, "phase.html", {"ph": ph, "g": g, "subs": subs})


@router.get("/games/{name}/calendar.ics")
def calendar(request: Request, name: str) -> Response:
    data = history.calendar_ics(web_of(request), name, viewer_of(request))
    return Response(data, media_type="text/calendar; charset=utf-8")


UNSEALED_BY_POST = (
    "an unsealed export opens the seal, which the players are shown: ask for it with the desk's form "
    "\u201cExport with this phase's orders unsealed\u201d (a POST with the reason), not a link"
)


@router.get("/games/{name}/export.json")
def export(request: Request, name: str, unsealed: bool = False) -> Response:
    if unsealed:
        # A GET must change nothing: a link (on another site, too) must not open the seal.
        raise BadInput(UNSEALED_BY_POST)
    return _game_file(request, name, history.export(web_of(request), name, viewer_of(request)))


@router.post("/games/{name}/export.json")
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


@router.get("/games/{name}/map.svg")
def map_svg(request: Request, name: str, phase: int | None = None) -> Response:
    return Response(_svg(request, name, phase), media_type="image/svg+xml")


@router.get("/games/{name}/phases/{phase_id}/map-{view}.svg")
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


@router.get("/games/{name}/map.pdf")
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


# --------------------------------------------------------------------------------------------------
# Player


@router.get("/games/{name}/play/{power}", response_class=HTMLResponse)
def play_page(request: Request, name: str, power: str) -> Response:
    web = web_of(request)
    viewer = viewer_of(request)
    try:
        pv = player_page.player_view(web, name, power, viewer)
    except Forbidden:
        # The person whose seat this was, following an old link (a mail from before they left or were
        # replaced), is shown their games, not a refusal; anyone else is refused as before.
        if viewer.person_id is None or not any(
            s.game == name and s.power.casefold() == power.casefold()
            for s in seats_left_by(web.store, viewer.person_id)
        ):
            raise
        return redirect("/me", f"You do not play {power} in {name} now; your games are below.")
    practice.note_visit(web, name)  # a practice game its person still comes to is not stopped
    shown = press.play_press(request, web, name, power, viewer_of(request), pv)
    return render(request, "play.html", {"p": pv, "g": pv["game"], **shown})


def e_status(e: Exception) -> int:
    """The refusal's own status (400 for input refused as it stands, or for orders the game cannot take now:
    their phase was processed meanwhile, the power has nothing to order), as the API answers it."""
    return e.status if isinstance(e, WebError) else 400


def _refused_page(request: Request, name: str, power: str, text: str, message: str, status: int) -> Response:
    """A submission that was refused (nothing stored): the player's page again, with what they typed still in
    the box, why it was refused, and every line's verdict against the phase open now (without JavaScript,
    this is all a player sees; a separate error page lost the text)."""
    web = web_of(request)
    viewer = viewer_of(request)
    pv = player_page.player_view(web, name, power, viewer)
    lines: list[dict[str, Any]] = []
    if pv["open"] and pv["must_act"]:
        try:
            checked = check_lines(web, name, power, text, viewer)
            lines = [ln.to_data() for ln in checked]
        except (WebError, DippouchError):
            lines = []  # the text itself is what was refused (too long, not text): the message says so
    refused = {"message": message, "text": text, "lines": lines}
    shown = press.play_press(request, web, name, power, viewer, pv)
    return render(request, "play.html", {"p": pv, "g": pv["game"], **shown, "refused": refused}, status=status)


def _play_url(name: str, power: str) -> str:
    return f"{game_url(name)}/play/{power}"


@router.post("/games/{name}/play/{power}/orders")
async def play_submit(request: Request, name: str, power: str) -> Response:
    form = await _form(request)
    web = web_of(request)
    viewer = viewer_of(request)
    request.app.state.limiter.hit("submit", f"{client_id(request)}:{name}:{power}", "submissions")
    text = form.get("orders", "")
    # The pick lists (one select per unit) add their chosen orders below what was typed.
    picks = [v for k, v in form.items() if k.startswith("pick:") and v.strip()]
    if picks:
        text = "\n".join([text.rstrip(), *picks]).strip("\n")
    ready = form.get("ready", "") in ("1", "on", "true")
    phase = form.get("phase", "").strip() or None  # the phase the form was for: refused if processed since
    try:
        res = await run_in_threadpool(
            functools.partial(player_page.submit, web, name, power, text, ready, viewer, phase=phase)
        )
    except (BadInput, DippouchError) as e:
        message = e.message if isinstance(e, BadInput) else web_words(str(e))
        return await run_in_threadpool(_refused_page, request, name, power, text, message, e_status(e))
    msg = (
        f"Version {res['version']} recorded{' (ready)' if res['ready'] else ''}: "
        f"{res['accepted']} order(s) accepted, {res['rejected']} rejected."
    )
    if not res["stands"]:
        msg += (
            f" It has no accepted order, so it does not replace your earlier orders: version {res['standing']} stands."
            if res["standing"]
            else " It has no accepted order."
        )
    if res["unordered_notes"]:
        msg += " Without an order: " + "; ".join(res["unordered_notes"]) + "."
    if res["ready_refused"]:
        msg += f" Not marked ready: {res['ready_refused']}"
    if res["late"]:
        msg += " It arrived after the deadline and does not count unless the coordinator extends it."
    if res["processed"]:
        msg += f" Everyone was ready: {', '.join(res['processed'])} has been processed."
    return redirect(_play_url(name, res["power"]), msg)


@router.post("/games/{name}/play/{power}/vote")
async def play_vote(request: Request, name: str, power: str) -> Response:
    form = await _form(request)
    web = web_of(request)
    draw = form.get("draw", "") in ("1", "yes", "on", "true")
    voted = await run_in_threadpool(player_page.vote, web, name, power, draw, viewer_of(request))
    msg = voted.ending.text if voted.ending else ("You vote for a draw." if draw else "Your draw vote is withdrawn.")
    return redirect(_play_url(name, power), msg)


# --------------------------------------------------------------------------------------------------
# Coordinator


@router.get("/coordinate", response_class=HTMLResponse)
def coordinate_home(request: Request) -> Response:
    web = web_of(request)
    viewer = viewer_of(request)
    web.require_coordinator(None, viewer)
    good, broken = variants_usable()
    variants = [{"name": v.name, "title": v.title, "options": v.data.get("options", {})} for v in good]
    return render(
        request,
        "coordinate_home.html",
        {"games": games.games_list(web, viewer), "variants": variants, "broken": broken},
    )


@router.post("/coordinate/new")
async def coordinate_new(request: Request) -> Response:
    form = await _form(request)
    web = web_of(request)
    name = await run_in_threadpool(new_games.create_game, web, viewer_of(request), form)
    return redirect(f"{game_url(name)}/coordinate", f"Created game {name}. Seat the players and send them their links.")


@router.post("/coordinate/import")
async def coordinate_import(request: Request) -> Response:
    form = await _form(request, files=("file",))
    web = web_of(request)
    upload = form.file("file")
    if upload is None:
        raise BadInput("choose a game file (.json) to import")
    raw = await upload.read(5_000_001)
    if len(raw) > 5_000_000:
        raise BadInput("the game file is larger than 5 MB")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise BadInput(f"the file is not JSON text ({type(e).__name__}: {e})") from None
    name = await run_in_threadpool(new_games.import_game, web, viewer_of(request), data, form.get("name", "") or None)
    return redirect(f"{game_url(name)}/coordinate", f"Imported game {name}.")


@router.get("/games/{name}/coordinate", response_class=HTMLResponse)
def coordinate_page(request: Request, name: str) -> Response:
    web = web_of(request)
    cv = desk.coordinator_view(web, name, viewer_of(request))
    return render(request, "coordinate.html", {"c": cv, "g": cv["game"], "bot_levels": LEVELS})


CONFIRMED = ("process", "rollback", "revoke")
"""Coordinator actions that cannot be taken back: carried out only with ``confirm=yes`` (a second post,
from the confirmation page)."""


@router.post("/games/{name}/coordinate/{action}", response_class=HTMLResponse)
async def coordinate_action(request: Request, name: str, action: str) -> Response:
    form = await _form(request)
    web = web_of(request)
    viewer = viewer_of(request)
    back = f"{game_url(name)}/coordinate"
    if action in CONFIRMED and form.get("confirm", "") != "yes":
        # Cannot be taken back: a page says what will happen and asks again (no JavaScript needed).
        arg = form.get("key", "") if action == "revoke" else form.get("phase", "")
        what = await run_in_threadpool(desk.confirm_view, web, name, viewer, action, arg)
        return render(request, "confirm.html", {"c": what, "game": name, "action": action, "back": back})
    if action in ("assign", "replace", "link"):
        if action == "link":
            power, secret = await run_in_threadpool(
                desk.new_player_link, web, name, viewer, form.get("power", ""), form.get("reason", "")
            )
        else:
            power, secret = await run_in_threadpool(
                desk.assign,
                web,
                name,
                viewer,
                form.get("power", ""),
                form.get("player", ""),
                action == "replace",
                form.get("email", ""),
            )
        return _secret_page(request, name, f"{power}'s link", secret, back)
    if action == "seat-many":
        powers = [k.removeprefix("player:") for k in form if k.startswith("player:")]
        rows = [(pw, form.get(f"player:{pw}", ""), form.get(f"email:{pw}", "")) for pw in powers]
        base = site_of(request).public_url
        got = await run_in_threadpool(desk.seat_many, web, name, viewer, rows, base)
        return render(request, "seated.html", {"game": name, "s": got, "back": back})
    if action == "coordinator-key":
        secret = await run_in_threadpool(desk.new_coordinator_key, web, name, viewer, form.get("label", ""))
        return _secret_page(request, name, "a coordinator's link", secret, back)
    if action == "revoke":
        key = form.get("key", "")
        key_id = number_or_none(key)
        if key_id is None:
            raise BadInput(f"which key? (its number, not {key[:20]!r})")
        await run_in_threadpool(desk.revoke, web, name, viewer, key_id)
        return redirect(back, f"Key {key} revoked: its links no longer work.")
    if action == "email":
        msg = await run_in_threadpool(desk.set_email, web, name, viewer, form.get("power", ""), form.get("email", ""))
        return redirect(back, msg)
    if action == "seat-bot":
        got = await run_in_threadpool(desk.seat_bot, web, name, viewer, form.get("power", ""), form.get("level", ""))
        sent = f"; it sent version {got['version']}" if got["version"] else ""
        return redirect(back, f"{got['player']} now plays {got['power']}{sent}.")
    if action == "bot-policy":
        level = form.get("level", "")
        msg = await run_in_threadpool(desk.set_bot_policy, web, name, viewer, None if level in ("", "off") else level)
        return redirect(back, msg)
    if action == "deadlines":
        msg = await run_in_threadpool(desk.set_deadlines, web, name, viewer, form)
        return redirect(back, msg)
    arg = form.get("by", "") or form.get("phase", "") or form.get("visibility", "")
    msg = await run_in_threadpool(desk.clock_action, web, name, viewer, action, arg)
    return redirect(back, msg)


def _secret_page(request: Request, game: str, what: str, secret: str, back: str) -> Response:
    base = site_of(request).public_url
    return render(
        request, "secret.html", {"game": game, "what": what, "link": f"{base}/k/{secret}", "key": secret, "back": back}
    )


# --------------------------------------------------------------------------------------------------
# Variants


@router.get("/variants", response_class=HTMLResponse)
def variants_page(request: Request) -> Response:
    good, broken = variants_usable()
    rows = []
    for v in good:
        rows.append(
            {
                "name": v.name,
                "title": v.title,
                "description": v.description,
                "powers": len(v.powers),
                "centres": len(v.map.supply_centres),
            }
        )
    return render(request, "variants.html", {"variants": rows, "broken": broken})


@router.get("/variants/{name}", response_class=HTMLResponse)
def variant_page(request: Request, name: str) -> Response:
    vv = variant_pages.variant_view(name)
    return render(request, "variant.html", {"v": vv})


@router.get("/variants/{name}/powers.css")
def powers_css(request: Request, name: str) -> Response:
    """Power colours as classes (``pw-0`` ...): the CSP allows no inline styles."""
    v = variant_pages.find_variant(name)
    rules = []
    for i, p in enumerate(v.powers):
        colour = p.colour if re.fullmatch(r"#[0-9a-fA-F]{3,8}", p.colour) else "#888888"
        rules.append(f".pw-{i}{{--pw:{colour}}}")
    return Response("\n".join(rules) + "\n", media_type="text/css", headers={"Cache-Control": "max-age=3600"})


@router.get("/variants/{name}/moves", response_class=HTMLResponse)
def moves_page(request: Request, name: str, q: str = "") -> Response:
    mv = variant_pages.moves(name, q)
    vv = variant_pages.variant_view(name)
    return render(request, "moves.html", {"mv": mv, "v": vv})


# --------------------------------------------------------------------------------------------------
# The API's documentation


@router.get("/api/docs", response_class=HTMLResponse)
def api_docs(request: Request) -> Response:
    """The JSON API described from its OpenAPI document, as a plain page: FastAPI's own docs page loads
    Swagger UI from a CDN (and runs an inline script), both of which this app refuses."""
    from dippouch.web.docstrings import docstring_html

    spec = request.app.openapi()
    schemas = spec.get("components", {}).get("schemas", {})
    ops = []
    for path, methods in spec.get("paths", {}).items():
        for method, op in methods.items():
            body = None
            ref = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {}).get("$ref")
            if ref:
                body = _shape(ref, schemas)
            elif "requestBody" in op:
                body = {"name": "JSON object", "fields": []}
            ops.append(
                {
                    "method": method.upper(),
                    "path": path,
                    "summary": op.get("summary", ""),
                    "description": docstring_html(op.get("description") or op.get("summary", "")),
                    "params": [
                        {"name": p["name"], "in": p["in"], "required": p.get("required", False)}
                        for p in op.get("parameters", [])
                    ],
                    "body": body,
                    "answer": _answer_shape(op, schemas),
                }
            )
    return render(request, "api_docs.html", {"ops": ops, "title": spec.get("info", {}).get("title", "dippouch")})


def _type_name(f: dict[str, Any]) -> str:
    """A field's type as the docs page names it: a model by its name, a list of them as ``[Name]``."""
    if "$ref" in f:
        return str(f["$ref"]).rsplit("/", 1)[-1]
    if f.get("type") == "array" and isinstance(f.get("items"), dict) and f["items"]:
        return f"[{_type_name(f['items'])}]"
    if "anyOf" in f:
        return "/".join(_type_name(x) for x in f["anyOf"])
    return str(f.get("type") or "any")


def _shape(ref: str, schemas: dict[str, Any]) -> dict[str, Any]:
    """A model of the OpenAPI document as the docs page lists it: its name and its fields."""
    name = ref.rsplit("/", 1)[-1]
    schema = schemas.get(name, {})
    return {
        "name": name,
        "fields": [
            {
                "name": k,
                "type": _type_name(f),
                "required": k in schema.get("required", []),
                "limit": f"max {f['maxLength']}" if "maxLength" in f else "",
                "default": f.get("default"),
                "description": f.get("description", ""),
            }
            for k, f in schema.get("properties", {}).items()
        ],
    }


def _answer_shape(op: dict[str, Any], schemas: dict[str, Any]) -> dict[str, Any] | None:
    """What a call answers when it succeeds (a list of a model shown as ``[Name]``)."""
    schema = op.get("responses", {}).get("200", {}).get("content", {}).get("application/json", {}).get("schema", {})
    many = schema.get("type") == "array"
    ref = (schema.get("items", {}) if many else schema).get("$ref")
    if not ref:
        return None
    shape = _shape(ref, schemas)
    return {**shape, "name": f"[{shape['name']}]" if many else shape["name"]}
