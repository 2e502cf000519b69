"""Conditional requests: a game's page, its JSON, its map and its calendar carry an ETag, and a request naming
it (If-None-Match) is answered "304 Not Modified" with no body until the game changes. An ETag is the reader's
own: a signed-in person's never matches another reader's request, nor a visitor's, and an answer says it varies
with the reader's language and cookies."""

from __future__ import annotations

from pathlib import Path

import pytest

from dippouch.store import GameStore
from dippouch.store import processing as store_processing
from websupport import Site


@pytest.fixture
def site(tmp_path: Path) -> Site:
    s = Site(f"sqlite:///{tmp_path / 'web.db'}", limits={})
    s.new_game("g", movement="2d")
    s.db = f"sqlite:///{tmp_path / 'web.db'}"  # type: ignore[attr-defined]
    return s


def _process(site: Site) -> None:
    other = GameStore(site.db)  # type: ignore[attr-defined]
    try:
        assert store_processing.process(other, "g", now=site.clock(), force=True) == ["Spring 1901 Movement"]
    finally:
        other.close()
    site.web.touched("g")  # as a worker's change shows here within the second the state is trusted


@pytest.mark.parametrize("url", ["/games/g", "/api/games/g", "/games/g/map.svg", "/games/g/calendar.ics"])
def test_an_unchanged_answer_is_304_with_no_body(site: Site, url: str) -> None:
    c = site.browser()
    first = c.get(url)
    assert first.status_code == 200, first.text
    etag = first.headers["etag"]
    assert etag.startswith('W/"')
    assert "no-cache" in first.headers["cache-control"] and "private" in first.headers["cache-control"]
    assert {"Accept-Language", "Cookie"} <= {v.strip() for v in first.headers["vary"].split(",")}
    again = c.get(url, headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    assert again.headers["etag"] == etag
    assert c.get(url, headers={"If-None-Match": 'W/"something else"'}).status_code == 200
    _process(site)
    changed = c.get(url, headers={"If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["etag"] != etag


def test_a_submission_changes_the_game_s_etag(site: Site) -> None:
    france = site.player("g", "France", "Fay")
    anon = site.browser()
    etag = anon.get("/api/games/g").headers["etag"]
    assert site.post_form(france, "/games/g/play/France/orders", {"orders": "A par - bur"}).status_code == 303
    got = anon.get("/api/games/g", headers={"If-None-Match": etag})
    assert got.status_code == 200 and got.headers["etag"] != etag
    france_row = next(p for p in got.json()["powers"] if p["power"] == "France")
    assert france_row["submitted"]


def test_a_signed_in_page_s_etag_is_never_another_reader_s(site: Site) -> None:
    fay, ida = site.player("g", "France", "Fay"), site.player("g", "Italy", "Ida")
    mine = fay.get("/games/g")
    assert mine.status_code == 200 and "Orders for France" in mine.text
    etag = mine.headers["etag"]
    assert fay.get("/games/g", headers={"If-None-Match": etag}).status_code == 304
    for other in (ida, site.browser()):
        got = other.get("/games/g", headers={"If-None-Match": etag})
        assert got.status_code == 200 and "Orders for France" not in got.text
    # The same page in another language is another answer.
    assert fay.get("/games/g", headers={"If-None-Match": etag, "Accept-Language": "de"}).status_code == 200


def test_a_one_time_message_is_never_answered_304(site: Site) -> None:
    c = site.browser()
    etag = c.get("/games/g").headers["etag"]
    c.cookies.set("dp_flash", "Saved")
    got = c.get("/games/g", headers={"If-None-Match": etag})
    assert got.status_code == 200 and "Saved" in got.text


def test_a_game_the_reader_may_not_see_is_404_whatever_the_etag(site: Site) -> None:
    from dippouch.store.access import AccessStore

    c = site.browser()
    etags = {u: c.get(u).headers["etag"] for u in ("/games/g", "/api/games/g", "/games/g/calendar.ics")}
    AccessStore(site.web.store).set_visibility("g", "private")
    site.web.touched("g")
    for url, etag in etags.items():
        assert c.get(url, headers={"If-None-Match": etag}).status_code == 404, url


def test_an_answers_vary_names_each_header_once(tmp_path: Path) -> None:
    """A route, the page's cache and the compression each add the headers an answer depends on; the answer
    says them in one Vary, each once (a game page said Accept-Language, Cookie and Accept-Encoding twice)."""
    site = Site(f"sqlite:///{tmp_path / 'vary.db'}")
    site.new_game("g")
    for coding in ("identity", "gzip", "br"):
        for path in ("/games/g", "/games/g/phases/1/map-board.svg", "/", "/api/games/g"):
            r = site.browser().get(path, headers={"Accept-Encoding": coding})
            assert r.status_code == 200, (path, r.text[:200])
            said = r.headers.get_list("vary")
            assert len(said) <= 1, (path, coding, said)
            names = [n.strip().lower() for n in said[0].split(",")] if said else []
            assert len(names) == len(set(names)), (path, coding, said)
            if path == "/games/g":
                assert {"accept-language", "cookie", "accept-encoding"} <= set(names), (coding, said)
