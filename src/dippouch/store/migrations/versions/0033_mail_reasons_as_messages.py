"""What became of a message taken in is a message value: ``mail_messages`` gets ``reason_msg`` (the message's
data beside the English ``reason``), and each reason stored so far as English alone is read, once, with the
sentences it was written as then (:func:`dippouch.store.mail.legacy.add_reason_messages`), so the review page,
the command line and a game file's reader say it in their language like a new one. A reason no sentence reads
keeps no data, is shown as it is, and is counted in the log.

The English column stays: the server's log and a game file read by an older installation read it.

Revision ID: 0033
Revises: 0032
"""

from __future__ import annotations

import logging

import sqlalchemy as sa
from alembic import op

from dippouch.store.mail.legacy import add_reason_messages

revision = "0033"
down_revision = "0032"
branch_labels = None
depends_on = None

log = logging.getLogger("alembic.runtime.migration")


def upgrade() -> None:
    with op.batch_alter_table("mail_messages") as batch:
        batch.add_column(sa.Column("reason_msg", sa.JSON(), nullable=True))
    counts = add_reason_messages(op.get_bind())
    log.info(
        "mail reasons: %d given their message, %d read by no sentence (kept as text), %d messages written",
        counts.converted,
        counts.unreadable,
        counts.rows,
    )


def downgrade() -> None:
    with op.batch_alter_table("mail_messages") as batch:
        batch.drop_column("reason_msg")
    log.info("mail reasons: messages dropped (their English kept)")
