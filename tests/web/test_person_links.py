"""Person pages linked wherever a person's name is shown (issue 40): the trial found /people/ID linked from the
coordinator's sign-up desk only, so a player could not find their own record, nor anyone else's. Each page kind
below links the name to /people/ID, and the link answers. An anonymous game shows no name and so no link (a
link would name the person by their id) to a visitor or another power's player; its coordinator sees them all,
and each player their own. Each test fails on the code before the links."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

from dippouch.store.people.persons import create_person, seat_person
from websupport import Site, check_api_answer

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

ADA, BLAISE = "Ada Lovelace", "Blaise Pascal"


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


def person_browser(site: Site, pid: int) -> TestClient:
    c = TestClient(site.app, raise_server_exceptions=False)
    c.event_hooks = {"request": [], "response": [check_api_answer]}
    c.cookies.set("dp_session", site.web.access.start_session([], now=site.clock(), person_id=pid))
    c.get("/")
    return c


def game_with_people(site: Site, name: str, **form: str) -> dict[str, int]:
    """A standard game whose England and France are played by people (Ada, Blaise), Germany by a name only."""
    site.new_game(name, "standard", **form)
    ids: dict[str, int] = {}
    for power, who in (("England", ADA), ("France", BLAISE)):
        site.seat(name, power, who)
        ids[power] = create_person(site.web.store, who, now=site.clock())
        seat_person(site.web.store, name, power, ids[power], now=site.clock())
    site.seat(name, "Germany", "Carl Gauss")
    return ids


def linked(html: str) -> set[int]:
    """The person ids a page links to."""
    return {int(i) for i in re.findall(r'href="/people/(\d+)"', html)}


def link_to(pid: int, name: str) -> str:
    return f'<a class="person" href="/people/{pid}">{name}</a>'


def answers_with(c: TestClient, pid: int, name: str) -> None:
    r = c.get(f"/people/{pid}")
    assert r.status_code == 200 and f"<h1>{name}</h1>" in r.text


def test_the_game_page_links_each_players_name_to_their_page(site: Site) -> None:
    ids = game_with_people(site, "open1")
    visitor = site.browser()
    page = visitor.get("/games/open1").text
    assert link_to(ids["England"], ADA) in page and link_to(ids["France"], BLAISE) in page
    assert linked(page) == set(ids.values())  # a seat held by a name only links nowhere
    answers_with(visitor, ids["England"], ADA)
    powers = {p["power"]: p.get("person_id") for p in visitor.get("/api/games/open1").json()["powers"]}
    assert powers["England"] == ids["England"] and powers["Germany"] is None


def test_the_roster_and_the_player_pages_press_panel_link_the_other_players(site: Site) -> None:
    ids = game_with_people(site, "open2")
    ada = person_browser(site, ids["England"])
    roster = ada.get("/games/open2/roster")
    assert roster.status_code == 200 and link_to(ids["France"], BLAISE) in roster.text
    entries = {e["power"]: e.get("person_id") for e in ada.get("/api/games/open2/roster").json()["entries"]}
    assert entries["France"] == ids["France"]
    play = ada.get("/games/open2/play/England")
    assert play.status_code == 200 and link_to(ids["France"], BLAISE) in play.text
    answers_with(ada, ids["France"], BLAISE)


def test_the_coordinators_desk_links_the_players(site: Site) -> None:
    ids = game_with_people(site, "open3")
    desk = site.coordinator.get("/games/open3/coordinate").text
    # Twice each: the powers table and the players' table with their links.
    assert desk.count(f'href="/people/{ids["France"]}"') == 2
    players = site.coordinator.get("/api/games/open3/coordinate").json()["players"]
    assert {p["power"]: p.get("person_id") for p in players}["England"] == ids["England"]
    answers_with(site.coordinator, ids["France"], BLAISE)


def test_me_open_games_and_the_opening_link_the_readers_own_record(site: Site) -> None:
    site.new_game("lobby", "standard")
    assert site.api(site.coordinator, "/api/games/lobby/opening", {"mode": "preferences"}).status_code == 200
    pid = create_person(site.web.store, ADA, now=site.clock())
    ada = person_browser(site, pid)
    me = ada.get("/me").text
    assert link_to(pid, "Your record") in me and ada.get("/api/me").json()["person_id"] == pid
    assert f'href="/people/{pid}"' in ada.get("/open").text
    assert site.api(ada, "/api/games/lobby/signup", {"preferences": ["France"]}).status_code == 200
    assert f'href="/people/{pid}"' in ada.get("/games/lobby/opening").text
    # The coordinator's sign-up list links the person too (it did before; now through the same macro).
    assert link_to(pid, ADA) in site.coordinator.get("/games/lobby/opening").text
    answers_with(ada, pid, ADA)
    assert "/people/" not in site.browser().get("/open").text  # a visitor has no record


def test_an_anonymous_games_pages_link_nobody_a_reader_may_not_know(site: Site) -> None:
    ids = game_with_people(site, "hush", anonymous="on")
    visitor, blaise = site.browser(), person_browser(site, ids["France"])
    pages = [
        "/games/hush",
        "/games/hush/roster",
        "/games/hush/play/France",
        "/api/games/hush",
        "/api/games/hush/roster",
    ]
    for url in pages[:1] + pages[3:4]:
        r = visitor.get(url)
        assert r.status_code == 200 and "/people/" not in r.text and ADA not in r.text, url
    assert all(p.get("person_id") is None for p in visitor.get("/api/games/hush").json()["powers"])
    for url in pages:
        r = blaise.get(url)
        assert r.status_code == 200, (url, r.text[:300])
        # Their own name and record, nobody else's: not even as a bare id in the API's answers.
        assert linked(r.text) <= {ids["France"]} and ADA not in r.text, url
        assert f'"person_id":{ids["England"]}' not in r.text.replace(" ", ""), url
    assert link_to(ids["France"], BLAISE) in blaise.get("/games/hush").text
    # The coordinator knows who plays what: the game page and the desk link every person.
    assert linked(site.coordinator.get("/games/hush").text) == set(ids.values())
    assert linked(site.coordinator.get("/games/hush/coordinate").text) == set(ids.values())


def test_the_game_pages_away_list_links_the_player_who_is_away(site: Site) -> None:
    from datetime import timedelta

    from dippouch.store.people.absences import record_absence

    ids = game_with_people(site, "away1")
    today = site.clock().date()
    record_absence(site.web.store, ids["England"], today, today + timedelta(days=3), now=site.clock())
    fellow = person_browser(site, ids["France"])
    page = fellow.get("/games/away1").text
    section = page.split('id="absences"', 1)[1].split("</section>", 1)[0]
    assert link_to(ids["England"], ADA) in section, section
    away = fellow.get("/api/games/away1").json()["absences"]["away"]
    assert [(a["power"], a["person_id"]) for a in away] == [("England", ids["England"])]
