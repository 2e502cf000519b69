"""Shared pages' texts compressed by lz4 on PostgreSQL, where the server has it (14 and later, built with lz4, as
the Debian and the official images are): a visitor's game page is some 50 KB with its picture, kept anew for
every phase processed, and PostgreSQL's own compression (pglz) of it cost the server 1.15-1.55 ms of CPU a page
kept where lz4 costs 0.5-0.6 (benchmarks/README.md, issue 57). The deflated pieces beside it are compressed already:
kept as they are, not tried again. Values kept before stay as they were until the page is kept anew. SQLite
and servers without lz4: nothing changes.

Revision ID: 0038
Revises: 0037
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0038"
down_revision = "0037"
branch_labels = None
depends_on = None

_HAS_LZ4 = sa.text(
    "SELECT EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals))"
)


def _lz4() -> bool:
    bind = op.get_bind()
    return bind.dialect.name == "postgresql" and bool(bind.execute(_HAS_LZ4).scalar())


def upgrade() -> None:
    if _lz4():
        op.execute("ALTER TABLE shared_pages ALTER COLUMN body SET COMPRESSION lz4")
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE shared_pages ALTER COLUMN deflated SET STORAGE EXTERNAL")


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    if _lz4():
        op.execute("ALTER TABLE shared_pages ALTER COLUMN body SET COMPRESSION default")
    op.execute("ALTER TABLE shared_pages ALTER COLUMN deflated SET STORAGE EXTENDED")
