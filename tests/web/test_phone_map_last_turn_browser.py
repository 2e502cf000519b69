"""The last turn on a phone (issue 55, the players' trial's item 8), in Chromium at 390x844 with touch: the
last turn's map and its rows filled the first screen, the player's own map and order box two screens further
down. Now each phase of the last turn is one line there (the latest: "Map, orders and results (n)"; the earlier
ones: "Before it: ..."), opened by a tap, and the player's map starts on the first screen; opened, the last
turn's map shows its orders in a view of its own. On a desktop the latest phase is shown open as before.
Screenshots in test-artifacts/phone-map/."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from browsersupport import DESKTOP, PHONE, LiveSite, shoot, watch_errors
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store import submissions as store_submissions

BOUNCE = {"France": "A par - bur\nA mar - spa", "Germany": "A mun - bur"}


def _game(site: LiveSite) -> None:
    store, now = site.store, datetime.now(UTC)
    store_games.create_game(store, "lt", "standard", now=now)
    for power in ("France", "Germany"):
        store_games.assign(store, "lt", power, f"{power} Player", now=now)
    for power, text in BOUNCE.items():
        store_submissions.submit(store, "lt", power, text, now=now)
    store_processing.process(store, "lt", now=now, force=True)


@pytest.mark.slow
def test_the_last_turn_is_a_line_on_a_phone_and_opens_on_a_tap(live_site: LiveSite) -> None:
    from playwright.sync_api import expect

    _game(live_site)
    page = live_site.player("lt", "France", PHONE)
    errors = watch_errors(page)
    page.locator("[data-interactive][data-viewer-ready]").wait_for()
    shoot(page, "phone-map", "last-turn-folded-phone", full_page=False)
    fold = page.locator("#last-turn-fold")
    assert fold.evaluate("d => d.open") is False
    expect(fold.locator("> summary")).to_have_text("Map, orders and results (22)")
    section = page.locator("#last-turn").bounding_box()
    assert section is not None and section["height"] < PHONE["height"] * 0.3, section
    mine = page.locator("[data-interactive]").bounding_box()
    assert mine is not None and mine["y"] < PHONE["height"] - 100, mine
    summary = fold.locator("> summary").bounding_box()
    assert summary is not None and summary["height"] >= 24, summary

    fold.locator("> summary").tap()
    expect(page.locator("#last-turn [data-map].viewer svg")).to_be_visible()
    expect(page.locator("#last-turn-results")).to_contain_text("bounced with")
    svg = page.locator("#last-turn [data-map] svg").bounding_box()
    assert svg is not None and svg["width"] > 300 and svg["height"] > 150, svg
    # Its view opened on France's units at its own size: the orders it draws are on screen.
    fold.scroll_into_view_if_needed()
    shoot(page, "phone-map", "last-turn-opened-phone", full_page=False)
    frame = page.locator("#last-turn .map-viewport").bounding_box()
    arrow = page.locator("#last-turn svg g.order[data-order='A mar - spa']").bounding_box()
    assert frame is not None and arrow is not None
    assert frame["x"] <= arrow["x"] + arrow["width"] / 2 <= frame["x"] + frame["width"], (frame, arrow)
    assert frame["y"] <= arrow["y"] + arrow["height"] / 2 <= frame["y"] + frame["height"], (frame, arrow)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert errors == [], errors


@pytest.mark.slow
def test_the_last_turn_is_open_on_a_desktop(live_site: LiveSite) -> None:
    _game(live_site)
    page = live_site.player("lt", "France", DESKTOP)
    errors = watch_errors(page)
    page.locator("#last-turn [data-map].viewer svg").wait_for()
    assert page.locator("#last-turn-fold").evaluate("d => d.open") is True
    shoot(page, "phone-map", "last-turn-desktop", full_page=False)
    assert errors == [], errors
