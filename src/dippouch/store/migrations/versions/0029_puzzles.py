"""Puzzles (:mod:`dippouch.store.learning.puzzles`): positions from recorded games with one winning set of orders.
Nothing to carry over: ``dippouch puzzles generate`` fills the table.

Revision ID: 0029
Revises: 0028
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0029"
down_revision = "0028"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "puzzles",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=32), nullable=False),
        sa.Column("variant", sa.String(length=100), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("phase", sa.String(length=100), nullable=False),
        sa.Column("power", sa.String(length=100), nullable=False),
        sa.Column("goal", sa.String(length=10), nullable=False),
        sa.Column("target", sa.String(length=20), nullable=False),
        sa.Column("difficulty", sa.Integer(), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_puzzles")),
        sa.UniqueConstraint("key", name=op.f("uq_puzzles_key")),
    )
    op.create_index("ix_puzzles_difficulty", "puzzles", ["difficulty"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_puzzles_difficulty", table_name="puzzles")
    op.drop_table("puzzles")
