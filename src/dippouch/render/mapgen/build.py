"""Build a variant's map geometry from its province points, its border graph and the coastline clip.

How (docs/maps-geometry.md says it for authors):

1. Project everything (Lambert azimuthal equal-area centred on the board, kilometres).
2. Seeds: each province's point, its hand-placed ``shape`` points, and points added by the fitting step.
   Land provinces' seeds make one Voronoi diagram, clipped to land on the board; sea provinces' seeds
   another, clipped to water on the board. Keeping the two apart means a sea point never cuts a county.
3. A province keeps the pieces holding its seeds; other pieces (a cell reaching across a strait or round a
   bay) go to the neighbour they share most border with, or on the same landmass the nearest province;
   islands with no province of their own go to the nearest province if small and near, else background.
4. Nested places (castles, cities: ``[drawing] nested``) are small circles cut out of whatever lies under.
5. The fitting step (fit.py) adds seeds until the shapes' borders equal the graph, then the shapes are
   written out in picture units with label, unit and centre spots.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import pairwise
from typing import Any

import numpy as np
import shapely
from shapely.errors import GEOSException
from shapely.geometry import LineString, MultiPoint, MultiPolygon, Point, Polygon, box
from shapely.geometry.base import BaseGeometry
from shapely.ops import polylabel

from dippouch.core.errors import DippouchError
from dippouch.core.messages import nmsg
from dippouch.core.variant import Variant
from dippouch.render.geometry import FORMAT, VERSION, unit_radius
from dippouch.render.mapgen.coastline import (
    CLIP_BBOX,
    clip_hash,
    load_land,
    load_world,
    polygons_of,
    valid_parts,
    world_hash,
)
from dippouch.render.mapgen.graph import BorderGraph, border_graph, coast_seas, drawing_table, drawn_from_borders
from dippouch.render.mapgen.layout import border_layout
from dippouch.render.mapgen.project import Laea

BUILDER_VERSION = 1
PICTURE_WIDTH = 1200.0
#: A board laid out from its borders is drawn PICTURE_WIDTH wide up to this many provinces, and wider with
#: more (the picture's area grows with the count), so each province keeps the room a name of 9 px needs at
#: the default view: at 1200 px, MILA's Known World 901 (269 provinces) had 74 names under 9 px; with 120
#: here, DPjudge's Youngstown (184) still had 31 (8.9 px).
LAID_OUT_PROVINCES = 100


def laid_out_width(provinces: int) -> float:
    """The picture width of a board laid out from its borders with this many provinces."""
    return round(PICTURE_WIDTH * max(1.0, math.sqrt(provinces / LAID_OUT_PROVINCES)), 1)


#: How wide a gap between two provinces' outlines (picture units) is closed, so they share a border.
OUTLINE_GAP_UNITS = 2.5


@dataclass(frozen=True, slots=True)
class Seed:
    prov: str
    x: float
    y: float
    auto: bool = False


@dataclass
class MapFrame:
    """The projected frame every shape of a variant is built in."""

    proj: Laea
    board: Polygon
    """Where provinces may lie (km)."""
    frame: Polygon
    """The picture's rectangle (km), the board's bounding box."""
    land: BaseGeometry
    """Land on the picture (km), simplified once so neighbours share exactly the same coastline."""
    km_per_unit: float
    points: dict[str, tuple[float, float]]
    hand_seeds: list[Seed]
    graph: BorderGraph
    kinds: dict[str, str]
    nested: dict[str, float]
    reach: float
    island_km2: float
    island_km: float
    offboard: BaseGeometry = field(default_factory=Polygon)
    """Parts of the frame that are off the board (km): a sea not in play and the land round it, given to no
    province and drawn neutral; the checks count it with off-board land, so a coast along it is no shore."""
    routes: dict[tuple[str, str], list[tuple[float, float]]] = field(default_factory=dict)
    """Connectors drawn through waypoints (km), keyed by the sorted pair."""
    outlines: dict[str, BaseGeometry] = field(default_factory=dict)
    """Shapes given outright (``[drawing] outlines``, km): drawn as given, not grown from seeds."""
    laid_out: bool = False
    """Points from a layout of the border graph (layout.py), not the variant's own: the geometry records no
    projection, since the variant's points (and towns) say nothing of where its provinces are drawn."""

    @cached_property
    def surfaces(self) -> tuple[Tiles, Tiles]:
        """The land and the water on the board, each cut into tiles: the same in every round of fitting the
        seeds, and cutting them anew each round was nine tenths of a build (1000 AD: 24 cuts, 145 s)."""
        return Tiles(self.land.intersection(self.board), self.frame), Tiles(
            self.board.difference(self.land), self.frame
        )

    @cached_property
    def near_water(self) -> BaseGeometry:
        """The water on the board and a tenth of a unit round it: where an inland province's outline is shore.
        The same in every round of fitting; made once a build (on 1000 AD's board a second of CPU, which was
        spent again for each inland province with shore in each round)."""
        return self.board.difference(self.land).buffer(self.km_per_unit * 0.1, quad_segs=1)


@dataclass
class Shapes:
    """Province shapes in km, before writing out."""

    provinces: dict[str, BaseGeometry]
    background: BaseGeometry
    seeds: list[Seed] = field(default_factory=list)


def _lonlat_poly(proj: Laea, ring: Sequence[Sequence[float]]) -> Polygon:
    """A polygon given by longitude/latitude corners, its edges following meridians and parallels
    (each edge cut into short steps before projecting)."""
    pts: list[tuple[float, float]] = []
    for (x0, y0), (x1, y1) in zip(ring, [*ring[1:], ring[0]], strict=True):
        n = max(1, int(max(abs(x1 - x0), abs(y1 - y0)) / 0.5))
        pts += [(x0 + (x1 - x0) * i / n, y0 + (y1 - y0) * i / n) for i in range(n)]
    xs, ys = proj.forward([p[0] for p in pts], [p[1] for p in pts])
    return Polygon(list(zip(xs.tolist(), ys.tolist(), strict=True)))


def _project_geom(proj: Laea, geom: BaseGeometry) -> BaseGeometry:
    def tf(coords: np.ndarray) -> np.ndarray:
        x, y = proj.forward(coords[:, 0], coords[:, 1])
        return np.column_stack([x, y])

    return shapely.transform(geom, tf)


I18N_DOMAIN = "rules"
"""The catalogue of the map builder's refusals (said where they are shown: the command line)."""


class MapgenError(DippouchError):
    """A map that cannot be built as it stands; says why and what to add."""


def make_board(variant: Variant) -> MapFrame:
    drawing = drawing_table(variant)
    graph = border_graph(variant)
    if drawn_from_borders(variant):
        return _laid_out_board(variant, graph)
    provs = [p for p in variant.map.provinces if p.point is not None]
    missing = sorted(
        p.abbr for p in variant.map.provinces if p.point is None and graph.kinds.get(p.abbr) != "impassable"
    )
    if missing:
        raise MapgenError(
            nmsg(
                "the map of %(variant)s cannot be built: %(count)d province has no point [longitude, latitude]: "
                "%(provinces)s; add `point = [lon, lat]` to each (the shapes grow round the points)",
                "the map of %(variant)s cannot be built: %(count)d provinces have no point [longitude, latitude]: "
                "%(provinces)s; add `point = [lon, lat]` to each (the shapes grow round the points)",
                len(missing),
                variant=repr(variant.name),
                count=len(missing),
                provinces=" ".join(missing[:12]) + (" ..." if len(missing) > 12 else ""),
            )
        )
    lons = [p.point[0] for p in provs if p.point]
    lats = [p.point[1] for p in provs if p.point]
    if "centre" in drawing:
        lon0, lat0 = (float(v) for v in drawing["centre"])
    else:
        lon0, lat0 = (min(lons) + max(lons)) / 2, (min(lats) + max(lats)) / 2
    proj = Laea(round(lon0, 3), round(lat0, 3))
    points = {p.abbr: proj.point(*p.point) for p in provs if p.point}
    outlines = _outlines(proj, drawing.get("outlines", {}), set(points))
    if "board" in drawing:
        board = _lonlat_poly(proj, drawing["board"])
    elif outlines:  # the picture's shapes, whole
        given = shapely.union_all(list(outlines.values()))
        xs = [p[0] for p in points.values()] + [given.bounds[0], given.bounds[2]]
        ys = [p[1] for p in points.values()] + [given.bounds[1], given.bounds[3]]
        board = box(min(xs), min(ys), max(xs), max(ys))
    else:
        xs = [p[0] for p in points.values()]
        ys = [p[1] for p in points.values()]
        margin = float(drawing.get("margin", 0.06)) * max(max(xs) - min(xs), max(ys) - min(ys))
        board = box(min(xs) - margin, min(ys) - margin, max(xs) + margin, max(ys) + margin)
    frame = box(*board.bounds)
    rings = [_lonlat_poly(proj, ring) for ring in drawing.get("offboard", [])]
    offboard = shapely.union_all(rings).intersection(frame) if rings else Polygon()
    if not offboard.is_empty:
        board = board.difference(offboard)
    km_per_unit = (frame.bounds[2] - frame.bounds[0]) / PICTURE_WIDTH
    # Land: the clip, cut to the frame, with the variant's water patches and land patches.
    lon_min, lat_min, lon_max, lat_max = _frame_lonlat(proj, frame)
    if outlines:
        outlines = _close_gaps(outlines, board, OUTLINE_GAP_UNITS * km_per_unit)
        land = _land_of_provinces(points, graph.kinds, frame, outlines)
    elif drawing.get("coastline", "clip") == "provinces" or (clip_gap(variant) is not None and not load_world()):
        land = _land_of_provinces(points, graph.kinds, frame)
    else:
        window = box(lon_min - 1, lat_min - 1, lon_max + 1, lat_max + 1)
        source = load_world() if clip_gap(variant) is not None else load_land()
        clipped = [p.intersection(window) for p in source if p.intersects(window)]
        projected = valid_parts([q for p in clipped for q in polygons_of(_project_geom(proj, p))])
        land = shapely.union_all(projected).intersection(frame.buffer(1.0))
    for ring in drawing.get("land", []):
        land = land.union(_lonlat_poly(proj, ring))
    for ring in drawing.get("water", []):
        land = land.difference(_lonlat_poly(proj, ring))
    width = float(drawing.get("river_units", 2.5)) * km_per_unit
    for line in drawing.get("rivers", []):
        rx, ry = proj.forward([p[0] for p in line], [p[1] for p in line])
        land = land.difference(LineString(list(zip(rx.tolist(), ry.tolist(), strict=True))).buffer(width / 2))
    land = shapely.simplify(land, km_per_unit * 0.45, preserve_topology=True)
    land = MultiPolygon([p for p in valid_parts(polygons_of(land)) if p.area > (km_per_unit * 1.2) ** 2])
    hand: list[Seed] = []
    raw = variant.data.get("provinces", {})
    for abbr in sorted(raw):
        for pt in raw[abbr].get("shape", []) if isinstance(raw[abbr], Mapping) else []:
            x, y = proj.point(float(pt[0]), float(pt[1]))
            hand.append(Seed(abbr, x, y))
    if not offboard.is_empty:
        # Water cut off between the off-board patch and the coast (its ring runs offshore) is off the board
        # too, unless a sea holds a point there: else a sea in play would get it as a stray piece.
        sea_pts = [Point(points[k]) for k in points if graph.kinds.get(k) == "sea"] + [
            Point(s.x, s.y) for s in hand if graph.kinds.get(s.prov) == "sea"
        ]
        near = offboard.buffer(km_per_unit)
        for piece in polygons_of(board.difference(land)):
            if piece.intersects(near) and not any(piece.contains(q) for q in sea_pts):
                offboard = offboard.union(piece)
        board = board.difference(offboard)
    sizes = drawing.get("nested_units", {})
    nested = {
        k: (float(sizes[k]) * km_per_unit if k in sizes else v or 7.0 * km_per_unit) for k, v in graph.nested.items()
    }
    return MapFrame(
        proj=proj,
        board=board,
        frame=frame,
        land=land,
        km_per_unit=km_per_unit,
        points=points,
        hand_seeds=hand,
        graph=graph,
        kinds=dict(graph.kinds),
        nested=nested,
        reach=float(drawing.get("reach", 3.0)),
        island_km2=float(drawing.get("island_km2", 2500.0)),
        island_km=float(drawing.get("island_km", 60.0)),
        offboard=offboard,
        routes={
            _route_key(str(key)): [proj.point(float(p[0]), float(p[1])) for p in pts]
            for key, pts in sorted(drawing.get("routes", {}).items())
        },
        outlines=outlines,
    )


def _laid_out_board(variant: Variant, graph: BorderGraph) -> MapFrame:
    """The board of a map laid out from its borders (layout.py): the layout's points and rectangle, land
    and sea from the provinces' kinds, nothing else of the ``[drawing]`` table's geography applies."""
    points, board = border_layout([p.abbr for p in variant.map.provinces], graph)
    frame = box(*board.bounds)
    km_per_unit = (frame.bounds[2] - frame.bounds[0]) / laid_out_width(len(points))
    land = _land_of_provinces(points, graph.kinds, frame)
    land = shapely.simplify(land, km_per_unit * 0.45, preserve_topology=True)
    land = MultiPolygon([p for p in valid_parts(polygons_of(land)) if p.area > (km_per_unit * 1.2) ** 2])
    return MapFrame(
        proj=Laea(0.0, 0.0),
        board=board,
        frame=frame,
        land=land,
        km_per_unit=km_per_unit,
        points=points,
        hand_seeds=[],
        graph=graph,
        kinds=dict(graph.kinds),
        nested={},
        reach=3.0,
        island_km2=2500.0,
        island_km=60.0,
        laid_out=True,
    )


def _close_gaps(outlines: Mapping[str, BaseGeometry], board: Polygon, width: float) -> dict[str, BaseGeometry]:
    """Outlines grown across the thin gaps a source picture leaves between neighbours (its shapes are
    drawn with a stroke over the seam, so their edges seldom coincide): each takes the gap within
    ``width`` of it that no other has taken (smallest first), so neighbours then share one border."""
    order = sorted(outlines, key=lambda k: (outlines[k].area, k))
    taken = shapely.union_all(list(outlines.values()))
    gaps = board.difference(taken)
    out = dict(outlines)
    if gaps.is_empty:
        return out
    tiles = Tiles(gaps, box(*board.bounds))
    claimed: list[BaseGeometry] = []
    for k in order:
        try:
            extra = tiles.clip(outlines[k].buffer(width, quad_segs=2))
            if extra.is_empty:
                continue
            # the parts of the gap already taken by a neighbour nearby (one growing union would be slow)
            over = [c for c in claimed if c.intersects(extra)]
            if over:
                extra = shapely.make_valid(extra.difference(shapely.union_all(over)))
            if extra.is_empty or extra.area <= 0:
                continue
            grown = shapely.union_all([*polygons_of(outlines[k]), *polygons_of(extra)])
        except GEOSException:
            continue  # an outline the geometry library cannot overlay here keeps its gap (drawn, noted by the checks)
        claimed.append(extra)
        out[k] = grown
    return out


def _outlines(proj: Laea, raw: Mapping[str, Any], known: set[str]) -> dict[str, BaseGeometry]:
    """``[drawing] outlines`` projected (km), each made valid (a ring that crosses itself is mended, rings
    of one province are joined: a hole is not kept, since a source picture draws an island in a sea as a
    shape of its own on top)."""
    out: dict[str, BaseGeometry] = {}
    for abbr in sorted(raw):
        if abbr not in known:
            continue
        parts: list[Polygon] = []
        for ring in raw[abbr]:
            if len(ring) < 3:
                continue
            xs, ys = proj.forward([float(p[0]) for p in ring], [float(p[1]) for p in ring])
            poly = Polygon(list(zip(xs.tolist(), ys.tolist(), strict=True)))
            parts.extend(polygons_of(poly if poly.is_valid else shapely.make_valid(poly)))
        # on a 1 m grid, so that overlaying outlines that nearly coincide does not trip the geometry library
        geom = shapely.make_valid(shapely.set_precision(shapely.union_all(parts), 0.001)) if parts else Polygon()
        geom = shapely.union_all(polygons_of(geom)) if polygons_of(geom) else Polygon()
        if not geom.is_empty and geom.area > 0:
            out[abbr] = geom
    return out


def clip_gap(variant: Variant) -> str | None:
    """Why the committed coastline clip cannot draw this board (it covers only part of the world), or None.

    Such a board is drawn with the world coastline (coarser); failing that (its file missing), with land
    and sea from the provinces' own points and kinds, never as an all-sea picture. The builder's callers
    show this text so the author knows where the coasts come from.
    """
    if drawing_table(variant).get("coastline", "clip") == "provinces":
        return None
    pts = [p.point for p in variant.map.provinces if p.point is not None]
    if not pts:
        return None
    lon0, lat0, lon1, lat1 = CLIP_BBOX
    los = [float(p[0]) for p in pts]
    las = [float(p[1]) for p in pts]
    if min(los) >= lon0 and max(los) <= lon1 and min(las) >= lat0 and max(las) <= lat1:
        return None
    where = (
        f"the coastline clip covers longitude {lon0:g}..{lon1:g}, latitude {lat0:g}..{lat1:g}, and this map's "
        f"points reach longitude {min(los):g}..{max(los):g}, latitude {min(las):g}..{max(las):g}: "
    )
    if load_world():
        return where + (
            "the coasts come from the world coastline (Natural Earth 1:50m simplified to about 3 km, coarser "
            "than the clip's 1:10m); small islands and narrow straits may be missing"
        )
    return where + (
        "WARNING: the world coastline (render/data/world.json.gz) is missing, so land and sea are drawn from "
        "the provinces' points and kinds instead of real coastlines "
        '(`[drawing] coastline = "provinces"` says so and silences this note)'
    )


def _land_of_provinces(
    points: Mapping[str, tuple[float, float]],
    kinds: Mapping[str, str],
    frame: Polygon,
    outlines: Mapping[str, BaseGeometry] | None = None,
) -> BaseGeometry:
    """Land for a map with no real geography: the Voronoi cells of the land and coast provinces' points
    among all the points (a map with no sea at all is land everywhere). Where provinces have outlines,
    theirs: the land and coast outlines are land, the sea outlines water, and the Voronoi cells only fill
    what no outline covers."""
    names = sorted(points)
    if not any(kinds.get(n) == "sea" for n in names):
        return frame.buffer(1.0)
    cells = _voronoi([Seed(n, *points[n]) for n in names], frame)
    land = [c for n, c in zip(names, cells, strict=True) if kinds.get(n) in ("land", "coast", "impassable")]
    voronoi = shapely.union_all(land).intersection(frame.buffer(1.0)) if land else Polygon()
    if not outlines:
        return voronoi
    given = shapely.union_all(list(outlines.values()))
    shaped_land = shapely.union_all([g for n, g in outlines.items() if kinds.get(n) != "sea"])
    return shaped_land.union(voronoi.difference(given)).intersection(frame.buffer(1.0))


def _route_key(key: str) -> tuple[str, str]:
    a, _, c = key.lower().partition("-")
    return (a, c) if a < c else (c, a)


def _frame_lonlat(proj: Laea, frame: Polygon) -> tuple[float, float, float, float]:
    x0, y0, x1, y1 = frame.bounds
    pts = [proj.inverse(x, y) for x in np.linspace(x0, x1, 9) for y in np.linspace(y0, y1, 9)]
    return (min(p[0] for p in pts), min(p[1] for p in pts), max(p[0] for p in pts), max(p[1] for p in pts))


def base_seeds(b: MapFrame) -> list[Seed]:
    return [Seed(a, x, y) for a, (x, y) in sorted(b.points.items())] + list(b.hand_seeds)


def _voronoi(seeds: list[Seed], frame: Polygon) -> list[Polygon]:
    """Cells in the seeds' order; a seed on the very spot of an earlier one gets no cell."""
    first: dict[tuple[float, float], int] = {}
    for i, s in enumerate(seeds):
        first.setdefault((round(s.x, 3), round(s.y, 3)), i)
    uniq = sorted(first.values())
    pts = MultiPoint([(seeds[i].x, seeds[i].y) for i in uniq])
    try:
        cells = list(shapely.voronoi_polygons(pts, extend_to=frame.buffer(frame.length), ordered=True).geoms)
    except GEOSException:
        # GEOS cannot say which cell is whose when seeds nearly coincide ("No cell found for input
        # coordinate"): each seed takes the cell it lies in, a seed no cell holds gets none.
        found = list(shapely.voronoi_polygons(pts, extend_to=frame.buffer(frame.length)).geoms)
        tree = shapely.STRtree(found)
        cells = []
        for i in uniq:
            hit = tree.query(Point(seeds[i].x, seeds[i].y), predicate="intersects")
            cells.append(found[int(hit[0])] if len(hit) else Polygon())
    out: list[Polygon] = [Polygon()] * len(seeds)
    for i, c in zip(uniq, cells, strict=True):
        out[i] = c
    return out


def _reach_limit(seeds: list[Seed], factor: float) -> list[float]:
    """Each seed's cell is cut to a disc of ``factor`` times the distance to its nearest other-province
    seed of the same surface (points and hand-placed shaping points only), so cells at the board's edge do
    not grow without limit."""
    if len(seeds) < 2:
        return [1e9] * len(seeds)
    from scipy.spatial import cKDTree

    base = [s for s in seeds if not s.auto]
    xy = np.array([(s.x, s.y) for s in base])
    tree = cKDTree(xy)
    k = min(len(base), 12)
    dist, idx = tree.query(xy, k=k)
    # one seed alone on its surface: the query gives a column, not a table
    dist, idx = np.asarray(dist).reshape(len(base), -1), np.asarray(idx).reshape(len(base), -1)
    limit = {}
    for i, s in enumerate(base):
        d = next((float(dd) for dd, j in zip(dist[i], idx[i], strict=True) if base[j].prov != s.prov), 1e9)
        limit[id(s)] = max(d * factor, 1.0)
    # Seeds the fitting step added sit between shapes, never at the board's edge: no limit.
    return [limit.get(id(s), 1e9) for s in seeds]


def _margin(piece: BaseGeometry, eps: float) -> BaseGeometry:
    """``piece`` and what lies within ``eps`` of it: buffering the small piece, not the big shape it is
    weighed against, is what keeps :func:`_shared` cheap; made once a piece, however many it is weighed against."""
    return piece.buffer(eps, quad_segs=1)


def _shared(margin: BaseGeometry, big: BaseGeometry) -> float:
    """Length of ``big``'s outline within a piece's :func:`_margin`."""
    return float(big.boundary.intersection(margin).length)


class Tiles:
    """A large surface (all the land on a board) cut into tiles, so that clipping a cell to it only
    touches the tiles under the cell."""

    def __init__(self, surface: BaseGeometry, frame: Polygon, n: int = 12) -> None:
        x0, y0, x1, y1 = frame.buffer(1.0).bounds
        w, h = (x1 - x0) / n, (y1 - y0) / n
        parts = []
        for i in range(n):
            for j in range(n):
                t = surface.intersection(box(x0 + i * w, y0 + j * h, x0 + (i + 1) * w, y0 + (j + 1) * h))
                if not t.is_empty:
                    parts.append(t)
        self.parts = parts
        self.tree = shapely.STRtree(parts)
        self.whole = surface
        self.pieces: dict[tuple[object, ...], tuple[list[Polygon], list[Polygon]]] = {}
        """A province's pieces on this surface (its own, and the stray ones), by what they are cut from: its
        seeds, their discs and cells, and the places cut out. A round of fitting adds a few seeds, and most
        provinces' cells come out as they were (1000 AD: 1,010 distinct of 5,969 in a build), so each is cut once."""

    def clip(self, geom: BaseGeometry) -> BaseGeometry:
        idx = self.tree.query(geom, predicate="intersects")
        pieces = [p for i in sorted(int(k) for k in idx) for p in polygons_of(self.parts[i].intersection(geom))]
        return shapely.union_all(pieces) if pieces else Polygon()


def _surface_shapes(
    seeds: list[Seed],
    surface: BaseGeometry,
    b: MapFrame,
    cut: BaseGeometry | None,
    background_ok: bool,
    nested: Mapping[str, BaseGeometry] | None = None,
    tiles: Tiles | None = None,
) -> tuple[dict[str, BaseGeometry], BaseGeometry]:
    """Voronoi cells of ``seeds`` on ``surface`` (cut into ``tiles``, made here if not given), one shape per
    province, stray pieces reassigned."""
    if not seeds:
        return {}, surface
    cells = _voronoi(seeds, b.frame)
    limits = _reach_limit(seeds, b.reach)
    per: dict[str, list[tuple[Seed, Polygon, float]]] = {}
    for s, c, lim in zip(seeds, cells, limits, strict=True):
        per.setdefault(s.prov, []).append((s, c, lim))
    main: dict[str, list[Polygon]] = {}
    stray: list[Polygon] = []
    eps = b.km_per_unit * 0.05
    tiles = tiles or Tiles(surface, b.frame)
    cut_key = None if cut is None else cut.wkb
    for prov in sorted(per):
        key = (cut_key, eps, tuple((s.x, s.y, lim, c.wkb) for s, c, lim in per[prov]))
        found = tiles.pieces.get(key)
        if found is None:
            found = tiles.pieces[key] = _province_pieces(per[prov], tiles, cut, eps)
        main[prov] = found[0]
        stray.extend(found[1])
    # Stray pieces: to the province they share most border with; several rounds, since a piece may
    # touch only other stray pieces at first.
    shapes = {k: shapely.union_all(v) if v else Polygon() for k, v in main.items()}
    landmass = polygons_of(surface)
    mass_tree = shapely.STRtree(landmass)
    background: list[Polygon] = []
    for _ in range(6):
        if not stray:
            break
        left: list[Polygon] = []
        tree_keys = sorted(k for k in shapes if not shapes[k].is_empty)
        tree = shapely.STRtree([shapes[k] for k in tree_keys])
        for piece in sorted(stray, key=lambda p: (-p.area, p.bounds)):
            margin = _margin(piece, eps)
            near = [tree_keys[int(i)] for i in tree.query(margin, predicate="intersects")]
            lengths = {k: _shared(margin, shapes[k]) for k in near}
            best = max(near, key=lambda k: (lengths[k], k), default=None)
            if best is not None and lengths[best] > eps:
                shapes[best] = shapes[best].union(piece)
                continue
            left.append(piece)
        if len(left) == len(stray):
            break
        stray = left
    for piece in stray:
        c = piece.representative_point()
        mass_idx = mass_tree.query(c, predicate="within")
        mass = landmass[int(mass_idx[0])] if len(mass_idx) else piece
        on_mass = [k for k in shapes if not shapes[k].is_empty and shapes[k].intersects(mass)]
        # An island under a nested place's circle (a castle on its rock, a small island drawn as a circle)
        # is that place's, not the mainland's.
        isle = [k for k, g in sorted((nested or {}).items()) if not on_mass and g.buffer(eps).intersects(mass)]
        if isle:
            shapes[isle[0]] = shapes.get(isle[0], Polygon()).union(piece)
            continue
        cands = on_mass or [k for k in shapes if not shapes[k].is_empty]
        if not on_mass and cands:
            ctree = shapely.STRtree([shapes[k] for k in cands])
            cands = [cands[int(ctree.nearest(piece))]]
        best = min(cands, key=lambda k: (shapes[k].distance(piece), k), default=None)
        if best is None:
            background.append(piece)
            continue
        area_km2 = piece.area
        if not on_mass and background_ok and (area_km2 > b.island_km2 or shapes[best].distance(piece) > b.island_km):
            background.append(piece)
            continue
        shapes[best] = shapes[best].union(piece)
    return shapes, shapely.union_all(background) if background else Polygon()


def _province_pieces(
    own: list[tuple[Seed, Polygon, float]], tiles: Tiles, cut: BaseGeometry | None, eps: float
) -> tuple[list[Polygon], list[Polygon]]:
    """A province's pieces on ``tiles``' surface from its ``own`` seeds, each with its cell and the radius of
    its disc: the pieces that hold a seed (else the nearest to the first), and the stray ones."""
    geom = tiles.clip(shapely.union_all([c.intersection(Point(s.x, s.y).buffer(lim, 32)) for s, c, lim in own]))
    if cut is not None:
        geom = geom.difference(cut)
    parts = polygons_of(geom)
    own_pts = shapely.points([(s.x, s.y) for s, _, _ in own])
    keep = [p for p in parts if bool((shapely.distance(p, own_pts) <= eps).any())]
    if not keep and parts:
        first = own[0][0]
        keep = [min(parts, key=lambda p: p.distance(Point(first.x, first.y)))]
    return keep, [p for p in parts if not any(p is k for k in keep)]


def _nested_shapes(b: MapFrame) -> dict[str, BaseGeometry]:
    """Nested places' circles; two that overlap (London and Deptford) split along their bisector."""
    keys = [k for k in sorted(b.nested) if k in b.points]
    # A nested place with shaping points is a chain of circles (London along its river front).
    extra: dict[str, list[Point]] = {}
    for s in b.hand_seeds:
        extra.setdefault(s.prov, []).append(Point(s.x, s.y))
    circles = {
        k: shapely.union_all([p.buffer(b.nested[k], 24) for p in [Point(*b.points[k]), *extra.get(k, [])]])
        for k in keys
    }
    if len(keys) > 1:
        cells = _voronoi([Seed(k, *b.points[k]) for k in keys], b.frame)
        circles = {k: circles[k].intersection(c) for k, c in zip(keys, cells, strict=True)}
    # A place on the shore keeps the water in front of it (a port's harbour, a city's river), so its circle
    # is cut to land; a small island or a rock stays a whole circle, to be seen and clicked.
    masses = polygons_of(b.land)
    for k in keys:
        here = Point(*b.points[k])
        mass = min(masses, key=lambda m: m.distance(here), default=None)
        if mass is None or mass.distance(here) > 0.5 * b.nested[k]:
            continue
        own = circles[k].intersection(mass)
        if mass.area > 4 * circles[k].area and own.area >= 0.4 * circles[k].area:
            # the piece on the place's own side of any water that crosses the circle (Deptford's bank)
            circles[k] = min(polygons_of(own), key=lambda q: (q.distance(here), -q.area))
        else:  # drawn over the water round it, but never over another island
            others = [m for m in masses if m is not mass and m.intersects(circles[k])]
            if others:
                circles[k] = circles[k].difference(shapely.union_all(others))
    return circles


def plain_shapes(b: MapFrame, seeds: list[Seed]) -> Shapes:
    land_tiles, water_tiles = b.surfaces
    land_board, water_board = land_tiles.whole, water_tiles.whole
    nested_geoms = _nested_shapes(b)
    cut = shapely.union_all(list(nested_geoms.values())) if nested_geoms else None
    land_seeds = [s for s in seeds if b.kinds.get(s.prov) != "sea" and s.prov not in b.nested]
    sea_seeds = [s for s in seeds if b.kinds.get(s.prov) == "sea" and s.prov not in b.nested]
    land_shapes, land_bg = _surface_shapes(land_seeds, land_board, b, cut, True, nested_geoms, land_tiles)
    sea_shapes, _ = _surface_shapes(sea_seeds, water_board, b, cut, False, tiles=water_tiles)
    provinces: dict[str, BaseGeometry] = {**sea_shapes}
    for k, g in land_shapes.items():
        provinces[k] = g.union(nested_geoms[k]).intersection(b.board) if k in nested_geoms else g
    for k, g in nested_geoms.items():
        provinces.setdefault(k, g.intersection(b.board))
    covered = shapely.union_all([g for k, g in provinces.items() if b.kinds.get(k) != "sea"])
    background = b.land.intersection(b.frame).difference(covered)
    background = background.union(land_bg) if not land_bg.is_empty else background
    return Shapes(provinces=provinces, background=background, seeds=seeds)


def outline_shapes(b: MapFrame, seeds: list[Seed]) -> Shapes:
    """Shapes of a map whose provinces have outlines (an imported picture's): each outlined province is
    its outline, less any smaller outline laid over it (an island drawn on a sea); provinces without one
    are grown round their seeds in what the outlines leave; a sliver left between outlines (under 25
    square units) goes to the province it shares most border with, larger gaps are drawn neutral."""
    order = sorted(b.outlines, key=lambda k: (b.outlines[k].area, k))
    provinces: dict[str, BaseGeometry] = {}
    placed: list[BaseGeometry] = []
    for k in order:
        geom = b.outlines[k].intersection(b.board)
        # only the smaller outlines that touch this one are taken from it (one growing union would be slow)
        over = [g for g in placed if g.intersects(geom)]
        own = geom.difference(shapely.union_all(over)) if over else geom
        provinces[k] = shapely.union_all(polygons_of(own)) if polygons_of(own) else Polygon()
        placed.append(geom)
    taken = shapely.union_all(placed) if placed else Polygon()
    rest = [s for s in seeds if s.prov not in b.outlines and s.prov not in b.nested]
    free = b.board.difference(taken)
    if rest:
        land_rest = [s for s in rest if b.kinds.get(s.prov) != "sea"]
        sea_rest = [s for s in rest if b.kinds.get(s.prov) == "sea"]
        grown, _ = _surface_shapes(land_rest, free.intersection(b.land), b, None, False)
        grown_sea, _ = _surface_shapes(sea_rest, free.difference(b.land), b, None, False)
        provinces.update({k: shapely.union_all(polygons_of(g)) for k, g in {**grown, **grown_sea}.items()})
        free = free.difference(shapely.union_all([g for g in [*grown.values(), *grown_sea.values()] if not g.is_empty]))
    eps = b.km_per_unit * 0.05
    background: list[Polygon] = []
    keys = sorted(k for k, g in provinces.items() if not g.is_empty)
    tree = shapely.STRtree([provinces[k] for k in keys])
    slivers: dict[str, list[Polygon]] = {}
    for piece in sorted(polygons_of(free), key=lambda p: (-p.area, p.bounds)):
        if piece.area > 25 * b.km_per_unit**2:
            background.append(piece)
            continue
        margin = _margin(piece, eps)
        near = [keys[int(i)] for i in tree.query(margin, predicate="intersects")]
        best = max(near, key=lambda k: (_shared(margin, provinces[k]), k), default=None)
        if best is None:
            background.append(piece)
        else:
            slivers.setdefault(best, []).append(piece)
    for k, pieces in slivers.items():  # one union per province
        provinces[k] = shapely.union_all([*polygons_of(provinces[k]), *pieces])
    return Shapes(
        provinces=provinces, background=shapely.union_all(background) if background else Polygon(), seeds=seeds
    )


# ------------------------------------------------------------------------------------------- output


def _to_units(b: MapFrame, geom: BaseGeometry) -> BaseGeometry:
    x0, _, _, y1 = b.frame.bounds
    k = 1.0 / b.km_per_unit

    def tf(c: np.ndarray) -> np.ndarray:
        return np.column_stack([(c[:, 0] - x0) * k, (y1 - c[:, 1]) * k])

    return shapely.transform(geom, tf)


def _r(v: float) -> float:
    return round(float(v), 1) + 0.0


def _pt(p: tuple[float, float] | Point) -> list[float]:
    if isinstance(p, Point):
        return [_r(p.x), _r(p.y)]
    return [_r(p[0]), _r(p[1])]


def path_d(geom: BaseGeometry) -> str:
    parts = []
    for poly in sorted(polygons_of(geom), key=lambda p: (-p.area, p.bounds)):
        for ring in [poly.exterior, *poly.interiors]:
            pts: list[tuple[float, float]] = []
            for x, y in ring.coords[:-1]:
                q = (_r(x), _r(y))
                if not pts or pts[-1] != q:
                    pts.append(q)
            if len(pts) > 1 and pts[0] == pts[-1]:
                pts.pop()
            if len(pts) < 3:
                continue
            parts.append(_relative_ring(pts))
    return "".join(parts)


def _relative_ring(pts: Sequence[tuple[float, float]]) -> str:
    """A closed ring as SVG path text: the first point absolute, then each as a step from the one before
    (``M12.5 40l3-1.2 0.4 2z``). The steps are short numbers: a W3K player's page, its map inline, is a fifth
    smaller and a third smaller compressed than with every point absolute."""
    x0, y0 = pts[0]
    out = [f"M{_fmt(x0)} {_fmt(y0)}l"]
    px, py = x0, y0
    for i, (x, y) in enumerate(pts[1:]):
        dx, dy = _fmt(_r(x - px)), _fmt(_r(y - py))
        out.append(dx if i == 0 or dx[0] == "-" else " " + dx)
        out.append(dy if dy[0] == "-" else " " + dy)
        px, py = x, y
    out.append("z")
    return "".join(out)


def _fmt(v: float) -> str:
    s = f"{v:.1f}"
    return s[:-2] if s.endswith(".0") else s


def _spots(shape: BaseGeometry, unit_r: float) -> dict[str, Any]:
    polys = polygons_of(shape)
    if not polys:
        return {"label": [0.0, 0.0], "label_size": 4.0, "unit": [0.0, 0.0], "dislodged": [0.0, 0.0], "sc": [0.0, 0.0]}
    main = max(polys, key=lambda p: p.area)
    centre = polylabel(main, tolerance=0.5)
    inner = float(main.exterior.distance(centre)) if main.interiors == [] else float(main.boundary.distance(centre))
    unit = centre
    # The label sits above the unit where there is room (else on it), the centre marker below-left,
    # the dislodged unit beside, each moved inside the shape when it would fall out.
    off = min(max(inner * 0.55, 4.0), unit_r * 1.6)
    label = _inside(main, Point(unit.x, unit.y - off), unit)
    sc = _inside(main, Point(unit.x - off * 0.8, unit.y + off * 0.8), unit)
    disl = _inside(main, Point(unit.x + off * 0.9, unit.y + off * 0.6), unit)
    room = float(main.boundary.distance(label))
    size = max(4.0, min(14.0, room * 0.95))
    return {"label": _pt(label), "label_size": _r(size), "unit": _pt(unit), "dislodged": _pt(disl), "sc": _pt(sc)}


def _route_d(line: Sequence[Point], frame: Polygon) -> str:
    """A connector's path through its waypoints, cut to the picture: legs off the board are not drawn (the
    Atlantic and the Mediterranean meet off the board at Gibraltar: two stubs leaving the board's edge,
    not a line over Spain)."""
    out: list[str] = []
    for a, c in pairwise(line):
        seen = LineString([a, c]).intersection(frame)
        for piece in getattr(seen, "geoms", [seen]):
            coords = list(piece.coords) if isinstance(piece, LineString) else []
            if len(coords) >= 2 and piece.length > 0:
                out.append("M" + "L".join(f"{_fmt(_r(x))} {_fmt(_r(y))}" for x, y in coords))
    return "".join(out)


def unit_radius_of(provinces: Mapping[str, Mapping[str, Any]], km_per_unit: float, size: tuple[float, float]) -> float:
    """The drawn unit radius (as the renderer works it out from the built provinces' areas)."""
    areas = [
        float(p["area_km2"]) for p in provinces.values() if p["kind"] != "sea" and not p["nested"] and p["area_km2"] > 0
    ]
    return unit_radius(areas, km_per_unit, *size)


APART_X = 2.55
APART_Y = 2.3
"""Two unit spots are surely clear of each other when this many unit radii apart across or up and down:
a fleet's hull is 2.4 radii wide, and a fleet's mast reaches 1.15 radii above its spot while an army's
disc reaches one radius below (with their outlines)."""


def _kinds_at(key: str, provinces: Mapping[str, Mapping[str, Any]]) -> tuple[str, ...]:
    if "/" in key:
        return ("F",)
    kind = provinces[key]["kind"]
    return ("F",) if kind == "sea" else ("A",) if kind == "land" else ("A", "F")


def _marks_touch(a: Point, ka: tuple[str, ...], b: Point, kb: tuple[str, ...], r: float) -> bool:
    """Whether units standing on two spots would be drawn over each other, for any kinds they may be: the
    marks as the map draws them, read back by the drawing's own audit."""
    import xml.etree.ElementTree as ET

    from dippouch.render.audit import marks_touch, unit_marks
    from dippouch.render.svg import _unit_svg

    def mark(kind: str, at: Point) -> Any:
        svg = _unit_svg(kind, (at.x, at.y), r, (0.5, 0.5, 0.5), "X")
        return unit_marks(ET.fromstring(svg.replace("<g ", '<g xmlns="http://www.w3.org/2000/svg" ', 1)))

    if abs(a.x - b.x) >= APART_X * r or abs(a.y - b.y) >= APART_Y * r:
        return False
    return any(marks_touch(mark(x, a), mark(y, b)) for x in ka for y in kb)


def _separate_units(
    provinces: dict[str, dict[str, Any]],
    coasts: dict[str, dict[str, Any]],
    shapes: Mapping[str, BaseGeometry],
    nested: Mapping[str, float],
    r: float,
    fixed: Iterable[str] = (),
) -> None:
    """Move unit spots of different provinces whose units would be drawn over each other (Stornoway's fleet
    on Lewis's east coast), for any kinds of unit they may hold: the county's spot (a split coast's along
    its shore), never the nested place's nor one the variant places itself (``fixed``), goes to the nearest
    spot in its shape clear of every other province's."""
    keep = set(fixed)

    def owner(k: str) -> str:
        return k.split("/")[0]

    def spots() -> dict[str, Point]:
        out = {k: Point(v["unit"]) for k, v in provinces.items() if not shapes.get(k, Polygon()).is_empty}
        out.update({k: Point(v["unit"]) for k, v in coasts.items()})
        return out

    for _ in range(3):
        at = spots()
        keys = sorted(at)
        moved = False
        for i, a in enumerate(keys):
            for c in keys[i + 1 :]:
                if owner(a) == owner(c) or not _marks_touch(
                    at[a], _kinds_at(a, provinces), at[c], _kinds_at(c, provinces), r
                ):
                    continue
                # The mover: not one the variant placed, not a nested place, else the larger shape.
                mover = max(
                    (a, c), key=lambda k: (owner(k) not in keep, owner(k) not in nested, shapes[owner(k)].area, k)
                )
                if owner(mover) in keep:
                    continue
                new = _clear_spot(mover, at, shapes[owner(mover)], r, owner)
                if new is not None:
                    (coasts if "/" in mover else provinces)[mover]["unit"] = _pt(new)
                    at[mover] = new
                    moved = True
        if not moved:
            break


def _clear_spot(key: str, at: Mapping[str, Point], shape: BaseGeometry, r: float, owner: Any) -> Point | None:
    """The nearest spot in ``shape`` at least ``APART_X`` radii across or ``APART_Y`` up and down from every
    other province's spot; failing that, the clearest one if it is clearer than where the spot is."""
    others = [p for k, p in at.items() if owner(k) != owner(key)]
    here = at[key]
    inner = shape.buffer(-0.6 * r)
    area = inner if not inner.is_empty else shape
    x0, y0, x1, y1 = area.bounds
    step = max(r / 3, (x1 - x0 + y1 - y0) / 400)
    xs = np.arange(x0, x1 + step, step)
    ys = np.arange(y0, y1 + step, step)
    cands = shapely.points(np.array([(x, y) for x in xs for y in ys]))
    cands = cands[shapely.contains(area, cands)]
    if "/" in key:  # a split coast's spot stays by its shore
        cands = cands[shapely.distance(cands, here) < 4 * r]
    if not len(cands):
        return None
    cx, cy = shapely.get_x(cands), shapely.get_y(cands)

    def sep(x: Any, y: Any, o: Point) -> Any:
        return np.maximum(np.abs(x - o.x) / (APART_X * r), np.abs(y - o.y) / (APART_Y * r))

    clear = np.min([sep(cx, cy, o) for o in others], axis=0) if others else np.full(len(cands), 1.0)
    ok = clear >= 1.0
    if ok.any():
        pool = cands[ok]
        return Point(pool[int(np.argmin(shapely.distance(pool, here)))])
    best = int(np.argmax(clear))
    now = min(float(sep(np.array(here.x), np.array(here.y), o)) for o in others)
    return Point(cands[best]) if clear[best] > now else None


def _inside(poly: Polygon, p: Point, fallback: Point) -> Point:
    if poly.contains(p):
        return p
    q = shapely.ops.nearest_points(poly.buffer(-1.0) if poly.buffer(-1.0).area > 0 else poly, p)[0]
    return q if poly.contains(q) else fallback


def _coast_spot(shape: BaseGeometry, seas: list[BaseGeometry], inward: float) -> Point | None:
    """A split coast's unit spot: on the province, by its shore with that coast's seas."""
    if not seas:
        return None
    sea = shapely.union_all(seas)
    shore = shape.boundary.intersection(sea.buffer(0.6))
    lines = [g for g in getattr(shore, "geoms", [shore]) if g.length > 0]
    if not lines:
        return None
    longest = max(lines, key=lambda g: g.length)
    mid = longest.interpolate(0.5, normalized=True)
    inner = shape.buffer(-inward)
    target = inner if not inner.is_empty else shape
    return shapely.ops.nearest_points(target, mid)[0]


def map_hash(variant: Variant, graph: BorderGraph | None = None) -> str:
    """SHA-256 of everything a variant's shapes are built from: provinces, points, borders, shaping keys,
    the [drawing] table, the coastline clip and the builder's version (cheap: no geometry is built, so a
    test can tell a stale geometry file for every variant)."""
    gm = variant.map
    graph = graph or border_graph(variant)
    doc = {
        "builder": BUILDER_VERSION,
        "clip": clip_hash(),
        "provinces": [
            [p.abbr, p.kind.value, p.point, p.supply_centre, [gm.locations[c].abbr for c in p.coasts]]
            for p in gm.provinces
        ],
        "land": sorted(graph.land),
        "sea": sorted(graph.sea),
        "shape": {k: v.get("shape") for k, v in sorted(variant.data.get("provinces", {}).items()) if "shape" in v},
        # Towns (centre markers) and sheets (the printed atlas) are read when the map is drawn: they shape
        # nothing, so they are left out.
        "drawing": {k: v for k, v in drawing_table(variant).items() if k not in ("towns", "sheets")},
        "sea_areas": variant.data.get("sea_areas", {}),
    }
    if clip_gap(variant) is not None:  # drawn from the world coastline (only then, so other maps keep their hash)
        doc["world"] = world_hash()
    return hashlib.sha256(json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def to_json(variant: Variant, b: MapFrame, shapes: Shapes) -> dict[str, Any]:
    gm = variant.map
    unit_r = 7.0
    provinces: dict[str, Any] = {}
    # Close zero-width slits (where two cells of one province meet along a line, the outline would go in
    # and out along it and be drawn as a stray line); borders with neighbours are unchanged.
    e = 0.15 * b.km_per_unit
    closed = {
        k: g if k in b.nested or g.is_empty else g.buffer(e, join_style="mitre").buffer(-e, join_style="mitre")
        for k, g in shapes.provinces.items()
    }
    units_geo = {k: _to_units(b, g) for k, g in closed.items()}
    size_u = _to_units(b, b.frame).bounds[2:]
    for p in sorted(gm.provinces, key=lambda p: p.abbr):
        g = units_geo.get(p.abbr, Polygon())
        spots = _spots(g, unit_r)
        kind = p.kind.value if p.kind.value != "impassable" else "land"
        provinces[p.abbr] = {
            "kind": kind,
            "d": path_d(g),
            "label": spots["label"],
            "label_size": spots["label_size"],
            "unit": spots["unit"],
            "dislodged": spots["dislodged"],
            "sc": spots["sc"] if p.supply_centre else None,
            "nested": p.abbr in b.nested,
            "area_km2": round(float(shapes.provinces.get(p.abbr, Polygon()).area), 0),
        }
    coasts: dict[str, Any] = {}
    for p in gm.provinces:
        for cid in p.coasts:
            loc = gm.locations[cid]
            seas = [units_geo[q] for q in coast_seas(variant, cid) if q in units_geo]
            spot = _coast_spot(units_geo.get(p.abbr, Polygon()), seas, unit_r * 0.8)
            if spot is None:
                spot = Point(*provinces[p.abbr]["unit"])
            coasts[loc.abbr] = {"unit": _pt(spot)}
    connectors = []
    for a, c in sorted(b.graph.connectors):
        if a in units_geo and c in units_geo:
            via = [_to_units(b, Point(x, y)) for x, y in b.routes.get((a, c), [])]
            if via:  # drawn through its waypoints, from the nearest point of each end (round the land between)
                pa = shapely.ops.nearest_points(units_geo[a], via[0])[0]
                pc = shapely.ops.nearest_points(units_geo[c], via[-1])[0]
            else:
                pa, pc = shapely.ops.nearest_points(units_geo[a], units_geo[c])
            d = (
                _route_d([pa, *via, pc], _to_units(b, b.frame))
                if via
                else f"M{_fmt(_r(pa.x))} {_fmt(_r(pa.y))}L{_fmt(_r(pc.x))} {_fmt(_r(pc.y))}"  # shapes that touch: a dot
            )
            connectors.append({"a": a, "b": c, "d": d})
    # Unit spots the variant places itself (``[drawing] unit_spots``, longitude and latitude): a place too
    # small for a unit beside a neighbour as small (London and Deptford, 5 km apart where a unit is 17 km
    # across) has its unit stand beside it, with a leader line from the unit to its spot inside the place.
    given = drawing_table(variant).get("unit_spots", {})
    for k, lonlat in sorted(given.items()):
        if k not in provinces:
            continue
        x, y = b.proj.point(float(lonlat[0]), float(lonlat[1]))
        spot = _to_units(b, Point(x, y))
        home = Point(provinces[k]["unit"])
        provinces[k]["unit"] = _pt(spot)
        if not units_geo.get(k, Polygon()).contains(spot):
            provinces[k]["unit_leader"] = _pt(home)
    _separate_units(
        provinces,
        coasts,
        units_geo,
        b.nested,
        unit_radius_of(provinces, b.km_per_unit, (size_u[0], size_u[1])),
        fixed=[k for k in given if k in provinces],
    )
    sea_areas: dict[str, Any] = {}
    raw = variant.data.get("provinces", {})
    for key, area in sorted(variant.data.get("sea_areas", {}).items()):
        members = [
            units_geo[a]
            for a, pd in raw.items()
            if isinstance(pd, Mapping) and pd.get("area") == key and a in units_geo
        ]
        if not members:
            continue
        outline = shapely.union_all([m.buffer(0.05) for m in members]).buffer(-0.05)
        main = max(polygons_of(outline), key=lambda q: q.area)
        sea_areas[key] = {"name": str(area.get("name", key)), "d": path_d(outline), "label": _pt(polylabel(main, 0.5))}
    frame_u = _to_units(b, b.frame)
    width, height = frame_u.bounds[2], frame_u.bounds[3]
    return {
        "format": FORMAT,
        "version": VERSION,
        "variant": variant.name,
        "map_hash": map_hash(variant, b.graph),
        "width": _r(width),
        "height": _r(height),
        "km_per_unit": round(b.km_per_unit, 4),
        **(
            {}
            if b.laid_out
            else {
                "projection": {
                    "name": "laea",
                    "lon0": b.proj.lon0,
                    "lat0": b.proj.lat0,
                    "x0": round(b.frame.bounds[0], 3),
                    "y0": round(b.frame.bounds[3], 3),
                    "scale": round(1.0 / b.km_per_unit, 6),
                }
            }
        ),
        "background": {
            "land": path_d(_to_units(b, shapes.background)),
            **({"offboard": path_d(_to_units(b, b.offboard))} if not b.offboard.is_empty else {}),
        },
        "provinces": provinces,
        "coasts": coasts,
        "connectors": connectors,
        "sea_areas": sea_areas,
    }


def dumps(doc: Mapping[str, Any]) -> str:
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"
