"""Each client's pace of requests (issue 52: a script sending as fast as it is answered, each answer a cheap
refusal, spent the server's whole time on refusals): held until due, then refused past the patience, before the
app reads a body or asks the store; counted by the session or key, else by the address."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from dippouch.web.app import create_app
from dippouch.web.http.middleware import RequestPace
from websupport import TEST_SITE, Clock, Site


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_burst_passes_then_requests_wait_their_turn_then_are_refused() -> None:
    clock = FakeClock()
    pace = RequestPace(rate=2.0, burst=3, patience=1.0, clock=clock)
    assert [pace.wait(b"a") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert pace.wait(b"a") == pytest.approx(0.5)
    assert pace.wait(b"a") == pytest.approx(1.0)
    assert pace.wait(b"a") is None  # it would wait 1.5 s: refused, and not counted
    assert pace.retry_after(b"a") == 1
    assert pace.wait(b"b") == 0.0  # another client is its own
    clock.now += 10  # the client rested: a whole burst again
    assert [pace.wait(b"a") for _ in range(3)] == [0.0, 0.0, 0.0]


def test_an_average_rate_goes_on_for_ever() -> None:
    clock = FakeClock()
    pace = RequestPace(rate=10.0, burst=1, patience=0.0, clock=clock)
    for _ in range(1000):
        assert pace.wait(b"a") == 0.0
        clock.now += 0.1


def test_forgotten_clients_do_not_grow_the_table() -> None:
    clock = FakeClock()
    pace = RequestPace(rate=1000.0, burst=1, clock=clock)
    pace.KEPT = 100
    for i in range(1000):
        pace.wait(str(i).encode())
        clock.now += 0.01
    assert len(pace.due) <= 100


@pytest.fixture
def app_with_pace(tmp_path: Path) -> TestClient:
    from dbsupport import migrated_sqlite

    url = migrated_sqlite(tmp_path / "g.db")
    app = create_app(url, clock=Clock(), site=TEST_SITE, pace=RequestPace(rate=1.0, burst=2, patience=0.5))
    return TestClient(app, base_url="http://testserver")


def test_a_client_past_its_pace_is_held_then_refused_in_its_language(app_with_pace: TestClient) -> None:
    c = app_with_pace
    clock = FakeClock()  # the pace's clock stands still between requests, however loaded the machine is
    c.app.state.pace = RequestPace(rate=1.0, burst=2, patience=0.5, clock=clock)  # type: ignore[attr-defined]
    assert [c.get("/nope").status_code for _ in range(2)] == [404, 404]  # the burst
    r = c.get("/nope", headers={"Accept-Language": "de"})  # its turn is a second away, past the patience
    assert r.status_code == 429
    clock.now += 0.6
    started = time.monotonic()
    assert c.get("/nope").status_code == 404  # its turn is 0.4 s away: held, then answered
    assert time.monotonic() - started >= 0.3
    assert int(r.headers["retry-after"]) >= 1
    assert "Sie senden Anfragen schneller" in r.json()["error"]
    assert r.headers["content-security-policy"]  # the security headers, as on every answer
    # Static files are not counted: a page's scripts and pictures never make its next page wait.
    assert [c.get("/static/app.css").status_code for _ in range(5)] == [200] * 5


def test_a_browser_past_its_pace_gets_a_page_in_its_language_that_loads_again_after_the_wait(
    app_with_pace: TestClient,
) -> None:
    """A person's browser got the refusal as raw JSON: a page now, which asks again by itself."""
    c = app_with_pace
    c.app.state.pace = RequestPace(rate=1.0, burst=1, patience=0.5, clock=FakeClock())  # type: ignore[attr-defined]
    page = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8", "Accept-Language": "de"}
    assert c.get("/", headers=page).status_code == 200
    r = c.get("/games", headers=page)
    assert r.status_code == 429 and r.headers["content-type"].startswith("text/html"), r.text[:200]
    assert '<html lang="de">' in r.text and "Sie senden Anfragen schneller" in r.text
    assert f'<meta http-equiv="refresh" content="{r.headers["retry-after"]}">' in r.text
    assert r.headers["content-security-policy"]
    r = c.get("/api/games", headers=page)  # the API is answered in JSON whatever it accepts
    assert r.status_code == 429 and "Sie senden" in r.json()["error"]


def test_the_pace_is_by_session_or_key_whatever_the_address(app_with_pace: TestClient) -> None:
    app = app_with_pace.app
    other = TestClient(app, base_url="http://testserver", client=("192.0.2.7", 5000))
    keyed = [TestClient(app, base_url="http://testserver", client=(f"192.0.2.{i}", 5000)) for i in range(10, 14)]
    # One bearer key from four addresses is one client: past its burst of two, it is refused.
    got = [c.get("/nope", headers={"Authorization": "Bearer dp_same"}).status_code for c in keyed]
    assert got[:3] == [404, 404, 429], got
    # The address of one of them, without the key, is another client.
    assert other.get("/nope").status_code == 404
    # So is a session cookie, whichever address sends it.
    got = [c.get("/nope", headers={"Cookie": "dp_session=abc"}).status_code for c in keyed]
    assert got[:3] == [404, 404, 429], got


def test_a_refused_request_never_reaches_the_app(app_with_pace: TestClient) -> None:
    """The refusal costs the server no body read and no store access: a body over the request limit is not
    even refused for its size (that would mean reading its length against the limit first)."""
    c = app_with_pace
    calls = 0
    store = c.app.state.web.store  # type: ignore[attr-defined]
    real = store.session

    def counted(*a: object, **kw: object) -> object:
        nonlocal calls
        calls += 1
        return real(*a, **kw)

    store.session = counted
    for _ in range(3):
        c.get("/games/nosuch")
    before = calls
    r = c.get("/games/nosuch")
    assert r.status_code == 429 and calls == before


def test_the_installations_pace_is_read_from_its_settings() -> None:
    """The pace `dippouch serve` gives its app (tests/web/test_web_serve_limits.py sends it a flood)."""
    from dippouch import settings
    from dippouch.web.app import request_pace

    pace = request_pace()
    assert 1 / pace.interval == pytest.approx(10.0)
    assert pace.tolerance * 10 + 1 == pytest.approx(60.0)
    import os

    os.environ["DIPPOUCH_REQUEST_RATE"] = "2.5"
    try:
        settings.reread()
        assert 1 / request_pace().interval == pytest.approx(2.5)
        os.environ["DIPPOUCH_REQUEST_RATE"] = "fast"
        settings.reread()
        with pytest.raises(Exception, match="DIPPOUCH_REQUEST_RATE"):
            request_pace()
    finally:
        del os.environ["DIPPOUCH_REQUEST_RATE"]
        settings.reread()


def test_a_persons_paced_requests_are_charged_to_their_work_budget(tmp_path: Path) -> None:
    """Cheap pages asked as fast as the pace allows leave that much less of the person's share for expensive
    work (bench_hostile: 800 requests in a minute cost 8.6 s of the server's CPU beside the charged work); a
    visitor not signed in is not charged, and a person in debt still gets their pages."""
    from dippouch.store.people.persons import create_person
    from dippouch.web.http.budget import WorkBudget

    site = Site(f"sqlite:///{tmp_path / 'g.db'}")
    site.app.state.pace = RequestPace(rate=1000.0, burst=1000)
    budget = site.app.state.budget = WorkBudget(1.0, clock=lambda: 0.0)  # no refill however slow the machine
    pid = create_person(site.web.store, "Ann", now=site.clock(), email="ann@example.org")
    c = site.browser()
    c.cookies.set("dp_session", site.web.access.start_session([], now=site.clock(), person_id=pid))
    for _ in range(50):
        assert c.get("/me").status_code == 200
    # Each page is charged what its endpoint took and what the event loop spent on it (web.http.budget.OnLoop):
    # half a millisecond at the least for a page read from the database and written out.
    spent = 1.0 - budget.left(f"person {pid}")
    assert 50 * 0.0005 < spent < 50 * 0.2, spent
    for _ in range(2000):
        if budget.left(f"person {pid}") < 0:
            break
        assert c.get("/me").status_code == 200
    assert budget.left(f"person {pid}") < 0
    assert c.get("/me").status_code == 200  # in debt now: their pages are still theirs
    anonymous = site.browser()
    assert anonymous.get("/").status_code == 200
    assert budget.asker_share.buckets.keys() == {f"person {pid}"}


def test_a_session_s_requests_are_worked_on_at_most_at_once_at_a_time() -> None:
    """A person's script in four threads (issue 52's hostile account) takes two of the server's threads, not four:
    the others wait their turn in the event loop; another session, and a client known by its address, are not
    held; the table forgets a client with nothing in hand."""
    import asyncio

    pace = RequestPace(rate=1000.0, burst=1000, at_once=2)
    running: dict[bytes, int] = {}
    most: dict[bytes, int] = {}

    async def request(client: bytes) -> None:
        give_back = await pace.turn(client)
        try:
            running[client] = running.get(client, 0) + 1
            most[client] = max(most.get(client, 0), running[client])
            await asyncio.sleep(0.01)
            running[client] -= 1
        finally:
            give_back()
            give_back()  # once: again does nothing

    async def flood() -> None:
        await asyncio.gather(
            *(request(b"s:hostile") for _ in range(8)),
            *(request(b"k:player") for _ in range(3)),
            *(request(b"a:127.0.0.1") for _ in range(5)),
        )

    asyncio.run(flood())
    assert most == {b"s:hostile": 2, b"k:player": 2, b"a:127.0.0.1": 5}
    assert pace.turns == {}


def test_the_installations_requests_at_once_are_read_from_its_settings() -> None:
    import os

    from dippouch import settings
    from dippouch.web.app import request_pace

    assert request_pace().at_once == 2
    os.environ["DIPPOUCH_REQUEST_AT_ONCE"] = "1"
    try:
        settings.reread()
        assert request_pace().at_once == 1
        for wrong in ("0", "many", "1.5"):
            os.environ["DIPPOUCH_REQUEST_AT_ONCE"] = wrong
            settings.reread()
            with pytest.raises(Exception, match="DIPPOUCH_REQUEST_AT_ONCE"):
                request_pace()
    finally:
        del os.environ["DIPPOUCH_REQUEST_AT_ONCE"]
        settings.reread()


def test_every_paced_request_takes_its_turn(app_with_pace: TestClient) -> None:
    """The app's pace holds a request for its session's or key's turn (the layer, not only the table)."""
    pace: RequestPace = app_with_pace.app.state.pace  # type: ignore[attr-defined]
    taken: list[bytes] = []
    real = pace.turn

    async def recorded(client: bytes) -> Any:
        taken.append(client)
        return await real(client)

    pace.turn = recorded  # type: ignore[method-assign]
    app_with_pace.get("/games/nosuch", headers={"Authorization": "Bearer dk_nosuchkey"})
    app_with_pace.get("/static/app.js")
    assert taken == [b"k:dk_nosuchkey"]


def test_a_stream_holds_no_turn_once_its_answer_has_begun() -> None:
    """A player's press stream lasts minutes: a turn is held while a request is worked on, until its answer
    begins, so a person with two streams open (two tabs) still gets their pages."""
    import asyncio
    from types import SimpleNamespace

    from dippouch.web.http.middleware import Pace

    pace = RequestPace(rate=1000.0, burst=1000, at_once=1)
    ended = asyncio.Event()
    answered: list[str] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        if scope["path"].endswith("press-events"):
            await ended.wait()  # the stream goes on
        answered.append(scope["path"])
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    layer = Pace(app)
    state = SimpleNamespace(pace=pace, budget=None)

    async def request(path: str) -> None:
        scope = {
            "type": "http",
            "path": path,
            "headers": [(b"authorization", b"Bearer dk_somebody")],
            "app": SimpleNamespace(state=state),
            "state": {},
        }

        async def receive() -> Any:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: Any) -> None:
            pass

        await layer(scope, receive, send)

    async def person() -> None:
        streams = [asyncio.create_task(request(f"/games/g{i}/play/France/press-events")) for i in range(2)]
        await asyncio.wait_for(request("/games/g"), timeout=5)  # not held behind the two streams
        assert not any(t.done() for t in streams) and pace.turns == {}  # streaming, holding no turn
        ended.set()
        await asyncio.gather(*streams)

    asyncio.run(person())
    assert answered[0] == "/games/g" and len(answered) == 3
    assert pace.turns == {}
