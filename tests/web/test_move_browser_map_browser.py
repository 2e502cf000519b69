"""The move browser's map fills its frame with the board, nothing else, in Chromium at 1280x800 and 390x844.

The walk's defect: ``/variants/standard/moves?q=stp`` showed a strip of the map's heading above the board (the end
of "Movement", "nt"); ``/variants/1000ad/moves?q=and`` the board in part of its frame beside empty space, its
legend cut at "Polotjans and Dregov". The whole opening map (heading and legend) was drawn, and the viewer's view
about the territory and where it goes ran past the picture's edges (St Petersburg's view began 36 units above the
picture; Andalusia's reached 106 units left of it and past its foot). Now the picture is the board alone and its
view the places' box on the board (dippouch.render.focus): the view the page opens on lies on the board, the
picture fills the frame, and the territory and every place it goes are in it. Screenshots in
test-artifacts/web/moves-map-*.png.
"""

from __future__ import annotations

from typing import Any

import pytest

from browsersupport import LiveSite, shoot, watch_errors

DESK = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
SIZES = [pytest.param(DESK, id="desktop"), pytest.param(PHONE, id="phone")]

PLACES = [
    ("standard", "stp"),
    ("standard", "nap"),
    ("1897", "con"),
    ("duel", "bre"),
    ("1000ad", "and"),
    ("hundred", "cal"),
    ("hundred3", "sco"),
    ("w3k", "bri"),
    ("w3k", "lon"),
    ("ancmed", "ale"),
]
"""Places at the boards' edges (St Petersburg at the standard board's top, Andalusia at 1000 AD's foot), small
ones (W3K's London) and the middle, on every map of dippouch's own and one of the shelf's."""

MEASURE = """() => {
  const fig = document.querySelector('[data-map]'), svg = fig.querySelector('.map-viewport svg');
  const frame = fig.querySelector('.map-viewport').getBoundingClientRect(), drawn = svg.getBoundingClientRect();
  const view = svg.getAttribute('viewBox').split(/[\\s,]+/).map(Number);
  const board = svg.getAttribute('data-board').split(/\\s+/).map(Number);
  const inView = el => { const r = el.getBoundingClientRect(), x = r.left + r.width / 2, y = r.top + r.height / 2;
    return x >= frame.left && x <= frame.right && y >= frame.top && y <= frame.bottom; };
  return { frame: [frame.width, frame.height], drawn: [drawn.width, drawn.height], view, board,
    heading: svg.querySelectorAll('.heading, .legend-power').length,
    picked: [...fig.querySelectorAll('path.picked')].map(inView),
    targets: [...fig.querySelectorAll('path.target')].map(inView) };
}"""


def _measure(page: Any, base: str, variant: str, place: str) -> dict[str, Any]:
    page.goto(f"{base}/variants/{variant}/moves?q={place}")
    page.locator("[data-map][data-viewer-ready]").wait_for()
    got: dict[str, Any] = page.evaluate(MEASURE)
    return got


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
def test_the_map_is_the_board_and_fills_its_frame(live_site: LiveSite, size: dict[str, int]) -> None:
    ctx = live_site.context(size)
    page = ctx.new_page()
    errors = watch_errors(page)
    tag = "phone" if size is PHONE else "desktop"
    for variant, place in PLACES:
        got = _measure(page, live_site.base, variant, place)
        where = f"{variant} {place}: {got}"
        x, y, w, h = got["view"]
        bx, by, bw, bh = got["board"]
        # The view the page opens on lies on the board (a unit's tenth of slack for the frame's rounding)...
        assert x >= bx - 0.1 and y >= by - 0.1 and x + w <= bx + bw + 0.1 and y + h <= by + bh + 0.1, where
        # ... the picture fills its frame, shaped like it (so no empty band beside the board) ...
        assert got["drawn"] == got["frame"], where
        assert w / h == pytest.approx(got["frame"][0] / got["frame"][1], rel=0.01), where
        # ... with no heading nor legend, and the territory and every place it goes in view.
        assert got["heading"] == 0, where
        assert got["picked"] == [True] and got["targets"] and all(got["targets"]), where
        if (variant, place) in (("standard", "stp"), ("1000ad", "and")):
            page.locator("[data-map]").scroll_into_view_if_needed()
            shoot(page, "web", f"moves-map-{variant}-{place}-{tag}", full_page=False)
    assert errors == [], errors
    ctx.close()
