"""The web app against an attacker and a busy day: what is bounded, cached, compressed and kept private."""

from __future__ import annotations

import re
import subprocess
from datetime import timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from dippouch.core.variant import Variant
from dippouch.store import processing as store_processing
from websupport import START, Site


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


# --------------------------------------------------------------------------------------------------
# The calendar feed


def test_calendar_events_last_and_the_schedule_to_come_is_tentative(site: Site) -> None:
    """RFC 5545: an event whose end is its start has no duration; each deadline lasts half an hour. The feed
    also forecasts the phases to come from the game's deadline settings, marked tentative."""
    import icalendar

    site.new_game("cal", movement="2d", adjustments="1d")
    cal = icalendar.Calendar.from_ical(site.browser().get("/games/cal/calendar.ics").content)
    events = list(cal.walk("VEVENT"))
    for e in events:
        assert e.decoded("dtend") - e.decoded("dtstart") == timedelta(minutes=30), e["summary"]
    now, *later = events
    assert str(now["summary"]) == "cal: orders due, Spring 1901 Movement" and "status" not in now
    assert now.decoded("dtstart") == START + timedelta(days=2)
    assert [str(e["summary"]) for e in later[:3]] == [
        "cal: orders due, Fall 1901 Movement (expected)",
        "cal: orders due, Winter 1901 Adjustments (expected)",
        "cal: orders due, Spring 1902 Movement (expected)",
    ]
    assert all(str(e["status"]) == "TENTATIVE" for e in later)
    starts = [e.decoded("dtstart") for e in later[:3]]
    assert starts == [START + timedelta(days=4), START + timedelta(days=5), START + timedelta(days=7)]
    assert len({str(e["uid"]) for e in events}) == len(events)
    # A paused game promises nothing to come.
    site.post_form(site.coordinator, "/games/cal/coordinate/pause")
    paused = icalendar.Calendar.from_ical(site.browser().get("/games/cal/calendar.ics").content)
    assert not [e for e in paused.walk("VEVENT") if "status" in e]


# --------------------------------------------------------------------------------------------------
# The API: the order of its checks, its documentation


def test_an_api_call_without_a_key_is_told_it_needs_one(site: Site) -> None:
    """Not a CSRF error: a script that forgot its key must hear what to send."""
    site.new_game("g")
    anon = TestClient(site.app, raise_server_exceptions=False)
    for url, body in (
        ("/api/games/g/powers/France/orders", {"text": "A par H"}),
        ("/api/games/g/powers/France/check", {"text": "A par H"}),
        ("/api/games/g/actions", {"action": "process"}),
        ("/api/games", {"name": "x", "variant": "standard"}),
    ):
        r = anon.post(url, json=body)
        assert r.status_code == 401, (url, r.text)
        assert "needs a key" in r.json()["error"] and "Bearer" in r.json()["error"]
        assert r.headers["www-authenticate"].startswith("Bearer")
    # A signed-in browser without the page's token still gets the CSRF refusal.
    f = site.player("g", "France")
    r = f.post("/api/games/g/powers/France/orders", json={"text": "A par H"})
    assert r.status_code == 403 and "CSRF" in r.json()["error"]


def test_the_api_docs_show_docstrings_as_text_with_code(site: Site) -> None:
    html = site.browser().get("/api/docs").text
    assert "``" not in html and ":mod:" not in html and "`dippouch" not in html
    assert "<code>dippouch adjudicate</code>" in html
    assert "<code>{&#34;error&#34;: ...}</code>" in html or "<code>{&quot;error&quot;: ...}</code>" in html


# --------------------------------------------------------------------------------------------------
# Compression


@pytest.mark.parametrize("encoding", ["zstd", "br", "gzip"])
def test_pages_are_compressed(site: Site, encoding: str) -> None:
    site.new_game("g")
    c = site.browser()
    plain = c.get("/games/g", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers
    r = c.get("/games/g", headers={"Accept-Encoding": encoding})
    assert r.status_code == 200 and r.headers["content-encoding"] == encoding
    assert r.num_bytes_downloaded * 3 < len(r.content)  # the standard map's page: a fifth of it or less
    assert "Spring 1901" in r.text and r.headers["content-security-policy"]  # decoded, with our headers
    api = c.get("/api/variants/standard", headers={"Accept-Encoding": encoding})
    assert api.headers["content-encoding"] == encoding and api.json()["name"] == "standard"


# --------------------------------------------------------------------------------------------------
# Expensive requests: bounded work


def test_order_text_too_long_or_too_many_lines_is_refused_with_the_limit(site: Site) -> None:
    site.new_game("g")
    f = site.player("g", "France")
    long_line = ("A par - " + "Burgandy " * 2300)[:20_000]
    r = site.api(f, "/api/games/g/powers/France/check", {"text": long_line})
    assert r.status_code == 400
    assert r.json()["error"] == "line 1 is 20,000 characters long; an order line has at most 300 (one order a line)"
    many = "\n".join(f"A Parisxq{i} - Burgandyz{i}" for i in range(101))
    r = site.api(f, "/api/games/g/powers/France/check", {"text": many})
    assert r.status_code == 400 and "101 lines of orders; at most 100" in r.json()["error"]
    r = site.api(f, "/api/games/g/powers/France/orders", {"text": many})
    assert r.status_code == 400 and "at most 100" in r.json()["error"]
    r = site.post_form(f, "/games/g/play/France/orders", {"orders": "A par H\n" + "x" * 400})
    assert r.status_code == 400 and "line 2 is 400 characters long" in r.text
    assert f.get("/api/games/g/powers/France").json()["versions"] == []  # nothing recorded
    # Within the bounds every line is checked as before.
    ok = site.api(f, "/api/games/g/powers/France/check", {"text": "\n".join(["A par H"] * 100)})
    assert ok.status_code == 200 and len(ok.json()["lines"]) == 100


def test_adjudicate_over_http_bounds_the_orders_of_a_request(site: Site) -> None:
    c = site.browser()
    req = {"variant": "standard", "orders": {"France": [f"A Parisxq{i} - Burgandyz{i}" for i in range(301)]}}
    r = c.post("/api/adjudicate", json=req)
    assert r.status_code == 400 and r.json()["error"] == (
        "301 orders in one request; the limit here is 300 (all powers together)"
    )
    req = {"variant": "standard", "orders": {"France": ["A par - " + "x" * 400]}}
    r = c.post("/api/adjudicate", json=req)
    assert r.status_code == 400 and "an order of 408 characters; the limit is 300" in r.json()["error"]
    ok = c.post("/api/adjudicate", json={"variant": "standard", "orders": {"France": ["A par - bur"]}})
    assert ok.status_code == 200


def test_each_address_has_a_budget_of_expensive_work(site: Site) -> None:
    """Line checks and adjudications are charged the CPU time they take to the address that asked; once it
    is used up that address is refused (429, with when to come back) and other addresses are not."""
    from dippouch.web.http.budget import WorkBudget

    site.app.state.budget = WorkBudget(0.2, 60.0)  # a tiny share, so that the test needs few requests
    site.new_game("g", variant="w3k")
    from dippouch.catalog import load_variant

    power = load_variant("w3k").power_names[0]
    heavy = "\n".join(f"A Parisxq{i} - Burgandyz{i}" for i in range(40))  # each misspelt: a search
    key = site.seat("g", power, "P")
    attacker = TestClient(site.app, raise_server_exceptions=False, client=("203.0.113.5", 4000))
    bearer = {"Authorization": f"Bearer {key}"}
    codes = []
    for _ in range(60):
        r = attacker.post(f"/api/games/g/powers/{power}/check", json={"text": heavy}, headers=bearer)
        codes.append(r.status_code)
        if r.status_code == 429:
            break
    assert codes[0] == 200 and codes[-1] == 429, codes
    assert "share of the server's work" in r.json()["error"] and int(r.headers["retry-after"]) >= 1
    r = attacker.post("/api/adjudicate", json={"variant": "standard", "orders": {}})
    assert r.status_code == 429
    other = TestClient(site.app, raise_server_exceptions=False, client=("198.51.100.7", 4000))
    assert other.post(f"/api/games/g/powers/{power}/check", json={"text": "A x H"}, headers=bearer).status_code == 200
    assert other.get("/games/g").status_code == 200


def test_expensive_work_runs_one_at_a_time_and_a_full_queue_answers_busy() -> None:
    import threading

    from dippouch.web.http.budget import Lane, WorkBudget
    from dippouch.web.http.security import Busy, TooMany

    budget = WorkBudget(100.0, 60.0, lanes={"check": Lane(1, 1, 10.0, "line checks")}, per_client=1)
    inside, release = threading.Event(), threading.Event()

    def hold() -> str:
        inside.set()
        release.wait(10)
        return "done"

    results: list[str] = []
    first = threading.Thread(target=lambda: results.append(budget.run("a", hold)))
    first.start()
    assert inside.wait(10)
    second = threading.Thread(target=lambda: results.append(budget.run("b", lambda: "second")))
    second.start()
    while budget.waiting["check"] == 0:  # the second waits for the lane
        threading.Event().wait(0.01)
    with pytest.raises(Busy, match="busy"):
        budget.run("c", lambda: "third")  # the queue is full: refused at once, no thread held
    with pytest.raises(TooMany, match="in hand"):
        budget.run("a", lambda: "fourth")  # "a" has its one request in hand
    release.set()
    first.join(10)
    second.join(10)
    assert results == ["done", "second"]


def test_a_pdf_map_is_drawn_once_per_picture(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    """map.pdf is a pure function of the phase's picture: anonymous visitors after the first get it from the
    cache instead of a second or more of drawing each."""
    import dippouch.render

    calls: list[int] = []
    real = dippouch.render.atlas_pdf

    def counted(variant: Variant, svg: str, title: str, paper: str = "a4", lang: str = "en") -> bytes:
        calls.append(1)
        return bytes(real(variant, svg, title, paper, lang))

    monkeypatch.setattr(dippouch.render, "atlas_pdf", counted)
    site.new_game("g")
    pdfs = [site.browser().get("/games/g/map.pdf") for _ in range(3)]
    assert all(r.status_code == 200 and r.content.startswith(b"%PDF") for r in pdfs)
    assert len({r.content for r in pdfs}) == 1
    size = subprocess.run(["pdfinfo", "-"], input=pdfs[0].content, capture_output=True, check=True).stdout
    assert b"A4" in size, size  # on paper, not the drawing's own odd size
    # The atlas: the standard map on one A4 page printed its names at 3.3 pt; the overview and four sheets.
    assert re.search(rb"Pages:\s+5\n", size), size
    assert len(calls) == 1
    site.clock.advance(days=5)
    store_processing.process(site.web.store, "g", now=site.clock(), force=True)
    site.web.touched("g") if hasattr(site.web, "touched") else None
    assert site.browser().get("/games/g/map.pdf").status_code == 200
    assert len(calls) == 2  # a new phase, a new picture, drawn once


def test_a_budget_of_no_work_refuses_with_a_wait_not_a_crash() -> None:
    from dippouch.web.http.budget import WorkBudget
    from dippouch.web.http.security import TooMany

    budget = WorkBudget(0.0, 60.0)
    with pytest.raises(TooMany, match="try again in 60 s"):
        budget.check("203.0.113.9")
