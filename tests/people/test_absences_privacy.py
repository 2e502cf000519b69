"""What a visitor is not told of a game's people: when its players are away (the game's own people are), and
on a person's public profile, the private games they play (it counts only games the reader may see)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_roster_web import _api, person_browser, seated_person

from dippouch.store.people.persons import create_person, seat_person
from websupport import Site, page_words

AWAY = "France (Ann): away 3\u201321 Dec"


@pytest.fixture
def site(tmp_path: Path) -> Site:
    s = Site(f"sqlite:///{tmp_path / 'web.db'}")
    s.new_game("g", "standard", movement="2d")
    return s


def _ann_away(site: Site) -> None:
    _, ann = seated_person(site, "g", "France", "Ann")
    r = _api(site, ann, "POST", "/api/me/absences", {"first_day": "2026-12-03", "last_day": "2026-12-21"})
    assert r.status_code == 200, r.text


def test_a_players_holiday_is_shown_to_the_games_people_not_to_visitors(site: Site) -> None:
    _ann_away(site)
    stranger = person_browser(site, create_person(site.web.store, "Eve", now=site.clock()))
    elsewhere = site.player(site.new_game("other"), "Italy", "Cy")
    for who, c in (("visitor", site.browser()), ("stranger", stranger), ("player elsewhere", elsewhere)):
        page = c.get("/games/g")
        assert page.status_code == 200 and "away 3" not in page.text, who
        assert c.get("/api/games/g").json()["absences"]["away"] == [], who
    co_player = site.player("g", "England", "Ed")
    for who, c in (("co-player", co_player), ("coordinator", site.coordinator)):
        assert AWAY in page_words(c.get("/games/g").text), who
        away = c.get("/api/games/g").json()["absences"]["away"]
        assert [(a["power"], a["text"]) for a in away] == [("France", "away 3\u201321 Dec")], who


def test_the_absences_call_tells_a_visitor_nobodys_holiday(site: Site) -> None:
    _ann_away(site)
    assert site.coordinator.get("/api/games/g/absences").json()["away"] != []
    assert site.browser().get("/api/games/g/absences").json()["away"] == []


def _games_played(c: object, pid: int) -> tuple[int, int, str]:
    data = c.get(f"/api/people/{pid}").json()  # type: ignore[attr-defined]
    page = c.get(f"/people/{pid}").text  # type: ignore[attr-defined]
    m = re.search(r'id="games-played">(\d+)<', page)
    assert m, page
    return data["games"], data["record"]["seats"], m.group(1)


def test_a_public_profile_counts_only_the_games_its_reader_may_see(site: Site) -> None:
    site.new_game("priv", "standard", movement="2d", visibility="private")
    alice_id, alice = seated_person(site, "g", "France", "Alice")
    site.seat("priv", "England", "Alice")
    seat_person(site.web.store, "priv", "England", alice_id, now=site.clock())
    stranger = person_browser(site, create_person(site.web.store, "Eve", now=site.clock()))
    for who, c in (("visitor", site.browser()), ("stranger", stranger), ("co-player of g", site.player("g", "Italy"))):
        assert _games_played(c, alice_id) == (1, 1, "1"), who
    for who, c in (("Alice", alice), ("the installation's coordinator", site.coordinator)):
        assert _games_played(c, alice_id) == (2, 2, "2"), who
    # A game made public again counts for everyone again.
    site.web.access.set_visibility("priv", "public")
    assert _games_played(site.browser(), alice_id) == (2, 2, "2")
