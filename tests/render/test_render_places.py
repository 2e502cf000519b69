"""Castles and cities are not hidden by the units standing in them, nor centre markers by any unit: read
back from the drawn SVG of each variant's busiest sample phase (W3K's has units in London, Deptford,
Bristol, Stornoway, Kisimul and Gylen)."""

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


def hidden_places(variant: str) -> list[tuple[str, float]]:
    """Nested places (castles, cities) less than a quarter of which shows round the unit standing there."""
    root = _drawn(variant)
    geo = load_geometry(load_variant(variant))
    shapes = {k: parse_path(e.get("d") or "") for k, e in _ids(root, "r-").items()}
    out = []
    for abbr, g in _ids(root, "unit-").items():
        if not geo.provinces[abbr].nested:
            continue
        place = shapes[abbr]
        shown = place.difference(_body(g)).area / place.area
        if shown < 0.25:
            out.append((abbr, round(shown, 2)))
    return out


def test_units_in_castles_and_cities_leave_the_place_in_sight() -> None:
    root = _drawn("w3k")
    geo = load_geometry(load_variant("w3k"))
    standing = [a for a in _ids(root, "unit-") if geo.provinces[a].nested]
    assert len(standing) >= 5, standing  # the sample phase does put units in them
    assert hidden_places("w3k") == []


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
