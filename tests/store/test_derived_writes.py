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

    def counting(self: Database) -> Any:
        used.append("derived")
        return real(self)

    monkeypatch.setattr(Database, "derived_writes", counting)
    store_games.create_game(store, "demo", "standard", now=NOW)
    page_cache.keep_page(store, _game_id(store, "demo"), "page", "en", "v1", "<p>one</p>", NOW)
    assert used == ["derived"]
    got = work_spent.advance_spent(store, {"person:1": 5.0}, NOW.timestamp())
    assert got == {"person:1": NOW.timestamp() + 5.0} and used == ["derived", "derived"]
    assert work_spent.full_again(store, ["person:1"]) == got  # committed, read by another connection
    assert work_spent.forget_full_shares(store, NOW.timestamp() + 10) == 1 and used.count("derived") == 3
    assert work_spent.full_again(store, ["person:1"]) == {}
