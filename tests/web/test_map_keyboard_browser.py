"""The player's map with a keyboard and for a screen reader, and the phone layout defects of issue 41, in a real
browser (Debian's Chromium through Playwright) at 1366x900 and 390x844.

The map is one Tab stop whose provinces are buttons named by their name and the unit in them ("Paris (army of
France)"); the arrow keys go from province to province, typing a name goes to it, and Enter chooses it as a
click would: a unit, then where it goes, writes the same order line into the box, and Send records it. The
click-entry radios choose what Enter gives (a support), so they are no dead Tab stop. The board and the orders
drawn are text in "The board in words".

The phone defects: a press conversation's own page opens on the conversation (it started 1010 px down, under
the thread list); a tall board (W3K) shown whole fills its frame (it filled about half of it on a desktop); the
move browser opens on the chosen territory and where it goes (it showed the whole board, Aberdeen 8 px wide).
Each was seen to fail on the layout before this change (see each test's docstring).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import pytest

import dippouch.store.press.messages as press
from browsersupport import PHONE, LiveSite, shoot, watch_errors
from dippouch.store import games as store_games

WIDE = {"width": 1366, "height": 900}
SIZES = [pytest.param(WIDE, id="desktop"), pytest.param(PHONE, id="phone")]
T0 = datetime.now(UTC)


def _game(site: LiveSite, name: str, variant: str = "standard", power: str = "France") -> None:
    store_games.create_game(site.store, name, variant, now=T0)
    store_games.assign(site.store, name, power, f"{power} Player", now=T0)


def _focused(page: Any) -> str:
    return str(
        page.evaluate("() => { const e = document.activeElement; return e.getAttribute('aria-label') || e.tagName; }")
    )


def _tab_to_map(page: Any, most: int = 30, key: str = "Tab") -> None:
    """Tab (or Shift+Tab) until a province of the map has the focus."""
    for _ in range(most):
        page.keyboard.press(key)
        if page.evaluate("document.activeElement.matches('[data-interactive] .region')"):
            return
    raise AssertionError(f"no province reached by Tab; the focus is on {_focused(page)}")


def _key_to(page: Any, name: str, typed: int = 4) -> None:
    """Type a province's name (its first ``typed`` letters) on the map: the focus goes to it."""
    page.keyboard.type(name[:typed], delay=30)
    assert _focused(page).startswith(name), _focused(page)


def _box(page: Any) -> list[str]:
    return [ln.strip() for ln in page.locator("#orders").input_value().splitlines() if ln.strip()]


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
def test_a_keyboard_player_orders_on_the_map_and_sends(live_site: LiveSite, size: dict[str, int]) -> None:
    from playwright.sync_api import expect

    tag = "phone" if size["width"] < 500 else "desktop"
    _game(live_site, "keys")
    page = live_site.player("keys", "France", size)
    errors = watch_errors(page)
    page.locator("[data-map][data-viewer-ready]").wait_for()
    board = page.locator("[data-interactive] svg")

    # A screen reader reads the map as a group of named provinces, each with the unit in it.
    expect(board).to_have_attribute("role", "group")
    expect(page.get_by_role("group", name=re.compile(r"^Map: .*Spring 1901 Movement\. Arrow keys"))).to_have_count(1)
    expect(page.get_by_role("button", name="Paris (army of France)", exact=True)).to_have_count(1)
    expect(page.get_by_role("button", name="Brest (fleet of France)", exact=True)).to_have_count(1)
    expect(page.get_by_role("button", name="London (fleet of England)", exact=True)).to_have_count(1)
    expect(page.get_by_role("button", name="Burgundy", exact=True)).to_have_count(1)
    expect(page.get_by_role("button", name="North Sea", exact=True)).to_have_count(1)
    assert board.locator(".region[role=button]").count() == 76  # 75 provinces and impassable Switzerland
    # The reader's tree of the map: the provinces as buttons, and nothing of the drawing's own texts (its names,
    # the units' letters, the legend), which would be read as a jumble of abbreviations.
    tree = board.aria_snapshot()
    lines = [ln.strip() for ln in tree.splitlines()]
    assert '- button "Paris (army of France)"' in lines, tree[:2000]
    assert '- button "Gulf of Lyon"' in lines, tree[:2000]
    assert not [ln for ln in lines if ln.startswith("- text")], tree[:2000]
    assert len([ln for ln in lines if ln.startswith("- button")]) == 76, tree[:2000]
    # One Tab stop for the whole map: the first of the player's provinces.
    assert board.locator("[tabindex='0']").count() == 1
    # The zoom buttons' names start with the words they show.
    expect(page.get_by_role("button", name="Yours: back to your units")).to_have_count(1)

    # Tab to the map: the focus is on a province of France's, ringed by its own outline (no box round it).
    _tab_to_map(page)
    assert "of France" in _focused(page), _focused(page)
    ring = page.evaluate(
        "() => { const el = document.activeElement, ring = el.ownerSVGElement.querySelector('.focus-ring.shown');"
        " return [getComputedStyle(el).outlineStyle, !!ring && ring.querySelector('.line').getAttribute('href')"
        " === el.getAttribute('href')]; }"
    )
    assert ring == ["none", True], ring
    # Paris by its name, then Burgundy with the arrow keys (east of Paris), Enter on each.
    _key_to(page, "Paris")
    page.keyboard.press("Enter")
    expect(page.locator("#click-status")).to_contain_text("Army Paris: press Enter on where it goes")
    expect(page.locator("#click-status")).to_contain_text("It may go to")
    expect(page.locator("[data-interactive] .region:focus")).to_have_attribute(
        "aria-label", "Paris (army of France), chosen"
    )
    for _ in range(6):
        if _focused(page).startswith("Burgundy"):
            break
        page.keyboard.press("ArrowRight")
    assert _focused(page) == "Burgundy, a destination", _focused(page)
    shoot(page, "web", f"map-keyboard-burgundy-{tag}", full_page=False)
    page.keyboard.press("Enter")
    expect(page.locator("#click-status")).to_have_text("Added: A par - bur")
    assert _box(page) == ["A par - bur"]
    # The focus stays on the map, where the player was.
    assert _focused(page) == "Burgundy", _focused(page)

    # A fleet to a place two orders fit: none here; Brest to the Mid-Atlantic by name.
    _key_to(page, "Brest")
    page.keyboard.press("Enter")
    _key_to(page, "Mid-Atlantic Ocean")
    page.keyboard.press("Enter")
    expect(page.locator("#click-status")).to_have_text("Added: F bre - mao")

    # A support, by the radios (keyboard reachable, and what Enter on the map gives): Marseilles supports
    # Paris to Burgundy.
    page.locator("input[name=clickmode][value=support]").focus()
    page.keyboard.press("Space")
    expect(page.locator("input[name=clickmode][value=support]")).to_be_checked()
    _tab_to_map(page, key="Shift+Tab")  # back past the zoom buttons
    _key_to(page, "Marseilles")
    page.keyboard.press("Enter")
    _key_to(page, "Paris")
    page.keyboard.press("Enter")
    _key_to(page, "Burgundy")
    page.keyboard.press("Enter")
    expect(page.locator("#click-status")).to_have_text("Added: A mar S A par - bur")
    expect(page.locator("#checks li.ok")).to_have_count(3)
    assert sorted(_box(page)) == ["A mar S A par - bur", "A par - bur", "F bre - mao"], _box(page)
    shoot(page, "web", f"map-keyboard-orders-{tag}", full_page=False)

    # Sent from the keyboard; the board in words lists what the map draws.
    page.locator("#send").focus()
    page.keyboard.press("Enter")
    expect(page.locator(".flash")).to_contain_text("Version 1 recorded: 3 orders accepted")
    words = page.locator("#board-words")
    words.locator("summary").focus()
    page.keyboard.press("Enter")
    expect(words.locator("dl.board")).to_contain_text("Army Paris")
    expect(words.locator("dl.board")).to_contain_text("Fleet London")
    expect(words.locator("#orders-drawn li")).to_have_count(3)
    expect(words.locator("#orders-drawn")).to_contain_text("A mar S A par - bur")
    words.scroll_into_view_if_needed()
    shoot(page, "web", f"map-keyboard-words-{tag}", full_page=False)
    assert errors == [], errors


@pytest.mark.slow
def test_escape_and_the_build_chooser_by_keyboard(live_site: LiveSite) -> None:
    """Escape after choosing a unit adds nothing and leaves the focus on the map; in Winter, Enter on a site
    where an army or a fleet may be built opens the chooser with its first button focused, Enter there adds
    that build, and the focus goes back to the province."""
    from playwright.sync_api import expect

    _game(live_site, "coast", power="Russia")
    page = live_site.player("coast", "Russia", WIDE)
    page.locator("[data-map][data-viewer-ready]").wait_for()
    _tab_to_map(page)
    _key_to(page, "Sevastopol")
    page.keyboard.press("Enter")
    _key_to(page, "Rumania")
    page.keyboard.press("Enter")
    expect(page.locator("#click-status")).to_have_text("Added: F sev - rum")
    _key_to(page, "St Petersburg")
    page.keyboard.press("Enter")
    expect(page.locator("#click-status")).to_contain_text("press Enter on where it goes")
    page.keyboard.press("Escape")
    expect(page.locator("#click-status")).to_have_text("Nothing added.")
    assert _focused(page).startswith("St Petersburg"), _focused(page)
    assert _box(page) == ["F sev - rum"]

    position = {
        "phase": "Winter 1901 Adjustments",
        "units": [{"power": "France", "unit": "A spa"}, {"power": "France", "unit": "F por"}],
        "supply_centers": {"France": ["par", "bre", "mar", "spa", "por"]},
    }
    store_games.create_game(live_site.store, "winter", "standard", now=T0, position=position)
    store_games.assign(live_site.store, "winter", "France", "France Player", now=T0)
    page = live_site.player("winter", "France", WIDE)
    page.locator("[data-map][data-viewer-ready]").wait_for()
    _tab_to_map(page)
    _key_to(page, "Marseilles")
    page.keyboard.press("Enter")
    chooser = page.locator("[data-interactive] .chooser")
    expect(chooser).to_be_visible()
    expect(chooser.locator("button").first).to_be_focused()
    page.keyboard.press("Tab")  # to the second build
    expect(page.locator(":focus")).to_have_attribute("data-order", "Build F mar")
    page.keyboard.press("Enter")
    expect(page.locator("#click-status")).to_have_text("Added: Build F mar")
    expect(chooser).to_have_count(0)
    assert _focused(page).startswith("Marseilles"), _focused(page)
    assert _box(page) == ["Build F mar"]


@pytest.mark.slow
def test_w3k_by_keyboard_on_a_phone(live_site: LiveSite) -> None:
    """W3K's player's page on a phone: every province a named button, one Tab stop, and a unit's move chosen
    by typing the unit's and the destination's names gives the order a click gives."""
    from playwright.sync_api import expect

    store_games.create_game(live_site.store, "kingdoms", "w3k", now=T0)
    power = next(iter(live_site.web.variant_of("kingdoms").power_names))
    store_games.assign(live_site.store, "kingdoms", power, "Player", now=T0)
    page = live_site.player("kingdoms", power, PHONE)
    errors = watch_errors(page)
    page.locator("[data-map][data-viewer-ready]").wait_for()
    board = page.locator("[data-interactive] svg")
    regions = board.locator(".region[data-province]")
    shapes = len(set(regions.evaluate_all("ps => ps.map(p => p.dataset.province)")))
    assert shapes >= 125, shapes
    expect(board.locator(".region[role=button][aria-label]")).to_have_count(shapes)
    expect(board.locator("[tabindex='0']")).to_have_count(1)
    names = dict(regions.evaluate_all("ps => ps.map(p => [p.dataset.province.toLowerCase(), p.dataset.name])"))
    legal = page.evaluate("JSON.parse(document.getElementById('legal-data').textContent)")
    unit, order = next(
        (u, o)
        for u in legal
        for o in u["orders"]
        if o["type"] == "move"
        and not o.get("via")
        and sum(1 for q in u["orders"] if q.get("dest") == o["dest"] and q["type"] == "move") == 1
    )
    _tab_to_map(page)
    _key_to(page, names[unit["province"]], typed=99)
    page.keyboard.press("Enter")
    expect(page.locator("#click-status")).to_contain_text("press Enter on where it goes")
    _key_to(page, names[order["dest"]], typed=99)
    page.keyboard.press("Enter")
    expect(page.locator("#click-status")).to_have_text(f"Added: {order['text']}")
    assert _box(page) == [order["text"]]
    shoot(page, "web", "map-keyboard-w3k-phone", full_page=False)
    assert errors == [], errors


@pytest.mark.slow
def test_a_press_conversation_opens_on_the_conversation_on_a_phone(live_site: LiveSite) -> None:
    """Failed before: the channel page's thread list came first below 900 px and the conversation's title
    stood at y = 1008 on an 844 px screen (seen with this test's measurement on the old app.css)."""
    _game(live_site, "talk")
    store_games.assign(live_site.store, "talk", "England", "England Player", now=T0)
    for i in range(6):
        press.send(live_site.web.store, "talk", "England", ["France"], f"Message {i}: " + "shall we talk? " * 6, now=T0)
    page = live_site.player("talk", "France", PHONE)
    errors = watch_errors(page)
    href = page.locator("#press a[href*='/press/']").first.get_attribute("href")
    page.goto(live_site.base + str(href))
    title = page.locator("#channel-title").bounding_box()
    assert title is not None and title["y"] + title["height"] < 844 / 2, title
    reply = page.locator("#press-reply").bounding_box()
    panel = page.locator("aside.side-col").bounding_box()
    assert reply is not None and panel is not None and reply["y"] < panel["y"], (reply, panel)
    shoot(page, "web", "press-channel-phone", full_page=False)
    assert errors == [], errors


def _board_fill(page: Any) -> dict[str, float]:
    """How much of the map's frame the board fills, across and down, at the opening view."""
    return dict(
        page.evaluate(
            """() => { const vp = document.querySelector('[data-map] .map-viewport'), svg = vp.querySelector('svg');
              const vb = svg.getAttribute('viewBox').split(/[ ,]+/).map(Number), r = vp.getBoundingClientRect();
              const w = Number(svg.getAttribute('width')), h = Number(svg.getAttribute('height'));
              return { across: Math.min(1, w / vb[2]), down: Math.min(1, h / vb[3]), frame_w: r.width, frame_h: r.height }; }"""
        )
    )


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
def test_w3k_shown_whole_fills_its_frame(live_site: LiveSite, size: dict[str, int]) -> None:
    """Failed before at 1366x900: the variant page's frame was 870x702 and the board's 1200 units took 1953 of
    the view's width (61%: a narrow picture in a wide sea-blue frame)."""
    page = live_site.context(size).new_page()
    errors = watch_errors(page)
    page.goto(live_site.base + "/variants/w3k")
    page.locator("[data-map][data-viewer-ready]").wait_for()
    fill = _board_fill(page)
    assert fill["across"] > 0.97 and fill["down"] > 0.97, fill
    shoot(page, "web", f"w3k-whole-{'phone' if size['width'] < 500 else 'desktop'}", full_page=False)
    assert errors == [], errors


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
def test_the_move_browser_opens_on_the_chosen_territory(live_site: LiveSite, size: dict[str, int]) -> None:
    """Failed before: on /variants/w3k/moves?q=abd the whole board was shown and Aberdeen was 8x9 px on a
    phone and 11x13 on a desktop. Now Aberdeen and every place it goes are in view, Aberdeen at least 30 px."""
    tag = "phone" if size["width"] < 500 else "desktop"
    page = live_site.context(size).new_page()
    errors = watch_errors(page)
    page.goto(live_site.base + "/variants/w3k/moves?q=abd")
    page.locator("[data-map][data-viewer-ready]").wait_for()
    frame = page.locator("[data-map] .map-viewport").bounding_box()
    chosen = page.locator("[data-map] path.picked").bounding_box()
    assert frame is not None and chosen is not None
    assert max(chosen["width"], chosen["height"]) >= 30, chosen
    boxes = page.locator("[data-map] path.target").evaluate_all(
        "ps => ps.map(p => { const r = p.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })"
    )
    assert boxes
    for x, y in [*boxes, [chosen["x"] + chosen["width"] / 2, chosen["y"] + chosen["height"] / 2]]:
        assert frame["x"] <= x <= frame["x"] + frame["width"] and frame["y"] <= y <= frame["y"] + frame["height"], (
            x,
            y,
            frame,
        )
    page.locator("[data-map]").scroll_into_view_if_needed()
    shoot(page, "web", f"moves-abd-{tag}", full_page=False)
    assert errors == [], errors
