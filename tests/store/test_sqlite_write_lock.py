"""The threads of one process queue for SQLite's write lock on a lock of the process (woken when it is free, not
by SQLite's busy handler sleeping in steps of up to 100 ms), and every way a write transaction ends gives that
lock back: a commit, a rollback, a statement that failed, a connection thrown away."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from dippouch.store import db


@pytest.fixture
def engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[sa.Engine]:
    # A short wait, so that a lock never given back shows as a writer going on without it.
    monkeypatch.setattr(db, "_BUSY_SECONDS", 2)
    e = db.make_engine(f"sqlite:///{tmp_path / 'lock.db'}")
    with e.begin() as c:
        c.exec_driver_sql("CREATE TABLE t (n INTEGER)")
    yield e
    e.dispose()


def _writes_holding_the_lock(engine: sa.Engine) -> bool:
    """Whether a write transaction begun in another thread had the process's lock (not merely SQLite's)."""
    got: list[bool] = []

    def write() -> None:
        with engine.begin() as c:
            got.append(bool(c.info.get("dippouch_writing")))
            c.exec_driver_sql("INSERT INTO t VALUES (1)")

    t = threading.Thread(target=write)
    t.start()
    t.join()
    return got == [True]


def test_a_second_writer_waits_for_the_first_commit_and_then_writes(engine: sa.Engine) -> None:
    order: list[str] = []
    first_in = threading.Event()
    let_go = threading.Event()

    def first() -> None:
        with engine.begin() as c:
            c.exec_driver_sql("INSERT INTO t VALUES (1)")
            first_in.set()
            let_go.wait(10)
            order.append("first commits")

    def second() -> None:
        first_in.wait(10)
        with engine.begin() as c:
            order.append("second writes")
            c.exec_driver_sql("INSERT INTO t VALUES (2)")

    a, b = threading.Thread(target=first), threading.Thread(target=second)
    a.start()
    b.start()
    first_in.wait(10)
    b.join(0.3)
    assert b.is_alive(), "the second writer did not wait for the first"
    let_go.set()
    a.join()
    b.join()
    assert order == ["first commits", "second writes"]
    with engine.connect() as c:
        assert c.exec_driver_sql("SELECT count(*) FROM t").scalar() == 2


def test_a_rollback_gives_the_lock_back(engine: sa.Engine) -> None:
    with pytest.raises(RuntimeError), engine.begin() as c:
        c.exec_driver_sql("INSERT INTO t VALUES (1)")
        raise RuntimeError("the use case refused")
    assert _writes_holding_the_lock(engine)


def test_a_failed_statement_gives_the_lock_back(engine: sa.Engine) -> None:
    with pytest.raises(sa.exc.OperationalError), engine.begin() as c:
        c.exec_driver_sql("INSERT INTO nowhere VALUES (1)")
    assert _writes_holding_the_lock(engine)


def test_a_connection_thrown_away_in_its_transaction_gives_the_lock_back(engine: sa.Engine) -> None:
    c = engine.connect()
    tx = c.begin()
    c.exec_driver_sql("INSERT INTO t VALUES (1)")
    c.invalidate()
    assert tx.is_active
    c.close()
    assert _writes_holding_the_lock(engine)


def test_a_session_closed_without_commit_gives_the_lock_back(engine: sa.Engine) -> None:
    from sqlalchemy.orm import Session

    s = Session(engine)
    s.execute(sa.text("INSERT INTO t VALUES (1)"))
    s.close()  # rolled back by the pool's reset
    assert _writes_holding_the_lock(engine)


def test_a_reader_engine_takes_no_lock(tmp_path: Path) -> None:
    e = db.make_engine(f"sqlite:///{tmp_path / 'r.db'}", write_lock=False)
    with e.connect() as c:
        c.exec_driver_sql("SELECT 1")
        assert "dippouch_writing" not in c.info
    e.dispose()


def test_a_read_session_reads_while_a_writer_holds_the_lock_and_refuses_to_write(tmp_path: Path) -> None:
    """The scheduler's and notifier's scans read this way: a scan of many rows no longer holds every submission
    up (on SQLite the store's sessions take the write lock for their whole length, reads included)."""
    from dippouch.store.db import Database

    database = Database(f"sqlite:///{tmp_path / 'r.db'}")
    try:
        with database.session() as w, w.begin():
            w.execute(sa.text("CREATE TABLE t (n INTEGER)"))
            w.execute(sa.text("INSERT INTO t VALUES (1)"))
        read: list[int] = []
        with database.session() as w, w.begin():
            w.execute(sa.text("INSERT INTO t VALUES (2)"))  # the write lock held, uncommitted

            def scan() -> None:
                with database.read_session() as r:
                    read.append(int(r.execute(sa.text("SELECT count(*) FROM t")).scalar_one()))

            t = threading.Thread(target=scan)
            t.start()
            t.join(5)
            assert not t.is_alive(), "the read waited for the writer"
        assert read == [1]  # the snapshot committed before it
        with pytest.raises(sa.exc.OperationalError, match="readonly"), database.read_session() as r:
            r.execute(sa.text("INSERT INTO t VALUES (3)"))
    finally:
        database.close()


def test_a_read_session_reads_on_either_database(db_url: str) -> None:
    from dippouch.store.db import Database

    database = Database(db_url)
    try:
        with database.read_session() as r:
            assert r.execute(sa.text("SELECT 1")).scalar_one() == 1
    finally:
        database.close()


def test_a_commit_gives_the_lock_back_once_its_flush_is_done(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SQLite holds its lock through a commit's flush (an fsync, 200 ms on a busy disk): a writer of the process let
    in before the flush ends meets SQLite's busy handler and sleeps in steps of up to 100 ms. So the next writer
    is let in once the commit is done; here the flush waits (a bounded while) for a writer let in too early."""
    from sqlalchemy.dialects.sqlite.pysqlite import SQLiteDialect_pysqlite

    order: list[str] = []
    flushing, early = threading.Event(), threading.Event()
    real: Callable[[Any, Any], None] = SQLiteDialect_pysqlite.do_commit

    def slow_flush(self: SQLiteDialect_pysqlite, dbapi_connection: Any) -> None:
        if threading.current_thread().name == "first":
            order.append("flush")
            flushing.set()
            early.wait(0.5)  # a second writer let in now would begin here
            order.append("flushed")
        real(self, dbapi_connection)

    monkeypatch.setattr(SQLiteDialect_pysqlite, "do_commit", slow_flush)
    monkeypatch.setattr(db, "_BUSY_SECONDS", 5)
    e = db.make_engine(f"sqlite:///{tmp_path / 'flush.db'}")
    try:
        with e.begin() as c:
            c.exec_driver_sql("CREATE TABLE t (n INTEGER)")

        @sa.event.listens_for(e, "before_cursor_execute")
        def begins(conn: Any, cursor: Any, statement: str, *_: Any) -> None:
            if statement == "BEGIN IMMEDIATE" and threading.current_thread().name == "second":
                order.append("second begins")
                early.set()

        def first() -> None:
            with e.begin() as c:
                c.exec_driver_sql("INSERT INTO t VALUES (1)")

        def second() -> None:
            flushing.wait(5)
            with e.begin() as c:
                c.exec_driver_sql("INSERT INTO t VALUES (2)")

        threads = [threading.Thread(target=first, name="first"), threading.Thread(target=second, name="second")]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
        assert order == ["flush", "flushed", "second begins"]
        with e.connect() as c:
            assert c.exec_driver_sql("SELECT count(*) FROM t").scalar() == 2
    finally:
        e.dispose()
