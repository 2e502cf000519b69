"""Does the drawing tell the truth? Drawn borders against the border graph, and the other geometric checks.

Used twice: by the builder's fitting step (on shapes in kilometres, every round) and by ``dippouch
mapcheck`` (on the committed geometry file, read back from its SVG paths). The same function serves both;
only the unit of the coordinates differs (``km_per_unit``).

The thresholds are in kilometres and picture units at once, because a border has to be both real (a few km
on the ground) and visible (a few units on the picture):

- a declared border must be drawn at least ``max(3 km, 2 units)`` long;
- two land shapes "touch" when they share more than ``max(1 km, 0.75 units)`` (a corner where four cells
  meet shares nothing);
- a coast needs that much shore; an inland province may have a little shore (a river mouth at a corner)
  but not more than ``max(8 km, 5 units)``;
- a province must hold a circle of radius 3 units (a click target and a unit's marker).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import shapely
from shapely.geometry import LineString, Point, Polygon, box
from shapely.geometry.base import BaseGeometry
from shapely.ops import polylabel

from dippouch.core.variant import Variant
from dippouch.render.geometry import Geometry, load_geometry, path_rings, unit_radius
from dippouch.render.mapgen.coastline import polygons_of
from dippouch.render.mapgen.graph import BorderGraph, border_graph, coast_seas
from dippouch.render.mapgen.project import Laea

MIN_CLICK_UNITS = 3.0
UNITS_APART = 1.85
"""Unit spots of two provinces closer than this many unit radii draw one unit over the other."""
HIDES_NEIGHBOUR = 0.10
"""A unit's mark hiding more than this share of a neighbouring land province's shape hides that province."""
STANDS_ON_NEIGHBOUR = 0.5
"""A unit's mark more than this share over one other province's land reads as standing there (a fleet on
the land beside a narrow sea)."""
CALLOUT_RING = 1.5
"""The radius of the disc drawn round a unit standing beside its place, in unit radii (render.svg's
``PLACE_RING``; a test holds the two equal, since the renderer is not imported here)."""


@dataclass
class GeoReport:
    """Every geometric mismatch, as data (tests pin these), with the figures that decided it."""

    land_apart: list[tuple[str, str, float]] = field(default_factory=list)
    """Declared land/coast borders drawn shorter than the minimum (a, b, shared km)."""
    land_touching: list[tuple[str, str, float]] = field(default_factory=list)
    """Land shapes sharing border with no declared edge (a, b, shared km)."""
    sea_touching: list[tuple[str, str, float]] = field(default_factory=list)
    """A coastal province drawn along a sea it has no fleet edge to (coast, sea, shared km): a coast a
    player reads off the map that the rules do not give (1000 AD's Bari on the Tyrrhenian Sea, 88 km,
    before its shaping point at Melfi). Listed, not yet counted among the mismatches: the standard map
    draws five (Armenia on the Eastern Mediterranean, Rome on the Adriatic, ...) that need their shapes
    redrawn."""
    coast_no_shore: list[tuple[str, float]] = field(default_factory=list)
    inland_shore: list[tuple[str, float]] = field(default_factory=list)
    sea_apart: list[tuple[str, str, float]] = field(default_factory=list)
    """Declared fleet borders with a sea at one end whose shapes do not meet (a, b, shared km)."""
    wrong_side: list[str] = field(default_factory=list)
    """Provinces whose own point is outside their shape by more than ``max(1 km, 1.5 units)`` (a sea point
    on land, a land point at sea; the tolerance allows for the coastline's simplification)."""
    too_small: list[tuple[str, float]] = field(default_factory=list)
    """Shapes too small to click (abbr, radius of the largest circle inside, in picture units)."""
    connectors: list[tuple[str, str]] = field(default_factory=list)
    """Declared links across water: drawn as connectors, counted as explained."""
    connectors_over_land: list[tuple[str, str, float]] = field(default_factory=list)
    """Connectors drawn across other provinces' land (a, b, picture units over land): a link across water
    must not read as a border through a third province (Hundred's Atlantic-Mediterranean over Spain)."""
    units_crowded: list[tuple[str, str, float]] = field(default_factory=list)
    """Unit spots of different provinces closer than ``UNITS_APART`` unit radii (a, b, distance in radii):
    one unit would hide the other (Lewis's fleet on Stornoway's)."""
    offboard_taken: list[tuple[str, float]] = field(default_factory=list)
    """Provinces reaching into an off-board patch (abbr, km²): a sea not in play drawn as part of one that is."""
    coast_wrong_side: list[tuple[str, str]] = field(default_factory=list)
    """Split coasts whose fleet's spot is nearer the seas along another coast of the province than the seas
    along its own (coast, the other coast): Lewis's east coast fleet drawn on the island's west side."""
    units_over_land: list[tuple[str, str, float, float]] = field(default_factory=list)
    """Unit spots whose mark (a disc of the unit's radius; the place's disc round a unit standing beside
    its place) hides more than ``HIDES_NEIGHBOUR`` of a neighbouring land province, or stands more than
    ``STANDS_ON_NEIGHBOUR`` on its land (spot, neighbour, share of the neighbour hidden, share of the mark
    over it). A unit on a nested place is left out: its ring is the place drawn again, by design."""
    units_over_land_justified: list[tuple[str, str, float, float, str]] = field(default_factory=list)
    """The same, for spots the variant explains under ``[mapcheck.units_over_land]`` (with the reason):
    shown, not counted as mismatches."""
    stale_justifications: list[str] = field(default_factory=list)
    """Spots explained under ``[mapcheck.units_over_land]`` whose mark no longer hides anything."""

    def counts(self) -> dict[str, int]:
        return {
            "land_apart": len(self.land_apart),
            "land_touching": len(self.land_touching),
            "coast_no_shore": len(self.coast_no_shore),
            "inland_shore": len(self.inland_shore),
            "sea_apart": len(self.sea_apart),
            "wrong_side": len(self.wrong_side),
            "too_small": len(self.too_small),
            "connectors": len(self.connectors),
            "connectors_over_land": len(self.connectors_over_land),
            "units_crowded": len(self.units_crowded),
            "offboard_taken": len(self.offboard_taken),
            "coast_wrong_side": len(self.coast_wrong_side),
            "units_over_land": len(self.units_over_land),
        }

    @property
    def mismatches(self) -> int:
        c = self.counts()
        return sum(v for k, v in c.items() if k != "connectors")


def thresholds(km_per_unit: float) -> tuple[float, float, float]:
    """(declared border minimum, touching, inland shore maximum), in km."""
    return max(3.0, 2.0 * km_per_unit), max(1.0, 0.75 * km_per_unit), max(8.0, 5.0 * km_per_unit)


@dataclass
class Measured:
    """Outlines' margins and the lengths of shared borders as :func:`measure` found them, by the shapes' own
    bytes: kept by the fitting across its rounds, out of which most shapes come as they went in (1000 AD's
    build measures its 143 provinces thirteen times: 387 distinct shapes, 1,597 distinct borders of 5,179 weighed)."""

    margins: dict[tuple[bytes, float], BaseGeometry] = field(default_factory=dict)
    lengths: dict[tuple[bytes, bytes, float], float] = field(default_factory=dict)


def measure(
    shapes: Mapping[str, BaseGeometry],
    graph: BorderGraph,
    km_per_unit: float,
    background: BaseGeometry,
    points: Mapping[str, tuple[float, float]],
    frame: BaseGeometry,
    *,
    unit_scale: float = 1.0,
    measured: Measured | None = None,
) -> GeoReport:
    """Check ``shapes`` (coordinates in a space where one coordinate is ``unit_scale`` km: 1 for the
    builder's kilometres, ``km_per_unit`` for the picture) against ``graph``; with ``measured``, what an
    earlier call measured of the same shapes is taken from it, and what this one measures is added."""
    rep = GeoReport(connectors=sorted(graph.connectors))
    need_km, touch_km, inland_km = thresholds(km_per_unit)
    eps = 0.05 * km_per_unit / unit_scale
    kinds = graph.kinds
    names = sorted(k for k in shapes if not shapes[k].is_empty)
    geoms = [shapes[k] for k in names]
    bounds = {k: shapes[k].boundary for k in names}
    kept = measured or Measured()
    own = {k: shapes[k].wkb for k in names}  # a shape's bytes: the same shape in another round is found by them
    fat: dict[str, BaseGeometry] = {}

    def margin(k: str) -> BaseGeometry:
        found = fat.get(k)
        if found is None:
            key = (own[k], eps)
            found = kept.margins.get(key)
            if found is None:
                found = kept.margins[key] = bounds[k].buffer(eps, quad_segs=1, cap_style="flat")
            fat[k] = found
        return found

    def shared(a: str, b: str) -> float:
        if a not in bounds or b not in bounds:
            return 0.0
        if not bounds[a].envelope.intersects(bounds[b].envelope):
            return 0.0
        # Buffer the smaller outline (kept): borders are measured within eps of each other, since two
        # shapes' common border may be noded a little differently on each side.
        small, big = (
            (a, b) if len(shapely.get_coordinates(bounds[a])) <= len(shapely.get_coordinates(bounds[b])) else (b, a)
        )
        key = (own[big], own[small], eps)
        length = kept.lengths.get(key)
        if length is None:
            length = kept.lengths[key] = float(bounds[big].intersection(margin(small)).length)
        return length * unit_scale

    for a, b in sorted(graph.land):
        s = shared(a, b)
        if s < need_km:
            rep.land_apart.append((a, b, round(s, 1)))
    for a, b in sorted(graph.sea):
        s = shared(a, b)
        if s < need_km:
            rep.sea_apart.append((a, b, round(s, 1)))
    tree = shapely.STRtree(geoms)
    pairs = tree.query(geoms, predicate="intersects") if geoms else np.zeros((2, 0), dtype=int)
    declared = graph.land | graph.connectors
    for i, j in zip(pairs[0].tolist(), pairs[1].tolist(), strict=True):
        a, b = names[i], names[j]
        if a >= b or kinds.get(a) in ("sea", "impassable") or kinds.get(b) in ("sea", "impassable"):
            continue
        if (a, b) in declared:
            continue
        s = shared(a, b)
        if s > touch_km:
            rep.land_touching.append((a, b, round(s, 1)))
    rep.land_touching.sort()
    for i, j in zip(pairs[0].tolist(), pairs[1].tolist(), strict=True):
        a, b = names[i], names[j]
        if kinds.get(a) != "coast" or kinds.get(b) != "sea" or _pair(a, b) in graph.sea | graph.connectors:
            continue
        s = shared(a, b)
        if s > touch_km:
            rep.sea_touching.append((a, b, round(s, 1)))
    rep.sea_touching.sort()
    # Shore: where a land shape's outline runs along water (neither another land shape, off-board land,
    # nor the picture's edge).
    landish = shapely.union_all([shapes[k] for k in names if kinds.get(k) != "sea"] + [background])
    # Close the hairline gaps rounding leaves between neighbours (a vertex of one shape moved off the
    # other's edge), which are not shore.
    close = 3 * eps
    landish = landish.buffer(close, quad_segs=1, join_style="mitre").buffer(-close, quad_segs=1, join_style="mitre")
    edge = frame.boundary.buffer(eps * 4, quad_segs=1)
    coastline = landish.boundary.difference(edge)
    coast_tree = shapely.STRtree(polygons_of_lines(coastline))
    for k in names:
        kind = kinds.get(k)
        if kind not in ("coast", "land"):
            continue
        near = [coast_tree.geometries[int(i)] for i in coast_tree.query(shapes[k].envelope.buffer(eps))]
        shore = sum(float(line.intersection(margin(k)).length) for line in near) * unit_scale
        if kind == "coast" and shore < need_km:
            rep.coast_no_shore.append((k, round(shore, 1)))
        if kind == "land" and shore > inland_km:
            rep.inland_shore.append((k, round(shore, 1)))
    for k in sorted(points):
        g = shapes.get(k)
        if g is None or g.is_empty:
            rep.wrong_side.append(k)
            continue
        if g.distance(Point(points[k])) * unit_scale > max(1.0, 1.5 * km_per_unit):
            rep.wrong_side.append(k)
    per_unit = km_per_unit / unit_scale
    for k in names:
        polys = polygons_of(shapes[k])
        if not polys:
            continue
        main = max(polys, key=lambda p: p.area)
        c = polylabel(main, tolerance=0.25 * per_unit)
        r = float(main.boundary.distance(c)) / per_unit
        if r < MIN_CLICK_UNITS:
            rep.too_small.append((k, round(r, 1)))
    return rep


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


def polygons_of_lines(geom: BaseGeometry) -> list[BaseGeometry]:
    """A line geometry cut into pieces of at most 64 vertices, for a spatial index."""
    out: list[BaseGeometry] = []
    for g in getattr(geom, "geoms", [geom]):
        coords = shapely.get_coordinates(g)
        for i in range(0, max(len(coords) - 1, 0), 64):
            chunk = coords[i : i + 65]
            if len(chunk) >= 2:
                out.append(shapely.linestrings(chunk))
    return out


def parse_path(d: str) -> BaseGeometry:
    """A shape from an SVG path of M/L/Z rings, absolute or relative (as the builder writes them), even-odd
    filled."""
    rings = [r for r in path_rings(d) if len(r) >= 3]
    out: BaseGeometry = Polygon()
    for r in rings:
        # a ring that touches itself is mended into polygons and stray lines: the lines are dropped, so
        # every shape is polygonal (a collection has no outline to measure)
        parts = polygons_of(shapely.make_valid(Polygon(r)))
        if parts:
            out = out.symmetric_difference(shapely.union_all(parts))
    parts = polygons_of(out)
    return shapely.union_all(parts) if parts else Polygon()


def check_geometry(variant: Variant, geo: Geometry | None = None) -> GeoReport:
    """The geometric checks on a variant's committed geometry file (FileNotFoundError when none is built),
    or on ``geo``."""
    geo = geo if geo is not None else load_geometry(variant)
    proj = geo.projection
    points = {}
    if "lon0" in proj:
        laea = Laea(float(proj["lon0"]), float(proj["lat0"]))
        x0, y0, scale = float(proj["x0"]), float(proj["y0"]), float(proj["scale"])
        for p in variant.map.provinces:
            if p.point is not None and p.abbr in geo.provinces:
                x, y = laea.point(*p.point)
                points[p.abbr] = ((x - x0) * scale, (y0 - y) * scale)
    # else a board laid out from its borders: the variant's points are not where its provinces are drawn,
    # so there is no point to find in its shape
    shapes = {k: parse_path(s.d) for k, s in geo.provinces.items()}
    # Off-board water counts with off-board land: a coast along it is no shore (1000 AD's Black Sea).
    background = parse_path(geo.background_land).union(parse_path(geo.background_offboard))
    graph = border_graph(variant)
    rep = measure(
        shapes,
        graph,
        geo.km_per_unit,
        background,
        points,
        box(0, 0, geo.width, geo.height),
        unit_scale=geo.km_per_unit,
    )
    frame = box(0, 0, geo.width, geo.height)
    land = {k: g for k, g in shapes.items() if graph.kinds.get(k) not in ("sea", None) and not g.is_empty}
    for c in geo.connectors:
        ends = shapely.union_all([shapes.get(c.a, Polygon()), shapes.get(c.b, Polygon())]).buffer(1.0)
        drawn = shapely.union_all([LineString(ring) for ring in path_rings(c.d) if len(ring) >= 2]).intersection(frame)
        over = sum(float(drawn.intersection(g).difference(ends).length) for k, g in land.items() if k not in (c.a, c.b))
        if over > 2.0:
            rep.connectors_over_land.append((c.a, c.b, round(over, 1)))
    r = unit_radius(
        [p.area_km2 for p in geo.provinces.values() if p.kind != "sea" and not p.nested and p.area_km2 > 0],
        geo.km_per_unit,
        geo.width,
        geo.height,
    )
    spots = [(k, p.unit) for k, p in sorted(geo.provinces.items())] + sorted(geo.coasts.items())
    for i, (a, pa) in enumerate(spots):
        for b, pb in spots[i + 1 :]:
            d = math.dist(pa, pb)
            if a.split("/")[0] != b.split("/")[0] and d < UNITS_APART * r:
                rep.units_crowded.append((a, b, round(d / r, 2)))
    off = parse_path(geo.background_offboard)
    if not off.is_empty:
        for k, g in sorted(shapes.items()):
            km2 = float(g.intersection(off).area) * geo.km_per_unit**2
            if km2 > geo.km_per_unit**2 * 4:
                rep.offboard_taken.append((k, round(km2, 0)))
    rep.coast_wrong_side = coast_sides(variant, geo, shapes)
    explained = variant.data.get("mapcheck", {}).get("units_over_land", {})
    found = units_over_land(geo, shapes, r)
    for spot, other, hidden, over in found:
        if spot in explained:
            rep.units_over_land_justified.append((spot, other, hidden, over, str(explained[spot])))
        else:
            rep.units_over_land.append((spot, other, hidden, over))
    rep.stale_justifications = sorted(set(explained) - {f[0] for f in found})
    return rep


def coast_sides(variant: Variant, geo: Geometry, shapes: Mapping[str, BaseGeometry]) -> list[tuple[str, str]]:
    """Split coasts whose fleet's spot is nearer the seas along another coast of its province (the seas
    that coast reaches and this one does not) than the seas along its own: a fleet drawn on the wrong side."""
    gm = variant.map
    out: list[tuple[str, str]] = []
    for p in gm.provinces:
        if len(p.coasts) < 2:
            continue
        seas = {c: {s for s in coast_seas(variant, c) if s in shapes and not shapes[s].is_empty} for c in p.coasts}
        for c in p.coasts:
            name = gm.locations[c].abbr
            spot = geo.coasts.get(name)
            if spot is None or not seas[c]:
                continue
            at = Point(spot)
            mine = min(float(shapes[s].distance(at)) for s in seas[c])
            for o in p.coasts:
                theirs = seas[o] - seas[c]
                if o != c and theirs and min(float(shapes[s].distance(at)) for s in theirs) < mine:
                    out.append((name, gm.locations[o].abbr))
                    break
    return out


def units_over_land(geo: Geometry, shapes: Mapping[str, BaseGeometry], r: float) -> list[tuple[str, str, float, float]]:
    """Unit spots (provinces' and split coasts') whose mark hides a neighbouring land province: more than
    ``HIDES_NEIGHBOUR`` of its shape, or more than ``STANDS_ON_NEIGHBOUR`` of the mark on its land (the
    unit would read as standing there). The mark is a disc of the unit's radius (a fleet's hull is about as
    wide), or of ``CALLOUT_RING`` radii round a unit standing beside its place (the place drawn again)."""
    land = {k: g for k, g in shapes.items() if not g.is_empty and geo.provinces[k].kind != "sea"}
    spots: list[tuple[str, str, tuple[float, float], float, bool]] = []
    for k, p in sorted(geo.provinces.items()):
        if p.unit_leader is not None:
            spots.append((k, k, p.unit, r * CALLOUT_RING, True))
        elif not p.nested:
            spots.append((k, k, p.unit, r, False))
    spots += [(k, k.split("/")[0], pt, r, False) for k, pt in sorted(geo.coasts.items())]
    out: list[tuple[str, str, float, float]] = []
    for key, owner, pt, rad, callout in spots:
        disc = Point(pt).buffer(rad, 32)
        for k, g in sorted(land.items()):
            if k == owner or not disc.intersects(g):
                continue
            area = float(disc.intersection(g).area)
            hidden, over = area / float(g.area), area / float(disc.area)
            if hidden > HIDES_NEIGHBOUR or (not callout and over > STANDS_ON_NEIGHBOUR):
                out.append((key, k, round(hidden, 2), round(over, 2)))
    return out


def format_geo_report(rep: GeoReport, variant: str) -> str:
    c = rep.counts()
    lines = [
        f"geometry check: {variant} ({rep.mismatches} mismatches; {c['connectors']} connectors across water, explained)",
        "  " + ", ".join(f"{k} {v}" for k, v in c.items()),
    ]
    for title, items in (
        ("declared land borders drawn apart", rep.land_apart),
        ("land shapes touching with no border", rep.land_touching),
        ("coasts drawn along a sea they have no fleet edge to (listed, not counted)", rep.sea_touching),
        ("coasts with no shore", rep.coast_no_shore),
        ("inland provinces with shore", rep.inland_shore),
        ("sea borders not meeting", rep.sea_apart),
        ("points outside their shape (wrong side of the coast)", rep.wrong_side),
        ("too small to click", rep.too_small),
        ("connectors across other provinces' land", rep.connectors_over_land),
        ("units of different provinces drawn over each other (distance in unit radii)", rep.units_crowded),
        ("provinces reaching off the board", rep.offboard_taken),
        ("split coasts' fleets drawn nearer another coast's seas (coast, the other coast)", rep.coast_wrong_side),
        ("units hiding a neighbouring province (share of it hidden, share of the mark over it)", rep.units_over_land),
        (
            "the same, explained by the variant ([mapcheck.units_over_land])",
            [i[:4] for i in rep.units_over_land_justified],
        ),
        ("explained under [mapcheck.units_over_land] but hiding nothing now", rep.stale_justifications),
    ):
        if items:
            lines.append(f"  {title} ({len(items)}):")
            lines.append("    " + "; ".join(_item(i) for i in items))
    for spot, why in sorted({(i[0], i[4]) for i in rep.units_over_land_justified}):
        lines.append(f"    {spot}: {why}")
    return "\n".join(lines)


def _item(i: object) -> str:
    if isinstance(i, tuple) and len(i) == 4:
        return f"{i[0]} over {i[1]}: {i[2]:.0%} of it hidden, {i[3]:.0%} of the mark"
    if isinstance(i, tuple):
        if len(i) == 3:
            return f"{i[0]}-{i[1]} {i[2]} km"
        return f"{i[0]} {i[1]}"
    return str(i)
