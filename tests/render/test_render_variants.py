"""Every built-in variant drawn on its committed geometry: busy phases of a sample game with every unit and
order on the map, names that do not overlap, centre markers and dislodged spots clear of units, a PNG."""

from __future__ import annotations

import io
import math
import xml.etree.ElementTree as ET
from collections import Counter
from typing import Any

import pytest

from dippouch.catalog import load_variant
from dippouch.render import RenderOptions, render_svg, svg_to_png
from dippouch.render.colours import parse_colour
from dippouch.render.geometry import load_geometry
from dippouch.render.sample import sample_phases
from dippouch.render.svg import _text_width
from test_shelf_sample import heavy_variants

# dippouch's own variants and one of the shelf (tests/test_shelf_sample.py): this for every shelf variant would
# multiply the file's time; tests/variants/test_shelf.py checks the whole shelf at once.
VARIANTS = heavy_variants("ancmed")

NS = "{http://www.w3.org/2000/svg}"


@pytest.mark.parametrize("name", VARIANTS)
def test_a_sample_game_is_drawn_whole(name: str) -> None:
    v = load_variant(name)
    geo = load_geometry(v)
    assert set(geo.provinces) == {p.abbr for p in v.map.provinces}
    gmap = v.map
    for ph in sample_phases(v, seed=5, phases=6):
        root = ET.fromstring(render_svg(v, ph.position, ph.orders, ph.results))
        found = {e.get("id"): e for e in root.iter() if e.get("id")}
        for prov in ph.position.units:
            assert f"unit-{gmap.provinces[prov].abbr}" in found
        for prov in ph.position.dislodged:
            assert f"dislodged-{gmap.provinces[prov].abbr}" in found
        want = Counter(
            (r["power"], r["order"])
            for r in ph.results
            if not (r["automatic"] and r["order"].endswith(" H")) and r["order"] != "Waive"
        )
        got = Counter(
            (e.get("data-power"), e.get("data-order"))
            for e in root.iter(f"{NS}g")
            if "order" in (e.get("class") or "").split()
        )
        assert got == want, v.calendar.name(ph.position.phase)


@pytest.mark.parametrize("name", VARIANTS)
def test_names_do_not_overlap_each_other_or_units(name: str) -> None:
    v = load_variant(name)
    geo = load_geometry(v)
    root = ET.fromstring(render_svg(v, v.start))
    boxes = []
    for e in root.iter(f"{NS}text"):
        if not (e.get("id") or "").startswith("label-"):
            continue
        size = float(e.get("font-size", "0"))
        w = _text_width(e.text or "", size, True)
        x, y = float(e.get("x", "0")), float(e.get("y", "0")) - size * 0.35
        boxes.append((x - w / 2, y - size * 0.4, x + w / 2, y + size * 0.55))
    assert len(boxes) >= 0.9 * len(geo.provinces), f"only {len(boxes)} of {len(geo.provinces)} provinces named"
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            assert not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]), (a, b)
    # No name over a unit spot (every province's, whether a unit stands there now or not).
    for p in geo.provinces.values():
        ux, uy = p.unit
        for b in boxes:
            assert not (b[0] < ux < b[2] and b[1] < uy < b[3]), (p.abbr, b)


@pytest.mark.parametrize("name", ["standard", "w3k", "1000ad", "hundred3"])
def test_png_of_a_variant_shows_every_power(name: str) -> None:
    from PIL import Image

    v = load_variant(name)
    ph = sample_phases(v, seed=2, phases=2)[-1]
    svg = render_svg(v, ph.position, ph.orders, ph.results, RenderOptions(title="test"))
    img = Image.open(io.BytesIO(svg_to_png(svg))).convert("RGB")
    assert img.size[0] == round(load_geometry(v).width)
    counts: dict[Any, int] = {px: n for n, px in img.getcolors(1 << 24) or []}
    for p in v.powers:
        c = parse_colour(p.colour)
        hits = sum(n for px, n in counts.items() if all(abs(px[i] - round(c[i] * 255)) <= 10 for i in range(3)))
        assert hits > 20, f"{p.name} ({p.colour}) hardly appears"


@pytest.mark.parametrize("name", VARIANTS)
def test_dislodged_units_and_centres_stand_clear_of_units(name: str) -> None:
    """A dislodged unit is drawn beside its province's unit, not on a neighbour's; a centre marker is not
    hidden under its province's unit. (Where a province has no room, its spot may stay close: at most 1 in 20.)"""
    from dippouch.render.svg import _static

    v = load_variant(name)
    geo = load_geometry(v)
    st = _static(v, geo, RenderOptions())
    spots = {a: p.unit for a, p in geo.provinces.items()}
    crowded = [
        a for a, d in st.dislodged.items() if min(math.dist(d, o) for b, o in spots.items() if b != a) < st.r * 2.0
    ]
    assert len(crowded) <= len(geo.provinces) / 20, crowded
    for a, d in st.dislodged.items():
        assert math.dist(d, spots[a]) >= st.r * 1.5, a
    for a, m in st.sc.items():
        assert math.dist(m.at, spots[a]) >= st.r * 1.2, a
