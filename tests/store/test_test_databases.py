"""The PostgreSQL databases the tests are given in turn (tests/dbsupport.py's ``PostgresPool``): a database given
back after a test is, to the next test, what a fresh copy of the template would be, or it is not given again."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from dbsupport import PostgresPool
from dippouch.store import GameStore
from dippouch.store import games as store_games


@pytest.fixture(scope="module")
def pool() -> Iterator[PostgresPool]:
    base = os.environ.get("DIPPOUCH_TEST_POSTGRES_URL")
    if not base:
        pytest.skip("no PostgreSQL server: set DIPPOUCH_TEST_POSTGRES_URL or run scripts/test")
    p = PostgresPool(sa.make_url(base))
    yield p
    p.close()


def _one(url: str, sql: str) -> object:
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as c:
            return c.execute(sa.text(sql)).scalar()
    finally:
        engine.dispose()


def _databases(pool: PostgresPool) -> set[str]:
    with pool.admin.connect() as c:
        return {str(r[0]) for r in c.execute(sa.text("SELECT datname FROM pg_database"))}


def test_a_database_given_back_is_empty_to_the_next_test_under_a_new_name(pool: PostgresPool) -> None:
    assert not pool.free
    first = pool.take()
    url = pool.url_of(first)
    fresh_version = _one(url, "SELECT version_num FROM alembic_version")
    store = GameStore(url)
    for name in ("one", "two"):
        store_games.create_game(store, name, "standard", now=store.clock())
    store.close()
    held = sa.create_engine(url, poolclass=sa.pool.NullPool).connect()  # a session the test left open
    held.execute(sa.text("SELECT 1"))
    pool.give(first)
    assert len(pool.free) == 1  # given again, not dropped

    again = pool.take()
    assert again != first and first not in _databases(pool)
    url = pool.url_of(again)
    assert _one(url, "SELECT count(*) FROM games") == 0
    assert _one(url, "SELECT version_num FROM alembic_version") == fresh_version
    assert _one(url, "SELECT count(*) FROM rating_state") == 1  # a row the migrations made, put back
    store = GameStore(url)
    store_games.create_game(store, "three", "standard", now=store.clock())
    store.close()
    assert _one(url, "SELECT id FROM games WHERE name = 'three'") == 1  # its sequence started again
    pool.give(again)


def test_a_database_whose_schema_a_test_changed_is_not_given_again(pool: PostgresPool) -> None:
    name = pool.take()
    engine = sa.create_engine(pool.url_of(name), poolclass=sa.pool.NullPool)
    with engine.begin() as c:
        c.execute(sa.text("ALTER TABLE games ADD COLUMN left_behind integer"))
    engine.dispose()
    free = list(pool.free)
    pool.give(name)
    assert pool.free == free
    assert name not in _databases(pool)
    again = pool.take()
    assert (
        _one(pool.url_of(again), "SELECT count(*) FROM information_schema.columns WHERE column_name = 'left_behind'")
        == 0
    )
    pool.give(again)
