"""One-click unsubscribe (RFC 8058): the address every mail a person can turn off carries
(:func:`dippouch.mail.outbox.unsubscribe_link`).

A mail program that offers "unsubscribe" POSTs ``List-Unsubscribe=One-Click`` to the address, with no cookie
and no page in between, so the POST needs no sign-in and no form token: the signed token in the address is
the proof, as a sign-in link is. Someone who opens the address in a browser (the link at the end of the text)
gets a page that says what will stop and a button, because a GET must change nothing: mail scanners open
every link they see.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends
from fastapi.responses import HTMLResponse, Response
from starlette.requests import Request

from dippouch.game import GameError
from dippouch.mail.outbox import read_unsubscribe_token
from dippouch.notify.events import EVENTS, save_preferences
from dippouch.store.notify import stored
from dippouch.web.http.deps import WebDep, render, words
from dippouch.web.http.forms import Form, posted
from dippouch.web.http.service import Web

__all__ = ["router"]

router = APIRouter(include_in_schema=False)

I18N_DOMAIN = "site"

ONE_CLICK = "One-Click"


def _turned_off(request: Request, what: str) -> tuple[str, dict[tuple[str, str], bool]] | None:
    """What the page calls the mail ``what`` names (in the reader's language), and the notification choices
    that stop it."""
    t = words(request)
    if what == "press":
        return t.gettext("copies of press (messages) by e-mail"), {stored.PRESS_BY_MAIL: False}
    if what == "notify":
        return t.gettext("notifications by e-mail"), {(event, "email"): False for event in EVENTS}
    event = what.removeprefix("notify:")
    if what.startswith("notify:") and event in EVENTS:
        kind = t.gettext(EVENTS[event])  # the event's name, as the Notifications page's catalogue has it
        return t.gettext("e-mails of this kind: %(kind)s") % {"kind": kind}, {(event, "email"): False}
    return None


def _invalid(request: Request) -> Response:
    return render(
        request,
        "unsubscribe.html",
        {
            "invalid": True,
            "message": words(request).gettext(
                "This unsubscribe link is not valid (perhaps it was cut short when copied). Open the whole "
                "link from the e-mail, or sign in and choose what you get on the Notifications page."
            ),
        },
        status=404,
    )


def _read(request: Request, web: Web, token: str) -> tuple[int, str, str, dict[tuple[str, str], bool]] | None:
    got = read_unsubscribe_token(web.store, token)
    if got is None:
        return None
    person, what = got
    stops = _turned_off(request, what)
    if stops is None:
        return None
    return person, what, *stops


@router.get("/unsubscribe/{token}", response_class=HTMLResponse)
def unsubscribe_page(request: Request, token: str, web: WebDep) -> Response:
    """What the link stops, and the button that stops it (opening the link changes nothing)."""
    got = _read(request, web, token)
    if got is None:
        return _invalid(request)
    _, _, what, _ = got
    resp = render(request, "unsubscribe.html", {"what": what, "token": token, "done": False})
    resp.headers["Cache-Control"] = "no-store"
    resp.headers["Referrer-Policy"] = "no-referrer"
    return resp


def _no_token_check(request: Request, sent: str | None) -> None:
    """The signed address is the proof (see the module's notes): mail programs send no form token."""


OneClickForm = Annotated[Form, Depends(posted(max_fields=10, csrf=_no_token_check))]
"""The mail program's post: a field or two, and no form token (:func:`_no_token_check`)."""


@router.post("/unsubscribe/{token}", response_class=HTMLResponse)
def unsubscribe(request: Request, token: str, form: OneClickForm, web: WebDep) -> Response:
    """Turn the mail off for the person the token names: with ``List-Unsubscribe=One-Click`` in the body, as
    RFC 8058 asks (a POST without it is refused, so a stray POST to the address stops nothing)."""
    got = _read(request, web, token)
    if got is None:
        return _invalid(request)
    if form.get("List-Unsubscribe") != ONE_CLICK:
        return render(
            request,
            "unsubscribe.html",
            {
                "invalid": True,
                "message": words(request).gettext(
                    "An unsubscribe request says List-Unsubscribe=One-Click in its body (RFC 8058); this "
                    "one did not, so nothing was changed. Use the button on this link's page."
                ),
            },
            status=400,
        )
    person, _, what, choices = got
    try:
        save_preferences(web.store, person, choices, None)
    except GameError:
        return _invalid(request)  # the person was deleted since: there is nothing left to send them
    resp = render(request, "unsubscribe.html", {"what": what, "token": token, "done": True})
    resp.headers["Cache-Control"] = "no-store"
    return resp
