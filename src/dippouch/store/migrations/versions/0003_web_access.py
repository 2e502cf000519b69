"""Web access: per-game visibility, access keys (player links, coordinator keys) and sessions, stored hashed.

Revision ID: 0003
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "game_web",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("visibility", sa.String(length=20), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_game_web_game_id_games")),
        sa.PrimaryKeyConstraint("game_id", name=op.f("pk_game_web")),
    )
    op.create_table(
        "access_keys",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key_hash", sa.String(length=64), nullable=False),
        sa.Column("role", sa.String(length=20), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("power", sa.String(length=100), nullable=True),
        sa.Column("label", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_access_keys_game_id_games")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_access_keys")),
        sa.UniqueConstraint("key_hash", name=op.f("uq_access_keys_key_hash")),
    )
    with op.batch_alter_table("access_keys", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_access_keys_game_id"), ["game_id"], unique=False)
    op.create_table(
        "web_sessions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_web_sessions")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_web_sessions_token_hash")),
    )
    op.create_table(
        "session_keys",
        sa.Column("session_id", sa.Integer(), nullable=False),
        sa.Column("key_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["key_id"], ["access_keys.id"], name=op.f("fk_session_keys_key_id_access_keys")),
        sa.ForeignKeyConstraint(
            ["session_id"], ["web_sessions.id"], name=op.f("fk_session_keys_session_id_web_sessions")
        ),
        sa.PrimaryKeyConstraint("session_id", "key_id", name=op.f("pk_session_keys")),
    )


def downgrade() -> None:
    op.drop_table("session_keys")
    op.drop_table("web_sessions")
    with op.batch_alter_table("access_keys", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_access_keys_game_id"))
    op.drop_table("access_keys")
    op.drop_table("game_web")
