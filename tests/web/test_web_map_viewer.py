"""The map viewer in a real browser (Chromium, desktop 1366x768 and phone 390x844): a W3K player page opens
on the player's own units with names big enough to read, the wheel zooms about the pointer, a drag pans the
map and adds no order (a tap still does), "Fit" shows every region, and a region's full name is shown on
hover (desktop) and on tap (phone). Screenshots go to test-artifacts/web/viewer-*.png.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_web_browser import ARTIFACTS, PHONE, _context, _errors, browser, server
from test_web_entry_browser import DESKTOP, SIZES, _game, _point_in, _tap

from browsersupport import picture
from websupport import Site

__all__ = ["browser", "server"]  # the fixtures, shared with the other browser tests

VIEW = "[data-map] .map-viewport"


def _page(browser: Any, server: dict[str, Any], secret: str, size: dict[str, int], phone: bool) -> Any:
    page = _context(browser, size, phone=phone).new_page()
    page.errors = _errors(page)
    page.goto(f"{server['base']}/k/{secret}")
    page.locator("[data-map].viewer").wait_for()
    return page


def _rects(page: Any, selector: str) -> dict[str, Any]:
    """The frame's rectangle and those of the elements matching ``selector`` inside the map."""
    rects: dict[str, Any] = page.evaluate(
        """sel => {
          const r = e => { const b = e.getBoundingClientRect(); return {l: b.left, t: b.top, r: b.right, b: b.bottom}; };
          const fig = document.querySelector('[data-map]');
          return {frame: r(fig.querySelector('.map-viewport')),
                  els: Array.from(fig.querySelectorAll(sel)).map(e => Object.assign({id: e.id}, r(e)))};
        }""",
        selector,
    )
    return rects


def _inside(el: dict[str, Any], frame: dict[str, Any], slack: float = 1.0) -> bool:
    return bool(
        el["l"] >= frame["l"] - slack
        and el["r"] <= frame["r"] + slack
        and el["t"] >= frame["t"] - slack
        and el["b"] <= frame["b"] + slack
    )


def _centre(page: Any, selector: str) -> dict[str, float]:
    b = page.locator(f"{VIEW} {selector}").bounding_box()
    return {"x": b["x"] + b["width"] / 2, "y": b["y"] + b["height"] / 2, "w": b["width"]}


@pytest.mark.slow
@pytest.mark.parametrize("power", ["Crown", "Protectorate"])
@pytest.mark.parametrize("size", SIZES)
def test_a_southern_power_opens_on_its_own_units_with_names_to_read(
    server: dict[str, Any], browser: Any, size: tuple[dict[str, int], bool], power: str
) -> None:
    """W3K's board is tall, Scotland at its top: a southern power's page opens with every one of its units
    inside the frame (and the window) and, on the desktop, the Crown's names in view at least 9 px tall.

    One W3K page a size and power serves three checks that each opened it: this opening; on a laptop
    (1366x768) every name shown in view at least 9 px, the names too small hidden until a zoom brings them
    back (both powers); and the Crown's "Fit" after zooming in showing every region again (both sizes)."""
    size_, phone = size
    _, secret = _game(server, "w3k", power)
    page = _page(browser, server, secret, size_, phone)
    got = _rects(page, f"[id^='unit-'][data-power='{power}']")
    assert len(got["els"]) == 6, got
    seen_frame = dict(got["frame"], b=min(got["frame"]["b"], size_["height"]))  # and in the window
    outside = [e["id"] for e in got["els"] if not _inside(e, seen_frame)]
    assert not outside, (outside, seen_frame)
    names = _rects(page, "[id^='label-']")
    seen = sorted(e["b"] - e["t"] for e in names["els"] if _inside(e, names["frame"]))
    assert seen, "no names in view"
    if not phone and power == "Crown":  # the Protectorate holds Enniskillen and Brest too: the units come first
        assert seen[len(seen) // 2] >= 9, seen  # the median name in view
    assert page.errors == [], page.errors
    picture(page, ARTIFACTS / f"viewer-open-{power.lower()}-{'phone' if phone else 'desktop'}.png")
    if not phone:
        _every_name_shown_reads_on_a_laptop(page, power)
    if power == "Crown":
        _fit_shows_every_region(page, size_, phone)


def _every_name_shown_reads_on_a_laptop(page: Any, power: str) -> None:
    """At 1366x768, the default view holds all of the power's units (the Protectorate's are spread from
    Ulster to Brest) and every name shown in view is at least 9 px tall; names too small at this zoom are
    hidden, and zooming in shows more of them."""
    assert page.viewport_size == DESKTOP, page.viewport_size
    shown = _names_shown(page)
    assert len(shown) >= 8, shown
    assert min(shown) >= 9 - 0.01, sorted(shown)[:10]  # (heights read back as 8.9999 for 9)
    hidden = "() => document.querySelectorAll(\"[data-map] [id^='label-'].name-small\").length"
    at_open = page.evaluate(hidden)
    page.locator("[data-map] [data-zoom=fit]").click()
    at_fit = page.evaluate(hidden)
    assert all(h >= 9 - 0.01 for h in _names_shown(page))  # W3K whole at 1366 px: names on hover, or zoom in
    page.locator("[data-map] [data-zoom=in]").click()
    page.locator("[data-map] [data-zoom=in]").click()
    assert at_fit > page.evaluate(hidden), (at_open, at_fit)  # zooming in shows the names again
    assert page.errors == [], page.errors
    picture(page, ARTIFACTS / f"viewer-laptop-{power.lower()}.png")


def _fit_shows_every_region(page: Any, size_: dict[str, int], phone: bool) -> None:
    """After zooming in, "Fit" brings back the whole W3K board: every region's shape inside the frame."""
    for _ in range(3):
        page.locator("[data-map] [data-zoom=in]").click()
    got = _rects(page, "[id^='r-']")
    assert any(not _inside(e, got["frame"]) for e in got["els"]), "zoomed in, some region is out of view"
    page.locator("[data-map] [data-zoom=fit]").click()
    got = _rects(page, "[id^='r-']")
    assert len(got["els"]) > 100, len(got["els"])
    outside = [e["id"] for e in got["els"] if not _inside(e, got["frame"])]
    assert not outside, outside
    assert got["frame"]["r"] <= size_["width"] + 0.5 and got["frame"]["b"] - got["frame"]["t"] <= size_["height"]
    picture(page, ARTIFACTS / f"viewer-fit-{'phone' if phone else 'desktop'}.png")


@pytest.mark.slow
def test_the_public_pages_open_on_the_whole_board(server: dict[str, Any], browser: Any) -> None:
    """Without a power of one's own (the variant's page here), the map opens on the whole board."""
    page = _context(browser, DESKTOP).new_page()
    page.goto(f"{server['base']}/variants/w3k")
    page.locator("[data-map].viewer").wait_for()
    got = _rects(page, "[id^='r-']")
    assert len(got["els"]) > 100
    assert all(_inside(e, got["frame"]) for e in got["els"])


@pytest.mark.slow
def test_the_wheel_zooms_about_the_pointer(server: dict[str, Any], browser: Any) -> None:
    """A wheel turn over Gloucester's army enlarges the map and leaves the army under the pointer."""
    _, secret = _game(server, "w3k", "Crown")
    page = _page(browser, server, secret, DESKTOP, False)
    before = _centre(page, "#unit-glo")
    page.mouse.move(before["x"] + 3, before["y"] - 2)
    page.mouse.wheel(0, -400)
    page.wait_for_timeout(100)
    after = _centre(page, "#unit-glo")
    assert after["w"] > before["w"] * 1.3, (before, after)
    assert abs(after["x"] - before["x"]) <= 3 + 3 * (after["w"] / before["w"] - 1), (before, after)
    assert abs(after["y"] - before["y"]) <= 3 + 2 * (after["w"] / before["w"] - 1), (before, after)
    # The + button zooms about the view's middle: the middle's map point stays where it was.
    mid = page.evaluate(
        "() => { const b = document.querySelector('[data-map] svg').viewBox.baseVal; return [b.x + b.width / 2, b.y + b.height / 2, b.width]; }"
    )
    page.locator("[data-map] [data-zoom=in]").click()
    mid2 = page.evaluate(
        "() => { const b = document.querySelector('[data-map] svg').viewBox.baseVal; return [b.x + b.width / 2, b.y + b.height / 2, b.width]; }"
    )
    assert mid2[2] < mid[2] / 1.4 and abs(mid2[0] - mid[0]) < 0.01 * mid[2] and abs(mid2[1] - mid[1]) < 0.01 * mid[2]
    picture(page, ARTIFACTS / "viewer-wheel-desktop.png")


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
def test_a_drag_pans_the_map_and_adds_no_order_but_a_tap_still_does(
    server: dict[str, Any], browser: Any, size: tuple[dict[str, int], bool]
) -> None:
    """Dragging from Gloucester's army moves the map with the pointer and neither picks the unit nor adds an
    order; two taps afterwards (the army, then the army again) still make a hold."""
    from playwright.sync_api import expect

    size_, phone = size
    _, secret = _game(server, "w3k", "Crown")
    page = _page(browser, server, secret, size_, phone)
    a = _centre(page, "#unit-glo")
    if phone:
        _touch_drag(page, a["x"], a["y"], a["x"] + 60, a["y"] + 40)
    else:
        page.mouse.move(a["x"], a["y"])
        page.mouse.down()
        for i in range(1, 9):
            page.mouse.move(a["x"] + 60 * i / 8, a["y"] + 40 * i / 8)
        page.mouse.up()
    b = _centre(page, "#unit-glo")
    assert abs(b["x"] - a["x"] - 60) <= 3 and abs(b["y"] - a["y"] - 40) <= 3, (a, b)
    assert page.locator("#orders").input_value().strip() == ""
    assert page.locator("#click-status").inner_text().strip() == ""
    assert page.locator("[data-map] .picked").count() == 0
    for _ in range(2):
        b = _centre(page, "#unit-glo")
        _tap(page, b, phone)
    expect(page.locator("#orders")).to_have_value("A glo H")
    assert page.errors == [], page.errors


def _touch_drag(page: Any, x0: float, y0: float, x1: float, y1: float) -> None:
    """One finger from (x0, y0) to (x1, y1), as the phone's touch screen reports it."""
    cdp = page.context.new_cdp_session(page)

    def touch(kind: str, x: float, y: float) -> None:
        pts = [] if kind == "touchEnd" else [{"x": x, "y": y, "id": 1}]
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": pts})

    touch("touchStart", x0, y0)
    for i in range(1, 9):
        touch("touchMove", x0 + (x1 - x0) * i / 8, y0 + (y1 - y0) * i / 8)
    # The finger rests before it lifts: a finger lifted while moving flings, and Chromium swallows the next
    # tap as the one that stops the fling (as a phone does), which is the browser's doing, not the viewer's.
    for _ in range(3):
        touch("touchMove", x1, y1)
    page.wait_for_timeout(150)
    touch("touchEnd", x1, y1)


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
def test_a_regions_full_name_is_shown_on_hover_and_on_tap(
    server: dict[str, Any], browser: Any, size: tuple[dict[str, int], bool]
) -> None:
    """Over Gloucester (the mouse on the desktop, a tap on the phone) a label says "Gloucester" in full."""
    from playwright.sync_api import expect

    size_, phone = size
    _, secret = _game(server, "w3k", "Crown")
    page = _page(browser, server, secret, size_, phone)
    name = page.locator("[data-map] #r-wil").get_attribute("data-name")
    assert name and len(name) > 3, name
    pt = _point_in(page, "wil")
    if phone:
        page.touchscreen.tap(pt["x"], pt["y"])
    else:
        page.mouse.move(pt["x"], pt["y"])
    label = page.locator("[data-map] .map-name")
    expect(label).to_be_visible()
    expect(label).to_have_text(name)
    picture(page, ARTIFACTS / f"viewer-name-{'phone' if phone else 'desktop'}.png")


@pytest.mark.slow
def test_the_full_screen_button_gives_a_phone_the_whole_screen_to_the_map(server: dict[str, Any], browser: Any) -> None:
    """On a phone the full-screen button makes the map cover the screen, and "Fit" there shows every region."""
    _, secret = _game(server, "w3k", "Crown")
    page = _page(browser, server, secret, PHONE, True)
    page.locator("[data-map] [data-zoom=full]").tap()
    page.wait_for_timeout(300)
    fig = page.locator("[data-map]").bounding_box()
    assert fig["width"] >= PHONE["width"] - 1 and fig["height"] >= PHONE["height"] - 1, fig
    page.locator("[data-map] [data-zoom=fit]").tap()
    got = _rects(page, "[id^='r-']")
    assert all(_inside(e, got["frame"]) for e in got["els"])
    assert got["frame"]["b"] - got["frame"]["t"] > PHONE["height"] * 0.8, got["frame"]
    picture(page, ARTIFACTS / "viewer-fullscreen-phone.png")


@pytest.mark.slow
def test_two_fingers_pinch_the_map_about_their_middle(server: dict[str, Any], browser: Any) -> None:
    """On a phone two fingers moving apart about Gloucester's army enlarge the map, the army staying between
    them, and add no order."""
    _, secret = _game(server, "w3k", "Crown")
    page = _page(browser, server, secret, PHONE, True)
    a = _centre(page, "#unit-glo")
    cdp = page.context.new_cdp_session(page)

    def fingers(kind: str, spread: float) -> None:
        pts = [{"x": a["x"] - spread, "y": a["y"], "id": 1}, {"x": a["x"] + spread, "y": a["y"], "id": 2}]
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": [] if kind == "touchEnd" else pts})

    fingers("touchStart", 20)
    for i in range(1, 11):
        fingers("touchMove", 20 + 4 * i)
    fingers("touchEnd", 60)
    b = _centre(page, "#unit-glo")
    assert b["w"] > a["w"] * 2, (a, b)  # the fingers' distance tripled
    assert abs(b["x"] - a["x"]) <= 4 and abs(b["y"] - a["y"]) <= 4, (a, b)
    assert page.locator("#orders").input_value().strip() == ""
    picture(page, ARTIFACTS / "viewer-pinch-phone.png")


def _names_shown(page: Any) -> list[float]:
    """Heights on screen of the names in view that are shown (the viewer hides names too small to read)."""
    heights: list[float] = page.evaluate(
        """() => {
          const fig = document.querySelector('[data-map]');
          const f = fig.querySelector('.map-viewport').getBoundingClientRect();
          return Array.from(fig.querySelectorAll("[id^='label-']")).filter(t => {
            const b = t.getBoundingClientRect();
            return getComputedStyle(t).visibility !== 'hidden' && b.left >= f.left - 1 && b.right <= f.right + 1
              && b.top >= f.top - 1 && b.bottom <= Math.min(f.bottom, innerHeight) + 1;
          }).map(t => t.getBoundingClientRect().height);
        }"""
    )
    return heights


@pytest.mark.slow
def test_the_public_game_page_gets_the_viewer_and_keeps_its_picture_without_script(
    server: dict[str, Any], browser: Any
) -> None:
    """The game's public page carries its map inline, drawn over the board's file as the player's page is; with
    the script it gets the same viewer as a player's (zoom at the pointer, Fit, names on hover), without it the
    picture is still drawn whole (the browser itself fetches the board's parts)."""
    name, _ = _game(server, "w3k", "Crown")
    page = _context(browser, DESKTOP).new_page()
    page.errors = _errors(page)
    page.goto(f"{server['base']}/games/{name}")
    page.locator("[data-map].viewer svg").wait_for()
    assert page.locator("[data-map] img").count() == 0
    got = _rects(page, "[id^='r-']")
    assert len(got["els"]) > 100 and all(_inside(e, got["frame"]) for e in got["els"])  # opens whole
    before = _centre(page, "#r-glo")
    page.mouse.move(before["x"], before["y"])
    page.mouse.wheel(0, -400)
    page.wait_for_timeout(100)
    after = _centre(page, "#r-glo")
    assert after["w"] > before["w"] * 1.3 and abs(after["x"] - before["x"]) < before["w"], (before, after)
    page.mouse.move(after["x"], after["y"])
    page.locator("[data-map] .map-name").wait_for(state="visible")
    assert "Gloucester" in page.locator("[data-map] .map-name").inner_text()
    page.locator("[data-map] [data-zoom=fit]").click()
    got = _rects(page, "[id^='r-']")
    assert all(_inside(e, got["frame"]) for e in got["els"])
    assert page.errors == [], page.errors
    picture(page, ARTIFACTS / "viewer-public-game.png")
    plain = browser.new_context(viewport=DESKTOP, java_script_enabled=False).new_page()
    plain.goto(f"{server['base']}/games/{name}")
    assert plain.locator("[data-map] img").count() == 0 and plain.locator("[data-map] svg").count() == 1
    # A province's shape has its size once the board's file is in: drawn, not an empty reference.
    plain.wait_for_function("() => document.querySelector('[data-map] #r-glo').getBBox().width > 5")
    assert plain.locator("[data-map] [id^='r-']").count() > 100


def _default_view(page: Any, power: str) -> dict[str, Any]:
    """What the default view shows: the frame (cut to the window), the power's units, and every name shown
    that reaches into the frame with its rendered font size (its font-size times the screen's scale, its own
    enlargement included) and its box on screen."""
    got: dict[str, Any] = page.evaluate(
        """power => {
          const fig = document.querySelector('[data-map]');
          const f = fig.querySelector('.map-viewport').getBoundingClientRect();
          const frame = {l: f.left, t: f.top, r: f.right, b: Math.min(f.bottom, innerHeight)};
          const box = e => { const b = e.getBoundingClientRect(); return {l: b.left, t: b.top, r: b.right, b: b.bottom}; };
          const units = Array.from(fig.querySelectorAll(`[id^='unit-'][data-power='${power}']`))
            .map(u => Object.assign({id: u.id}, box(u)));
          const names = Array.from(fig.querySelectorAll("[id^='label-']")).filter(t => {
            const b = t.getBoundingClientRect();
            return getComputedStyle(t).visibility !== 'hidden' && b.right > frame.l && b.left < frame.r
              && b.bottom > frame.t && b.top < frame.b;
          }).map(t => Object.assign({id: t.id, px: parseFloat(t.getAttribute('font-size') || t.getAttribute('data-size')) * t.getScreenCTM().a}, box(t)));
          return {frame, units, names};
        }""",
        power,
    )
    return got


def _overlaps(names: list[dict[str, Any]], slack: float = 0.5) -> list[tuple[str, str]]:
    out = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            if (
                a["l"] + slack < b["r"]
                and b["l"] + slack < a["r"]
                and a["t"] + slack < b["b"]
                and b["t"] + slack < a["b"]
            ):
                out.append((a["id"], b["id"]))
    return out


def _placed(v: Any) -> dict[str, Any]:
    """The variant's start, or where it starts with an empty board (1000 AD's Winter 999), the board after
    every power has placed a unit on every site it may (the first kind offered)."""
    from dippouch.core.adjudicator import adjudicate
    from dippouch.core.jsonio import position_to_json
    from dippouch.core.legal_orders import legal_orders

    position = v.start
    if not position.units:
        orders = {p: [choices[0] for choices in legal_orders(v, position, p).values()] for p in v.power_names}
        position = adjudicate(v, position, orders).next
    assert position.units
    return position_to_json(v, position)


#: Not 1897: standard's map and powers, and it opens with no units on the board (the powers build them), so
#: its default views are standard's.
@pytest.mark.slow
@pytest.mark.parametrize("variant", ["w3k", "standard", "hundred3", "hundred", "1000ad"])
def test_the_default_view_shows_every_powers_units_and_readable_names_apart(
    server: dict[str, Any], browser: Any, variant: str
) -> None:
    """For every power of the variant, at 1366x768 and on a phone (390x844), the page opens with all of the
    power's units in view and names to read: every name shown in view at least 9 px (names are drawn
    larger where the zoom would make them smaller) and no two shown names overlapping (a name that would
    overlap a more important one waits for a closer zoom). W3K's powers are spread the length of the
    islands, so its default views are the widest.

    The page is opened once a size, as the first power's: its opening view is checked as it opened, and
    "Yours" (back to your units) brings the same view back after zooming in. Every other power's
    default view is the one "Yours" shows on that page with the map's power set to it: the opening and the
    button are one function of the map's power and its units (a page load per power took 4 s each under the
    whole suite's load)."""
    from dippouch.catalog import load_variant

    v = load_variant(variant)
    powers = [p.name for p in v.powers]
    _, secret = _game(server, variant, powers[0], _placed(v))
    for size_, phone in [(DESKTOP, False), (PHONE, True)]:
        page = _page(browser, server, secret, size_, phone)
        home = page.locator("[data-map] [data-zoom='home']")
        opened = _default_view(page, powers[0])
        page.locator("[data-map] [data-zoom='in']").dispatch_event("click")
        page.locator("[data-map] [data-zoom='in']").dispatch_event("click")
        assert _default_view(page, powers[0])["units"] != opened["units"]
        home.dispatch_event("click")
        assert _default_view(page, powers[0]) == opened, "Yours does not bring back the opening view"
        for power in powers:
            if power != powers[0]:
                page.evaluate("p => document.querySelector('[data-map]').setAttribute('data-focus-power', p)", power)
                home.dispatch_event("click")
            got = _default_view(page, power)
            where = (variant, power, "phone" if phone else "desktop")
            assert got["units"], where
            outside = [u["id"] for u in got["units"] if not _inside(u, got["frame"])]
            assert not outside, (where, outside, got["frame"])
            assert len(got["names"]) >= 3, (where, got["names"])
            small = [(n["id"], round(n["px"], 2)) for n in got["names"] if n["px"] < 9 - 0.01]
            assert not small, (where, small)
            assert not _overlaps(got["names"]), (where, _overlaps(got["names"]))
            if variant == "w3k" and power in ("Protectorate", "Manchester"):
                picture(page, ARTIFACTS / f"viewer-default-{power.lower()}-{'phone' if phone else 'desktop'}.png")
        assert page.errors == [], page.errors
        page.context.close()


def _drafts(page: Any) -> list[dict[str, Any]]:
    """The orders drawn as typed: each draft's kind and provinces (its data attributes), and whether its
    line starts in the unit's province and, for a move, its arrowhead lies in the destination's shape (the
    province's path in the board's file, which the page's map uses)."""
    got: list[dict[str, Any]] = page.evaluate(
        """async () => {
          const fig = document.querySelector('[data-interactive]');
          const used = fig.querySelector('use.region').getAttribute('href').split('#')[0];
          const file = new DOMParser().parseFromString(await (await fetch(used)).text(), 'image/svg+xml');
          const sheet = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
          sheet.style.position = 'absolute';
          sheet.style.visibility = 'hidden';
          document.body.appendChild(sheet);
          const shape = a => { const s = file.getElementById('r-' + a);
            return s ? sheet.appendChild(document.importNode(s, true)) : null; };
          const inside = (a, x, y) => { const s = shape(a); const p = sheet.createSVGPoint();
            p.x = x; p.y = y; return !!s && s.isPointInFill(p); };
          const drafts = Array.from(document.querySelectorAll('[data-interactive] svg g.drafts > g.draft')).map(g => {
          const path = g.querySelector('path'), head = g.querySelector('polygon');
          const start = path ? path.getPointAtLength(0) : null;
          const hb = head ? head.getBBox() : null;
          return {cls: g.getAttribute('class'), order: g.dataset.order, unit: g.dataset.unit, dest: g.dataset.dest,
                  line: g.dataset.line, starts_in_unit: !!start && inside(g.dataset.unit, start.x, start.y),
                  head_in_dest: !!hb && inside(g.dataset.dest, hb.x + hb.width / 2, hb.y + hb.height / 2)};
          });
          sheet.remove();
          return drafts; }"""
    )
    return got


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
def test_orders_are_drawn_on_the_map_as_they_are_typed(
    server: dict[str, Any], browser: Any, size: tuple[dict[str, int], bool]
) -> None:
    """Typing "A glo - wil" into the order box draws a draft arrow from Gloucester into Wiltshire before
    anything is sent; changing the line to Herefordshire moves the arrow there; a hold is drawn beside it;
    a line that does not read, and a move the rules refuse, draw nothing; emptying the box takes the
    drafts away. Nothing is sent: the page's own drawn orders (class ``order``) stay as they were."""
    from playwright.sync_api import expect

    size_, phone = size
    _, secret = _game(server, "w3k", "Crown")
    page = _page(browser, server, secret, size_, phone)
    sent_before = page.locator("[data-interactive] svg g.order").count()
    drafts = page.locator("[data-interactive] svg g.drafts > g.draft")
    box = page.locator("#orders")
    box.fill("A glo - wil")
    expect(drafts).to_have_count(1)
    got = _drafts(page)
    assert got[0]["cls"] == "draft move" and got[0]["unit"] == "glo" and got[0]["dest"] == "wil", got
    assert got[0]["starts_in_unit"] and got[0]["head_in_dest"], got
    box.fill("A glo - hfd")
    expect(page.locator("[data-interactive] g.draft[data-dest='hfd']")).to_have_count(1)
    got = _drafts(page)
    assert [(d["unit"], d["dest"]) for d in got] == [("glo", "hfd")], got
    assert got[0]["starts_in_unit"] and got[0]["head_in_dest"], got
    box.fill("A glo - hfd\nA wil H\nA nowhere - x\nA bri - ham")  # the last two refused: not drawn
    expect(page.locator("#checks li.bad")).to_have_count(2)
    expect(drafts).to_have_count(2)
    got = _drafts(page)
    assert sorted((d["cls"], d["unit"], d["line"]) for d in got) == [
        ("draft hold", "wil", "2"),
        ("draft move", "glo", "1"),
    ], got
    page.locator("[data-interactive] #unit-glo").scroll_into_view_if_needed()
    picture(page, ARTIFACTS / f"viewer-draft-{'phone' if phone else 'desktop'}.png")
    box.fill("")
    expect(drafts).to_have_count(0)
    assert page.locator("[data-interactive] svg g.order").count() == sent_before
    assert page.errors == [], page.errors


def test_the_line_check_answers_each_accepted_line_with_its_drawing(tmp_path: Path) -> None:
    """The line check gives the page each accepted line drawn by the renderer (``draft``), and nothing for
    a line it could not read or the rules refused: the page only places what it is given."""
    site = Site(f"sqlite:///{tmp_path / 'web.db'}")
    site.new_game("g")
    fr = site.player("g", "France")
    text = "A par - bur\nBurgandy\nA mar - mun\nF bre H"
    lines = site.api(fr, "/api/games/g/powers/France/check", {"text": text}).json()["lines"]
    assert [ln["draft"] is not None for ln in lines] == [True, False, False, True], lines
    assert 'class="draft move"' in lines[0]["draft"] and 'data-dest="bur"' in lines[0]["draft"]
    assert 'class="draft hold"' in lines[3]["draft"] and 'data-unit="bre"' in lines[3]["draft"]
