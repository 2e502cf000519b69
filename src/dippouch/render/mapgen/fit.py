"""The fitting step: add shaping seeds until the drawn borders equal the border graph.

Plain Voronoi cells of the province points draw borders that do not exist and miss borders that do (where
four cells meet, the diagonal that touches is a matter of a few kilometres). Each round measures the
shapes (checks.measure) and, for every mismatch, adds seeds on the right surface:

- two declared neighbours drawn apart: a seed of each on the segment between their nearest points, a
  quarter of the way from each end, so their cells meet across the gap (land seeds on land, sea seeds at
  sea); a gap that is mostly water is left alone (it needs a declared connector);
- two land shapes touching with no border: seeds of their common neighbour nearest the shared border,
  spread along it, so that neighbour comes between them;
- a coast with no shore, or a sea not reaching a coast it borders: a seed of the coast just inland of the
  nearest shore of that sea, and a seed of the sea just off that shore;
- an inland province with shore: seeds of the nearest coastal neighbour just inland along that shore.

Rounds stop when nothing is left to fix or after ``MAX_ROUNDS``; the round with the fewest mismatches is
kept. Everything is deterministic: mismatches are handled in sorted order and seeds are rounded to metres.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import shapely
from shapely.errors import GEOSException
from shapely.geometry import LineString, MultiPolygon, Point, Polygon
from shapely.geometry.base import BaseGeometry

from dippouch.render.mapgen.build import MapFrame, Seed, Shapes, plain_shapes
from dippouch.render.mapgen.checks import GeoReport, Measured, measure, thresholds
from dippouch.render.mapgen.coastline import polygons_of

MAX_ROUNDS = 18
MAX_TRIES = 8


def evaluate(b: MapFrame, shapes: Shapes, measured: Measured | None = None) -> GeoReport:
    return measure(
        shapes.provinces,
        b.graph,
        b.km_per_unit,
        shapes.background.union(b.offboard),
        b.points,
        b.frame,
        unit_scale=1.0,
        measured=measured,
    )


#: Rounds without a better drawing after which a board laid out from its borders stops fitting: on such
#: boards (MILA's Colonial, Empire) the count stops falling after four or five rounds and the other dozen
#: rounds only took time (Colonial: best at round 4 of 18).
LAID_OUT_PATIENCE = 3

#: The largest a province of a laid-out board may grow by the clean-up, in median provinces: under
#: mapcheck's limit of 6 (``dippouch.mapcheck.SPREAD_LIMIT``), so a board that was even stays readable.
GIANT_AREA = 4.5
#: A fitting round of a laid-out board with a province over this many median provinces ranks after every
#: round without one: near mapcheck's limit, not at GIANT_AREA (at 4.5 every fitted round of MILA's World
#: ranked after the plain drawing, which has 512 wrong borders against the best round's 289).
GIANT_ROUND = 5.5


def fit_seeds(
    b: MapFrame,
    seeds: list[Seed],
    rounds: int = MAX_ROUNDS,
    log: Callable[[str], None] | None = None,
    patience: int | None = None,
) -> Shapes:
    """The shapes with the fewest mismatches found in up to ``rounds`` rounds; with ``patience``, stop after
    that many rounds in a row that found none better (default: ``LAID_OUT_PATIENCE`` on a laid-out board,
    else every round is run, as the committed maps were built)."""
    if patience is None and b.laid_out:
        patience = LAID_OUT_PATIENCE
    shapes = plain_shapes(b, seeds)
    measured = Measured()  # most shapes come out of a round as they went in: each is measured once
    rep = evaluate(b, shapes, measured)
    if log:
        log(f"round 0: {rep.mismatches} {rep.counts()}")
    # On a laid-out board a round whose areas stay within GIANT_ROUND of the median beats one that does
    # not, whatever their counts: a wrong border reads as a wrong border, a giant makes the board unreadable.
    rank = _ranker(b)
    best = (rank(rep.mismatches, shapes), shapes)
    tries: dict[tuple[str, ...], int] = {}
    home = _on_home_ground(b)
    stale = 0
    for _ in range(rounds):
        if rep.mismatches == 0 or (patience is not None and stale >= patience):
            break
        new = [s for s in _fixes(b, shapes, rep, tries) if home(s)]
        if not new:
            break
        seeds = seeds + new
        shapes = plain_shapes(b, seeds)
        rep = evaluate(b, shapes, measured)
        if log:
            log(f"round {_ + 1}: {rep.mismatches} {rep.counts()} (+{len(new)} seeds)")
        if rank(rep.mismatches, shapes) < best[0]:
            best = (rank(rep.mismatches, shapes), shapes)
            stale = 0
        else:
            stale += 1
    # Clean-up: thin strips (corridors the fitting step cut between existing cells) go to the neighbour
    # they share most border with, if that does not cost a mismatch.
    cleaned = _without_strips(b, best[1])
    if cleaned is not None:
        rep = evaluate(b, cleaned, measured)
        if log:
            log(f"without thin strips: {rep.mismatches} {rep.counts()}")
        if rank(rep.mismatches, cleaned) <= best[0]:
            return cleaned
    return best[1]


def _ranker(b: MapFrame) -> Callable[[int, Shapes], tuple[bool, int]]:
    """How a round's drawing ranks (lower is better): on a laid-out board, first whether a province is
    over GIANT_ROUND times the median's area, then the count of wrong borders; elsewhere the count alone."""

    def rank(mismatches: int, shapes: Shapes) -> tuple[bool, int]:
        if not b.laid_out:
            return (False, mismatches)
        areas = sorted(g.area for k, g in shapes.provinces.items() if k not in b.nested and not g.is_empty)
        return (bool(areas) and areas[-1] > GIANT_ROUND * areas[len(areas) // 2], mismatches)

    return rank


def polygonal(g: BaseGeometry) -> BaseGeometry:
    """A shape's area alone. An overlay that leaves a line or a point beside the area gives a
    GeometryCollection, whose ``boundary`` is ``None`` in shapely 2: the border measures below would fail on it
    (imported maps drawn without a picture ended in ``'NoneType' object has no attribute 'intersection'``)."""
    if g.geom_type in ("Polygon", "MultiPolygon"):
        return g
    parts = polygons_of(g)
    if not parts:
        return Polygon()
    return parts[0] if len(parts) == 1 else MultiPolygon(parts)


def _without_strips(b: MapFrame, shapes: Shapes) -> Shapes | None:
    """Thin strips (corridors the fitting step cut between existing cells) and inland exclaves given to
    the neighbour they share most border with, one at a time, each only if the borders round it do not
    get worse."""
    w = 2.2 * b.km_per_unit
    need_km, touch_km, _ = thresholds(b.km_per_unit)
    eps = 0.05 * b.km_per_unit
    geo = {k: polygonal(g) for k, g in shapes.provinces.items()}
    coast = b.land.boundary
    declared = b.graph.land | b.graph.connectors
    land_kinds = ("land", "coast")

    # Each piece weighs the borders of the provinces round it twice, against every other province, and the
    # next piece weighs most of them again: each province's shape has a version, and a border's length and a
    # shape's margin are measured once per version of the shapes they come from (a 120-province board: 246,480
    # borders weighed, 79,415 of them distinct; 88,426 margins made of 925 distinct shapes).
    version = dict.fromkeys(geo, 0)
    versions = itertools.count(1)
    margins: dict[tuple[str, int], BaseGeometry] = {}
    lengths: dict[tuple[str, int, str, int], float] = {}

    def shared(x: str, y: str) -> float:
        key = (x, version[x], y, version[y])
        found = lengths.get(key)
        if found is not None:
            return found
        gx, gy = geo[x], geo[y]
        if gx.is_empty or gy.is_empty or not gx.envelope.intersects(gy.envelope):
            length = 0.0
        else:
            margin = margins.get((y, version[y]))
            if margin is None:
                margin = margins[(y, version[y])] = gy.buffer(eps, quad_segs=1)
            length = float(gx.boundary.intersection(margin).length)
        lengths[key] = length
        return length

    def badness(names: set[str]) -> tuple[int, float]:
        """(failing pairs, km by which they fail) among the borders of ``names``."""
        count, km = 0, 0.0
        for x in sorted(names):
            for y in sorted(geo):
                if y == x or b.kinds.get(y) not in land_kinds or b.kinds.get(x) not in land_kinds:
                    continue
                pair = (x, y) if x < y else (y, x)
                s = shared(x, y)
                if pair in b.graph.land and s < need_km:
                    count, km = count + 1, km + need_km - s
                if pair not in declared and s > touch_km:
                    count, km = count + 1, km + s - touch_km
        return count, round(km, 3)

    # On a board laid out from its borders a piece goes to no neighbour it would make larger than
    # GIANT_AREA times the median province: given whole to the neighbour sharing most border, the strips and
    # exclaves of a crowded corner made one rim province of MILA's Empire 8 times the median (the board's
    # cells are even before this step; a giant is what makes such a board unreadable).
    areas = sorted(g.area for k, g in geo.items() if k not in b.nested and not g.is_empty)
    cap = GIANT_AREA * areas[len(areas) // 2] if b.laid_out and areas else math.inf
    changed = False
    for k in sorted(geo):
        if b.kinds.get(k) not in land_kinds or k in b.nested or geo[k].is_empty:
            continue
        g = geo[k]
        try:
            core = g.buffer(-w, quad_segs=2).buffer(w, quad_segs=2).intersection(g)
            thin = [p for p in polygons_of(g.difference(core)) if p.area > 6 * w * w]
        except GEOSException:
            continue  # GEOS could not node this shape's outline against its core: leave it as fitted
        # and exclaves: pieces away from the province's own point (left by added seeds)
        home = Point(b.points[k]) if k in b.points else None
        parts = polygons_of(g)
        if home is not None and len(parts) > 1:
            thin += [p for p in parts if p.distance(home) > eps and not any(p.intersects(t) for t in thin)]
        for piece in sorted(thin, key=lambda p: (-p.area, p.bounds)):
            fat = piece.buffer(eps, quad_segs=1)
            if coast.intersects(fat):
                continue  # shore stays where it is: a coast's way to its sea
            near = [
                (float(geo[o].boundary.intersection(fat).length), o)
                for o in sorted(geo)
                if o != k and b.kinds.get(o) in land_kinds and o not in b.nested and geo[o].intersects(fat)
            ]
            near = [t for t in near if t[0] > 0]
            room = [t for t in near if geo[t[1]].area + piece.area <= cap]
            if not room:
                continue
            _, o = max(room)
            before = (geo[k], geo[o], version[k], version[o])
            touched = {k, o} | {t[1] for t in near}
            was = badness(touched)
            try:
                geo[o] = polygonal(geo[o].union(piece))
                version[o] = next(versions)
                geo[k] = polygonal(geo[k].difference(piece))
                version[k] = next(versions)
                worse = badness(touched) > was
            except GEOSException:
                worse = True  # an overlay GEOS cannot node: keep the shapes as they were
            if worse:
                geo[k], geo[o], version[k], version[o] = before
                continue
            changed = True
    if not changed:
        return None
    return Shapes(provinces=geo, background=shapes.background, seeds=shapes.seeds)


def _on_home_ground(b: MapFrame) -> Callable[[Seed], bool]:
    """A land seed only on its province's own landmass (a county never gets an exclave on an island
    across the water); a sea seed only at sea."""
    masses = polygons_of(b.land)
    tree = shapely.STRtree(masses)

    def mass_of(x: float, y: float) -> int:
        hit = tree.query(Point(x, y), predicate="intersects")
        return int(hit[0]) if len(hit) else -1

    home = {k: mass_of(*p) for k, p in b.points.items() if b.kinds.get(k) != "sea"}

    def ok(s: Seed) -> bool:
        m = mass_of(s.x, s.y)
        if b.kinds.get(s.prov) == "sea":
            return m == -1
        return m == home.get(s.prov, m) and m != -1

    return ok


def _s(prov: str, p: tuple[float, float]) -> Seed:
    return Seed(prov, round(p[0], 3), round(p[1], 3), auto=True)


def _lerp(p: Point, q: Point, t: float) -> tuple[float, float]:
    return (p.x + (q.x - p.x) * t, p.y + (q.y - p.y) * t)


def _try(tries: dict[tuple[str, ...], int], key: tuple[str, ...]) -> bool:
    n = tries.get(key, 0)
    if n >= MAX_TRIES:
        return False
    tries[key] = n + 1
    return True


def _fixes(b: MapFrame, shapes: Shapes, rep: GeoReport, tries: dict[tuple[str, ...], int]) -> list[Seed]:
    geo = shapes.provinces
    kinds = b.kinds
    need_km, _, _ = thresholds(b.km_per_unit)
    step = max(need_km, 2.5 * b.km_per_unit)
    land = b.land
    out: list[Seed] = []
    neighbours: dict[str, set[str]] = {}
    for x, y in b.graph.land:
        neighbours.setdefault(x, set()).add(y)
        neighbours.setdefault(y, set()).add(x)
    sea_nb: dict[str, set[str]] = {}
    for x, y in b.graph.sea:
        sea_nb.setdefault(x, set()).add(y)
        sea_nb.setdefault(y, set()).add(x)

    def shape(k: str) -> BaseGeometry | None:
        g = geo.get(k)
        return None if g is None or g.is_empty else g

    # Declared borders drawn apart (land, and sea-sea).
    for a, c, _len in rep.land_apart + [t for t in rep.sea_apart if kinds[t[0]] == kinds[t[1]] == "sea"]:
        if a in b.nested or c in b.nested:
            out += _reach_nested(b, a, c, shape, tries)
            continue
        ga, gc = shape(a), shape(c)
        if ga is None or gc is None or not _try(tries, ("apart", a, c)):
            continue
        pa, pc = shapely.ops.nearest_points(ga, gc)
        seg = LineString([pa, pc])
        if kinds[a] != "sea" and seg.length > step and seg.intersection(land).length < 0.5 * seg.length:
            continue  # across water: a declared connector's business
        if seg.length < 1e-6:
            # They touch at a point: push both across it, perpendicular to nothing in particular.
            out += [_s(a, (pa.x, pa.y)), _s(c, (pc.x, pc.y))]
            continue
        if kinds[a] == "sea":
            out += _water_pair(b, a, c, pa, pc)
            continue
        out.append(_s(a, _lerp(pa, pc, 0.25)))
        out.append(_s(c, _lerp(pa, pc, 0.75)))
    # Land shapes touching with no border: a common neighbour comes between them.
    for a, c, _len in rep.land_touching:
        ga, gc = shape(a), shape(c)
        if ga is None or gc is None or not _try(tries, ("touch", a, c)):
            continue
        border = ga.boundary.intersection(gc.buffer(b.km_per_unit * 0.05, quad_segs=1))
        if border.is_empty:
            continue
        mid = border.interpolate(0.5, normalized=True) if hasattr(border, "interpolate") else border.centroid
        common = sorted((neighbours.get(a, set()) & neighbours.get(c, set())) - set(b.nested))
        pool = common or sorted((neighbours.get(a, set()) | neighbours.get(c, set())) - {a, c} - set(b.nested))
        pool = [k for k in pool if shape(k) is not None and kinds[k] != "sea"]
        if not pool:
            continue
        third = min(pool, key=lambda k: (shape(k).distance(mid), k))  # type: ignore[union-attr]
        n = max(1, min(8, math.ceil(border.length / (4 * step))))
        for i in range(n):
            p = _along(border, (i + 0.5) / n)
            out.append(_s(third, (p.x, p.y)))
        g3 = shape(third)
        if g3 is not None and g3.distance(mid) > step:
            # Far from the border: a chain of seeds so the new piece stays joined to its province.
            q = shapely.ops.nearest_points(g3, mid)[0]
            k = min(6, math.ceil(g3.distance(mid) / (2 * step)))
            for i in range(1, k):
                out.append(_s(third, _lerp(q, mid, i / k)))
    # Coasts and their seas: make the sea reach the coast and the coast reach the sea.
    for a, c, _len in [t for t in rep.sea_apart if (kinds[t[0]] == "sea") != (kinds[t[1]] == "sea")]:
        sea, coast = (a, c) if kinds[a] == "sea" else (c, a)
        if coast in b.nested:
            out += _reach_nested(b, coast, sea, shape, tries)
            continue
        gs, gc = shape(sea), shape(coast)
        if gs is None or gc is None or not _try(tries, ("shore", sea, coast)):
            continue
        out += _meet_shore(b, sea, coast, gs, gc, step)
    for coast, _len in rep.coast_no_shore:
        gc = shape(coast)
        if gc is None or coast in b.nested or not _try(tries, ("noshore", coast)):
            continue
        seas = [
            g for g in (shape(s) for s in sorted(sea_nb.get(coast, set())) if kinds.get(s) == "sea") if g is not None
        ]
        if not seas:
            continue
        target = min(seas, key=lambda s: s.distance(gc))
        out += _meet_shore(b, None, coast, target, gc, step)
    # Inland provinces with shore: the nearest coastal neighbour takes the shore.
    for prov, _len in rep.inland_shore:
        g = shape(prov)
        if g is None or not _try(tries, ("inland", prov)):
            continue
        shore = g.boundary.intersection(b.near_water)
        pieces = [p for p in getattr(shore, "geoms", [shore]) if p.length > 0]
        cands = [k for k in sorted(neighbours.get(prov, set())) if kinds.get(k) == "coast" and shape(k) is not None]
        if not cands:
            cands = [k for k in sorted(geo) if kinds.get(k) == "coast" and shape(k) is not None]
        for piece in sorted(pieces, key=lambda p: -p.length)[:6]:
            mid = piece.interpolate(0.5, normalized=True)
            owner = min(cands, key=lambda k: (shape(k).distance(mid), k))  # type: ignore[union-attr]
            n = max(1, min(8, math.ceil(piece.length / (3 * step))))
            for i in range(n):
                p = _along(piece, (i + 0.5) / n)
                q = _inland(g, p, step * 0.6)
                out.append(_s(owner, (q.x, q.y)))
    return out


def _reach_nested(
    b: MapFrame, a: str, c: str, shape: Callable[[str], BaseGeometry | None], tries: dict[tuple[str, ...], int]
) -> list[Seed]:
    """A nested place's circle stays where it is: its neighbour grows to it, with a seed just outside the
    circle on the side facing the neighbour."""
    nested, other = (a, c) if a in b.nested else (c, a)
    if other in b.nested or nested not in b.points:
        return []
    go = shape(other)
    if go is None or not _try(tries, ("nested", nested, other)):
        return []
    centre = Point(b.points[nested])
    r = b.nested[nested]
    q = shapely.ops.nearest_points(go, centre)[0]
    d = q.distance(centre)
    if d < 1e-6:
        return []
    t = (r * 1.3) / d
    return [_s(other, (centre.x + (q.x - centre.x) * t, centre.y + (q.y - centre.y) * t))]


def _water_pair(b: MapFrame, a: str, c: str, pa: Point, pc: Point) -> list[Seed]:
    """Seeds of two seas drawn apart, at sea: on the segment between their nearest points where it is
    water, else on the segment between their own points (round a cape the shapes' nearest points may
    face each other across land)."""
    for p, q in ((pa, pc), (Point(b.points[a]), Point(b.points[c]))):
        ta = next((t for t in (0.25, 0.35, 0.15, 0.45) if not b.land.contains(Point(_lerp(p, q, t)))), None)
        tc = next((t for t in (0.75, 0.65, 0.85, 0.55) if not b.land.contains(Point(_lerp(p, q, t)))), None)
        if ta is not None and tc is not None:
            return [_s(a, _lerp(p, q, ta)), _s(c, _lerp(p, q, tc))]
    return []


def _along(line: BaseGeometry, t: float) -> Point:
    parts = [g for g in getattr(line, "geoms", [line]) if g.length > 0]
    total = sum(g.length for g in parts)
    d = t * total
    for g in parts:
        if d <= g.length:
            return g.interpolate(d)
        d -= g.length
    return parts[-1].interpolate(1.0, normalized=True) if parts else Point(0, 0)


def _inland(g: BaseGeometry, p: Point, dist: float) -> Point:
    inner = g.buffer(-dist)
    if inner.is_empty:
        return shapely.ops.nearest_points(g.representative_point(), p)[0]
    return shapely.ops.nearest_points(inner, p)[0]


def _meet_shore(
    b: MapFrame, sea: str | None, coast: str, gs: BaseGeometry, gc: BaseGeometry, step: float
) -> list[Seed]:
    """Seeds so that ``coast`` and the sea shape ``gs`` share a shore: the point of the coastline nearest
    both; the coast gets a seed just inland of it, the sea (if named) one just off it."""
    coastline = b.land.boundary
    gap = gc.distance(gs)
    near = coastline.intersection(gc.buffer(gap + 2 * step, quad_segs=2))
    coords = shapely.get_coordinates(near)
    if len(coords) == 0:
        return []
    pts = shapely.points(coords)
    # The shore point: on the real coastline by the coast's own shape, as near as may be to the sea.
    cost = shapely.distance(pts, gc) * 2.0 + shapely.distance(pts, gs)
    best = int(cost.argmin())
    shore = Point(coords[best])
    out = []
    land_pt = _nudge(shore, b.land, step * 0.5, inside=True)
    if gc.distance(shore) > step * 0.25:
        out.append(_s(coast, (land_pt.x, land_pt.y)))
    if sea is not None:
        sea_pt = _nudge(shore, b.land, step * 0.5, inside=False)
        out.append(_s(sea, (sea_pt.x, sea_pt.y)))
    return out


def _nudge(p: Point, land: BaseGeometry, dist: float, *, inside: bool) -> Point:
    """A point about ``dist`` from ``p`` on land (inside) or at sea."""
    best = None
    for i in range(16):
        ang = i * math.pi / 8
        q = Point(p.x + dist * math.cos(ang), p.y + dist * math.sin(ang))
        if land.contains(q) == inside:
            depth = land.boundary.distance(q)
            if best is None or depth > best[0]:
                best = (depth, q)
    return best[1] if best else p
