"""Press: channels between powers, messages, read marks, mutes and blocks, reports, reply tokens by mail.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "press_settings",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_press_settings_game_id_games")),
        sa.PrimaryKeyConstraint("game_id", name=op.f("pk_press_settings")),
    )
    op.create_table(
        "press_channels",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("members", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_press_channels_game_id_games")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_press_channels")),
        sa.UniqueConstraint("game_id", "members", name="uq_press_channels_game_members"),
    )
    op.create_index(op.f("ix_press_channels_game_id"), "press_channels", ["game_id"], unique=False)
    op.create_table(
        "press_messages",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("channel_id", sa.Integer(), nullable=False),
        sa.Column("sender", sa.String(length=100), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("phase_id", sa.Integer(), nullable=True),
        sa.Column("via", sa.String(length=10), nullable=False),
        sa.Column("released_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["channel_id"], ["press_channels.id"], name=op.f("fk_press_messages_channel_id_press_channels")
        ),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_press_messages_game_id_games")),
        sa.ForeignKeyConstraint(["phase_id"], ["phases.id"], name=op.f("fk_press_messages_phase_id_phases")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_press_messages")),
    )
    op.create_index(op.f("ix_press_messages_game_id"), "press_messages", ["game_id"], unique=False)
    op.create_index("ix_press_messages_channel_id_id", "press_messages", ["channel_id", "id"], unique=False)
    op.create_index("ix_press_messages_sender_sent", "press_messages", ["game_id", "sender", "sent_at"], unique=False)
    op.create_table(
        "press_reads",
        sa.Column("channel_id", sa.Integer(), nullable=False),
        sa.Column("power", sa.String(length=100), nullable=False),
        sa.Column("last_read", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["channel_id"], ["press_channels.id"], name=op.f("fk_press_reads_channel_id_press_channels")
        ),
        sa.PrimaryKeyConstraint("channel_id", "power", name=op.f("pk_press_reads")),
    )
    op.create_table(
        "press_blocks",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("power", sa.String(length=100), nullable=False),
        sa.Column("other", sa.String(length=100), nullable=False),
        sa.Column("kind", sa.String(length=10), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_press_blocks_game_id_games")),
        sa.PrimaryKeyConstraint("game_id", "power", "other", name=op.f("pk_press_blocks")),
    )
    op.create_table(
        "press_reports",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("message_id", sa.Integer(), nullable=False),
        sa.Column("power", sa.String(length=100), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_press_reports_game_id_games")),
        sa.ForeignKeyConstraint(
            ["message_id"], ["press_messages.id"], name=op.f("fk_press_reports_message_id_press_messages")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_press_reports")),
    )
    op.create_index(op.f("ix_press_reports_game_id"), "press_reports", ["game_id"], unique=False)
    op.create_table(
        "press_tokens",
        sa.Column("token", sa.String(length=40), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("channel_id", sa.Integer(), nullable=False),
        sa.Column("power", sa.String(length=100), nullable=False),
        sa.Column("address", sa.String(length=320), nullable=False),
        sa.ForeignKeyConstraint(
            ["channel_id"], ["press_channels.id"], name=op.f("fk_press_tokens_channel_id_press_channels")
        ),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_press_tokens_game_id_games")),
        sa.PrimaryKeyConstraint("token", name=op.f("pk_press_tokens")),
        sa.UniqueConstraint("channel_id", "power", name="uq_press_tokens_channel_power"),
    )
    op.create_index(op.f("ix_press_tokens_game_id"), "press_tokens", ["game_id"], unique=False)


def downgrade() -> None:
    for table in (
        "press_tokens",
        "press_reports",
        "press_blocks",
        "press_reads",
        "press_messages",
        "press_channels",
        "press_settings",
    ):
        op.drop_table(table)
