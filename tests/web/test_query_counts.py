"""The SQL statements each kind of page costs, counted on the engine (every statement the database is sent,
transactions' BEGIN included) and held to the number recorded here: a change that makes a page ask more fails
this test, and whoever makes it either cuts the repeat or records the new number with the reason.

The game page is made once per state of the game and shared (dippouch.web.views.page_cache): read back, a visitor's
page costs the state's one query; from this process's memory, none; a browser that has it gets 304 for the
same one query."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from dippouch.store import processing as store_processing
from dippouch.web.app import create_app
from websupport import TEST_SITE, Site

RECORDED = {
    "game page, made": 11,
    "game page, read back by another process": 2,
    "game page, from memory": 0,
    "game page, 304": 2,
    "game page signed in, made": 14,
    "game page signed in, read back": 12,
    "game page signed in, 304": 12,
    "player page": 27,
    "phase page": 4,
    "game JSON": 2,
    "game JSON, 304": 2,
    "calendar": 16,
    "calendar, 304": 2,
    "map": 4,
    "map, 304": 2,
    "home": 2,
    "game page, made after processing": 12,
}
"""Statements per request, as measured when recorded (SQLite; BEGIN counted; a signed-in reader's include the
session's lookup (3), the game page's the practice visit's check (4) and whether names are hidden (2)). The player
page was 39 before its shared part (dippouch.web.views.player_page.shared_part: the game's view, turns, proposals and
seats read back in the state's one query) and before its press panel stopped asking for the open phase again.
The game page made after processing was 34 at commit 5cfa9607, before its last report was made once, in the reader's
language, of the phase's versions read in one query (it was made twice, each reading the phase's whole record), and
before the page's reads of its absences were cut (commit 16b50ff5); 17 until the page read its status, phases,
seats, absences, unsealings and the last phase's versions in one transaction
(dippouch.store.web_queries.game_page_reads) and whether names are hidden from the view it made, which also took
the game page made from 15 (measured at commit a86593ae; 31 was recorded before) to 6, the signed-in page made from
17 to 15, the phase page and the game's JSON from 6 to 4 and the map from 8 to 6; the calendar, 9 at a86593ae,
had 20 recorded. The shared page's lookup reads the game's change marker with the state (session of 2026-11-27),
which every other room of the request then takes rather than asking again: the game page made 6 -> 4 (signed in
15 -> 12, read back and 304 11 -> 10), the player page 28 -> 27, the game's JSON 4 -> 2, the calendar 9 -> 7, the
map 6 -> 4. Until 2026-11-30 the count missed the statements of the reads that take no lock, which on a SQLite
file go through an engine of their own (GameStore.read_engine): counted, the game page made was 15 and made after
processing 16 (4 recorded), the signed-in page 14 made and 12 read back or 304 (12 and 10 recorded), the calendar 16
(7 recorded). The game page then read whether the game has any draw proposal, unsealing, absence policy or use of
one with its row (most games have none; each was a statement of its own): made 15 -> 11, after processing 16 -> 12."""


class Counter:
    """Counts the statements of one request. Before each, every app forgets the game's change marker it trusts
    for a second (as a busy site's processes mostly have), so a count does not hang on the machine's speed."""

    def __init__(self, *apps: Any) -> None:
        self.statements: list[str] = []
        self.webs = [app.state.web for app in apps]
        for app in apps:
            web = app.state.web
            # The reads that take no lock go through an engine of their own on a SQLite file (read_engine).
            for engine in {web.store.engine, web.read.engine, web.store.read_engine, web.read.read_engine}:
                sa.event.listen(engine, "before_cursor_execute", self._seen)

    def _seen(self, _conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        self.statements.append(statement)

    def get(self, c: TestClient, url: str, status: int = 200, **kw: Any) -> tuple[int, Any]:
        for web in self.webs:
            web.touched("g", structural=False)
        self.statements.clear()
        r = c.get(url, **kw)
        assert r.status_code == status, (url, r.status_code, r.text[:500])
        return len(self.statements), r


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    s = Site(f"sqlite:///{tmp_path / 'web.db'}", limits={})
    s.new_game("g")
    yield s


def test_each_page_kind_asks_no_more_than_recorded(site: Site, tmp_path: Path) -> None:
    france = site.player("g", "France", "Fay")
    assert site.post_form(france, "/games/g/play/France/orders", {"orders": "A par - bur"}).status_code == 303
    other_app = create_app(f"sqlite:///{tmp_path / 'web.db'}", clock=site.clock, limits={}, site=TEST_SITE)
    other = TestClient(other_app, raise_server_exceptions=False)
    anon = site.browser()
    count = Counter(site.app, other_app)
    got: dict[str, int] = {}
    got["game page, made"], _ = count.get(anon, "/games/g")
    got["game page, from memory"], _ = count.get(anon, "/games/g")
    got["game page, read back by another process"], r = count.get(other, "/games/g")
    other_app.state.web.pages.clear()  # past that process's second in memory
    got["game page, 304"], _ = count.get(other, "/games/g", 304, headers={"If-None-Match": r.headers["etag"]})
    got["game page signed in, made"], _ = count.get(france, "/games/g")
    got["game page signed in, read back"], r = count.get(france, "/games/g")
    got["game page signed in, 304"], _ = count.get(
        france, "/games/g", 304, headers={"If-None-Match": r.headers["etag"]}
    )
    count.get(france, "/games/g/play/France")  # its first visit reads the variant and the board file
    got["player page"], _ = count.get(france, "/games/g/play/France")
    phase = site.web.access.phases("g")[0].id
    got["phase page"], _ = count.get(anon, f"/games/g/phases/{phase}")
    got["game JSON"], r = count.get(anon, "/api/games/g")
    got["game JSON, 304"], _ = count.get(anon, "/api/games/g", 304, headers={"If-None-Match": r.headers["etag"]})
    got["calendar"], r = count.get(anon, "/games/g/calendar.ics")
    got["calendar, 304"], _ = count.get(
        anon, "/games/g/calendar.ics", 304, headers={"If-None-Match": r.headers["etag"]}
    )
    got["map"], r = count.get(anon, "/games/g/map.svg")
    got["map, 304"], _ = count.get(anon, "/games/g/map.svg", 304, headers={"If-None-Match": r.headers["etag"]})
    got["home"], _ = count.get(anon, "/")
    store_processing.process(site.web.store, "g", now=site.clock(), force=True)
    site.web.touched("g")
    got["game page, made after processing"], r = count.get(anon, "/games/g")
    assert "Latest results" in r.text
    grown = {k: f"{got[k]} (recorded {RECORDED[k]})" for k in RECORDED if got[k] > RECORDED[k]}
    assert not grown, f"more statements than recorded: {grown}; all now: {got}"
    assert set(got) == set(RECORDED)


def test_the_counter_sees_every_statement(site: Site) -> None:
    """The count is not blind: the state's one query, asked twice, is counted twice."""
    from dippouch.store.page_cache import shared_page

    count = Counter(site.app)
    shared_page(site.web.read, "g", "page", "en")
    once = len(count.statements)
    assert once >= 1 and any("shared_pages" in st for st in count.statements)
    shared_page(site.web.read, "g", "page", "en")
    assert len(count.statements) == 2 * once


def test_the_player_page_asks_for_the_open_phase_once(site: Site) -> None:
    """The press panel beside the orders takes the open phase's board from the page (it asked again)."""
    france = site.player("g", "France", "Fay")
    count = Counter(site.app)
    count.get(france, "/games/g/play/France")
    count.get(france, "/games/g/play/France")
    asked = [s for s in count.statements if "FROM phases JOIN games" in s and "phases.status =" in s]
    assert len(asked) == 1, asked
