"""Sandboxes: a board copied from a game's phase or a variant's opening, changed and adjudicated at will
without touching any game (:mod:`dippouch.store.sandboxes.boards`).

Revision ID: 0017
Revises: 0016
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sandboxes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("person_id", sa.Integer(), nullable=True),
        sa.Column("edit_hash", sa.String(length=64), nullable=False),
        sa.Column("share_token", sa.String(length=64), nullable=False),
        sa.Column("variant", sa.String(length=100), nullable=False),
        sa.Column("game", sa.String(length=100), nullable=True),
        sa.Column("phase_id", sa.Integer(), nullable=True),
        sa.Column("position", sa.JSON(), nullable=False),
        sa.Column("orders", sa.Text(), nullable=False),
        sa.Column("step", sa.JSON(), nullable=True),
        sa.Column("history", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["person_id"], ["people.id"], name=op.f("fk_sandboxes_person_id_people")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sandboxes")),
        sa.UniqueConstraint("edit_hash", name=op.f("uq_sandboxes_edit_hash")),
        sa.UniqueConstraint("share_token", name=op.f("uq_sandboxes_share_token")),
    )
    with op.batch_alter_table("sandboxes", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_sandboxes_person_id"), ["person_id"], unique=False)


def downgrade() -> None:
    op.drop_table("sandboxes")
