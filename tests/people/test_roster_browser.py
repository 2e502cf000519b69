"""The player list in a real browser (Debian's Chromium through Playwright, a real server): a person signed
in types their addresses and a holiday into the forms, a co-player of the W3K game opens the roster with the
address in force and the change ahead, and prints it as PDF; a visitor's game page shows the days away only.
Screenshots at desktop and phone sizes go to test-artifacts/web/ (roster-*.png)."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from typing import Any

from browsersupport import DESKTOP, PHONE, LiveSite, shoot, watch_errors
from dippouch.game import GameSettings
from dippouch.store import games as store_games
from dippouch.store.people.persons import create_person, seat_person


def _shoot(page: Any, name: str) -> None:
    shoot(page, "web", name)


def test_a_person_fills_in_the_player_list_and_a_co_player_prints_it(live_site: LiveSite) -> None:
    site = live_site
    web, base = site.web, site.base
    now = datetime.now(UTC)
    store_games.create_game(web.store, "powick", "w3k", now=now, settings=GameSettings(deadlines={"movement": "7d"}))
    people = {}
    for power, name in (("Crown", "Ann Lee"), ("Cumberland", "Bo Diddley")):
        store_games.assign(web.store, "powick", power, name, now=now)
        people[power] = create_person(web.store, name, now=now, email=f"{name.split()[0].lower()}@example.org")
        seat_person(web.store, "powick", power, people[power], now=now)
    trip_from, trip_to = date.today() + timedelta(days=10), date.today() + timedelta(days=20)
    ann = site.person(people["Crown"], DESKTOP, device_scale_factor=1).new_page()
    errors = watch_errors(ann)
    ann.goto(base + "/me/addresses")
    ann.fill("#add-address textarea[name=address]", "1 Powick Lane\nWorcester WR2 4QR")
    ann.click("#add-address button")
    ann.fill("#add-address textarea[name=address]", "Hotel du Port\nBrest")
    ann.fill("#add-address input[name=from]", trip_to.isoformat())
    ann.fill("#add-address input[name=to]", trip_from.isoformat())
    ann.click("#add-address button")
    assert "did you mean from" in ann.inner_text("#address-error")
    assert ann.input_value("#add-address textarea[name=address]") == "Hotel du Port\nBrest"  # kept
    _shoot(ann, "roster-address-refused-desktop")
    assert [e for e in errors if "status of 400" not in e] == []  # the refusal answers 400, as it should
    errors.clear()
    ann.fill("#add-address input[name=from]", trip_from.isoformat())
    ann.fill("#add-address input[name=to]", trip_to.isoformat())
    ann.click("#add-address button")
    assert "Address added." in ann.inner_text(".flash")
    _shoot(ann, "roster-addresses-desktop")
    ann.goto(base + "/me/absences")
    ann.fill("#add-absence input[name=from]", trip_from.isoformat())
    ann.fill("#add-absence input[name=to]", trip_to.isoformat())
    ann.fill("#add-absence input[name=reason]", "a wedding in Brest")
    ann.click("#add-absence button")
    assert "recorded for all your games" in ann.inner_text(".flash")
    _shoot(ann, "roster-absences-desktop")
    assert errors == []

    for size, tag in ((DESKTOP, "desktop"), (PHONE, "phone")):
        bo = site.person(people["Cumberland"], size, device_scale_factor=1).new_page()
        errors = watch_errors(bo)
        bo.goto(base + "/games/powick")
        bo.click("text=Players and addresses")
        table = bo.inner_text(".roster-table")
        assert "1 Powick Lane" in table and "ann@example.org" in table
        assert re.search(rf"from {trip_from.isoformat()}: Hotel du Port, Brest", table)
        _shoot(bo, f"roster-game-{tag}")
        wide = bo.evaluate("document.documentElement.scrollWidth")
        assert wide <= size["width"], f"the roster is {wide} px wide on a {size['width']} px screen"
        with bo.expect_download() as got:
            bo.click("text=PDF")
        pdf = got.value.path().read_bytes()
        assert pdf.startswith(b"%PDF") and len(pdf) > 1000
        assert errors == []

    # Who is away when is told to those who take part in the game (a co-player), not to every visitor.
    bo.goto(base + "/games/powick")
    assert "Crown (Ann Lee): away" in bo.inner_text("#absences") and "wedding" not in bo.content()
    visitor = site.context(DESKTOP, device_scale_factor=1).new_page()
    visitor.goto(base + "/games/powick")
    assert "Ann Lee): away" not in visitor.content() and "wedding" not in visitor.content()
    assert "Powick Lane" not in visitor.content() and "Players and addresses" not in visitor.content()
    _shoot(visitor, "roster-game-page-away-desktop")
