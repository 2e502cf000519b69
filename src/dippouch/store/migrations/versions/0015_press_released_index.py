"""An index on press messages' release time: the notifications' scan asks every minute which games have
messages released since its last look, and without it reads every message of every game.

Revision ID: 0015
Revises: 0014
"""

from __future__ import annotations

from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_press_messages_released_at", "press_messages", ["released_at"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_press_messages_released_at", table_name="press_messages")
