"""A W3K game's public page loaded a second time fetches no map (issue 41): a phase's picture has an address that
always means the same picture (the phase, the view and the release), kept a year by the browser, so the second
visit draws the board from the browser's cache. Seen through Chromium's own network events (DevTools protocol):
the first load's map comes from the server, the second's from the cache.

Not the player's page: it still carries its map inline, drawn for the player, on every load."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from browsersupport import PHONE, LiveSite, watch_errors

T0 = datetime.now(UTC)


def _maps(page: Any, base: str) -> list[tuple[str, bool]]:
    """Load the W3K game's page; (address, from the cache) of each map picture it asked for."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    seen: dict[str, list[Any]] = {}
    cached: set[str] = set()
    cdp.on("Network.requestWillBeSent", lambda e: seen.setdefault(e["requestId"], [e["request"]["url"], False]))
    cdp.on("Network.requestServedFromCache", lambda e: cached.add(e["requestId"]))
    cdp.on(
        "Network.responseReceived",
        lambda e: cached.add(e["requestId"]) if e["response"].get("fromDiskCache") else None,
    )
    page.goto(f"{base}/games/kingdoms")
    page.locator("[data-map][data-viewer-ready]").wait_for()
    page.wait_for_load_state("networkidle")
    cdp.detach()
    return [(url, rid in cached) for rid, (url, _) in seen.items() if "/map-" in url and url.endswith(".svg")]


@pytest.mark.slow
def test_the_second_load_of_a_w3k_game_page_fetches_no_map(live_site: LiveSite) -> None:
    live_site.store.create_game("kingdoms", "w3k", now=T0)
    page = live_site.context(PHONE).new_page()
    errors = watch_errors(page)
    first = _maps(page, live_site.base)
    # Each picture came from the server once (a second ask within the same load may be the memory cache's).
    assert first and {url for url, hit in first if not hit} == {url for url, _ in first}, first
    page.goto(f"{live_site.base}/variants")  # away, then back as a reader comes back
    second = _maps(page, live_site.base)
    assert second and all(hit for _, hit in second), second
    assert errors == [], errors
