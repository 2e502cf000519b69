"""A sign-in link remembers when the installation's coordinator read it on the Outbox: while the site cannot
send mail, that reading is the only way a returning person's link reaches them, and it lets the reader act as
them, so it is recorded and shown to the person on their account page, as an unsealing is shown to players.

Revision ID: 0022
Revises: 0021
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("signin_links") as batch:
        batch.add_column(sa.Column("shown_at", sa.DateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("signin_links") as batch:
        batch.drop_column("shown_at")
