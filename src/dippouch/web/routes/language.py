"""The reader's language and time zone: the footer's language choice (``_language.html``) posts here.

Anyone may choose: the choice is kept in the browser (the ``lang`` cookie, a year), and for a signed-in person
also with the person (``people.language``), so their other browsers, and their mail and notices, follow it.
A signed-in person may also keep a time zone, which their pages' dates and times are shown in.

The form comes back to the page it was on; only a path of this site is followed (never another site's
address: the form's ``next`` field is the browser's to send).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from fastapi import APIRouter
from fastapi.responses import Response
from starlette.requests import Request

from dippouch.core.errors import DippouchError
from dippouch.core.messages import msg
from dippouch.i18n import LANGUAGES, language_name
from dippouch.play import accounts as account_cases
from dippouch.store.people import persons as people
from dippouch.web.http.deps import (
    LANGUAGE_COOKIE,
    NEED_PERSON,
    ViewerDep,
    WebDep,
    remember_preferences,
    set_private_cookie,
    words,
)
from dippouch.web.http.forms import FormDep, redirect
from dippouch.web.http.security import BadInput, NeedsKey

__all__ = ["LANGUAGE_LIFETIME", "router", "same_site_path"]

I18N_DOMAIN = "language"

router = APIRouter(tags=["language"])

LANGUAGE_LIFETIME = 60 * 60 * 24 * 365
"""Seconds a browser keeps its language choice."""


def same_site_path(value: str | None) -> str:
    """Where to send the browser back to: ``value`` if it is a path of this site (``/games/x?y``), else the home
    page. An absolute address, a scheme-relative ``//host``, a backslash (which browsers read as a slash) or
    a control character is no path of ours."""
    value = (value or "").strip()
    if not value.startswith("/") or value.startswith("//") or len(value) > 2000:
        return "/"
    if "\\" in value or any(ord(c) < 32 or ord(c) == 127 for c in value):
        return "/"
    try:
        parts = urlsplit(value)
    except ValueError:
        return "/"
    if parts.scheme or parts.netloc:
        return "/"
    return value


@router.post("/language", include_in_schema=False)
def choose_language(request: Request, form: FormDep, web: WebDep, viewer: ViewerDep) -> Response:
    """Answer in ``lang`` from now on: in this browser, and for a signed-in person everywhere."""
    lang = form.get("lang", "").strip()
    if lang not in LANGUAGES:
        choices = ", ".join(f"{language_name(c)} ({c})" for c in LANGUAGES)
        raise BadInput(
            msg("There is no language %(code)s here: choose one of %(choices)s.", code=repr(lang[:20]), choices=choices)
        )
    if viewer.person_id is not None:
        try:
            account_cases.set_language(web.store, viewer.person_id, lang)
        except DippouchError:
            pass  # a person deleted meanwhile: the browser's choice still holds
        else:
            remember_preferences(request, viewer.person_id, people.preferences(web.store, viewer.person_id))
    resp = redirect(same_site_path(form.get("next")))
    set_private_cookie(request, resp, LANGUAGE_COOKIE, lang, LANGUAGE_LIFETIME)
    return resp


@router.post("/language/zone", include_in_schema=False)
def choose_time_zone(request: Request, form: FormDep, web: WebDep, viewer: ViewerDep) -> Response:
    """Show a signed-in person's dates and times in ``zone`` (an IANA name; empty: the game's zone, else UTC)."""
    if viewer.person_id is None:
        raise NeedsKey(NEED_PERSON)
    zone = form.get("zone", "").strip()
    w = words(request)
    try:
        account_cases.set_time_zone(web.store, viewer.person_id, zone or None)
    except DippouchError:
        raise BadInput(
            msg(
                "There is no time zone %(zone)s: write it as the zone database names it, e.g. Europe/Berlin.",
                zone=repr(zone[:64]),
            )
        ) from None
    chosen = people.preferences(web.store, viewer.person_id)
    remember_preferences(request, viewer.person_id, chosen)
    said = (
        w.gettext("Times are shown in %(zone)s.") % {"zone": chosen.time_zone}
        if chosen.time_zone
        else w.gettext("Times are shown in each game's time zone, else in UTC.")
    )
    return redirect(same_site_path(form.get("next")), said)
