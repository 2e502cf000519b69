"""The coach's analyses (:mod:`dippouch.store.learning.coach`): one row a movement phase of a finished or practice game.
Nothing to carry over: the worker analyses the finished games in turn.

Revision ID: 0030
Revises: 0029
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0030"
down_revision = "0029"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "coach_phases",
        sa.Column("phase_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.Column("made_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["phase_id"], ["phases.id"], name=op.f("fk_coach_phases_phase_id_phases"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_coach_phases_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("phase_id", name=op.f("pk_coach_phases")),
    )
    op.create_index("ix_coach_phases_game_id", "coach_phases", ["game_id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_coach_phases_game_id", table_name="coach_phases")
    op.drop_table("coach_phases")
