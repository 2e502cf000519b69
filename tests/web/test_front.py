"""A visitor's game page answered before the framework (web/http/front.py): the route's first try, found in the
one route table, answers what it can with nothing behind it; what it cannot answer (another reader, a HEAD, an
address another route of the table takes first, a page to be made) goes on to the app, which answers it as
before; the answer is the one the route gives, headers and compression included. A page held in memory is
answered before every layer (the app's lane), with the layers' own part in it: the host, the pace, the headers,
the time counted."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from prometheus_client import REGISTRY
from starlette.types import Receive, Scope, Send

from dippouch.store.db import DatabaseBusy
from dippouch.web.http import front
from dippouch.web.http.middleware import RequestPace
from dippouch.web.routes import games as game_routes
from dippouch.web.views import page_cache
from websupport import TEST_SITE, Site, TwoProcesses, without_token


async def _nothing_behind(scope: Scope, receive: Receive, send: Send) -> None:
    raise AssertionError(f"the app's router was asked for {scope['method']} {scope['path']}")


@pytest.fixture
def site(db_url: str) -> Iterator[Site]:
    s = Site(db_url, limits={})
    s.new_game("g", movement="2d")
    yield s


def _cut_off(site: Site) -> None:
    """The app's router answers nothing from now on: what is answered comes from the Front (which found the
    router's index at the first request)."""
    site.app.router.middleware_stack = _nothing_behind


def _answer(c: TestClient, path: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    r = c.get(path, headers=headers)
    kept = {k: v for k, v in r.headers.items() if k not in ("set-cookie", "etag", "date", "content-length")}
    return r.status_code, kept, without_token(r.content)


def test_a_visitors_page_from_memory_needs_nothing_behind_the_front(site: Site) -> None:
    reader = site.browser()
    first = _answer(reader, "/games/g")  # made by the route, kept in this process's memory
    assert first[0] == 200 and b">Spring 1901 Movement<" in first[2]
    _cut_off(site)
    again = _answer(reader, "/games/g")
    assert again == first
    # Its ETag confirmed before the framework too.
    etag = reader.get("/games/g").headers["etag"]
    assert reader.get("/games/g", headers={"If-None-Match": etag}).status_code == 304
    # A signed-in reader's page is the route's: it reaches the router (cut off here: the test's 500).
    assert site.coordinator.get("/games/g").status_code == 500


def test_the_front_gives_the_routes_answer(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same page, asked with the Front's first try and without it (the route alone), in every coding."""
    reader = site.browser()
    reader.get("/games/g")
    for coding in ("gzip, deflate, br, zstd", "br", "identity"):
        with_front = _answer(reader, "/games/g", **{"Accept-Encoding": coding})
        monkeypatch.setattr(front, "EARLY", {})
        monkeypatch.setattr(front, "NOW", {})
        by_route = _answer(reader, "/games/g", **{"Accept-Encoding": coding})
        monkeypatch.undo()
        assert with_front == by_route, coding
        expected = {"gzip, deflate, br, zstd": "gzip", "br": "br", "identity": None}[coding]
        assert with_front[1].get("content-encoding") == expected
        assert with_front[1]["content-security-policy"]  # the outer layers' headers on it


def test_what_the_front_leaves_goes_to_the_app(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []
    first = game_routes.visitor_page

    async def counted(request: Any) -> Any:
        asked.append(request.url.path)
        return await first(request)

    monkeypatch.setitem(front.EARLY, game_routes.game_page, counted)
    reader = site.browser()
    assert reader.head("/games/g").status_code == 200  # a HEAD: the app's
    assert reader.get("/games/g/calendar.ics").status_code == 200  # another route of /games/
    assert reader.get("/games/nothing-here").status_code == 404  # the route's first try, then the app's refusal
    assert "no game" in reader.get("/games/nothing-here").text.lower()
    assert asked.count("/games/nothing-here") >= 2 and "/games/g/calendar.ics" not in asked


def _latency_count(path: str) -> float:
    total = 0.0
    for family in REGISTRY.collect():
        for s in family.samples:
            if s.name.endswith("_count") and s.labels.get("route") == path and s.labels.get("status") == "200":
                total += s.value
    return total


def test_a_page_answered_by_the_front_is_counted_under_its_route(site: Site) -> None:
    reader = site.browser()
    reader.get("/games/g")
    before = _latency_count("/games/{name}")
    _cut_off(site)
    assert reader.get("/games/g").status_code == 200
    assert _latency_count("/games/{name}") == before + 1


@pytest.mark.parametrize("db_url", ["postgres"], indirect=True)  # kept pages read on the loop: PostgreSQL's
def test_a_page_kept_by_another_process_needs_nothing_behind_the_front(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(game_routes, "PAGE_TTL", 0.0)  # every request asks the database
    pair = TwoProcesses(db_url)
    try:
        assert pair.a.browser().get("/games/g").status_code == 200  # made and kept by the first process
        with TestClient(pair.b_app, raise_server_exceptions=False) as c:
            assert c.get("/healthz").status_code == 200  # the Front finds the router's index
            pair.b_app.router.middleware_stack = _nothing_behind
            r = c.get("/games/g")
            assert r.status_code == 200 and ">Spring 1901 Movement<" in r.text
    finally:
        pair.close()


@pytest.mark.parametrize("db_url", ["postgres"], indirect=True)
def test_a_page_the_front_leaves_is_not_read_again_by_the_route(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past its deadline a kept page goes to a thread (what its phase waits for is read there): the game's state,
    read once before the framework, is the route's too."""
    monkeypatch.setattr(game_routes, "PAGE_TTL", 0.0)
    reads: list[str] = []
    read = page_cache.current_on_loop

    async def counted(*args: Any) -> Any:
        reads.append(args[2])
        return await read(*args)

    monkeypatch.setattr(page_cache, "current_on_loop", counted)
    pair = TwoProcesses(db_url)
    try:
        assert pair.a.browser().get("/games/g").status_code == 200
        pair.a.clock.advance(days=3)  # past the deadline
        with TestClient(pair.b_app, raise_server_exceptions=False) as c:
            r = c.get("/games/g")
            assert r.status_code == 200 and "deadline" in r.text.lower()
        assert reads == ["g"]
    finally:
        pair.close()


def test_an_error_in_the_first_try_is_said_by_the_app(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    """The app's handlers are inside the Front: what a first try raises is met again by the route, where they say
    it (here a busy database, 503 with Retry-After), not a bug's 500."""
    calls: list[str] = []

    async def busy(request: Any) -> Any:
        calls.append(request.url.path)
        raise DatabaseBusy("SELECT", {}, RuntimeError("the database is restarting"))

    monkeypatch.setattr(game_routes, "visitor_page", busy)
    monkeypatch.setitem(front.EARLY, game_routes.game_page, busy)
    r = site.browser().get("/games/g")
    assert r.status_code == 503 and r.headers["retry-after"] == "2", r.text
    assert calls == ["/games/g", "/games/g"]  # the Front's try, then the route's


@pytest.mark.parametrize("db_url", ["postgres"], indirect=True)
def test_a_name_the_database_cannot_store_is_refused_as_before(site: Site) -> None:
    r = site.browser().get("/games/a%00b")
    assert r.status_code == 400 and "cannot store" in r.text, r.text


def _layers_cut_off(site: Site) -> None:
    """Not one of the app's layers answers from now on (the app built them at its first request)."""
    assert site.app.middleware_stack is not None
    site.app.middleware_stack = _nothing_behind


def test_a_held_page_is_answered_before_every_layer(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    reader = site.browser()
    first = _answer(reader, "/games/g")
    _layers_cut_off(site)
    again = _answer(reader, "/games/g")
    assert again == first and again[1]["content-encoding"] == "gzip"
    etag = reader.get("/games/g").headers["etag"]
    assert reader.get("/games/g", headers={"If-None-Match": etag}).status_code == 304
    # What it leaves meets the layers (cut off here: the test's 500): a browser that takes no gzip, another host,
    # a body, a signed-in reader, a page to be confirmed.
    for headers in (
        {"Accept-Encoding": "br"},
        {"Host": "elsewhere.example"},
        {"Content-Length": "3"},
        {"Transfer-Encoding": "chunked"},
    ):
        assert reader.get("/games/g", headers=headers).status_code == 500, headers
    assert site.coordinator.get("/games/g").status_code == 500
    monkeypatch.setattr(game_routes, "PAGE_TTL", 0.0)  # on SQLite nothing is heard: the page is to be looked at
    if site.app.state.web.loop_reads is None:
        assert reader.get("/games/g").status_code == 500


def test_the_lanes_answer_is_the_layers(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    """Status, headers (the security headers, Cache-Control, one Vary, the CSRF cookie) and body, but for the
    reader's token."""
    reader = site.browser()
    reader.get("/games/g")
    reader.cookies.clear()  # a new visitor each time: the CSRF cookie is set
    lane = reader.get("/games/g")
    monkeypatch.setattr(front, "NOW", {})
    reader.cookies.clear()
    layers = reader.get("/games/g")
    assert lane.status_code == layers.status_code == 200
    assert without_token(lane.content) == without_token(layers.content)
    own = ("set-cookie", "etag", "date", "content-length")
    assert {k: v for k, v in lane.headers.items() if k not in own} == {
        k: v for k, v in layers.headers.items() if k not in own
    }
    assert [k for k, _ in lane.headers.multi_items()] == [k for k, _ in layers.headers.multi_items()]
    assert lane.headers["vary"].count("Accept-Encoding") == 1 and lane.headers["cache-control"] == "private, no-cache"
    assert "csrf" in lane.headers["set-cookie"].lower()


def test_another_host_is_refused_as_before(site: Site) -> None:
    reader = site.browser()
    reader.get("/games/g")
    r = reader.get("/games/g", headers={"Host": "elsewhere.example"})
    assert r.status_code == 400 and "does not answer for host" in r.json()["error"]
    assert r.headers["content-security-policy"]
    # A Host of bytes beyond ASCII names no site (the lane and the layer alike), and is not shown as sent.
    r = reader.get("/games/g", headers={"Host": b"caf\xc3\xa9.example"})
    assert r.status_code == 400 and "for host ''" in r.json()["error"]


def test_a_browser_at_another_host_is_told_where_the_site_is_in_its_language(site: Site) -> None:
    """A person who typed the machine's address got English JSON: a page in their language now, with a link to
    the same page at the site's address, and nothing of the site's own pages (not who is signed in)."""
    browser = {"Host": "192.0.2.7:8000", "Accept": "text/html,*/*;q=0.8", "Accept-Language": "fr"}
    r = site.coordinator.get("/games/g/map?x=1", headers=browser)
    assert r.status_code == 400 and r.headers["content-type"].startswith("text/html")
    assert '<html lang="fr">' in r.text and "ne répond pas" in r.text, r.text
    assert '<meta name="color-scheme" content="light dark">' in r.text  # a dark system's colours
    there = TEST_SITE.public_url + "/games/g/map"
    assert f'<a href="{there}">{there}</a>' in r.text
    assert "csrf" not in r.text and "Sign out" not in r.text and "<form" not in r.text
    assert r.headers["content-security-policy"]
    r = site.coordinator.post("/games/g/coordinate/process", headers=browser)  # a form: the site's home
    assert r.status_code == 400 and f'<a href="{TEST_SITE.public_url}/">' in r.text
    r = site.browser().get("/games/50%25%20off", headers=browser)  # as sent: a % and a space, quoted again
    assert f'<a href="{TEST_SITE.public_url}/games/50%25%20off">' in r.text
    hostile = site.browser().get('/"><script>x</script>', headers=browser)
    assert hostile.status_code == 400 and "<script>" not in hostile.text


def test_a_held_page_counts_against_the_visitors_pace(db_url: str) -> None:
    """Answered before the Pace layer, it counts all the same: a burst of two, then held, then refused."""
    site = Site(db_url, limits={})
    site.new_game("g", movement="2d")
    site.browser().get("/games/g")  # made: held by the process
    clock = [1000.0]
    app = site.app
    app.state.pace = RequestPace(rate=1.0, burst=2, patience=0.5, clock=lambda: clock[0])
    reader = TestClient(app, base_url="http://testserver", client=("192.0.2.9", 5000))
    got = [reader.get("/games/g").status_code for _ in range(3)]
    assert got == [200, 200, 429], got
    other = TestClient(app, base_url="http://testserver", client=("192.0.2.10", 5000))
    assert other.get("/games/g").status_code == 200  # another address is another visitor
