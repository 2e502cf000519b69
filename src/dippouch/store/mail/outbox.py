"""The outbound mail queue: every message dippouch sends is queued here first, in the transaction of what it
tells (a notice, a receipt, a press copy), and sent later by whichever process claims it
(:mod:`dippouch.mail.outbox`), so a crash never loses a message nor sends one twice."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from dippouch.core.messages import msg
from dippouch.game import GameError, as_utc
from dippouch.store.db import Database
from dippouch.store.mail.models import MailNoticeRow, OutboxFileRow, OutboxRow

I18N_DOMAIN = "rules"
"""The catalogue of the store's refusals, said in the reader's language where they are shown (dippouch.saying)."""

__all__ = [
    "Notice",
    "OutFile",
    "OutboxEntry",
    "claim_outbox",
    "finish_outbox",
    "forget_mail_to",
    "notice_claimed",
    "outbox_entries",
    "outbox_entry",
    "queue_in",
    "queue_mail",
    "queue_notices_once",
    "retry_outbox",
]


@dataclass(frozen=True)
class OutFile:
    filename: str
    content_type: str
    data: bytes


@dataclass
class OutboxEntry:
    """One queued message as the sender and the coordinator's views read it (no database row escapes)."""

    id: int
    kind: str
    to_addr: str
    subject: str
    body: str
    header_id: str
    in_reply_to: str | None
    status: str
    attempts: int
    next_attempt_at: datetime
    sent_at: datetime | None
    last_error: str | None
    files: list[OutFile] = field(default_factory=list)
    game_id: int | None = None
    """The game the message is about, if any (its language says the words the sender adds)."""


def queue_in(
    s: Session,
    *,
    key: str,
    to: str,
    subject: str,
    body: str,
    kind: str,
    now: datetime,
    sender_domain: str = "dippouch.invalid",
    game_id: int | None = None,
    phase_id: int | None = None,
    in_reply_to: str | None = None,
    files: Sequence[Any] = (),
) -> bool:
    """Queue one message in the caller's transaction; False if a message with this key is already queued.
    ``files``: anything with ``filename``, ``content_type`` and ``data``."""
    if s.scalars(sa.select(OutboxRow.id).where(OutboxRow.key == key)).first() is not None:
        return False
    now = as_utc(now)
    row = OutboxRow(
        key=key,
        game_id=game_id,
        phase_id=phase_id,
        kind=kind,
        to_addr=to,
        subject=subject,
        body=body,
        header_id=f"<dippouch.{uuid.uuid4().hex}@{sender_domain}>",
        in_reply_to=in_reply_to,
        status="pending",
        attempts=0,
        created_at=now,
        next_attempt_at=now,
    )
    try:
        with s.begin_nested():
            s.add(row)
            s.flush()
            for f in files:
                s.add(OutboxFileRow(outbox_id=row.id, filename=f.filename, content_type=f.content_type, data=f.data))
            s.flush()
    except IntegrityError:
        return False  # another process queued it first
    return True


def queue_mail(store: Database, **message: Any) -> bool:
    """:func:`queue_in` in a transaction of its own."""
    with store.session() as s, s.begin():
        return queue_in(s, **message)


@dataclass(frozen=True)
class Notice:
    """A notice (results, a reminder, an event) and the messages it queues, made once whatever runs it."""

    key: str
    game_id: int | None
    messages: list[dict[str, Any]]


def _claim_notice(s: Session, key: str, game_id: int | None, now: datetime) -> bool:
    if s.get(MailNoticeRow, key) is not None:
        return False
    try:
        with s.begin_nested():
            s.add(MailNoticeRow(key=key, game_id=game_id, at=now))
            s.flush()
    except IntegrityError:
        return False
    return True


def notice_claimed(store: Database, key: str) -> bool:
    with store.session() as s:
        return s.get(MailNoticeRow, key) is not None


def queue_notices_once(store: Database, notices: Sequence[Notice], now: datetime) -> tuple[list[str], int]:
    """Record each notice under its key and queue its messages, in one transaction: a notice already
    recorded (by this or another process) queues nothing. Returns the keys recorded now and the count of
    messages queued."""
    done: list[str] = []
    count = 0
    with store.session() as s, s.begin():
        for n in notices:
            if not _claim_notice(s, n.key, n.game_id, now):
                continue
            for m in n.messages:
                count += queue_in(s, now=now, **m)
            done.append(n.key)
    return done, count


def _entry(row: OutboxRow, *, files: bool) -> OutboxEntry:
    return OutboxEntry(
        row.id,
        row.kind,
        row.to_addr,
        row.subject,
        row.body,
        row.header_id,
        row.in_reply_to,
        row.status,
        row.attempts,
        row.next_attempt_at,
        row.sent_at,
        row.last_error,
        [OutFile(f.filename, f.content_type, bytes(f.data)) for f in row.files] if files else [],
        row.game_id,
    )


def claim_outbox(store: Database, now: datetime, worker: str, lease: timedelta) -> int | None:
    """Claim the next message due (one process sends it; PostgreSQL skips rows another holds)."""
    with store.session() as s, s.begin():
        q = (
            sa.select(OutboxRow)
            .where(
                OutboxRow.status == "pending",
                OutboxRow.next_attempt_at <= now,
                sa.or_(OutboxRow.claimed_until.is_(None), OutboxRow.claimed_until < now),
            )
            .order_by(OutboxRow.next_attempt_at, OutboxRow.id)
            .limit(1)
        )
        if s.bind is not None and s.get_bind().dialect.name == "postgresql":
            q = q.with_for_update(skip_locked=True)
        row = s.scalars(q).first()
        if row is None:
            return None
        row.claimed_by = worker
        row.claimed_until = now + lease
        row.attempts += 1
        return row.id


def outbox_entry(store: Database, row_id: int) -> OutboxEntry:
    with store.session() as s:
        row = s.get(OutboxRow, row_id)
        if row is None:
            raise GameError(msg("no queued message #%(id)s (see `dippouch mail outbox`)", id=row_id))
        return _entry(row, files=True)


def finish_outbox(store: Database, row_id: int, worker: str, **values: object) -> None:
    """Record what became of a claimed message (only by the process that claimed it)."""
    with store.session() as s, s.begin():
        s.execute(
            sa.update(OutboxRow)
            .where(OutboxRow.id == row_id, OutboxRow.claimed_by == worker)
            .values(claimed_by=None, claimed_until=None, **values)
        )


def outbox_entries(store: Database, *, include_sent: bool) -> list[OutboxEntry]:
    """The queue for ``mail outbox`` (without the files)."""
    with store.session() as s:
        q = sa.select(OutboxRow).order_by(OutboxRow.id)
        if not include_sent:
            q = q.where(OutboxRow.status != "sent")
        return [_entry(r, files=False) for r in s.scalars(q)]


def waiting_after(store: Database, after: int, *, limit: int) -> list[OutboxEntry]:
    """Messages not sent yet whose id is above ``after``, oldest first (at most ``limit``, without files): what
    the console shows while no mail server is set up, each once."""
    with store.session() as s:
        q = (
            sa.select(OutboxRow)
            .where(OutboxRow.id > after, OutboxRow.status != "sent")
            .order_by(OutboxRow.id)
            .limit(limit)
        )
        return [_entry(r, files=False) for r in s.scalars(q)]


def retry_outbox(store: Database, row_id: int, now: datetime) -> None:
    """Queue a refused (or waiting) message to go at the next send; a sent one is never sent twice."""
    with store.session() as s, s.begin():
        r = s.get(OutboxRow, row_id)
        if r is None:
            raise GameError(msg("no queued message #%(id)s (see `dippouch mail outbox`)", id=row_id))
        if r.status == "sent":
            raise GameError(
                msg(
                    "message #%(id)s was sent at %(time)s UTC; it is not sent twice",
                    id=row_id,
                    time=f"{r.sent_at:%Y-%m-%d %H:%M}",
                )
            )
        if r.status == "withdrawn":
            raise GameError(
                msg("message #%(id)s was withdrawn: the sign-in link in it was used before it went", id=row_id)
            )
        r.status, r.next_attempt_at, r.claimed_until, r.claimed_by = "pending", as_utc(now), None, None


def forget_mail_to(s: Session, address: str, kind: str) -> None:
    """ "Delete my data" for the outbox: mail of ``kind`` to ``address`` not sent yet is removed (a retry would
    otherwise send it after the deletion); mail already sent keeps only that a message went (its address and
    words gone)."""
    mine = sa.and_(OutboxRow.kind == kind, OutboxRow.to_addr == address)
    unsent = list(s.scalars(sa.select(OutboxRow.id).where(mine, OutboxRow.status != "sent")))
    if unsent:
        s.execute(sa.delete(OutboxFileRow).where(OutboxFileRow.outbox_id.in_(unsent)))
        s.execute(sa.delete(OutboxRow).where(OutboxRow.id.in_(unsent)))
    s.execute(
        sa.update(OutboxRow)
        .where(mine, OutboxRow.status == "sent")
        .values(to_addr="deleted@dippouch.invalid", subject="(deleted with the account)", body="")
    )
