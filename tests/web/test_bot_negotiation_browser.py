"""Negotiating with a bot through the real pages (Debian's Chromium through Playwright, against a real server):
a practice game started from the home page, the player asks Germany's bot for a support in plain English, the
page shows the bot's "yes" in the thread, and when the phase is processed the bot's order is that support."""

from __future__ import annotations

from typing import Any

import pytest

from browsersupport import LiveSite, shoot, watch_errors
from dippouch.bots.seats import bot_seats
from dippouch.store import history as store_history


def _thread(page: Any, label: str) -> Any:
    return page.locator("#press-threads > li", has=page.locator(f'.press-thread-label:text-is("{label}")'))


@pytest.mark.slow
def test_a_player_asks_a_bot_for_a_support_gets_yes_and_the_bot_orders_it(live_site: LiveSite) -> None:
    from playwright.sync_api import expect

    page = live_site.context().new_page()
    errors = watch_errors(page)
    page.goto(live_site.base + "/")
    form = page.locator("#practice")
    form.locator("select[name=power]").select_option("France")
    form.get_by_role("button", name="Start a practice game").click()
    page.wait_for_url("**/play/France")
    game = page.url.split("/")[4]
    store = live_site.store
    assert bot_seats(store, game)["Germany"]

    # The request, in the player's own words, to Germany alone.
    compose = page.locator("#press-compose")
    compose.locator("input[name=to][value=Germany]").check()
    page.locator("#press-text").fill("Will you support my A Paris to Burgundy?")
    page.locator("#press-send").click()
    thread = _thread(page, "Germany").locator("ol.press-messages")
    expect(thread).to_contain_text("Will you support my A Paris to Burgundy?")
    expect(thread).to_contain_text("Yes: I will support your A Paris to Burgundy.")
    expect(thread).not_to_contain_text("[dippouch]")  # the structured line is for programs, not the person
    shoot(page, "web", "bot-negotiation-yes-desktop")

    # The player's orders, ready: the bots are ready too, so the phase is processed at once.
    page.locator("textarea[name=orders]").fill("A par - bur\nA mar - spa\nF bre - mao")
    page.locator("input[name=ready]").check()
    expect(page.locator("#checks li.ok")).to_have_count(3)
    page.locator("#send").click()
    page.wait_for_url("**/play/France")
    expect(page.locator("#flash")).to_contain_text("Spring 1901 Movement has been processed")

    spring = next(h for h in store_history.history(store, game) if h.name == "Spring 1901 Movement")
    germany = {r["order"]: r["result"] for r in spring.results or [] if r["power"] == "Germany"}
    assert germany.get("A mun S A par - bur") == "given", germany
    france = {r["order"]: r["result"] for r in spring.results or [] if r["power"] == "France"}
    assert france["A par - bur"] == "succeeds"
    # The phase's results page names the support as the bot's order.
    page.goto(f"{live_site.base}/games/{game}/phases/{spring.id}")
    expect(page.locator("main")).to_contain_text("A mun S A par - bur")
    assert [e for e in errors if "favicon" not in e] == []
