"""Maps on the game and player pages, in Chromium: the walk's defects, each seen to fail before its change.

- The Hundred's game page at a desktop's size (1280x800) left most home provinces unnamed (the viewer hid nine
  names: Flanders, Holland, Dijon, London, Normandy, Guyenne, Orleanais, Dauphine and Anjou) and its legend was
  about 6 px: now every name is shown and the legend's names are 9 px or more.
- A player's page with a last turn held 178 ids twice (``id="r-yor"`` in the last turn's picture and in the open
  phase's): now none, and the last turn's viewer still names its provinces and opens on the player's orders.
- The keyboard's focus on a province drew a rectangle (the CSS outline of the province's box) across the
  provinces about it: now the province's own outline, blue on white, at 3:1 or more in the light theme and the
  dark (whose light blue stood at 2:1 on the ring's white).

Screenshots in test-artifacts/web/map-pages-*.png.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from typing import Any

import pytest

from browsersupport import LiveSite, shoot, watch_errors
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store import submissions as store_submissions

DESK = {"width": 1280, "height": 800}
T0 = datetime.now(UTC)


@pytest.mark.slow
def test_every_hundred_name_and_its_legend_read_on_the_game_page(live_site: LiveSite) -> None:
    store_games.create_game(live_site.store, "hundred", "hundred", now=T0)
    page = live_site.context(DESK).new_page()
    errors = watch_errors(page)
    page.goto(f"{live_site.base}/games/hundred")
    page.locator("[data-map][data-viewer-ready]").wait_for()
    got = page.evaluate(
        """() => { const svg = document.querySelector('[data-map] .map-viewport svg'), k = svg.getScreenCTM().a;
        const names = [...svg.querySelectorAll("[id^='label-']")];
        const legend = [...svg.querySelectorAll('.legend-power text[font-weight=bold]')].filter(t => t.textContent.length > 1);
        return { k, names: names.length, hidden: names.filter(n => n.classList.contains('name-small')).map(n => n.id),
          legend: legend.map(t => parseFloat(t.getAttribute('font-size')) * k) }; }"""
    )
    assert got["names"] == 41, got
    assert got["hidden"] == [], got
    assert got["legend"] and min(got["legend"]) >= 9.0, got
    shoot(page, "web", "map-pages-hundred-game-desktop", full_page=False)
    assert errors == [], errors


def _last_turn_page(live_site: LiveSite, scheme: str = "light") -> Any:
    store = live_site.store
    store_games.create_game(store, "ids", "standard", now=T0)
    for power in ("France", "Germany"):
        store_games.assign(store, "ids", power, f"{power} Player", now=T0)
    store_submissions.submit(store, "ids", "France", "A par - bur\nA mar - spa", now=T0)
    store_submissions.submit(store, "ids", "Germany", "A mun - bur", now=T0)
    store_processing.process(store, "ids", now=T0, force=True)
    return live_site.player("ids", "France", DESK, color_scheme=scheme)


@pytest.mark.slow
def test_a_player_page_with_a_last_turn_holds_no_id_twice(live_site: LiveSite) -> None:
    page = _last_turn_page(live_site)
    errors = watch_errors(page)
    page.locator("#last-turn [data-map][data-viewer-ready] svg").wait_for()
    page.locator("[data-interactive][data-viewer-ready]").wait_for()
    ids = page.evaluate("() => [...document.querySelectorAll('[id]')].map(e => e.id)")
    twice = [i for i, n in Counter(ids).items() if n > 1]
    assert twice == [], twice[:20]
    # Both pictures are maps: the open phase's with its plain ids (the click entry's), the last turn's with its own.
    assert page.locator("[data-interactive] #r-yor").count() == 1
    assert page.locator("#last-turn [id^='r-yor-']").count() == 1
    # The last turn's viewer reads its names (each with its halo) and opens on France's orders.
    last = page.evaluate(
        """() => { const svg = document.querySelector('#last-turn svg'), vb = svg.getAttribute('viewBox').split(' ').map(Number);
        const bur = svg.querySelector("[id^='label-bur-']"), parts = svg.querySelectorAll("[data-for='" + bur.id.slice(6) + "']");
        return { width: vb[2], parts: parts.length, small: svg.querySelectorAll('.name-small').length }; }"""
    )
    assert last["parts"] >= 1 and last["width"] < 1000, last  # paired with its halo; zoomed in on France
    page.locator("#last-turn").scroll_into_view_if_needed()
    shoot(page, "web", "map-pages-last-turn-desktop", full_page=False)
    assert errors == [], errors


RING = """() => { const el = document.activeElement, cs = getComputedStyle(el);
  const ring = el.ownerSVGElement.querySelector('.focus-ring.shown');
  const line = ring && ring.querySelector('.line'), halo = ring && ring.querySelector('.halo');
  const rgb = s => s.match(/\\d+(\\.\\d+)?/g).slice(0, 3).map(Number);
  const lum = c => { const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
  const contrast = (a, b) => (Math.max(lum(a), lum(b)) + 0.05) / (Math.min(lum(a), lum(b)) + 0.05);
  const s = line && getComputedStyle(line), h = halo && getComputedStyle(halo);
  return { outline: cs.outlineStyle, visible: el.matches(':focus-visible'), ring: !!ring,
    line: s && s.stroke, halo: h && h.stroke,
    // On screen: a use of the board's file has its width in the map's units (a pixel being --map-px).
    width: s && parseFloat(s.strokeWidth) * (line.tagName.toLowerCase() === 'use' ? el.ownerSVGElement.getScreenCTM().a : 1),
    contrast: s && h ? contrast(rgb(s.stroke), rgb(h.stroke)) : 0, shape: line && (line.getAttribute('d') || line.getAttribute('href')) ===
      (el.getAttribute('d') || el.getAttribute('href')) }; }"""


@pytest.mark.slow
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_focused_province_is_ringed_by_its_own_outline(live_site: LiveSite, scheme: str) -> None:
    store_games.create_game(live_site.store, "ring", "standard", now=T0)
    store_games.assign(live_site.store, "ring", "France", "France Player", now=T0)
    page = live_site.player("ring", "France", DESK, color_scheme=scheme)
    errors = watch_errors(page)
    page.locator("[data-interactive][data-viewer-ready]").wait_for()
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.matches('[data-interactive] .region')"):
            break
    got = page.evaluate(RING)
    assert got["visible"] and got["ring"] and got["shape"], got
    assert got["outline"] == "none", got  # no box drawn across the provinces about it
    assert got["width"] >= 3 and got["contrast"] >= 3, got
    shoot(page, "web", f"map-pages-focus-{scheme}", full_page=False)
    assert errors == [], errors
