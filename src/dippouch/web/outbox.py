"""The installation's outbox, for its coordinator: every message the site has queued (sign-in links, results,
notices), whether it was sent, and if not why. On a fresh install with no mail server set up nothing can be
sent: this page is where the coordinator reads the link a newcomer asked for, and learns how to set mail up."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, Response
from starlette.requests import Request

from dippouch.mail.notices import mail_unavailable
from dippouch.store.queues import recent_mail
from dippouch.web.deps import ViewerDep, WebDep, render

__all__ = ["router"]

router = APIRouter(include_in_schema=False)

SHOWN = 50


@router.get("/coordinate/outbox", response_class=HTMLResponse)
def outbox_page(request: Request, web: WebDep, viewer: ViewerDep) -> Response:
    """The newest messages, newest first; their texts hold live sign-in links, so only the installation's
    coordinator reads them, and the answer is never stored by a cache."""
    web.require_coordinator(None, viewer)
    mails = recent_mail(web.store, limit=SHOWN)
    resp = render(request, "outbox.html", {"mails": mails, "unavailable": mail_unavailable(), "shown": SHOWN})
    resp.headers["Cache-Control"] = "no-store"
    return resp
