"""The listener of changed games (dippouch.store.page_notices) on a real PostgreSQL server: it says it listens
only once its first ping comes back, hands on what the triggers announce, and stops listening (saying so) when a
ping is not heard back, as behind a pooler that keeps no session's LISTEN."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import sqlalchemy as sa

from dippouch.store import GameStore
from dippouch.store.loop_reads import driver_connection
from dippouch.store.page_notices import CHANNEL, PageNotice, PageNotices

ON_POSTGRES = pytest.mark.parametrize("db_url", ["postgres"], indirect=True)


@ON_POSTGRES
def test_it_listens_once_a_ping_comes_back_and_hands_on_what_it_hears(db_url: str) -> None:
    store = GameStore(db_url)
    heard: list[PageNotice] = []
    said: list[bool] = []

    async def run() -> None:
        notices = PageNotices(store.engine, heard.append, said.append, ping_every=0.5)
        notices.start()
        try:
            for _ in range(200):
                if said:
                    break
                await asyncio.sleep(0.01)
            assert said == [True]
            with store.engine.begin() as conn:
                for payload in ("g seven", "k page de seven", "something else", "p 1234 1"):
                    conn.execute(sa.text("SELECT pg_notify(:c, :p)"), {"c": CHANNEL, "p": payload})
            for _ in range(200):
                if len(heard) == 2:
                    break
                await asyncio.sleep(0.01)
            await asyncio.sleep(1.2)  # two more pings each way: still listening
        finally:
            await notices.stop()

    try:
        asyncio.run(run())
    finally:
        store.close()
    assert heard == [PageNotice("seven"), PageNotice("seven", ("page", "de"))]
    assert said == [True, False]  # and no more: stopped with the app


class _Dropped:
    """A ping sender whose pings never reach the server (a pooler's other session)."""

    async def execute(self, *args: Any) -> None:
        return None


@ON_POSTGRES
def test_a_listener_whose_pings_are_not_heard_back_stops(db_url: str) -> None:
    import psycopg

    store = GameStore(db_url)
    conninfo, kwargs = driver_connection(store.engine, "dippouch-tests")
    said: list[str] = []

    async def run() -> None:
        notices = PageNotices(store.engine, lambda n: None, lambda on: None, ping_every=0.3)
        async with await psycopg.AsyncConnection.connect(conninfo, **kwargs) as conn:
            await conn.execute(f"LISTEN {CHANNEL}")
            with pytest.raises(RuntimeError, match="ping not heard back"):
                await notices._listen(conn, _Dropped(), lambda: said.append("listening"))

    try:
        asyncio.run(run())
    finally:
        store.close()
    assert said == []
