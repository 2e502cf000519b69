"""A visitor's game page held by a web process on PostgreSQL is served without asking the database until the
process hears its game changed (dippouch.store.page_notices, migrations 0036 and 0037's triggers;
dippouch.web.http.page_trust), and is never shown stale: after each change another process makes (processing, a
draw vote, press, a seat given to another player, orders, an extension, the game hidden), after mail for a phase
past its deadline, and while nothing is heard (the listening connection cut), the next reader's page is asked for
again. Past its deadline a page held is shown as past it without a look where its phase waits for processing alone
(as a look would show it), and asked for where it may wait for the coordinator; held then too, until its game or
its mail changes. A page kept anew by another process is read in before its first reader asks.

Each test's reader process answers with PAGE_TTL 0 (a page not held would be confirmed by a query at every
request), so an answer sent with no query is one the process held."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from email.utils import format_datetime
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from dippouch.play import clock as play_clock
from dippouch.play import games as play_games
from dippouch.play import votes
from dippouch.play.fairness import INSTALLATION
from dippouch.store import processing as store_processing
from dippouch.store.loop_reads import driver_connection
from dippouch.store.page_cache import bump_pages
from dippouch.store.page_notices import PageNotice, notice_of
from dippouch.web.routes import games as game_routes
from dippouch.web.views import page_cache
from websupport import TwoProcesses

ON_POSTGRES = pytest.mark.parametrize("db_url", ["postgres"], indirect=True)


class Reader:
    """The second process, running (its lifespan: listening), with a visitor's browser and a count of the
    queries its pages sent on the loop."""

    def __init__(self, pair: TwoProcesses, client: TestClient) -> None:
        self.pair = pair
        self.client = client
        self.web = pair.b_app.state.web
        self.asked: list[str] = []
        reads = self.web.loop_reads
        first = reads.first

        async def counted(sql: str, values: dict[str, Any], **kw: Any) -> Any:
            self.asked.append(values.get("game", ""))
            return await first(sql, values, **kw)

        reads.first = counted

    def page(self) -> str:
        r = self.client.get("/games/g")
        assert r.status_code == 200, r.text[:500]
        return str(r.text)

    def held(self) -> str:
        """The page, answered from what the process holds: no query sent."""
        before = len(self.asked)
        page = self.page()
        assert len(self.asked) == before, "the page was asked of the database"
        return page

    def until_asked(self, within: float = 10.0) -> str:
        """The page once the process, told of a change, asks for it again (a notice takes milliseconds)."""
        end = time.monotonic() + within
        while True:
            before = len(self.asked)
            page = self.page()
            if len(self.asked) > before:
                return page
            assert time.monotonic() < end, f"still held {within:g} s after the change: never told of it"
            time.sleep(0.05)


@pytest.fixture
def reader(db_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Reader]:
    monkeypatch.setattr(game_routes, "PAGE_TTL", 0.0)
    pair = TwoProcesses(db_url)
    try:
        assert pair.a.browser().get("/games/g").status_code == 200  # made and kept by the first process
        with TestClient(pair.b_app, raise_server_exceptions=False) as c:
            r = Reader(pair, c)
            _listening(r)
            r.page()  # its first reading, under a warrant: held from now on
            r.held()
            yield r
    finally:
        pair.close()


def _listening(r: Reader, within: float = 10.0) -> None:
    end = time.monotonic() + within
    while not r.web.page_trust.listening:
        assert time.monotonic() < end, "the reader never listened"
        time.sleep(0.02)


def _process(r: Reader) -> None:
    assert store_processing.process(r.pair.other, "g", now=r.pair.a.clock(), force=True) == ["Spring 1901 Movement"]


def _vote(r: Reader) -> None:
    votes.vote(r.pair.other, "g", "France", True, now=r.pair.a.clock())


def _press(r: Reader) -> None:
    bump_pages(r.pair.other, "g")


def _seat(r: Reader) -> None:
    a = r.pair.a
    res = a.post_form(a.coordinator, "/games/g/coordinate/replace", {"power": "England", "player": "Ezra"})
    assert res.status_code == 200, res.text


def _orders(r: Reader) -> None:
    a = r.pair.a
    key = a.seat("g", "France", "Fay")
    res = a.post_form(a.browser(key), "/games/g/play/France/orders", {"orders": "A par - bur"})
    assert res.status_code == 303, res.text[:500]


def _extension(r: Reader) -> None:
    play_clock.extend(r.pair.other, "g", timedelta(hours=5), by=INSTALLATION, now=r.pair.a.clock())


def _hidden(r: Reader) -> None:
    play_games.set_visibility(r.pair.other, "g", "unlisted")


CHANGES: dict[str, Callable[[Reader], None]] = {
    "processing": _process,
    "draw vote": _vote,
    "press": _press,
    "seat": _seat,
    "orders": _orders,
    "extension": _extension,
    "visibility": _hidden,
}


@ON_POSTGRES
@pytest.mark.parametrize("change", list(CHANGES))
def test_a_page_held_is_asked_for_again_after_each_change_another_process_makes(reader: Reader, change: str) -> None:
    if change == "seat":
        reader.pair.a.seat("g", "England", "Erin")
        reader.until_asked()
        reader.page()
        reader.held()
    CHANGES[change](reader)
    page = reader.until_asked()
    if change == "processing":
        assert ">Fall 1901 Movement<" in page and "Latest results" in page
    if change == "seat":
        assert "Ezra" in page and "Erin" not in page
    if change == "draw vote":
        assert 'id="draw-needs"' in page


@ON_POSTGRES
def test_a_page_held_past_its_deadline_says_so_as_a_look_would_without_one(reader: Reader) -> None:
    """Nothing heard of the game since its page was read, the page past its deadline is the one a look gives (the
    state is the same, the page kept across the deadline): shown from its pieces, waiting for processing, under
    the version, ETag and Last-Modified of the state past its deadline, and held from then on."""
    before = reader.held()
    assert "is waiting to be processed" not in before
    reader.pair.past_deadline()
    r = reader.client.get("/games/g")
    assert r.status_code == 200 and len(reader.asked) == 1, "the page was asked of the database"
    assert "is waiting to be processed" in r.text
    held = reader.web.pages[("game", "g", "en")]
    looked = page_cache.current(reader.web, "g", "page", "en")
    assert looked is not None and looked.due and looked.changed is not None
    assert held.made == (looked.version, looked.changed)
    assert r.headers["last-modified"] == format_datetime(looked.changed, usegmt=True)
    # The page another process shows past the deadline after its look, this reader's token aside.
    other = reader.pair.a.browser().get("/games/g")
    assert _untokened(other.text) == _untokened(r.text)
    assert reader.client.get("/games/g", headers={"If-None-Match": r.headers["etag"]}).status_code == 304
    reader.held()
    assert len(reader.asked) == 1


@ON_POSTGRES
def test_a_page_whose_phase_may_wait_for_the_coordinator_is_asked_for_past_its_deadline(reader: Reader) -> None:
    """Mail held for the coordinator before the deadline: what the phase waits for past it is read then (it may be
    the coordinator's review), not taken from the page held."""
    reader.pair.held_mail()
    reader.until_asked()
    reader.held()
    reader.pair.past_deadline()
    page = reader.until_asked()
    assert "Awaiting the coordinator" in page and "is waiting to be processed" not in page
    reader.held()


@ON_POSTGRES
def test_a_page_past_its_deadline_is_held_until_its_phase_or_its_mail_changes(reader: Reader) -> None:
    """While the workers catch up, a phase past its deadline is shown as waiting without a query at each reading;
    mail taken in meanwhile (a message held for the coordinator) lets the page go, and it then says the phase
    waits for the coordinator's review."""
    reader.pair.past_deadline()  # held mail then still holds the phase
    assert "is waiting to be processed" in reader.held()
    reader.held()
    reader.pair.held_mail()
    page = reader.until_asked()
    assert "Awaiting the coordinator" in page and "is waiting to be processed" not in page
    reader.held()
    with reader.pair.other.engine.begin() as conn:
        conn.execute(sa.text("UPDATE mail_messages SET status = 'dismissed'"))
    assert "is waiting to be processed" in reader.until_asked()
    reader.held()
    _process(reader)
    page = reader.until_asked()
    assert ">Fall 1901 Movement<" in page and "is waiting to be processed" not in page


@ON_POSTGRES
def test_nothing_is_held_while_nothing_is_heard(reader: Reader) -> None:
    """The listening connection cut (a notice sent meanwhile would be lost): every page is asked for until the
    process listens again, and held again after."""
    with reader.pair.other.engine.connect() as conn:
        cut = conn.execute(
            sa.text(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'dippouch-page-notices' "
                "AND datname = current_database()"  # not another test's, running beside this one
            )
        ).all()
    assert cut and all(ok for (ok,) in cut)
    reader.until_asked()
    _listening(reader)
    reader.page()
    reader.held()


@ON_POSTGRES
def test_a_page_kept_anew_is_read_in_before_it_is_asked_for(reader: Reader) -> None:
    _process(reader)
    assert ">Fall 1901 Movement<" in reader.pair.a.browser().get("/games/g").text  # kept anew by the first
    end = time.monotonic() + 10
    while b">Fall 1901 Movement<" not in reader.web.pages[("game", "g", "en")][3].plain(b""):
        assert time.monotonic() < end, "the page kept anew was never read in"
        time.sleep(0.05)
    page = reader.held()
    assert ">Fall 1901 Movement<" in page and "Latest results" in page


def _untokened(page: str) -> str:
    """A page with its CSRF fields' values taken out (each reader's own)."""
    return re.sub(r"\bm\.[A-Za-z0-9_=-]{20,}", "", page)


def test_notices_are_read_as_the_triggers_write_them_and_others_ignored() -> None:
    assert notice_of("g g") == PageNotice("g")
    assert notice_of("g a game with spaces") == PageNotice("a game with spaces")  # the name last, whole
    assert notice_of("k page en my game") == PageNotice("my game", ("page", "en"))
    for bad in ("", "g", "g ", "k page en", "k page en ", "k  en g", "x 1", "G g", "kpage en g", "p 12ab 3"):
        assert notice_of(bad) is None, bad


@ON_POSTGRES
def test_a_write_to_each_table_a_page_is_versioned_by_is_heard(reader: Reader) -> None:
    """Each table of the lookup's state (migration 0036's list), written alone (a row changed in place), is
    announced with the game's name; a page kept, with its kind and language; a game renamed, under both names."""
    import psycopg

    _vote(reader)
    _orders(reader)
    _press(reader)
    _hidden(reader)
    store = reader.pair.other
    with store.engine.connect() as conn:
        gid = conn.execute(sa.text("SELECT id FROM games WHERE name = 'g'")).scalar_one()
    # The game is named by its name (a web process takes a warrant before it has read the game's id).
    conninfo, kwargs = driver_connection(store.engine, "dippouch-tests")
    writes = {
        "games": "UPDATE games SET name = name WHERE id = :g",
        "game_web": "UPDATE game_web SET visibility = visibility WHERE game_id = :g",
        "events": "UPDATE events SET game_id = game_id WHERE game_id = :g",
        "phases": "UPDATE phases SET game_id = game_id WHERE game_id = :g",
        "submissions": "UPDATE submissions SET phase_id = phase_id WHERE phase_id IN "
        "(SELECT id FROM phases WHERE game_id = :g)",
        "votes": "UPDATE votes SET game_id = game_id WHERE game_id = :g",
        "page_versions": "UPDATE page_versions SET game_id = game_id WHERE game_id = :g",
        "shared_pages": "UPDATE shared_pages SET game_id = game_id WHERE game_id = :g AND kind = 'page' AND lang = 'en'",
    }
    with psycopg.connect(conninfo, **kwargs) as listener:
        listener.execute("LISTEN dippouch_pages")
        for table, sql in writes.items():
            with store.engine.begin() as conn:
                assert conn.execute(sa.text(sql), {"g": gid}).rowcount > 0, f"no row of {table} to change"
            heard = [n.payload for n in listener.notifies(timeout=5, stop_after=1)]
            want = "k page en g" if table == "shared_pages" else "g g"
            assert heard == [want], f"{table}: {heard}"
        with store.engine.begin() as conn:
            conn.execute(sa.text("UPDATE games SET name = 'g2' WHERE id = :g"), {"g": gid})
        heard = sorted(n.payload for n in listener.notifies(timeout=2, stop_after=2))
        assert heard == ["g g", "g g2"], heard
        with store.engine.begin() as conn:
            conn.execute(sa.text("UPDATE games SET name = 'g' WHERE id = :g"), {"g": gid})
        assert len(list(listener.notifies(timeout=2, stop_after=2))) == 2
        # What a phase past its deadline waits for (migration 0037): each mail table, written alone.
        mail_id = reader.pair.held_mail()
        assert [n.payload for n in listener.notifies(timeout=5, stop_after=1)] == ["g g"], "mail_messages"
        mail = {
            "mail_attachments": "INSERT INTO mail_attachments (mail_id, filename, content_type, data) "
            "VALUES (:m, 'orders.jpg', 'image/jpeg', :raw)",
            "mail_reviews": "INSERT INTO mail_reviews (phase_id, released_at, note) "
            "SELECT phase_id, fetched_at, '' FROM mail_messages WHERE id = :m",
            "game_mail": "INSERT INTO game_mail (game_id, config) VALUES (:g, '{}') "
            "ON CONFLICT (game_id) DO UPDATE SET config = game_mail.config",
        }
        for table, sql in mail.items():
            with store.engine.begin() as conn:
                assert conn.execute(sa.text(sql), {"g": gid, "m": mail_id, "raw": b"x"}).rowcount > 0, table
            heard = [n.payload for n in listener.notifies(timeout=5, stop_after=1)]
            assert heard == ["g g"], f"{table}: {heard}"
