"""Index open phases by deadline: the deadline workers' scan for due phases.

Every worker asks, every few seconds, for the open phases whose deadline has passed. Without this index
that is a scan of every phase ever played (about 20 a game-year); with it, a range read of the few that
are due, however many games the database holds.

Revision ID: 0006
Revises: 0002
"""

from __future__ import annotations

from alembic import op

revision = "0006"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_phases_status_deadline", "phases", ["status", "deadline"])


def downgrade() -> None:
    op.drop_index("ix_phases_status_deadline", table_name="phases")
