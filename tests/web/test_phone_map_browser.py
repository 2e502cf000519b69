"""The player's map on a phone (issue 55, the players' trial's item 7), in Chromium at 390x844 with touch.

The map opened on the player's units alone, so a province they could go to lay half outside the frame: Germany's
view cut Denmark off at the top edge, and a tap on what showed of it (the islands the board draws outside any
province, the strait beside them) answered "Fleet Kiel cannot move to ska." Now the opening view takes in every
province the player's units may go to (a land province whole, a sea by its middle), and a tap that means nothing
where it lands goes to the nearest province within a finger's reach (12 px) that means something. Measured here:
each reachable province in view at the opening; taps off Denmark's shape but beside it give F kie - den; a tap on
W3K's Great Yarmouth (about 19 px wide on a phone) gives the order to it. Screenshots in
test-artifacts/phone-map/."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from browsersupport import PHONE, LiveSite, shoot, watch_errors
from dippouch.store import games as store_games

T0 = datetime.now(UTC)

REACHABLE = """power => { const fig = document.querySelector('[data-interactive]');
  const vp = fig.querySelector('.map-viewport').getBoundingClientRect();
  const legal = JSON.parse(document.getElementById('legal-data').textContent);
  const out = {};
  for (const u of legal) for (const o of u.orders) if (o.dest) {
    const p = o.dest.split('/')[0], r = fig.querySelector('.region[data-province="' + p + '"]');
    const at = r.getAttribute('data-at').split(' ').map(Number);
    const q = new DOMPoint(at[0], at[1]).matrixTransform(r.getScreenCTM()), b = r.getBoundingClientRect();
    out[p] = {sea: r.classList.contains('sea'),
      middle: q.x >= vp.left + 12 && q.x <= vp.right - 12 && q.y >= vp.top + 12 && q.y <= vp.bottom - 12,
      whole: b.left >= vp.left - 1 && b.right <= vp.right + 1 && b.top >= vp.top - 1 && b.bottom <= vp.bottom + 1};
  }
  return out; }"""
"""Each province the player's units may go to: whether it is a sea, whether its middle (the renderer's data-at)
is in the map's frame with a finger's margin (12 px), and whether its whole shape is."""

BESIDE = """([p, most, others]) => { const fig = document.querySelector('[data-interactive]');
  const vp = fig.querySelector('.map-viewport').getBoundingClientRect();
  const top = (x, y) => { const e = document.elementsFromPoint(x, y).find(e => e.matches('.region[data-province]'));
    return e ? e.dataset.province : null; };
  const b = fig.querySelector('.region[data-province="' + p + '"]').getBoundingClientRect();
  const out = [];
  for (let y = Math.max(b.top - 6, vp.top + 2); y < Math.min(b.bottom + 6, vp.bottom - 2); y += 4)
    for (let x = Math.max(b.left - 6, vp.left + 2); x < Math.min(b.right + 6, vp.right - 2); x += 4) {
      if (top(x, y) === p) continue;
      let d = null;
      for (let r = 2; r <= 6 && d === null; r += 2)
        for (let a = 0; a < 16; a++) if (top(x + r * Math.cos(a * Math.PI / 8), y + r * Math.sin(a * Math.PI / 8)) === p) { d = r; break; }
      // Where the first ring about the tap (3 px steps, as the page looks) that meets any of these provinces
      // meets p alone: a tap there means p and no other.
      if (d === null || others.includes(top(x, y))) continue;
      let alone = false;
      for (let r = 3; r <= 12; r += 3) {
        const met = new Set();
        for (let a = 0; a < 16; a++) { const q = top(x + r * Math.cos(a * Math.PI / 8), y + r * Math.sin(a * Math.PI / 8)); if (q === p || others.includes(q)) met.add(q); }
        if (met.size) { alone = met.size === 1 && met.has(p); break; }
      }
      if (alone) out.push({x, y, under: top(x, y), d});
    }
  // Spread over the shape's rim: every k-th point, at most `most`.
  const k = Math.max(1, Math.floor(out.length / most));
  return out.filter((_, i) => i % k === 0).slice(0, most); }"""
"""Points within 6 px of province p's shape but not on it (a province the unit may not go to on top there, or
land outside any province) and nearer p than any of the others, in the map's frame."""


ON_SHAPE = """p => { const b = document.querySelector('[data-interactive] .region[data-province="' + p + '"]').getBoundingClientRect();
  const out = [];
  for (let y = b.top + 1; y < b.bottom; y += 2) for (let x = b.left + 1; x < b.right; x += 2) {
    const e = document.elementsFromPoint(x, y).find(e => e.matches('.region[data-province]'));
    if (e && e.dataset.province === p) out.push([x, y]);
  }
  return out; }"""
"""The points of province p's shape where it is the province drawn on top, every 2 px."""


MIDDLE = """p => { const r = document.querySelector('[data-interactive] .region[data-province="' + p + '"]');
  const at = r.getAttribute('data-at').split(' ').map(Number), q = new DOMPoint(at[0], at[1]).matrixTransform(r.getScreenCTM());
  return [q.x, q.y]; }"""
"""Province p's middle on screen (the renderer's data-at, inside its shape)."""


def _germany(site: LiveSite) -> Any:
    store_games.create_game(site.store, "g", "standard", now=T0)
    store_games.assign(site.store, "g", "Germany", "Bob", now=T0)
    page = site.player("g", "Germany", PHONE)
    page.locator("[data-map][data-viewer-ready]").wait_for()
    return page


def _tap(page: Any, x: float, y: float) -> None:
    page.touchscreen.tap(x, y)


def _choose_unit(page: Any, province: str) -> None:
    box = page.locator(f"[data-interactive] #unit-{province}").bounding_box()
    assert box is not None
    _tap(page, box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_function("() => /click where it goes/.test(document.getElementById('click-status').textContent)")


def _status(page: Any) -> str:
    return str(page.locator("#click-status").text_content() or "")


@pytest.mark.slow
def test_germany_opens_with_every_province_its_units_reach_in_view(live_site: LiveSite) -> None:
    page = _germany(live_site)
    errors = watch_errors(page)
    shoot(page, "phone-map", "germany-opening-phone", full_page=False)
    reach = page.evaluate(REACHABLE, "Germany")
    assert {"den", "hol", "bal", "hel", "pru", "sil", "boh", "tyr", "bur", "ruh"} <= set(reach), reach
    assert [p for p, r in reach.items() if not r["middle"]] == []
    assert reach["den"]["whole"], reach
    # "Yours" opens the same view again after a pan.
    page.get_by_role("button", name="Fit").click()
    page.get_by_role("button", name="Yours").click()
    assert page.evaluate(REACHABLE, "Germany") == reach
    assert errors == [], errors


@pytest.mark.slow
def test_a_tap_beside_denmark_is_denmark_for_the_fleet_in_kiel(live_site: LiveSite) -> None:
    page = _germany(live_site)
    errors = watch_errors(page)
    points = page.evaluate(BESIDE, ["den", 6, ["hol", "hel", "ber", "bal", "ruh", "mun", "kie"]])
    assert len(points) >= 4, points
    unders = {p["under"] for p in points}
    for p in points:
        _choose_unit(page, "kie")
        _tap(page, p["x"], p["y"])
        assert _status(page) == "Added: F kie - den", (p, _status(page))
    shoot(page, "phone-map", "germany-denmark-tapped-phone", full_page=False)
    assert "F kie - den" in page.locator("#orders").input_value().splitlines()
    assert unders - {None, "den"}, f"every tap was on land outside a province or on Denmark: {unders}"
    assert errors == [], errors


@pytest.mark.slow
def test_a_tap_on_great_yarmouth_on_w3k_gives_the_order_to_it(live_site: LiveSite) -> None:
    store_games.create_game(live_site.store, "kingdoms", "w3k", now=T0)
    store_games.assign(live_site.store, "kingdoms", "Manchester", "Player", now=T0)
    page = live_site.player("kingdoms", "Manchester", PHONE)
    errors = watch_errors(page)
    page.locator("[data-map][data-viewer-ready]").wait_for()
    shoot(page, "phone-map", "w3k-manchester-opening-phone", full_page=False)
    gya = page.locator("[data-interactive] .region[data-province='gya']").first.bounding_box()
    assert gya is not None and min(gya["width"], gya["height"]) < 30, gya
    # Its own shape: the points of it seen on top, its first, middle and last (top to bottom, left to right).
    on = page.evaluate(ON_SHAPE, "gya")
    assert len(on) >= 10, on
    # Its middle is Great Yarmouth at once; at its ends, where a neighbour's reach is nearer, the tap may ask
    # which, and Great Yarmouth is among the answers.
    middle = page.evaluate(MIDDLE, "gya")
    _choose_unit(page, "nor")
    _tap(page, middle[0], middle[1])
    assert _status(page) == "Added: A nor - gya", (middle, _status(page))
    for x, y in (on[2], on[-3]):
        _choose_unit(page, "nor")
        _tap(page, x, y)
        chooser = page.locator("[data-interactive] .chooser button[data-place='gya']")
        if chooser.count():
            chooser.tap()
        assert _status(page) == "Added: A nor - gya", ((x, y), _status(page))
    assert errors == [], errors
