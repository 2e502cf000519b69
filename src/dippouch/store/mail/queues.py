"""The mail queue as its readers see it: how long it is (a worker's metric) and what is in it (the
installation coordinator's outbox page, where mail that cannot be sent yet can be read).

Apart from the game store (:class:`dippouch.store.repository.GameStore` never needs the mail tables): a
command that only submits orders does not map them (tests/cli/test_cli_startup.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa

from dippouch.store.db import Database
from dippouch.store.mail.models import OutboxRow

__all__ = ["QueuedMail", "mail_queue_depth", "recent_mail"]


@dataclass(frozen=True)
class QueuedMail:
    """One message of the outbox, as the coordinator reads it."""

    id: int
    kind: str
    to: str
    subject: str
    body: str
    status: str
    attempts: int
    queued_at: datetime
    sent_at: datetime | None
    last_error: str | None


def mail_queue_depth(db: Database) -> int:
    """Messages in the outbox still to be sent (due now or waiting for a retry): one indexed count."""
    with db.session() as s:
        return int(s.scalar(sa.select(sa.func.count()).where(OutboxRow.status == "pending")) or 0)


def recent_mail(db: Database, *, limit: int = 50) -> list[QueuedMail]:
    """The newest ``limit`` messages of the outbox, newest first."""
    query = sa.select(OutboxRow).order_by(OutboxRow.id.desc()).limit(limit)
    with db.session() as s:
        return [
            QueuedMail(
                r.id,
                r.kind,
                r.to_addr,
                r.subject,
                r.body,
                r.status,
                r.attempts,
                r.created_at,
                r.sent_at,
                r.last_error,
            )
            for r in s.scalars(query)
        ]
