"""Fresh databases for the tests. SQLite files are copied from one the store's migrations brought to the newest
schema once a test process: a copy takes some 3 ms where migrating an empty file takes 0.16 s (0.5 s on a loaded
machine), and about a thousand tests open a fresh database. PostgreSQL's are given from test to test
(:class:`PostgresPool`). Tests of a first open (migrating an empty database) open a path that does not exist yet
themselves, or mark themselves ``empty_database``."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import time
import uuid
from datetime import datetime
from functools import cache
from pathlib import Path

import sqlalchemy as sa

from dippouch.store import GameStore


@cache
def _template() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="dippouch-test-template-"))
    atexit.register(shutil.rmtree, folder, True)
    path = folder / "games.db"
    GameStore(f"sqlite:///{path}").close()
    return path


def migrated_sqlite(path: Path) -> str:
    """A new SQLite database at ``path``, at the newest schema and with no games; its URL. Owner-only, as the
    store creates its files (it warns about a database others may read)."""
    shutil.copyfile(_template(), path)
    os.chmod(path, 0o600)
    return f"sqlite:///{path}"


_SCHEMA = """
SELECT md5(coalesce(string_agg(x, E'\\n' ORDER BY x), '')) FROM (
    SELECT format('%s %s %s %s', c.relkind, c.relname, (
        SELECT string_agg(format('%s %s %s %s', a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
                                 pg_get_expr(d.adbin, d.adrelid)), ', ' ORDER BY a.attnum)
        FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped),
        CASE WHEN c.relkind = 'i' THEN pg_get_indexdef(c.oid) END) AS x
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'
    UNION ALL
    SELECT format('constraint %s %s %s', conrelid::regclass, conname, pg_get_constraintdef(oid))
    FROM pg_constraint WHERE connamespace = 'public'::regnamespace
    UNION ALL
    SELECT format('trigger %s %s', tgrelid::regclass, tgname) FROM pg_trigger WHERE NOT tgisinternal
    UNION ALL
    SELECT format('function %s', p.oid::regprocedure) FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace
    UNION ALL
    SELECT format('type %s', t.typname) FROM pg_type t WHERE t.typnamespace = 'public'::regnamespace AND t.typtype = 'e'
) s
"""
"""A digest of a database's schema: what a test may change of it (a migration walked down and not up again)."""


class _SchemaChanged(Exception):
    """A database given back whose schema is not the template's."""


class PostgresPool:
    """Databases at the newest schema on the PostgreSQL test server, one at a time for each test of a test
    process, emptied after it and given to a later test rather than dropped: ``CREATE DATABASE ... TEMPLATE``
    copies the template's system catalogues too (some 8 MB) and takes 0.3-0.45 s of the server's time on this
    machine, where emptying a database's tables takes some 40 ms.

    A database given back is emptied as a fresh copy would be: its connections ended, every table truncated
    with its sequences started again, the rows the migrations made put back (the schema's version, the
    ratings' state) and every sequence set as in the template. One whose schema a test changed (a migration
    walked down) is dropped, not given again. Each test gets a name of its own (the database is renamed when
    taken and when given back), so nothing of one test can reach the next through its name: a cache keyed by
    the database's address, a process of the last test still connecting."""

    def __init__(self, admin_url: sa.URL) -> None:
        self.url = admin_url
        self.admin = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT", poolclass=sa.pool.NullPool)
        self.template = f"dippouch_tmpl_{uuid.uuid4().hex[:12]}"
        with self.admin.connect() as c:
            c.execute(sa.text(f'CREATE DATABASE "{self.template}"'))
        GameStore(self.url_of(self.template)).close()
        engine = sa.create_engine(self.url.set(database=self.template), poolclass=sa.pool.NullPool)
        with engine.connect() as c:
            self.tables = [
                str(r[0])
                for r in c.execute(sa.text("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1"))
            ]
            self.rows = {}
            for t in self.tables:
                result = c.execute(sa.text(f'SELECT * FROM "{t}"'))
                rows = [dict(r._mapping) for r in result]
                if rows:
                    self.rows[t] = rows
            self.sequences = [
                (str(r[0]), r[1], bool(r[2]))
                for r in c.execute(
                    sa.text(
                        "SELECT format('%I', sequencename), coalesce(last_value, start_value), last_value IS NOT NULL"
                        " FROM pg_sequences WHERE schemaname = 'public'"
                    )
                )
            ]
            self.schema = c.execute(sa.text(_SCHEMA)).scalar_one()
        engine.dispose()
        self.free: list[str] = []

    def url_of(self, name: str) -> str:
        return self.url.set(database=name).render_as_string(hide_password=False)

    def take(self, *, empty: bool = False) -> str:
        """A database at the newest schema with nothing in it, under a name never used before; with ``empty``,
        one without even the schema (a test of a first open: :meth:`drop` it afterwards, not :meth:`give`)."""
        name = f"dippouch_t_{uuid.uuid4().hex[:12]}"
        with self.admin.connect() as c:
            if empty:
                c.execute(sa.text(f'CREATE DATABASE "{name}"'))
                return name
            while self.free:
                pooled = self.free.pop()
                try:
                    c.execute(sa.text(f'ALTER DATABASE "{pooled}" RENAME TO "{name}"'))
                    return name
                except sa.exc.DBAPIError:  # someone connected to it meanwhile: not to be trusted
                    self._drop(c, pooled)
            c.execute(sa.text(f'CREATE DATABASE "{name}" TEMPLATE "{self.template}"'))
        return name

    def give(self, name: str) -> None:
        """``name`` back after its test: emptied for the next, or dropped."""
        pooled = f"dippouch_pool_{uuid.uuid4().hex[:12]}"
        try:
            with self.admin.connect() as c:
                self._disconnect(c, name)
                c.execute(sa.text(f'ALTER DATABASE "{name}" RENAME TO "{pooled}"'))
            self._empty(pooled)
        except (sa.exc.DBAPIError, _SchemaChanged, TimeoutError):
            self.drop(name, pooled)
            return
        self.free.append(pooled)

    @staticmethod
    def _disconnect(c: sa.Connection, name: str) -> None:
        """End every session on ``name`` and wait until they are gone (the rename needs none)."""
        for _ in range(200):
            left = c.execute(
                sa.text(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                    " WHERE datname = :n AND pid <> pg_backend_pid()"
                ),
                {"n": name},
            ).scalar_one()
            if not left:
                return
            time.sleep(0.005)
        raise TimeoutError(f"sessions on {name} did not end")

    def _empty(self, name: str) -> None:
        engine = sa.create_engine(self.url.set(database=name), poolclass=sa.pool.NullPool)
        try:
            with engine.begin() as c:
                if c.execute(sa.text(_SCHEMA)).scalar_one() != self.schema:
                    raise _SchemaChanged(name)
                c.execute(sa.text("TRUNCATE " + ", ".join(f'"{t}"' for t in self.tables) + " RESTART IDENTITY"))
                for table, rows in self.rows.items():
                    c.execute(sa.table(table, *(sa.column(k) for k in rows[0])).insert(), rows)
                for seq, value, called in self.sequences:
                    c.execute(sa.text("SELECT setval(:s, :v, :c)"), {"s": seq, "v": value, "c": called})
        finally:
            engine.dispose()

    def drop(self, *names: str) -> None:
        """``names`` gone, their sessions ended (a name already gone is no error)."""
        with self.admin.connect() as c:
            for name in names:
                self._drop(c, name)

    @staticmethod
    def _drop(c: sa.Connection, name: str) -> None:
        c.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))

    def close(self) -> None:
        self.drop(*self.free, self.template)
        self.free.clear()
        self.admin.dispose()


def stored_message(store: GameStore, text: str, sender: str, at: datetime) -> int:
    """A message taken in by IMAP (its text ``text``, no attachment), stored before it is read: its id, for a test
    that records what became of it (held, accepted)."""
    from dippouch.store.mail.inbox import Claim, store_message

    claim = store_message(
        store,
        raw=text.encode(),
        message_id=f"<{uuid.uuid5(uuid.NAMESPACE_URL, text)}@example.org>",
        sender=sender,
        subject="orders",
        origin="imap",
        received_at=at,
        fetched_at=at,
        reading={},
        attachments=[],
        is_copy=lambda raw: False,
    )
    assert isinstance(claim, Claim), claim
    return claim.id
