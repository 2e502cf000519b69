"""Stored ratings: the ledger of finished games the ratings took in, each rated person's line in them, the
standings per pool, the pools' sizes and the version that serialises updates (:mod:`dippouch.store.ratings.ledger`).

Nothing is computed here: the ratings' own update (the worker's task, or ``dippouch ratings update``) takes
every finished game in on its first run, in order of end time.

Revision ID: 0020
Revises: 0019
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rating_games",
        sa.Column("game_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("variant", sa.String(length=100), nullable=False),
        sa.Column("branch", sa.Integer(), nullable=False),
        sa.Column("last_event", sa.Integer(), nullable=True),
        sa.Column("scoring", sa.String(length=40), nullable=False),
        sa.Column("visibility", sa.String(length=20), nullable=False),
        sa.Column("counted", sa.Boolean(), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("system", sa.String(length=40), nullable=True),
        sa.Column("problem", sa.Text(), nullable=True),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("weight", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("game_id", name=op.f("pk_rating_games")),
    )
    op.create_index("ix_rating_games_rated_ended_at", "rating_games", ["rated", "ended_at", "name"], unique=False)
    op.create_index("ix_rating_games_counted_rated", "rating_games", ["counted", "rated"], unique=False)
    op.create_table(
        "rating_lines",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.Column("power", sa.String(length=100), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("share", sa.Float(), nullable=False),
        sa.Column("solo", sa.Boolean(), nullable=False),
        sa.Column("civil_disorder", sa.Boolean(), nullable=True),
        sa.Column("game", sa.String(length=100), nullable=False),
        sa.Column("variant", sa.String(length=100), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("fame", sa.String(length=10), nullable=True),
        sa.ForeignKeyConstraint(
            ["game_id"], ["rating_games.game_id"], name=op.f("fk_rating_lines_game_id_rating_games")
        ),
        sa.ForeignKeyConstraint(["person_id"], ["people.id"], name=op.f("fk_rating_lines_person_id_people")),
        sa.PrimaryKeyConstraint("game_id", "person_id", name=op.f("pk_rating_lines")),
    )
    op.create_index(op.f("ix_rating_lines_person_id"), "rating_lines", ["person_id"], unique=False)
    op.create_index("ix_rating_lines_fame_ended_at", "rating_lines", ["fame", "ended_at"], unique=False)
    op.create_index("ix_rating_lines_fame_share", "rating_lines", ["fame", "share"], unique=False)
    op.create_index(
        "ix_rating_lines_variant_fame_ended_at", "rating_lines", ["variant", "fame", "ended_at"], unique=False
    )
    op.create_index("ix_rating_lines_variant_fame_share", "rating_lines", ["variant", "fame", "share"], unique=False)
    op.create_table(
        "ratings",
        sa.Column("pool", sa.String(length=100), nullable=False),
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("known", sa.Integer(), nullable=False),
        sa.Column("steady", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["person_id"], ["people.id"], name=op.f("fk_ratings_person_id_people")),
        sa.PrimaryKeyConstraint("pool", "person_id", name=op.f("pk_ratings")),
    )
    op.create_index(op.f("ix_ratings_person_id"), "ratings", ["person_id"], unique=False)
    op.create_index("ix_ratings_pool_rating", "ratings", ["pool", "rating"], unique=False)
    op.create_table(
        "rating_pools",
        sa.Column("pool", sa.String(length=100), nullable=False),
        sa.Column("people", sa.Integer(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("pool", name=op.f("pk_rating_pools")),
    )
    state = op.create_table(
        "rating_state",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rating_state")),
    )
    # The one row every update locks (made here, so two first updates cannot both insert it).
    op.bulk_insert(state, [{"id": 1, "version": 0, "updated_at": None}])


def downgrade() -> None:
    op.drop_table("rating_state")
    op.drop_table("rating_pools")
    op.drop_table("ratings")
    op.drop_table("rating_lines")
    op.drop_table("rating_games")
