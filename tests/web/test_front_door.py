"""The home page is a front door for players (the players' trial: it read "send your orders with the link your
coordinator gave you", with no way to sign up or start a game): join an open game, start one, practise, sign
up; the coordinator's words only for coordinators."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dippouch.store.people import create_person
from websupport import Site


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


def _door(html: str) -> dict[str, str]:
    """The front door's buttons: their words -> where they go."""
    block = html.split('class="buttons front-door"', 1)[1].split("</p>", 1)[0]
    return {
        text.strip(): href for href, text in re.findall(r'<a class="button[^"]*" href="([^"]+)">([^<]+)</a>', block)
    }


def test_a_visitor_is_offered_the_ways_in(site: Site) -> None:
    page = site.browser().get("/").text
    assert "coordinator gave you" not in page
    assert _door(page) == {
        "Join an open game": "/open",
        "Start a game": "/signin",  # a visitor signs in (or up) first
        "Practise against bots": "#practice",
        "Sign up or sign in": "/signin",
    }


def test_a_signed_in_person_starts_a_game_at_once(site: Site) -> None:
    pid = create_person(site.web.store, "Ann", now=site.clock(), email="ann@example.org")
    c = site.browser()
    c.cookies.set("dp_session", site.web.access.start_session([], now=site.clock(), person_id=pid))
    door = _door(c.get("/").text)
    assert door["Start a game"] == "/new-game" and "Sign up or sign in" not in door


def test_the_front_door_speaks_german(site: Site) -> None:
    door = _door(site.browser().get("/", headers={"Accept-Language": "de"}).text)
    assert door["Einer offenen Partie beitreten"] == "/open" and door["Registrieren oder anmelden"] == "/signin"


def test_the_home_page_leads_to_the_opening_explorer(site: Site) -> None:
    page = site.browser().get("/").text
    assert '<a href="/explorer" id="explorer-link">Opening explorer</a>' in page
    assert site.browser().get("/explorer").status_code == 200
