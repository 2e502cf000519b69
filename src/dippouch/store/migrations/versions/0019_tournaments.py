"""Tournaments: a set of games under one scoring system, with standings computed from the games
(:mod:`dippouch.store.tournaments.stored`).

Revision ID: 0019
Revises: 0018
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("system", sa.String(length=40), nullable=False),
        sa.Column("variant", sa.String(length=100), nullable=True),
        sa.Column("creator_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("games", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["creator_id"], ["people.id"], name=op.f("fk_tournaments_creator_id_people")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournaments")),
        sa.UniqueConstraint("name", name=op.f("uq_tournaments_name")),
    )
    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_tournaments_creator_id"), ["creator_id"], unique=False)


def downgrade() -> None:
    op.drop_table("tournaments")
