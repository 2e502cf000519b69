"""A game's ending written before messages were values gets its message: each ending stored as English text
alone is read, once, with the sentence its kind was written as then (:func:`dippouch.store.legacy_text.
add_ending_messages`), and its message data is stored beside it (``why``), so a German or French page and
report say it in their language like a new one. The English stays as it was; an ending no sentence reads (one
imported from another program's file) keeps no data, is shown as it is, and is counted in the log.

The line checks and results were given theirs by 0023; with this the last texts the doors read back with
regular expressions (the deleted ``dippouch.said``) are message values.

Revision ID: 0031
Revises: 0030
"""

from __future__ import annotations

import logging

from alembic import op

from dippouch.store.legacy_text import add_ending_messages, remove_ending_messages

revision = "0031"
down_revision = "0030"
branch_labels = None
depends_on = None

log = logging.getLogger("alembic.runtime.migration")


def upgrade() -> None:
    counts = add_ending_messages(op.get_bind())
    log.info(
        "stored endings: %d given their message, %d read by no sentence (kept as text), %d games written",
        counts.converted,
        counts.unreadable,
        counts.rows,
    )


def downgrade() -> None:
    counts = remove_ending_messages(op.get_bind())
    log.info("stored endings: %d messages taken back, %d games written", counts.converted, counts.rows)
