"""Newcomers and a game asking a reliability (issue 55, the players' trial's item 10): a newcomer filled in the
sign-up form and only then read "rel3 asks a reliability of at least 50%; yours is no record yet", and could
never qualify (no such game would take them, and only games would give them the record). Now the opening's
page says, before the form, what the game asks and whether the viewer meets it; and a newcomer on probation
(fewer than PROBATION_SEATS seats on the record everyone sees, no phase missed, no seat abandoned) is let in, by
the form, the API and quick play. A record that missed phases is still held to the minimum, and said so before
the form too."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dippouch.people.reliability import PROBATION_SEATS, Record, meets, on_probation
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store import status as store_status
from dippouch.store import transfer as store_transfer
from dippouch.store.people.persons import create_person, seat_person
from dippouch.web.http.security import SESSION_COOKIE
from websupport import Site


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


def _person(site: Site, name: str) -> tuple[int, Any]:
    pid = create_person(site.web.store, name, now=site.clock())
    c = site.browser()
    c.cookies.set(SESSION_COOKIE, site.web.access.start_session([], now=site.clock(), person_id=pid))
    c.get("/")
    return pid, c


def _strict(site: Site, name: str = "rel3", least: int = 50) -> str:
    site.new_game(name, "hundred3")
    r = site.api(site.coordinator, f"/api/games/{name}/opening", {"mode": "preferences", "min_reliability": least})
    assert r.status_code == 200, r.text
    return name


def test_a_newcomer_reads_that_they_may_join_before_the_form_and_joins(site: Site) -> None:
    game = _strict(site)
    _, ivan = _person(site, "Ivan")
    page = ivan.get(f"/games/{game}/opening").text
    said = page.split('id="reliability-standing"', 1)[1].split("</span>", 1)[0]
    assert f"You are new here (fewer than {PROBATION_SEATS} seats played): you may join all the same." in said
    assert page.index('id="reliability-standing"') < page.index('action="/games/rel3/opening/signup"')
    r = site.post_form(ivan, f"/games/{game}/opening/signup", {"wish1": "England"})
    assert r.status_code == 303, r.text
    assert "no record yet" not in ivan.get(r.headers["location"]).text


def test_a_record_that_missed_phases_is_told_before_the_form_and_refused(site: Site) -> None:
    game = _strict(site, least=70)
    pid, bo = _person(site, "Bo")
    site.new_game("past", "hundred3")
    store_games.assign(site.web.store, "past", "England", "Bo", now=site.clock())
    seat_person(site.web.store, "past", "England", pid, now=site.clock())
    site.clock.advance(days=3)
    store_processing.process(site.web.store, "past", now=site.clock(), force=True)
    page = bo.get(f"/games/{game}/opening").text
    said = page.split('id="reliability-standing"', 1)[1].split("</span>", 1)[0]
    assert "Yours is 0%: this game cannot take you yet" in said, said
    r = site.post_form(bo, f"/games/{game}/opening/signup", {"wish1": "France"})
    assert r.status_code == 400 and "at least 70%; yours is 0%" in r.text


def test_quick_play_takes_a_newcomer_into_a_game_asking_a_reliability(site: Site) -> None:
    game = _strict(site)
    _, ann = _person(site, "Ann")
    r = site.post_form(ann, "/open/quick", {})
    assert r.status_code == 303, r.text
    assert any(s["game"] == game for s in ann.get("/api/me").json()["signups"])


def test_probation_ends_with_the_third_seat_a_missed_phase_or_a_seat_abandoned() -> None:
    assert on_probation(Record(0, 0, 0, 0, 0, 0))
    assert on_probation(Record(10, 1, 0, PROBATION_SEATS - 1, 0, 0))
    assert not on_probation(Record(30, 0, 0, PROBATION_SEATS, 0, 0))
    assert not on_probation(Record(3, 0, 1, 1, 0, 0))
    assert not on_probation(Record(3, 0, 0, 1, 1, 0))
    assert meets(None, 50, probation=True) and not meets(None, 50) and not meets(40, 50)


# -- A game kept from newcomers (its creator's choice: the form, the API, the coordinator's form, the CLI) ------


def _veteran(site: Site, name: str) -> tuple[int, Any]:
    """A person with PROBATION_SEATS seats behind them: no newcomer any more."""
    pid, c = _person(site, name)
    for i in range(PROBATION_SEATS):
        past = site.new_game(f"past-{name.lower()}-{i}", "hundred3")
        store_games.assign(site.web.store, past, "England", name, now=site.clock())
        seat_person(site.web.store, past, "England", pid, now=site.clock())
    return pid, c


def test_a_player_keeps_their_game_from_newcomers_by_the_form_and_a_newcomer_is_told_before_and_refused(
    site: Site,
) -> None:
    _, ann = _person(site, "Ann")
    page = ann.get("/new-game").text
    assert '<select name="newcomers">' in page and ">open to newcomers<" in page
    r = site.post_form(ann, "/new-game", {"template": "variant-hundred3", "name": "vets", "newcomers": "no"})
    assert r.status_code == 303, r.text
    r = site.post_form(ann, "/new-game", {"template": "variant-hundred3", "name": "all"})
    assert r.status_code == 303, r.text
    lobby = ann.get("/open").text
    row = lobby.split('data-game="vets"', 1)[1].split("</tr>", 1)[0]
    assert "not for newcomers" in row
    assert "open to newcomers" in lobby.split('data-game="all"', 1)[1].split("</tr>", 1)[0]

    _, ivan = _person(site, "Ivan")
    page = ivan.get("/games/vets/opening").text
    assert "not for newcomers: players with at least 3 seats played" in page.split('id="newcomers"', 1)[1]
    said = page.split('id="reliability-standing"', 1)[1].split("</span>", 1)[0]
    assert said.startswith(' class="bad">') and "this game is not for newcomers" in said
    r = site.post_form(ivan, "/games/vets/opening/signup", {"wish1": "England"})
    assert r.status_code == 400
    assert (
        "vets is not for newcomers: its creator asks for players with at least 3 games behind them (you have 0)"
        in r.text
    )
    de = site.post_form(ivan, "/games/vets/opening/signup", {"wish1": "England"}, headers={"Accept-Language": "de"})
    assert de.status_code == 400 and "ist nichts für Neulinge" in de.text, de.text
    # The game open to everyone takes them; so does quick play, which passes the other over.
    r = site.post_form(ivan, "/open/quick", {"variant": "hundred3"})
    assert r.status_code == 303, r.text
    assert [s["game"] for s in ivan.get("/api/me").json()["signups"]] == ["all"]

    _, vera = _veteran(site, "Vera")
    said = vera.get("/games/vets/opening").text.split('id="reliability-standing"', 1)[1].split("</span>", 1)[0]
    assert said.startswith(' class="ok">'), said
    r = site.post_form(vera, "/games/vets/opening/signup", {"wish1": "England"})
    assert r.status_code == 303, r.text


def test_the_api_makes_a_game_not_for_newcomers_says_so_and_refuses_one(site: Site) -> None:
    _, ann = _person(site, "Ann")
    r = site.api(ann, "/api/games/new", {"template": "variant-hundred3", "name": "vets", "newcomers": False})
    assert r.status_code == 200, r.text
    assert store_status.status(site.web.store, "vets", now=site.clock()).settings.newcomers is False
    listed = {g["game"]: g["newcomers"] for g in ann.get("/api/open").json()["games"]}
    assert listed == {"vets": False}
    assert ann.get("/api/games/vets/opening").json()["newcomers"] is False
    _, ivan = _person(site, "Ivan")
    r = site.api(ivan, "/api/games/vets/signup", {"preferences": ["France"]})
    assert r.status_code == 400 and "not for newcomers" in r.text, r.text
    r = site.api(ann, "/api/games/new", {"template": "variant-hundred3", "name": "open3"})
    assert r.status_code == 200 and store_status.status(site.web.store, "open3", now=site.clock()).settings.newcomers


def test_the_coordinators_form_keeps_a_game_from_newcomers_and_the_setting_is_kept_in_its_file(site: Site) -> None:
    site.new_game("desk", "hundred3", newcomers="no")
    site.new_game("plain", "hundred3")
    assert store_status.status(site.web.store, "desk", now=site.clock()).settings.newcomers is False
    assert store_status.status(site.web.store, "plain", now=site.clock()).settings.newcomers is True
    assert (
        store_transfer.game_file(site.web.store, "desk", view="coordinator", now=site.clock())["game"]["settings"][
            "newcomers"
        ]
        is False
    )
    assert (
        "newcomers"
        not in store_transfer.game_file(site.web.store, "plain", view="coordinator", now=site.clock())["game"][
            "settings"
        ]
    )
    r = site.api(site.coordinator, "/api/games/desk/opening", {"mode": "preferences"})
    assert r.status_code == 200, r.text
    _, ivan = _person(site, "Ivan")
    r = site.api(ivan, "/api/games/desk/signup", {"preferences": ["France"]})
    assert r.status_code == 400 and "desk is not for newcomers" in r.text, r.text


def test_a_seat_in_the_pool_of_a_game_not_for_newcomers_is_not_a_newcomers_to_claim(site: Site) -> None:
    site.new_game("desk", "hundred3", newcomers="no")
    assert site.api(site.coordinator, "/api/games/desk/opening", {"mode": "coordinator"}).status_code == 200
    store_games.assign(site.web.store, "desk", "England", "Bo", now=site.clock())
    r = site.api(site.coordinator, "/api/games/desk/opening/free", {"power": "England"})
    assert r.status_code == 200, r.text
    _, ivan = _person(site, "Ivan")
    r = site.api(ivan, "/api/games/desk/claim", {"power": "England"})
    assert r.status_code == 400 and "not for newcomers" in r.text, r.text
    _, vera = _veteran(site, "Vera")
    r = site.api(vera, "/api/games/desk/claim", {"power": "England"})
    assert r.status_code == 200, r.text
