"""People: a person who signs in once, the seats they play and the browsers they are signed in on.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "people",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("deleted_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_people")),
        sa.UniqueConstraint("email", name=op.f("uq_people_email")),
    )
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.add_column(sa.Column("person_id", sa.Integer(), nullable=True))
        batch_op.create_index(batch_op.f("ix_players_person_id"), ["person_id"], unique=False)
        batch_op.create_foreign_key(batch_op.f("fk_players_person_id_people"), "people", ["person_id"], ["id"])
    with op.batch_alter_table("web_sessions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("person_id", sa.Integer(), nullable=True))
        batch_op.create_index(batch_op.f("ix_web_sessions_person_id"), ["person_id"], unique=False)
        batch_op.create_foreign_key(batch_op.f("fk_web_sessions_person_id_people"), "people", ["person_id"], ["id"])


def downgrade() -> None:
    with op.batch_alter_table("web_sessions", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("fk_web_sessions_person_id_people"), type_="foreignkey")
        batch_op.drop_index(batch_op.f("ix_web_sessions_person_id"))
        batch_op.drop_column("person_id")
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("fk_players_person_id_people"), type_="foreignkey")
        batch_op.drop_index(batch_op.f("ix_players_person_id"))
        batch_op.drop_column("person_id")
    op.drop_table("people")
