"""A game keeps its variant: the resolved variant data and its content hash, stored with the game.

Games created before this revision get the data of their variant file as it is now (with their options);
a game whose file cannot be loaded here keeps NULL and goes on loading its variant by name, as before.

Revision ID: 0004
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("variant_data", sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column("variant_hash", sa.String(length=64), nullable=True))
    _fill_existing_games()


def _fill_existing_games() -> None:
    bind = op.get_bind()
    games = sa.table(
        "games",
        sa.column("id", sa.Integer()),
        sa.column("variant", sa.String()),
        sa.column("options", sa.JSON()),
        sa.column("variant_data", sa.JSON()),
        sa.column("variant_hash", sa.String()),
    )
    rows = bind.execute(sa.select(games.c.id, games.c.variant, games.c.options)).all()
    if not rows:
        return
    try:
        from dippouch.catalog import load_variant
        from dippouch.core.variant import content_hash
    except Exception:  # pragma: no cover - the package is always importable where it migrates itself
        return
    for game_id, name, options in rows:
        try:
            v = load_variant(name, dict(options or {}))
        except Exception:
            # The file is gone or broken today: leave the game to load its variant by name, as before.
            continue
        data = dict(v.data)
        bind.execute(
            games.update().where(games.c.id == game_id).values(variant_data=data, variant_hash=content_hash(data))
        )


def downgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("variant_hash")
        batch_op.drop_column("variant_data")
