"""Installation secrets: random keys made on first use and kept, for HMACs that must be the same in every
process and after a restart (the practice games' tag of a client's address).

Revision ID: 0014
Revises: 0013
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "installation_secrets",
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("value", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_installation_secrets")),
    )


def downgrade() -> None:
    op.drop_table("installation_secrets")
