"""A sandbox's look and page are made once for each state it is in (issue 52: a W3K sandbox's page of 300 checked
lines is half a megabyte, which took 25 ms of the server's CPU to make and compress at every look of anyone
holding its link). Each reader's CSRF field is put into the page made once; a flashed message or a refused form
is never answered from it; a change, even at the same instant (the tests' clock stands still), is never shown
stale."""

from __future__ import annotations

import gzip
import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import dippouch.web.routes.sandbox as routes
from websupport import Site


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


def _made(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Count the sandbox's views made (the real one still runs): whether each had the maps (a page's)."""
    made: list[bool] = []
    real = routes._view

    def counting(o: Any, **kw: Any) -> Any:
        made.append(kw.get("maps") is not None)
        return real(o, **kw)

    monkeypatch.setattr(routes, "_view", counting)
    return made


def _started(c: TestClient) -> tuple[str, str]:
    r = c.post("/api/sandbox", json={"variant": "standard"})
    assert r.status_code == 200, r.text
    return r.json()["edit"], r.json()["share"]


def _csrf_fields(html: str) -> set[str]:
    return set(re.findall(r'name="csrf" value="([^"]+)"', html))


def test_a_look_and_a_page_are_made_once_a_state_and_never_shown_stale(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = _made(monkeypatch)
    c = site.browser()
    edit, share = _started(c)
    made.clear()  # the start's own answer
    first = c.get(f"/api{edit}").json()
    for _ in range(3):
        assert c.get(f"/api{edit}").json() == first
        assert c.get(edit).status_code == 200
    assert made == [False, True]  # one look, one page
    # Changed at the same instant (the clock stands still): both show the new state at once.
    before = site.clock()
    r = c.post(f"/api{edit}/orders", json={"orders": "Germany: A ber - kie", "adjudicate": True})
    assert r.status_code == 200, r.text
    assert site.clock() == before
    after = c.get(f"/api{edit}").json()
    assert after["phase"] != first["phase"] and after["step"]["orders"] == {"Germany": ["A ber - kie"]}
    assert "A ber - kie" in c.get(edit).text
    # The share link's read-only look is an answer of its own (it may not edit), made once too.
    for _ in range(2):
        shared = site.browser().get(f"/api{share}").json()
        assert shared["editable"] is False and shared["phase"] == after["phase"]
    assert made.count(False) == 4  # the edit look and the share look of each state (the change's own answer, too)


def test_each_reader_gets_their_own_csrf_field_in_a_page_made_once(site: Site) -> None:
    c = site.browser()
    edit, share = _started(c)
    readers = [site.browser() for _ in range(3)]
    for reader in readers:
        r = reader.get(share)
        assert r.status_code == 200 and r.headers.get("content-encoding") == "gzip"
        fields = _csrf_fields(r.text)
        assert len(fields) == 1, fields
        assert fields != _csrf_fields(readers[0].get(share).text) or reader is readers[0]
    # The editor's forms, from the page made once, post.
    fields = _csrf_fields(c.get(edit).text)
    r = c.post(f"{edit}/orders", data={"csrf": fields.pop(), "orders": "France: A par - bur"}, follow_redirects=False)
    assert r.status_code == 303, r.text
    assert "A par - bur" in c.get(edit).text


def test_the_page_in_plain_and_gzip_is_the_same_page(site: Site) -> None:
    c = site.browser()
    edit, _ = _started(c)
    zipped = c.get(edit, headers={"Accept-Encoding": "gzip"})
    assert zipped.headers["content-encoding"] == "gzip"
    plain = c.get(edit, headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers
    field = re.compile(r'"m\.[\w-]+"')  # the reader's CSRF token, masked afresh for each answer
    assert field.sub("", zipped.text) == field.sub("", plain.text)
    raw = c.get(f"/api{edit}", headers={"Accept-Encoding": "gzip"})
    assert raw.headers["content-encoding"] == "gzip" and raw.json()["variant"] == "standard"
    assert gzip.decompress(gzip.compress(raw.content)) == raw.content


def test_a_flash_and_a_language_are_never_answered_from_another_reader_s_page(site: Site) -> None:
    c = site.browser()
    edit, share = _started(c)
    assert c.get(edit).status_code == 200  # the English page made
    r = site.post_form(c, f"{edit}/units", {"power": "France", "kind": "A", "where": "bur"})
    assert r.status_code == 303, r.text
    flashed = c.get(edit)
    assert "Placed A bur of France." in flashed.text
    assert "Placed A bur of France." not in c.get(edit).text  # shown once
    assert 'lang="de"' in site.browser().get(share, headers={"Accept-Language": "de"}).text
    assert 'lang="en"' in site.browser().get(share).text
