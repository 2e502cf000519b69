"""Shared pages: the page's pieces deflated once, by whoever made it (the web's gzipped answer of a page made by
another process is then made without compressing it again). Empty for a page kept before, and for kinds that are
not served gzipped as they are kept.

Revision ID: 0035
Revises: 0034
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0035"
down_revision = "0034"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("shared_pages", schema=None) as batch_op:
        batch_op.add_column(sa.Column("deflated", sa.LargeBinary(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("shared_pages", schema=None) as batch_op:
        batch_op.drop_column("deflated")
