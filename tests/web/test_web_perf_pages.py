"""The anonymous game page cache under change: a change made by another process (a
worker) shows on the next request once the cache's second has passed; while one request remakes a busy
game's page the others are answered with the page as it was instead of waiting; a game made private is
never answered from the cache."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from dippouch.store import GameStore
from dippouch.store import processing as store_processing
from dippouch.web.http.service import PAGE_TTL, STATE_TTL
from websupport import Site


@pytest.fixture
def site(tmp_path: Path) -> Site:
    s = Site(f"sqlite:///{tmp_path / 'web.db'}")
    s.new_game("g", movement="2d")
    s.db = f"sqlite:///{tmp_path / 'web.db'}"  # type: ignore[attr-defined]
    return s


def _worker_processes(site: Site) -> None:
    """Process the open phase from another store, as a worker process would (the web app is not told)."""
    other = GameStore(site.db)  # type: ignore[attr-defined]
    try:
        assert store_processing.process(other, "g", now=site.clock(), force=True) == ["Spring 1901 Movement"]
    finally:
        other.close()


def _wait_out_the_caches() -> None:
    time.sleep(max(PAGE_TTL, STATE_TTL) + 0.1)


def test_a_change_by_another_process_shows_on_the_next_request(site: Site) -> None:
    anon = site.browser()
    assert ">Spring 1901 Movement<" in anon.get("/games/g").text
    _worker_processes(site)
    _wait_out_the_caches()
    page = anon.get("/games/g").text
    assert ">Fall 1901 Movement<" in page and ">Spring 1901 Movement<" not in page.split("History")[0]


def test_while_one_request_remakes_the_page_the_others_get_the_previous_one(site: Site) -> None:
    anon = site.browser()
    assert ">Spring 1901 Movement<" in anon.get("/games/g").text
    _worker_processes(site)
    _wait_out_the_caches()
    building = site.web.page_lock("g")
    assert building.acquire(blocking=False)  # another request is remaking the page
    with ThreadPoolExecutor(1) as pool:
        asked = pool.submit(anon.get, "/games/g")
        try:
            r = asked.result(timeout=10)  # answered at once, not after the other request
        finally:
            building.release()
    assert r.status_code == 200 and ">Spring 1901 Movement<" in r.text
    assert ">Fall 1901 Movement<" in anon.get("/games/g").text


def test_a_game_made_private_is_not_answered_from_the_cache(site: Site) -> None:
    """Made private by another process (the app is not told): once the cache's second has passed, the
    cached page is not served; the visitor gets the 404 a private game gives."""
    from dippouch.store.access import AccessStore

    anon = site.browser()
    assert anon.get("/games/g").status_code == 200
    other = GameStore(site.db)  # type: ignore[attr-defined]
    try:
        AccessStore(other).set_visibility("g", "private")
    finally:
        other.close()
    _wait_out_the_caches()
    assert anon.get("/games/g").status_code == 404
