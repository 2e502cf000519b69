"""Alembic environment: dippouch runs migrations itself, on the connection it passes in.

``dippouch.store.db.upgrade`` puts an open connection in ``config.attributes["connection"]``; with a bare
``alembic`` command line the URL comes from ``sqlalchemy.url`` or ``DIPPOUCH_DATABASE_URL``.
"""

from __future__ import annotations

import os

import sqlalchemy as sa
from alembic import context

from dippouch.store.tables import load_all

config = context.config
target_metadata = load_all()


def _run(connection: sa.Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


connection = config.attributes.get("connection")
if connection is not None:
    _run(connection)
else:
    url = config.get_main_option("sqlalchemy.url") or os.environ.get("DIPPOUCH_DATABASE_URL", "sqlite:///dippouch.db")
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        _run(conn)
