"""An anonymous game's activity from the attacker's side, on the pages about people rather than the game: a
visitor, another player of the anonymous game and another game's coordinator watch a person's public page
(HTML and JSON) and the sign-up desk's reliability while the game seats its players and processes phases, and
see nothing move; the person and the game's coordinator see the phases counted; once the game is over everyone
does."""

from __future__ import annotations

import re
from typing import Any

import pytest

from dippouch.store import processing as store_processing
from dippouch.store import submissions as store_submissions
from dippouch.store import variant_copy as variant_copy
from dippouch.store import votes as store_votes
from dippouch.store.people.persons import create_person, seat_person
from dippouch.web.http.security import SESSION_COOKIE
from dippouch.web.routes.openings import reliability_standing
from websupport import Site

HUSH, OPEN, LATER = "hush", "open", "later"
ADA, BLAISE = "Ada Lovelace", "Blaise Pascal"


@pytest.fixture
def site(db_url: str) -> Site:
    return Site(db_url)


def person_browser(site: Site, pid: int) -> Any:
    c = site.browser()
    c.cookies.set(SESSION_COOKIE, site.web.access.start_session([], now=site.clock(), person_id=pid))
    c.get("/")
    return c


def coordinator_of(site: Site, game: str) -> Any:
    """A browser holding the coordinator's key of ``game`` only (not the installation's)."""
    _, key = site.web.access.create_key("coordinator", game=game, now=site.clock(), label=game)
    return site.browser(key)


def seat(site: Site, game: str, power: str, name: str, pid: int | None = None) -> None:
    r = site.post_form(site.coordinator, f"/games/{game}/coordinate/assign", {"power": power, "player": name})
    assert r.status_code == 200, r.text
    if pid is not None:
        seat_person(site.web.store, game, power, pid, now=site.clock())


def play_phase(site: Site, game: str, orders: dict[str, str]) -> None:
    """The powers in ``orders`` send them at once; the phase is processed two days later (the deadline)."""
    for power, text in orders.items():
        store_submissions.submit(site.web.store, game, power, text, now=site.clock())
    site.clock.advance(days=3)
    store_processing.process(site.web.store, game, now=site.clock(), force=True)
    site.web.touched(game)


def end_in_a_draw(site: Site, game: str) -> None:
    """Every power still in the game votes for a draw (the last vote ends it)."""
    for power in variant_copy.variant_of(site.web.store, game).power_names:
        if store_votes.vote(site.web.store, game, power, True, now=site.clock()) is not None:
            break
    site.web.touched(game)


def _snapshot(reader: Any, pid: int) -> tuple[str, bytes]:
    page = reader.get(f"/people/{pid}")
    api = reader.get(f"/api/people/{pid}")
    assert page.status_code == 200 and api.status_code == 200, (page.text, api.text)
    # The page's one per-request part is its CSRF token (masked anew for each page, against BREACH).
    return re.sub(r'name="csrf" (content|value)="[^"]*"', "csrf", page.text), api.content


def _record(reader: Any, pid: int) -> dict[str, Any]:
    got = reader.get(f"/api/people/{pid}").json()
    return {"games": got["games"], "reliability": got["reliability"], **got["record"]}


def test_an_anonymous_games_phases_move_no_public_page_of_its_players_until_it_ends(site: Site) -> None:
    store = site.web.store
    ada = create_person(store, ADA, now=site.clock())
    blaise = create_person(store, BLAISE, now=site.clock())
    # Ada has a public record from a game that names her: one phase on time.
    site.new_game(OPEN, "standard", movement="2d")
    seat(site, OPEN, "Italy", ADA, ada)
    play_phase(site, OPEN, {"Italy": "A Ven H"})
    # Another game's coordinator, opening a game Ada signs up to: their desk shows her reliability.
    site.new_game(LATER, "standard", movement="2d")
    later_desk = coordinator_of(site, LATER)
    r = site.api(later_desk, f"/api/games/{LATER}/opening", {"mode": "coordinator"})
    assert r.status_code == 200, r.text
    ada_browser = person_browser(site, ada)
    r = site.api(ada_browser, f"/api/games/{LATER}/signup", {"preferences": ["any"]})
    assert r.status_code == 200, r.text

    visitor, blaise_browser = site.browser(), person_browser(site, blaise)
    watchers = {"a visitor": visitor, "another player": blaise_browser, "another game's coordinator": later_desk}

    def desk_score() -> Any:
        (w,) = later_desk.get(f"/api/games/{LATER}/opening").json()["waiting"]
        return w["reliability"]

    before = {who: _snapshot(c, ada) for who, c in watchers.items()}
    desk_before = desk_score()
    assert _record(visitor, ada) == {
        "games": 1,
        "reliability": 100,
        "on_time": 1,
        "late": 0,
        "missed": 0,
        "excused": 0,
        "seats": 1,
        "abandoned": 0,
    }

    # The anonymous game seats Ada and Blaise, and plays: Ada orders on time in spring, misses the autumn.
    site.new_game(HUSH, "standard", movement="2d", anonymous="on")
    hush_desk = coordinator_of(site, HUSH)
    seat(site, HUSH, "England", ADA, ada)
    seat(site, HUSH, "France", BLAISE, blaise)
    for power in ("Austria", "Germany", "Italy", "Russia", "Turkey"):
        seat(site, HUSH, power, f"Someone in {power}")
    assert {who: _snapshot(c, ada) for who, c in watchers.items()} == before  # seated: nothing moved
    play_phase(site, HUSH, {"England": "A Lvp H", "France": "A Par H"})
    assert {who: _snapshot(c, ada) for who, c in watchers.items()} == before  # a phase on time: nothing
    play_phase(site, HUSH, {"France": "A Par H"})
    assert {who: _snapshot(c, ada) for who, c in watchers.items()} == before  # a phase missed: nothing
    assert desk_score() == desk_before == 100
    assert "counted here for you" not in visitor.get(f"/people/{ada}").text.lower()

    # Ada herself, and the anonymous game's coordinator, see the game counted (and are told who else does not).
    for reader in (ada_browser, hush_desk):
        assert _record(reader, ada) == {
            "games": 2,
            "reliability": 66,
            "on_time": 2,
            "late": 0,
            "missed": 1,
            "excused": 0,
            "seats": 2,
            "abandoned": 0,
        }
        page = reader.get(f"/people/{ada}").text
        assert re.search(r"counted here for you.*1 game whose players are hidden", page, re.S | re.I), page
        assert reader.get(f"/api/people/{ada}").json()["hidden_games"] == 1
    # Blaise's own page counts his seat in the game for him only.
    assert _record(blaise_browser, blaise)["seats"] == 1
    assert _record(visitor, blaise)["seats"] == 0

    # The game ends (a draw): its phases count for everyone, as any game's do.
    end_in_a_draw(site, HUSH)
    for reader in (*watchers.values(), ada_browser):
        assert _record(reader, ada)["on_time"] == 2 and _record(reader, ada)["missed"] == 1, reader
        assert "hidden_games" not in reader.get(f"/api/people/{ada}").json()
    assert desk_score() == 66


def test_a_sign_up_is_judged_on_the_record_everyone_sees(site: Site) -> None:
    """A game asking a reliability judges what its coordinator can read on the desk, so a sign-up taken or
    refused tells nobody about phases of an anonymous game (a newcomer who plays only anonymous games has no
    record to show until one ends)."""
    store = site.web.store
    ada = create_person(store, ADA, now=site.clock())
    site.new_game(HUSH, "standard", movement="2d", anonymous="on")
    seat(site, HUSH, "England", ADA, ada)
    play_phase(site, HUSH, {"England": "A Lvp H"})
    site.new_game(LATER, "standard", movement="2d")
    r = site.api(site.coordinator, f"/api/games/{LATER}/opening", {"mode": "coordinator", "min_reliability": 50})
    assert r.status_code == 200, r.text
    ada_browser = person_browser(site, ada)
    assert _record(ada_browser, ada)["reliability"] == 100  # her own page counts the anonymous game for her
    # Judged on the record everyone sees (none yet): a newcomer, on probation, let in (issue 55); nothing of the
    # anonymous game's phases decides it.
    r = site.api(ada_browser, f"/api/games/{LATER}/signup", {"preferences": ["any"]})
    assert r.status_code == 200, r.text
    assert reliability_standing(site.web, ada, 50) == {
        "score": None,
        "newcomer": True,
        "meets": True,
        "kept_out": False,
    }


def test_a_phase_timeline_is_the_same_for_a_visitor_with_or_without_the_game(site: Site) -> None:
    """The profile of a person in no game and one of a person in an anonymous game read alike (the page does
    not say that something is withheld: that alone would tell who plays)."""
    store = site.web.store
    ada = create_person(store, ADA, now=site.clock())
    nobody = create_person(store, "Nobody", now=site.clock())
    site.new_game(HUSH, "standard", movement="2d", anonymous="on")
    seat(site, HUSH, "England", ADA, ada)
    play_phase(site, HUSH, {"England": "A Lvp H"})
    site.clock.advance(hours=1)
    visitor = site.browser()
    a, n = visitor.get(f"/api/people/{ada}").json(), visitor.get(f"/api/people/{nobody}").json()
    assert {k: v for k, v in a.items() if k not in ("id", "name")} == {
        k: v for k, v in n.items() if k not in ("id", "name")
    }
    # Each page names its own address (its link preview's og:url): the person's id, which the page's URL has.
    mine = _snapshot(visitor, ada)[0].replace(ADA, "X").replace(f"/people/{ada}", "/people/ID")
    theirs = _snapshot(visitor, nobody)[0].replace("Nobody", "X").replace(f"/people/{nobody}", "/people/ID")
    assert mine == theirs


def test_a_holiday_recorded_moves_nothing_a_visitor_reads_of_the_anonymous_game(site: Site) -> None:
    """A person's holiday is written in every game they play at the same moment (an event each). The game
    that names them shows it; the anonymous game's change marker (in its JSON) must not move with it, nor
    take the next event number after the named game's, or it would name England's player."""
    store = site.web.store
    ada = create_person(store, ADA, now=site.clock())
    site.new_game(OPEN, "standard", movement="2d")
    seat(site, OPEN, "Italy", ADA, ada)
    site.new_game(HUSH, "standard", movement="2d", anonymous="on")
    seat(site, HUSH, "England", ADA, ada)
    blaise_id = create_person(store, BLAISE, now=site.clock())
    seat(site, HUSH, "France", BLAISE, blaise_id)
    visitor, blaise = site.browser(), person_browser(site, blaise_id)
    site.clock.advance(seconds=2)  # the game's marker is read afresh (a second)
    readers = (("visitor", visitor), ("Blaise", blaise))

    def hush_page(c: Any) -> str:
        return re.sub(r'name="csrf" (content|value)="[^"]*"', "csrf", c.get(f"/games/{HUSH}").text)

    before = {who: (c.get(f"/api/games/{HUSH}").json(), hush_page(c)) for who, c in readers}
    ada_browser = person_browser(site, ada)
    r = site.post_form(ada_browser, "/me/absences", {"from": "2026-12-10", "to": "2026-12-12"})
    assert r.status_code == 303, r.text
    site.clock.advance(seconds=2)
    shown = site.coordinator.get(f"/api/games/{OPEN}").json()
    assert [a["power"] for a in shown["absences"]["away"]] == ["Italy"]  # the named game shows her away
    for who, c in readers:
        after = c.get(f"/api/games/{HUSH}").json()
        assert after["marker"] == before[who][0]["marker"], who
        assert (after, hush_page(c)) == before[who], who
    # The coordinator reads the anonymous game's absences as before (England away).
    assert [a["power"] for a in site.coordinator.get(f"/api/games/{HUSH}").json()["absences"]["away"]] == ["England"]
