"""The one-on-one queue (:mod:`dippouch.store.duels`): people waiting for an opponent, and what became of each
wait. Nothing to carry over: the queue starts empty.

Revision ID: 0028
Revises: 0027
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0028"
down_revision = "0027"
branch_labels = None
depends_on = None

_WAITING = sa.text("left_at IS NULL AND game IS NULL")


def upgrade() -> None:
    op.create_table(
        "duel_queue",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.Column("pairing", sa.String(length=10), nullable=False),
        sa.Column("asked_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("left_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("game", sa.String(length=100), nullable=True),
        sa.Column("power", sa.String(length=100), nullable=True),
        sa.Column("paired_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["person_id"], ["people.id"], name=op.f("fk_duel_queue_person_id_people")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_duel_queue")),
    )
    op.create_index("ix_duel_queue_asked_at", "duel_queue", ["asked_at", "id"], unique=False)
    op.create_index(
        "uq_duel_queue_waiting",
        "duel_queue",
        ["person_id"],
        unique=True,
        postgresql_where=_WAITING,
        sqlite_where=_WAITING,
    )


def downgrade() -> None:
    op.drop_index("uq_duel_queue_waiting", table_name="duel_queue")
    op.drop_index("ix_duel_queue_asked_at", table_name="duel_queue")
    op.drop_table("duel_queue")
