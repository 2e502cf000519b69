"""The worker that processes a game makes its visitors' page, in every language a reader read it in, so that no web
reader pays for it: the web reads it back in the state's one query, never shown stale.

Each test runs on SQLite and on PostgreSQL (``db_url``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi import FastAPI
from fastapi.testclient import TestClient

from dippouch.store import GameStore
from dippouch.store import claims as store_claims
from dippouch.store.models import GameRow, PhaseRow
from dippouch.store.page_cache import bump_pages, shared_page
from dippouch.web.app import create_app
from dippouch.web.http.security import Viewer
from dippouch.web.routes.games import made_page
from dippouch.web.views.page_cache import current
from dippouch.web.views.prepared import PageMaker, page_request
from dippouch.worker.service import Worker
from websupport import TEST_SITE, Site

GERMAN = {"Accept-Language": "de"}


@pytest.fixture
def site(db_url: str) -> Iterator[Site]:
    s = Site(db_url, limits={})
    s.new_game("g", movement="2d")
    yield s


@pytest.fixture
def store(db_url: str) -> Iterator[GameStore]:
    s = GameStore(db_url)
    yield s
    s.close()


def _due(store: GameStore, game: str) -> None:
    """The game's open phase due a minute ago, by the database's clock (which decides what is due)."""
    with store.engine.begin() as c:
        gid = c.scalar(sa.select(GameRow.id).where(GameRow.name == game))
        c.execute(
            sa.update(PhaseRow)
            .where(PhaseRow.game_id == gid, PhaseRow.status == "open")
            .values(deadline=store.clock() - timedelta(minutes=1))
        )


def _maker(site: Site) -> PageMaker:
    """The worker's page maker, its app on the site's clock and address (a page's version says whether the
    deadline has passed by the web's clock)."""

    def app(store: GameStore) -> FastAPI:
        return create_app(store=store, clock=site.clock, site=TEST_SITE)

    return PageMaker(app)


def _statements(app: FastAPI) -> list[str]:
    seen: list[str] = []
    web = app.state.web

    def count(_c: Any, _cur: Any, statement: str, *_: Any) -> None:
        seen.append(statement)

    for engine in {web.store.engine, web.read.engine}:
        sa.event.listen(engine, "before_cursor_execute", count)
    return seen


def test_the_worker_makes_the_page_its_readers_read_in_each_of_their_languages(site: Site, store: GameStore) -> None:
    visitor = site.browser()
    assert "Spring 1901" in visitor.get("/games/g").text
    assert visitor.get("/games/g", headers=GERMAN).status_code == 200
    _due(store, "g")
    maker = _maker(site)
    worker = Worker(store, tasks=[], fetch=None, after=[maker])
    assert [p.game for p in worker.look()] == ["g"]
    assert maker.made == 2  # English and German: the languages it was read in
    for lang in ("en", "de"):
        kept = shared_page(store, "g", "page", lang)
        assert kept is not None and kept.body is not None
        assert ("Fall 1901" if lang == "en" else "Herbst 1901") in kept.body
    # The very page a web process makes of that state (its site and clock the same).
    german = shared_page(store, "g", "page", "de")
    assert german is not None
    now = current(site.web, "g", "page", "de")
    assert now is not None
    assert made_page(page_request(site.app, "g", "de"), site.web, Viewer(), "g", "de", now.reading) == german.body
    # Another web process reads it back, made: the state's one query (and its transaction), no making. On the
    # database's clock, as the worker that processed the phase: by the site's (a fixed date) the new phase may be
    # past its deadline already, and a page past it asks what the phase waits for.
    other = create_app(store.engine.url.render_as_string(hide_password=False), clock=store.clock, site=TEST_SITE)
    seen = _statements(other)
    r = TestClient(other).get("/games/g")
    assert r.status_code == 200 and "Fall 1901" in r.text
    assert len(seen) <= 2, seen
    seen.clear()
    r = TestClient(other).get("/games/g", headers=GERMAN)
    assert "Herbst 1901" in r.text and len(seen) <= 2, seen


def test_the_maker_reads_the_game_s_state_without_the_page_kept_for_the_state_before(
    site: Site, store: GameStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Right after processing, the page kept is the state before's (some 60 KB of text and pieces): the maker asks
    the state and the kept page's version alone, which tell it whether the page is made already."""
    from dippouch.store import page_cache as store_pages

    site.browser().get("/games/g")
    before = shared_page(store, "g", "page", "en")
    assert before is not None and before.body is not None
    _due(store, "g")
    asked: list[bool] = []
    real = store_pages.shared_page

    def lookup(*args: Any, page: bool = True) -> Any:
        asked.append(page)
        return real(*args, page=page)

    monkeypatch.setattr(store_pages, "shared_page", lookup)
    maker = _maker(site)
    Worker(store, tasks=[], fetch=None, after=[maker]).look()
    assert asked == [False] and maker.made == 1
    full, state = real(store, "g", "page", "en"), real(store, "g", "page", "en", page=False)
    assert full is not None and full.body is not None and "Fall 1901" in full.body and full.deflated is not None
    assert state is not None and state.body is None and state.deflated is None
    assert (state.version, state.state, state.marker) == (full.version, full.state, full.marker)
    # The lookup without the page says which languages the page is kept in (the maker's one statement a game read
    # in one language: the languages were a statement of their own before); with the page, not asked.
    assert state.languages == ("en",) and full.languages is None
    maker(store, ["g"], lambda: False)  # made already: told by the version alone
    assert maker.made == 1 and asked == [False, False]
    site.browser().get("/games/g", headers=GERMAN)
    again = real(store, "g", "page", "fr", page=False)
    assert again is not None and again.languages == ("de", "en") and again.version is None


def test_a_page_made_by_the_worker_is_never_shown_stale(site: Site, store: GameStore) -> None:
    """Press or a vote after the worker made the page bumps its version: the next reader makes it again."""
    visitor = site.browser()
    visitor.get("/games/g")
    _due(store, "g")
    Worker(store, tasks=[], fetch=None, after=[_maker(site)]).look()
    before = shared_page(store, "g", "page", "en")
    assert before is not None and before.body is not None
    france = site.player("g", "France", "Fay")  # a seat's change: the page names its player
    bump_pages(store, "g")
    site.web.pages.clear()
    r = visitor.get("/games/g")
    assert "Fay" in r.text and "Fall 1901" in r.text
    after = shared_page(store, "g", "page", "en")
    assert after is not None and after.version != before.version
    assert france.get("/games/g").status_code == 200


def test_the_maker_stops_when_told_and_leaves_the_page_to_its_reader(
    site: Site, store: GameStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dippouch.store import page_cache as store_pages

    site.browser().get("/games/g")
    _due(store, "g")
    Worker(store, tasks=[], fetch=None).look()
    maker = _maker(site)
    asked: list[str] = []
    real = store_pages.shared_page

    def lookup(*args: Any, **kwargs: Any) -> Any:
        asked.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(store_pages, "shared_page", lookup)
    assert maker(store, ["g"], lambda: True) == 0
    assert asked == []  # told to stop before the game's first lookup: not even that is asked
    monkeypatch.setattr(store_pages, "shared_page", real)
    kept = shared_page(store, "g", "page", "en")
    assert kept is not None and kept.body is not None and "Spring 1901" in kept.body  # the old page, not re-made
    site.web.pages.clear()  # past the second the web process keeps a visitor's page in memory
    r = site.browser().get("/games/g")
    assert "Fall 1901" in r.text  # its reader makes it, as before


def test_a_game_nobody_read_and_a_private_game_get_no_page(site: Site, store: GameStore) -> None:
    site.new_game("unread", movement="2d")
    site.new_game("hidden", movement="2d", visibility="private")
    _due(store, "unread")
    _due(store, "hidden")
    maker = _maker(site)
    Worker(store, tasks=[], fetch=None, after=[maker]).look()
    assert maker.made == 0
    for game in ("unread", "hidden"):
        kept = shared_page(store, game, "page", "en")
        assert kept is not None and kept.body is None


def test_a_failing_maker_never_stops_the_worker(site: Site, store: GameStore) -> None:
    def broken(_store: GameStore, _games: Any, _stop: Any) -> None:
        raise RuntimeError("the templates are gone")

    _due(store, "g")
    worker = Worker(store, tasks=[], fetch=None, after=[broken])
    assert [p.game for p in worker.look()] == ["g"]
    assert worker.last_error is None


def test_the_hooks_give_way_once_more_phases_fall_due_than_they_make_pages(site: Site, store: GameStore) -> None:
    """Deadlines first, but not at the first phase due: at a thousand games a phase falls due every 30 ms."""
    for name in ("a", "b", "c"):
        site.new_game(name, movement="2d")
    told: list[bool] = []

    def hook(_store: GameStore, _games: Any, stop: Any) -> None:
        _due(store, "a")  # one phase falls due while the first page is made: go on
        time.sleep(0.25)
        told.append(stop())
        _due(store, "b")
        _due(store, "c")  # three while two pages were made: give way
        time.sleep(0.25)
        told.append(stop())

    _due(store, "g")
    afterwards = Worker(store, tasks=[], fetch=None, after=[hook])._afterwards()
    for processed in Worker(store, tasks=[], fetch=None).look():
        afterwards(processed)
    assert told == [False, True]


def test_each_phase_s_hooks_run_before_the_next_phase_is_processed(site: Site, store: GameStore) -> None:
    """A page made a few phases after its own (at a thousand games, a phase every 30 ms) found readers first."""
    site.new_game("a", movement="2d")
    seen: list[tuple[list[str], int]] = []

    def hook(_store: GameStore, games: Any, _stop: Any) -> None:
        seen.append((list(games), store_claims.due_count(store)))

    _due(store, "g")
    _due(store, "a")
    processed = Worker(store, tasks=[], fetch=None, after=[hook]).look()
    assert len(processed) == 2
    assert seen == [([processed[0].game], 1), ([processed[1].game], 0)]


def test_the_hooks_of_a_look_s_next_calls_weigh_the_phases_due_from_the_count_the_last_call_ended_with(
    site: Site, store: GameStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whether the hooks give way is weighed against the phases due as the call began: the count the call before
    ended with, not a count of its own each call (three round trips: the clock, the phases held for mail, the
    count); the look's first call counts afresh (the worker may have waited since its last)."""
    import dippouch.worker.service as service

    names = ["a", "b", "c", "d", "e"]
    for name in names:
        site.new_game(name, movement="2d")
    for name in ["g", *names]:
        _due(store, name)
    counted: list[int] = []
    held: list[bool] = []
    count = store_claims.due_count

    def counting(db: Any, **kw: Any) -> int:
        counted.append(n := count(db, **kw))
        held.append(kw.get("held") is worker.memory.held)  # the call in hand's
        return n

    monkeypatch.setattr(store_claims, "due_count", counting)
    worker = Worker(store, tasks=[], fetch=None, after=[lambda _store, _games, _stop: None])
    worker.memory.waiting = 99  # a count from before: not trusted by a new look
    processed = worker.look()
    assert len(processed) == 6
    # Three calls of four phases at most (4, 2, none), each counting at its end, and the first's hooks once.
    assert len(counted) == 4, counted
    assert service.AFTER_EVERY == 4
    # Each count leaves out the phases held for the coordinator as its call read them, not asking again (on
    # PostgreSQL the count is then one statement, where it was three).
    assert held == [True] * 4 and worker.memory.held.ids == []
