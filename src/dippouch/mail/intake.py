"""The mail door's way in: a raw message read once (:func:`dippouch.letters.message.parse_message`: its sender,
subject, body and attachments, when it was received) and handed to the use case that takes it in
(:func:`dippouch.play.mail_intake.take_in`), which decides what becomes of it and writes that once. The outcomes
are listed there.

Each message is taken in exactly once, whatever process is killed when: it is claimed (``received``), and
what becomes of it (a submission, press passed on, a hold, a refusal, with its receipt or reply) is recorded in
the one transaction that does it (:mod:`dippouch.store.mail.inbox`). A message a killed process left ``received`` has
had nothing applied, and the next fetch takes it in again (:func:`resume_unfinished`, and the same message
fetched again).
"""

from __future__ import annotations

import hashlib
import logging
from datetime import datetime

from dippouch.core.errors import DippouchError
from dippouch.core.messages import msg
from dippouch.game import as_utc
from dippouch.letters.message import Inbound, parse_message, received_time
from dippouch.mail.settings import ServerSettings
from dippouch.play import mail_intake
from dippouch.play.mail_record import IntakeOutcome
from dippouch.store import GameStore
from dippouch.store.mail.inbox import unfinished

__all__ = ["I18N_DOMAIN", "IntakeOutcome", "fetch_mailbox", "resume_unfinished", "take_in"]

I18N_DOMAIN = "mail"
"""Why a message was left for the next fetch is a message value, said in the mail's words where shown."""

log = logging.getLogger("dippouch.mail.intake")


def _installation_sender() -> str:
    """The installation's From address (``""`` when none is set or the mail settings cannot be read): read
    once a message, before its transactions, since each read of the mail settings is a query."""
    from dippouch.mail.settings import load_settings

    try:
        return load_settings("smtp").sender or ""
    except DippouchError:
        return ""


def _content(letter: Inbound) -> tuple[object, ...]:
    """What makes two copies of a message the same message: its Message-ID, sender, subject, text and files.
    The raw bytes differ between copies (an mbox re-encodes headers, servers add Received lines)."""
    body = "\n".join(line.rstrip() for line in letter.body.replace("\r\n", "\n").strip().split("\n"))
    files = sorted((a.filename, hashlib.sha256(a.data).hexdigest()) for a in letter.attachments)
    return (letter.message_id, letter.sender.lower(), letter.subject.strip(), body, files)


def take_in(
    store: GameStore,
    raw: bytes,
    *,
    now: datetime,
    received: datetime | None = None,
    origin: str = "file",
) -> IntakeOutcome:
    """Take one raw message in (the outcomes are :mod:`dippouch.play.mail_intake`'s). Never raises for a bad
    message."""
    now = as_utc(now)
    letter = parse_message(raw)
    when, how = received_time(letter, received, now)
    mine = _content(letter)
    arrival = mail_intake.Arrival(
        raw=raw,
        message_id=letter.message_id,
        sender=letter.sender,
        subject=letter.subject,
        origin=origin,
        received_at=when,
        fetched_at=now,
        reading={"received_from": how},
        attachments=letter.attachments,
    )
    return mail_intake.take_in(
        store,
        letter,
        arrival,
        is_copy=lambda stored: _content(parse_message(stored)) == mine,
        now=now,
        sender=_installation_sender(),
    )


def resume_unfinished(store: GameStore, *, now: datetime) -> list[IntakeOutcome]:
    """Take in again every message a fetch claimed and never finished (the process was killed): nothing of it
    was applied, so it is taken in as if fetched now, received when it was first recorded. Every fetch does
    this first (``dippouch mail fetch``, :func:`fetch_mailbox`).

    A message whose intake fails again (a fault of ours, not of the message: intake answers every bad message)
    is logged and left unfinished for the next fetch, so that it never stops the mail behind it."""
    out = []
    for m in unfinished(store):
        try:
            out.append(take_in(store, m.raw, now=now, received=m.received_at, origin=m.origin))
        except Exception as e:
            log.exception("mail #%s could not be taken in again; it is left for the next fetch", m.id)
            out.append(
                IntakeOutcome(
                    "received",
                    msg("not taken in (%(error)s); left for the next fetch", error=type(e).__name__),
                    mail_id=m.id,
                )
            )
    return out


def fetch_mailbox(store: GameStore, settings: ServerSettings, *, now: datetime) -> list[IntakeOutcome]:
    """Take in every new message of an IMAP mailbox (``dippouch mail fetch``, and the workers before they
    process a due phase, so that mail which came on time is never fetched after its phase was processed)."""
    from dippouch.mail.sources import imap_messages

    return resume_unfinished(store, now=now) + [
        take_in(store, raw, now=now, received=received, origin=origin)
        for raw, received, origin in imap_messages(store, settings)
    ]
