"""Tournaments in a browser: a person creates one with the form, adds the game they coordinate and reads its
standings; and axe finds no serious or critical violation on the list or a tournament's page (with and
without the forms), at desktop and phone sizes, in light and dark colour schemes, nor a page wider than a
phone's screen."""

from __future__ import annotations

from typing import Any

import pytest

from browsersupport import DESKTOP, PHONE, LiveSite, is_phone
from dippouch.play.tournaments import add_game, new_tournament
from dippouch.store import games as store_games
from dippouch.store import status as store_status
from dippouch.store import votes as store_votes
from dippouch.store.people.persons import create_person, seat_person


def drawn_at_once(site: LiveSite, game: str, ann: int, bob: int) -> None:
    """``game`` drawn in its first phase by all seven: Ann France, Bob Germany, the others seated by name only
    ("Zed" England, "Rus" Russia ...), on their home centres (Russia 4, the others 3: Σc² = 70)."""
    now = site.now()
    store_games.create_game(site.store, game, "standard", now=now)
    for power, person in (("France", ann), ("Germany", bob)):
        store_games.assign(site.store, game, power, f"{game} {power}", now=now)
        seat_person(site.store, game, power, person, now=now)
    for power, name in (("England", "Zed"), ("Russia", "Rus"), ("Austria", "Aus"), ("Italy", "Ita"), ("Turkey", "Tur")):
        store_games.assign(site.store, game, power, name, now=now)
    for power in ("France", "Germany", "England", "Russia", "Austria", "Italy", "Turkey"):
        store_votes.vote(site.store, game, power, True, now=now)
    assert store_status.status(site.store, game, now=now).state == "finished"


def _person_with_game_key(site: LiveSite, pid: int, game: str, size: dict[str, int], **options: Any) -> Any:
    """A context signed in as person ``pid`` whose session holds a coordinator's key of ``game``."""
    key_id, _ = site.web.access.create_key("coordinator", game=game, now=site.now(), label="club")
    ctx = site.context(size, **options)
    token = site.web.access.start_session([key_id], now=site.now(), person_id=pid)
    ctx.add_cookies([{"name": "dp_session", "value": token, "url": site.base}])
    return ctx


def test_a_person_creates_a_tournament_adds_their_game_and_reads_the_standings(live_site: LiveSite) -> None:
    site = live_site
    now = site.now()
    ann, bob = (create_person(site.store, n, now=now) for n in ("Ann", "Bob"))
    drawn_at_once(site, "club1", ann, bob)
    page = _person_with_game_key(site, ann, "club1", DESKTOP).new_page()
    page.goto(f"{site.base}/tournaments")
    form = page.locator("#tournament-new")
    form.get_by_label("Name").fill("Club night")
    form.get_by_label("Scoring system").select_option("sos")
    form.get_by_label("Variant").select_option("standard")
    form.get_by_role("button", name="Create the tournament").click()
    page.wait_for_url(f"{site.base}/tournaments/Club%20night")
    assert "Tournament Club night created" in page.locator("body").inner_text()
    add = page.locator("#add-game")
    add.get_by_label("Game").fill("club1")
    add.get_by_label("Round (optional)").fill("1")
    add.get_by_role("button", name="Add the game").click()
    page.wait_for_load_state("networkidle")
    rows = page.locator("#standings tbody tr").all_inner_texts()
    # Sum of squares over the draw of seven on their home centres: Russia 100 × 16 / 70, the others 100 × 9 / 70
    # each, sharing second place (listed by name).
    got = [r.split("\t")[:3] for r in rows]
    assert got[:4] == [["1", "Rus", "22.86"], ["2", "Ann", "12.86"], ["2", "Aus", "12.86"], ["2", "Bob", "12.86"]]
    assert len(got) == 7
    assert page.locator("#games").get_by_role("link", name="club1").count() == 1
    page.context.close()


@pytest.mark.slow
@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_no_serious_axe_violation_on_the_tournament_pages(live_site: LiveSite, size: dict[str, int]) -> None:
    """Each page loaded once: every axe rule in light colours, then axe's colour rules with the page turned dark,
    as test_axe_pages.py checks every page kind (the dark scheme changes colours only, which it also checks)."""
    from test_axe_pages import _in_both_schemes

    site = live_site
    now = site.now()
    ann, bob = (create_person(site.store, n, now=now) for n in ("Ann", "Bob"))
    drawn_at_once(site, "club1", ann, bob)
    store_games.create_game(site.store, "club2", "standard", now=now)
    new_tournament(site.store, "Club night", "sos", creator_id=ann, now=now)
    for game, rnd in (("club1", "1"), ("club2", "2")):
        add_game(site.store, "Club night", game, in_round=rnd, now=now)
    pages = {
        "anyone": site.context(size).new_page(),
        "ann": _person_with_game_key(site, ann, "club2", size).new_page(),
    }
    found: list[str] = []
    try:
        for who, address in (
            ("anyone", "/tournaments"),
            ("anyone", "/tournaments/Club%20night"),
            ("ann", "/tournaments"),
            ("ann", "/tournaments/Club%20night"),
        ):
            page = pages[who]
            answer = page.goto(site.base + address)
            assert answer is not None and answer.status == 200, address
            page.wait_for_load_state("networkidle")
            found.extend(_in_both_schemes(page, f"{who} {address}", is_phone(size)))
            wide = page.evaluate("document.documentElement.scrollWidth")
            assert wide <= size["width"] + 1, f"{who} {address} is {wide} px wide on a {size['width']} px screen"
    finally:
        for page in pages.values():
            page.context.close()
    assert not found, "\n".join(found)
