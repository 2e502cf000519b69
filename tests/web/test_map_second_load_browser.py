"""A W3K game's pages loaded a second time fetch no map (issue 41). Seen through Chromium's own network events
(DevTools protocol): the first load's board file comes from the server, the second's from the browser's cache.

Both pages carry their picture inline and draw the board's fixed parts (the provinces' shapes, the names, the
coasts, the centres) by reference to the variant's board file, whose address names its content's hash: the
public game page (its picture, a phase's units and colours, is in the page), and the player's page (its
provinces are the keyboard's and the screen reader's buttons, and click entry's targets). The pages themselves
carry none of the shapes, and the second load asks the server for none of them: the file comes from the
browser's cache, or from the service worker, which keeps it too (the server's own count of answers says the
service worker did not fetch it again)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import pytest

from browsersupport import PHONE, LiveSite, watch_errors
from dippouch.store import games as store_games
from dippouch.web.http.metrics import REQUEST_SECONDS

T0 = datetime.now(UTC)

BOARD_ROUTE = "/variants/{name}/board-{digest}.svg"


def _load(page: Any, url: str) -> tuple[str, int, list[tuple[str, str]]]:
    """Load ``url`` (a page with a map): the page's HTML as it came, its bytes on the wire (compressed), and
    (address, where from) of each map picture or board file it asked for: "server", "cache" (the browser's
    memory or disk cache) or "worker" (answered by the service worker)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    seen: dict[str, list[Any]] = {}
    cached: set[str] = set()
    worker: set[str] = set()
    wire: dict[str, int] = {}
    cdp.on("Network.requestWillBeSent", lambda e: seen.setdefault(e["requestId"], [e["request"]["url"]]))
    cdp.on("Network.requestServedFromCache", lambda e: cached.add(e["requestId"]))
    cdp.on(
        "Network.responseReceived",
        lambda e: (
            cached.add(e["requestId"])
            if e["response"].get("fromDiskCache")
            else worker.add(e["requestId"])
            if e["response"].get("fromServiceWorker")
            else None
        ),
    )
    cdp.on("Network.loadingFinished", lambda e: wire.__setitem__(e["requestId"], int(e["encodedDataLength"])))
    answer = page.goto(url)
    assert answer is not None and answer.ok
    html = answer.text()
    page.locator("[data-map][data-viewer-ready]").first.wait_for()
    page.wait_for_load_state("networkidle")
    cdp.detach()
    document = next(rid for rid, (u,) in seen.items() if u == url)
    maps = [
        (u, "cache" if rid in cached else "worker" if rid in worker else "server")
        for rid, (u,) in seen.items()
        if re.search(r"/(map-[\w-]+|board-[0-9a-f]+)\.svg$", u)
    ]
    return html, wire.get(document, 0), maps


def _served(route: str) -> int:
    """How many answers the server has given on ``route`` (its pattern), whatever their status."""
    return int(
        sum(
            s.value
            for metric in REQUEST_SECONDS.collect()
            for s in metric.samples
            if s.name.endswith("_count") and s.labels.get("route") == route
        )
    )


@pytest.mark.slow
def test_the_second_load_of_a_w3k_game_page_fetches_no_map(live_site: LiveSite) -> None:
    store_games.create_game(live_site.store, "kingdoms", "w3k", now=T0)
    page = live_site.context(PHONE).new_page()
    errors = watch_errors(page)
    _, _, first = _load(page, f"{live_site.base}/games/kingdoms")
    # Each picture came from the server once (a second ask within the same load may be the memory cache's).
    assert first and {url for url, src in first if src == "server"} == {url for url, _ in first}, first
    page.goto(f"{live_site.base}/variants")  # away, then back as a reader comes back
    _, _, second = _load(page, f"{live_site.base}/games/kingdoms")
    assert second and all(src == "cache" for _, src in second), second
    assert errors == [], errors


@pytest.mark.slow
def test_the_second_load_of_a_w3k_players_page_fetches_no_map_shapes(live_site: LiveSite) -> None:
    store_games.create_game(live_site.store, "kingdoms", "w3k", now=T0)
    store_games.assign(live_site.store, "kingdoms", "Crown", "Player", now=T0)
    # Signed in as the Crown's player without having seen the page yet (the key's link would open it).
    key_id, _ = live_site.web.access.create_key("player", game="kingdoms", power="Crown", now=T0)
    context = live_site.context(PHONE)
    token = live_site.web.access.start_session([key_id], now=T0)
    context.add_cookies([{"name": "dp_session", "value": token, "url": live_site.base}])
    page = context.new_page()
    errors = watch_errors(page)
    url = f"{live_site.base}/games/kingdoms/play/Crown"
    asked = _served(BOARD_ROUTE)
    html, first_bytes, first = _load(page, url)
    # The page draws its units over the board's file; it carries no province's shape and no name's text itself
    # (it carried the whole map: 101 KB compressed, of which the shapes and names were 90).
    assert not re.search(r'<path id="r-|<text id="label-', html), "the page still carries the map's shapes"
    boards = {u for u, _ in first if "/board-" in u}
    assert len(boards) == 1 and all(src == "server" for u, src in first if u in boards), first
    board = boards.pop()
    assert html.count(f'href="{board.removeprefix(live_site.base)}#r-') > 250  # every W3K province, by reference
    assert first_bytes < 40_000, f"the player's page is {first_bytes} bytes on the wire"
    # The file's address names its content: kept a year by the browser, and by shared caches (a public game).
    answer = page.request.get(board)
    assert answer.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert _served(BOARD_ROUTE) == asked + 2  # the page's load and this look at its headers

    page.goto(f"{live_site.base}/variants")  # away, then back as a player comes back
    html_again, _, second = _load(page, url)
    assert board in {u for u, _ in second}, second
    assert all(src in ("cache", "worker") for _, src in second), second
    assert _served(BOARD_ROUTE) == asked + 2, "the second load asked the server for the board"
    assert not re.search(r'<path id="r-|<text id="label-', html_again)
    # And the provinces are the page's own elements still: the keyboard's buttons, named for a reader.
    region = page.locator("[data-interactive] .region[data-province='lon']")
    assert region.get_attribute("role") == "button" and (region.get_attribute("aria-label") or "").startswith("London")
    assert errors == [], errors
