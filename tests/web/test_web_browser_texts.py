"""The pages whose words were made true and helpful, in a real browser (Debian's Chromium, Playwright): the
player's page (an example order of this game, units without an order, a refused submission that keeps the
text, what a draw needs), the coordinator's desk (seating many at once, the links page, the confirmation
before processing) and a variant's special rules in words. Screenshots at desktop (1366x768) and phone
(390x844) sizes go to test-artifacts/web/ (``texts-*.png``)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect
from test_web_browser import ARTIFACTS, _context, browser, server  # noqa: F401  (the fixtures)

from browsersupport import picture

DESKTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}


def _shoot(page: Any, name: str) -> None:
    picture(page, ARTIFACTS / f"texts-{name}.png", full_page=True)


@pytest.mark.slow
def test_player_and_coordinator_texts_in_the_browser(server: dict[str, Any], browser: Any) -> None:  # noqa: F811
    base = server["base"]
    for size, tag, phone in ((DESKTOP, "desktop", False), (PHONE, "phone", True)):
        game = f"texts-{tag}"
        coord = _context(browser, size, phone).new_page()
        coord.goto(f"{base}/k/{server['key']}")
        coord.goto(f"{base}/coordinate")
        coord.fill("input[name=name]", game)
        coord.select_option("#variant-choice", "w3k")
        coord.click("text=Create the game")
        coord.wait_for_selector("text=Seat several players")  # the desk, once it has loaded (not mid-load)
        _shoot(coord, f"desk-{tag}")

        # Seat three powers in one form; the links are shown together.
        coord.fill("input[name='player:Crown']", "Carl")
        coord.fill("input[name='email:Crown']", "carl@example.org")
        coord.fill("input[name='player:Argyll']", "Ada")
        coord.fill("input[name='player:Manchester']", "Max")
        coord.click("text=Seat these players")
        assert "Players seated in" in coord.locator("h1").inner_text()
        _shoot(coord, f"seated-{tag}")
        crown_link = coord.locator('input[aria-label="Crown\'s link"]').input_value()
        assert "/k/dp_" in crown_link

        # The player's page: the example is a real order of the Crown now.
        crown = _context(browser, size, phone).new_page()
        crown.goto(crown_link)
        example = crown.locator("#orders").get_attribute("placeholder") or ""
        assert example and "Paris" not in example, example
        assert "No draw is possible now" in crown.locator("#draw-needs").inner_text()
        _shoot(crown, f"player-example-{tag}")
        first = example.splitlines()[0]
        crown.fill("#orders", first)
        crown.click("#send")
        # Waited for: the form's answer replaces the page, whose hidden note the click leaves in place a moment.
        expect(crown.locator("#unordered")).to_contain_text("Without an order in your orders as they stand")
        _shoot(crown, f"player-unordered-{tag}")

        # A submission refused (its phase processed meanwhile, as a stale form says): the text stays.
        crown.fill("#orders", f"{first}\nA Nowhere - Elsewhere")
        crown.eval_on_selector("input[name=phase]", "e => e.value = 'Spring 1641 Movement'")
        crown.click("#send")
        expect(crown.locator("#refusal")).to_contain_text("Not recorded:")
        assert crown.locator("#orders").input_value() == f"{first}\nA Nowhere - Elsewhere"
        _shoot(crown, f"player-refused-{tag}")

        # Process now asks first.
        coord.goto(f"{base}/games/{game}/coordinate")
        coord.click("text=Process now")
        assert "now?" in coord.locator("h1").inner_text()
        _shoot(coord, f"confirm-process-{tag}")
        coord.click("text=Cancel")
        assert "Coordinate" in coord.locator("h1").inner_text()

        # A variant's special rules in words.
        visitor = _context(browser, size, phone).new_page()
        visitor.goto(f"{base}/variants/1000ad")
        assert "Anarchy (rule 13)" in visitor.content() and "Special rule:" not in visitor.content()
        _shoot(visitor, f"variant-1000ad-{tag}")
