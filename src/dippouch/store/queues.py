"""How long the mail queue is, for a worker's metrics: a count the worker reports after each round.

Apart from the game store (:class:`dippouch.store.repository.GameStore` never needs the mail tables): a
command that only submits orders does not map them (tests/cli/test_cli_startup.py).
"""

from __future__ import annotations

import sqlalchemy as sa

from dippouch.store.db import Database
from dippouch.store.models_mail import OutboxRow

__all__ = ["mail_queue_depth"]


def mail_queue_depth(db: Database) -> int:
    """Messages in the outbox still to be sent (due now or waiting for a retry): one indexed count."""
    with db.session() as s:
        return int(s.scalar(sa.select(sa.func.count()).where(OutboxRow.status == "pending")) or 0)
