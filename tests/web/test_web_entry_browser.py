"""The order page in a real browser (Chromium, desktop and phone): what the player picks from the lists or
clicks on the map is exactly what the store records as the standing version.

Every test sends its orders and reads the *standing version in the store*, never only the page: builds,
removals, 1000 AD placements, retreats and W3K transfers picked several at a time each keep their own
line (a pick replaces only the line about the same unit or site, as the server's line check says); a click
that fits several orders (a fleet arriving on either coast) offers them instead of choosing one; a unit's
token drawn over a small province does not take the click meant for the province beneath; the notes the
line check gives (W3K hand-overs) are shown, live and after sending without JavaScript.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_web_browser import ARTIFACTS, PHONE, _context, _errors, browser, server

from browsersupport import picture
from dippouch.catalog import load_variant
from dippouch.store import games as store_games
from dippouch.store import history as store_history

__all__ = ["browser", "server"]  # the fixtures, shared with the other browser tests

DESKTOP = {"width": 1366, "height": 768}
SIZES = [pytest.param((DESKTOP, False), id="desktop"), pytest.param((PHONE, True), id="phone")]

_games = iter(range(1, 10_000))


def _game(server: dict[str, Any], variant: str, power: str, position: dict[str, Any] | None = None) -> tuple[str, str]:
    """A new game (at ``position``, in the adjudication contract's shape) and a player key for ``power``."""
    web = server["web"]
    name = f"{variant}-{next(_games)}"
    store_games.create_game(web.store, name, variant, now=datetime.now(UTC), position=position)
    _, secret = web.access.create_key("player", game=name, power=power, now=datetime.now(UTC))
    return name, secret


def _standing(server: dict[str, Any], game: str, power: str) -> list[str]:
    """The accepted orders of the power's standing version, as the store keeps them."""
    rec = store_history.phase_record(server["web"].store, game, open_ok=True)
    subs = [s for s in rec["submissions"] if s["power"] == power and s.get("stands", True) and not s["late"]]
    assert subs, f"no standing version of {power} in {game}"
    return [ln["order"] for ln in subs[-1]["lines"] if ln["order"] and not ln["error"]]


def _box(page: Any) -> list[str]:
    return [ln.strip() for ln in page.locator("#orders").input_value().splitlines() if ln.strip()]


def _open(browser: Any, server: dict[str, Any], secret: str, size: dict[str, int], phone: bool) -> Any:
    page = _context(browser, size, phone=phone).new_page()
    page.errors = _errors(page)
    page.goto(f"{server['base']}/k/{secret}")
    page.locator("details.picks").evaluate("d => d.open = true")
    return page


def _pick(page: Any, loc: str, text: str) -> None:
    page.select_option(f"select[name='pick:{loc}']", text)


def _send(page: Any) -> None:
    # Wait for the box's lines to be checked (so the test sees what the player sees), then send.
    page.locator("#checks li").first.wait_for()
    page.click("#send")
    assert "recorded" in page.locator(".flash").inner_text()


def _sent_exactly(
    page: Any, server: dict[str, Any], game: str, power: str, expected: list[str], stored: list[str] | None = None
) -> None:
    """The box holds ``expected``, line for line; sent, the standing version is ``stored`` (by default the
    same orders): nothing picked was lost, nothing was doubled."""
    from playwright.sync_api import expect

    # Picks wait for the line check of lines typed in words; on a loaded machine that takes a while, so wait
    # for the box to hold exactly these lines (blank lines aside) before reading it.
    lines = r"[ \t]*(?:\r?\n[ \t]*)+".join(re.escape(x) for x in expected)
    expect(page.locator("#orders")).to_have_value(re.compile(rf"^\s*{lines}\s*$"))
    assert _box(page) == expected, _box(page)
    _send(page)
    assert sorted(_standing(server, game, power)) == sorted(stored if stored is not None else expected)
    assert page.errors == [], page.errors


# ---------------------------------------------------------------------------------------------- lists


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
def test_builds_picked_from_the_lists_each_keep_their_line(
    server: dict[str, Any], browser: Any, size: tuple[dict[str, int], bool]
) -> None:
    """France at Winter 1901 picks three builds: all three are recorded; a second pick for one site replaces
    that site's build, and the same pick twice is not doubled."""
    game, secret = _game(
        server,
        "standard",
        "France",
        {
            "phase": "Winter 1901 Adjustments",
            "units": [{"power": "France", "unit": "A spa"}, {"power": "France", "unit": "F por"}],
            "supply_centers": {"France": ["par", "bre", "mar", "spa", "por"]},
        },
    )
    page = _open(browser, server, secret, *size)
    for loc, text in (("bre", "Build A bre"), ("mar", "Build A mar"), ("par", "Build A par")):
        _pick(page, loc, text)
    assert _box(page) == ["Build A bre", "Build A mar", "Build A par"]
    page.locator("#checks li.ok").nth(2).wait_for()
    from playwright.sync_api import expect

    expect(page.locator("#unordered")).to_be_hidden()  # every build ordered
    picture(page, ARTIFACTS / f"entry-builds-{'phone' if size[1] else 'desktop'}.png", full_page=True)
    _pick(page, "bre", "Build F bre")
    _pick(page, "par", "Build A par")
    # A click on a site with a choice of builds asks which; the chosen build replaces that site's line.
    _tap(page, _point_in(page, "mar"), size[1])
    chooser = page.locator("[data-interactive] .chooser")
    assert sorted(chooser.locator("button[data-order]").evaluate_all("bs => bs.map(b => b.dataset.order)")) == [
        "Build A mar",
        "Build F mar",
    ]
    chooser.locator("button[data-order='Build F mar']").click()
    _sent_exactly(page, server, game, "France", ["Build F bre", "Build F mar", "Build A par"])


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
def test_removals_picked_from_the_lists_each_keep_their_line(
    server: dict[str, Any], browser: Any, size: tuple[dict[str, int], bool]
) -> None:
    game, secret = _game(
        server,
        "standard",
        "Germany",
        {
            "phase": "Winter 1901 Adjustments",
            "units": [{"power": "Germany", "unit": u} for u in ("A mun", "A ber", "F kie", "A sil", "A pru")],
            "supply_centers": {"Germany": ["ber", "kie", "mun"]},
        },
    )
    page = _open(browser, server, secret, *size)
    _pick(page, "sil", "Remove A sil")
    from playwright.sync_api import expect

    expect(page.locator("#unordered li")).to_have_text("1 removal not ordered: made for Germany by the rules")
    _pick(page, "pru", "Remove A pru")
    _pick(page, "sil", "Remove A sil")
    _sent_exactly(page, server, game, "Germany", ["Remove A sil", "Remove A pru"])


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
def test_placements_of_winter_999_picked_from_the_lists_are_all_recorded(
    server: dict[str, Any], browser: Any, size: tuple[dict[str, int], bool]
) -> None:
    """1000 AD: the Franks place ten units in Winter 999, each picked from its site's list."""
    game, secret = _game(server, "1000ad", "Franks")
    page = _open(browser, server, secret, *size)
    picks = [
        ("bor", "Build F bor"),
        ("bri", "Build A bri"),
        ("lyo", "Build A lyo"),
        ("nan", "Build A nan"),
        ("nor", "Build F nor"),
        ("par", "Build A par"),
        ("rho", "Build A rho"),
        ("rou", "Build A rou"),
        ("tou", "Build A tou"),
        ("try", "Build A try"),
    ]
    for loc, text in picks:
        _pick(page, loc, text)
    _sent_exactly(page, server, game, "Franks", [text for _, text in picks])


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
def test_retreats_picked_from_the_lists_each_keep_their_line(
    server: dict[str, Any], browser: Any, size: tuple[dict[str, int], bool]
) -> None:
    game, secret = _game(
        server,
        "standard",
        "France",
        {
            "phase": "Fall 1901 Retreats",
            "units": [{"power": "Germany", "unit": "A bur"}, {"power": "England", "unit": "F eng"}],
            "dislodged": [
                {"power": "France", "unit": "A bur", "retreats": ["par", "gas"]},
                {"power": "France", "unit": "F eng", "retreats": ["bre", "mao"]},
            ],
            "supply_centers": {"France": ["par", "bre", "mar"]},
        },
    )
    page = _open(browser, server, secret, *size)
    # A retreat typed in words first: the pick for that fleet replaces it (the server says it is about eng).
    page.fill("#orders", "Fleet English Channel retreats to Mid-Atlantic Ocean")
    page.locator("#checks li.ok").first.wait_for()
    _pick(page, "bur", "A bur R par")
    _pick(page, "eng", "F eng R bre")
    _pick(page, "bur", "A bur R gas")
    _sent_exactly(page, server, game, "France", ["F eng R bre", "A bur R gas"])


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
def test_w3k_supply_transfers_and_builds_picked_from_the_lists_are_all_recorded(
    server: dict[str, Any], browser: Any, size: tuple[dict[str, int], bool]
) -> None:
    """The Protectorate, four builds to the good, sends supply to two powers and builds twice: four lines,
    though the transfers are listed under the build sites."""
    game, secret = _game(
        server,
        "w3k",
        "Protectorate",
        {
            "phase": "Winter 1642 Adjustments",
            "units": [{"power": "Protectorate", "unit": "F enn"}, {"power": "Protectorate", "unit": "A dep"}],
            "supply_centers": {"Protectorate": ["ayl", "brs", "cty", "dep", "enn", "sut"]},
        },
    )
    page = _open(browser, server, secret, *size)
    _pick(page, "ayl", "Send 1 supply to Crown")
    _pick(page, "ayl", "Build A ayl")
    _pick(page, "brs", "Send 1 supply to Argyll")
    _pick(page, "brs", "Build F brs")
    _pick(page, "cty", "Send 1 supply to Crown")  # the same transfer again: not doubled
    _sent_exactly(
        page,
        server,
        game,
        "Protectorate",
        ["Send 1 supply to Crown", "Build A ayl", "Send 1 supply to Argyll", "Build F brs"],
    )


@pytest.mark.slow
def test_w3k_conversions_and_hand_overs_replace_only_their_own_unit(server: dict[str, Any], browser: Any) -> None:
    game, secret = _game(server, "w3k", "Protectorate")
    page = _open(browser, server, secret, DESKTOP, False)
    page.fill("#orders", "Army Deptford is under the orders of Crown")
    _pick(page, "enn", "F enn convert")
    _pick(page, "sut", "A sut convert")
    _pick(page, "dep", "A dep under orders of Cumberland")
    _pick(page, "enn", "F enn H")
    _sent_exactly(page, server, game, "Protectorate", ["A dep under orders of Cumberland", "F enn H", "A sut convert"])


@pytest.mark.slow
def test_a_pick_replaces_a_typed_line_about_the_same_unit_in_any_notation(server: dict[str, Any], browser: Any) -> None:
    """The subject of a typed line comes from the server's line check: "Army Paris moves to Burgundy" is
    about Paris, so picking an order for Paris replaces it; the other typed lines stay as typed."""
    game, secret = _game(server, "standard", "France")
    page = _open(browser, server, secret, DESKTOP, False)
    page.fill("#orders", "Army Paris moves to Burgundy\nF Brest - English Channel")
    _pick(page, "par", "A par - pic")
    _pick(page, "mar", "A mar - spa")
    from playwright.sync_api import expect

    expect(page.locator("#orders")).to_have_value("A par - pic\nF Brest - English Channel\nA mar - spa")
    typed = ["A par - pic", "F Brest - English Channel", "A mar - spa"]
    _sent_exactly(page, server, game, "France", typed, ["A par - pic", "F bre - eng", "A mar - spa"])


@pytest.mark.slow
def test_orders_picked_while_the_check_is_still_out_are_sent_with_the_form(
    server: dict[str, Any], browser: Any
) -> None:
    """A line typed in words, a pick at once (it waits for the server to say what the line is about) and
    Send at once: the form goes only after the pick is in the box, so nothing picked is lost."""
    from playwright.sync_api import expect

    game, secret = _game(server, "standard", "Germany")
    page = _open(browser, server, secret, DESKTOP, False)
    page.route("**/check", lambda route: (page.wait_for_timeout(600), route.continue_()))
    page.fill("#orders", "Army Munich moves to Ruhr\nF Kiel - Denmark")
    _pick(page, "mun", "A mun - bur")
    _pick(page, "ber", "A ber - kie")
    page.click("#send")
    expect(page.locator(".flash")).to_contain_text("Version 1 recorded")
    assert sorted(_standing(server, game, "Germany")) == ["A ber - kie", "A mun - bur", "F kie - den"]


# ---------------------------------------------------------------------------------------------- the map


def _point_in(page: Any, province: str, *, under: str | None = None) -> dict[str, float]:
    """A point of the viewport where ``province``'s shape is the topmost province shape (and, with ``under``,
    that element is drawn over it), scrolled into view: where a player would tap to mean that province."""
    _into_view(page, f"#{under}" if under else f"#r-{province}")
    pt: dict[str, float] | None = page.evaluate(
        """([prov, under]) => {
          const fig = document.querySelector('[data-interactive]');
          const shape = fig.querySelector('[id="r-' + prov + '"]');
          const vp = fig.querySelector('.map-viewport').getBoundingClientRect();
          const box = (under ? fig.querySelector('[id="' + under + '"]') : shape).getBoundingClientRect();
          const steps = 14, found = [];
          const ok = (x, y) => {
            if (x < vp.left || x > vp.right || y < vp.top || y > vp.bottom) return false;
            const els = document.elementsFromPoint(x, y);
            const region = els.find(e => /^r-/.test(e.id || ''));
            return region === shape && (!under || !!els[0].closest('[id="' + under + '"]'));
          };
          for (let i = 1; i < steps; i++) for (let j = 1; j < steps; j++) {
            const x = Math.round(box.left + box.width * i / steps), y = Math.round(box.top + box.height * j / steps);
            if (ok(x, y)) found.push({x, y});
          }
          const cx = found.reduce((a, p) => a + p.x, 0) / found.length, cy = found.reduce((a, p) => a + p.y, 0) / found.length;
          found.sort((a, b) => Math.hypot(a.x - cx, a.y - cy) - Math.hypot(b.x - cx, b.y - cy));
          // well inside: the points around it qualify too (a tap is not a pixel)
          return found.find(p => ok(p.x - 2, p.y) && ok(p.x + 2, p.y) && ok(p.x, p.y - 2) && ok(p.x, p.y + 2)) || null;
        }""",
        [province, under],
    )
    assert pt is not None, f"no point of {province} found" + (f" under {under}" if under else "")
    return pt


def _into_view(page: Any, selector: str) -> None:
    """The map scrolled into the window and, when ``selector`` lies outside the map's view (zoomed in), the
    view brought over it, as a player drags the map to what they want to click."""
    page.locator(f"[data-interactive] {selector}").scroll_into_view_if_needed()
    page.evaluate(
        """sel => {
          const fig = document.querySelector('[data-interactive]'), el = fig.querySelector(sel);
          const f = fig.querySelector('.map-viewport').getBoundingClientRect(), r = el.getBoundingClientRect();
          if (fig.mapCentre && (r.left < f.left || r.right > f.right || r.top < f.top || r.bottom > f.bottom)) {
            fig.mapCentre(el);
          }
        }""",
        selector,
    )
    page.locator(f"[data-interactive] {selector}").scroll_into_view_if_needed()


def _tap(page: Any, pt: dict[str, float], phone: bool) -> None:
    if phone:
        page.touchscreen.tap(pt["x"], pt["y"])
    else:
        page.mouse.click(pt["x"], pt["y"])


def _click_unit(page: Any, province: str, phone: bool) -> None:
    unit = page.locator(f"[data-interactive] #unit-{province}")
    _into_view(page, f"#unit-{province}")
    b = unit.bounding_box()
    _tap(page, {"x": b["x"] + b["width"] / 2, "y": b["y"] + b["height"] / 2}, phone)


def _zoom(page: Any, times: int) -> None:
    for _ in range(times):
        page.locator("[data-interactive] [data-zoom=in]").click()


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
def test_a_click_on_a_province_with_two_coasts_offers_the_coasts(
    server: dict[str, Any], browser: Any, size: tuple[dict[str, int], bool]
) -> None:
    """Mid-Atlantic to Spain: the page asks which coast (only the two the fleet can reach) and adds the
    chosen one; W3K's Brest to Brittany likewise."""
    from playwright.sync_api import expect

    size_, phone = size
    game, secret = _game(
        server,
        "standard",
        "France",
        {
            "phase": "Spring 1901 Movement",
            "units": [{"power": "France", "unit": "F mao"}, {"power": "France", "unit": "A par"}],
            "supply_centers": {"France": ["par", "bre", "mar"]},
        },
    )
    page = _open(browser, server, secret, size_, phone)
    _click_unit(page, "mao", phone)
    _tap(page, _point_in(page, "spa"), phone)
    chooser = page.locator("[data-interactive] .chooser")
    expect(chooser).to_be_visible()
    assert sorted(chooser.locator("button[data-order]").evaluate_all("bs => bs.map(b => b.dataset.order)")) == [
        "F mao - spa/nc",
        "F mao - spa/sc",
    ]
    assert "south coast" in chooser.inner_text() and "north coast" in chooser.inner_text()
    assert _box(page) == []  # nothing added before the player chooses
    picture(page, ARTIFACTS / f"entry-coast-chooser-{'phone' if phone else 'desktop'}.png")
    chooser.locator("button[data-order='F mao - spa/sc']").click()
    expect(chooser).to_have_count(0)
    _sent_exactly(page, server, game, "France", ["F mao - spa/sc"])

    game, secret = _game(server, "w3k", "Protectorate")
    page = _open(browser, server, secret, size_, phone)
    _click_unit(page, "brs", phone)
    _tap(page, _point_in(page, "brt"), phone)
    chooser = page.locator("[data-interactive] .chooser")
    expect(chooser).to_be_visible()
    chooser.locator("button[data-order='F brs - brt/sc']").click()
    _sent_exactly(page, server, game, "Protectorate", ["F brs - brt/sc"])


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
def test_a_unit_token_over_a_small_province_does_not_take_the_click_meant_for_the_province_beneath(
    server: dict[str, Any], browser: Any, size: tuple[dict[str, int], bool]
) -> None:
    """W3K: an army in London (a city smaller than a unit) is drawn over part of Middlesex. London, then
    Middlesex where the token covers it, is a move to Middlesex (not a hold), on the desktop and on a phone,
    zoomed in five times (the city's unit is drawn small, so the part of Middlesex under it is a few pixels
    at the whole board's scale)."""
    from playwright.sync_api import expect

    size_, phone = size
    position = {
        "phase": "Summer 1642 Movement",
        "units": [{"power": "Protectorate", "unit": "A lon"}],
        "supply_centers": {"Protectorate": ["ayl", "brs", "cty", "dep", "enn", "sut"]},
    }
    game, secret = _game(server, "w3k", "Protectorate", position)
    page = _open(browser, server, secret, size_ if not phone else PHONE, phone)
    _zoom(page, 4)  # 1.5 ** 4: about five times
    _click_unit(page, "lon", phone)
    _click_unit(page, "lon", phone)  # the token's middle lies in London: a hold
    expect(page.locator("#orders")).to_have_value("A lon H")
    _click_unit(page, "lon", phone)
    _tap(page, _point_in(page, "mdx", under="unit-lon"), phone)
    expect(page.locator("#orders")).to_have_value("A lon - mdx")
    picture(page, ARTIFACTS / f"entry-small-province-{'phone' if phone else 'desktop'}.png")
    _sent_exactly(page, server, game, "Protectorate", ["A lon - mdx"])


# ---------------------------------------------------------------------------------------------- notes


@pytest.mark.slow
def test_the_line_checks_notes_are_shown_live_and_after_sending_without_javascript(
    server: dict[str, Any], browser: Any
) -> None:
    """Argyll orders the Protectorate's army in Deptford: accepted, with the warning that it counts only if
    the Protectorate hands the unit over; and the units Argyll left without an order are named."""
    from playwright.sync_api import expect

    game, secret = _game(server, "w3k", "Argyll")
    page = _open(browser, server, secret, DESKTOP, False)
    page.fill("#orders", "A dep - lon\nA arg H")
    note = page.locator("#checks li.ok.noted .note")
    expect(note).to_have_count(1)
    assert "counts only if Protectorate hands the unit over to Argyll" in note.inner_text()
    expect(page.locator("#unordered")).to_be_visible()
    picture(page, ARTIFACTS / "entry-hand-over-note-desktop.png", full_page=True)
    assert (
        "Army Gylen Castle" in page.locator("#unordered").inner_text()
        and "Army Argyll" not in page.locator("#unordered").inner_text()
    )

    ctx = browser.new_context(viewport=DESKTOP, java_script_enabled=False)
    ctx.set_default_timeout(15_000)
    nojs = ctx.new_page()
    nojs.goto(f"{server['base']}/k/{secret}")
    nojs.fill("#orders", "A dep - lon\nA arg H")
    nojs.click("#send")
    assert "2 orders accepted" in nojs.locator(".flash").inner_text()
    after = nojs.locator("#checks li.noted .note")
    # Waited for: the click returns once the answer's page starts to come, and W3K's page (its map inline) may
    # still be read below the flash (a full run counted none here).
    expect(after).to_have_count(1)
    assert "counts only if Protectorate hands the unit over" in after.inner_text()
    assert "Army Gylen Castle" in nojs.locator("#unordered").inner_text()
    assert nojs.locator("#unordered").is_visible()
    ctx.close()
    assert sorted(_standing(server, game, "Argyll")) == ["A arg H", "A dep - lon"]


# ---------------------------------------------------------------------------------------------- property


@pytest.fixture(scope="module")
def property_page(server: dict[str, Any], browser: Any) -> Iterator[tuple[Any, str, dict[str, Any]]]:
    game, secret = _game(server, "w3k", "Protectorate")
    page = _open(browser, server, secret, DESKTOP, False)
    legal = {u["loc"]: u for u in page.evaluate("JSON.parse(document.getElementById('legal-data').textContent)")}
    yield page, game, legal
    page.context.close()


def _protectorate_actions() -> list[tuple[str, str, str]]:
    """Every pick the Protectorate's lists offer at the start of W3K, and every move it can click."""
    from dippouch.core.legal_orders import legal_orders
    from dippouch.core.notation import format_order
    from dippouch.core.orders import Move

    v = load_variant("w3k")
    kind = v.calendar.kind(v.start.phase)
    out: list[tuple[str, str, str]] = []
    for loc, orders in legal_orders(v, v.start, "Protectorate").items():
        abbr = v.map.locations[loc].abbr
        for o in orders:
            text = format_order(v, o, phase_kind=kind)
            out.append(("pick", abbr, text))
            if isinstance(o, Move) and not o.via_convoy:
                out.append(("click", abbr, text))
    return sorted(out)


ACTIONS = st.lists(st.sampled_from(_protectorate_actions()), min_size=1, max_size=5)


# Five drawn sequences beside the two written out: those two hold the hard cases (the coast chooser, a hand-over,
# a conversion, a unit's order given twice), so what is drawn adds only further orderings of the same kinds of
# pick and click, each a second's walk in the browser (ten were drawn; the cases they add past five are more
# of the same lists and moves).
@pytest.mark.slow
@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(actions=ACTIONS)
@example(actions=[("click", "brs", "F brs - brt/sc"), ("pick", "dep", "A dep under orders of Crown")])
@example(
    actions=[("pick", "brs", "F brs convert"), ("click", "dep", "A dep - lon"), ("click", "brs", "F brs - brt/nc")]
)
def test_any_sequence_of_picks_and_clicks_records_exactly_the_orders_in_the_box(
    property_page: tuple[Any, str, dict[str, Any]], server: dict[str, Any], actions: list[tuple[str, str, str]]
) -> None:
    """W3K's Protectorate (conversions, hand-overs, a fleet with a choice of coasts, an army in a small
    province): orders picked from the lists and moves clicked on the map (the coast chosen when asked), in any
    order. The box holds one line per unit, the last order given it, and sending records exactly those."""
    from playwright.sync_api import expect

    page, game, legal = property_page
    # The page as the server drew it after the last example's send (the same page a reload would give).
    page.locator("details.picks").evaluate("d => d.open = true")
    page.fill("#orders", "")
    last: dict[str, str] = {}
    for how, loc, text in actions:
        if how == "pick":
            _pick(page, loc, text)
        else:
            moves = [o for o in legal[loc]["orders"] if o["type"] == "move" and not o["via"]]
            dest = next(o["dest"] for o in moves if o["text"] == text)
            status = page.locator("#click-status")
            status.evaluate("s => s.textContent = ''")
            _click_unit(page, loc, False)
            _tap(page, _point_in(page, dest), False)
            if sum(1 for o in moves if o["dest"] == dest) > 1:
                page.locator(f"[data-interactive] .chooser button[data-order='{text}']").click()
            expect(status).to_have_text(f"Added: {text}")
        last[loc] = text
    expected = list(last.values())
    assert sorted(_box(page)) == sorted(expected)
    _send(page)
    assert sorted(_standing(server, game, "Protectorate")) == sorted(expected)
