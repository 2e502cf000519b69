"""The player's page by keyboard and for a screen reader, in a real browser (Debian's Chromium through
Playwright), at desktop (1280x800) and phone (390x844) sizes.

A player who never touches the mouse: the first Tab stop is a skip link to the orders; every order of a unit is
reached in its pick list with the arrow keys (a closed list changes at each step), or by opening the list with
Space and choosing with Enter; the list goes on showing what was picked, and shows what the box says once the
player edits it by hand; Winter's builds are picked from one site's list twice; the orders sent are the
standing version in the store and the lists show them when the page comes back.

The keyboard's focus ring is measured from the computed styles of every Tab stop of several pages: a solid ring
at least 2px wide whose colour has at least 3:1 contrast against what is behind it (the dark header included).
A message that arrives with a page ("Version 1 recorded", a refused press message) is written into an empty
live region after the page has loaded, which is what makes a screen reader announce it; refused orders take
the focus.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import pytest

import dippouch.store.press.messages as press
from browsersupport import PHONE, LiveSite, shoot, watch_errors
from dippouch.store import games as store_games
from dippouch.store import history as store_history

DESKTOP = {"width": 1280, "height": 800}
SIZES = [pytest.param(DESKTOP, id="desktop"), pytest.param(PHONE, id="phone")]
T0 = datetime.now(UTC)

# What the focused element is, in words a failure message can show.
_DESCRIBE = """el => {
  const id = el.id ? '#' + el.id : '';
  const name = el.getAttribute('name') ? `[name=${el.getAttribute('name')}]` : '';
  return el.tagName.toLowerCase() + id + name + ' ' + (el.textContent || el.value || '').trim().slice(0, 30);
}"""

# The focused element's ring and what lies behind it (the backgrounds of its ancestors, composited: a ring is
# drawn outside the element, so the element's own background is not behind it), with the WCAG contrast ratio.
_RING = """() => {
  const el = document.activeElement;
  const cs = getComputedStyle(el);
  const rgba = s => { const m = s.match(/rgba?\\(([^)]+)\\)/); if (!m) return null;
    const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
  let layers = [];
  for (let e = el.parentElement; e; e = e.parentElement) {
    const bg = rgba(getComputedStyle(e).backgroundColor);
    if (bg && bg[3] > 0) { layers.push(bg); if (bg[3] >= 1) break; }
  }
  let under = [255, 255, 255];
  for (const c of layers.reverse()) under = under.map((u, i) => c[i] * c[3] + u * (1 - c[3]));
  const lum = c => { const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
  // A province of the map is ringed by its own outline (app.js's focus ring: a line on a white halo), no box.
  const drawn = el.ownerSVGElement && el.ownerSVGElement.querySelector('.focus-ring.shown .line');
  if (drawn) {
    const line = getComputedStyle(drawn), halo = getComputedStyle(drawn.previousElementSibling);
    const scale = drawn.tagName.toLowerCase() === 'use' ? el.ownerSVGElement.getScreenCTM().a : 1;
    const a = lum(rgba(line.stroke)), b = lum(rgba(halo.stroke));
    return { style: cs.outlineStyle === 'none' ? 'solid' : 'box', width: parseFloat(line.strokeWidth) * scale,
             color: line.stroke, behind: halo.stroke,
             contrast: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05), visible: el.matches(':focus-visible') };
  }
  const ring = rgba(cs.outlineColor) || [0, 0, 0, 1];
  const a = lum(ring), b = lum(under);
  return { style: cs.outlineStyle, width: parseFloat(cs.outlineWidth), color: cs.outlineColor,
           behind: 'rgb(' + under.map(Math.round).join(',') + ')',
           contrast: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05), visible: el.matches(':focus-visible') };
}"""


def _game(site: LiveSite, name: str, position: dict[str, Any] | None = None) -> None:
    store_games.create_game(site.store, name, "standard", now=T0, position=position)
    store_games.assign(site.store, name, "France", "France Player", now=T0)


def _focused(page: Any) -> str:
    return str(page.evaluate(f"({_DESCRIBE})(document.activeElement)"))


def _tab_to(page: Any, selector: str, most: int = 40) -> None:
    """Tab forward until ``selector`` has the focus (as a keyboard user would), failing after ``most`` stops."""
    for _ in range(most):
        if page.evaluate("s => document.activeElement.matches(s)", selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"{selector} not reached by Tab; the focus is on {_focused(page)}")


def _arrow_to(page: Any, order: str) -> int:
    """Step the focused (closed) pick list with ArrowDown until it shows ``order``; the steps taken."""
    sel = page.locator(":focus")
    options = sel.evaluate("s => Array.from(s.options).map(o => o.value)")
    assert order in options, options
    steps = 0
    while sel.input_value() != order:
        assert steps <= len(options), f"{order} not reached with the arrow keys: the list shows {sel.input_value()!r}"
        page.keyboard.press("ArrowDown")
        steps += 1
    return steps


def _box(page: Any) -> list[str]:
    return [ln.strip() for ln in page.locator("#orders").input_value().splitlines() if ln.strip()]


def _standing(site: LiveSite, game: str, power: str) -> list[str]:
    rec = store_history.phase_record(site.store, game, open_ok=True)
    subs = [s for s in rec["submissions"] if s["power"] == power and s.get("stands", True) and not s["late"]]
    assert subs, f"no standing version of {power} in {game}"
    return [ln["order"] for ln in subs[-1]["lines"] if ln["order"] and not ln["error"]]


def _lists(page: Any) -> dict[str, str]:
    """What each pick list shows, by its site's name."""
    got = page.locator("select[name^='pick:']").evaluate_all("ss => ss.map(s => [s.dataset.loc, s.value])")
    return dict(got)


def _skip_first(page: Any, text: str, target: str) -> None:
    """The first Tab stop is the skip link, out of sight until then; Enter puts the focus on its target."""
    from playwright.sync_api import expect

    skip = page.locator("a.skip")
    expect(skip).to_have_count(1)
    box = skip.bounding_box()
    assert box is None or box["x"] + box["width"] <= 0 or box["y"] + box["height"] <= 0, f"skip link shown: {box}"
    page.keyboard.press("Tab")
    expect(skip).to_be_focused()
    expect(skip).to_have_text(text)
    box = skip.bounding_box()
    size = page.viewport_size
    assert box and box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= size["width"], box
    page.keyboard.press("Enter")
    expect(page.locator(target)).to_be_focused()


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
def test_a_keyboard_player_picks_every_kind_of_order_and_sends_them(live_site: LiveSite, size: dict[str, int]) -> None:
    from playwright.sync_api import expect

    phone = size["width"] < 500
    tag = "phone" if phone else "desktop"
    _game(live_site, "keys")
    page = live_site.player("keys", "France", size)
    errors = watch_errors(page)
    _skip_first(page, "Skip to orders", "#orders")

    # Brest's fleet: not its first order, by the arrow keys of the closed list.
    _tab_to(page, "select[name='pick:bre']")
    assert _arrow_to(page, "F bre - mao") > 1
    # Marseilles: opened with Space, chosen with ArrowDown and Enter.
    page.keyboard.press("Tab")
    expect(page.locator(":focus")).to_have_attribute("name", "pick:mar")
    options = page.locator(":focus").evaluate("s => Array.from(s.options).map(o => o.value)")
    page.keyboard.press("Space")
    for _ in range(options.index("A mar - spa")):
        page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    # Paris: one order, then another further down its list; the second replaces the first.
    page.keyboard.press("Tab")
    expect(page.locator(":focus")).to_have_attribute("name", "pick:par")
    _arrow_to(page, "A par - bur")
    _arrow_to(page, "A par - pic")
    expect(page.locator("#checks li.ok")).to_have_count(3)
    assert sorted(_box(page)) == ["A mar - spa", "A par - pic", "F bre - mao"], _box(page)
    # Every list goes on showing what was picked in it.
    assert _lists(page) == {"bre": "F bre - mao", "mar": "A mar - spa", "par": "A par - pic"}
    page.locator(":focus").scroll_into_view_if_needed()
    shoot(page, "web", f"keyboard-picked-{tag}", full_page=False)

    # The box edited by hand (back to it with Shift+Tab): the lists show what it says, never a stale order.
    for _ in range(10):
        if page.evaluate("document.activeElement.id") == "orders":
            break
        page.keyboard.press("Shift+Tab")
    expect(page.locator("#orders")).to_be_focused()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.type("Army Paris moves to Burgundy\nF bre - mao\nA mar - mun")
    expect(page.locator("#checks li")).to_have_count(3)
    expect(page.locator("select[name='pick:par']")).to_have_value("A par - bur")  # the line check's reading
    assert _lists(page) == {"bre": "F bre - mao", "mar": "", "par": "A par - bur"}
    assert page.locator("select[name='pick:mar'] option:checked").inner_text() == "— none picked —"
    # Marseilles picked again; its line (refused, about the same unit) is replaced.
    _tab_to(page, "select[name='pick:mar']")
    _arrow_to(page, "A mar - bur")
    expect(page.locator("#checks li.ok")).to_have_count(3)
    # Stepping back to "none picked" takes the unit's line out of the box.
    _tab_to(page, "select[name='pick:par']")
    for _ in range(20):
        if page.locator(":focus").input_value() == "":
            break
        page.keyboard.press("ArrowUp")
    expect(page.locator("#orders")).not_to_have_value(re.compile("Paris"))
    _arrow_to(page, "A par - gas")
    expect(page.locator("#checks li.ok")).to_have_count(3)
    assert sorted(_box(page)) == ["A mar - bur", "A par - gas", "F bre - mao"], _box(page)

    # Sent with Enter on the Send button.
    _tab_to(page, "#send")
    page.keyboard.press("Enter")
    expect(page.locator(".flash")).to_contain_text("Version 1 recorded: 3 orders accepted")
    assert sorted(_standing(live_site, "keys", "France")) == ["A mar - bur", "A par - gas", "F bre - mao"]
    # The page come back shows the standing orders: in the box, the line check and the lists.
    assert sorted(_box(page)) == ["A mar - bur", "A par - gas", "F bre - mao"]
    expect(page.locator("#checks li.ok")).to_have_count(3)
    assert _lists(page) == {"bre": "F bre - mao", "mar": "A mar - bur", "par": "A par - gas"}
    # The message is announced: the live region gets it after the page has loaded.
    expect(page.locator("#announce")).to_contain_text("Version 1 recorded")
    shoot(page, "web", f"keyboard-sent-{tag}")
    assert errors == [], errors


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
def test_a_keyboard_player_picks_two_builds_from_one_site_s_list(live_site: LiveSite, size: dict[str, int]) -> None:
    from playwright.sync_api import expect

    position = {
        "phase": "Winter 1901 Adjustments",
        "units": [{"power": "France", "unit": "A spa"}, {"power": "France", "unit": "F por"}],
        "supply_centers": {"France": ["par", "bre", "mar", "spa", "por"]},
    }
    _game(live_site, "winter", position)
    page = live_site.player("winter", "France", size)
    errors = watch_errors(page)
    _skip_first(page, "Skip to orders", "#orders")
    _tab_to(page, "select[name='pick:mar']")
    _arrow_to(page, "Build A mar")
    expect(page.locator("#orders")).to_have_value("Build A mar")
    expect(page.locator("select[name='pick:mar']")).to_have_value("Build A mar")
    _arrow_to(page, "Build F mar")  # the same list again: the other build replaces the first
    expect(page.locator("#orders")).to_have_value("Build F mar")
    _tab_to(page, "select[name='pick:par']")
    _arrow_to(page, "Build A par")
    expect(page.locator("#checks li.ok")).to_have_count(2)
    assert _lists(page) == {"bre": "", "mar": "Build F mar", "par": "Build A par"}
    shoot(page, "web", f"keyboard-builds-{'phone' if size['width'] < 500 else 'desktop'}", full_page=False)
    _tab_to(page, "#send")
    page.keyboard.press("Enter")
    expect(page.locator(".flash")).to_contain_text("Version 1 recorded: 2 orders accepted")
    assert sorted(_standing(live_site, "winter", "France")) == ["Build A par", "Build F mar"]
    # The page after the send shows the lists as sent (waited for: the flash can show before they are filled).
    expect(page.locator("select[name='pick:par']")).to_have_value("Build A par")
    assert _lists(page) == {"bre": "", "mar": "Build F mar", "par": "Build A par"}
    assert errors == [], errors


def _rings(page: Any, shots: dict[str, str] | None = None, most: int = 150) -> list[tuple[str, dict[str, Any]]]:
    """Every Tab stop of the page, from the top, with its focus ring as measured; a screenshot of what is in
    view at the stops whose description starts with a key of ``shots`` (named by its value)."""
    page.evaluate("document.activeElement && document.activeElement.blur()")
    page.keyboard.press("Tab")
    stop = _stop(page)
    first = stop["what"]
    seen: list[tuple[str, dict[str, Any]]] = []
    shots = dict(shots or {})
    for _ in range(most):
        what = stop["what"]
        seen.append((what, stop["ring"]))
        for start in [k for k in shots if what.startswith(k)]:
            shoot(page, "web", shots.pop(start), full_page=False)
        page.keyboard.press("Tab")
        stop = _stop(page)
        if stop["body"] or stop["what"] == first:
            break
    return seen


# The focused element described and its ring measured in one call to the page: a page has some sixty Tab
# stops, each read three times a stop when these were three calls.
_STOP = f"""() => {{
  const el = document.activeElement;
  const body = el === document.body;
  return {{ what: ({_DESCRIBE})(el), body, ring: body ? null : ({_RING})() }};
}}"""


def _stop(page: Any) -> dict[str, Any]:
    """The focused element: its description, whether it is the page's body (the focus left the page's
    controls), and its focus ring as measured (:data:`_RING`)."""
    stop: dict[str, Any] = page.evaluate(_STOP)
    return stop


def _bad_rings(seen: list[tuple[str, dict[str, Any]]]) -> list[str]:
    return [
        f"{what}: {ring}"
        for what, ring in seen
        if ring["style"] in ("none", "auto", "box") or ring["width"] < 2 or ring["contrast"] < 3 or not ring["visible"]
    ]


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
def test_every_tab_stop_has_a_focus_ring_of_3_to_1(live_site: LiveSite, size: dict[str, int]) -> None:
    """The player's page (header, map tools, click-entry bar, order form, draw and press), the game's page and
    the home page, each Tab stop measured."""
    _game(live_site, "rings")
    page = live_site.player("rings", "France", size)
    errors = watch_errors(page)
    page.locator("[data-map][data-viewer-ready]").wait_for()
    tag = "phone" if size["width"] < 500 else "desktop"
    shots = {"a Skip to orders": f"focus-ring-skip-{tag}", "a Games": f"focus-ring-header-{tag}"}
    shots["button Full"] = f"focus-ring-map-tools-{tag}"
    pages = {"play": _rings(page, shots)}
    kinds = {what.split(" ")[0].split("#")[0].split("[")[0] for what, _ in pages["play"]}
    # The page's kinds of control were all visited: links, buttons, the box, the lists, the check box.
    assert {"a", "button", "textarea", "select", "input", "summary"} <= kinds, kinds
    assert pages["play"][0][0].startswith("a Skip to orders"), pages["play"][0]
    # A ring on the dark header: light on dark.
    header = [ring for what, ring in pages["play"] if what.startswith("a Games")]
    assert header and header[0]["behind"] == "rgb(43,29,22)", header
    _tab_to(page, "#send")
    shoot(page, "web", f"focus-ring-send-{tag}", full_page=False)
    for path in ("/games/rings", "/"):
        page.goto(live_site.base + path)
        pages[path] = _rings(page)
        assert pages[path][0][0].startswith("a Skip to content"), pages[path][0]
    bad = {name: _bad_rings(seen) for name, seen in pages.items()}
    assert not any(bad.values()), bad
    assert errors == [], errors


def test_a_message_arriving_with_the_page_is_announced_after_it_loads(live_site: LiveSite) -> None:
    """The live regions are empty when the page's document is ready and the message is written into them
    after: a form's words ("Reported to the coordinator.") into the status region, a refusal into the alert
    region."""
    from playwright.sync_api import expect

    _game(live_site, "said")
    store_games.assign(live_site.store, "said", "England", "England Player", now=T0)
    page = live_site.player("said", "France")
    errors = watch_errors(page)
    page.add_init_script(
        """document.addEventListener('DOMContentLoaded', () => {
             window.__atReady = ['announce', 'announce-alert'].map(id => {
               const el = document.getElementById(id);
               return el ? [el.getAttribute('role'), el.textContent] : null; });
             window.__flashRole = (document.querySelector('.flash') || {getAttribute: () => 'none'}).getAttribute('role');
           });"""
    )

    # A form that goes to the next page with its words: reporting a message (press itself is sent in place).
    press.send(live_site.web.store, "said", "England", ["France"], "Shall we?", now=T0)

    def report() -> None:
        page.goto(f"{live_site.base}/games/said/play/France")
        thread = page.locator("details.press-thread", has_text="Shall we?")
        if not thread.evaluate("d => d.open"):  # open while its message was unread, then read
            thread.locator(":scope > summary").click()
        msg = thread.locator(".press-msg", has_text="Shall we?")
        msg.locator(".press-report summary").click()
        msg.locator("input[name=reason]").fill("rude")
        msg.get_by_role("button", name="Report").click()

    report()
    expect(page.locator(".flash")).to_have_text("Reported to the coordinator.")
    page.wait_for_function("() => window.__atReady !== undefined")  # the page the answer loaded, read once loaded
    assert page.evaluate("window.__atReady") == [["status", ""], ["alert", ""]]
    assert page.evaluate("window.__flashRole") is None  # the page's copy is not a live region present at load
    expect(page.locator("#announce")).to_have_text("Reported to the coordinator.")
    expect(page.locator("#announce-alert")).to_have_text("")
    expect(page.locator(".flash")).to_have_attribute("aria-hidden", "true")

    report()  # a message is reported once: refused, into the alert region
    expect(page.locator(".flash")).to_contain_text("reported message")
    page.wait_for_function("() => window.__atReady !== undefined")  # the page the answer loaded, read once loaded
    assert page.evaluate("window.__atReady") == [["status", ""], ["alert", ""]]
    expect(page.locator("#announce-alert")).to_contain_text("reported message")
    expect(page.locator("#announce")).to_have_text("")
    assert errors == [], errors


def test_refused_orders_take_the_focus(live_site: LiveSite) -> None:
    """Orders refused as a whole (here: for a phase processed since the page was loaded) come back with the
    refusal focused, so the keyboard and a screen reader start there; its role is alert."""
    from playwright.sync_api import expect

    _game(live_site, "refused")
    page = live_site.player("refused", "France")
    page.locator("#orders").fill("A par - bur")
    page.locator("#orders-form input[name=phase]").evaluate("i => i.value = 'Spring 1900 Movement'")
    page.locator("#send").click()
    refusal = page.locator("#refusal")
    expect(refusal).to_contain_text("Not recorded")
    expect(refusal).to_have_attribute("role", "alert")
    expect(refusal).to_be_focused()
    expect(page.locator("#orders")).to_have_value("A par - bur")
    shoot(page, "web", "keyboard-refused-desktop", full_page=False)
