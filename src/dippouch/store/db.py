"""Engines and schema: SQLite by default with no configuration, PostgreSQL (or any SQLAlchemy URL) by choice.

The schema is created and upgraded by Alembic the first time a database is opened, so a coordinator never
runs a migration by hand; the migration scripts ship inside the package.
"""

from __future__ import annotations

import os
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config

DEFAULT_URL = "sqlite:///dippouch.db"
MIGRATIONS = Path(__file__).resolve().parent / "migrations"


def database_url(url: str | None = None) -> str:
    """The URL given, else ``DIPPOUCH_DATABASE_URL``, else ``dippouch.db`` in the current directory."""
    return url or os.environ.get("DIPPOUCH_DATABASE_URL") or DEFAULT_URL


def _normalise(url: str) -> str:
    # "postgresql://" would pick psycopg2, which we do not ship; psycopg (3) is the driver we install.
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    return url


def make_engine(url: str | None = None) -> sa.Engine:
    engine = sa.create_engine(_normalise(database_url(url)))
    if engine.dialect.name == "sqlite":

        @sa.event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn, _record):  # type: ignore[no-untyped-def]
            # Let SQLAlchemy, not the sqlite3 module, decide when transactions begin (see below).
            dbapi_conn.isolation_level = None
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.close()

        @sa.event.listens_for(engine, "begin")
        def _begin(conn):  # type: ignore[no-untyped-def]
            # IMMEDIATE takes the write lock up front: two processes processing the same phase queue up
            # instead of both reading "open" and one failing with "database is locked" at commit.
            conn.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


def alembic_config() -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return cfg


def upgrade(engine: sa.Engine) -> None:
    """Bring the schema to the newest revision (creating it on a fresh database)."""
    cfg = alembic_config()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")
