"""Proposals the seated players vote on (pause, extend, cancel, concede, draw; in a game its players run, the
coordinator's powers that could favour one of them): :mod:`dippouch.store.models_votes`.

Revision ID: 0024
Revises: 0023
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "proposals",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("phase_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("values", sa.JSON(), nullable=False),
        sa.Column("proposer", sa.String(length=100), nullable=False),
        sa.Column("ballots", sa.JSON(), nullable=False),
        sa.Column("rule", sa.String(length=20), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("outcome", sa.JSON(), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_proposals_game_id_games")),
        sa.ForeignKeyConstraint(["phase_id"], ["phases.id"], name=op.f("fk_proposals_phase_id_phases")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_proposals")),
    )
    with op.batch_alter_table("proposals", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_proposals_game_id"), ["game_id"], unique=False)


def downgrade() -> None:
    op.drop_table("proposals")
