"""A game's page made once per state of the game and language, kept in the database for every web process
(dippouch.web.views.page_cache), and never shown stale: after each event that changes what it shows (a phase
processed, a draw vote, a seat given to another player, press or a proposal bumping the page version), the
next reader of every process gets it made afresh. On SQLite and PostgreSQL, with the changes made by another
process (a worker, the coordinator's command line) that the web processes are not told of."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from dippouch.play import votes
from dippouch.store import processing as store_processing
from dippouch.store.models_pages import SharedPageRow
from dippouch.store.page_cache import bump_pages
from dippouch.web.http.service import PAGE_TTL
from websupport import TwoProcesses


class Pair(TwoProcesses):
    def b(self, key: str | None = None) -> TestClient:
        """A browser of the second process (signed in with ``key``)."""
        return self.signed_in(self.b_app, key)

    def kept(self) -> list[tuple[str, str, str]]:
        """The shared pages in the database: (kind, language, version)."""
        with self.other.session() as s:
            rows = s.execute(sa.select(SharedPageRow.kind, SharedPageRow.lang, SharedPageRow.version)).all()
        return sorted((str(k), str(la), str(v)) for k, la, v in rows)


@pytest.fixture
def pair(db_url: str) -> Iterator[Pair]:
    p = Pair(db_url)
    yield p
    p.close()


def _after_memory() -> None:
    """An anonymous page is served from a process's memory for PAGE_TTL without asking the database (by design:
    the busiest page of a site); past that it is checked against the game's state."""
    time.sleep(PAGE_TTL + 0.1)


def _statements(app: Any) -> list[str]:
    seen: list[str] = []
    web = app.state.web
    for engine in {web.store.engine, web.read.engine}:
        sa.event.listen(engine, "before_cursor_execute", lambda _c, _k, stmt, *_: seen.append(stmt))
    return seen


def test_a_page_made_by_one_process_is_read_by_another(pair: Pair) -> None:
    first = pair.a.browser().get("/games/g")
    assert first.status_code == 200 and ">Spring 1901 Movement<" in first.text
    assert [k[:2] for k in pair.kept()] == [("page", "en")]
    seen = _statements(pair.b_app)
    second = pair.b().get("/games/g")
    assert second.status_code == 200
    # Read back, not made: no phase, player or report was read, and nothing written.
    assert not [s for s in seen if "FROM phases" in s and "max(" not in s], seen
    assert not [s for s in seen if s.lstrip().upper().startswith("INSERT")], seen
    assert first.text.split('name="csrf"')[0] == second.text.split('name="csrf"')[0]
    assert first.headers["etag"] != second.headers["etag"]  # each visitor's own CSRF token is in their ETag


def test_every_language_is_its_own_page(pair: Pair) -> None:
    for lang in ("en", "de", "fr"):
        assert pair.a.browser().get("/games/g", headers={"Accept-Language": lang}).status_code == 200
    assert [k[:2] for k in pair.kept()] == [("page", "de"), ("page", "en"), ("page", "fr")]
    page = pair.b().get("/games/g", headers={"Accept-Language": "de"}).text
    assert "Frühjahr 1901" in page, page[:2000]


def test_processing_by_a_worker_is_never_shown_stale(pair: Pair) -> None:
    key = pair.a.seat("g", "France", "Fay")
    anon_a, anon_b, fay_b = pair.a.browser(), pair.b(), pair.b(key)
    for c in (anon_a, anon_b, fay_b):
        assert ">Spring 1901 Movement<" in c.get("/games/g").text
    assert store_processing.process(pair.other, "g", now=pair.a.clock(), force=True) == ["Spring 1901 Movement"]
    # A signed-in reader's page is checked against the game's state on every request.
    page = fay_b.get("/games/g").text
    assert ">Fall 1901 Movement<" in page and "Orders for France" in page
    _after_memory()
    for c in (anon_a, anon_b):
        page = c.get("/games/g").text
        assert ">Fall 1901 Movement<" in page and "Latest results" in page


def test_a_page_is_made_of_the_reading_it_is_kept_under(pair: Pair) -> None:
    """A page kept under the state its lookup read is made of that very reading, whatever this process's memory
    of the game says meanwhile: here that memory holds an older reading (from before a worker processed the
    game), and the process's view of the game kept for it (Spring's) would have been taken: a Spring page kept
    under Fall's version, shown until the next change. (The memory keeps the reading begun last, which with one
    database is never the older: the test puts it there as begun last.)"""
    from dippouch.web.http.security import Viewer
    from dippouch.web.routes.games import made_page
    from dippouch.web.views.page_cache import current
    from dippouch.web.views.prepared import page_request

    web = pair.b_app.state.web
    assert ">Spring 1901 Movement<" in pair.b().get("/games/g").text  # the process's view of Spring, kept
    before = current(web, "g", "page", "en")
    assert before is not None
    assert store_processing.process(pair.other, "g", now=pair.a.clock(), force=True) == ["Spring 1901 Movement"]
    now = current(web, "g", "page", "en")
    assert now is not None and now.reading != before.reading
    web.saw("g", *before.reading, None, began=time.monotonic())
    page = made_page(page_request(pair.b_app, "g", "en"), web, Viewer(), "g", "en", now.reading)
    assert ">Fall 1901 Movement<" in page and "Latest results" in page


def test_a_reading_begun_before_a_newer_one_or_before_the_process_s_own_change_is_not_kept(pair: Pair) -> None:
    """A process keeps for a second the game's marker it read last (every page's lookup brings one). A thread's
    reading that straggles in after another's begun later, or after this process changed the game itself, is not
    kept: the process would take the game as it was before its own change for that second."""
    web = pair.b_app.state.web
    began = time.monotonic()
    old = web.state("g")
    assert old is not None
    newer = (old[0], tuple(n + 1 for n in old[1]))
    web.saw("g", *newer, None, began=time.monotonic())
    web.saw("g", *old, None, began=began)  # the straggler
    assert web.state("g") == newer
    began = time.monotonic()
    web.touched("g")  # this process changed the game after the straggler's query was sent
    web.saw("g", *newer, None, began=began)
    assert web.state("g") == old, "a reading begun before the change was taken"


def test_a_draw_vote_is_never_shown_stale(pair: Pair) -> None:
    anon, reader = pair.b(), pair.b(pair.a.seat("g", "Italy", "Ida"))
    assert 'id="draw-needs"' not in anon.get("/games/g").text
    assert 'id="draw-needs"' not in reader.get("/games/g").text
    votes.vote(pair.other, "g", "France", True, now=pair.a.clock())
    assert 'id="draw-needs"' in reader.get("/games/g").text
    _after_memory()
    assert 'id="draw-needs"' in anon.get("/games/g").text


def test_a_seat_given_to_another_player_is_never_shown_stale(pair: Pair) -> None:
    pair.a.seat("g", "England", "Erin")
    anon, reader = pair.b(), pair.b(pair.a.seat("g", "Italy", "Ida"))
    assert "Erin" in anon.get("/games/g").text and "Erin" in reader.get("/games/g").text
    # Through the first process, which the second is not told of.
    r = pair.a.post_form(pair.a.coordinator, "/games/g/coordinate/replace", {"power": "England", "player": "Ezra"})
    assert r.status_code == 200, r.text
    page = reader.get("/games/g").text
    assert "Ezra" in page and "Erin" not in page
    _after_memory()
    page = anon.get("/games/g").text
    assert "Ezra" in page and "Erin" not in page


def test_a_bumped_page_version_makes_every_page_afresh(pair: Pair) -> None:
    """Press in public channels and proposals change what pages show without moving the game's change marker:
    they bump the page version (dippouch.store.page_cache.bump_pages), and every kept page is made again."""
    anon = pair.b()
    first = anon.get("/games/g")
    (_, _, before), *_ = pair.kept()
    bump_pages(pair.other, "g")
    bump_pages(pair.other, "no such game")  # left alone
    _after_memory()
    again = anon.get("/games/g", headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 200 and ">Spring 1901 Movement<" in again.text
    (_, _, after), *_ = pair.kept()
    assert after != before
    assert anon.get("/games/g", headers={"If-None-Match": again.headers["etag"]}).status_code == 304


def test_a_signed_in_reader_s_page_is_their_own(pair: Pair) -> None:
    """The shared part is the same for everyone who sees the game alike; the seat's buttons are the reader's."""
    fay, ida = pair.b(pair.a.seat("g", "France", "Fay")), pair.b(pair.a.seat("g", "Italy", "Ida"))
    f, i = fay.get("/games/g"), ida.get("/games/g")
    assert "Orders for France" in f.text and "Orders for Italy" not in f.text
    assert "Orders for Italy" in i.text and "Orders for France" not in i.text
    assert "/games/g/roster" in f.text and "/games/g/roster" not in pair.b().get("/games/g").text
    assert "<!--dippouch:" not in f.text + i.text
    kinds = [k[0] for k in pair.kept()]
    assert kinds.count("main-member-all") == 1, kinds  # made once, read by the second reader
