"""The desk's mail page: the installation's coordinator sets up the SMTP server the site sends through, and
sends a test mail through it to see that it works.

Why a page and not only the environment: on the embedded default (``scripts/run``) a coordinator has no
environment to edit and no mail leaves (issue 40). What is typed here is kept in the database
(:func:`dippouch.mail.settings.save_smtp`) and used while neither the environment nor the mail config file
names a server; when they do, they win and the page says which settings are in force. The saved password is
never written back into the page: its field is blank, and a blank keeps it for the server it was saved with
only (host, port, security and user): a session that changes the host must know the password, or it could
send the saved one to a server of its own (issue 52, finding 9).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends
from fastapi.responses import HTMLResponse, Response
from starlette.requests import Request

from dippouch.game import GameError
from dippouch.mail.notices import mail_unavailable
from dippouch.mail.settings import (
    FORM_FIELDS,
    ServerSettings,
    environment_smtp,
    save_smtp,
    smtp_from_form,
    stored_smtp,
)
from dippouch.mail.smtp import SendFailure, send_test_mail
from dippouch.web.http.deps import ViewerDep, WebDep, layer_words, render, words
from dippouch.web.http.forms import FormDep, redirect
from dippouch.web.http.service import Web

__all__ = ["router"]

router = APIRouter(include_in_schema=False)

I18N_DOMAIN = "site"

PAGE = "/coordinate/mail"


def _shown(saved: ServerSettings | None) -> dict[str, str]:
    """The form's values from the saved server, the password left out (never shown back)."""
    if saved is None:
        return {"security": "starttls"}
    return {
        "host": saved.host or "",
        "port": str(saved.port) if saved.port else "",
        "security": saved.security,
        "user": saved.user or "",
        "from": saved.sender or "",
    }


def _page(
    request: Request,
    web: Web,
    *,
    values: dict[str, str],
    refusal: str | None = None,
    outcome: str | None = None,
    status: int = 200,
) -> Response:
    saved = stored_smtp(web.store)
    resp = render(
        request,
        "mail_setup.html",
        {
            "values": values,
            "refusal": refusal,
            "outcome": outcome,
            "saved": saved,
            "password_saved": saved is not None and saved.stored_password is not None,
            "environment": environment_smtp(),
            "unavailable": mail_unavailable(),
        },
        status=status,
    )
    resp.headers["Cache-Control"] = "no-store"
    return resp


def _coordinator(web: WebDep, viewer: ViewerDep) -> Web:
    """The web service, for the installation's coordinator only (anyone else is refused before a form is read)."""
    web.require_coordinator(None, viewer)
    return web


CoordinatorWeb = Annotated[Web, Depends(_coordinator)]
"""The web service, once the caller is known to be the installation's coordinator."""


@router.get(PAGE, response_class=HTMLResponse)
def mail_setup_page(request: Request, web: CoordinatorWeb) -> Response:
    """The SMTP server in force and the form to set one up (the installation's coordinator only)."""
    return _page(request, web, values=_shown(stored_smtp(web.store)))


@router.post(PAGE, response_class=HTMLResponse)
def mail_setup_post(request: Request, web: CoordinatorWeb, form: FormDep) -> Response:
    """``action=save`` keeps the typed server; ``action=test`` sends a test mail through it first and keeps it
    only if the server took the mail. A refusal (a field to fix, or the server's own answer) comes back on
    this page with everything typed but the password, and leaves the saved server as it was."""
    typed = {k: form.get(k, "") or "" for k in (*FORM_FIELDS, "to")}
    values = {k: v for k, v in typed.items() if k != "password"}
    action = form.get("action", "save")
    t = words(request)
    if action not in ("save", "test"):
        refusal = t.gettext("action %(action)s: choose Save or Send a test mail") % {"action": repr(action)}
        return _page(request, web, values=values, refusal=refusal, status=400)
    saved = stored_smtp(web.store)
    try:
        server = smtp_from_form(typed, saved=saved)
    except GameError as e:
        return _page(request, web, values=values, refusal=layer_words(request, e), status=400)
    if action == "test":
        to = typed["to"].strip() or (server.sender or "")
        if "@" not in to or any(c.isspace() for c in to):
            refusal = t.gettext("send the test to %(to)s: give an e-mail address") % {"to": repr(to)}
            return _page(request, web, values=values, refusal=refusal, status=400)
        try:
            send_test_mail(server, to, web.store.clock())
        except (SendFailure, GameError) as e:
            why = layer_words(request, e)
            refusal = t.gettext("The test mail was not sent: %(why)s. Nothing was saved.") % {"why": why}
            return _page(request, web, values=values, refusal=refusal)
        save_smtp(web.store, server)
        return redirect(
            PAGE,
            t.gettext("The test mail to %(to)s was taken by %(where)s, and the server is saved.")
            % {"to": to, "where": server.where()},
        )
    save_smtp(web.store, server)
    return redirect(PAGE, t.gettext("Saved: the site sends through %(where)s.") % {"where": server.where()})
