"""Who started an open game: a signed-in player who made it from a template holds its coordinator's powers
(:func:`dippouch.store.access.AccessStore.session_info` grants them from this column, as it grants seats);
and the hash of a private game's invitation link (the link itself is shown, never stored).

Revision ID: 0016
Revises: 0015
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("openings") as batch:
        batch.add_column(sa.Column("creator_id", sa.Integer(), nullable=True))
        batch.create_foreign_key("fk_openings_creator_id_people", "people", ["creator_id"], ["id"])
        batch.create_index("ix_openings_creator_id", ["creator_id"], unique=False)
        batch.add_column(sa.Column("invite_hash", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("openings") as batch:
        batch.drop_column("invite_hash")
        batch.drop_index("ix_openings_creator_id")
        batch.drop_constraint("fk_openings_creator_id_people", type_="foreignkey")
        batch.drop_column("creator_id")
