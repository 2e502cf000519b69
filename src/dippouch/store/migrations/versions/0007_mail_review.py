"""Mail review: a photograph the coordinator set aside (it holds no orders), and the coordinator's release of
a phase held for review at its deadline.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("mail_attachments", schema=None) as batch_op:
        batch_op.add_column(sa.Column("set_aside_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("set_aside_why", sa.Text(), nullable=True))
    op.create_table(
        "mail_reviews",
        sa.Column("phase_id", sa.Integer(), nullable=False),
        sa.Column("released_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["phase_id"], ["phases.id"], name=op.f("fk_mail_reviews_phase_id_phases")),
        sa.PrimaryKeyConstraint("phase_id", name=op.f("pk_mail_reviews")),
    )
    with op.batch_alter_table("mail_messages", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_mail_messages_phase_id"), ["phase_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("mail_messages", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_mail_messages_phase_id"))
    op.drop_table("mail_reviews")
    with op.batch_alter_table("mail_attachments", schema=None) as batch_op:
        batch_op.drop_column("set_aside_at")
        batch_op.drop_column("set_aside_why")
