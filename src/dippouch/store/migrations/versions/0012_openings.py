"""Open games: a game opened for sign-up (press rules, minimum reliability, how powers are given out), the
people who signed up with their power wishes, and seats offered to the replacement pool.

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "openings",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("press", sa.Text(), nullable=False),
        sa.Column("min_reliability", sa.Integer(), nullable=False),
        sa.Column("mode", sa.String(length=20), nullable=False),
        sa.Column("opened_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("held_clock", sa.Boolean(), nullable=False),
        sa.Column("draw", sa.JSON(), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_openings_game_id_games")),
        sa.PrimaryKeyConstraint("game_id", name=op.f("pk_openings")),
    )
    op.create_table(
        "opening_signups",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.Column("preferences", sa.JSON(), nullable=False),
        sa.Column("signed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("withdrawn_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("seated_as", sa.String(length=100), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["openings.game_id"], name=op.f("fk_opening_signups_game_id_openings")),
        sa.ForeignKeyConstraint(["person_id"], ["people.id"], name=op.f("fk_opening_signups_person_id_people")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_opening_signups")),
        sa.UniqueConstraint("game_id", "person_id", name="uq_opening_signups_game_person"),
    )
    with op.batch_alter_table("opening_signups", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_opening_signups_game_id"), ["game_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_opening_signups_person_id"), ["person_id"], unique=False)
    op.create_table(
        "seat_vacancies",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("power", sa.String(length=100), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=True),
        sa.Column("reason", sa.String(length=20), nullable=False),
        sa.Column("from_person_id", sa.Integer(), nullable=True),
        sa.Column("offered_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("claimed_by", sa.Integer(), nullable=True),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["claimed_by"], ["people.id"], name=op.f("fk_seat_vacancies_claimed_by_people")),
        sa.ForeignKeyConstraint(
            ["from_person_id"], ["people.id"], name=op.f("fk_seat_vacancies_from_person_id_people")
        ),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_seat_vacancies_game_id_games")),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], name=op.f("fk_seat_vacancies_player_id_players")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_seat_vacancies")),
        sa.UniqueConstraint("player_id", name=op.f("uq_seat_vacancies_player_id")),
    )
    with op.batch_alter_table("seat_vacancies", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_seat_vacancies_claimed_by"), ["claimed_by"], unique=False)
        batch_op.create_index(batch_op.f("ix_seat_vacancies_from_person_id"), ["from_person_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_seat_vacancies_game_id"), ["game_id"], unique=False)


def downgrade() -> None:
    op.drop_table("seat_vacancies")
    op.drop_table("opening_signups")
    op.drop_table("openings")
