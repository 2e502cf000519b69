"""The guided first game's progress: the lessons a signed-in person has passed (:mod:`dippouch.store.learning.lessons`).

Revision ID: 0027
Revises: 0026
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0027"
down_revision = "0026"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "lessons_passed",
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.Column("lesson", sa.String(length=40), nullable=False),
        sa.Column("passed_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["person_id"], ["people.id"], name=op.f("fk_lessons_passed_person_id_people")),
        sa.PrimaryKeyConstraint("person_id", "lesson", name=op.f("pk_lessons_passed")),
    )


def downgrade() -> None:
    op.drop_table("lessons_passed")
