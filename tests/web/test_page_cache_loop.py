"""A visitor's game page read on the event loop (dippouch.store.loop_reads, issue 57): on PostgreSQL a running app
sends the kept page's lookup from its loop and serves what was kept there, no thread of the pool taken; what it
serves is what the thread's way serves (the page, a 304, a 404 for a private game or none); a page past its
deadline in a game with mail held for the coordinator, which must ask what the phase waits for, and a page not
kept yet go on to a thread. A connection the
server dropped is replaced for the read in hand; a database that cannot be reached is answered as busy; the
pool's connections close with the app. On SQLite, which has no such driver, the page is read in a thread as
before."""

from __future__ import annotations

import asyncio
import logging
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.concurrency import run_in_threadpool
from fastapi.testclient import TestClient

from dippouch.store import loop_reads
from dippouch.store.access import AccessStore
from dippouch.web.app import create_app
from dippouch.web.routes import games as game_routes
from dippouch.web.views import games as game_views
from websupport import TEST_SITE, TwoProcesses, without_token


class Pair(TwoProcesses):
    """The first process makes the page; the second, started as a server starts it (its lifespan run: the loop's
    reads opened), reads it back."""

    def running(self) -> TestClient:
        """A browser of the second process, used as ``with pair.running() as c``: the app runs meanwhile."""
        return TestClient(self.b_app, raise_server_exceptions=False)

    def c_browser(self) -> TestClient:
        """A browser of a third process, never started: its lookups in a thread of the pool, as before."""
        return self.signed_in(create_app(self.url, clock=self.a.clock, limits={}, site=TEST_SITE), None)

    def loop_connections(self) -> int:
        with self.other.engine.connect() as c:
            sql = (
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = :name AND datname = current_database()"
            )
            return int(c.execute(sa.text(sql), {"name": loop_reads.NAME}).scalar_one())


@pytest.fixture
def pair(db_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Pair]:
    # Every request asks the database (none served from this process's memory before it has looked).
    monkeypatch.setattr(game_routes, "PAGE_TTL", 0.0)
    p = Pair(db_url)
    yield p
    p.close()


class Threads:
    """The game page's hops to a thread of the pool, counted; with ``refused``, each one fails the test."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, *, refused: bool) -> None:
        self.calls: list[str] = []

        async def counted(fn: Any, *args: Any, **kwargs: Any) -> Any:
            self.calls.append(fn.__name__)
            if refused:
                raise AssertionError(f"a thread of the pool taken for {fn.__name__}")
            return await run_in_threadpool(fn, *args, **kwargs)

        monkeypatch.setattr(game_routes, "run_in_threadpool", counted)


def _on_postgres(pair: Pair) -> bool:
    return pair.url.startswith("postgresql")


def _thread_served(pair: Pair, path: str = "/games/g") -> bytes:
    """The page as a process whose app was never started serves it: its lookup in a thread, as before."""
    r = pair.c_browser().get(path)
    assert r.status_code == 200
    return without_token(r.content)


def test_a_kept_page_is_served_on_the_loop_as_a_thread_serves_it(pair: Pair, monkeypatch: pytest.MonkeyPatch) -> None:
    made = pair.a.browser().get("/games/g")
    assert made.status_code == 200 and ">Spring 1901 Movement<" in made.text
    expected = _thread_served(pair)
    postgres = _on_postgres(pair)
    threads = Threads(monkeypatch, refused=postgres)
    with pair.running() as c:
        reads = pair.b_app.state.web.loop_reads
        assert (reads is not None) == postgres
        r = c.get("/games/g")
        assert r.status_code == 200, r.text
        assert without_token(r.content) == expected
        # Asked again with its ETag: 304, on the loop too.
        again = c.get("/games/g", headers={"If-None-Match": r.headers["etag"]})
        assert again.status_code == 304 and again.content == b""
        if postgres:
            assert pair.loop_connections() >= 1
    assert threads.calls == ([] if postgres else ["_anonymous_page", "_anonymous_page"])
    assert pair.b_app.state.web.loop_reads is None  # closed with the app
    if postgres:
        assert reads is not None and not reads.usable
        _until(lambda: pair.loop_connections() == 0)


def test_a_page_past_its_deadline_goes_on_to_a_thread_only_where_its_mail_may_hold_it(
    pair: Pair, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past its deadline a phase waits for processing, which the lookup tells, or, where the game has mail held
    for the coordinator, maybe for the coordinator's review, which a query in a thread reads."""
    asked: list[str] = []
    waits_for = game_views.waits_for

    def counted(web: Any, name: str) -> str:
        asked.append(name)
        return waits_for(web, name)

    monkeypatch.setattr(game_views, "waits_for", counted)
    pair.a.browser().get("/games/g")
    pair.past_deadline()
    expected = _thread_served(pair)
    assert b"is waiting to be processed" in expected
    postgres = _on_postgres(pair)
    threads = Threads(monkeypatch, refused=postgres)
    with pair.running() as c:
        r = c.get("/games/g")
        assert r.status_code == 200 and without_token(r.content) == expected
    assert threads.calls == ([] if postgres else ["_anonymous_page"])
    assert asked == []
    pair.held_mail()
    threads = Threads(monkeypatch, refused=False)
    expected = _thread_served(pair)
    assert b"Awaiting the coordinator" in expected and asked == ["g"]
    threads.calls.clear()
    with pair.running() as c:
        r = c.get("/games/g")
        assert r.status_code == 200 and without_token(r.content) == expected
    assert threads.calls == ["_anonymous_page"] and asked == ["g", "g"]


def test_a_page_not_kept_goes_on_to_a_thread(pair: Pair, monkeypatch: pytest.MonkeyPatch) -> None:
    """A game whose page nobody has made: made in a thread, on either database."""
    pair.a.new_game("fresh", movement="2d")
    threads = Threads(monkeypatch, refused=False)
    with pair.running() as c:
        r = c.get("/games/fresh")
        assert r.status_code == 200 and ">Spring 1901 Movement<" in r.text
    assert threads.calls == ["_anonymous_page"]


def test_a_private_game_and_no_game_are_not_found_on_the_loop(pair: Pair, monkeypatch: pytest.MonkeyPatch) -> None:
    pair.a.browser().get("/games/g")
    AccessStore(pair.other).set_visibility("g", "private")
    postgres = _on_postgres(pair)
    threads = Threads(monkeypatch, refused=postgres)
    with pair.running() as c:
        for path in ("/games/g", "/games/nothing-here"):
            r = c.get(path)
            assert r.status_code == 404, path
            assert "no game" in r.text.lower(), r.text
    assert len(threads.calls) == (0 if postgres else 2)


@pytest.mark.parametrize("db_url", ["postgres"], indirect=True)  # the loop's reads are PostgreSQL's
def test_a_connection_the_server_dropped_is_replaced_for_the_read_in_hand(
    pair: Pair, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A restart drops every connection the pool keeps (often two here: the first read, arriving before the
    pool's first connection, has it open another)."""
    pair.a.browser().get("/games/g")
    expected = _thread_served(pair)
    Threads(monkeypatch, refused=True)
    with pair.running() as c:
        assert c.get("/games/g").status_code == 200
        with pair.other.engine.connect() as conn:
            sql = (  # this test's database's alone, not another test's running beside it
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = :name "
                "AND datname = current_database()"
            )
            assert conn.execute(sa.text(sql), {"name": loop_reads.NAME}).scalar_one() >= 1
        r = c.get("/games/g")
        assert r.status_code == 200, r.text
        assert without_token(r.content) == expected


def test_a_database_that_cannot_be_reached_is_refused_as_sqlalchemy_s_error() -> None:
    """As the engine's own execution raises it, which the app answers 503 (the database busy or unavailable)."""
    engine = sa.create_engine("postgresql+psycopg://nobody@127.0.0.1:1/nothing")

    async def read() -> None:
        reads = loop_reads.LoopReads(engine, wait=0.5)
        await reads.open()
        try:
            assert reads.usable
            await reads.first("SELECT 1", {})
        finally:
            await reads.close()
        assert not reads.usable

    with pytest.raises(sa.exc.OperationalError):
        asyncio.run(read())


def _until(done: Any, seconds: float = 10.0) -> None:
    end = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < end, "not within the time given"
        time.sleep(0.05)


@pytest.mark.parametrize("db_url", ["postgres"], indirect=True)
def test_without_psycopg_s_pool_the_page_is_read_in_a_thread_and_that_is_said(
    pair: Pair, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """An installation upgraded without the ``postgres`` extra's pool still serves its pages, the old way."""
    monkeypatch.setitem(sys.modules, "psycopg_pool", None)  # importing it raises ImportError
    pair.a.browser().get("/games/g")
    expected = _thread_served(pair)
    threads = Threads(monkeypatch, refused=False)
    with caplog.at_level(logging.WARNING, logger="dippouch.store.loop_reads"), pair.running() as c:
        assert pair.b_app.state.web.loop_reads is None
        r = c.get("/games/g")
        assert r.status_code == 200 and without_token(r.content) == expected
    assert threads.calls == ["_anonymous_page"]
    assert "pip install 'dippouch[postgres]'" in caplog.text
