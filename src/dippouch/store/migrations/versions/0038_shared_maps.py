"""Shared maps: a phase's picture compressed once for every web process (the worker that processed the phase
draws it for the game page's readers), where each process drew and compressed it for itself.

Revision ID: 0038
Revises: 0037
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0038"
down_revision = "0037"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "shared_maps",
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("key", sa.String(120), primary_key=True),
        sa.Column("coding", sa.String(8), primary_key=True),
        sa.Column("version", sa.String(40), nullable=False),
        sa.Column("body", sa.LargeBinary(), nullable=False),
        sa.Column("made_at", sa.DateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("shared_maps")
