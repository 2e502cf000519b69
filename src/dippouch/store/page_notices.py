"""Notices of changed games, heard from PostgreSQL: every change to what a game's kept pages are versioned by,
and every page kept, is announced on :data:`CHANNEL` when it commits (the triggers of migration 0036), and a
web process listens on one connection of its own (:class:`PageNotices`).

Why: a visitor's game page is kept in each web process's memory, and was confirmed against the game's state
with a query once :data:`dippouch.web.http.service.PAGE_TTL` had passed. At a thousand games read in turn nearly
every request was such a query: the lookup and its two wake-ups of the loop were most of a page's CPU. Told of
every change, a process may serve what it holds until it hears the game changed (and read a page kept anew
before anyone asks for it). Whoever listens must also hear when listening stops: a notice sent while the
connection is down is lost, so nothing held may be taken as current from then until it listens again.

SQLite has no such channel: its one web process confirms against the database as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from dippouch import settings
from dippouch.store.db import Database
from dippouch.store.loop_reads import driver_connection

__all__ = ["CHANNEL", "PageNotice", "PageNotices", "notice_of"]

log = logging.getLogger(__name__)

CHANNEL = "dippouch_pages"
"""The channel the triggers announce on (migration 0036)."""

RETRY = 1.0
"""Seconds between two tries to listen again after the connection was lost or refused."""

LOOK_EVERY = 0.25
"""Seconds between two reads of what has been heard: a page held is served at most this long after its game
changed (a page confirmed by a query was served up to a second after)."""

PING_EVERY = 5.0
"""Seconds between two pings (:meth:`PageNotices._listen`): nothing is heard unnoticed for longer than twice
this."""


@dataclass(frozen=True)
class PageNotice:
    """What one notice says: the game (its name) changed, or a page of it was kept (``kept``: its kind and
    language)."""

    game: str
    kept: tuple[str, str] | None = None


def notice_of(payload: str) -> PageNotice | None:
    """The notice a trigger sent (``g <game>``, or ``k <kind> <language> <game>``: the name last, whatever it
    holds); None for anything else (a notice another program sent on the channel is not ours to act on)."""
    if payload.startswith("g ") and len(payload) > 2:
        return PageNotice(payload[2:])
    if payload.startswith("k "):
        parts = payload.split(" ", 3)
        if len(parts) == 4 and parts[1] and parts[2] and parts[3]:
            return PageNotice(parts[3], (parts[1], parts[2]))
    return None


class PageNotices:
    """One web process's listening connection, kept open on its event loop: each notice heard is handed to
    ``heard``, and ``listening`` is told True once it hears (its first ping back) and False the moment it stops
    (the connection lost, a ping not heard back, the app stopping); it listens again every :data:`RETRY` seconds
    until it can. A second connection sends the pings."""

    def __init__(
        self,
        engine: sa.Engine,
        heard: Callable[[PageNotice], None],
        listening: Callable[[bool], None],
        *,
        retry: float = RETRY,
        ping_every: float = PING_EVERY,
        look_every: float = LOOK_EVERY,
    ) -> None:
        self._conninfo, self._kwargs = driver_connection(engine, "dippouch-page-notices")
        self._heard = heard
        self._listening = listening
        self._retry = retry
        self._ping_every = ping_every
        self._look_every = look_every
        self._task: asyncio.Task[None] | None = None

    @classmethod
    def of(
        cls, db: Database, heard: Callable[[PageNotice], None], listening: Callable[[bool], None]
    ) -> PageNotices | None:
        """Notices of ``db``; None where it has none (SQLite), or where they cannot come through
        (``DIPPOUCH_DB_POOLER=transaction``: the pooler keeps no session's LISTEN, and trying again every few
        seconds would only open connections to find it out again)."""
        if db.engine.dialect.name != "postgresql":
            return None
        if settings.current().db_pooler == "transaction":
            log.info(
                "not listening for changed games behind a pooler in transaction mode: pages are confirmed by a query"
            )
            return None
        return cls(db.engine, heard, listening)

    def start(self) -> None:
        """Listen from now on, on the running loop."""
        self._task = asyncio.get_running_loop().create_task(self._run(), name="dippouch page notices")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self) -> None:
        import psycopg

        said = False
        while True:
            try:
                async with (
                    await psycopg.AsyncConnection.connect(self._conninfo, **self._kwargs) as conn,
                    await psycopg.AsyncConnection.connect(self._conninfo, **self._kwargs) as pinger,
                ):
                    await conn.execute(f"LISTEN {CHANNEL}")
                    try:
                        await self._listen(conn, pinger, lambda: self._listening(True))
                    finally:
                        self._listening(False)
            except asyncio.CancelledError:
                raise
            except Exception as e:  # the server gone, restarting or refusing: confirmed by queries meanwhile
                if not said:
                    log.warning("not listening for changed games (%s): pages are confirmed by a query", e)
                    said = True
            else:
                said = False
            await asyncio.sleep(self._retry)

    async def _listen(self, conn: Any, pinger: Any, listening: Callable[[], None]) -> None:
        """Hear notices on ``conn`` until its pings stop coming back. What has come is read every
        :data:`LOOK_EVERY` seconds, all at once: woken for each notice as it came (a hundred a second at a thousand
        games), the loop spent more waking than the pages it spared. A ping, sent on another connection every
        :data:`PING_EVERY` seconds, must be heard before the next is sent; ``listening`` is called when the first
        is. A connection that no longer hears (a pooler between, such as PgBouncer in transaction mode, which
        keeps no session's LISTEN; a network that drops it unseen) is then left within two pings."""
        loop = asyncio.get_running_loop()
        mine = f"p {secrets.token_hex(8)} "
        sent = 0
        while True:
            sent += 1
            heard = False
            await pinger.execute("SELECT pg_notify(%s, %s)", (CHANNEL, f"{mine}{sent}"))
            end = loop.time() + self._ping_every
            while loop.time() < end:
                await asyncio.sleep(self._look_every)
                async for got in conn.notifies(timeout=0):  # what has come, without waiting
                    if got.payload.startswith(mine):
                        if got.payload == f"{mine}{sent}" and not heard:
                            heard = True
                            if sent == 1:
                                listening()
                        continue
                    notice = notice_of(got.payload)
                    if notice is not None:
                        self._heard(notice)
            if not heard:
                raise RuntimeError(f"a ping not heard back within {self._ping_every:g} s")
