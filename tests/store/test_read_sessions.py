"""A read session on PostgreSQL reads outside a transaction (issue 57: a worker's phase and its page made some
three read sessions, each a BEGIN and a ROLLBACK besides its reads, each a round trip on a busy machine); under
READ COMMITTED each statement sees what was committed when it began either way. A write through one is refused on
SQLite (query_only) and committed at once on PostgreSQL, so nothing may write through one: the store's code
does not."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import sqlalchemy as sa

from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store.models import GameRow

ON_POSTGRES = pytest.mark.parametrize("db_url", ["postgres"], indirect=True)
NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


@ON_POSTGRES
def test_a_read_session_sends_its_statements_outside_a_transaction(store: GameStore) -> None:
    import psycopg.pq

    store_games.create_game(store, "g", "standard", now=NOW)
    with store.read_session() as s:
        assert s.scalar(sa.select(GameRow.name)) == "g"
        raw = s.connection().connection.driver_connection
        assert raw is not None
        assert raw.info.transaction_status == psycopg.pq.TransactionStatus.IDLE  # no BEGIN was sent
        # A change committed by another connection meanwhile is seen by the session's next statement.
        with store.engine.begin() as c:
            c.execute(sa.update(GameRow).values(name="h"))
        assert s.scalar(sa.select(GameRow.name)) == "h"
    # The store's own sessions still write in transactions.
    with store.session() as s, s.begin():
        s.execute(sa.update(GameRow).values(name="i"))
        raw = s.connection().connection.driver_connection
        assert raw is not None and raw.info.transaction_status == psycopg.pq.TransactionStatus.INTRANS
    assert store.read_engine is store.engine and not store.reads_without_lock


def test_a_read_session_reads_what_is_there(store: GameStore) -> None:
    store_games.create_game(store, "g", "standard", now=NOW)
    with store.read_session() as s:
        assert s.scalars(sa.select(GameRow.name)).all() == ["g"]
        assert store.db_now(s).tzinfo is not None
