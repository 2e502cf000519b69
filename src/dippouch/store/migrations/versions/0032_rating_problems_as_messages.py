"""Why a counted game could not be scored is a message value: ``rating_games`` gets ``why`` (the message's
data beside the English ``problem``), and each problem stored so far as English alone is read, once, with the
sentences it was written as then (:func:`dippouch.store.ratings.legacy.add_problem_messages`), so the ratings
page says it in its reader's language like a new one. A problem no sentence reads keeps no data, is shown as it
is, and is counted in the log.

Revision ID: 0032
Revises: 0031
"""

from __future__ import annotations

import logging

import sqlalchemy as sa
from alembic import op

from dippouch.store.ratings.legacy import add_problem_messages, remove_problem_messages

revision = "0032"
down_revision = "0031"
branch_labels = None
depends_on = None

log = logging.getLogger("alembic.runtime.migration")


def upgrade() -> None:
    with op.batch_alter_table("rating_games") as batch:
        batch.add_column(sa.Column("why", sa.JSON(), nullable=True))
    counts = add_problem_messages(op.get_bind())
    log.info(
        "rating problems: %d given their message, %d read by no sentence (kept as text), %d games written",
        counts.converted,
        counts.unreadable,
        counts.rows,
    )


def downgrade() -> None:
    counts = remove_problem_messages(op.get_bind())
    with op.batch_alter_table("rating_games") as batch:
        batch.drop_column("why")
    log.info("rating problems: %d messages dropped (their English kept)", counts.converted)
