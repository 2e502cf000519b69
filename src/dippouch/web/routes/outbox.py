"""The installation's outbox, for its coordinator: every message the site has queued (sign-in links, results,
notices), whether it was sent, and if not why. On a fresh install with no mail server set up nothing can be
sent: this page is where the coordinator reads the link a newcomer asked for, and learns how to set mail up.

What the page shows of a message is only what its coordinator may read anyway (issue 52, finding 10: a sign-in
link read here signed the coordinator in as anyone, and so to their sealed orders without the unsealing record
docs/security.md promises):

- results, reminders and notices: whole (a game's coordinator reads them on the desk);
- a sign-in link or a seat's link: whole only while no mail can be sent (the page is then the only way a
  link reaches anyone) and to an address that is no person's yet (a newcomer, whom nobody else can be);
  otherwise hidden, and the page says why; while no mail can be sent, the coordinator may still read a
  returning person's sign-in link (it is then the only way in for one without a passkey), one link at a time
  and recorded on the link: the person sees on their account page when it was read, as players see an
  unsealing (:func:`dippouch.play.accounts.show_signin_mail`);
- everything else (receipts and replies with a player's orders or token, press copies, notifications with a
  message's words): hidden; its addressee reads it.
"""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, Response
from starlette.requests import Request

from dippouch.core.messages import msg
from dippouch.mail.notices import mail_unavailable
from dippouch.numbers import number_or_none
from dippouch.play import accounts as account_cases
from dippouch.store.db import Database
from dippouch.store.mail.queues import QueuedMail, recent_mail
from dippouch.store.people.persons import person_by_email
from dippouch.web.http.deps import ViewerDep, WebDep, render, words
from dippouch.web.http.forms import FormDep
from dippouch.web.http.security import BadInput

__all__ = ["router"]

I18N_DOMAIN = "games"

router = APIRouter(include_in_schema=False)

SHOWN = 50

READABLE = frozenset({"results", "notice", "reminder"})
"""Kinds of mail whose text the coordinator may read: nothing in them is sealed or secret."""

LINKS = frozenset({"signin", "link"})
"""Kinds of mail that carry a link signing in as a person, or to a seat."""


@dataclass(frozen=True)
class Shown:
    """A message as the page shows it: its text, or why the text is hidden (``mailed``: mail can be sent, so
    the link reaches its owner; ``account``: the link is to a person's account; ``private``: orders, press or a
    token, its addressee's only)."""

    mail: QueuedMail
    body: str | None
    hidden: str | None = None


def shown(db: Database, mails: list[QueuedMail], *, can_send: bool) -> list[Shown]:
    """What the page may show of each of ``mails`` (see the module's notes)."""
    accounts: dict[str, bool] = {}
    out = []
    for m in mails:
        if m.kind in READABLE:
            out.append(Shown(m, m.body))
        elif m.kind not in LINKS:
            out.append(Shown(m, None, "private"))
        elif can_send:
            out.append(Shown(m, None, "mailed"))
        else:
            address = m.to.strip().lower()
            if address not in accounts:
                accounts[address] = person_by_email(db, address) is not None
            out.append(Shown(m, None, "account") if accounts[address] else Shown(m, m.body))
    return out


@router.get("/coordinate/outbox", response_class=HTMLResponse)
def outbox_page(request: Request, web: WebDep, viewer: ViewerDep) -> Response:
    """The newest messages, newest first, each with only what its coordinator may read (see the module's notes);
    only the installation's coordinator reads them, and the answer is never stored by a cache."""
    web.require_coordinator(None, viewer)
    return _page(request, web)


@router.post("/coordinate/outbox/{mail_id}/show", response_class=HTMLResponse)
def outbox_show(request: Request, mail_id: str, form: FormDep, web: WebDep, viewer: ViewerDep) -> Response:
    """A returning person's sign-in link, shown to the installation's coordinator while no mail can be sent
    (their only way to pass it on) and recorded on the link, for the person to see on their account page."""
    web.require_coordinator(None, viewer)
    t = words(request)
    number = number_or_none(mail_id)
    if mail_unavailable() is None:
        raise BadInput(t.gettext("This site sends mail now: the link goes to its owner alone and is not shown here."))
    body = None if number is None else account_cases.show_signin_mail(web.store, number, now=web.now())
    if number is None or body is None:
        raise BadInput(msg("There is no sign-in link's mail %(id)s in the outbox.", id=repr(mail_id[:40])))
    return _page(request, web, {number: body})


def _page(request: Request, web: WebDep, revealed: dict[int, str] | None = None) -> Response:
    unavailable = mail_unavailable()
    mails = shown(web.store, recent_mail(web.store, limit=SHOWN), can_send=unavailable is None)
    if revealed:
        mails = [Shown(e.mail, revealed[e.mail.id]) if e.mail.id in revealed else e for e in mails]
    resp = render(request, "outbox.html", {"mails": mails, "unavailable": unavailable, "shown": SHOWN})
    resp.headers["Cache-Control"] = "no-store"
    return resp
