"""A picture drawn by reference to the board's file looks exactly as the whole picture (issue 41).

The player's page draws the board's fixed parts (provinces, names, coasts, centres, what lies off the board) as
``<use>`` elements of the game's board file, which the browser keeps, and only the phase's own parts (each
province's colour, units, orders) in the page. Drawn by Chromium from the server's board file, the two pictures
of a busy phase (every unit ordered, a dislodgement, failed and refused orders) are the same pixels, for W3K
(nested castles, leaders, sea areas), the standard map (split coasts) and 1000 AD (a sea off the board)."""

from __future__ import annotations

import io
from datetime import UTC, datetime
from typing import Any

import pytest

from browsersupport import DESKTOP, PHONE, LiveSite, is_phone, shoot, watch_errors
from dippouch.render import RenderOptions, render_svg
from dippouch.render.shots import busiest_phase
from dippouch.store import games as store_games
from dippouch.store import submissions as store_submissions
from dippouch.web.views.games import board_url

T0 = datetime.now(UTC)

DRAW = """([svg, width]) => {
  document.body.textContent = '';
  const holder = document.createElement('div');
  holder.id = 'picture';
  holder.innerHTML = svg;
  const pic = holder.firstElementChild;
  pic.setAttribute('width', width);
  pic.removeAttribute('height');
  document.body.appendChild(holder);
  const use = pic.querySelector('use');
  return new Promise(done => {
    const ready = () => requestAnimationFrame(() => requestAnimationFrame(() => done(pic.getBoundingClientRect().height)));
    if (!use || use.getBBox().width) ready();
    else { use.addEventListener('load', ready); use.addEventListener('error', ready); }
  });
}"""
"""Put an SVG picture alone on the page, ``width`` px wide, and wait until the board's file it uses is drawn."""


def _picture(page: Any, svg: str) -> Any:
    """The picture as Chromium draws it, 1000 px wide (a PIL image)."""
    from PIL import Image

    page.evaluate(DRAW, [svg, 1000])
    return Image.open(io.BytesIO(page.locator("#picture svg").screenshot())).convert("RGB")


def _differing(a: Any, b: Any) -> int:
    """How many pixels of two pictures of one size differ by more than a shade (40 of 255 in a channel)."""
    from PIL import ImageChops

    diff = ImageChops.difference(a, b).convert("L")
    return sum(diff.histogram()[41:])


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["w3k", "standard", "1000ad"])
def test_a_picture_drawn_by_reference_is_the_whole_picture(live_site: LiveSite, variant: str) -> None:
    store_games.create_game(live_site.store, "g", variant, now=T0)
    v = live_site.web.variant_of("g")
    board = board_url(live_site.web, "g")
    assert board is not None
    phase = busiest_phase(v)
    whole = render_svg(v, phase.position, phase.orders, phase.results)
    used = render_svg(v, phase.position, phase.orders, phase.results, options=RenderOptions(board=board))
    assert len(used) < len(whole) / 2 and "<use href=" in used
    page = live_site.context(DESKTOP).new_page()
    errors = watch_errors(page)
    page.goto(f"{live_site.base}/variants")  # a page of the site: the board's file is its own
    a = _picture(page, whole)
    b = _picture(page, used)
    shoot(page, "web", f"board-by-reference-{variant}", full_page=False)
    assert a.size == b.size, (a.size, b.size)
    differ = _differing(a, b)
    assert differ <= a.size[0] * a.size[1] // 2000, f"{differ} of {a.size[0] * a.size[1]} pixels differ"  # 0.05%
    assert errors == [], errors


@pytest.mark.slow
def test_the_players_page_draws_its_board_without_script(live_site: LiveSite) -> None:
    """Without script the player's map is the picture the server sent: the browser draws the board's file by
    itself (each province coloured by its owner), with the units over it."""
    store_games.create_game(live_site.store, "kingdoms", "w3k", now=T0)
    store_games.assign(live_site.store, "kingdoms", "Crown", "Player", now=T0)
    page = live_site.player("kingdoms", "Crown", DESKTOP, java_script_enabled=False)
    page.wait_for_load_state("load")
    board = page.locator("[data-map] .map-viewport svg")
    frame = board.bounding_box()
    assert frame is not None and frame["width"] > 500
    london = page.locator("[data-map] use#r-lon").bounding_box()  # drawn from the board's file: it has a size
    assert london is not None and 2 < london["width"] < frame["width"] / 10, london
    picture = board.screenshot()
    shoot(page, "web", "w3k-player-no-script-desktop", full_page=False)
    from PIL import Image

    colours = Image.open(io.BytesIO(picture)).convert("RGB").getcolors(1 << 20) or []
    assert len(colours) > 200, "the map is drawn flat: the board's file was not drawn"


@pytest.mark.slow
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_players_map_drawn_by_reference_at_both_sizes_light_and_dark(
    live_site: LiveSite, size: dict[str, int], scheme: str
) -> None:
    """The W3K player's page with its map drawn over the board's file, at both sizes in both colour schemes
    (the map keeps its own light board in dark mode): every province in view drawn, the player's units over
    them. Screenshots: test-artifacts/web/w3k-player-board-<size>-<scheme>.png."""
    store_games.create_game(live_site.store, "kingdoms", "w3k", now=T0)
    store_games.assign(live_site.store, "kingdoms", "Crown", "Player", now=T0)
    orders = "F Bristol - Somerset\nF Glamorganshire - Carmarthenshire\nA Oxfordshire H"
    store_submissions.submit(live_site.store, "kingdoms", "Crown", orders, now=T0)
    page = live_site.player("kingdoms", "Crown", size, color_scheme=scheme)
    errors = watch_errors(page)
    page.locator("[data-map][data-viewer-ready]").wait_for()
    drawn = page.evaluate(
        """() => { const fig = document.querySelector('[data-interactive]');
          const vp = fig.querySelector('.map-viewport').getBoundingClientRect();
          const seen = Array.from(fig.querySelectorAll('use.region')).map(e => e.getBoundingClientRect())
            .filter(r => r.right > vp.left && r.left < vp.right && r.bottom > vp.top && r.top < vp.bottom);
          return {seen: seen.length, empty: seen.filter(r => !r.width || !r.height).length,
                  orders: fig.querySelectorAll('g.orders [data-power="Crown"]').length}; }"""
    )
    assert drawn["seen"] >= 20 and drawn["empty"] == 0 and drawn["orders"] == 3, drawn
    where = "phone" if is_phone(size) else "desktop"
    shoot(page, "web", f"w3k-player-board-{where}-{scheme}", full_page=False)
    assert errors == [], errors
