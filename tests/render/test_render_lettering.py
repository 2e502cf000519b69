"""A tall board's lettering reads on a page as a wide board's does.

The walk's defect: the Hundred's game page at a desktop's size (1280 by 800) left most home provinces unnamed
(Flanders, Holland, Dijon, London, Normandy, Guyenne, Orleanais, Dauphine) and its legend could not be read.
The board is 1200 by 1604 units, so the page's frame (776 by 624 px) shows it by its height at 0.37 px a unit
(the standard map at 0.65): its names, 9.5 to 16.4 units, came out at 3.5 to 6 px, the viewer (app.js) drew
them larger to be read and hid each that then overlapped a unit, and the legend's 16-unit words were 6 px.
Now a tall board's names and legend are drawn larger, as far as its provinces hold
(:func:`dippouch.render.svg.lettering`), and where its names read on that page without zooming (the Hundred's)
they are placed where the viewer shows them.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

import pytest

from dippouch.catalog import load_variant
from dippouch.render import render_svg
from dippouch.render.audit import unit_marks
from dippouch.render.geometry import load_geometry
from dippouch.render.placement import READABLE_PX, VIEW_GAP_PX
from dippouch.render.svg import FRAME_ASPECT, _unit_radius, lettering
from dippouch.render.text import text_width

NS = "{http://www.w3.org/2000/svg}"
FRAME = (776, 624)
"""The game page's map frame at 1280 by 800: the map's column, and 78% of the window's height."""
ASCENT, DESCENT = 0.928, 0.236
"""DejaVu Sans's, about the baseline: the box the viewer measures a name by (getBBox)."""


def test_lettering_grows_with_a_boards_height_as_far_as_its_provinces_hold() -> None:
    got = {}
    for name in ("standard", "hundred", "hundred3", "1000ad", "w3k"):
        geo = load_geometry(load_variant(name))
        got[name] = lettering(geo, _unit_radius(geo))
    assert got["standard"] == 1.0  # wider than the frame: as it was
    assert got["hundred"] == pytest.approx(FRAME_ASPECT * 1604.1 / 1200, abs=0.01) == got["hundred3"]
    assert got["1000ad"] == got["w3k"] == 1.0  # tall, but their provinces hold no larger names: as they were


def _viewer(svg: str) -> tuple[list[str], float, float]:
    """The names app.js's viewer hides on the game page at a desktop's size (its ``names()``: a name smaller than
    9.2 px is drawn larger about its middle, and hidden where it would then overlap a unit or a name shown
    before it, supply centres' names first, then the larger), the scale, and the legend's words in px."""
    root = ET.fromstring(svg)
    w, h = (float(v) for v in root.get("viewBox", "").split()[2:])
    k = min(FRAME[0] / w, FRAME[1] / h)
    top = float((root.get("data-board") or "0 0").split()[1])
    shown: list[list[float]] = []
    for g in root.iter(f"{NS}g"):
        if (g.get("id") or "").startswith(("unit-", "dislodged-")):
            pts = [p for poly in unit_marks(g)[0] for p in poly]
            shown.append(
                [
                    min(p[0] for p in pts),
                    min(p[1] for p in pts) + top,
                    max(p[0] for p in pts),
                    max(p[1] for p in pts) + top,
                ]
            )
    centres = {(e.get("id") or "")[3:] for e in root.iter() if (e.get("id") or "").startswith("sc-")}
    names = []
    for t in root.iter(f"{NS}text"):
        ident = t.get("id") or ""
        if ident.startswith("label-"):
            size = float(t.get("font-size", "0"))
            names.append(
                (
                    ident[6:],
                    size,
                    float(t.get("x", "0")),
                    float(t.get("y", "0")) + top,
                    text_width(t.text or "", size, True),
                )
            )
    names.sort(key=lambda n: (n[0] not in centres, -n[1]))
    hidden = []
    gap = VIEW_GAP_PX / k
    for abbr, size, x, y, width in names:
        need = READABLE_PX / (size * k)
        scale = 1.0 if need <= 1 else 1.04 ** math.ceil(math.log(need) / math.log(1.04))
        cy = y - size * (ASCENT - DESCENT) / 2
        hw, hh = width * scale / 2 + gap, size * (ASCENT + DESCENT) * scale / 2 + gap
        me = [x - hw, cy - hh, x + hw, cy + hh]
        if any(me[0] < o[2] and o[0] < me[2] and me[1] < o[3] and o[1] < me[3] for o in shown):
            hidden.append(abbr)
        else:
            shown.append(me)
    legend = [
        float(m) for m in re.findall(r'<g class="legend-power"[^>]*>.*?font-size="[\d.]+".*?font-size="([\d.]+)"', svg)
    ]
    return hidden, k, min(legend) * k


@pytest.mark.parametrize("name", ["hundred", "hundred3"])
def test_every_name_and_the_legend_read_on_the_game_page(name: str) -> None:
    v = load_variant(name)
    hidden, k, legend_px = _viewer(render_svg(v, v.start))
    assert hidden == [], f"hidden at {k:.2f} px a unit: {hidden}"
    assert legend_px >= 9.0, legend_px


def test_the_standard_maps_words_are_as_they_were() -> None:
    v = load_variant("standard")
    svg = render_svg(v, v.start)
    assert re.search(r'<g class="heading"><text x="9.6" y="25.6" font-size="19.2"', svg)
    sizes = {float(s) for s in re.findall(r'<text id="label-[^"]+" class="label"[^>]*? font-size="([\d.]+)"', svg)}
    assert sizes == {6.5, 8.9, 11.3}
