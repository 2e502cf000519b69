"""The player list on the web, from both sides: a person keeps their addresses on their own pages (forms with
CSRF, specific messages for bad days, nothing typed lost); a game's roster (page, CSV, PDF, API) shows addresses
to exactly those the game's ``roster_visibility`` names, and no public file or page carries them."""

from __future__ import annotations

import re
import warnings
from pathlib import Path
from typing import Any

import pytest

from dippouch.store import variant_copy as variant_copy
from dippouch.store.people.persons import create_person, seat_person
from websupport import Site, check_api_answer

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

HOME = "1 Powick Lane\nWorcester WR2 4QR"
TRIP = "Hotel du Port\nBrest"
SECRET_MAIL = "ann.private@example.org"


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


def person_browser(site: Site, pid: int) -> TestClient:
    """A browser signed in as the person (the mailed-link sign-in is built elsewhere; its session is this)."""
    c = TestClient(site.app, raise_server_exceptions=False)
    c.event_hooks = {"request": [], "response": [check_api_answer]}
    c.cookies.set("dp_session", site.web.access.start_session([], now=site.clock(), person_id=pid))
    c.get("/")
    return c


def seated_person(site: Site, game: str, power: str, name: str, email: str | None = None) -> tuple[int, TestClient]:
    site.seat(game, power, name)
    pid = create_person(site.web.store, name, now=site.clock(), email=email)
    seat_person(site.web.store, game, power, pid, now=site.clock())
    return pid, person_browser(site, pid)


def _w3k(site: Site, name: str = "powick") -> list[str]:
    site.new_game(name, "w3k", movement="2d")
    return list(variant_copy.variant_of(site.web.store, name).power_names)


def _api(site: Site, c: TestClient, method: str, url: str, body: Any = None) -> Any:
    return c.request(method, url, json=body, headers={"X-CSRF-Token": site.csrf(c)})


def test_a_person_keeps_their_addresses_on_their_own_page(site: Site) -> None:
    pid = create_person(site.web.store, "Ann", now=site.clock())
    ann = person_browser(site, pid)
    assert ann.get("/me/addresses").status_code == 200
    r = site.post_form(ann, "/me/addresses", {"address": HOME, "from": "", "to": ""})
    assert r.status_code == 303
    # A bad day: the page again, with what is wrong, where, the closest valid form, and the text as typed.
    r = site.post_form(ann, "/me/addresses", {"address": TRIP, "from": "2026-02-30", "to": "2026-03-04"})
    assert r.status_code == 400
    assert "from: &#39;2026-02-30&#39; is not a day: February 2026 has 28 days (closest: 2026-02-28)" in r.text
    assert "Hotel du Port" in r.text
    r = site.post_form(ann, "/me/addresses", {"address": TRIP, "from": "3 August 2027", "to": ""})
    assert r.status_code == 400 and "to: give both days of an alternate address" in r.text
    r = site.post_form(ann, "/me/addresses", {"address": TRIP, "from": "21 Aug 2027", "to": "3 Aug 2027"})
    assert r.status_code == 400 and "did you mean from 2027-08-03 to 2027-08-21?" in r.text
    assert (
        site.post_form(ann, "/me/addresses", {"address": TRIP, "from": "3 Aug 2027", "to": "21 Aug 2027"}).status_code
        == 303
    )
    page = ann.get("/me/addresses").text
    assert "Powick Lane" in page and "3\u201321 Aug" in page and "in force today" in page
    ids = [int(x) for x in re.findall(r'action="/me/addresses/(\d+)"', page)]
    assert len(ids) == 2
    r = site.post_form(
        ann, f"/me/addresses/{ids[1]}", {"address": "Hotel de la Mer\nBrest", "from": "2027-08-04", "to": "2027-08-21"}
    )
    assert r.status_code == 303
    assert "Hotel de la Mer" in ann.get("/me/addresses").text
    # Without the form's token nothing changes.
    r = ann.post(f"/me/addresses/{ids[1]}/delete", data={}, follow_redirects=False)
    assert r.status_code == 403
    assert site.post_form(ann, f"/me/addresses/{ids[1]}/delete").status_code == 303
    assert "Hotel de la Mer" not in ann.get("/me/addresses").text
    # The API: the same addresses, and the same refusals.
    got = ann.get("/api/me/addresses").json()
    assert [a["address"] for a in got["addresses"]] == [HOME] and got["addresses"][0]["in_force"]
    r = _api(
        site, ann, "POST", "/api/me/addresses", {"address": TRIP, "first_day": "2027-08-21", "last_day": "2027-08-03"}
    )
    assert r.status_code == 400 and r.json()["error"].startswith("last_day: 2027-08-03 is before 'first_day'")
    r = _api(
        site, ann, "POST", "/api/me/addresses", {"address": TRIP, "first_day": "2027-08-03", "last_day": "2027-08-21"}
    )
    assert r.status_code == 200 and r.json()["first_day"] == "2027-08-03" and not r.json()["in_force"]
    trip = r.json()["id"]
    # What was done is a message value: said in the language asked for, its code and values the same in every.
    done = _api(site, ann, "DELETE", f"/api/me/addresses/{trip}?lang=de")
    assert done.status_code == 200
    assert done.json() == {
        "message": f"Adresse #{trip} entfernt",
        "code": "address #%(id)s removed",
        "params": {"id": trip},
    }


def test_nobody_else_reads_or_changes_a_persons_addresses(site: Site) -> None:
    ann_id = create_person(site.web.store, "Ann", now=site.clock())
    ann = person_browser(site, ann_id)
    site.post_form(ann, "/me/addresses", {"address": HOME})
    home_id = ann.get("/api/me/addresses").json()["addresses"][0]["id"]
    eve = person_browser(site, create_person(site.web.store, "Eve", now=site.clock()))
    assert HOME.split("\n")[0] not in eve.get("/me/addresses").text
    r = site.post_form(eve, f"/me/addresses/{home_id}", {"address": "Eve was here"})
    assert r.status_code == 400 and f"you have no address #{home_id}" in r.text
    r = site.post_form(eve, f"/me/addresses/{home_id}/delete")
    assert r.status_code == 400 and f"you have no address #{home_id}" in r.text and "Add an address" in r.text
    assert _api(site, eve, "DELETE", f"/api/me/addresses/{home_id}").status_code == 400
    # A visitor, and a key without a person behind it, have no addresses to keep.
    anyone = site.browser()
    for c in (anyone, site.coordinator):
        assert c.get("/me/addresses").status_code == 401
        assert c.get("/api/me/addresses").status_code == 401
        assert c.get("/me/absences").status_code == 401
    assert anyone.post("/api/me/addresses", json={"address": "x"}).status_code == 401
    assert [a["address"] for a in ann.get("/api/me/addresses").json()["addresses"]] == [HOME]


def _public_answers(site: Site, game: str) -> dict[str, str]:
    anyone = site.browser()
    urls = [
        "/",
        f"/games/{game}",
        f"/games/{game}/export.json",
        f"/games/{game}/calendar.ics",
        f"/api/games/{game}",
        f"/api/games/{game}/export",
        f"/api/games/{game}/absences",
        "/api/games",
    ]
    return {u: anyone.get(u).text for u in urls}


def test_the_roster_shows_addresses_to_co_players_in_w3k_and_to_nobody_outside(site: Site) -> None:
    powers = _w3k(site)
    _, ann = seated_person(site, "powick", powers[0], "Ann", email=SECRET_MAIL)
    site.post_form(ann, "/me/addresses", {"address": HOME})
    _, bo = seated_person(site, "powick", powers[1], "Bo")
    # Someone who plays another game only.
    site.new_game("edgehill", "standard", movement="2d")
    _, eve = seated_person(site, "edgehill", "France", "Eve")
    eve_key_only = site.player("edgehill", "Italy", "Ida")

    # A co-player (W3K's default, from its data) reads it everywhere the roster is.
    page = bo.get("/games/powick/roster")
    assert page.status_code == 200 and "Powick Lane" in page.text and SECRET_MAIL in page.text
    csv_text = bo.get("/games/powick/roster.csv").text
    assert "Powick Lane" in csv_text and SECRET_MAIL in csv_text
    pdf = bo.get("/games/powick/roster.pdf")
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF") and "no-store" in pdf.headers["cache-control"]
    api = bo.get("/api/games/powick/roster").json()
    assert api["addresses_shown"] and api["entries"][0]["address"] == HOME
    assert "Powick Lane" in bo.get("/roster").text
    assert site.coordinator.get("/api/games/powick/roster").json()["entries"][0]["emails"] == [SECRET_MAIL]

    # Outside the game: nothing, by every route.
    anyone = site.browser()
    for url in (
        "/games/powick/roster",
        "/games/powick/roster.csv",
        "/games/powick/roster.pdf",
        "/api/games/powick/roster",
    ):
        assert anyone.get(url).status_code == 401, url
        for outsider in (eve, eve_key_only):
            r = outsider.get(url)
            assert r.status_code == 403 and "Powick Lane" not in r.text, url
    for url in ("/roster", "/roster.csv", "/api/roster"):
        assert anyone.get(url).status_code == 401
        r = eve.get(url)
        assert r.status_code == 200 and "Powick Lane" not in r.text and "powick" not in r.text
    assert anyone.get("/roster.pdf").status_code == 401
    for url, text in _public_answers(site, "powick").items():
        assert "Powick Lane" not in text and SECRET_MAIL not in text, url

    # The coordinator narrows it: co-players then read powers and players only.
    r = site.post_form(site.coordinator, "/games/powick/roster/settings", {"roster_visibility": "coordinator"})
    assert r.status_code == 303
    for url in (
        "/games/powick/roster",
        "/games/powick/roster.csv",
        "/api/games/powick/roster",
        "/roster",
        "/api/roster",
    ):
        text = bo.get(url).text
        assert "Powick Lane" not in text and SECRET_MAIL not in text and "Ann" in text, url
    assert "Powick Lane" in site.coordinator.get("/games/powick/roster").text
    # Nobody: not even the coordinator; the person still reads their own.
    assert (
        _api(
            site, site.coordinator, "POST", "/api/games/powick/roster/settings", {"roster_visibility": "nobody"}
        ).status_code
        == 200
    )
    assert "Powick Lane" not in site.coordinator.get("/games/powick/roster.csv").text
    every = {r["game"]: r for r in site.coordinator.get("/api/roster").json()}
    assert not every["powick"]["addresses_shown"] and every["edgehill"]["addresses_shown"]
    assert "Powick Lane" in ann.get("/me/addresses").text


def test_only_the_coordinator_changes_the_roster_settings_and_bad_ones_are_named(site: Site) -> None:
    powers = _w3k(site)
    _, bo = seated_person(site, "powick", powers[1], "Bo")
    r = site.post_form(bo, "/games/powick/roster/settings", {"roster_visibility": "co-players"})
    assert r.status_code == 403
    assert _api(site, bo, "POST", "/api/games/powick/roster/settings", {"absence_policy": "none"}).status_code == 403
    assert site.browser().post("/api/games/powick/roster/settings", json={}).status_code == 401
    r = site.post_form(site.coordinator, "/games/powick/roster/settings", {"roster_visibility": "everyone"})
    assert (
        r.status_code == 400
        and "roster_visibility: &#39;everyone&#39; is not a choice; choose one of coordinator" in r.text
    )
    r = site.post_form(
        site.coordinator, "/games/powick/roster/settings", {"absence_policy": "extend", "budget_days": "two weeks"}
    )
    assert (
        r.status_code == 400
        and "budget_days: &#39;two weeks&#39; is not a whole number of days; write e.g. 14" in r.text
    )
    r = site.post_form(
        site.coordinator,
        "/games/powick/roster/settings",
        {"absence_policy": "stand_in", "stand_in": "nobody@example.org"},
    )
    assert r.status_code == 400 and "stand_in: nobody has signed up with" in r.text
    settings = _api(
        site,
        site.coordinator,
        "POST",
        "/api/games/powick/roster/settings",
        {"absence_policy": "extend", "budget_days": 10},
    ).json()
    assert settings == {
        "roster_visibility": "co-players",
        "absence_policy": "extend",
        "budget_days": 10,
        "stand_in": None,
        "proxy_orders": True,
    }
    # A game that is not there is its 404, not the form again.
    r = site.post_form(site.coordinator, "/games/no-such-game/roster/settings", {"roster_visibility": "nobody"})
    assert r.status_code == 404


def test_every_roster_and_absence_route_refuses_a_visitor_and_a_player_of_another_game(site: Site) -> None:
    """Every route of web/routes/roster.py, found by reading its routers (a new route is covered without being listed),
    asked by a visitor and by a player of another game (by their key): refused, or (their own installation
    roster) answered without this game; no address, e-mail address or reason in any answer. The one public
    route, a game's absences, carries days only."""
    from fastapi.routing import APIRoute

    from dippouch.web.routes import roster

    powers = _w3k(site)
    _, ann = seated_person(site, "powick", powers[0], "Ann", email=SECRET_MAIL)
    site.post_form(ann, "/me/addresses", {"address": HOME})
    site.post_form(ann, "/me/absences", {"from": "2026-12-03", "to": "2026-12-21", "reason": "wedding"})
    site.new_game("edgehill", "standard", movement="2d")
    elsewhere = site.player("edgehill", "France", "Eve")
    routes = [(r.path, m) for r in roster.router.routes if isinstance(r, APIRoute) for m in r.methods or ()]
    assert len(routes) >= 25
    public = {("/api/games/{name}/absences", "GET")}
    own = {"/roster", "/roster.csv", "/roster.pdf", "/api/roster"}  # the caller's own games only
    body = {"address": "x", "first_day": "2026-12-05", "last_day": "2026-12-06", "game": "powick"}
    for path, method in routes:
        url = path.replace("{name}", "powick").replace("{address_id}", "1").replace("{absence_id}", "1")
        for who, c in (("visitor", site.browser()), ("player elsewhere", elsewhere)):
            if method == "GET":
                r = c.get(url)
            elif path.startswith("/api/"):
                r = c.request(method, url, json=body, headers={"X-CSRF-Token": site.csrf(c)})
            else:
                r = site.post_form(c, url, {"address": "x", "from": "2026-12-05", "to": "2026-12-06", "game": "powick"})
            where = (who, method, url, r.status_code)
            assert "Powick Lane" not in r.text and SECRET_MAIL not in r.text and "wedding" not in r.text, where
            if (path, method) in public:
                assert r.status_code == 200, where
            elif who == "player elsewhere" and url in own:
                assert r.status_code == 200 and (url.endswith(".pdf") or "powick" not in r.text), where
            else:
                assert r.status_code in (401, 403), where
    # Nothing changed for Ann.
    assert [a["address"] for a in ann.get("/api/me/addresses").json()["addresses"]] == [HOME]
    assert [a["reason"] for a in ann.get("/api/me/absences").json()["absences"]] == ["wedding"]
