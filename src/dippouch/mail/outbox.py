"""The outbound queue: every message dippouch sends is a row first, sent later by :func:`send_due`.

Why a queue in the database: a mail server that is down must delay mail, not lose it, and a receipt must
not be lost because the process that made it died. The guarantees:

- Queuing is idempotent: each message has a ``key`` ("results:PHASE:ADDRESS", "receipt:MESSAGE"...) that
  is unique, so two processes queuing the same notice make one row.
- Sending claims a row first (a lease: ``claimed_until``), in its own short transaction, with ``FOR UPDATE
  SKIP LOCKED`` on PostgreSQL and SQLite's write lock otherwise, so several senders at once never take
  the same row. A row is marked sent in its own commit right after the server's "250 OK", so a sender
  killed at any point loses nothing: an unfinished claim runs out and another sender takes the row.
  The one window left is a kill between the server's OK and that commit (a few milliseconds); the row is
  then sent again *with the same Message-ID*, which mail programs show once.
- Temporary failures (server down, 4xx) are retried with back-off (1, 5, 15, 30 minutes, then hourly,
  at most every 6 hours); a message the server refuses for good (5xx) is marked ``failed`` with the
  server's words, kept, and can be queued again with ``dippouch mail retry``.

Mail a person can turn off (notifications, press copies: :data:`UNSUBSCRIBABLE`) carries a one-click
unsubscribe (RFC 8058): ``List-Unsubscribe`` with the site's ``/unsubscribe/TOKEN`` address,
``List-Unsubscribe-Post: List-Unsubscribe=One-Click``, and the same link at the end of the text. The token is
the person's id and the kind of mail, signed with a key of the installation, so a mail program's POST turns
that mail off without a sign-in and nobody can make a token for someone else.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import socket
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime
from typing import Any

from dippouch import settings as installation
from dippouch.core.messages import msg
from dippouch.game import as_utc
from dippouch.mail.settings import ServerSettings
from dippouch.numbers import number_or_none
from dippouch.play import mail_out
from dippouch.saying import say
from dippouch.store import GameStore
from dippouch.store.db import Database
from dippouch.store.faults import crash_point
from dippouch.store.mail.outbox import OutboxEntry, OutFile, outbox_entry
from dippouch.store.mail.outbox import queue_in as queue

__all__ = [
    "BACKOFF",
    "I18N_DOMAIN",
    "UNSUBSCRIBABLE",
    "OutFile",
    "SendReport",
    "build_message",
    "queue",
    "read_unsubscribe_token",
    "reader_language",
    "send_due",
    "unsubscribe_link",
    "unsubscribe_token",
]

I18N_DOMAIN = "mail"
"""The catalogue of the words the sender adds to a queued message (the one-click line), said in its reader's
language."""

BACKOFF = (60, 300, 900, 1800, 3600, 3600 * 2, 3600 * 4, 3600 * 6)
"""Seconds to wait after the 1st, 2nd, ... failed attempt (the last repeats)."""
LEASE = timedelta(minutes=5)


@dataclass
class SendReport:
    sent: list[int] = field(default_factory=list)
    retry: list[tuple[int, str]] = field(default_factory=list)
    failed: list[tuple[int, str]] = field(default_factory=list)
    server_down: str | None = None


UNSUBSCRIBABLE = ("notify", "press")
"""Outbox kinds a person can turn off, each named in its unsubscribe token: notifications by e-mail
(``notify``, or ``notify:EVENT`` for one event's) and copies of press (``press``). Sign-in links, receipts and
replies are answers to what the person sent or asked for, and stop when they stop asking."""

_UNSUBSCRIBE_KEY = "unsubscribe"


def _what(kind: str) -> str | None:
    """The kind of mail an outbox row's kind lets its reader turn off (``None``: none)."""
    base, _, event = kind.partition(":")
    if base not in UNSUBSCRIBABLE or (
        event and (base != "notify" or not (event.isascii() and event.replace("_", "").isalnum()))
    ):
        return None
    return kind


def _signature(db: Database, person_id: int, what: str) -> str:
    key = mail_out.secret(db, _UNSUBSCRIBE_KEY)
    digest = hmac.new(key, f"unsubscribe:{person_id}:{what}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:18]).decode("ascii")


def unsubscribe_token(db: Database, person_id: int, what: str) -> str:
    """``PERSON.WHAT.SIGNATURE``: who is unsubscribed from which kind of mail, signed (see the module's notes)."""
    return f"{person_id}.{what}.{_signature(db, person_id, what)}"


def read_unsubscribe_token(db: Database, token: str) -> tuple[int, str] | None:
    """(person id, kind of mail) of a token :func:`unsubscribe_token` made; ``None`` for any other text (a
    changed person, kind or signature)."""
    head, _, rest = token.partition(".")
    what, _, signature = rest.rpartition(".")
    person = number_or_none(head) if head == head.strip() else None  # exactly as made: digits, nothing around
    if person is None or person < 1 or _what(what) is None:
        return None
    expected = _signature(db, person, what)
    return (person, what) if hmac.compare_digest(expected.encode(), signature.encode("utf-8", "replace")) else None


def reader_language(db: GameStore, person_id: int, game_id: int | None) -> str:
    """The language the message's reader reads (the words the sender adds to a queued body: the one-click
    line): the person's own choice, else the game's, else English, as the notices chose for the body."""
    from dippouch.game import GameSettings
    from dippouch.i18n import DEFAULT, LANGUAGES
    from dippouch.store.notify.stored import game_name, game_settings_of
    from dippouch.store.people.persons import preferences_of

    chosen = preferences_of(db, [person_id]).get(person_id)
    if chosen is not None and chosen.language in LANGUAGES:
        return str(chosen.language)
    if game_id is None:
        return DEFAULT
    try:
        name = game_name(db, game_id)
        return GameSettings.from_data(game_settings_of(db, [name]).get(name, {})).language
    except Exception:  # a game gone or unreadable: English is always right
        return DEFAULT


def unsubscribe_link(db: GameStore, kind: str, to: str) -> tuple[str, int] | None:
    """The one-click unsubscribe address for a message of ``kind`` to ``to``, with the person it is for (their
    language says the line that carries it), or ``None``: not a kind one turns off, or no person has that
    address."""
    from dippouch.store.people.persons import person_by_email

    what = _what(kind)
    if what is None:
        return None
    person = person_by_email(db, to)
    if person is None:
        return None
    return installation.site().link(f"/unsubscribe/{unsubscribe_token(db, person.id, what)}"), person.id


def build_message(
    row: OutboxEntry | Any, sender: str, now: datetime, *, unsubscribe: str | None = None, lang: str = "en"
) -> EmailMessage:
    """The message as sent: plain text (everything readable without the attachments), files after it.
    ``unsubscribe``: the one-click address (:func:`unsubscribe_link`'s link), in the RFC 8058 headers and the text,
    said in ``lang`` (:func:`reader_language`), the body's language."""
    email = EmailMessage()
    email["From"] = sender
    email["To"] = row.to_addr
    email["Subject"] = row.subject
    email["Date"] = format_datetime(as_utc(now))
    email["Message-ID"] = row.header_id
    # Receipts and results are machine-made: other robots must not answer them (no mail loops).
    email["Auto-Submitted"] = "auto-replied" if row.in_reply_to else "auto-generated"
    if row.in_reply_to:
        email["In-Reply-To"] = row.in_reply_to
        email["References"] = row.in_reply_to
    body = row.body
    if unsubscribe:
        email["List-Unsubscribe"] = f"<{unsubscribe}>"
        email["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
        one_click = say(msg("To stop these e-mails with one click: %(link)s", link=unsubscribe), lang)
        body = body.rstrip("\n") + f"\n\n{one_click}\n"
    email.set_content(body, subtype="plain", charset="utf-8")
    for f in row.files:
        maintype, _, subtype = f.content_type.partition("/")
        email.add_attachment(f.data, maintype=maintype, subtype=subtype or "octet-stream", filename=f.filename)
    # Headers are written unfolded (up to the 998 characters a line may hold): Python's folding moves a
    # subject of 70-77 characters whole onto a line of its own, and mail readers then show it with a
    # leading space. The body and attachments are encoded already, in lines of 76.
    email.policy = email.policy.clone(max_line_length=998)
    return email


def backoff(attempts: int) -> timedelta:
    return timedelta(seconds=BACKOFF[min(max(attempts, 1), len(BACKOFF)) - 1])


def send_due(
    store: GameStore,
    now: datetime,
    settings: ServerSettings | None = None,
    *,
    limit: int = 200,
    worker: str | None = None,
    lease: timedelta = LEASE,
    connect: Callable[[ServerSettings], object] | None = None,
) -> SendReport:
    """Send every queued message that is due at ``now`` (at most ``limit``). Safe to run in several
    processes at once: each row is claimed before it is sent and sent once (see the module's notes).

    The deadline workers call this on a timer; ``dippouch mail send`` calls it once.
    """
    from dippouch.mail.settings import load_settings
    from dippouch.mail.smtp import SendFailure, SmtpConnection

    now = as_utc(now)
    settings = settings or load_settings("smtp", store=store)
    if not settings.sender:
        from dippouch.game import GameError

        raise GameError("no From address: set DIPPOUCH_MAIL_FROM or [smtp] from in the mail config")
    worker = worker or f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
    report = SendReport()
    conn: SmtpConnection | None = None
    try:
        for _ in range(limit):
            row_id = mail_out.claim_next(store, now, worker, lease)
            if row_id is None:
                break
            crash_point("mail:after-claim")
            row = outbox_entry(store, row_id)
            found = unsubscribe_link(store, row.kind, row.to_addr)
            if found is None:
                email = build_message(row, settings.sender, now)
            else:
                link, person_id = found
                lang = reader_language(store, person_id, row.game_id)
                email = build_message(row, settings.sender, now, unsubscribe=link, lang=lang)
            to, attempts = row.to_addr, row.attempts
            try:
                if conn is None:
                    conn = SmtpConnection(settings).__enter__()
                conn.send(email, to)
            except SendFailure as e:
                if e.permanent and not e.server_down:
                    mail_out.sent(store, row_id, worker, status="failed", last_error=str(e))
                    report.failed.append((row_id, str(e)))
                else:
                    mail_out.sent(store, row_id, worker, next_attempt_at=now + backoff(attempts), last_error=str(e))
                    report.retry.append((row_id, str(e)))
                if e.server_down:
                    report.server_down = str(e)
                    if conn is not None:
                        conn._drop()
                    conn = None
                    break  # the server is not there: leave the rest for the next run
                continue
            crash_point("mail:after-smtp")
            mail_out.sent(store, row_id, worker, status="sent", sent_at=now, last_error=None)
            report.sent.append(row_id)
            crash_point(f"mail:after-sent:{len(report.sent)}")
    finally:
        if conn is not None:
            conn.__exit__(None, None, None)
    return report
