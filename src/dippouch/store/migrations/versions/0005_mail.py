"""Mail: players' e-mail addresses, inbound messages (sealed content and attachments), the outbound queue,
and where a submission came from (source, received and recorded times, the player's version label, and
"version N stands" instructions).

Revision ID: 0005
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.add_column(sa.Column("email", sa.String(length=320), nullable=True))
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("source", sa.String(length=20), nullable=False, server_default="cli"))
        batch_op.add_column(sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("label", sa.String(length=40), nullable=True))
        batch_op.add_column(sa.Column("reinstates", sa.Integer(), nullable=True))

    op.create_table(
        "game_mail",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("config", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_game_mail_game_id_games")),
        sa.PrimaryKeyConstraint("game_id", name=op.f("pk_game_mail")),
    )
    op.create_table(
        "mail_messages",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("message_id", sa.String(length=998), nullable=True),
        sa.Column("origin", sa.String(length=500), nullable=False),
        sa.Column("sender", sa.String(length=320), nullable=False),
        sa.Column("subject", sa.Text(), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("fetched_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("phase_id", sa.Integer(), nullable=True),
        sa.Column("power", sa.String(length=100), nullable=True),
        sa.Column("submission_id", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("reading", sa.JSON(), nullable=False),
        sa.Column("raw", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_mail_messages_game_id_games")),
        sa.ForeignKeyConstraint(["phase_id"], ["phases.id"], name=op.f("fk_mail_messages_phase_id_phases")),
        sa.ForeignKeyConstraint(
            ["submission_id"], ["submissions.id"], name=op.f("fk_mail_messages_submission_id_submissions")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mail_messages")),
        sa.UniqueConstraint("digest", name=op.f("uq_mail_messages_digest")),
    )
    with op.batch_alter_table("mail_messages", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_mail_messages_game_id"), ["game_id"], unique=False)
    op.create_table(
        "mail_attachments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("mail_id", sa.Integer(), nullable=False),
        sa.Column("filename", sa.String(length=500), nullable=False),
        sa.Column("content_type", sa.String(length=200), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("ocr_text", sa.Text(), nullable=True),
        sa.Column("ocr_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("submission_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["mail_id"], ["mail_messages.id"], name=op.f("fk_mail_attachments_mail_id_mail_messages")
        ),
        sa.ForeignKeyConstraint(
            ["submission_id"], ["submissions.id"], name=op.f("fk_mail_attachments_submission_id_submissions")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mail_attachments")),
    )
    with op.batch_alter_table("mail_attachments", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_mail_attachments_mail_id"), ["mail_id"], unique=False)
    op.create_table(
        "mail_outbox",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=300), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("phase_id", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(length=30), nullable=False),
        sa.Column("to_addr", sa.String(length=320), nullable=False),
        sa.Column("subject", sa.Text(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("header_id", sa.String(length=300), nullable=False),
        sa.Column("in_reply_to", sa.String(length=998), nullable=True),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("claimed_by", sa.String(length=100), nullable=True),
        sa.Column("claimed_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_mail_outbox_game_id_games")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mail_outbox")),
        sa.UniqueConstraint("key", name=op.f("uq_mail_outbox_key")),
    )
    with op.batch_alter_table("mail_outbox", schema=None) as batch_op:
        batch_op.create_index("ix_mail_outbox_due", ["status", "next_attempt_at"], unique=False)
    op.create_table(
        "mail_outbox_files",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("outbox_id", sa.Integer(), nullable=False),
        sa.Column("filename", sa.String(length=500), nullable=False),
        sa.Column("content_type", sa.String(length=200), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(
            ["outbox_id"], ["mail_outbox.id"], name=op.f("fk_mail_outbox_files_outbox_id_mail_outbox")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mail_outbox_files")),
    )
    with op.batch_alter_table("mail_outbox_files", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_mail_outbox_files_outbox_id"), ["outbox_id"], unique=False)
    op.create_table(
        "mail_notices",
        sa.Column("key", sa.String(length=300), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_mail_notices_game_id_games")),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_mail_notices")),
    )
    op.create_table(
        "mail_fetch_state",
        sa.Column("origin", sa.String(length=500), nullable=False),
        sa.Column("uidvalidity", sa.BigInteger(), nullable=False),
        sa.Column("last_uid", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("origin", name=op.f("pk_mail_fetch_state")),
    )


def downgrade() -> None:
    op.drop_table("mail_fetch_state")
    op.drop_table("mail_notices")
    with op.batch_alter_table("mail_outbox_files", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_mail_outbox_files_outbox_id"))
    op.drop_table("mail_outbox_files")
    with op.batch_alter_table("mail_outbox", schema=None) as batch_op:
        batch_op.drop_index("ix_mail_outbox_due")
    op.drop_table("mail_outbox")
    with op.batch_alter_table("mail_attachments", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_mail_attachments_mail_id"))
    op.drop_table("mail_attachments")
    with op.batch_alter_table("mail_messages", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_mail_messages_game_id"))
    op.drop_table("mail_messages")
    op.drop_table("game_mail")
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.drop_column("reinstates")
        batch_op.drop_column("label")
        batch_op.drop_column("recorded_at")
        batch_op.drop_column("source")
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.drop_column("email")
