"""Signing in and out: a player's or coordinator's link or key, and a practice game in one click."""

from __future__ import annotations

import functools

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, Response
from starlette.requests import Request

from dippouch.store.access import Grant
from dippouch.web.http.deps import (
    SiteDep,
    WebDep,
    asker,
    charged,
    game_url,
    remember_next,
    render,
    set_session_cookie,
    words,
)
from dippouch.web.http.forms import PageForm, redirect
from dippouch.web.http.security import WebNotFound, client_id, over_https, session_cookie, session_token
from dippouch.web.http.service import Web
from dippouch.web.views import practice

router = APIRouter(tags=["api"])

I18N_DOMAIN = "site"


@router.post("/practice", include_in_schema=False)
def practice_new(request: Request, form: PageForm, web: WebDep, site: SiteDep) -> Response:
    """A practice game against bots in one click: created, the visitor signed in on their power (as their
    player link would), and sent to their player page."""
    client = client_id(request)
    request.app.state.limiter.hit("practice", client, "practice games started")
    caps = getattr(request.app.state, "practice_caps", (practice.PER_CLIENT, practice.TOTAL))
    # A signed-in person's practice games count against their own cap, from whatever address they come (by
    # address, a person with many addresses had a cap at each); a visitor's, against their address's.
    who = asker(request)
    started = charged(
        request,
        functools.partial(
            practice.start_practice,
            web,
            form,
            who if who.startswith("person ") else client,
            per_client=caps[0],
            total=caps[1],
        ),
    )
    grant = _find_key(request, web, started.secret)
    base = site.public_url
    flash = words(request).gettext(
        "Practice game %(game)s: you play %(power)s; every other power is a bot, and they have sent "
        "their orders. Keep your link to come back from another browser: %(link)s"
    ) % {"game": started.game, "power": started.power, "link": f"{base}/k/{started.secret}"}
    return _sign_in(request, web, grant, flash)


@router.get("/signin", include_in_schema=False, response_class=HTMLResponse)
def signin_form(request: Request, next: str = "") -> Response:
    resp = render(request, "signin.html", {})
    if next:
        # The page that sent the browser here (error.html's "Sign in to go on"): signing in ends there.
        remember_next(request, resp, next)
    return resp


def _find_key(request: Request, web: Web, secret: str) -> Grant:
    """The live key ``secret`` opens. Only failures count against the sign-in limit, and a right key is
    accepted even from an address over it: a guesser behind the same address as a player (a school, an
    office, a mobile network) must not lock the player out; the guesses themselves are refused (429)."""
    grant = web.access.find_key(secret.strip())
    if grant is None:
        request.app.state.limiter.failed("signin", client_id(request), "failed sign-ins")
        raise WebNotFound(
            words(request).gettext(
                "that key or link is unknown, mistyped or revoked; ask your coordinator for a new link"
            )
        )
    return grant


def _who(request: Request, grant: Grant) -> str:
    """Whom a key stands for, in the reader's language."""
    t = words(request)
    if grant.role == "player" and grant.game and grant.power:
        return t.gettext("%(power)s in %(game)s") % {"power": grant.power, "game": grant.game}
    return t.gettext("coordinator of %(game)s") % {"game": grant.game} if grant.game else t.gettext("coordinator")


def _sign_in(request: Request, web: Web, grant: Grant, flash: str | None = None) -> Response:
    """Sign the browser in with ``grant`` under a new session secret (never the one it arrived with: a
    session planted in the browser beforehand must not gain the key), keeping the keys it already held
    (a coordinator who also plays); the old session ends."""
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
        url = "/me#add-seats"  # a signed-in person is offered the seat for their account (web/routes/accounts.py)
    resp = redirect(url, flash or words(request).gettext("Signed in as %(who)s.") % {"who": _who(request, grant)})
    set_session_cookie(request, resp, token)
    return resp


@router.post("/signin", include_in_schema=False)
def signin(request: Request, form: PageForm, web: WebDep) -> Response:
    grant = _find_key(request, web, form.get("key", ""))
    return _sign_in(request, web, grant)


#: Sec-Fetch-Site values of a navigation the user made themselves: typed or pasted, a bookmark, a link
#: opened from a mail program (``none``), or a link on our own pages (``same-origin``).
USER_NAVIGATION = ("none", "same-origin")


@router.get("/k/{secret}", include_in_schema=False)
def link(request: Request, secret: str, web: WebDep) -> Response:
    """A player's or coordinator's link: signs this browser in and goes to the right page, in one click
    when the browser says the user opened it themselves (from a mail program, pasted, or one of our pages).
    Opened from another site (a web mail's page, or a page forging a sign-in: login CSRF), or by a browser
    that does not say, it shows a "Sign in as ..." button instead, which posts with the CSRF token."""
    grant = _find_key(request, web, secret)
    if request.headers.get("sec-fetch-site", "") in USER_NAVIGATION:
        return _sign_in(request, web, grant)
    resp = render(request, "signin_link.html", {"who": _who(request, grant), "key": secret.strip()})
    resp.headers["Cache-Control"] = "no-store"
    return resp


@router.post("/signout", include_in_schema=False)
def signout(request: Request, _: PageForm, web: WebDep) -> Response:
    token = session_token(request)
    if token:
        web.access.end_session(token, now=web.now())
    resp = redirect("/", words(request).gettext("Signed out."))
    resp.delete_cookie(session_cookie(request), path="/", secure=over_https(request))
    return resp
