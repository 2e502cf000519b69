"""Open games on the web, as people use them: the list (page and JSON), signing up with wishes, the game
drawn when full, the coordinator's desk of sign-ups, the replacement pool with its claim, and a person's
public page (never an address)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from dippouch.store import games as store_games
from dippouch.store.people.persons import create_person, seats_of
from dippouch.web.http.security import SESSION_COOKIE
from websupport import Site


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


def person_browser(site: Site, name: str, email: str | None = None) -> tuple[int, Any]:
    """A new person and a browser signed in as them (what the mailed sign-in link leaves behind)."""
    pid = create_person(site.web.store, name, now=site.clock(), email=email)
    token = site.web.access.start_session([], now=site.clock(), person_id=pid)
    c = site.browser()
    c.cookies.set(SESSION_COOKIE, token)
    c.get("/")  # the session's CSRF token, in the cookie the page sets
    return pid, c


def open_game(site: Site, name: str = "hy", variant: str = "hundred3", **body: Any) -> str:
    site.new_game(name, variant)
    r = site.api(site.coordinator, f"/api/games/{name}/opening", {"mode": "preferences", **body})
    assert r.status_code == 200, r.text
    return name


def test_the_list_shows_what_an_open_game_asks_as_a_page_and_as_json(site: Site) -> None:
    # The press the list shows is the game's own rules in words (the ones every door checks).
    open_game(site, press_rules={"kind": "none"}, min_reliability=0)
    visitor = site.browser()
    listing = visitor.get("/api/open").json()
    (g,) = listing["games"]
    gunboat = "No press (gunboat): only the coordinator's announcements."
    assert (g["game"], g["variant"], g["press"], g["seats_taken"], g["seats_total"]) == (
        "hy",
        "hundred3",
        gunboat,
        0,
        3,
    )
    assert g["deadlines"]["movement"] and g["min_reliability"] == 0 and g["mode"] == "preferences"
    page = visitor.get("/open").text
    assert "No press (gunboat)" in page and "0 of 3 played" in page and "/games/hy/opening" in page


def test_people_sign_up_with_wishes_and_the_full_game_seats_them(site: Site) -> None:
    open_game(site)
    ann, a = person_browser(site, "Ann")
    bo, b = person_browser(site, "Bo")
    _, c = person_browser(site, "Cy")
    r = site.api(a, "/api/games/hy/signup", {"preferences": ["England", "any"]})
    assert r.status_code == 200
    got = r.json()
    # A sign-up is not a seat: 0 played, 1 signed up, 3 empty (the trial read "1/3 taken" here).
    assert (got["signed_up"], got["seated_as"], got["seats_taken"], got["signups"], got["seats_empty"]) == (
        True,
        None,
        0,
        1,
        3,
    )
    # By the form, as a browser without JavaScript sends it.
    r = site.post_form(b, "/games/hy/opening/signup", {"wish1": "France", "wish2": ""})
    assert r.status_code == 303 and r.headers["location"] == "/games/hy/opening"
    page = b.get("/games/hy/opening").text
    assert "You are signed up (wishes: France)" in page
    r = site.api(c, "/api/games/hy/signup", {"preferences": ["Burgundy"]})
    assert r.json()["seated_as"] == "Burgundy"
    assert {s.power for s in seats_of(site.web.store, ann)} == {"England"}
    assert {s.power for s in seats_of(site.web.store, bo)} == {"France"}
    # A person's seat opens its player page in their own browser, without a key.
    assert a.get("/games/hy/play/England").status_code == 200
    assert site.browser().get("/api/open").json()["games"] == []


def test_a_person_withdraws_before_the_draw(site: Site) -> None:
    open_game(site)
    _, a = person_browser(site, "Ann")
    site.api(a, "/api/games/hy/signup", {"preferences": []})
    r = site.api(a, "/api/games/hy/withdraw")
    assert r.status_code == 200 and r.json()["signed_up"] is False
    assert site.browser().get("/api/open").json()["games"][0]["seats_taken"] == 0


def test_the_coordinators_desk_shows_wishes_and_reliability_and_assigns(site: Site) -> None:
    open_game(site, mode="coordinator")
    ann, a = person_browser(site, "Ann")
    site.api(a, "/api/games/hy/signup", {"preferences": ["France", "any"]})
    desk = site.coordinator.get("/api/games/hy/opening").json()
    assert desk["waiting"] == [
        {
            "person": ann,
            "name": "Ann",
            "preferences": ["France", "any"],
            "reliability": None,
            "signed_at": desk["waiting"][0]["signed_at"],
        }
    ]
    page = site.coordinator.get("/games/hy/opening").text
    assert "France, any" in page and "no record" in page
    # Others see the opening but not who signed up.
    assert "waiting" not in site.browser().get("/api/games/hy/opening").json()
    r = site.post_form(site.coordinator, "/games/hy/opening/assign", {"person": str(ann), "power": "France"})
    assert r.status_code == 303, r.text
    assert [s.power for s in seats_of(site.web.store, ann)] == ["France"]


def test_a_freed_seat_is_claimed_from_the_pool_and_the_old_link_stops_working(site: Site) -> None:
    site.new_game("hy", "hundred3")
    old_key = site.seat("hy", "England", "Old Player")
    old = site.browser(old_key)
    assert old.get("/games/hy/play/England").status_code == 200
    site.api(site.coordinator, "/api/games/hy/opening", {"mode": "coordinator"})
    r = site.api(site.coordinator, "/api/games/hy/opening/free", {"power": "England"})
    assert r.status_code == 200, r.text
    _, b = person_browser(site, "Bo")
    listing = b.get("/open").text
    assert "Replacement wanted" in listing and 'aria-label="Claim England in hy"' in listing
    assert b.get("/api/open").json()["replacements"] == [
        {
            "game": "hy",
            "variant": "hundred3",
            "power": "England",
            "reason": "freed",
            "min_reliability": 0,
            "deadline": None,
        }
    ]
    r = site.post_form(b, "/games/hy/opening/claim", {"power": "England"})
    assert r.status_code == 303 and r.headers["location"] == "/games/hy/play/England"
    assert b.get("/games/hy/play/England").status_code == 200
    assert old.get("/games/hy/play/England").status_code == 403  # the old player's key is revoked
    history = {p: hist for p, _, hist in store_games.players(site.web.store, "hy")}["England"]
    assert [h[0] for h in history] == ["Old Player", "Bo"]


def test_a_persons_page_shows_name_games_and_reliability_and_never_an_address(site: Site) -> None:
    open_game(site, mode="coordinator")
    ann, a = person_browser(site, "Ann", email="ann.secret@example.org")
    site.api(a, "/api/games/hy/signup", {"preferences": ["France"]})
    site.api(site.coordinator, "/api/games/hy/opening/assign", {"person": ann, "power": "France"})
    visitor = site.browser()
    page = visitor.get(f"/people/{ann}")
    assert page.status_code == 200
    assert re.search(r'id="games-played">1<', page.text) and "no record yet" in page.text
    data = visitor.get(f"/api/people/{ann}").json()
    assert data == {
        "id": ann,
        "name": "Ann",
        "games": 1,
        "reliability": None,
        "record": {"on_time": 0, "late": 0, "missed": 0, "excused": 0, "seats": 1, "abandoned": 0},
    }
    assert "ann.secret" not in page.text and "example.org" not in page.text
    assert visitor.get("/people/999").status_code == 404
    assert visitor.get("/api/people/999").status_code == 404


def test_the_coordinator_draws_for_those_waiting_before_the_game_is_full(site: Site) -> None:
    open_game(site)
    ann, a = person_browser(site, "Ann")
    site.api(a, "/api/games/hy/signup", {"preferences": ["France"]})
    r = site.post_form(site.coordinator, "/games/hy/opening/draw")
    assert r.status_code == 303, r.text
    assert [s.power for s in seats_of(site.web.store, ann)] == ["France"]
    desk = site.coordinator.get("/api/games/hy/opening").json()
    assert desk["draw"]["powers"] == {str(ann): "France"} and desk["open"] is True
    r = site.api(site.coordinator, "/api/games/hy/opening/draw")
    assert r.status_code == 400 and r.json()["error"] == "nobody is waiting for a power in hy"
    bo, b = person_browser(site, "Bo")
    site.api(b, "/api/games/hy/signup", {"preferences": []})
    r = site.api(site.coordinator, "/api/games/hy/opening/draw")
    assert r.status_code == 200 and list(r.json()["seated"]) == [str(bo)]
    desk = site.coordinator.get("/api/games/hy/opening").json()
    assert desk["draw"]["earlier"][0]["powers"] == {str(ann): "France"}
