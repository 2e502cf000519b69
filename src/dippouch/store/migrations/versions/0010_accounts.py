"""Accounts: sign-in links mailed, passkeys and their challenges, a person's calendar feed address.

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "signin_links",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_signin_links")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_signin_links_token_hash")),
    )
    op.create_index(op.f("ix_signin_links_email"), "signin_links", ["email"], unique=False)
    op.create_table(
        "passkeys",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.Column("credential_id", sa.String(length=1400), nullable=False),
        sa.Column("public_key", sa.LargeBinary(), nullable=False),
        sa.Column("sign_count", sa.BigInteger(), nullable=False),
        sa.Column("label", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["person_id"], ["people.id"], name=op.f("fk_passkeys_person_id_people")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_passkeys")),
        sa.UniqueConstraint("credential_id", name=op.f("uq_passkeys_credential_id")),
    )
    op.create_index(op.f("ix_passkeys_person_id"), "passkeys", ["person_id"], unique=False)
    op.create_table(
        "passkey_challenges",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("challenge", sa.String(length=200), nullable=False),
        sa.Column("purpose", sa.String(length=20), nullable=False),
        sa.Column("person_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["person_id"], ["people.id"], name=op.f("fk_passkey_challenges_person_id_people")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_passkey_challenges")),
        sa.UniqueConstraint("challenge", name=op.f("uq_passkey_challenges_challenge")),
    )
    op.create_index(op.f("ix_passkey_challenges_person_id"), "passkey_challenges", ["person_id"], unique=False)
    op.create_table(
        "person_calendars",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["person_id"], ["people.id"], name=op.f("fk_person_calendars_person_id_people")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_person_calendars")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_person_calendars_token_hash")),
    )
    op.create_index(op.f("ix_person_calendars_person_id"), "person_calendars", ["person_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_person_calendars_person_id"), table_name="person_calendars")
    op.drop_table("person_calendars")
    op.drop_index(op.f("ix_passkey_challenges_person_id"), table_name="passkey_challenges")
    op.drop_table("passkey_challenges")
    op.drop_index(op.f("ix_passkeys_person_id"), table_name="passkeys")
    op.drop_table("passkeys")
    op.drop_index(op.f("ix_signin_links_email"), table_name="signin_links")
    op.drop_table("signin_links")
