"""End to end in a real browser: Debian's Chromium driven by Playwright against a real server.

A coordinator creates a game and seats two players; one types orders with a typo, sees it flagged live
and corrects it; the other enters an order by clicking on the map (or, while the renderer is not
installed, picks it from the legal-order list); the coordinator processes the phase; everyone sees the
new map and the report; a visitor browses moves. Screenshots of every page, at desktop (1366x900) and
phone (390x844) sizes, are saved as artifacts in the folder the test prints.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from browsersupport import SERVICE_WORKERS, picture, served
from dbsupport import migrated_sqlite
from dippouch.catalog import load_variant
from dippouch.web.views.maps import map_available

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("DIPPOUCH_ARTIFACTS", ROOT / "test-artifacts")) / "web"
DESKTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    from dippouch.web.app import create_app

    db = tmp_path_factory.mktemp("e2e") / "e2e.db"
    app = create_app(migrated_sqlite(db), limits={})
    web = app.state.web
    _, key = web.access.create_key("coordinator", label="e2e", now=datetime.now(UTC))
    with served(app) as port:
        yield {"base": f"http://127.0.0.1:{port}", "key": key, "web": web}


@pytest.fixture(scope="module")
def browser(server: dict[str, Any], chromium: Any) -> Any:
    """The test process's Chromium (browsersupport)."""
    return chromium


def _context(browser: Any, size: dict[str, int], phone: bool = False, workers: str = SERVICE_WORKERS) -> Any:
    """A new context at ``size``; ``workers`` as :data:`browsersupport.SERVICE_WORKERS` says."""
    ctx = browser.new_context(
        viewport=size,
        device_scale_factor=1,
        is_mobile=phone,
        has_touch=phone,
        timezone_id="Europe/Paris",
        locale="en-GB",
        service_workers=workers,
    )
    ctx.set_default_timeout(30_000)
    return ctx


def _shoot(page: Any, name: str) -> None:
    picture(page, ARTIFACTS / f"{name}.png", full_page=True)


def _errors(page: Any) -> list[str]:
    found: list[str] = []
    page.on("console", lambda m: found.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: found.append(str(e)))
    return found


@pytest.mark.slow
def test_a_phase_in_the_browser(server: dict[str, Any], browser: Any) -> None:
    from playwright.sync_api import expect

    base = server["base"]
    coord = _context(browser, DESKTOP).new_page()
    coord_errors = _errors(coord)

    # The coordinator signs in with their link and creates a game with the form.
    coord.goto(f"{base}/k/{server['key']}")
    assert coord.url.endswith("/coordinate")
    _shoot(coord, "coordinate-home-desktop")
    coord.fill("input[name=name]", "e2e")
    coord.select_option("select[name=variant]", "standard")
    coord.fill("input[name=movement]", "3d")
    coord.click("text=Create the game")
    assert coord.url.endswith("/games/e2e/coordinate"), coord.locator("main").inner_text()

    links = {}
    for power, player in (("France", "Bruno Roy"), ("Germany", "Carla Weiss")):
        row = coord.locator("tr", has=coord.locator(f"td:text-is('{power}')"))
        row.locator("input[name=player]").fill(player)
        row.get_by_role("button", name="Seat", exact=True).click()
        link = coord.locator("#secret-link").input_value()
        assert re.fullmatch(rf"{re.escape(base)}/k/dp_[\w-]{{43}}", link)
        links[power] = link
        coord.click("text=Back to e2e")

    # France: a typo, flagged live with the parser's suggestion, then corrected.
    fr = _context(browser, DESKTOP).new_page()
    fr_errors = _errors(fr)
    fr.goto(links["France"])
    assert fr.url.endswith("/games/e2e/play/France")
    fr.fill("#orders", "A Paris - Burgandy\nF Brest - English Channel\nA Marseilles H")
    bad = fr.locator("#checks li.bad")
    bad.first.wait_for()
    assert "did you mean Burgundy (bur)?" in bad.first.inner_text()
    assert fr.locator("#checks li.ok").count() == 2
    _shoot(fr, "player-typo-desktop")
    fr.fill("#orders", "A Paris - Burgundy\nF Brest - English Channel\nA Marseilles H")
    expect(fr.locator("#checks li.bad")).to_have_count(0)
    expect(fr.locator("#checks li.ok")).to_have_count(3)
    fr.click("#send")
    assert "Version 1 recorded" in fr.locator(".flash").inner_text()
    assert "3 orders accepted, 0 rejected" in fr.locator(".flash").inner_text()

    # Germany: one order entered by clicking on the map.
    de = _context(browser, PHONE, phone=True).new_page()
    de_errors = _errors(de)
    de.goto(links["Germany"])
    de.locator("[data-interactive] #unit-mun").click(force=True)
    de.locator("[data-interactive] #r-ruh").click(force=True)
    expect(de.locator("#orders")).to_have_value(re.compile("A mun - ruh"))
    de.locator("#checks li.ok").first.wait_for()
    _shoot(de, "player-phone")
    de.click("#send")
    assert "Version 1 recorded" in de.locator(".flash").inner_text()

    # The public game page: who has sent orders, never what.
    coord.goto(f"{base}/games/e2e")
    assert coord.locator("table.powers").inner_text().count("submitted") == 2
    assert "par - bur" not in coord.locator("main").inner_text() and "mun - ruh" not in coord.content()
    # The coordinator processes now; the new phase, map and report appear.
    coord.goto(f"{base}/games/e2e/coordinate")
    _shoot(coord, "coordinate-desktop")
    coord.click("text=Process now")
    coord.click("main >> text=Process now")  # the confirmation page
    assert "Processed Spring 1901 Movement" in coord.locator(".flash").inner_text()
    coord.goto(f"{base}/games/e2e")
    report = coord.locator("pre.report").inner_text()
    # Reports name places by abbreviation or by full name.
    assert re.search(r"France:\s+A (par|Paris) - (bur|Burgundy)", report), report
    assert re.search(r"Germany:\s+A (mun|Munich) - (ruh|Ruhr)", report), report
    assert (
        "Fall 1901 Movement" in coord.locator("h1 + p, .side-col h2").first.inner_text()
        or "Fall 1901" in coord.content()
    )
    # The game page's map is a picture of its own (kept by the browser), which the script turns into the map
    # viewer: it must have loaded and be drawn.
    coord.locator("[data-map].viewer svg").wait_for()
    assert coord.locator(".map img").count() == 0
    assert coord.locator("[data-map].viewer svg").evaluate("svg => svg.getBoundingClientRect().width > 300")
    assert coord.locator(".map-tools").first.is_visible()
    _shoot(coord, "game-desktop")
    coord.click("text=Orders and results on the map")
    assert "Spring 1901 Movement" in coord.locator("h1").inner_text()
    _shoot(coord, "phase-desktop")

    # A visitor on a phone: the game page, then the move browser.
    visitor = _context(browser, PHONE, phone=True).new_page()
    v_errors = _errors(visitor)
    visitor.goto(f"{base}/games/e2e")
    assert visitor.locator("pre.report").count() == 1
    # The countdown (days left: it shows minutes) is written when what it shows changes, not at every second's
    # tick: a phone keeping the page open does no work for a text that stays the same.
    writes = visitor.evaluate(
        """() => new Promise(done => {
          const clock = document.querySelector('.countdown'), seen = [clock.textContent];
          let writes = 0;
          new MutationObserver(() => { writes += 1; seen.push(clock.textContent); })
            .observe(clock, {childList: true, characterData: true, subtree: true});
          setTimeout(() => done({writes, changes: new Set(seen).size - 1, text: clock.textContent}), 2300);
        })"""
    )
    assert "left" in writes["text"] and writes["writes"] == writes["changes"] <= 1, writes
    # On a phone: the phase and its countdown first, then the map, then the board, the report, links, history.
    tops = [
        visitor.locator(sel).first.bounding_box()["y"]
        for sel in (".side-col > .card >> nth=0", "figure.map", "dl.board", "pre.report", "ol.history")
    ]
    assert tops == sorted(tops), tops
    _shoot(visitor, "game-phone")
    visitor.goto(f"{base}/variants/standard/moves")
    visitor.fill("input[name=q]", "St Petersburg")
    visitor.click("text=Show moves")
    moves = visitor.locator("#moves").inner_text()
    assert "Fleet in St Petersburg (north coast)" in moves and "Barents Sea" in moves and "Gulf of Bothnia" in moves
    _shoot(visitor, "moves-phone")
    visitor.set_viewport_size(DESKTOP)
    _shoot(visitor, "moves-desktop")
    visitor.goto(f"{base}/variants/w3k")
    _shoot(visitor, "variant-desktop")
    visitor.set_viewport_size(PHONE)
    visitor.goto(f"{base}/")
    _shoot(visitor, "home-phone")

    assert coord_errors == [] and fr_errors == [] and de_errors == [] and v_errors == []


def test_click_entry_on_the_map(server: dict[str, Any], browser: Any) -> None:
    assert map_available(load_variant("standard")), "the standard variant's geometry is shipped: a map is drawn"
    web = server["web"]
    from playwright.sync_api import expect

    from dippouch.web.http.security import Viewer
    from dippouch.web.views.new_games import create_game

    grants = [g for g in [web.access.find_key(server["key"])] if g]
    create_game(web, Viewer(grants), {"name": "clicks", "variant": "standard"})
    _, secret = web.access.create_key("player", game="clicks", power="Italy", now=datetime.now(UTC))
    page = _context(browser, DESKTOP).new_page()
    page.goto(f"{server['base']}/k/{secret}")
    page.locator("[data-interactive] #unit-ven").click(force=True)
    page.locator("[data-interactive] #r-tyr").click(force=True)
    expect(page.locator("#orders")).to_have_value(re.compile("A ven - tyr"))
    page.check("input[name=clickmode][value=support]")
    page.locator("[data-interactive] #unit-rom").click(force=True)
    page.locator("[data-interactive] #unit-ven").click(force=True)
    page.locator("[data-interactive] #unit-ven").click(force=True)
    expect(page.locator("#orders")).to_have_value(re.compile(r"A rom S A ven\b"))
    page.locator("#checks li.ok").nth(1).wait_for()
    _shoot(page, "click-entry-desktop")


def test_the_move_browser_brings_the_chosen_territory_into_view(server: dict[str, Any], browser: Any) -> None:
    """W3K's map is taller than its frame: Berkshire, in the south, must be scrolled into view, lit up."""
    assert map_available(load_variant("w3k")), "the w3k variant's geometry is shipped: a map is drawn"
    for size in (DESKTOP, PHONE):
        page = _context(browser, size, phone=size is PHONE).new_page()
        page.goto(f"{server['base']}/variants/w3k/moves?q=Berkshire")
        box = page.evaluate(
            """() => {
              const e = document.querySelector('[data-map] [id="r-brk"]');
              const f = document.querySelector('[data-map] .map-viewport').getBoundingClientRect();
              const r = e.getBoundingClientRect();
              return {lit: e.classList.contains('picked'), y: r.top + r.height / 2, top: f.top, bottom: f.bottom,
                      x: r.left + r.width / 2, left: f.left, right: f.right};
            }"""
        )
        assert box["lit"], box
        mid_y, mid_x = (box["top"] + box["bottom"]) / 2, (box["left"] + box["right"]) / 2
        quarter_y, quarter_x = (box["bottom"] - box["top"]) / 4, (box["right"] - box["left"]) / 4
        assert abs(box["y"] - mid_y) <= quarter_y and abs(box["x"] - mid_x) <= quarter_x, box  # near the middle
        if size is DESKTOP:
            # As the player sees it: a full-page capture re-lays the page out and loses the frame's scroll.
            picture(page, ARTIFACTS / "moves-w3k-desktop.png")


def test_every_page_fits_a_phone_and_loads_nothing_from_elsewhere(server: dict[str, Any], browser: Any) -> None:
    """On a 390-pixel phone no page scrolls sideways (the coordinator's desk included), and no page, at
    either size, asks for anything from another site (no CDN) or logs an error."""
    from dippouch.web.http.security import Viewer
    from dippouch.web.views.games import game_view
    from dippouch.web.views.new_games import create_game

    web, base = server["web"], server["base"]
    grants = [g for g in [web.access.find_key(server["key"])] if g]
    create_game(web, Viewer(grants), {"name": "fit", "variant": "w3k"})
    _, secret = web.access.create_key("player", game="fit", power="Montrose", now=datetime.now(UTC))
    pid = game_view(web, "fit", Viewer(grants))["phase_id"]
    pages = [
        "/",
        "/signin",
        "/games/fit",
        f"/games/fit/phases/{pid}",
        "/games/fit/play/Montrose",
        "/games/fit/coordinate",
        "/coordinate",
        "/variants",
        "/variants/w3k",
        "/variants/w3k/moves?q=Cardigan+Bay",
        "/api/docs",
        "/games/nosuch",
    ]
    for size, phone in ((PHONE, True), (DESKTOP, False)):
        ctx = _context(browser, size, phone=phone)
        page = ctx.new_page()
        errors = _errors(page)
        elsewhere: list[str] = []
        page.on(
            "request", lambda r, out=elsewhere: out.append(r.url) if not r.url.startswith((base, "data:")) else None
        )
        page.goto(f"{base}/k/{server['key']}")
        page.goto(f"{base}/k/{secret}")
        for url in pages:
            page.goto(base + url)
            wide = page.evaluate("document.documentElement.scrollWidth")
            assert wide <= size["width"], f"{url} is {wide} pixels wide on a {size['width']}-pixel screen"
            if phone and url in ("/games/fit/coordinate", "/api/docs"):
                _shoot(page, ("coordinate" if "coordinate" in url else "api-docs") + "-phone")
        assert elsewhere == []
        # The only console error allowed is the browser's note of the deliberate 404 page.
        assert [e for e in errors if "404" not in e] == [], errors
        ctx.close()


def test_a_phase_without_javascript(server: dict[str, Any], browser: Any) -> None:
    """With JavaScript off every form still works: the coordinator creates a game and seats a player, who
    sends orders typed and picked from the lists (a typo reported on the page after sending), marks ready and
    votes; the coordinator processes the phase; the results show."""
    base = server["base"]
    ctx = browser.new_context(viewport=DESKTOP, java_script_enabled=False, timezone_id="Europe/Paris", locale="en-GB")
    ctx.set_default_timeout(15_000)
    coord = ctx.new_page()
    coord.goto(f"{base}/k/{server['key']}")
    coord.fill("input[name=name]", "nojs")
    coord.fill("input[name=movement]", "3d")
    coord.click("text=Create the game")
    assert coord.url.endswith("/games/nojs/coordinate")
    row = coord.locator("tr", has=coord.locator("td:text-is('Italy')"))
    row.locator("input[name=player]").fill("Ines")
    row.get_by_role("button", name="Seat", exact=True).click()
    link = coord.locator("#secret-link").input_value()

    player_ctx = browser.new_context(viewport=PHONE, java_script_enabled=False, is_mobile=True)
    player_ctx.set_default_timeout(15_000)
    it = player_ctx.new_page()
    it.goto(link)
    assert it.url.endswith("/games/nojs/play/Italy")
    it.fill("#orders", "A Venice - Tyrolia\nF Napels - Ionian Sea")
    it.select_option("select[name='pick:rom']", "A rom - apu")
    it.click("#send")
    # The page read whole: the flash at its top is there while a loaded machine still sends the rest.
    it.wait_for_load_state()
    flash = it.locator(".flash").inner_text()
    assert "Version 1 recorded" in flash and "2 orders accepted, 1 rejected" in flash, flash
    expect(it.locator("#checks")).to_contain_text("did you mean Naples (nap)?")
    it.fill("#orders", "A Venice - Tyrolia\nF Naples - Ionian Sea\nA Rome - Apulia")
    it.check("input[name=ready]")
    it.click("#send")
    assert "Version 2 recorded (ready)" in it.locator(".flash").inner_text()
    it.click("text=Vote for a draw")
    it.wait_for_load_state()
    assert "You vote for a draw" in it.locator(".flash").inner_text()
    _shoot(it, "player-nojs-phone")
    # Zooming needs the script: without it the buttons would do nothing, so they are not shown.
    assert it.locator(".map-tools").count() >= 1 and it.locator(".map-tools").first.is_hidden()

    coord.goto(f"{base}/games/nojs/coordinate")
    coord.click("text=Process now")
    coord.click("main >> text=Process now")  # the confirmation, without JavaScript
    assert "Processed Spring 1901 Movement" in coord.locator(".flash").inner_text()
    coord.goto(f"{base}/games/nojs")
    report = coord.locator("pre.report").inner_text()
    assert re.search(r"Italy:\s+A (ven|Venice) - (tyr|Tyrolia)", report), report
    ctx.close()
    player_ctx.close()
