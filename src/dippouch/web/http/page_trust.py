"""Whether a visitor's game page this process holds is still the game's: true while the process has listened
for changed games without a break since the page's state was read, has heard of no change to that game since,
and the page's deadline has not passed (the page says when it has). Such a page is served without asking the
database; any other is confirmed by a query once :data:`dippouch.web.http.service.PAGE_TTL` has passed, as on
SQLite, where nothing is heard (:mod:`dippouch.store.page_notices`).

A page's warrant (:meth:`PageTrust.warrant`) is taken before its state's query is sent: a change committed after
that is heard after it, and voids the warrant whichever state the query saw. The pages kept anew of games this
process holds are read in as they are heard (:meth:`PageTrust.heard`), those heard together in one query, before
their first readers ask. Everything here runs on the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime

from dippouch.store.page_notices import PageNotice

__all__ = ["PageTrust", "Warrant"]

log = logging.getLogger(__name__)

Warrant = tuple[int, int]
"""(the listening's count, the changes heard of the game): :meth:`PageTrust.warrant`."""

BATCH = 200
"""Pages read in one query at most."""

_MOST = 100_000
"""Games whose changes are counted; past it the counts are forgotten (every warrant then void)."""


class PageTrust:
    """One web process's: what it has heard, and the pages it is to read in."""

    def __init__(self) -> None:
        self.listening = False
        self._listened = 0
        """Bumped each time listening starts or stops: a warrant of another listening is void."""
        self._changes: dict[str, int] = {}
        self.read_in: Callable[[list[str], str], Awaitable[None]] | None = None
        """Reads games' pages kept anew into this process's memory (names, language), in one query: the game
        page route's."""
        self._wanted: dict[tuple[str, str], None] = {}
        self._woken: asyncio.Event | None = None
        self._reader: asyncio.Task[None] | None = None

    # Told by the listener (dippouch.store.page_notices.PageNotices).

    def heard(self, notice: PageNotice) -> None:
        if notice.kept is None:
            if len(self._changes) > _MOST:
                self.set_listening(self.listening)
            self._changes[notice.game] = self._changes.get(notice.game, 0) + 1
            return
        kind, lang = notice.kept
        if kind == "page" and self.read_in is not None and self._woken is not None:
            self._wanted[(notice.game, lang)] = None
            self._woken.set()

    def set_listening(self, on: bool) -> None:
        self.listening = on
        self._listened += 1
        self._changes.clear()

    # Asked by the pages.

    def warrant(self, name: str) -> Warrant | None:
        """Taken before a query of the game's state is sent; None while nothing is heard."""
        if not self.listening:
            return None
        return self._listened, self._changes.get(name, 0)

    def holds(self, name: str, warrant: Warrant | None, deadline: datetime | None, now: datetime) -> bool:
        """Whether the page of ``name`` read under ``warrant`` (its phase's ``deadline``) is still the game's at
        ``now``."""
        if warrant is None or not self.listening:
            return False
        listened, changes = warrant
        return (
            listened == self._listened
            and self._changes.get(name, 0) == changes
            and (deadline is None or now < deadline)
        )

    # The reader of pages kept anew: one at a time, so that it never holds more than one of the loop's
    # connections, which the visitors' own lookups share.

    def start(self) -> None:
        self._woken = asyncio.Event()
        self._reader = asyncio.get_running_loop().create_task(self._read_wanted(), name="dippouch pages read in")

    async def stop(self) -> None:
        task, self._reader = self._reader, None
        self._woken = None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _read_wanted(self) -> None:
        woken = self._woken
        assert woken is not None
        while True:
            await woken.wait()
            # The notices are read in runs (dippouch.store.page_notices.LOOK_EVERY): the pages of a run read
            # together, one query and one wake-up of the loop for the lot. Read one at a time they cost more than
            # their readers saved.
            woken.clear()
            wanted, self._wanted = self._wanted, {}
            by_lang: dict[str, list[str]] = {}
            for name, lang in wanted:
                by_lang.setdefault(lang, []).append(name)
            for lang, names in by_lang.items():
                for at in range(0, len(names), BATCH):
                    if self.read_in is None:
                        return
                    try:
                        await self.read_in(names[at : at + BATCH], lang)
                    except asyncio.CancelledError:
                        raise
                    except Exception:  # a busy database: their first readers read them as before
                        log.debug("pages not read in: %s", names[at : at + BATCH], exc_info=True)
