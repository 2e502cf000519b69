"""What is made from other data and made again when lost (a page kept for its readers, the work budget's ledger) is
committed without waiting for the disk (issue 52: on SQLite each such commit was an fsync, 4-30 ms on this
machine's disk and up to 700 ms under load, and the players' pages waited behind the page kept after a
submission). The writes the players send stay durable: the connection that carried a derived write is back to
SQLite's FULL before anyone else's transaction has it; on PostgreSQL only that transaction commits
asynchronously."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
import sqlalchemy as sa

from dippouch.store import GameStore, page_cache, work_spent
from dippouch.store import db as db_module
from dippouch.store import games as store_games
from dippouch.store.db import Database

NOW = datetime(2026, 11, 27, 12, tzinfo=UTC)


def _setting(conn: sa.Connection) -> str:
    if conn.dialect.name == "sqlite":
        return {0: "off", 1: "normal", 2: "full", 3: "extra"}[conn.exec_driver_sql("PRAGMA synchronous").scalar_one()]
    return str(conn.exec_driver_sql("SHOW synchronous_commit").scalar_one())


def test_a_derived_write_commits_unsynced_and_leaves_durable_writes_durable(store: GameStore) -> None:
    with store.derived_writes() as conn:
        inside = _setting(conn)
    assert inside == ("normal" if store.engine.dialect.name == "sqlite" else "off")
    # Every connection the pool hands out afterwards (the one just used among them) commits durably.
    conns = [store.engine.connect() for _ in range(3)]
    try:
        for conn in conns:
            assert _setting(conn) == ("full" if store.engine.dialect.name == "sqlite" else "on")
            conn.rollback()
    finally:
        for conn in conns:
            conn.close()


def test_what_a_derived_write_keeps_is_committed_and_a_failure_keeps_nothing(store: GameStore) -> None:
    store_games.create_game(store, "demo", "standard", now=NOW)
    page_cache.keep_page(store, _game_id(store, "demo"), "page", "en", "v1", "<p>one</p>", NOW)
    with pytest.raises(RuntimeError), store.derived_writes() as conn:
        conn.execute(sa.text("DELETE FROM shared_pages"))
        raise RuntimeError("the page could not be made")
    with store.engine.connect() as conn:
        assert conn.execute(sa.text("SELECT body FROM shared_pages")).scalars().all() == ["<p>one</p>"]
        assert _setting(conn) == ("full" if store.engine.dialect.name == "sqlite" else "on")


def _game_id(store: GameStore, name: str) -> int:
    with store.engine.connect() as conn:
        return int(conn.execute(sa.text("SELECT id FROM games WHERE name = :n"), {"n": name}).scalar_one())


def test_the_kept_page_and_the_ledger_are_derived_writes(store: GameStore, monkeypatch: pytest.MonkeyPatch) -> None:
    used: list[str] = []
    real = Database.derived_writes
    real_one = Database.derived_write

    def counting(self: Database) -> Any:
        used.append("derived")
        return real(self)

    def counting_one(self: Database, statements: Any, params: Any) -> None:
        used.append("one")
        real_one(self, statements, params)

    monkeypatch.setattr(Database, "derived_writes", counting)
    monkeypatch.setattr(Database, "derived_write", counting_one)
    store_games.create_game(store, "demo", "standard", now=NOW)
    page_cache.keep_page(store, _game_id(store, "demo"), "page", "en", "v1", "<p>one</p>", NOW)
    # On PostgreSQL the kept page is a statement alone (test below); elsewhere it is sent in a derived transaction.
    assert used == (["one"] if store.engine.dialect.name == "postgresql" else ["one", "derived"])
    used.clear()
    used.append("derived")
    got = work_spent.advance_spent(store, {"person:1": 5.0}, NOW.timestamp())
    assert got == {"person:1": NOW.timestamp() + 5.0} and used == ["derived", "derived"]
    assert work_spent.full_again(store, ["person:1"]) == got  # committed, read by another connection
    assert work_spent.forget_full_shares(store, NOW.timestamp() + 10) == 1 and used.count("derived") == 3
    assert work_spent.full_again(store, ["person:1"]) == {}


@pytest.mark.parametrize("db_url", ["postgres"], indirect=True)  # SQLite's: a transaction with its pragma (above)
def test_a_kept_page_on_postgresql_is_one_round_trip_committed_unsynced(store: GameStore) -> None:
    """A worker keeps a page after every phase it processes: on PostgreSQL one statement, its own transaction, no
    BEGIN, setting or COMMIT around it, whose commit does not wait for the disk; the connection is then as it was."""
    store_games.create_game(store, "demo", "standard", now=NOW)
    game_id = _game_id(store, "demo")
    sent: list[tuple[str, bool]] = []

    def seen(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        # psycopg sends BEGIN before a statement unless its connection is in autocommit (SQLAlchemy's own "begin"
        # event fires either way).
        sent.append((statement.split()[0].upper(), conn.connection.driver_connection.autocommit))

    sa.event.listen(store.engine, "before_cursor_execute", seen)
    try:
        page_cache.keep_page(store, game_id, "page", "en", "v1", "<p>one</p>", NOW, deflated=None)
        page_cache.keep_page(store, game_id, "page", "en", "v2", "<p>two</p>", NOW, deflated=b"\x01\x02")
    finally:
        sa.event.remove(store.engine, "before_cursor_execute", seen)
    assert sent == [("INSERT", True), ("INSERT", True)]
    with store.engine.connect() as conn:
        kept = conn.execute(sa.text("SELECT version, body, deflated FROM shared_pages")).all()
        assert [(v, b, bytes(d)) for v, b, d in kept] == [("v2", "<p>two</p>", b"\x01\x02")]
    # The row the statement inserts is selected with the setting off for its transaction, and only for it.
    row = db_module.unsynced_row(sa.table("t", sa.column("x")), ("x",)).subquery()
    with store.one_read.connect() as conn:
        inside = conn.execute(sa.select(sa.func.current_setting("synchronous_commit")).select_from(row), {"x": 1})
        assert inside.scalar_one() == "off"
        assert _setting(conn) == "on"
    conns = [store.engine.connect() for _ in range(3)]
    try:
        assert [_setting(conn) for conn in conns] == ["on"] * 3
    finally:
        for conn in conns:
            conn.close()
