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


def make_engine(url: str | None = None, *, write_lock: bool = True) -> sa.Engine:
    """An engine for ``url``. On SQLite every transaction takes the write lock at its start (see below)
    unless ``write_lock`` is false: an engine for reads only, whose transactions see a consistent
    snapshot without waiting for writers (in WAL mode) and never hold writers up."""
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
            conn.exec_driver_sql("BEGIN IMMEDIATE" if write_lock else "BEGIN")

    return engine


def alembic_config() -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return cfg


MIGRATION_LOCK = 0x6469_7070_6F75_6368
"""PostgreSQL advisory lock key (``"dippouch"`` in ASCII) every dippouch process takes around migrations.

Advisory locks are per database, so games in different databases on one server never wait for each other."""


def upgrade(engine: sa.Engine) -> None:
    """Bring the schema to the newest revision (creating it on a fresh database).

    Several processes may open a brand-new database at the same moment (a coordinator's command and a
    deadline job). Exactly one must create the schema and the others must wait for it and then find it at
    head: run side by side, both would see no version table and the second would fail on the first's
    tables. So the migration runs under the database's write lock, taken before Alembic reads anything
    and released when the transaction commits. PostgreSQL: a transaction-scoped advisory lock (DDL alone
    does not serialise: concurrent CREATE TABLEs of one name fail with a unique violation). SQLite: the
    engine begins every transaction with ``BEGIN IMMEDIATE`` (:func:`make_engine`), which is that lock.
    """
    cfg = alembic_config()
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")
