"""W3K on a phone (issue 40, the trial's step 8), in Chromium at 390x844 with touch: the game page and the
player's page fit the screen (the game page was 395 px wide: its powers table pushed the "submitted" pills out),
"Full" keeps the player's zoom and leaves no name bubble behind (it zoomed out to the whole British Isles, units
about 5 px, a stale "Glamorganshire" on top), and the press panel says press is by post, pointing to the roster
of addresses (it said "gunboat"). The press is a tap away: the Press link lands on its threads. Screenshots go
to /tmp/shots/board/ when ``DIPPOUCH_SCREENSHOTS=1`` asks for them."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import dippouch.store.press.messages as store_press
from browsersupport import DESKTOP, PHONE, LiveSite, picture, watch_errors
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import submissions as store_submissions

SHOTS = Path("/tmp/shots/board")
W3K_PLAYERS = 10


def _shot(page: Any, name: str, *, full_page: bool = False) -> None:
    picture(page, SHOTS / f"{name}.png", full_page=full_page)


def _w3k(site: LiveSite) -> list[str]:
    """A W3K game whose ten powers have players with long names, each having sent orders (the table's pills)."""
    now = datetime.now(UTC)
    store_games.create_game(site.store, "kingdoms", "w3k", now=now)
    powers = list(site.web.variant_of("kingdoms").power_names)
    for i, power in enumerate(powers[:W3K_PLAYERS]):
        store_games.assign(site.store, "kingdoms", power, f"Player Number {i + 1} Longname", now=now)
    units = store_history.phase_record(site.store, "kingdoms", "Summer 1642 Movement")["position"]["units"]
    for power in powers[:4]:  # every unit holds: "submitted", the widest pill
        store_submissions.submit(
            site.store, "kingdoms", power, "\n".join(f"{u['unit']} H" for u in units if u["power"] == power), now=now
        )
    site.web.touched("kingdoms")
    return powers


def _unit_px(page: Any, power: str) -> float:
    """The width on screen of the power's first unit token."""
    box = page.locator(f"[id^='unit-'][data-power='{power}']").first.bounding_box()
    assert box is not None
    return float(box["width"])


@pytest.mark.slow
def test_w3k_on_a_phone(live_site: LiveSite) -> None:
    from playwright.sync_api import expect

    site = live_site
    powers = _w3k(site)
    crown = powers[0]
    page = site.player("kingdoms", crown, PHONE)
    errors = watch_errors(page)

    # The player's page fits the phone, and its press panel says how press goes in W3K.
    page.wait_for_selector("[data-viewer-ready]")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    panel = page.locator("#press")
    expect(panel.locator("#press-by-post")).to_contain_text("by post")
    expect(panel).not_to_contain_text("gunboat")
    expect(panel.locator("#press-by-post a")).to_have_attribute("href", "/games/kingdoms/roster")
    assert store_press.press_rules(site.store, "kingdoms").by_post

    # One tap on Press lands on the panel, its threads in view, not 1000 px away.
    page.locator("#press-tab").tap()
    expect(page.locator("#press-threads")).to_be_in_viewport()
    expect(page.locator("#press-by-post")).to_be_in_viewport()
    _shot(page, "w3k-phone-press-tab")

    # "Full" keeps the zoom the page opened on (the player's units) and shows no stale name bubble.
    page.evaluate("window.scrollTo(0, 0)")
    fig = page.locator("[data-map]").first
    before = _unit_px(page, crown)
    region = page.locator(".map-viewport").first.bounding_box()
    assert region is not None
    page.touchscreen.tap(region["x"] + region["width"] / 2, region["y"] + region["height"] / 2)
    page.wait_for_timeout(200)
    _shot(page, "w3k-phone-before-full")
    fig.locator("[data-zoom=full]").click()
    expect(fig).to_have_class(re.compile(r"\bfullscreen\b"))
    page.wait_for_timeout(300)
    after = _unit_px(page, crown)
    assert after >= before * 0.8, f"Full zoomed out: a unit {before:.1f} px wide became {after:.1f} px"
    assert after >= 15, f"units {after:.1f} px wide in Full: too small to tap"
    expect(fig.locator(".map-name")).to_be_hidden()
    _shot(page, "w3k-phone-full")
    fig.locator("[data-zoom=full]").click()
    expect(fig).not_to_have_class(re.compile(r"\bfullscreen\b"))
    page.wait_for_timeout(300)
    assert _unit_px(page, crown) >= before * 0.8
    _shot(page, "w3k-phone-after-full")

    # The game page fits too: the powers table of ten players with long names and their pills.
    page.goto(f"{site.base}/games/kingdoms")
    page.wait_for_load_state("load")
    wide = page.evaluate("document.documentElement.scrollWidth")
    # The powers table inside its card, not spilling over its edge.
    spill = page.evaluate(
        """() => { const t = document.querySelector("table.powers"), c = t.closest(".card");
            return t.getBoundingClientRect().right - (c.getBoundingClientRect().right - parseFloat(getComputedStyle(c).paddingRight) + 0.5); }"""
    )
    assert spill <= 0, f"the powers table runs {spill:.1f} px over its card's edge"
    _shot(page, "w3k-phone-game-page", full_page=True)
    picture(page.locator("table.powers").first, SHOTS / "w3k-phone-powers-table.png")
    assert wide <= PHONE["width"], f"the W3K game page is {wide} px wide on a {PHONE['width']} px phone"
    assert [e for e in errors if "favicon" not in e] == []


@pytest.mark.slow
def test_the_press_beside_the_board_on_a_desktop(live_site: LiveSite) -> None:
    """On a wide screen the press panel is in the column beside the board, in view with the orders form; a
    message sent there leaves the orders typed (and not sent) as they were."""
    from playwright.sync_api import expect

    site = live_site
    now = datetime.now(UTC)
    store_games.create_game(site.store, "talk", "standard", now=now)
    for power in ("England", "France"):
        store_games.assign(site.store, "talk", power, f"{power} Player", now=now)
    en = site.player("talk", "England", DESKTOP)
    en.locator("#orders").fill("A Lvp - Yor\nF Lon - Nth")
    board = en.locator("[data-map]").first.bounding_box()
    press = en.locator("#press").bounding_box()
    assert board is not None and press is not None
    assert press["x"] >= board["x"] + board["width"], "the press panel is beside the board"
    en.locator("#press-compose input[name=to][value=France]").check()
    en.locator("#press-text").fill("Shall we keep the Channel empty?")
    en.locator("#press-send").click()
    expect(en.locator("#press-compose .press-status")).to_have_text("Sent.")
    expect(en.locator("#orders")).to_have_value("A Lvp - Yor\nF Lon - Nth")
    _shot(en, "desktop-press-beside-the-board")
