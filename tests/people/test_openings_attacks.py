"""Open games from the attacker's side: signing up for someone else, claiming twice or a seat not offered,
joining below the minimum, a coordinator of another game assigning, a private game's opening, anonymous
callers, and CSRF on every state-changing route (page and API). Each refusal says why, and changes nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store.people.persons import create_person, seat_person, seats_of
from dippouch.web.http.security import SESSION_COOKIE
from websupport import Site


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


def person_browser(site: Site, name: str) -> tuple[int, Any]:
    pid = create_person(site.web.store, name, now=site.clock())
    token = site.web.access.start_session([], now=site.clock(), person_id=pid)
    c = site.browser()
    c.cookies.set(SESSION_COOKIE, token)
    c.get("/")
    return pid, c


def _open(site: Site, name: str = "hy", **body: Any) -> str:
    site.new_game(name, "hundred3")
    r = site.api(site.coordinator, f"/api/games/{name}/opening", {"mode": "coordinator", **body})
    assert r.status_code == 200, r.text
    return name


def _waiting(site: Site, game: str = "hy") -> list[Any]:
    return list(site.coordinator.get(f"/api/games/{game}/opening").json()["waiting"])


def test_nobody_signs_up_for_someone_else(site: Site) -> None:
    _open(site)
    ann, _ = person_browser(site, "Ann")
    _, eve = person_browser(site, "Eve")
    r = site.api(eve, "/api/games/hy/signup", {"preferences": ["France"], "person": ann})
    assert r.status_code == 422 and "person" in r.json()["error"]
    # A form naming a person signs up its sender, never the person named.
    r = site.post_form(eve, "/games/hy/opening/signup", {"wish1": "France", "person": str(ann)})
    assert r.status_code == 303
    assert [w["name"] for w in _waiting(site)] == ["Eve"]


def test_an_anonymous_caller_or_a_key_holder_without_a_person_cannot_sign_up_or_claim(site: Site) -> None:
    _open(site)
    anon = site.browser()
    r = site.api(anon, "/api/games/hy/signup", {"preferences": []})
    assert r.status_code == 401 and "sign in" in r.json()["error"]
    player = site.player("hy", "England", "Keyholder")
    r = site.api(player, "/api/games/hy/signup", {"preferences": []})
    assert r.status_code == 401 and "sign in as a person" in r.json()["error"]
    r = site.api(player, "/api/games/hy/claim", {"power": "France"})
    assert r.status_code == 401
    assert _waiting(site) == []


def test_claiming_twice_or_a_seat_not_offered_is_refused(site: Site) -> None:
    _open(site)
    for power, who in (("England", "E"), ("France", "F")):
        site.seat("hy", power, who)
        site.api(site.coordinator, "/api/games/hy/opening/free", {"power": power})
    bo, b = person_browser(site, "Bo")
    r = site.api(b, "/api/games/hy/claim", {"power": "Burgundy"})
    assert r.status_code == 400 and "Burgundy in hy is not offered to the replacement pool" in r.json()["error"]
    assert site.api(b, "/api/games/hy/claim", {"power": "England"}).status_code == 200
    r = site.api(b, "/api/games/hy/claim", {"power": "England"})
    assert r.status_code == 400 and "not offered" in r.json()["error"]
    r = site.api(b, "/api/games/hy/claim", {"power": "France"})
    assert r.status_code == 400 and "you already play a power in hy" in r.json()["error"]
    _, c = person_browser(site, "Cy")
    r = site.api(c, "/api/games/hy/claim", {"power": "Narnia"})
    assert r.status_code == 400 and "Narnia" in r.json()["error"]
    assert [s.power for s in seats_of(site.web.store, bo)] == ["England"]


def test_a_person_below_the_minimum_is_refused_with_the_numbers(site: Site) -> None:
    _open(site, min_reliability=70)
    pid, b = person_browser(site, "Bo")
    # A record of missed phases: 0 % (a newcomer with no record is on probation: tests/web/test_newcomers.py).
    site.new_game("past", "hundred3")
    store_games.assign(site.web.store, "past", "England", "Bo", now=site.clock())
    seat_person(site.web.store, "past", "England", pid, now=site.clock())
    site.clock.advance(days=3)
    store_processing.process(site.web.store, "past", now=site.clock(), force=True)
    r = site.api(b, "/api/games/hy/signup", {"preferences": []})
    assert r.status_code == 400 and "at least 70%; yours is 0%" in r.json()["error"]
    page = site.post_form(b, "/games/hy/opening/signup", {"wish1": "France"})
    assert page.status_code == 400 and "at least 70%; yours is 0%" in page.text
    # The same minimum holds at the replacement pool.
    site.seat("hy", "England", "E")
    site.api(site.coordinator, "/api/games/hy/opening/free", {"power": "England"})
    r = site.api(b, "/api/games/hy/claim", {"power": "England"})
    assert r.status_code == 400 and "at least 70%" in r.json()["error"]
    assert _waiting(site) == []


def test_a_coordinator_of_another_game_cannot_open_assign_or_free(site: Site) -> None:
    _open(site)
    site.new_game("other", "hundred3")
    _, other_key = site.web.access.create_key("coordinator", game="other", label="other", now=site.clock())
    mallory = site.browser(other_key)
    ann, a = person_browser(site, "Ann")
    site.api(a, "/api/games/hy/signup", {"preferences": []})
    site.seat("hy", "England", "E")
    for url, body in (
        ("/api/games/hy/opening/assign", {"person": ann, "power": "France"}),
        ("/api/games/hy/opening/free", {"power": "England"}),
        ("/api/games/hy/opening", {"mode": "preferences"}),
        ("/api/games/hy/opening/draw", None),
    ):
        r = site.api(mallory, url, body)
        assert r.status_code == 403 and "coordinator's key to coordinate hy" in r.json()["error"], url
    r = site.post_form(mallory, "/games/hy/opening/assign", {"person": str(ann), "power": "France"})
    assert r.status_code == 403
    assert "waiting" not in mallory.get("/api/games/hy/opening").json()  # nor sees who signed up
    assert seats_of(site.web.store, ann) == [] and site.browser().get("/api/open").json()["replacements"] == []


def test_a_private_game_is_never_listed_and_its_opening_is_not_found(site: Site) -> None:
    _open(site)
    site.web.access.set_visibility("hy", "private")
    site.web.touched("hy")
    _, a = person_browser(site, "Ann")
    assert a.get("/api/open").json()["games"] == []
    assert a.get("/games/hy/opening").status_code == 404
    r = site.api(a, "/api/games/hy/signup", {"preferences": []})
    assert r.status_code == 404
    assert _waiting(site) == []


def test_a_game_never_opened_takes_no_sign_up(site: Site) -> None:
    site.new_game("closed", "hundred3")
    _, a = person_browser(site, "Ann")
    assert a.get("/games/closed/opening").status_code == 404
    r = site.api(a, "/api/games/closed/signup", {"preferences": []})
    assert r.status_code == 400 and "closed is not open for players" in r.json()["error"]


POSTS = [
    ("/games/hy/opening/open", {"mode": "coordinator"}, "coordinator"),
    ("/games/hy/opening/assign", {"person": "1", "power": "France"}, "coordinator"),
    ("/games/hy/opening/free", {"power": "England"}, "coordinator"),
    ("/games/hy/opening/draw", {}, "coordinator"),
    ("/games/hy/opening/signup", {"wish1": "France"}, "person"),
    ("/games/hy/opening/withdraw", {}, "person"),
    ("/games/hy/opening/claim", {"power": "England"}, "person"),
]
API_POSTS = [
    ("/api/games/hy/opening", {"mode": "coordinator"}, "coordinator"),
    ("/api/games/hy/opening/assign", {"person": 1, "power": "France"}, "coordinator"),
    ("/api/games/hy/opening/free", {"power": "England"}, "coordinator"),
    ("/api/games/hy/opening/draw", None, "coordinator"),
    ("/api/games/hy/signup", {"preferences": ["France"]}, "person"),
    ("/api/games/hy/withdraw", None, "person"),
    ("/api/games/hy/claim", {"power": "England"}, "person"),
]


def test_every_post_needs_the_pages_csrf_token(site: Site) -> None:
    _open(site)
    site.seat("hy", "England", "E")
    site.api(site.coordinator, "/api/games/hy/opening/free", {"power": "England"})
    pid, person = person_browser(site, "Ann")
    site.api(person, "/api/games/hy/signup", {"preferences": []})
    before = (_waiting(site), site.browser().get("/api/open").json())
    for url, form, who in POSTS:
        c = site.coordinator if who == "coordinator" else person
        r = c.post(url, data=form, follow_redirects=False)
        assert r.status_code == 403 and "security token" in r.text, url
        r = c.post(url, data={**form, "csrf": "forged"}, follow_redirects=False)
        assert r.status_code == 403, url
        r = c.post(
            url,
            data={**form, "csrf": site.csrf(c)},
            headers={"Origin": "https://evil.example"},
            follow_redirects=False,
        )
        assert r.status_code == 403 and "another site" in r.text, url
    for url, body, who in API_POSTS:
        c = site.coordinator if who == "coordinator" else person
        r = c.post(url, json=body)
        assert r.status_code == 403 and "CSRF" in r.json()["error"], url
    assert (_waiting(site), site.browser().get("/api/open").json()) == before
    assert seats_of(site.web.store, pid) == []
