"""A person's page in Chromium while they play an anonymous game: they read it counted, with a note that
nobody else does; a visitor reads the record without it and no note. Screenshots (desktop and phone) go to
test-artifacts/people/."""

from __future__ import annotations

from datetime import timedelta

import pytest

from browsersupport import LiveSite, shoot
from dippouch.game import GameSettings
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store import submissions as store_submissions
from dippouch.store.people.persons import create_person, seat_person

SIZES = [{"width": 1280, "height": 800}, {"width": 390, "height": 844}]


@pytest.mark.parametrize("size", SIZES, ids=["desktop", "phone"])
def test_the_person_reads_the_anonymous_game_counted_and_a_visitor_does_not(
    live_site: LiveSite, size: dict[str, int]
) -> None:
    site = live_site
    store, now = site.store, site.now()
    ada = create_person(store, "Ada Lovelace", now=now)
    settings = GameSettings(deadlines={"movement": "2d", "retreats": "1d", "adjustments": "1d"}, anonymous=True)
    store_games.create_game(store, "hush", "standard", now=now, settings=settings)
    store_games.assign(store, "hush", "England", "Ada Lovelace", now=now)
    seat_person(store, "hush", "England", ada, now=now)
    store_submissions.submit(store, "hush", "England", "A Lvp H", now=now + timedelta(minutes=1))
    store_processing.process(store, "hush", now=now + timedelta(minutes=2), force=True)
    site.web.touched("hush")

    own = site.person(ada, size).new_page()
    own.goto(f"{site.base}/people/{ada}")
    shoot(own, "people", f"person-anonymous-own-{size['width']}")
    assert own.locator("#reliability").inner_text() == "100%"
    note = own.locator("#hidden-games").inner_text()
    assert "1 game whose players are hidden until it ends" in note and "Everyone else sees" in note
    assert own.locator("#hidden-games").is_visible()

    visitor = site.context(size).new_page()
    visitor.goto(f"{site.base}/people/{ada}")
    shoot(visitor, "people", f"person-anonymous-visitor-{size['width']}")
    assert visitor.locator("#reliability").inner_text() == "no record yet"
    assert visitor.locator("#games-played").inner_text() == "0"
    assert visitor.locator("#hidden-games").count() == 0
