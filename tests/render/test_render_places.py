"""Castles and cities are not hidden by the units standing in them, nor centre markers by any unit: read
back from the drawn SVG of each variant's busiest sample phase (W3K's has units in London, Deptford,
Bristol, Stornoway, Kisimul and Gylen). A unit in a castle or city keeps its full size; the place shows as
a ring round it."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import pytest

shapely = pytest.importorskip("shapely")

from shapely.geometry import Point, Polygon  # noqa: E402

from dippouch.catalog import load_variant  # noqa: E402
from dippouch.render import RenderOptions, render_svg  # noqa: E402
from dippouch.render.audit import NS, _ids, _num, _unit_middle  # noqa: E402
from dippouch.render.geometry import load_geometry  # noqa: E402
from dippouch.render.mapgen.checks import parse_path  # noqa: E402
from dippouch.render.shots import busiest_phase  # noqa: E402

VARIANTS = ["standard", "1897", "hundred3", "hundred", "1000ad", "w3k"]


def _drawn(variant: str) -> ET.Element:
    v = load_variant(variant)
    ph = busiest_phase(v)
    return ET.fromstring(render_svg(v, ph.position, ph.orders, ph.results, RenderOptions()))


def _body(g: ET.Element) -> Polygon:
    """A unit's body as drawn: the army's disc, the fleet's hull or the fort's square."""
    for e in g:
        if e.tag == f"{NS}circle":
            return Point(_num(e, "cx"), _num(e, "cy")).buffer(_num(e, "r"))
        if e.tag == f"{NS}polygon":
            return Polygon([tuple(map(float, p.split(","))) for p in (e.get("points") or "").split()])
        if e.tag == f"{NS}rect":
            x, y, w, h = (_num(e, k) for k in ("x", "y", "width", "height"))
            return Polygon([(x, y), (x + w, y), (x + w, y + h), (x, y + h)])
    raise AssertionError("a unit without a body")


def _rings(root: ET.Element) -> dict[str, Polygon]:
    """Each place drawn again round its unit (a disc wider than the unit), out to its edge's outer side."""
    return {
        c.get("data-place") or "": Point(_num(c, "cx"), _num(c, "cy")).buffer(
            _num(c, "r") + _num(c, "stroke-width") / 2
        )
        for c in root.iter(f"{NS}circle")
        if "place-ring" in (c.get("class") or "").split()
    }


def hidden_places(variant: str) -> list[tuple[str, float]]:
    """Nested places (castles, cities) with a unit standing there of which less than a quarter shows round
    every unit's body (the place's own shape and the ring drawn round its unit, if any)."""
    root = _drawn(variant)
    geo = load_geometry(load_variant(variant))
    shapes = {k: parse_path(e.get("d") or "") for k, e in _ids(root, "r-").items()}
    rings = _rings(root)
    bodies = [_body(g) for g in _ids(root, "unit-").values()]
    out = []
    for abbr in _ids(root, "unit-"):
        if not geo.provinces[abbr].nested:
            continue
        place = shapes[abbr].union(rings[abbr]) if abbr in rings else shapes[abbr]
        shown = place
        for b in bodies:
            shown = shown.difference(b)
        if shown.area / place.area < 0.25:
            out.append((abbr, round(shown.area / place.area, 2)))
    return out


def test_units_in_castles_and_cities_leave_the_place_in_sight_at_full_size() -> None:
    root = _drawn("w3k")
    geo = load_geometry(load_variant("w3k"))
    r = float(root.get("data-unit-radius") or 0)
    standing = {a: g for a, g in _ids(root, "unit-").items() if geo.provinces[a].nested}
    assert len(standing) >= 5, standing  # the sample phase does put units in them
    assert hidden_places("w3k") == []
    # Each of those units is as large as any other: an army's disc of the map's radius, a fleet's hull 2.4
    # radii wide (a unit drawn smaller to let the place show prints under 4 mm in the atlas).
    for abbr, g in standing.items():
        x0, _, x1, _ = _body(g).bounds
        assert x1 - x0 >= 2 * r - 0.01, (abbr, x1 - x0, 2 * r)
    # And a place too small to show round its unit is drawn as a ring wider than the unit, under it.
    rings = _rings(root)
    for abbr, g in standing.items():
        x0, y0, x1, y1 = parse_path(_ids(root, "r-")[abbr].get("d") or "").bounds
        if min(x1 - x0, y1 - y0) < 3 * r:
            assert abbr in rings, abbr
            assert rings[abbr].contains(_body(g)), abbr


@pytest.mark.parametrize("variant", VARIANTS)
def test_no_centre_marker_under_a_unit(variant: str) -> None:
    root = _drawn(variant)
    r = float(root.get("data-unit-radius") or 0)
    units = {k: _unit_middle(g) for k, g in _ids(root, "unit-").items()}
    covered = []
    for abbr, g in _ids(root, "sc-").items():
        c = next(e for e in g if e.tag == f"{NS}circle")
        at = (_num(c, "cx"), _num(c, "cy"))
        covered += [(abbr, u) for u, m in units.items() if m is not None and math.dist(m, at) < r + _num(c, "r") * 0.5]
    assert covered == []
