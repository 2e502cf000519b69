"""Absences on the web: a person records a holiday once on their own page; every game of theirs shows the days
(never the reason); at the deadline the game's policy is applied (an extension appears on the game page and
in its calendar feed; a stand-in may order the seat while, and only while, its player is away); and the
refusals, from the attacker's side."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest
from test_roster_web import _api, person_browser, seated_person

from dippouch.store import history as store_history
from dippouch.store import status as store_status
from dippouch.store.people.persons import create_person
from dippouch.worker.service import process_due
from websupport import Site, page_words


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


def _deadline(site: Site, game: str) -> datetime:
    d = store_status.status(site.web.store, game, now=site.clock()).deadline
    assert isinstance(d, datetime)
    return d


def test_a_holiday_recorded_once_shows_in_every_game_without_its_reason(site: Site) -> None:
    for game in ("alpha", "beta"):
        site.new_game(game, "standard", movement="2d")
    ann_id, ann = seated_person(site, "alpha", "France", "Ann")
    site.seat("beta", "Italy", "Ann")
    from dippouch.store.people.persons import seat_person

    seat_person(site.web.store, "beta", "Italy", ann_id, now=site.clock())
    # The site's clock: 1 December 2026.
    r = site.post_form(ann, "/me/absences", {"from": "3 Dec 2026", "to": "1 Dec 2026", "reason": "wedding"})
    assert (
        r.status_code == 400 and "did you mean from 2026-12-01 to 2026-12-03?" in r.text and 'value="wedding"' in r.text
    )
    r = site.post_form(ann, "/me/absences", {"from": "2026-11-20", "to": "2026-11-25"})
    assert r.status_code == 400 and "to: 2026-11-25 has passed" in r.text
    r = site.post_form(ann, "/me/absences", {"from": "3 Dec 2026", "to": "21 Dec 2026", "reason": "wedding in Brest"})
    assert r.status_code == 303
    mine = ann.get("/me/absences").text
    assert "away 3\u201321 Dec" in mine and "wedding in Brest" in mine
    anyone = site.browser()
    for game, power in (("alpha", "France"), ("beta", "Italy")):
        # The game's own people read the days (a visitor does not: tests/people/test_absences_privacy.py).
        page = ann.get(f"/games/{game}").text
        assert f"{power} (Ann): away 3\u201321 Dec" in page_words(page) and "wedding" not in page
        api = site.coordinator.get(f"/api/games/{game}/absences").json()
        assert api["away"] == [
            {"power": power, "player": "Ann", "person_id": ann_id, "text": "away 3\u201321 Dec", "now": False}
        ]
        assert "wedding" not in anyone.get(f"/api/games/{game}").text
        assert "wedding" not in anyone.get(f"/games/{game}/export.json").text
    got = ann.get("/api/me/absences").json()
    assert [(a["first_day"], a["last_day"], a["reason"]) for a in got["absences"]] == [
        ("2026-12-03", "2026-12-21", "wedding in Brest")
    ]
    absence_id = got["absences"][0]["id"]
    # Nobody else removes it; the owner does.
    eve = person_browser(site, create_person(site.web.store, "Eve", now=site.clock()))
    r = site.post_form(eve, f"/me/absences/{absence_id}/delete")
    assert r.status_code == 400 and f"you have no absence #{absence_id}" in r.text and "Record an absence" in r.text
    assert _api(site, eve, "DELETE", f"/api/me/absences/{absence_id}").status_code == 400
    assert ann.post(f"/me/absences/{absence_id}/delete", follow_redirects=False).status_code == 403  # no token
    assert (
        site.browser().post("/api/me/absences", json={"first_day": "2026-12-03", "last_day": "2026-12-04"}).status_code
        == 401
    )
    done = _api(site, ann, "DELETE", f"/api/me/absences/{absence_id}")
    assert done.status_code == 200
    assert done.json() == {
        "message": f"absence #{absence_id} removed",  # English, the API's language when none is asked for
        "code": "absence #%(id)s removed",
        "params": {"id": absence_id},
    }
    assert "away 3" not in ann.get("/games/alpha").text


def test_an_extension_at_the_deadline_shows_on_the_game_page_and_in_its_calendar(site: Site) -> None:
    site.new_game("g", "standard", movement="2d")
    _, ann = seated_person(site, "g", "France", "Ann")
    r = site.post_form(site.coordinator, "/games/g/roster/settings", {"absence_policy": "extend", "budget_days": "7"})
    assert r.status_code == 303
    deadline = _deadline(site, "g")
    away_to = deadline.date() + timedelta(days=2)
    r = _api(
        site,
        ann,
        "POST",
        "/api/me/absences",
        {"first_day": deadline.date().isoformat(), "last_day": away_to.isoformat()},
    )
    assert r.status_code == 200
    site.clock.at = deadline + timedelta(minutes=1)
    assert process_due(site.web.store, now=site.clock()) == []  # extended, not processed
    new = _deadline(site, "g")
    assert new == deadline + timedelta(days=3)
    page = site.browser().get("/games/g").text
    assert "France was away: deadline extended by 3 days" in page
    ics = site.browser().get("/games/g/calendar.ics").text
    assert f"DTSTART:{new:%Y%m%dT%H%M%SZ}" in ics and f"DTSTART:{deadline:%Y%m%dT%H%M%SZ}" not in ics
    applied = site.browser().get("/api/games/g/absences").json()["applied"]
    assert [(a["power"], a["policy"], a["days"]) for a in applied] == [("France", "extend", 3.0)]


def test_a_stand_in_plays_the_seat_only_while_its_player_is_away(site: Site) -> None:
    site.new_game("g", "standard", movement="2d")
    _, ann = seated_person(site, "g", "France", "Ann")
    bo_id = create_person(site.web.store, "Bo", now=site.clock(), email="bo@example.org")
    r = site.post_form(
        site.coordinator, "/games/g/roster/settings", {"absence_policy": "stand_in", "stand_in": "BO@example.org"}
    )
    assert r.status_code == 303
    r = site.post_form(ann, "/me/absences", {"from": "2026-12-02", "to": "2026-12-03"})
    assert r.status_code == 303
    bo = person_browser(site, bo_id)
    assert bo.get("/games/g/play/France").status_code == 403  # 1 December: Ann is here
    site.clock.advance(days=1)
    bo = person_browser(site, bo_id)
    assert bo.get("/games/g/play/France").status_code == 200
    r = _api(site, bo, "POST", "/api/games/g/powers/France/orders", {"text": "A par - bur"})
    assert r.status_code == 200, r.text
    assert bo.get("/games/g/play/Italy").status_code == 403  # only the absent player's seat
    page = site.coordinator.get("/games/g").text
    assert "France (Ann): away 2–3 Dec" in page_words(page) and "stand-in orders the seat (Bo)" in page_words(page)
    site.clock.advance(days=2)  # 4 December: Ann is back
    assert person_browser(site, bo_id).get("/games/g/play/France").status_code == 403


def test_in_w3k_a_player_names_the_ally_who_gives_proxy_orders_while_they_are_away(site: Site) -> None:
    site.new_game("powick", "w3k", movement="2d")
    site.new_game("edgehill", "standard", movement="2d")
    _, ann = seated_person(site, "powick", "Crown", "Ann")
    r = site.post_form(site.coordinator, "/games/edgehill/roster/settings", {"absence_policy": "proxy"})
    assert r.status_code == 400 and "absence_policy: standard&#39;s rules have no proxy orders" in r.text
    assert 'value="proxy"' not in site.coordinator.get("/games/edgehill/roster").text
    assert 'value="proxy"' in site.coordinator.get("/games/powick/roster").text
    assert (
        site.post_form(site.coordinator, "/games/powick/roster/settings", {"absence_policy": "proxy"}).status_code
        == 303
    )
    page = ann.get("/me/absences").text
    assert (
        "an ally the player names orders their units (proxy orders)" in page and "<option>Cumberland</option>" in page
    )
    r = site.post_form(ann, "/me/absences/ally", {"game": "powick", "ally": "Crown"})
    assert r.status_code == 400 and "powick: ally: Crown is your own power; name another" in r.text
    r = site.post_form(ann, "/me/absences/ally", {"game": "powick", "ally": "Cumberland"})
    assert r.status_code == 303
    assert "<option selected>Cumberland</option>" in ann.get("/me/absences").text
    got = ann.get("/api/me/absences").json()["games"]
    assert [(g["game"], g["ally"]) for g in got] == [("powick", "Cumberland")]
    # Someone who plays no seat there names no ally for it.
    eve = person_browser(site, create_person(site.web.store, "Eve", now=site.clock()))
    r = _api(site, eve, "POST", "/api/me/absences/ally", {"game": "powick", "ally": "Cumberland"})
    assert r.status_code == 400 and r.json()["error"] == "you play no seat in powick"
    assert site.browser().post("/api/me/absences/ally", json={"game": "powick"}).status_code == 401
    assert _api(site, ann, "POST", "/api/me/absences/ally", {"game": "powick", "ally": ""}).json() == {
        "game": "powick",
        "ally": None,
    }


def test_a_private_games_stand_in_sees_every_page_of_the_game_while_standing_in(site: Site) -> None:
    """One rule for who sees a private game, at every route: its players, its coordinators and, while a player
    is away, the stand-in of that seat (the board, a phase, the replay, the records, the calendar)."""
    site.new_game("g", "standard", movement="2d", visibility="private")
    _, ann = seated_person(site, "g", "France", "Ann")
    bo_id = create_person(site.web.store, "Bo", now=site.clock(), email="bo@example.org")
    r = site.post_form(
        site.coordinator, "/games/g/roster/settings", {"absence_policy": "stand_in", "stand_in": "bo@example.org"}
    )
    assert r.status_code == 303
    assert site.post_form(ann, "/me/absences", {"from": "2026-12-02", "to": "2026-12-03"}).status_code == 303
    first = store_history.phase_record(site.web.store, "g", "Spring 1901 Movement", open_ok=True)["id"]
    pages = ["/games/g", f"/games/g/phases/{first}", "/games/g/replay", "/games/g/records", "/games/g/calendar.ics"]
    bo = person_browser(site, bo_id)
    assert [bo.get(p).status_code for p in pages] == [404] * len(pages)  # 1 December: Ann is here
    site.clock.advance(days=1)
    bo = person_browser(site, bo_id)
    assert [bo.get(p).status_code for p in pages] == [200] * len(pages)
