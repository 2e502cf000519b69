"""Fair play between people: blocks between people, the devices and networks people sign in from (keyed
hashes only), bans, reports to the installation's moderators and the log of what they did
(:mod:`dippouch.store.moderation.stored`).

Revision ID: 0025
Revises: 0024
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0025"
down_revision = "0024"
branch_labels = None
depends_on = None


def _people(column: str, table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint([column], ["people.id"], name=op.f(f"fk_{table}_{column}_people"))


def upgrade() -> None:
    op.create_table(
        "person_blocks",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.Column("other_id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        _people("person_id", "person_blocks"),
        _people("other_id", "person_blocks"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_person_blocks")),
        sa.UniqueConstraint("person_id", "other_id", name="uq_person_blocks_person_other"),
    )
    op.create_index(op.f("ix_person_blocks_person_id"), "person_blocks", ["person_id"])
    op.create_index(op.f("ix_person_blocks_other_id"), "person_blocks", ["other_id"])
    op.create_table(
        "person_devices",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.Column("device_hash", sa.String(length=64), nullable=False),
        sa.Column("first_seen", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen", sa.DateTime(timezone=True), nullable=False),
        _people("person_id", "person_devices"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_person_devices")),
        sa.UniqueConstraint("device_hash", "person_id", name="uq_person_devices_device_person"),
    )
    op.create_index(op.f("ix_person_devices_person_id"), "person_devices", ["person_id"])
    op.create_table(
        "person_networks",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.Column("network_hash", sa.String(length=16), nullable=False),
        sa.Column("last_seen", sa.DateTime(timezone=True), nullable=False),
        _people("person_id", "person_networks"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_person_networks")),
        sa.UniqueConstraint("network_hash", "person_id", name="uq_person_networks_network_person"),
    )
    op.create_index(op.f("ix_person_networks_person_id"), "person_networks", ["person_id"])
    op.create_index(op.f("ix_person_networks_last_seen"), "person_networks", ["last_seen"])
    op.create_table(
        "person_bans",
        sa.Column("person_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("kind", sa.String(length=10), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        _people("person_id", "person_bans"),
        sa.PrimaryKeyConstraint("person_id", "kind", name=op.f("pk_person_bans")),
    )
    op.create_table(
        "moderation_reports",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("reporter_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("message_id", sa.Integer(), nullable=True),
        sa.Column("person_id", sa.Integer(), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
        _people("reporter_id", "moderation_reports"),
        _people("person_id", "moderation_reports"),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_moderation_reports_game_id_games")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_moderation_reports")),
    )
    op.create_index(op.f("ix_moderation_reports_reporter_id"), "moderation_reports", ["reporter_id"])
    op.create_index(op.f("ix_moderation_reports_status"), "moderation_reports", ["status"])
    op.create_table(
        "moderation_log",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("action", sa.String(length=20), nullable=False),
        sa.Column("person_id", sa.Integer(), nullable=True),
        sa.Column("other_id", sa.Integer(), nullable=True),
        sa.Column("report_id", sa.Integer(), nullable=True),
        sa.Column("by", sa.String(length=200), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        _people("person_id", "moderation_log"),
        _people("other_id", "moderation_log"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_moderation_log")),
    )
    op.create_index(op.f("ix_moderation_log_at"), "moderation_log", ["at"])


def downgrade() -> None:
    for table in (
        "moderation_log",
        "moderation_reports",
        "person_bans",
        "person_networks",
        "person_devices",
        "person_blocks",
    ):
        op.drop_table(table)
