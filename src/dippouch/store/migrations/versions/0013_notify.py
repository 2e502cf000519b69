"""Notifications: each person's choices (per event, per channel), their push subscriptions and chat webhooks,
the one queue of deliveries, the scan's marks and the installation's VAPID key.

Revision ID: 0013
Revises: 0012
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "notify_prefs",
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.Column("event", sa.String(length=30), nullable=False),
        sa.Column("channel", sa.String(length=20), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["person_id"], ["people.id"], name=op.f("fk_notify_prefs_person_id_people")),
        sa.PrimaryKeyConstraint("person_id", "event", "channel", name=op.f("pk_notify_prefs")),
    )
    op.create_table(
        "notify_settings",
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.Column("deadline_hours", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["person_id"], ["people.id"], name=op.f("fk_notify_settings_person_id_people")),
        sa.PrimaryKeyConstraint("person_id", name=op.f("pk_notify_settings")),
    )
    op.create_table(
        "notify_targets",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.Column("channel", sa.String(length=20), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("label", sa.String(length=200), nullable=False),
        sa.Column("config", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["person_id"], ["people.id"], name=op.f("fk_notify_targets_person_id_people")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_notify_targets")),
    )
    with op.batch_alter_table("notify_targets", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_notify_targets_person_id"), ["person_id"], unique=False)
    op.create_table(
        "notify_queue",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=400), nullable=False),
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.Column("event", sa.String(length=30), nullable=False),
        sa.Column("channel", sa.String(length=20), nullable=False),
        sa.Column("target_id", sa.Integer(), nullable=True),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("title", sa.String(length=300), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("url", sa.String(length=2000), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("claimed_by", sa.String(length=100), nullable=True),
        sa.Column("claimed_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_notify_queue_game_id_games")),
        sa.ForeignKeyConstraint(["person_id"], ["people.id"], name=op.f("fk_notify_queue_person_id_people")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_notify_queue")),
        sa.UniqueConstraint("key", name=op.f("uq_notify_queue_key")),
    )
    with op.batch_alter_table("notify_queue", schema=None) as batch_op:
        batch_op.create_index("ix_notify_queue_due", ["status", "next_attempt_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_notify_queue_person_id"), ["person_id"], unique=False)
    op.create_table(
        "notify_marks",
        sa.Column("key", sa.String(length=300), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_notify_marks")),
    )
    op.create_table(
        "notify_keys",
        sa.Column("name", sa.String(length=50), nullable=False),
        sa.Column("private_pem", sa.Text(), nullable=False),
        sa.Column("public_key", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_notify_keys")),
    )


def downgrade() -> None:
    op.drop_table("notify_keys")
    op.drop_table("notify_marks")
    with op.batch_alter_table("notify_queue", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_notify_queue_person_id"))
        batch_op.drop_index("ix_notify_queue_due")
    op.drop_table("notify_queue")
    with op.batch_alter_table("notify_targets", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_notify_targets_person_id"))
    op.drop_table("notify_targets")
    op.drop_table("notify_settings")
    op.drop_table("notify_prefs")
