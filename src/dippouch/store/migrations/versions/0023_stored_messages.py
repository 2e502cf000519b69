"""A submission's line checks and a phase's results written before messages were values get their messages:
each English refusal, note and reason is read back, once, with the templates of that day
(:mod:`dippouch.store.legacy_text`), and its message data is stored beside it (``error_msg``, ``note_msg``,
``why``), so it is said in the reader's language like a new one. The English stays as it was; a text no
template reads keeps no data, is shown as it is, and is counted in the log.

Revision ID: 0023
Revises: 0022
"""

from __future__ import annotations

import logging

from alembic import op

from dippouch.store.legacy_text import add_messages, remove_messages

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None

log = logging.getLogger("alembic.runtime.migration")


def upgrade() -> None:
    counts = add_messages(op.get_bind())
    # The counts alone: the texts quote players' orders, which may still be sealed.
    log.info(
        "stored messages: %d texts given their message, %d read by no template (kept as text), %d rows written",
        counts.converted,
        counts.unreadable,
        counts.rows,
    )


def downgrade() -> None:
    counts = remove_messages(op.get_bind())
    log.info("stored messages: %d messages taken back, %d rows written", counts.converted, counts.rows)
