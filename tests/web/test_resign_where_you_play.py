"""Resign where a player looks for it (the players' trial: only on the opening page, which nothing links to once
the game runs): on their own player page, with a confirmation, and from /me; not for a key alone, nor in a game its
coordinator runs (no replacement pool there: the coordinator hands a seat on); a finished game on /me says so
rather than "– –"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dippouch.store.people.persons import create_person
from websupport import Site


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


def _person(site: Site, name: str) -> Any:
    pid = create_person(site.web.store, name, now=site.clock(), email=f"{name.lower()}@example.org")
    c = site.browser()
    c.cookies.set("dp_session", site.web.access.start_session([], now=site.clock(), person_id=pid))
    c.get("/")
    return c


def _running(site: Site) -> list[Any]:
    """A hundred3 game opened for players, its three seats taken by sign-ups: Ann plays England."""
    site.new_game("hy", "hundred3")
    r = site.api(site.coordinator, "/api/games/hy/opening", {"mode": "preferences"})
    assert r.status_code == 200, r.text
    people = [_person(site, n) for n in ("Ann", "Bo", "Cy")]
    for c, power in zip(people, ("England", "France", "Burgundy"), strict=True):
        assert site.api(c, "/api/games/hy/signup", {"preferences": [power]}).status_code == 200
    return people


def _csrf(html: str) -> str:
    return html.split('name="csrf" value="', 1)[1].split('"', 1)[0]


PLAY = "/games/hy/play/England"


def test_a_player_resigns_from_their_own_page_after_confirming(site: Site) -> None:
    ann = _running(site)[0]
    page = ann.get(PLAY)
    assert page.status_code == 200
    assert 'id="leave"' in page.text and 'action="/games/hy/opening/resign"' in page.text
    assert f'href="{PLAY}#leave"' in ann.get("/me").text
    # Not ticked: refused, and nothing changes.
    r = ann.post("/games/hy/opening/resign", data={"csrf": _csrf(page.text)}, follow_redirects=False)
    assert r.status_code in (303, 400) and ann.get(PLAY).status_code == 200
    r = ann.post("/games/hy/opening/resign", data={"csrf": _csrf(page.text), "confirm": "yes"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/me"
    me = ann.get("/me").text
    assert f'href="{PLAY}#leave"' not in me


def test_a_key_alone_is_not_offered_to_resign(site: Site) -> None:
    _running(site)
    site.new_game("coordinated")
    key = site.seat("coordinated", "France", "Francis")
    c = site.browser()
    c.get(f"/k/{key}", headers={"Sec-Fetch-Site": "none"})
    page = c.get("/games/coordinated/play/France")
    assert page.status_code == 200 and 'id="leave"' not in page.text


def test_a_game_its_coordinator_runs_offers_no_resign(site: Site) -> None:
    from dippouch.store.people import accounts as store_accounts

    site.new_game("coordinated")
    c = _person(site, "Gerda")
    site.seat("coordinated", "Germany", "Gerda")
    pid = site.web.access.session_info(c.cookies.get("dp_session"), now=site.clock())[1]
    store_accounts.claim_seat(site.web.store, "coordinated", "Germany", pid, now=site.clock())
    page = c.get("/games/coordinated/play/Germany")
    assert page.status_code == 200 and 'id="leave"' not in page.text
    assert "#leave" not in c.get("/me").text


def test_the_resign_form_speaks_german(site: Site) -> None:
    ann = _running(site)[0]
    page = ann.get(PLAY, headers={"Accept-Language": "de"}).text
    assert "Diese Partie verlassen" in page and "Ersatzpool" in page
