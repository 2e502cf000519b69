"""Last-Modified beside the ETag: a game's page (a visitor's and a signed-in reader's), its JSON, its map and its
calendar say when what they show last changed, and a request naming that date (If-Modified-Since, without an
ETag) is answered "304 Not Modified" until the game changes. An ETag sent with it wins (RFC 9110, section
13.1.3); a date that does not read is ignored; a change within the second an answer was made never hides behind
its date."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime, parsedate_to_datetime
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from dippouch.store import GameStore
from dippouch.store import processing as store_processing
from dippouch.web.views.page_cache import last_modified
from websupport import Site

KINDS = ["/games/g", "/api/games/g", "/games/g/map.svg", "/games/g/calendar.ics"]


@pytest.fixture
def site(tmp_path: Path) -> Site:
    s = Site(f"sqlite:///{tmp_path / 'web.db'}", limits={})
    s.new_game("g", movement="2d")
    s.db = f"sqlite:///{tmp_path / 'web.db'}"  # type: ignore[attr-defined]
    return s


def _process(site: Site) -> None:
    """A phase processed by another process (a worker), a minute later."""
    site.clock.advance(minutes=1)
    other = GameStore(site.db)  # type: ignore[attr-defined]
    try:
        assert store_processing.process(other, "g", now=site.clock(), force=True) == ["Spring 1901 Movement"]
    finally:
        other.close()
    site.web.touched("g")


def _reader(site: Site, who: str) -> TestClient:
    return site.player("g", "France", "Fay") if who == "player" else site.browser()


@pytest.mark.parametrize("who", ["visitor", "player"])
@pytest.mark.parametrize("url", KINDS)
def test_an_answer_unchanged_since_its_date_is_304(site: Site, url: str, who: str) -> None:
    c = _reader(site, who)
    first = c.get(url)
    assert first.status_code == 200, first.text[:300]
    stamp = first.headers["last-modified"]
    assert parsedate_to_datetime(stamp) <= site.clock()
    again = c.get(url, headers={"If-Modified-Since": stamp})
    assert again.status_code == 304 and again.content == b""
    assert again.headers["last-modified"] == stamp and again.headers["etag"] == first.headers["etag"]
    _process(site)
    changed = c.get(url, headers={"If-Modified-Since": stamp})
    assert changed.status_code == 200
    assert parsedate_to_datetime(changed.headers["last-modified"]) > parsedate_to_datetime(stamp)


@pytest.mark.parametrize("url", KINDS)
def test_the_etag_wins_when_both_are_sent(site: Site, url: str) -> None:
    c = site.browser()
    first = c.get(url)
    stamp, etag = first.headers["last-modified"], first.headers["etag"]
    # A date that would say unchanged, with an ETag that does not match: the ETag decides.
    got = c.get(url, headers={"If-Modified-Since": stamp, "If-None-Match": 'W/"another"'})
    assert got.status_code == 200
    # A matching ETag with a date before the change: the ETag decides again.
    old = format_datetime(datetime(2000, 1, 1, tzinfo=UTC), usegmt=True)
    assert c.get(url, headers={"If-Modified-Since": old, "If-None-Match": etag}).status_code == 304


@pytest.mark.parametrize("url", KINDS)
def test_a_date_that_does_not_read_or_is_older_is_answered_in_full(site: Site, url: str) -> None:
    c = site.browser()
    stamp = parsedate_to_datetime(c.get(url).headers["last-modified"])
    for asked in ("yesterday", "", format_datetime(stamp - timedelta(seconds=1), usegmt=True)):
        assert c.get(url, headers={"If-Modified-Since": asked}).status_code == 200, asked


def test_a_visitor_without_the_page_s_token_is_never_told_its_page_is_unchanged(site: Site) -> None:
    """A page's forms carry the visitor's CSRF token: one who has no token (a new browser, cookies cleared)
    gets the page with a new one, whatever date it names."""
    stamp = site.browser().get("/games/g").headers["last-modified"]
    fresh = TestClient(site.app, raise_server_exceptions=False)
    got = fresh.get("/games/g", headers={"If-Modified-Since": stamp})
    assert got.status_code == 200 and 'name="csrf"' in got.text


def test_a_second_change_within_the_same_second_is_never_taken_for_unchanged() -> None:
    at = datetime(2030, 5, 1, 10, 0, 0, 200_000, tzinfo=UTC)
    # Made within the changed second: dated down, so that date confirms nothing of this second.
    within = last_modified(at, at + timedelta(milliseconds=300))
    assert within == datetime(2030, 5, 1, 10, 0, 0, tzinfo=UTC) and within < at
    # Made once the second is over: dated up, which later changes all come after.
    after = last_modified(at, at + timedelta(seconds=2))
    assert after == datetime(2030, 5, 1, 10, 0, 1, tzinfo=UTC) and after >= at
    whole = datetime(2030, 5, 1, 10, 0, 0, tzinfo=UTC)
    assert last_modified(whole, whole) == whole
