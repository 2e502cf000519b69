"""dippouch behind PgBouncer in transaction mode, the pooler docs/deployment.md advises beyond a few processes: a real
PgBouncer (Debian's, 1.18) started by the test in front of the PostgreSQL test server.

In transaction mode a client connection's next transaction may run in another server session. Two things of one
session then break: the statements psycopg prepares on a query's fifth run in one connection ("prepared statement
does not exist" in the next session), so ``DIPPOUCH_DB_POOLER=transaction`` has psycopg prepare none; and a session's
advisory lock, which the practice games' caps took and released in two transactions (the release ran in another
session and the lock stayed with a session every other client is handed in turn), so the caps' lock is now held in
one open transaction."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import subprocess
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa

from dippouch import settings
from dippouch.core.errors import DippouchError
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store.bots import practice_slot
from dippouch.store.db import DatabaseURLError, make_engine
from dippouch.store.loop_reads import LoopReads, driver_connection
from dippouch.store.page_notices import PageNotices
from mailservers import free_port, need
from workersupport import wait_until

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
ON_POSTGRES = pytest.mark.parametrize("db_url", ["postgres"], indirect=True)


@pytest.fixture
def bouncer(db_url: str, tmp_path: Path) -> Iterator[str]:
    """The URL of the test's PostgreSQL database through a PgBouncer in transaction mode of its own."""
    binary = need("pgbouncer", "PgBouncer", "scripts/postgres")
    direct = sa.make_url(db_url)
    port = free_port()
    (tmp_path / "users.txt").write_text(f'"{direct.username}" ""\n')
    (tmp_path / "pgbouncer.ini").write_text(
        "[databases]\n"
        f"* = host={direct.host} port={direct.port}\n"
        "[pgbouncer]\n"
        f"listen_addr = 127.0.0.1\nlisten_port = {port}\nunix_socket_dir =\n"
        f"auth_type = trust\nauth_file = {tmp_path / 'users.txt'}\n"
        "pool_mode = transaction\ndefault_pool_size = 10\nmax_client_conn = 200\n"
        "logfile =\npidfile =\n"
    )
    # PgBouncer will not run as root: it reads its files, then becomes nobody.
    user = ["-u", "nobody"] if os.geteuid() == 0 else []
    proc = subprocess.Popen(
        [binary, *user, str(tmp_path / "pgbouncer.ini")], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )

    def listening() -> bool:
        if proc.poll() is not None:
            raise RuntimeError(f"PgBouncer did not start: {proc.communicate(timeout=5)[1]!r}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
        except OSError:
            return False
        return True

    try:
        wait_until("PgBouncer to listen", listening, timeout=10, every=0.02)
        yield direct.set(port=port).render_as_string(hide_password=False)
    finally:
        proc.terminate()
        proc.wait(10)


def _interleaved(engine: sa.Engine, rounds: int = 12) -> str | None:
    """Two of ``engine``'s connections in transactions that overlap, round after round (PgBouncer hands each the
    session the other just left: it reuses the last released first, as between busy processes' requests); what
    went wrong (None: nothing)."""
    with engine.connect() as a, engine.connect() as b:
        for i in range(rounds):
            try:
                ta, tb = a.begin(), b.begin()
                got = (
                    a.execute(sa.text("SELECT CAST(:i AS integer) + 1"), {"i": i}).scalar_one(),
                    b.execute(sa.text("SELECT CAST(:i AS integer) + 2"), {"i": i}).scalar_one(),
                )
                ta.commit()
                tb.commit()
            except sa.exc.DBAPIError as e:
                return f"round {i}: {e.orig}"
            if got != (i + 1, i + 2):
                return f"round {i}: {got}, not {(i + 1, i + 2)}"
    return None


def _pooler(monkeypatch: pytest.MonkeyPatch, value: str | None) -> None:
    if value is None:
        monkeypatch.delenv("DIPPOUCH_DB_POOLER", raising=False)
    else:
        monkeypatch.setenv("DIPPOUCH_DB_POOLER", value)
    settings.reread()


@ON_POSTGRES
def test_without_the_setting_psycopg_s_prepared_statements_are_lost_between_sessions(
    bouncer: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Why the setting exists: psycopg's default, through the pooler, fails within a dozen transactions, and may
    answer one query with another's result."""
    _pooler(monkeypatch, None)
    engine = make_engine(bouncer)
    try:
        wrong = _interleaved(engine)
        # An error, or worse, the other query's answer: its statement prepared under the same name in that session.
        assert wrong is not None
        assert "prepared statement" in wrong or ", not (" in wrong
    finally:
        engine.dispose()


@ON_POSTGRES
def test_with_the_setting_the_store_and_the_loop_s_reads_work_through_the_pooler(
    bouncer: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _pooler(monkeypatch, "transaction")
    engine = make_engine(bouncer)
    try:
        assert _interleaved(engine, rounds=20) is None
    finally:
        engine.dispose()
    store = GameStore(bouncer)
    try:
        errors: list[BaseException] = []

        def play(k: int) -> None:
            try:
                for i in range(8):
                    store_games.create_game(store, f"g{k}-{i}", "standard", now=T0)
                    assert [g[0] for g in store_games.games(store)].count(f"g{k}-{i}") == 1
            except BaseException as e:  # handed to the test's thread, asserted below
                errors.append(e)

        threads = [threading.Thread(target=play, args=(k,)) for k in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        assert len(store_games.games(store)) == 48

        assert driver_connection(store.engine, "reads")[1]["prepare_threshold"] is None

        async def read() -> list[int]:
            reads = LoopReads(store.engine, wait=5)
            await reads.open()
            try:
                rounds = [
                    await asyncio.gather(*(reads.first("SELECT count(*) FROM games", {}) for _ in range(4)))
                    for _ in range(8)
                ]
                return [row[0] for batch in rounds for row in batch]
            finally:
                await reads.close()

        assert set(asyncio.run(read())) == {48}
    finally:
        store.close()


@ON_POSTGRES
def test_the_practice_games_lock_takes_turns_through_the_pooler(bouncer: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two processes' stores (two engines, so the lock within a process does not decide): the second waits
    for the first to leave, and takes it as soon as it has."""
    _pooler(monkeypatch, "transaction")
    first, second = GameStore(bouncer), GameStore(bouncer)
    try:
        inside = threading.Event()
        leave = threading.Event()
        order: list[str] = []

        def hold() -> None:
            with practice_slot(first):
                order.append("first in")
                inside.set()
                leave.wait(10)
                # Other transactions of the store meanwhile: the pooler hands their sessions round.
                store_games.create_game(first, "held", "standard", now=T0)
                order.append("first out")

        holder = threading.Thread(target=hold)
        holder.start()
        assert inside.wait(10)
        for i in range(6):  # sessions handed round while the first holds the lock
            store_games.create_game(second, f"meanwhile-{i}", "standard", now=T0)

        def take() -> None:
            with practice_slot(second):
                order.append("second in")

        taker = threading.Thread(target=take)
        taker.start()
        taker.join(0.5)
        assert order == ["first in"], "the second store took the lock while the first held it"
        leave.set()
        holder.join(10)
        taker.join(10)
        assert order == ["first in", "first out", "second in"]
    finally:
        first.close()
        second.close()


@pytest.mark.parametrize("wrong", ["statement", "pgbouncer", "yes"])
def test_a_pooling_mode_that_is_not_one_is_refused_with_both_modes_named(
    wrong: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIPPOUCH_DB_POOLER", wrong)
    settings.reread()
    with pytest.raises(
        DatabaseURLError,
        match=r"DIPPOUCH_DB_POOLER='.*' is not a pooling mode: transaction .* or session .*; e\.g\. DIPPOUCH_DB_POOLER=transaction",
    ):
        make_engine("postgresql://dippouch@127.0.0.1:1/nothing")
    with pytest.raises(DippouchError, match="is not a pooling mode"):
        print(settings.current().db_pooler)


def test_the_modes_are_read_in_any_case_and_session_is_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    for raw, read in ((None, "session"), (" Transaction ", "transaction"), ("session", "session"), ("", "session")):
        _pooler(monkeypatch, raw)
        assert settings.current().db_pooler == read


@ON_POSTGRES
def test_the_page_notices_never_claim_to_listen_through_the_pooler_and_say_so_once(
    bouncer: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The pooler keeps no session's LISTEN: the listener's pings never come back to it, so it never says it
    listens (every page is confirmed by a query), and its log says why once, not at each try. With the setting
    a web process does not try at all."""
    _pooler(monkeypatch, "transaction")
    store = GameStore(bouncer)
    assert PageNotices.of(store, lambda n: None, lambda on: None) is None
    _pooler(monkeypatch, None)  # a pooler the setting does not name: found out by the pings
    said: list[bool] = []

    async def run() -> None:
        notices = PageNotices(store.engine, lambda n: None, said.append, retry=0.2, ping_every=0.3)
        notices.start()
        try:
            await asyncio.sleep(2.5)  # some five tries
        finally:
            await notices.stop()

    try:
        with caplog.at_level(logging.WARNING, logger="dippouch.store.page_notices"):
            asyncio.run(run())
    finally:
        store.close()
    assert True not in said and said.count(False) >= 3
    warned = [r.getMessage() for r in caplog.records if "not listening for changed games" in r.getMessage()]
    assert len(warned) == 1 and "ping not heard back" in warned[0], warned
