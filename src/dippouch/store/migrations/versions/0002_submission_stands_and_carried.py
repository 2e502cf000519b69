"""Submissions: whether a version stands (replaced the earlier ones), and which one a rollback carried forward.

A submission with no order line, or whose lines all failed, is recorded but does not replace the earlier
orders unless the sender says so; ``stands`` says which versions did. A rollback carries each
power's standing version into the reopened phase; ``carried_from`` is the submission it copies.

Revision ID: 0002
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("stands", sa.Boolean(), nullable=False, server_default=sa.true()))
        batch_op.add_column(sa.Column("carried_from", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.drop_column("carried_from")
        batch_op.drop_column("stands")
