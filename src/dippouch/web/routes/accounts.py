"""A person's account on the web: sign-up and sign-in by a link mailed, passkeys, "my games" (``/me``) with a
personal calendar feed, adding a seat held by key to one's account, and downloading or deleting one's data.

The link is mailed through the outbox (:mod:`dippouch.mail.outbox`: a queued row, sent by the worker, nothing
lost or sent twice). Asking for a link answers the same words whether or not the address belongs to someone,
and does the same work either way (one link, one message): what differs is only the mail, which only the
address's owner reads. A link opened shows a button; the POST (with the CSRF token) uses it, so a mail
scanner that fetches links does not spend it, and a page elsewhere cannot sign a browser in (login CSRF).
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Body, Depends
from fastapi.responses import HTMLResponse, Response
from starlette.requests import Request

from dippouch.core.messages import msg
from dippouch.game import GameError
from dippouch.numbers import number_or_none
from dippouch.play import accounts as account_cases
from dippouch.play import moderation as play_moderation
from dippouch.settings import Site
from dippouch.store import openings as store_openings
from dippouch.store.gamefile import clean_address
from dippouch.store.people import accounts as store_accounts
from dippouch.store.people import data as people_data
from dippouch.store.people import persons as people
from dippouch.store.people.accounts import LINK_LIFETIME, LinkError, NeedsName
from dippouch.web.http.deps import (
    SiteDep,
    ViewerDep,
    WebDep,
    after_sign_in,
    answers,
    forget_next,
    render,
    set_private_cookie,
    set_session_cookie,
    words,
)
from dippouch.web.http.forms import Form, posted, redirect
from dippouch.web.http.security import (
    CSRF_HEADER,
    HOST_PREFIX,
    BadInput,
    Forbidden,
    NeedsKey,
    Viewer,
    WebNotFound,
    check_csrf,
    client_id,
    over_https,
    session_cookie,
    session_token,
)
from dippouch.web.http.service import Web
from dippouch.web.routes.moderation import moderation_of_me
from dippouch.web.views.answers.accounts import MeView, PasskeyOptions, SignedIn

__all__ = ["LIMITS", "router"]

router = APIRouter(tags=["api"])

I18N_DOMAIN = "site"
# The JSON calls join the API's own router (imported before the app includes it, web/app.py), so they are
# documented, listed on /api/docs and checked against their answer models like every other call.

LIMITS = ("signin_mail", "signin_mail_address")
"""The app's rate-limit buckets for links asked for, per client and per e-mail address (web/app.py gives 20 and
5 an hour; its ``signin`` bucket counts failed uses): enough for a player who lost a mail or two, too few to
flood an inbox from one place."""


# --------------------------------------------------------------------------------------------------
# Helpers


AccountForm = Annotated[Form, Depends(posted(max_fields=20, max_part_size=10_000))]
"""A sign-in or account form: a few short fields, so tight limits (anyone may post the sign-in forms)."""


def _limit(request: Request, bucket: str, who: str, what: str) -> None:
    """Count a request against the app's limiter (its buckets include :data:`LIMITS`)."""
    request.app.state.limiter.hit(bucket, who, what)


def me_of(request: Request, web: WebDep, viewer: ViewerDep) -> int:
    """The signed-in person (by their browser's session: a bearer key is no person), or 401; an account deleted
    meanwhile is no person either. A browser with no person signed in is told its link is the way in."""
    if viewer.person_id is None:
        raise NeedsKey(words(request).gettext("sign in first: ask for a link by e-mail on the sign-in page (/signin)"))
    p = people.person(web.read, viewer.person_id)
    if p is None or p.deleted:
        raise NeedsKey(words(request).gettext("this account was deleted; sign in again"))
    return viewer.person_id


MeDep = Annotated[int, Depends(me_of)]
"""The signed-in person's id, for the account's own pages and calls."""


def _api_csrf(request: Request) -> None:
    """A JSON call here is a browser's (a passkey lives in one): the page's token in ``X-CSRF-Token``, always,
    checked before anything else (even before the person: an anonymous sign-in by passkey needs it too)."""
    check_csrf(request, request.headers.get(CSRF_HEADER))


CSRF_CHECKED = Depends(_api_csrf)
"""The route's first dependency: the CSRF header checked."""


def _new_session(request: Request, web: Web, person_id: int) -> str:
    """A new session secret for ``person_id`` (never the one the browser arrived with), keeping the keys it
    held; the old session ends. A person the installation's coordinator banned is refused here, the one door
    every sign-in passes (in words that say no more than that)."""
    if play_moderation.signin_refused(web.read, person_id):
        raise Forbidden(words(request).gettext("this account may not sign in here; write to the site's coordinator"))
    now = web.now()
    old = session_token(request)
    info = web.access.session_info(old, now=now) if old else None
    held = info[0] if info is not None else []
    token = web.access.start_session([g.key_id for g in held], now=now, person_id=person_id)
    if old and info is not None:
        web.access.end_session(old, now=now)
    return token


def sign_in_person(request: Request, web: Web, person_id: int, url: str, flash: str) -> Response:
    """Sign the browser in as ``person_id`` (:func:`_new_session`) and send it to ``url``."""
    resp = redirect(url, flash)
    set_session_cookie(request, resp, _new_session(request, web, person_id))
    remember_device(request, resp, web, person_id)
    return resp


DEVICE_COOKIE = "dp_device"
"""A random id of the browser, set at sign-in and kept long (400 days, the most browsers keep a cookie): the
accounts signed in on one browser are one device's (:mod:`dippouch.play.moderation`; stored only hashed)."""
_DEVICE_ID = re.compile(r"[A-Za-z0-9_-]{32,64}")


def _device_cookie(request: Request) -> str:
    return HOST_PREFIX + DEVICE_COOKIE if over_https(request) else DEVICE_COOKIE


def remember_device(request: Request, resp: Response, web: Web, person_id: int) -> None:
    """Record the sign-in's device (its cookie, set now if the browser had none or a malformed one) and network:
    the signals the installation's coordinator reviews, and what refuses a second account of one device into a
    game."""
    device = request.cookies.get(_device_cookie(request), "")
    if not _DEVICE_ID.fullmatch(device):
        device = secrets.token_urlsafe(32)
    set_private_cookie(request, resp, _device_cookie(request), device, 400 * 24 * 60 * 60)
    play_moderation.record_sign_in(web.store, person_id, device=device, address=client_id(request), now=web.now())


def _composer(request: Request, site: str) -> Callable[[str, str | None, bool], tuple[str, str]]:
    """The sign-in mail, in the language of the page that asked for it."""
    minutes = int(LINK_LIFETIME.total_seconds() // 60)
    t = words(request)

    def compose(token: str, name: str | None, known: bool) -> tuple[str, str]:
        link = f"{site}/signin/link/{token}"
        values = {"name": name, "site": site, "link": link, "minutes": minutes}
        if known:
            return (
                t.gettext("Your dippouch sign-in link"),
                t.gettext(
                    "Hello %(name)s,\n\nOpen this link to sign in to dippouch at %(site)s:\n\n%(link)s\n\n"
                    "It works once, for %(minutes)s minutes. If you did not ask for it, ignore this mail: "
                    "nothing happens until the link is used.\n"
                )
                % values,
            )
        # Whoever asked typed the name, and the mail may go to any address: it is not repeated here, so the
        # judge's own mail carries no stranger's words (the link's page shows it, to be kept or changed).
        return (
            t.gettext("Sign up to dippouch"),
            t.gettext(
                "Hello,\n\nSomeone (you, we hope) asked to sign in to dippouch at %(site)s with this address. No "
                "account uses it yet: open this link to make one:\n\n%(link)s\n\n"
                "It works once, for %(minutes)s minutes. If you did not ask for it, ignore this mail: no account is "
                "made until the link is used.\n"
            )
            % values,
        )

    return compose


# --------------------------------------------------------------------------------------------------
# Sign-in by a mailed link


@router.post("/signin/mail", include_in_schema=False, response_class=HTMLResponse)
def signin_mail(request: Request, form: AccountForm, web: WebDep, site: SiteDep) -> Response:
    email = form.get("email", "").strip()
    name = form.get("name", "").strip()
    _limit(request, "signin_mail", client_id(request), "sign-in links asked for")
    try:
        address = clean_address(email).lower()
    except GameError as e:
        raise BadInput(e.msg) from None
    if len(name) > people.MAX_NAME:
        raise BadInput(_name_too_long(request, name))
    _limit(request, "signin_mail_address", address, "sign-in links asked for this address")

    account_cases.ask_signin_link(
        web.store, address, now=web.now(), name=name, compose=_composer(request, site.public_url)
    )
    minutes = int(LINK_LIFETIME.total_seconds() // 60)
    text = words(request).gettext(
        "If that address can be used here, a link to sign in (or, for a new address, to sign up) is on its way "
        "there now. It works once, for %(minutes)s minutes. Nothing arrived? Look in the spam folder, then ask again."
    ) % {"minutes": minutes}
    return render(request, "signin_sent.html", {"email": address, "text": text})


def _name_too_long(request: Request, name: str) -> str:
    return words(request).gettext("a name is at most %(most)s characters (this one has %(has)s)") % {
        "most": people.MAX_NAME,
        "has": len(name),
    }


def _peek(request: Request, web: Web, token: str) -> store_accounts.LinkInfo:
    try:
        return store_accounts.peek_link(web.read, token, now=web.now())
    except LinkError as e:
        request.app.state.limiter.failed("signin", client_id(request), "failed sign-ins")
        raise WebNotFound(e.msg) from None


@router.get("/signin/link/{token}", include_in_schema=False, response_class=HTMLResponse)
def signin_link(request: Request, token: str, web: WebDep) -> Response:
    """The mailed link: a page with one button (and the name, for a new person), never a sign-in by GET."""
    info = _peek(request, web, token)
    resp = render(request, "signin_mail_link.html", {"info": info, "token": token})
    resp.headers["Cache-Control"] = "no-store"
    resp.headers["Referrer-Policy"] = "no-referrer"
    return resp


@router.post("/signin/link/{token}", include_in_schema=False)
def signin_link_use(request: Request, token: str, form: AccountForm, web: WebDep) -> Response:
    name = form.get("name", "").strip()
    if len(name) > people.MAX_NAME:
        raise BadInput(_name_too_long(request, name))

    try:
        pid = account_cases.sign_in_by_link(web.store, token, now=web.now(), name=name or None)
    except NeedsName as e:
        raise BadInput(e.msg) from None
    except LinkError as e:
        request.app.state.limiter.failed("signin", client_id(request), "failed sign-ins")
        raise WebNotFound(e.msg) from None
    p = people.person(web.read, pid)
    t = words(request)
    done = t.gettext("Signed in as %(who)s.") % {"who": p.name if p else t.gettext("you")}
    resp = sign_in_person(request, web, pid, after_sign_in(request), done)
    forget_next(request, resp)
    return resp


# --------------------------------------------------------------------------------------------------
# My games


def _iso(dt: datetime | None) -> str | None:
    return None if dt is None else dt.astimezone(UTC).isoformat()


def me_view(web: Web, viewer: Viewer, person_id: int) -> dict[str, Any]:
    """What /me shows and /api/me answers: the person, their seats and what each waits for, the games they
    coordinate, seats their browser holds by key that are not on the account yet, their passkeys."""
    p = people.person(web.read, person_id)
    assert p is not None
    seats = people.seats_of(web.read, person_id)
    due = store_accounts.orders_due(web.read, person_id)
    starting = store_openings.starting_for(web.read, person_id)
    resigned = {(x.game, x.power) for x in store_openings.seats_left_by(web.read, person_id) if x.taken_at is None}
    mine = {(s.game, s.power) for s in seats}
    # Games opened for players, not finished: a seat there may be left (its player page's Leave form).
    opened = {
        g
        for g in {s.game for s in seats if s.status != "finished"}
        if store_openings.opening(web.read, g, scores=False) is not None
    }
    offers = [
        {"key_id": g.key_id, "game": g.game, "power": g.power}
        for g in viewer.grants
        if g.role == "player" and g.key_id > 0 and (g.game, g.power) not in mine
    ]
    return {
        "person_id": person_id,
        "name": p.name,
        "email": p.email,
        "seats": [
            {
                "game": s.game,
                "variant": s.variant,
                "power": s.power,
                "state": s.status,
                "phase": s.phase,
                "deadline": _iso(s.deadline),
                "orders": due.get((s.game, s.power), "none") if s.phase else "none",
                "url": f"/games/{quote(s.game, safe='')}/play/{quote(s.power, safe='')}",
                **({"leaving": True} if (s.game, s.power) in resigned else {}),
                **({"resignable": True} if (s.game, s.power) not in resigned and s.game in opened else {}),
            }
            for s in seats
        ],
        "signups": [
            {
                "game": x.game,
                "variant": x.variant,
                "wishes": list(x.preferences),
                "signed_at": _iso(x.signed_at),
                "waiting_list": x.on_waiting_list,
                "empty": x.empty,
                "url": f"/games/{quote(x.game, safe='')}/opening",
            }
            for x in store_openings.signups_of(web.read, person_id)
        ],
        "starting": [
            {"game": s.game, "power": s.power, "at": _iso(starting[s.game]), "url": f"/games/{quote(s.game, safe='')}"}
            for s in seats
            if s.game in starting
        ],
        "left": [
            {
                "game": x.game,
                "power": x.power,
                "why": x.reason,
                "at": _iso(x.at),
                "taken_at": _iso(x.taken_at),
            }
            for x in store_openings.seats_left_by(web.read, person_id)[:20]
        ],
        "coordinates": sorted(
            {g.game or "" for g in viewer.grants if g.role == "coordinator"}, key=lambda x: (x != "", x)
        ),
        "keys_to_add": offers,
        "calendar_since": _iso(store_accounts.has_calendar(web.read, person_id)),
        "links_read": [t.isoformat() for t in store_accounts.links_read(web.read, person_id)],
        "passkeys": [
            {"id": k.id, "label": k.label, "created_at": _iso(k.created_at), "last_used_at": _iso(k.last_used_at)}
            for k in store_accounts.passkeys_of(web.read, person_id)
        ],
    }


def _me_page(request: Request, me: MeView, new_calendar: str | None) -> Response:
    web: Web = request.app.state.web
    context = {"me": me, "new_calendar": new_calendar, **moderation_of_me(web, me.person_id)}
    resp = render(request, "me.html", context)
    resp.headers["Cache-Control"] = "no-store"
    return resp


@router.get("/me", include_in_schema=False, response_class=HTMLResponse)
def me_page(request: Request, web: WebDep, viewer: ViewerDep, pid: MeDep) -> Response:
    return _me_page(request, MeView.model_validate(me_view(web, viewer, pid)), None)


@router.get("/api/me", **answers(MeView))
def me_api(web: WebDep, viewer: ViewerDep, pid: MeDep) -> MeView:
    """The signed-in person: their seats (game, power, phase, deadline, whether their orders are in), the
    games they coordinate, seats their browser holds by key only, their passkeys."""
    return MeView.model_validate(me_view(web, viewer, pid))


@router.post("/me/calendar", include_in_schema=False, response_class=HTMLResponse)
def me_calendar(
    request: Request, form: AccountForm, web: WebDep, viewer: ViewerDep, site: SiteDep, pid: MeDep
) -> Response:
    """Make (or renew: the old address stops working) or revoke the secret address of the feed."""
    action = form.get("action", "")
    if action == "revoke":
        account_cases.revoke_calendar(web.store, pid, now=web.now())
        return redirect("/me", words(request).gettext("Your calendar address no longer works."))
    if action != "renew":
        raise BadInput(msg("unknown calendar action %(action)s; use 'renew' or 'revoke'", action=repr(action)))
    token = account_cases.renew_calendar(web.store, pid, now=web.now())
    url = f"{site.public_url}/me/calendar/{token}.ics"
    return _me_page(request, MeView.model_validate(me_view(web, viewer, pid)), url)


@router.get("/me/calendar/{token}.ics", include_in_schema=False)
def me_calendar_feed(request: Request, token: str, web: WebDep) -> Response:
    """Every deadline of the person's seats in one feed: each game's feed, as the game page's
    (:func:`dippouch.web.views.history.calendar_ics`), merged."""
    import icalendar

    from dippouch.web.views import history

    pid = store_accounts.calendar_person(web.read, token)
    if pid is None:
        request.app.state.limiter.failed("signin", client_id(request), "failed sign-ins")
        raise WebNotFound(
            words(request).gettext("no such calendar: the address is mistyped, renewed or revoked; see your page (/me)")
        )
    cal = icalendar.Calendar()
    cal.add("prodid", "-//dippouch//my deadlines//EN")
    cal.add("version", "2.0")
    cal.add("x-wr-calname", "dippouch: my deadlines")
    insider = Viewer()
    for seat in people.seats_of(web.read, pid):
        # The person plays the seat: they may see the game, whatever its visibility.
        insider.grants.append(_grant(seat.game, seat.power))
        one = icalendar.Calendar.from_ical(history.calendar_ics(web, seat.game, insider))
        for ev in one.walk("VEVENT"):
            ev["summary"] = f"{seat.power}: {ev.get('summary', '')}"
            ev["uid"] = f"{seat.power}-{ev.get('uid')}"
            cal.add_component(ev)
    return Response(cal.to_ical(), media_type="text/calendar; charset=utf-8", headers={"Cache-Control": "no-store"})


def _grant(game: str, power: str) -> Any:
    from dippouch.store.access import Grant

    return Grant(0, "player", game, power)


# --------------------------------------------------------------------------------------------------
# Adding a seat held by key to the account


@router.post("/me/seats/add", include_in_schema=False)
def me_add_seat(request: Request, form: AccountForm, web: WebDep, viewer: ViewerDep, pid: MeDep) -> Response:
    """A seat this browser holds by its key (the player's link) becomes the person's: only a key the session
    holds, only the power's current player link, and never a seat another person plays."""
    key_id = number_or_none(form.get("key_id", ""))
    if key_id is None:
        raise BadInput(words(request).gettext("key_id must be the number of a key this browser holds"))
    grant = next((g for g in viewer.grants if g.key_id == key_id and g.role == "player" and key_id > 0), None)
    if grant is None or grant.game is None or grant.power is None:
        raise Forbidden(
            words(request).gettext("this browser holds no player key of that number; open the player's link first")
        )
    try:
        store_accounts.claim_seat(web.store, grant.game, grant.power, pid, now=web.now())
    finally:
        web.touched(grant.game)
    return redirect(
        "/me",
        words(request).gettext("%(power)s in %(game)s is now on your account.")
        % {"power": grant.power, "game": grant.game},
    )


# --------------------------------------------------------------------------------------------------
# My data


@router.get("/me/data.json", include_in_schema=False)
def me_data(web: WebDep, pid: MeDep) -> Response:
    data = people_data.export_all(web.read, pid)
    import json

    body = json.dumps(data, indent=1, ensure_ascii=False, default=str)
    return Response(
        body,
        media_type="application/json",
        headers={"Content-Disposition": 'attachment; filename="my-dippouch-data.json"', "Cache-Control": "no-store"},
    )


@router.get("/me/delete", include_in_schema=False, response_class=HTMLResponse)
def me_delete_page(request: Request, web: WebDep, viewer: ViewerDep, pid: MeDep) -> Response:
    return render(request, "me_delete.html", {"me": MeView.model_validate(me_view(web, viewer, pid))})


@router.post("/me/delete", include_in_schema=False)
def me_delete(request: Request, form: AccountForm, web: WebDep, pid: MeDep) -> Response:
    if form.get("confirm", "") != "delete":
        raise BadInput(words(request).gettext("type the word delete in the box to confirm; nothing was deleted"))
    people_data.forget_all(web.store, pid, now=web.now())
    resp = redirect(
        "/",
        words(request).gettext(
            "Your account and its data are deleted, and notification e-mails not yet sent to you are taken out of "
            "the mail queue; your seats stay with the games under the player's name."
        ),
    )
    resp.delete_cookie(session_cookie(request), path="/", secure=over_https(request))
    return resp


# --------------------------------------------------------------------------------------------------
# Passkeys (WebAuthn, with py_webauthn)


def _rp(site: Site) -> tuple[str, str]:
    """(relying party id, origin): the site's public address, not the request's ``Host`` (a passkey is bound to
    the name people open; the id is the host without its port)."""
    return site.host, site.origin


@router.post("/api/me/passkeys/options", dependencies=[CSRF_CHECKED], **answers(PasskeyOptions))
def passkey_register_options(web: WebDep, site: SiteDep, pid: MeDep) -> PasskeyOptions:
    """Options for the browser's ``navigator.credentials.create`` (a signed-in person adds a passkey)."""
    rp_id, _ = _rp(site)
    try:
        return PasskeyOptions(
            options=account_cases.passkey_register_options(web.store, pid, rp_id=rp_id, now=web.now())
        )
    except account_cases.PasskeyRefused as e:
        raise BadInput(e.msg) from None


@router.post("/api/me/passkeys", dependencies=[CSRF_CHECKED], **answers(SignedIn))
def passkey_register(
    web: WebDep,
    site: SiteDep,
    pid: MeDep,
    credential: dict[str, Any] = Body(...),  # noqa: B008
) -> SignedIn:
    """The browser's new credential: checked (challenge ours, unused, this person's; origin and RP id ours)
    and kept."""
    rp_id, origin = _rp(site)
    try:
        account_cases.register_passkey(web.store, pid, credential, rp_id=rp_id, origin=origin, now=web.now())
    except account_cases.PasskeyRefused as e:
        raise BadInput(e.msg) from None
    return SignedIn(ok=True, url="/me")


@router.post("/api/signin/passkey/options", dependencies=[CSRF_CHECKED], **answers(PasskeyOptions))
def passkey_signin_options(request: Request, web: WebDep, site: SiteDep) -> PasskeyOptions:
    """Options for ``navigator.credentials.get``: a fresh challenge, no credential named (the browser offers
    the passkeys it has for this site: nobody learns whose they are)."""
    _limit(request, "signin_mail", client_id(request), "sign-in attempts")
    rp_id, _ = _rp(site)
    return PasskeyOptions(options=account_cases.passkey_signin_options(web.store, rp_id=rp_id, now=web.now()))


@router.post("/api/signin/passkey", dependencies=[CSRF_CHECKED], **answers(SignedIn))
def passkey_signin(
    request: Request,
    response: Response,
    web: WebDep,
    site: SiteDep,
    credential: dict[str, Any] = Body(...),  # noqa: B008
) -> SignedIn:
    """An assertion from a passkey: its challenge ours and unused, its signature by a registered key. The
    session's cookies go out with the answer (on ``response``, which FastAPI merges into it)."""
    rp_id, origin = _rp(site)
    try:
        person_id = account_cases.sign_in_with_passkey(web.store, credential, rp_id=rp_id, origin=origin, now=web.now())
    except account_cases.PasskeyMalformed as e:
        raise BadInput(e.msg) from None
    except account_cases.PasskeyRefused as e:
        request.app.state.limiter.failed("signin", client_id(request), "failed sign-ins")
        raise Forbidden(e.msg) from None
    set_session_cookie(request, response, _new_session(request, web, person_id))
    remember_device(request, response, web, person_id)
    forget_next(request, response)
    return SignedIn(ok=True, url=after_sign_in(request))


@router.post("/me/passkeys/{passkey_id}/remove", include_in_schema=False)
def passkey_remove(request: Request, passkey_id: int, form: AccountForm, web: WebDep, pid: MeDep) -> Response:
    account_cases.remove_passkey(web.store, pid, passkey_id)
    return redirect("/me", words(request).gettext("The passkey is removed."))
