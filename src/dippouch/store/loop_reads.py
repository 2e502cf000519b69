"""Reads made on a web process's event loop: the one query a visitor's game page needs (its kept page's lookup,
:func:`dippouch.store.page_cache.shared_page_on_loop`), sent from the loop and awaited there rather than handed to
a thread of the pool.

Why: at a reader's pace (a request every few tens of milliseconds) every thread woken costs CPU apart from the
work it does: the hop to a thread and back wakes the thread, then the loop again, and the thread waits on the
database's socket in between. On this two-CPU machine the lookup awaited on the loop took about 0.3 ms of CPU
off each such request at 25 a second (benchmarks/README.md, issue 57). Only PostgreSQL has such a driver here
(psycopg's asyncio connections, kept by psycopg's own pool); on SQLite the lookup stays in the thread pool.

The pool belongs to a running app: opened when the app starts on its loop and closed when it stops
(:meth:`LoopReads.open`, :meth:`LoopReads.close`). A statement sent here is the driver's own SQL, compiled once by
its caller, whose values need no conversion on the way in or out (:class:`dippouch.store.page_cache._Driver`).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import sqlalchemy as sa

from dippouch.store.db import Database, driver_settings

__all__ = ["LOOP_CONNECTIONS", "NAME", "LoopReads", "driver_connection"]

log = logging.getLogger(__name__)

LOOP_CONNECTIONS = 4
"""Connections a web process opens for reads on its loop, beside its engine's pool (docs/deployment.md counts
them in ``max_connections``): one is kept open; a burst of readers opens up to this many, then waits for one."""

NAME = "dippouch-loop-reads"
"""The pool's name, and its connections' ``application_name`` unless the database URL names one (an operator
reading ``pg_stat_activity`` tells them from the engine's)."""

_WAIT = 30.0
"""Seconds a read waits for a connection of the pool before it is refused as a busy database (as the engine's
pool waits)."""


def driver_connection(engine: sa.Engine, name: str) -> tuple[str, dict[str, Any]]:
    """The driver's connection string and settings for a connection opened beside ``engine``'s pool, from its URL:
    in autocommit (reads and notices alone: no transaction to begin or end), named ``name`` to the server
    unless the URL names one."""
    args, kwargs = engine.dialect.create_connect_args(engine.url)
    return " ".join(args), {"application_name": name, **kwargs, **driver_settings(), "autocommit": True}


class LoopReads:
    """Reads on the event loop from one PostgreSQL database (:data:`LOOP_CONNECTIONS` asyncio connections, named
    :data:`NAME` to the server), made from its engine's URL and driver settings."""

    def __init__(self, engine: sa.Engine, *, wait: float = _WAIT) -> None:
        from psycopg_pool import AsyncConnectionPool

        self.dialect = engine.dialect
        conninfo, kwargs = driver_connection(engine, NAME)
        self._pool = AsyncConnectionPool(
            conninfo,
            kwargs=kwargs,
            min_size=1,
            max_size=LOOP_CONNECTIONS,
            timeout=wait,
            open=False,
            name=NAME,
        )
        self._loop: asyncio.AbstractEventLoop | None = None

    @classmethod
    def of(cls, db: Database) -> LoopReads | None:
        """Reads on the loop from ``db``; None where its driver has none (SQLite), or where psycopg's pool is not
        installed (an installation upgraded without the ``postgres`` extra's new part: said once, and its pages
        read in the thread pool as before)."""
        if db.engine.dialect.name != "postgresql":
            return None
        try:
            return cls(db.engine)
        except ImportError:
            log.warning(
                "psycopg's pool is not installed (pip install 'dippouch[postgres]'): visitors' game pages are read "
                "in the thread pool, which costs more CPU a page"
            )
            return None

    async def open(self) -> None:
        """Open the pool on the running loop without waiting for its first connection (a database that is down
        then refuses the first read as the engine's would, rather than holding the app's start up)."""
        await self._pool.open(wait=False)
        self._loop = asyncio.get_running_loop()

    async def close(self) -> None:
        self._loop = None
        await self._pool.close()

    @property
    def usable(self) -> bool:
        """Whether a read may be sent from the running loop: the pool is open, and on this loop (an app started
        and stopped on one loop, then called from another, reads in the thread pool instead)."""
        try:
            return self._loop is not None and asyncio.get_running_loop() is self._loop
        except RuntimeError:
            return False

    async def first(self, sql: str, values: dict[str, Any], *, again: bool = True) -> Any:
        """The first row of ``sql`` with ``values`` (None: no row). A read on a connection the server dropped (a
        restart: every connection kept goes at once) is sent ``again`` once, after the pool's other connections
        are checked; a driver's error is raised as SQLAlchemy's, as the engine's execution does (the app answers
        a database that is down or busy as such)."""
        return await self._read(sql, values, every=False, again=again)

    async def rows(self, sql: str, values: dict[str, Any]) -> list[Any]:
        """Every row of ``sql`` with ``values``, as :meth:`first` reads one."""
        return list(await self._read(sql, values, every=True, again=True))

    async def _read(self, sql: str, values: dict[str, Any], *, every: bool, again: bool) -> Any:
        import psycopg

        conn: psycopg.AsyncConnection[Any] | None = None
        try:
            async with self._pool.connection() as conn:
                # Rows in the binary format: a kept page's bytes (bytea) come as they are, not as hexadecimal
                # text to decode (twice their size).
                cursor = conn.cursor(binary=True)
                await cursor.execute(sql, values)
                return await (cursor.fetchall() if every else cursor.fetchone())
        except psycopg.Error as e:
            gone = conn is not None and (conn.closed or conn.broken)  # the pool drops such a connection
            if gone and again:
                await self._pool.check()  # the others kept are likely gone too: each tried, the dead dropped
                return await self._read(sql, values, every=every, again=False)
            raise sa.exc.DBAPIError.instance(
                sql, values, e, psycopg.Error, connection_invalidated=gone, dialect=self.dialect
            ) from e
