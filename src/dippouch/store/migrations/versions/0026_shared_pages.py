"""Pages made once and shared by every web process (dippouch.store.page_cache): the latest page of each game,
kind and language with the version it was made for, and each game's page version, bumped by the events that
change its pages without moving its change marker.

Revision ID: 0026
Revises: 0025
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0026"
down_revision = "0025"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "page_versions",
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("version", sa.Integer(), nullable=False),
    )
    op.create_table(
        "shared_pages",
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("kind", sa.String(40), primary_key=True),
        sa.Column("lang", sa.String(16), primary_key=True),
        sa.Column("version", sa.String(200), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("made_at", sa.DateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("shared_pages")
    op.drop_table("page_versions")
