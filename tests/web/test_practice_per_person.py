"""A signed-in person's practice games count against the person's cap, not their address's (issue 52: every
kind of game a person starts is bounded by the person, bots and all). By address, a person with four addresses
(a phone, home, work, a VPN) had four caps; a visitor not signed in is still counted by address."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from dippouch.store.bots import open_practice_games
from dippouch.store.people.persons import create_person
from dippouch.web.http.security import SESSION_COOKIE
from websupport import Site


@pytest.fixture
def site(tmp_path: Path) -> Site:
    s = Site(f"sqlite:///{tmp_path / 'web.db'}")
    s.app.state.practice_caps = (2, 100)
    return s


def _from(site: Site, address: str, session: str | None = None) -> TestClient:
    c = TestClient(site.app, raise_server_exceptions=False, client=(address, 4000))
    if session is not None:
        c.cookies.set(SESSION_COOKIE, session)
    c.get("/")  # the CSRF cookie
    return c


def _practice(site: Site, c: TestClient) -> int:
    return int(site.post_form(c, "/practice", {"variant": "hundred3", "level": "hold"}).status_code)


def test_a_person_has_one_practice_cap_from_every_address(site: Site) -> None:
    ann = create_person(site.web.store, "Ann", now=site.clock(), email="ann@example.org")

    def session() -> str:
        return str(site.web.access.start_session([], now=site.clock(), person_id=ann))

    assert _practice(site, _from(site, "203.0.113.5", session())) == 303
    assert _practice(site, _from(site, "198.51.100.7", session())) == 303
    refused = site.post_form(_from(site, "192.0.2.9", session()), "/practice", {"variant": "hundred3", "level": "hold"})
    assert refused.status_code == 429
    assert "you already have 2 practice games going (at most 2 at once)" in refused.text
    assert len(open_practice_games(site.web.store)) == 2
    # A visitor not signed in, at Ann's first address, has that address's own allowance.
    assert _practice(site, _from(site, "203.0.113.5")) == 303
