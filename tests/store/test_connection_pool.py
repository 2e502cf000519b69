"""How many PostgreSQL connections a process keeps (``DIPPOUCH_DB_POOL``, and the words for a wrong value), and that a
kept connection the server ended is replaced before use."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import sqlalchemy as sa

from dippouch import settings
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store.db import POOL_OVERFLOW, POOL_SIZE, DatabaseURLError, make_engine


def _pool(engine: sa.Engine) -> tuple[int, int]:
    pool = engine.pool
    assert isinstance(pool, sa.pool.QueuePool)
    return pool.size(), pool._max_overflow


@pytest.mark.parametrize("db_url", ["postgres"], indirect=True)
def test_a_postgresql_pool_keeps_the_connections_the_setting_asks_for(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _pool(make_engine(db_url)) == (POOL_SIZE, POOL_OVERFLOW)
    monkeypatch.setenv("DIPPOUCH_DB_POOL", "20")
    settings.reread()  # the setting was read by the engine above: a process reads it once
    assert _pool(make_engine(db_url)) == (20, POOL_OVERFLOW)
    monkeypatch.setenv("DIPPOUCH_DB_POOL", " 30, 0 ")
    settings.reread()
    store = GameStore(db_url)
    try:
        assert _pool(store.engine) == (30, 0)
        store_games.create_game(store, "g", "standard", now=datetime.now(UTC))  # and it works
    finally:
        store.close()


@pytest.mark.parametrize("wrong", ["many", "0", "20,10,5", "-3", "20,x", "600"])
def test_a_pool_size_that_is_not_one_is_refused_with_an_example(wrong: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DIPPOUCH_DB_POOL", wrong)
    with pytest.raises(DatabaseURLError, match=r"DIPPOUCH_DB_POOL=.* is not a pool size: .* e\.g\. 20"):
        make_engine("postgresql://dippouch@127.0.0.1:1/nothing")


@pytest.mark.parametrize("db_url", ["postgres"], indirect=True)
def test_a_kept_connection_the_server_ended_is_replaced_before_use(db_url: str) -> None:
    """A restart or fail-over of PostgreSQL ends every connection a process keeps: the next use of each must open
    a new one, not fail (a web request answered 503, an order form lost with it). Here the server ends the store's
    connections as a restart does ("terminating connection due to administrator command")."""
    store = GameStore(db_url)
    try:
        store_games.create_game(store, "before", "standard", now=datetime.now(UTC))
        name = sa.make_url(db_url).database
        admin = sa.create_engine(db_url, isolation_level="AUTOCOMMIT", poolclass=sa.pool.NullPool)
        with admin.connect() as c:
            ended = c.execute(
                sa.text(
                    "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity"
                    " WHERE datname = :db AND pid <> pg_backend_pid()"
                ),
                {"db": name},
            ).scalar_one()
        admin.dispose()
        assert ended >= 1  # the store's kept connection(s)
        store_games.create_game(store, "after", "standard", now=datetime.now(UTC))
        assert [g[0] for g in store_games.games(store)] == ["after", "before"]
    finally:
        store.close()
