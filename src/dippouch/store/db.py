"""Engines and schema: SQLite by default with no configuration, PostgreSQL (or any SQLAlchemy URL) by choice.

The schema is created and upgraded by Alembic the first time a database is opened, so a coordinator never
runs a migration by hand; the migration scripts ship inside the package. :class:`Database` is one open
database: its engine, its sessions and its clock (the game store is a :class:`Database` with the games).
"""

from __future__ import annotations

import json
import logging
import os
import re
import shlex
import stat
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

import sqlalchemy as sa
from sqlalchemy.orm import Session, SessionTransaction, sessionmaker

from dippouch import settings
from dippouch.core.errors import DippouchError
from dippouch.core.messages import msg
from dippouch.game import GameError, as_utc, position_from_data

if TYPE_CHECKING:
    from alembic.config import Config

    from dippouch.core.position import Position
    from dippouch.core.variant import Variant

I18N_DOMAIN = "rules"
"""The catalogue of the database's refusals (a URL that cannot be used, a database that cannot open)."""

KEPT_POSITIONS = 4096
"""How many phases' parsed positions a database keeps (:meth:`Database.position`)."""

DEFAULT_URL = "sqlite:///dippouch.db"
SUPPORTED = (
    "sqlite:///games.db (a file here), sqlite:////srv/games.db (an absolute path) or postgresql://user@host/dbname"
)


class DatabaseURLError(DippouchError):
    """A database URL dippouch cannot use: unreadable, of an unknown kind, or without its driver."""


DatabaseError = sa.exc.SQLAlchemyError
"""Any failure of the database itself (unreachable, busy, a statement refused): what a caller above the store
catches to say "database unavailable" instead of failing, without speaking SQLAlchemy itself."""

DatabaseBusy = sa.exc.OperationalError
"""The database is busy or cannot be reached right now (a lock not granted in time, a connection lost)."""

DatabaseRefusedValue = sa.exc.DataError
"""A value the database cannot hold (SQL's data exceptions): on PostgreSQL a number past an integer column's
range or text with a NUL character, which SQLite takes (it answers a number past its own 64 bits with
``OverflowError``). A value a request carried there is the request's fault, not the database's."""

NUMBER_OUT_OF_RANGE = "22003"
"""The SQLSTATE of a number past its column's range (PostgreSQL's ``integer out of range``)."""


def out_of_range(e: sa.exc.DataError) -> bool:
    """Whether the database refused a number as too large (or too small) for its column."""
    return getattr(e.orig, "sqlstate", None) == NUMBER_OUT_OF_RANGE


MIGRATIONS = Path(__file__).resolve().parent / "migrations"


def database_url(url: str | None = None) -> str:
    """The URL given, else ``DIPPOUCH_DATABASE_URL``, else ``dippouch.db`` in the current directory."""
    return url or settings.current().database_url or DEFAULT_URL


def _normalise(url: str) -> str:
    # "postgresql://" would pick psycopg2, which we do not ship; psycopg (3) is the driver we install.
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    return url


def _engine(text: str) -> sa.Engine:
    """``sa.create_engine`` with each way a URL can be wrong turned into a message a coordinator can act on."""
    shown = _shown(text)
    if "://" not in text:
        hint = f"sqlite:///{text}" if text.strip() else "sqlite:///games.db"
        raise DatabaseURLError(
            msg(
                "%(url)s is not a database URL; for a SQLite file write %(hint)s (PostgreSQL: "
                "postgresql://user@host/dbname)",
                url=shown,
                hint=hint,
            )
        )
    try:
        parsed = sa.engine.make_url(text)
    except sa.exc.ArgumentError:
        raise DatabaseURLError(
            msg("cannot read the database URL %(url)s; write it like %(supported)s", url=shown, supported=SUPPORTED)
        ) from None
    kind = parsed.get_backend_name()
    try:
        if kind != "postgresql":
            return sa.create_engine(parsed)
        # A kept connection is tried before each use (pre-ping): after the server restarts or fails over, every
        # connection kept is dead, and the first request of each process was answered 503 (were it a player's
        # orders, to be sent again). The ping costs a round trip a checkout (docs/deployment.md).
        return sa.create_engine(parsed, connect_args=driver_settings(), pool_pre_ping=True, **_pool_size())
    except sa.exc.NoSuchModuleError:
        raise DatabaseURLError(
            msg(
                "unknown kind of database %(kind)s in %(url)s; dippouch works with sqlite and postgresql, e.g. "
                "%(supported)s",
                kind=repr(kind),
                url=shown,
                supported=SUPPORTED,
            )
        ) from None
    except ImportError as e:
        raise DatabaseURLError(
            msg(
                "the %(kind)s database driver (%(driver)s) is not installed; dippouch works with sqlite and "
                "postgresql (for PostgreSQL: pip install 'dippouch[postgres]')",
                kind=kind,
                driver=str(e.name or parsed.get_driver_name()),
            )
        ) from None
    except (sa.exc.ArgumentError, TypeError, ValueError) as e:
        raise DatabaseURLError(msg("cannot use the database URL %(url)s: %(error)s", url=shown, error=str(e))) from None


POOL_SIZE = 5
"""Connections a process keeps open to PostgreSQL (``DIPPOUCH_DB_POOL``); under load it opens up to
:data:`POOL_OVERFLOW` more and closes them again when they are returned."""
POOL_OVERFLOW = 10


def _pool_size() -> dict[str, int]:
    """``DIPPOUCH_DB_POOL``: how many connections to keep (``20``), or kept and extra (``20,10``). A busy web
    process serves up to 40 requests at once; connections beyond those kept are opened and closed again on
    every burst, which costs a PostgreSQL backend each time (docs/deployment.md sizes ``max_connections``)."""
    try:
        pool = settings.current().db_pool
    except DippouchError as e:  # what a caller of the store catches for a database it cannot open
        raise DatabaseURLError(e.msg) from None
    if pool is None:
        return {"pool_size": POOL_SIZE, "max_overflow": POOL_OVERFLOW}
    return {"pool_size": pool.keep, "max_overflow": POOL_OVERFLOW if pool.extra is None else pool.extra}


def driver_settings() -> dict[str, Any]:
    """What psycopg is told for every PostgreSQL connection a process opens (the engine's and those beside it).

    Behind a pooler in transaction mode (``DIPPOUCH_DB_POOLER=transaction``) a connection's next transaction may
    run in another server session, where the statements psycopg prepares on their fifth run in one (its
    ``prepare_threshold``) do not exist ("prepared statement does not exist"), or where another connection's
    statement of the same name answers instead (PgBouncer 1.18, Debian 12's: tests/store/test_pgbouncer.py sees
    both), so psycopg prepares none."""
    try:
        pooler = settings.current().db_pooler
    except DippouchError as e:
        raise DatabaseURLError(e.msg) from None
    return {"prepare_threshold": None} if pooler == "transaction" else {}


def _shown(text: str) -> str:
    """The URL as it may be printed: never its password, and not a whole page of it."""
    try:
        safe = sa.engine.make_url(text).render_as_string(hide_password=True)
    except Exception:  # an unreadable URL may still hold a password after '//user:'
        safe = text.split("@", 1)[-1] if "@" in text else text
    return repr(safe if len(safe) <= 200 else safe[:200] + "...")


def _private_sqlite_file(engine: sa.Engine) -> None:
    """Create a new SQLite database file readable by its owner only (0600): it holds sealed orders."""
    name = engine.url.database
    if not name or name == ":memory:" or name.startswith("file:"):
        return
    path = Path(name)
    if path.exists():
        _warn_if_readable(path)
        return
    if not path.parent.is_dir():
        raise DatabaseURLError(
            msg(
                "cannot create the database %(path)s: the folder %(folder)s does not exist",
                path=repr(str(path)),
                folder=repr(str(path.parent)),
            )
        )
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        return
    os.close(fd)


_WARNED: set[str] = set()


def _warn_if_readable(path: Path) -> None:
    """Say so (on standard error and in the log, once per process) when others may read the database file:
    it holds sealed orders, the players' addresses and the hashes of their keys."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return
    if not mode & (stat.S_IRGRP | stat.S_IROTH | stat.S_IWGRP | stat.S_IWOTH) or str(path) in _WARNED:
        return
    _WARNED.add(str(path))
    who = "other users" if mode & (stat.S_IROTH | stat.S_IWOTH) else "its group"
    msg = (
        f"dippouch: warning: the database {str(path)!r} is readable by {who} (mode {stat.S_IMODE(mode):o}); it "
        f"holds sealed orders and players' addresses: chmod 600 {shlex.quote(str(path))}"
    )
    logging.getLogger("dippouch.store").warning(msg)
    if not logging.getLogger().handlers:  # no log configured: standard error is where it is seen
        print(msg, file=sys.stderr)


_BUSY_SECONDS = 30
"""How long a writer waits for the write lock before the database is called busy."""


def make_engine(url: str | None = None, *, write_lock: bool = True) -> sa.Engine:
    """An engine for ``url``. On SQLite every transaction takes the write lock at its start (see below)
    unless ``write_lock`` is false: an engine for reads only, whose transactions see a consistent
    snapshot without waiting for writers (in WAL mode) and never hold writers up."""
    engine = _engine(_normalise(database_url(url)))
    if engine.dialect.name == "sqlite":
        _private_sqlite_file(engine)

        @sa.event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn, _record):  # type: ignore[no-untyped-def]
            # Let SQLAlchemy, not the sqlite3 module, decide when transactions begin (see below).
            dbapi_conn.isolation_level = None
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute(f"PRAGMA busy_timeout={_BUSY_SECONDS * 1000}")
            # Write-ahead logging: readers never wait for a writer (nor a writer for readers), and a commit is
            # one fsync of the log instead of the journal's several (3 ms against 14 ms measured here): in the
            # rollback journal's mode a busy scheduler's commits held every page's read up. The mode is kept in
            # the file, so this is a no-op after the first connection; FULL keeps a commit durable through a
            # power cut, as PostgreSQL's is. An in-memory database answers "memory" and stays so.
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=FULL")
            cur.close()

        if write_lock:
            _WriteQueue(settings.current().write_trace).attach(engine)
        else:
            sa.event.listen(engine, "begin", _begin_deferred)

    return engine


def _begin_deferred(conn: sa.Connection) -> None:
    conn.exec_driver_sql("BEGIN")


class _WriteQueue:
    """The threads of one process wait for SQLite's write lock here, woken the moment it is free: SQLite's own
    busy handler sleeps in growing steps (up to 100 ms a try), which made a player's submission wait hundreds
    of milliseconds behind another thread's short write. Other processes still meet SQLite's handler; a thread
    that cannot have this lock in the busy timeout goes on to SQLite's as before. Every way a transaction ends
    gives it back: a commit (once its flush is done), a rollback, the pool resetting or throwing away a
    connection."""

    _HELD = "dippouch_writing"
    _TRACED = "dippouch_traced"

    def __init__(self, trace: Path | None = None) -> None:
        self._lock = threading.Lock()
        self._committed = threading.local()
        """``held``: this thread's transaction is committing with the lock, given back once the commit is done."""
        self._trace = None if trace is None else _WriteTrace(trace)

    def attach(self, engine: sa.Engine) -> None:
        sa.event.listen(engine, "begin", self._begin)
        sa.event.listen(engine, "commit", self._committing)
        sa.event.listen(engine, "rollback", self._ended)
        sa.event.listen(engine, "reset", self._reset)
        sa.event.listen(engine, "invalidate", self._invalidated)
        # The "commit" event comes before the commit itself, whose flush (an fsync of the log) SQLite's lock is
        # still held for: given back then, the next thread met SQLite's busy handler and slept in its steps (up
        # to 100 ms) through a flush that took 200 ms on a busy disk (the trace). So it is given back after.
        commit, trace, after = engine.dialect.do_commit, self._trace, self._after_commit

        def do_commit(dbapi_connection: Any) -> None:
            began = time.perf_counter() if trace is not None else 0.0
            try:
                commit(dbapi_connection)
            finally:
                after()
                if trace is not None:
                    trace.committed(time.perf_counter() - began)

        engine.dialect.do_commit = do_commit  # type: ignore[method-assign]

    def _begin(self, conn: sa.Connection) -> None:
        # IMMEDIATE takes the write lock up front: two processes processing the same phase queue up instead of
        # both reading "open" and one failing with "database is locked" at commit.
        asked = time.perf_counter() if self._trace is not None else 0.0
        held = self._lock.acquire(timeout=_BUSY_SECONDS)
        try:
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        except BaseException:
            if held:
                self._lock.release()
            raise
        if held:
            conn.info[self._HELD] = True
        if self._trace is not None:
            conn.info[self._TRACED] = (asked, time.perf_counter(), _WriteTrace.who())

    def _committing(self, conn: sa.Connection) -> None:
        # The same thread calls do_commit next (Connection._commit_impl), which gives the lock back.
        if conn.invalidated:
            return
        if self._trace is not None and (times := conn.info.pop(self._TRACED, None)) is not None:
            self._trace.committing()
            self._trace.record(*times)
        if conn.info.pop(self._HELD, False):
            self._committed.held = True

    def _after_commit(self) -> None:
        if self._committed.__dict__.pop("held", False):
            self._lock.release()

    def _ended(self, conn: sa.Connection) -> None:
        # An invalidated connection has no record to read (asking reconnects); its pool event gave it back.
        if conn.invalidated:
            return
        if self._trace is not None and (times := conn.info.pop(self._TRACED, None)) is not None:
            self._trace.record(*times)
        if conn.info.pop(self._HELD, False):
            self._lock.release()

    def _dropped(self, record: Any) -> None:
        if record is None:
            return
        if self._trace is not None and (times := record.info.pop(self._TRACED, None)) is not None:
            self._trace.record(*times)
        if record.info.pop(self._HELD, False):
            self._lock.release()

    def _reset(self, dbapi_connection: Any, connection_record: Any, reset_state: Any) -> None:
        self._dropped(connection_record)

    def _invalidated(self, dbapi_connection: Any, connection_record: Any, exception: Any) -> None:
        self._dropped(connection_record)


_PACKAGE = str(Path(__file__).resolve().parent.parent) + os.sep
_HERE = str(Path(__file__).resolve())


class _WriteTrace:
    """Who holds SQLite's one write lock, and for how long (``DIPPOUCH_WRITE_TRACE``): every submission waits
    for it, so the transactions that hold it longest are what a player's write waits behind. One JSON line a
    write transaction, appended by one ``write`` each (whole lines, so the server's processes can share the
    file): ``waited`` (seconds from asking to having the lock), ``held`` (from having it to the commit or
    rollback), ``commit`` (the commit's own flush, SQLite's lock and the process's still held; 0 for a
    rollback), ``who`` (the innermost frames of dippouch that began it, innermost
    first, read when it began), ``pid``. Made only when the setting names a file: otherwise no clock is read."""

    FRAMES = 4
    """How many of dippouch's frames ``who`` names: the innermost is often a helper (``Database.clock``); its
    callers say whose transaction it was."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None
        self._pid = 0
        self._pending = threading.local()

    def _file(self) -> int:
        if self._fd is None or self._pid != os.getpid():  # a forked child writes through a descriptor of its own
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            self._pid = os.getpid()
        return self._fd

    @classmethod
    def who(cls) -> list[str]:
        frames: list[str] = []
        f: Any = sys._getframe(1)
        while f is not None and len(frames) < cls.FRAMES:
            name = f.f_code.co_filename
            if name.startswith(_PACKAGE) and name != _HERE:
                frames.append(f"{name[len(_PACKAGE) :]}:{f.f_lineno} {f.f_code.co_name}")
            elif name == _HERE and f.f_code.co_name not in ("_begin", "_ended", "_dropped", "record", "who"):
                frames.append(f"store/db.py:{f.f_lineno} {f.f_code.co_name}")
            f = f.f_back
        return frames

    def record(self, asked: float, got: float, who: list[str]) -> None:
        """A transaction ends: written at once, or, when it ends in a commit, once :meth:`committed` has timed
        the commit (the same thread, just after)."""
        line = {
            "waited": round(got - asked, 6),
            "held": round(time.perf_counter() - got, 6),
            "commit": 0.0,
            "who": who,
            "pid": os.getpid(),
        }
        if self._pending.__dict__.pop("committing", False):
            self._pending.line = line
        else:
            self._write(line)

    def committing(self) -> None:
        self._pending.committing = True

    def committed(self, seconds: float) -> None:
        line = self._pending.__dict__.pop("line", None)
        if line is not None:
            line["commit"] = round(seconds, 6)
            self._write(line)

    def _write(self, line: dict[str, Any]) -> None:
        os.write(self._file(), (json.dumps(line) + "\n").encode())


def alembic_config() -> Config:
    from alembic.config import Config

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
    if _at_head(engine):
        return  # the common case, decided without importing Alembic (a third of a command's start-up)
    from alembic import command

    cfg = alembic_config()
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")


_REVISION = re.compile(r"^(down_)?revision\s*(?::[^=]*)?=\s*(?:\"([^\"]*)\"|'([^']*)'|None)", re.MULTILINE)


@cache
def head_revision() -> str | None:
    """The newest migration's revision, read from the scripts shipped here (the one no other names as its
    ``down_revision``); ``None`` if that cannot be told, and then Alembic decides."""
    revisions: dict[str, str | None] = {}
    for path in (MIGRATIONS / "versions").glob("*.py"):
        found = {bool(m.group(1)): m.group(2) or m.group(3) for m in _REVISION.finditer(path.read_text("utf-8"))}
        if False not in found or not found[False]:
            return None
        revisions[str(found[False])] = found.get(True)
    heads = set(revisions) - {down for down in revisions.values() if down}
    return heads.pop() if len(heads) == 1 else None


def _at_head(engine: sa.Engine) -> bool:
    """Whether the database's schema is already at the newest revision (read-only, no lock needed: a
    database at head stays there until a newer dippouch migrates it)."""
    head = head_revision()
    if head is None:
        return False
    try:
        with engine.connect() as conn:
            rows = conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalars().all()
    except sa.exc.DBAPIError:
        return False  # no version table yet: a new database
    return rows == [head]


_QUICK_BUSY = 1.0
"""Seconds within which SQLite's "database is locked" came without its busy timeout's wait."""


def _opened(engine: sa.Engine, tries: int = 5) -> None:
    """:func:`upgrade`, tried again when SQLite answers "database is locked" at once rather than after waiting
    its busy timeout: as several processes opened one new file together, SQLite answered three of four so (once in
    a CI run), where the others' wait for the lock that the one migrating holds is what the schema's creation
    counts on. SQLite's advice for a lock refused without waiting is to try again; a lock refused after the busy
    timeout (a database held that long) is not tried again."""
    for attempt in range(1, tries + 1):
        began = time.monotonic()
        try:
            upgrade(engine)
            return
        except sa.exc.OperationalError as e:
            quick = time.monotonic() - began < _QUICK_BUSY
            if engine.dialect.name != "sqlite" or "locked" not in str(e.orig) or not quick or attempt == tries:
                raise
            engine.dispose()  # a connection met in that state is not kept for the next try
            time.sleep(0.05 * attempt)


_OPENED = "dippouch.opened"
"""A session's :attr:`Session.info` key for the positions of the phases it opened (:meth:`Database.opened`)."""


_KNOWN = "dippouch.known"
"""A session's :attr:`Session.info` key for what its transaction has learnt (:func:`known_in`)."""


def unsynced_row(table: sa.TableClause, columns: tuple[str, ...]) -> sa.Select[Any]:
    """A row of ``table``'s ``columns``, each a bound parameter of its name, to insert (``INSERT ... SELECT``) by
    :meth:`Database.derived_write` on PostgreSQL: selected from ``set_config('synchronous_commit', 'off', true)``,
    which holds for the transaction the statement runs in, so a statement sent alone is its own transaction and
    commits without waiting for the disk. The setting is a condition of the row (not an unused column, which
    the planner may drop), and ends with that transaction: the connection goes back to its pool as it came."""
    off = sa.select(sa.func.set_config("synchronous_commit", "off", True).label("off")).subquery()
    return sa.select(*(sa.bindparam(c, type_=table.c[c].type) for c in columns)).where(off.c.off.is_not(None))


def known_in(s: Session) -> dict[Any, Any]:
    """What the transaction in hand of ``s`` has learnt and may take as known until it ends (a phase without
    mail, asked of every phase a worker processes by more than one of its steps), forgotten when it ends."""
    known: dict[Any, Any] = s.info.setdefault(_KNOWN, {})
    return known


def _forget_at_end(s: Session, transaction: SessionTransaction) -> None:
    """What a transaction rolled back or closed uncommitted opened is forgotten (after a commit, nothing is left),
    and what it learnt (:func:`known_in`) however it ended."""
    if transaction.parent is None:
        s.info.pop(_OPENED, None)
        s.info.pop(_KNOWN, None)


class Database:
    """One open game database: its engine, its sessions and its clock.

    Opening it creates or upgrades the schema (:func:`upgrade`). The game store
    (:class:`dippouch.store.repository.GameStore`) is a :class:`Database` with the games; the store's
    modules take a :class:`Database` as their first argument, so none of them needs the store itself.
    """

    engine: sa.Engine
    one_read: sa.Engine
    """The engine (same pool) for a read of one statement: on PostgreSQL outside a transaction, so the read is
    one round trip instead of three (BEGIN, the read, ROLLBACK); one statement sees one snapshot anyway. The
    key lookup of every API request and the pages' change markers read this way."""
    session: sessionmaker[Session]
    finished_records: dict[tuple[int, int], dict[int, Any]]
    """(game id, its last event id) -> seat id -> the seat's reliability record, for finished games: their
    phases, submissions and seats no longer change (:mod:`dippouch.store.people.reliability`); shared with the reader."""
    variants: dict[int, tuple[str, dict[str, Any], Variant]]
    """Game id -> (the hash of its stored variant copy, its options, the variant built from them), kept by
    :func:`dippouch.store.rows.game_variant` and shared with :meth:`reader`: a game's submissions and
    processing find its variant here without asking the catalogue."""
    test_hooks: settings.TestHooks
    """The crash and pause points the tests name in this process's settings (none outside the tests)."""
    positions: OrderedDict[int, tuple[Variant, Position]]
    """Phase id -> (variant, its parsed starting position), kept by :meth:`position` and shared with
    :meth:`reader` (the same database's phases): one cache for the store's submissions and the web's pages."""

    def __init__(self, url: str | None = None) -> None:
        self._connect(make_engine(url))
        try:
            _opened(self.engine)
        except sa.exc.OperationalError as e:
            raise GameError(
                msg("cannot open the game database %(url)s: %(error)s", url=repr(self.engine.url), error=str(e.orig))
            ) from None

    def _connect(self, engine: sa.Engine) -> None:
        self.engine = engine
        self.one_read = (
            engine.execution_options(isolation_level="AUTOCOMMIT") if engine.dialect.name == "postgresql" else engine
        )
        self.session = sessionmaker(engine, expire_on_commit=False, info={"db": self})  # rows find their store
        sa.event.listen(self.session, "after_commit", self._keep_opened)
        sa.event.listen(self.session, "after_transaction_end", _forget_at_end)
        self._read_session: sessionmaker[Session] | None = None
        self._read_engine: sa.Engine | None = None
        self._read_lock = threading.Lock()
        self.positions = OrderedDict()
        self._positions_lock = threading.Lock()
        self.finished_records = {}
        self.variants = {}
        self.test_hooks = settings.current().test_hooks

    def pause_point(self, name: str) -> None:
        """The race tests' brake at ``name`` (:func:`dippouch.store.faults.pause_point`): a comparison with the
        point the tests' settings name, read when the database was opened, so a write reads no settings."""
        if self.test_hooks.pause_at == name:
            from dippouch.store.faults import pause_point

            pause_point(name)

    def crash_point(self, name: str) -> None:
        """The crash tests' kill switch at ``name`` (:func:`dippouch.store.faults.crash_point`), compared as
        :meth:`pause_point` is."""
        if self.test_hooks.crash_at == name:
            from dippouch.store.faults import crash_point

            crash_point(name)

    def close(self) -> None:
        self.engine.dispose()
        if self._read_engine is not None:
            self._read_engine.dispose()

    @contextmanager
    def derived_writes(self) -> Iterator[sa.Connection]:
        """A transaction for what is made from other data and made again when lost (a page kept for its readers,
        the work budget's ledger), committed without waiting for the disk. On SQLite a commit is an fsync of the
        log (synchronous FULL), which took 4-30 ms on this machine's disk and up to 700 ms under load: a page kept
        after each phase held the readers waiting for it that long. This one commits with synchronous NORMAL
        (in WAL mode: the database stays whole through a power cut, the last such commits may be lost; the next
        durable commit's fsync carries them too); on PostgreSQL with ``synchronous_commit`` off, its own
        transaction alone."""
        with self.engine.connect() as conn:
            if self.engine.dialect.name != "sqlite":
                with conn.begin():
                    if self.engine.dialect.name == "postgresql":
                        conn.exec_driver_sql("SET LOCAL synchronous_commit TO OFF")
                    yield conn
                return
            raw: Any = conn.connection.driver_connection
            raw.execute("PRAGMA synchronous=NORMAL")  # outside a transaction: the driver's autocommit
            try:
                with conn.begin():
                    yield conn
            finally:
                try:
                    raw.execute("PRAGMA synchronous=FULL")
                except Exception:
                    conn.invalidate()  # never handed to a durable write as it is
                    raise

    def derived_write(self, statements: Mapping[str, sa.Executable], params: Mapping[str, Any]) -> None:
        """One statement of what :meth:`derived_writes` keeps (``statements``: the statement per dialect name), sent
        as it does. On PostgreSQL the statement (built with :func:`unsynced_row`) is sent alone, outside a
        transaction, and turns ``synchronous_commit`` off for the transaction it is: one round trip where BEGIN,
        the setting, the statement and COMMIT were four (a worker's phase and its kept page are made of round
        trips, each of which waits for a CPU on a busy machine)."""
        statement = statements[self.engine.dialect.name]
        if self.engine.dialect.name == "postgresql":
            with self.one_read.connect() as conn:
                conn.execute(statement, params)
            return
        with self.derived_writes() as conn:
            conn.execute(statement, params)

    def read_session(self) -> Session:
        """A session for a read of several statements that writes nothing (the scheduler's and notifier's scans,
        a backlog's count). On SQLite every transaction of :attr:`session` takes the one write lock for its
        whole length, so a scan of many rows held every submission up while it read (the coach's backlog scan
        was 300 ms on a loaded machine); this one takes no lock, sees one snapshot (WAL), and refuses a write
        (``query_only``) so a misuse fails loudly. On PostgreSQL it reads outside a transaction, as
        :attr:`one_read` does: each statement sees the data committed when it starts, as it would inside one
        (READ COMMITTED), and the BEGIN and ROLLBACK around the reads are not sent: two round trips of every
        read session, and a worker's phase with its page made some three of them. Elsewhere it is :attr:`session`."""
        return self._reads()()

    @property
    def reads_without_lock(self) -> bool:
        """Whether :meth:`read_session` reads without taking the write lock (a SQLite file), so that work read
        there first shortens the write transaction that follows it."""
        self._reads()
        return self._read_engine is not None

    @property
    def read_engine(self) -> sa.Engine:
        """The engine :meth:`read_session` reads through (the store's own where it has no other: on PostgreSQL
        :attr:`one_read` is the store's engine, its pool and its events, with another option)."""
        self._reads()
        return self._read_engine if self._read_engine is not None else self.engine

    def _reads(self) -> sessionmaker[Session]:
        with self._read_lock:
            if self._read_session is None:
                self._read_session = self._made_reads()
            return self._read_session

    def _made_reads(self) -> sessionmaker[Session]:
        url = self.engine.url
        if self.engine.dialect.name == "postgresql":
            reads = sessionmaker(self.one_read, expire_on_commit=False, info={"db": self})
            sa.event.listen(reads, "after_transaction_end", _forget_at_end)
            return reads
        if self.engine.dialect.name != "sqlite" or url.database in (None, "", ":memory:"):
            return self.session  # another engine would be another in-memory database
        engine = make_engine(url.render_as_string(hide_password=False), write_lock=False)

        @sa.event.listens_for(engine, "connect")
        def _query_only(dbapi_conn, _record):  # type: ignore[no-untyped-def]
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA query_only=ON")
            cur.close()

        self._read_engine = engine
        return sessionmaker(engine, expire_on_commit=False, info={"db": self})

    def reader(self) -> Self:
        """A second store on the same database for reads only (a busy web server's pages): on SQLite its
        transactions do not take the write lock, so readers neither wait for writers nor hold them up.
        Use it only for methods that do not write; the schema is already at head (this store made sure)."""
        other = type(self).__new__(type(self))
        other._connect(make_engine(str(self.engine.url.render_as_string(hide_password=False)), write_lock=False))
        other.positions, other._positions_lock = self.positions, self._positions_lock
        other.finished_records = self.finished_records
        other.variants = self.variants
        return other

    def keep_variant(self, game_id: int, digest: str, options: dict[str, Any], v: Variant) -> None:
        """Keep game ``game_id``'s variant, built from the copy hashed ``digest`` with ``options``."""
        with self._positions_lock:
            if len(self.variants) > KEPT_POSITIONS:
                self.variants.clear()
            self.variants[game_id] = (digest, dict(options), v)

    def opened(self, s: Session, v: Variant, phase_id: int, pos: Position) -> None:
        """Keep ``pos``, parsed to open phase ``phase_id`` in ``s``, as that phase's position once ``s`` commits:
        its page, made by the worker that opened it, and its first submissions then parse it no more. Not
        before: on SQLite a phase rolled back leaves its id to the next one."""
        s.info.setdefault(_OPENED, []).append((v, phase_id, pos))

    def _keep_opened(self, s: Session) -> None:
        for v, phase_id, pos in s.info.pop(_OPENED, ()):
            self._keep(v, phase_id, pos)

    def _keep(self, v: Variant, phase_id: int, pos: Position) -> None:
        with self._positions_lock:
            self.positions[phase_id] = (v, pos)
            while len(self.positions) > KEPT_POSITIONS:
                self.positions.popitem(last=False)

    def position(self, v: Variant, phase_id: int, data: Mapping[str, Any]) -> Position:
        """The position a phase starts from (``data``, as stored), parsed once per phase and variant: a
        phase's starting position never changes, and every submission, status and page reads it (parsing a
        standard position costs a millisecond, a W3K one several). For reading only: callers must not change
        the Position."""
        kept = self.positions
        hit = kept.get(phase_id)
        if hit is not None and hit[0] is v:
            return hit[1]
        pos = position_from_data(v, data)
        self._keep(v, phase_id, pos)
        return pos

    def clock(self) -> datetime:
        """Now, by the database's clock: what decides whether a deadline has passed, whichever machine asks.

        PostgreSQL's ``clock_timestamp()`` (one clock for every web server and worker, so a machine whose
        clock is behind or ahead never processes early or late). SQLite has no server: its processes all
        run on one machine, and the local clock is that machine's clock.
        """
        with self.session() as s:
            return self.db_now(s)

    @staticmethod
    def db_now(s: Session) -> datetime:
        """:meth:`clock`, inside a session already open."""
        if s.get_bind().dialect.name == "postgresql":
            moment: datetime = s.execute(sa.select(sa.func.clock_timestamp())).scalar_one()
            return as_utc(moment)
        return datetime.now(UTC)

    def ping(self) -> None:
        """Ask the database whether it answers and holds a dippouch schema (the health check's question);
        raises :data:`DatabaseError` when it does not."""
        with self.engine.connect() as conn:
            conn.execute(sa.select(sa.literal(1)).select_from(sa.table("alembic_version")).limit(1))
