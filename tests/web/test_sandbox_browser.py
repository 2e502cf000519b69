"""The sandbox in Debian's Chromium: a visitor opens the standard opening in a sandbox from the variant's page,
adjudicates a convoy with the page's forms (JavaScript off: the forms alone do it), sees a refused unit come
back with what was typed, and, JavaScript on, writes orders and names places by clicking the board. The page fits a phone.
Screenshots in test-artifacts/web/sandbox-*.png."""

from __future__ import annotations

from typing import Any

from browsersupport import DESKTOP, PHONE, LiveSite, shoot, watch_errors
from dippouch.store import games as store_games
from dippouch.store import submissions as store_submissions
from dippouch.store import transfer as store_transfer


def _wide(page: Any) -> int:
    return int(page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth"))


def test_a_convoy_adjudicated_with_the_forms_alone(live_site: LiveSite) -> None:
    from playwright.sync_api import expect

    base = live_site.base
    page = live_site.context(DESKTOP, java_script_enabled=False).new_page()
    page.goto(f"{base}/variants/standard")
    page.click("text=Try in a sandbox")
    expect(page.locator("h1")).to_contain_text("Sandbox: Spring 1901 Movement")
    expect(page.locator(".flash")).to_contain_text("only way back to it")
    here = page.url
    page.fill("#sandbox-orders textarea", "F lon - nth\nF edi - nwg")
    page.click("#sandbox-orders button[value=adjudicate]")
    expect(page.locator("h1")).to_contain_text("Fall 1901 Movement")
    page.select_option("#sandbox-add select[name=kind]", "A")
    page.fill("#sandbox-add input[name=where]", "Londn")
    page.click("#sandbox-add button")
    expect(page.locator(".flash")).to_contain_text("did you mean London")
    expect(page.locator("#sandbox-add input[name=where]")).to_have_value("Londn")  # kept, without JavaScript
    page.fill("#sandbox-add input[name=where]", "lon")
    page.click("#sandbox-add button")
    page.fill("#sandbox-orders textarea", "A lon - bel\nEngland: F nth C A lon - bel")
    page.click("#sandbox-orders button[value=check]")
    expect(page.locator("#checks li.ok")).to_have_count(2)
    page.click("#sandbox-orders button[value=adjudicate]")
    expect(page.locator("h1")).to_contain_text("Spring 1902 Movement")
    expect(page.locator("#results")).to_contain_text("A lon - bel")
    expect(page.locator("#board")).to_contain_text("A bel")
    assert page.url == here
    shoot(page, "web", "sandbox-convoy-desktop")


def test_orders_and_places_clicked_on_the_board_on_a_phone(live_site: LiveSite) -> None:
    from playwright.sync_api import expect

    base = live_site.base
    page = live_site.context(PHONE).new_page()
    errors = watch_errors(page)
    page.goto(f"{base}/sandbox")
    page.click("#sandbox-start button")
    expect(page.locator("h1")).to_contain_text("Sandbox: Spring 1901 Movement")
    # sandbox.js shows the click choice once it listens to the board (deferred: the heading comes first).
    expect(page.locator("#sandbox-clicks")).to_be_visible()
    board = page.locator("[data-map] svg")
    board.locator("#unit-lon").first.dispatch_event("click")
    board.locator("#r-nth").first.dispatch_event("click")
    board.locator("#unit-par").first.dispatch_event("click")
    board.locator("#unit-par").first.dispatch_event("click")
    board.locator("#r-bel").first.dispatch_event("click")  # no unit there: no order
    expect(page.locator("#sandbox-orders textarea")).to_have_value("F lon - nth\nA par H")
    page.check("#sandbox-clicks input[value=place]")
    board.locator("#r-bel").first.dispatch_event("click")
    expect(page.locator("#sandbox-add input[name=where]")).to_have_value("bel")
    page.click("#sandbox-orders button[value=check]")
    expect(page.locator("#checks li.ok")).to_have_count(2)
    assert _wide(page) <= 0, "the sandbox page is wider than the phone"
    shoot(page, "web", "sandbox-phone")
    assert errors == []


def test_no_serious_axe_violation_on_the_sandbox_pages(live_site: LiveSite) -> None:
    from test_axe_pages import _violations

    base = live_site.base
    found: list[str] = []
    # Each form sent, its answer waited for: axe run on the page being left read a document half gone.
    for size in (DESKTOP, PHONE):
        page = live_site.context(size).new_page()
        page.goto(f"{base}/sandbox")
        found += _violations(page, "/sandbox", size is PHONE)
        with page.expect_navigation():
            page.click("#sandbox-start button")
        page.fill("#sandbox-orders textarea", "F lon - nth\nA lon - xyz")
        with page.expect_navigation():
            page.click("#sandbox-orders button[value=check]")
        found += _violations(page, "a sandbox with its checked lines", size is PHONE)
        page.fill("#sandbox-orders textarea", "F lon - nth")
        with page.expect_navigation():
            page.click("#sandbox-orders button[value=adjudicate]")
        found += _violations(page, "a sandbox after a step", size is PHONE)
        share = page.locator("#share input[readonly]").input_value()
        other = live_site.context(size).new_page()
        other.goto(share)
        found += _violations(other, "a sandbox's share link", size is PHONE)
    assert found == []


def test_a_live_phase_s_sandbox_adjudicates_a_convoy_and_a_retreat_and_never_touches_the_game(
    live_site: LiveSite,
) -> None:
    """The issue's case in the browser: a visitor opens a sandbox from a phase of a game being played (one
    order already sent in it), adjudicates a convoy, then an attack that dislodges a unit and that unit's
    retreat, with the page's own forms; the game is exactly as it was (its whole export compared)."""
    from playwright.sync_api import expect

    store = live_site.store
    store_games.create_game(store, "live", "standard", now=live_site.now())
    store_submissions.submit(store, "live", "France", "A par - bur", now=live_site.now())
    phase = live_site.web.access.phases("live")[-1]
    before = store_transfer.export_game(store, "live")
    page = live_site.context(DESKTOP).new_page()
    errors = watch_errors(page)
    page.goto(f"{live_site.base}/games/live/phases/{phase.id}")
    page.click("text=Open in a sandbox")
    expect(page.locator("h1")).to_contain_text("Sandbox: Spring 1901 Movement")
    here = page.url

    def adjudicate(orders: str, then: str) -> None:
        page.fill("#sandbox-orders textarea", orders)
        page.click("#sandbox-orders button[value=adjudicate]")
        expect(page.locator("h1")).to_contain_text(then)

    def place(power: str, kind: str, where: str) -> None:
        page.select_option("#sandbox-add select[name=power]", power)
        page.select_option("#sandbox-add select[name=kind]", kind)
        page.fill("#sandbox-add input[name=where]", where)
        page.click("#sandbox-add button")

    adjudicate("F lon - nth\nF edi - nwg", "Fall 1901 Movement")
    place("England", "A", "lon")
    adjudicate("A lon - bel\nEngland: F nth C A lon - bel", "Spring 1902 Movement")
    expect(page.locator("#results")).to_contain_text("A lon - bel")
    expect(page.locator("#board")).to_contain_text("A bel")  # carried by the fleet: a convoy, not a move by land

    place("Germany", "A", "bur")
    adjudicate("A par - bur\nA mar S A par - bur", "Spring 1902 Retreats")
    expect(page.locator("#board")).to_contain_text("dislodged")
    adjudicate("A bur - ruh", "Fall 1902 Movement")
    expect(page.locator("#results")).to_contain_text("A bur R ruh")
    expect(page.locator("#board")).to_contain_text("A ruh")
    assert page.url == here
    shoot(page, "web", "sandbox-live-retreat-desktop")

    assert store_transfer.export_game(store, "live") == before  # phases, submissions, votes, events: all as they were
    game = live_site.web.access.phases("live")
    assert [(h.id, h.status) for h in game] == [(phase.id, "open")]
    assert errors == []
