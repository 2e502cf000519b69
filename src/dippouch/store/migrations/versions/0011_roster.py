"""The player list and absences: postal addresses, holidays, each game's roster and absence settings, and what
a game did for an absent player at a deadline.

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "postal_addresses",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("first_day", sa.Date(), nullable=True),
        sa.Column("last_day", sa.Date(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["person_id"], ["people.id"], name=op.f("fk_postal_addresses_person_id_people")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_postal_addresses")),
    )
    op.create_index(op.f("ix_postal_addresses_person_id"), "postal_addresses", ["person_id"], unique=False)
    op.create_table(
        "absences",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.Column("first_day", sa.Date(), nullable=False),
        sa.Column("last_day", sa.Date(), nullable=False),
        sa.Column("reason", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["person_id"], ["people.id"], name=op.f("fk_absences_person_id_people")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_absences")),
    )
    op.create_index(op.f("ix_absences_person_id"), "absences", ["person_id"], unique=False)
    op.create_index(op.f("ix_absences_last_day"), "absences", ["last_day"], unique=False)
    op.create_table(
        "game_roster",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("roster_visibility", sa.String(length=20), nullable=True),
        sa.Column("absence_policy", sa.String(length=20), nullable=False),
        sa.Column("budget_days", sa.Integer(), nullable=False),
        sa.Column("stand_in_person_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_game_roster_game_id_games")),
        sa.ForeignKeyConstraint(
            ["stand_in_person_id"], ["people.id"], name=op.f("fk_game_roster_stand_in_person_id_people")
        ),
        sa.PrimaryKeyConstraint("game_id", name=op.f("pk_game_roster")),
    )
    op.create_table(
        "proxy_allies",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("power", sa.String(length=100), nullable=False),
        sa.Column("ally", sa.String(length=100), nullable=False),
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.Column("set_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_proxy_allies_game_id_games")),
        sa.ForeignKeyConstraint(["person_id"], ["people.id"], name=op.f("fk_proxy_allies_person_id_people")),
        sa.PrimaryKeyConstraint("game_id", "power", name=op.f("pk_proxy_allies")),
    )
    op.create_index(op.f("ix_proxy_allies_person_id"), "proxy_allies", ["person_id"], unique=False)
    op.create_table(
        "absence_uses",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("phase_id", sa.Integer(), nullable=False),
        sa.Column("power", sa.String(length=100), nullable=False),
        sa.Column("person_id", sa.Integer(), nullable=True),
        sa.Column("policy", sa.String(length=20), nullable=False),
        sa.Column("days", sa.Float(), nullable=False),
        sa.Column("detail", sa.JSON(), nullable=False),
        sa.Column("applied_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_absence_uses_game_id_games")),
        sa.ForeignKeyConstraint(["phase_id"], ["phases.id"], name=op.f("fk_absence_uses_phase_id_phases")),
        sa.ForeignKeyConstraint(["person_id"], ["people.id"], name=op.f("fk_absence_uses_person_id_people")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_absence_uses")),
        sa.UniqueConstraint("phase_id", "power", name="uq_absence_uses_phase_power"),
    )
    op.create_index(op.f("ix_absence_uses_game_id"), "absence_uses", ["game_id"], unique=False)
    op.create_index(op.f("ix_absence_uses_person_id"), "absence_uses", ["person_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_absence_uses_person_id"), table_name="absence_uses")
    op.drop_index(op.f("ix_absence_uses_game_id"), table_name="absence_uses")
    op.drop_table("absence_uses")
    op.drop_index(op.f("ix_proxy_allies_person_id"), table_name="proxy_allies")
    op.drop_table("proxy_allies")
    op.drop_table("game_roster")
    op.drop_index(op.f("ix_absences_last_day"), table_name="absences")
    op.drop_index(op.f("ix_absences_person_id"), table_name="absences")
    op.drop_table("absences")
    op.drop_index(op.f("ix_postal_addresses_person_id"), table_name="postal_addresses")
    op.drop_table("postal_addresses")
