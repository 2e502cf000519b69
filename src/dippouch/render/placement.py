"""Where a map's names, centre markers and dislodged units go: each inside its own province, or beside it
with a leader line into it, never over another name.

A rule of thumb ("above the unit, else just outside") put names into the neighbour's province with nothing
saying whose they were. Here every spot is searched, and checked as it is taken:

- **centre markers** go to their town (``[drawing.towns]``, else the province's own point, both longitude
  and latitude projected as the builder did), moved to the nearest spot inside the province where a unit
  standing there leaves the marker visible; a place too small for both (W3K's castles and cities, smaller
  than a unit) gets its marker just outside with a leader line to it;
- **names** are placed smallest province first: every row of the province's outline is cut into the
  stretches inside it, a window of rows as tall as the name gives where a name of that width fits, and the
  roomiest spot near the middle that is clear of units, markers and other names (with a third of a letter
  of air, so two names never read as one word) is taken. Full names first where they fit at a readable
  size, then the abbreviation, then (every province tried first) the abbreviation at the smallest size up to
  the outline; a province too small for any gets its abbreviation beside it, off other provinces' land (where
  it would read as theirs: the audit counts it) where there is room, preferably over the sea, with a leader
  line ending inside it;
- **dislodged spots** beside their province's unit, clear of the other unit spots;
- **leader lines** run clear of every other province's unit (and the disc drawn round a unit in a castle or
  city) and of every other name, and a place whose unit stands beside it is pointed at a spot inside it that
  no neighbour's unit covers (:func:`anchors`): W3K's Deptford lies so close to London that the middle of
  it is under London's unit whenever London is held, and three lines (its name's, its centre's, its unit's)
  ended there, hidden.

The result is checked again on the finished picture by :mod:`dippouch.render.audit`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from dippouch.render.geometry import Geometry, ProvinceShape, path_rings
from dippouch.render.text import LABEL_DOWN, LABEL_UP, text_width

__all__ = [
    "PLACE_RING",
    "READABLE_PX",
    "Boxes",
    "Label",
    "Marker",
    "Outline",
    "Placement",
    "anchors",
    "place",
    "ring_drawn",
]

PLACE_RING = 1.5
"""The radius of the disc drawn round a unit standing in a castle or city, in unit radii: wider than a
fleet's hull (1.2 radii and its outline), so the place shows round the unit at full size."""

Point = tuple[float, float]
Box = tuple[float, float, float, float]
Span = tuple[float, float]


class Boxes:
    """Axis-aligned boxes in a coarse grid, to ask quickly whether a new box would overlap one placed."""

    def __init__(self, cell: float) -> None:
        self.cell = cell
        self.grid: dict[tuple[int, int], list[Box]] = {}

    def _cells(self, b: Box) -> Iterable[tuple[int, int]]:
        c = self.cell
        for i in range(int(b[0] // c), int(b[2] // c) + 1):
            for j in range(int(b[1] // c), int(b[3] // c) + 1):
                yield (i, j)

    def hits(self, b: Box) -> bool:
        c = self.cell
        grid = self.grid
        j0, j1 = int(b[1] // c), int(b[3] // c) + 1
        for i in range(int(b[0] // c), int(b[2] // c) + 1):
            for j in range(j0, j1):
                for o in grid.get((i, j), ()):
                    if b[0] < o[2] and o[0] < b[2] and b[1] < o[3] and o[1] < b[3]:
                        return True
        return False

    def add(self, b: Box) -> None:
        for cell in self._cells(b):
            self.grid.setdefault(cell, []).append(b)

    def within(self, b: Box) -> set[Point]:
        """The points (boxes added as points) in the cells ``b`` covers."""
        return {(o[0], o[1]) for cell in self._cells(b) for o in self.grid.get(cell, ())}


class Outline:
    """A province's outline (the rings of its path), asked where it is inside: the inside stretches of a
    horizontal line (even-odd rule, so a hole cut for a nested place is outside)."""

    __slots__ = ("bands", "box", "step")

    _BANDS = 32

    def __init__(self, d: str) -> None:
        rings = path_rings(d)
        edges: list[tuple[float, float, float, float]] = []
        xs: list[float] = []
        ys: list[float] = []
        for rg in rings:
            for i, (x0, y0) in enumerate(rg):
                x1, y1 = rg[(i + 1) % len(rg)]
                if y0 != y1:
                    edges.append((x0, y0, x1, y1))
                xs.append(x0)
                ys.append(y0)
        self.box = (min(xs), min(ys), max(xs), max(ys)) if xs else (0.0, 0.0, 0.0, 0.0)
        # Edges sorted into horizontal bands, so a line through the shape looks at a few edges, not all.
        self.step = max((self.box[3] - self.box[1]) / self._BANDS, 1e-9)
        self.bands: list[list[tuple[float, float, float, float]]] = [[] for _ in range(self._BANDS)]
        for e in edges:
            lo, hi = self._band(min(e[1], e[3])), self._band(max(e[1], e[3]))
            for k in range(lo, hi + 1):
                self.bands[k].append(e)

    def _band(self, y: float) -> int:
        return min(max(int((y - self.box[1]) / self.step), 0), self._BANDS - 1)

    def spans(self, y: float) -> list[Span]:
        """Every inside stretch of the horizontal line at ``y``, left to right."""
        box = self.box
        if not box[1] <= y <= box[3]:
            return []
        k = int((y - box[1]) / self.step)
        band = self.bands[k if k < self._BANDS else self._BANDS - 1]
        cuts = sorted([x0 + (y - y0) * (x1 - x0) / (y1 - y0) for x0, y0, x1, y1 in band if (y0 <= y) != (y1 <= y)])
        return [(cuts[i], cuts[i + 1]) for i in range(0, len(cuts) - 1, 2)]

    def span(self, x: float, y: float) -> Span | None:
        """The inside stretch of the horizontal line through (x, y) that holds x."""
        for lo, hi in self.spans(y):
            if lo <= x <= hi:
                return (lo, hi)
        return None

    def inside(self, pt: Point) -> bool:
        return self.span(pt[0], pt[1]) is not None

    def holds(self, b: Box, rows: int = 3) -> bool:
        """Whether the box lies inside (its middle column's stretches at ``rows`` heights cover it)."""
        cx = (b[0] + b[2]) / 2
        for k in range(rows):
            y = b[1] + (b[3] - b[1]) * k / max(rows - 1, 1)
            sp = self.span(cx, y)
            if sp is None or sp[0] > b[0] or sp[1] < b[2]:
                return False
        return True

    def reach(self, start: Point, direction: Point, limit: float, step: float) -> float:
        """How far from ``start`` the line in ``direction`` stays inside (0 when ``start`` is outside)."""
        d = 0.0
        while d + step <= limit and self.inside(
            (start[0] + direction[0] * (d + step), start[1] + direction[1] * (d + step))
        ):
            d += step
        return d if self.inside(start) else 0.0


@dataclass(frozen=True, slots=True)
class Label:
    abbr: str
    text: str
    size: float
    x: float
    mid: float
    """The middle of the text's height (the baseline is ``BASELINE`` sizes below)."""
    leader: tuple[Point, Point] | None = None
    """From beside the name to a point inside its province, when the name stands outside it."""


@dataclass(frozen=True, slots=True)
class Marker:
    at: Point
    leader: tuple[Point, Point] | None = None
    """From the marker to the town inside its province, when the marker stands outside it."""


@dataclass(frozen=True, slots=True)
class Placement:
    labels: Sequence[Label]
    sc: Mapping[str, Marker]
    dislodged: Mapping[str, Point]
    anchors: Mapping[str, Point]
    """Where the leader lines of a place whose unit stands beside it end (:func:`anchors`)."""


def ring_drawn(p: ProvinceShape, r: float) -> bool:
    """Whether a unit standing in ``p`` has the place's disc drawn round it (a castle or city smaller than
    the disc; a larger one shows round the unit by itself)."""
    if not p.nested:
        return False
    pts = [q for ring in path_rings(p.d) for q in ring]
    if not pts:
        return False
    half = min(max(q[0] for q in pts) - min(q[0] for q in pts), max(q[1] for q in pts) - min(q[1] for q in pts)) / 2
    return half < r * PLACE_RING


def _cover_reach(p: ProvinceShape, r: float) -> float:
    """How far from its spot a unit standing in ``p`` covers the map: its place's disc and outline, else the
    fleet's hull, the widest mark (1.28 radii with its outline)."""
    return r * (PLACE_RING + 0.09) if ring_drawn(p, r) else r * 1.3


def anchors(geo: Geometry, r: float) -> dict[str, Point]:
    """For each place whose unit stands beside it (``unit_leader``): the point inside it where its leader
    lines end. The builder's spot where no other province's unit (or the disc round it) comes near it or
    near the line from the unit to it; else the spot inside that keeps the line's end, its dot and the
    unit's line to it furthest from them all, so they show whatever stands next door."""
    out: dict[str, Point] = {}
    for abbr, p in geo.provinces.items():
        if p.unit_leader is None:
            continue
        shape = Outline(p.d)
        b = shape.box
        near = r * 6 + math.dist(p.unit, p.unit_leader)
        others = [
            (q.unit, _cover_reach(q, r))
            for a, q in geo.provinces.items()
            if a != abbr and math.dist(q.unit, p.unit_leader) < near
        ]
        others += [(c, r * 1.3) for k, c in geo.coasts.items() if k.split("/")[0] != abbr]
        unit = p.unit

        def room(pt: Point, others: list[tuple[Point, float]] = others, unit: Point = unit) -> float:
            """How far the line's end (with its dot) and the unit's line to it stay from every other unit."""
            dx, dy = pt[0] - unit[0], pt[1] - unit[1]
            n = math.hypot(dx, dy) or 1.0
            edge = (unit[0] + dx / n * r * PLACE_RING, unit[1] + dy / n * r * PLACE_RING)
            return min(
                (min(math.dist(pt, o) - r * 0.25, _seg_dist(o, edge, pt)) - reach for o, reach in others),
                default=math.inf,
            )

        home = p.unit_leader
        if room(home) >= r * 0.3:
            out[abbr] = home
            continue
        step = max(r * 0.05, 0.1)
        best = (room(home), home)
        y = b[1] + step / 2
        while y < b[3]:
            x = b[0] + step / 2
            while x < b[2]:
                pt = (x, y)
                if shape.holds(_dot_box(pt, r * 0.12)):
                    got = room(pt)
                    if got > best[0] + 1e-9:
                        best = (got, pt)
                x += step
            y += step
        out[abbr] = (round(best[1][0], 1), round(best[1][1], 1))
    return out


def _intersect(a: Sequence[Span], b: Sequence[Span]) -> list[Span]:
    out: list[Span] = []
    i = j = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if lo < hi:
            out.append((lo, hi))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


class _Rows:
    """A province's inside stretches on rows ``dy`` apart, read once and shared by every try of a name.

    ``window`` intersects the stretches of a run of rows; runs of a power of two rows are kept (each the
    intersection of two halves), so any run is the intersection of two kept runs that overlap."""

    __slots__ = ("dy", "levels", "spans", "widest", "y0")

    def __init__(self, outline: Outline, dy: float) -> None:
        self.dy = dy
        y0, y1 = outline.box[1], outline.box[3]
        n = max(1, int((y1 - y0) / dy))
        self.y0 = y0 + (y1 - y0 - (n - 1) * dy) / 2
        self.spans = [outline.spans(self.y0 + i * dy) for i in range(n)]
        self.levels: list[list[list[Span]]] = [self.spans]
        self.widest = max((hi - lo for row in self.spans for lo, hi in row), default=0.0)

    def _level(self, m: int) -> list[list[Span]]:
        while len(self.levels) <= m:
            prev = self.levels[-1]
            half = 1 << (len(self.levels) - 1)
            self.levels.append([_intersect(prev[i], prev[i + half]) for i in range(len(prev) - half)])
        return self.levels[m]

    def window(self, top: float, bottom: float) -> list[Span] | None:
        """Stretches inside on every row from ``top`` to ``bottom`` (None when that leaves the shape)."""
        i = math.floor((top - self.y0) / self.dy)
        j = math.ceil((bottom - self.y0) / self.dy)
        if i < 0 or j >= len(self.spans):
            return None
        k = j - i + 1
        m = k.bit_length() - 1
        level = self._level(m)
        a, b = level[i], level[j - (1 << m) + 1]
        return a if a is b else _intersect(a, b)

    def room_v(self, x0: float, x1: float, top: float, bottom: float, cap: float) -> float:
        """How far above ``top`` and below ``bottom`` the stretch ``x0..x1`` stays inside (the smaller, at
        most ``cap``)."""

        def covered(k: int) -> bool:
            return 0 <= k < len(self.spans) and any(lo <= x0 and x1 <= hi for lo, hi in self.spans[k])

        up = 0.0
        k = math.floor((top - self.y0) / self.dy) - 1
        while up < cap and covered(k):
            up += self.dy
            k -= 1
        down = 0.0
        k = math.ceil((bottom - self.y0) / self.dy) + 1
        while down < cap and covered(k):
            down += self.dy
            k += 1
        return min(up, down)


def _unit_boxes(p: Point, r: float) -> list[Box]:
    """What a unit standing at ``p`` covers, as a few boxes (a name may come close to a corner of a box
    round it): a disc of radius 1 (a fort's square is 0.95), a fleet's hull 2.4 radii wide from 0.5 above
    the spot to 0.65 below, and its mast up to 1.15 above, to the right."""
    x, y = p
    a = r * 1.08
    return [
        (x - a, y - a, x + a, y + a),
        (x - r * 1.28, y - r * 0.6, x + r * 1.28, y + r * 0.75),
        (x - r * 0.15, y - r * 1.25, x + r * 0.7, y),
    ]


def _seg_dist(p: Point, a: Point, b: Point) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    n = dx * dx + dy * dy
    t = 0.0 if n == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / n))
    return math.dist(p, (a[0] + t * dx, a[1] + t * dy))


GRID = 8
GRID_POINTS = GRID * GRID


def _grid(box: Box) -> Iterable[Point]:
    """Points spread evenly over ``box``: the middles of an 8 by 8 grid of its cells."""
    for i in range(GRID):
        for j in range(GRID):
            yield (box[0] + (box[2] - box[0]) * (i + 0.5) / GRID, box[1] + (box[3] - box[1]) * (j + 0.5) / GRID)


def _dot_box(p: Point, half: float) -> Box:
    return (p[0] - half, p[1] - half, p[0] + half, p[1] + half)


READABLE_PX = 9.2
"""The map viewer (the web page's app.js) draws a name smaller than this on screen larger about its middle, and
hides it where so drawn it would overlap a unit or a name shown before it (with :data:`VIEW_GAP_PX` between)."""
VIEW_GAP_PX = 1.5
FONT_UP, FONT_DOWN = 0.578, 0.586
"""The font's own box about a name's middle, in sizes (what the viewer measures: DejaVu Sans's ascent 0.928 and
descent 0.236 about the baseline, which is 0.35 below the middle)."""


def shown_box(width: float, size: float, x: float, mid: float, view: float) -> Box:
    """The box a name of ``width`` at ``size`` centred on ``(x, mid)`` takes on a page showing the map at ``view``
    px a unit, as the viewer measures it: the font's box, enlarged to :data:`READABLE_PX` in steps of 4%, and
    the gap it keeps from units and other names."""
    need = READABLE_PX / (size * view)
    k = 1.0 if need <= 1 else 1.04 ** math.ceil(math.log(need) / math.log(1.04))
    cy = mid + size * (FONT_DOWN - FONT_UP) / 2
    hw = width * k / 2 + VIEW_GAP_PX / view
    hh = size * (FONT_UP + FONT_DOWN) * k / 2 + VIEW_GAP_PX / view
    return (x - hw, cy - hh, x + hw, cy + hh)


_AROUND = [(math.cos(a * math.pi / 8), math.sin(a * math.pi / 8)) for a in range(16)]


def _inward(outline: Outline, outside: Point, target: Point, inset: float) -> Point:
    """The point where the line from ``outside`` to ``target`` (inside) enters the outline, moved
    ``inset`` further in (but never past ``target``): where a leader line ends."""
    dist = math.dist(outside, target)
    if dist < 1e-9:
        return target
    ux, uy = (target[0] - outside[0]) / dist, (target[1] - outside[1]) / dist
    steps = max(4, int(dist / 0.4))
    for k in range(1, steps + 1):
        t = dist * k / steps
        pt = (outside[0] + ux * t, outside[1] + uy * t)
        if outline.inside(pt):
            t2 = min(t + inset, dist)
            deeper = (outside[0] + ux * t2, outside[1] + uy * t2)
            return deeper if outline.inside(deeper) else pt
    return target


def _box_exit(box: Box, centre: Point, toward: Point, gap: float) -> Point:
    """Where the line from the box's ``centre`` towards ``toward`` leaves the box, ``gap`` further on."""
    dx, dy = toward[0] - centre[0], toward[1] - centre[1]
    n = math.hypot(dx, dy) or 1.0
    ux, uy = dx / n, dy / n
    hw, hh = (box[2] - box[0]) / 2, (box[3] - box[1]) / 2
    t = min(hw / abs(ux) if abs(ux) > 1e-9 else math.inf, hh / abs(uy) if abs(uy) > 1e-9 else math.inf)
    t = min(t + gap, n)
    return (centre[0] + ux * t, centre[1] + uy * t)


class _Placer:
    def __init__(
        self,
        geo: Geometry,
        names: Mapping[str, str],
        r: float,
        mode: str,
        label_scale: float,
        towns: Mapping[str, Point],
        want_labels: bool,
        view: float | None = None,
    ) -> None:
        self.geo = geo
        self.view = view
        self.names = names
        self.r = r
        self.mode = mode
        self.label_scale = label_scale
        self.towns = towns
        self.want_labels = want_labels
        self.outlines: dict[str, Outline] = {}
        cell = max(r * 4, 1.0)
        self.marks = Boxes(cell)
        """Unit spots, coast spots, centre markers, leader lines: no name may cover them."""
        self.named = Boxes(cell)
        """Names placed, as drawn (air is added to the box being tried)."""
        self.soft = Boxes(cell)
        """Dislodged spots: kept clear where a name fits elsewhere."""
        self.points = Boxes(cell)
        """Unit and coast spots as points, for the distance checks of markers and dislodged spots."""
        self.spots: list[Point] = [p.unit for p in geo.provinces.values()] + list(geo.coasts.values())
        for p in geo.provinces.values():
            for b in _unit_boxes(p.unit, r):
                self.marks.add(b)
        for c in geo.coasts.values():
            self.marks.add(_dot_box(c, r * 0.9))
        for x, y in self.spots:
            self.points.add((x, y, x, y))
        self._by_box: list[tuple[Box, str]] = []
        self.anchors = anchors(geo, r)
        # What would cover a leader line: every unit as it may stand (the place's disc round a unit in a
        # castle or city), by province, so a line may pass its own.
        self.covers: dict[tuple[int, int], list[tuple[Point, float, str]]] = {}
        spots = [(p.unit, _cover_reach(p, r), a) for a, p in geo.provinces.items()]
        spots += [(c, r * 1.3, k.split("/")[0]) for k, c in geo.coasts.items()]
        for at, reach, owner in spots:
            for key in self.marks._cells((at[0] - reach, at[1] - reach, at[0] + reach, at[1] + reach)):
                self.covers.setdefault(key, []).append((at, reach, owner))
        self.name_boxes = Boxes(cell)
        """Names placed, exactly as drawn (a leader line must not run under another name's halo)."""
        self.units_seen = Boxes(cell)
        """With ``view``: what the viewer measures of a unit at each spot (the box round every kind's mark)."""
        self.names_seen = Boxes(cell)
        """With ``view``: the names placed, as the viewer measures them (:func:`shown_box`)."""
        if view:
            for x, y in self.spots:
                self.units_seen.add((x - r * 1.28, y - r * 1.25, x + r * 1.28, y + r * 1.08))

    def outline(self, abbr: str) -> Outline:
        got = self.outlines.get(abbr)
        if got is None:
            got = self.outlines[abbr] = Outline(self.geo.provinces[abbr].d)
        return got

    # ---------------------------------------------------------------------------------------- markers

    def markers(self) -> dict[str, Marker]:
        r = self.r
        mark = r * 0.45
        out: dict[str, Marker] = {}
        placed: list[Point] = []
        # Smallest first: a small place has the fewest spots to choose from.
        for p in sorted(self.geo.provinces.values(), key=lambda p: (p.area_km2, p.abbr)):
            if p.sc is None:
                continue
            shape = self.outline(p.abbr)
            raw = self.towns.get(p.abbr)
            fallback = p.sc if shape.inside(p.sc) and p.unit_leader is None else self.home(p)
            # A town just outside its shape (a river port whose river is drawn as water): the nearest spot
            # inside is searched from the town itself; one far outside (a wrong point) is not followed.
            b = shape.box
            near = raw is not None and b[0] - r * 3 <= raw[0] <= b[2] + r * 3 and b[1] - r * 3 <= raw[1] <= b[3] + r * 3
            town = raw if raw is not None and near else fallback
            # A place whose unit stands beside it: the line ends where no neighbour's unit hides it.
            target = town if shape.inside(town) and p.unit_leader is None else fallback
            own = p.unit

            def clear(c: Point, own: Point = own) -> bool:
                if math.dist(c, own) < r * 1.6:
                    return False
                need = mark + r * 1.1
                near = self.points.within((c[0] - need, c[1] - need, c[0] + need, c[1] + need))
                if any(o != own and math.dist(c, o) < need for o in near):
                    return False
                return all(math.dist(c, q) >= r * 1.05 for q in placed)

            chosen: Marker | None = None
            step = max(r * 0.25, 0.5)
            limit = max(shape.box[2] - shape.box[0], shape.box[3] - shape.box[1])
            for ring in range(int(limit / step) + 2):
                d = ring * step
                cands = [town] if ring == 0 else [(town[0] + ex * d, town[1] + ey * d) for ex, ey in _AROUND]
                good = [
                    c for c in cands if math.dist(c, own) >= r * 1.6 and shape.holds(_dot_box(c, mark)) and clear(c)
                ]
                if good:
                    chosen = Marker(min(good, key=lambda c: (math.dist(c, town), c)))
                    break
            if chosen is None:
                # Too small for a marker beside a unit: just outside, with a leader line to the town.
                for k in (1.6, 1.9, 2.3, 2.8, 3.4):
                    cands = [(own[0] + ex * r * k, own[1] + ey * r * k) for ex, ey in _AROUND]
                    # Nearest the town, a line clear of other units and names first.
                    lines: list[tuple[bool, float, Point, Point, Point]] = []
                    for c in cands:
                        if clear(c) and not self._in_small_place(c):
                            start = _box_exit(_dot_box(c, mark), c, target, r * 0.05)
                            end = _inward(shape, start, target, r * 0.3)
                            lines.append((not self.line_clear(start, end, p.abbr), math.dist(c, target), c, start, end))
                    if lines:
                        _, _, at, start, end = min(lines)
                        chosen = Marker(at, (start, end))
                        break
            if chosen is None:
                chosen = Marker(target)
            out[p.abbr] = chosen
            placed.append(chosen.at)
            self.marks.add(_dot_box(chosen.at, r * 0.5))
            if chosen.leader is not None:
                self._add_line(*chosen.leader)
        return out

    def _in_small_place(self, pt: Point) -> bool:
        """Whether ``pt`` lies in a nested place (a castle's circle): a marker there would be read as its."""
        for a, p in self.geo.provinces.items():
            home = p.unit if p.unit_leader is None else p.unit_leader
            if p.nested and math.dist(pt, home) < self.r * 1.5 and self.outline(a).inside(pt):
                return True
        return False

    def home(self, p: ProvinceShape) -> Point:
        """The point a leader line into ``p`` aims at: its unit's spot, or where a unit beside it points."""
        if p.unit_leader is None:
            return p.unit
        return self.anchors.get(p.abbr, p.unit_leader)

    def line_clear(self, a: Point, b: Point, own: str) -> bool:
        """Whether a leader line from ``a`` to ``b`` runs clear of every other province's unit (as it may
        stand) and of every name placed (whose halo is drawn over the lines)."""
        cells = set(self.marks._cells((min(a[0], b[0]), min(a[1], b[1]), max(a[0], b[0]), max(a[1], b[1]))))
        for key in cells:
            for at, reach, owner in self.covers.get(key, ()):
                if owner != own and _seg_dist(at, a, b) < reach + self.r * 0.06:
                    return False
        half = self.r * 0.05
        n = max(1, math.ceil(math.dist(a, b) / max(half, 0.1)))
        for k in range(n + 1):
            t = k / n
            x, y = a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t
            if self.name_boxes.hits((x - half, y - half, x + half, y + half)):
                return False
        return True

    def _add_line(self, a: Point, b: Point) -> None:
        """A leader line as a chain of small boxes, each touching the next, so no name slips in between."""
        n = max(1, math.ceil(math.dist(a, b) / (self.r * 0.16)))
        for k in range(n + 1):
            t = k / n
            self.marks.add(_dot_box((a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t), self.r * 0.08))

    # ----------------------------------------------------------------------------------- dislodged

    def dislodged(self, sc: Mapping[str, Marker]) -> dict[str, Point]:
        """Dislodged units' spots, beside their province's unit, clear of the other unit spots."""
        r = self.r
        out: dict[str, Point] = {}
        for abbr, p in self.geo.provinces.items():
            ux, uy = p.unit
            want, mark, pt = r * 2.05, r * 0.95, p.dislodged
            clear = mark + r * 1.1
            centre = sc[abbr].at if abbr in sc else None

            def fits(c: Point, own: Point = p.unit, centre: Point | None = centre, clear: float = clear) -> bool:
                others = self.points.within((c[0] - clear, c[1] - clear, c[0] + clear, c[1] + clear))
                return all(o == own or math.dist(c, o) >= clear for o in others) and (
                    centre is None or math.dist(c, centre) > r * 1.2
                )

            if math.dist(pt, p.unit) >= want and fits(pt):
                out[abbr] = pt
                continue
            shape = self.outline(abbr)
            dx, dy = pt[0] - ux, pt[1] - uy
            dist = math.hypot(dx, dy)
            dirs = ([(dx / dist, dy / dist)] if dist > 1e-6 else []) + _AROUND
            cands = [(ux + ex * want * k, uy + ey * want * k) for k in (1.0, 1.5) for ex, ey in dirs]
            inside = [c for c in cands if shape.holds(_dot_box(c, mark))]
            centred = [c for c in cands if shape.inside(c)]
            chosen = next((c for c in inside if fits(c)), None) or next((c for c in centred if fits(c)), None)
            if chosen is None and inside:
                chosen = max(inside, key=lambda c: min(math.dist(c, o) for o in self.spots if o != p.unit))
            if chosen is None:
                chosen = next((c for c in cands if fits(c)), None)
            out[abbr] = chosen if chosen is not None else pt
        for x, y in out.values():
            self.soft.add((x - r, y - r, x + r, y + r))
        return out

    # --------------------------------------------------------------------------------------- names

    def texts(self, p: ProvinceShape) -> list[tuple[str, float]]:
        r = self.r
        biggest = r * 1.3 * self.label_scale
        smallest = r * 0.75 * self.label_scale
        middle = (biggest + smallest) / 2
        abbr = p.abbr.upper()
        full = self.names.get(p.abbr, abbr)
        out: list[tuple[str, float]] = []
        if self.mode != "abbr" and full.upper() != abbr:
            out += [(full, biggest), (full, middle)]
            if self.mode == "full":
                out.append((full, smallest))
        out += [(abbr, biggest), (abbr, middle), (abbr, smallest)]
        return out

    def _free(self, box: Box, size: float, strict: bool, seen: bool = False) -> bool:
        air_x, air_y = size * 0.34, size * 0.06
        padded = (box[0] - air_x, box[1] - air_y, box[2] + air_x, box[3] + air_y)
        if self.marks.hits(box) or self.named.hits(padded) or (strict and self.soft.hits(box)):
            return False
        if seen and self.view:
            got = self._seen(box, size)
            return not self.units_seen.hits(got) and not self.names_seen.hits(got)
        return True

    def _seen(self, box: Box, size: float) -> Box:
        """The viewer's box of a name placed at ``box`` (:func:`shown_box`)."""
        assert self.view
        return shown_box(box[2] - box[0], size, (box[0] + box[2]) / 2, box[1] + size * LABEL_UP, self.view)

    def inside(self, p: ProvinceShape, rows: _Rows, *, tight: bool = False, seen: bool = False) -> Label | None:
        """The roomiest free spot inside the province for its name, full name first, then the abbreviation.

        ``tight``: the abbreviation at the smallest size, its box (halo and all) up to the outline, on rows twice
        as close: the last try inside before a name goes beside its province (Picardy's name, a tenth of a letter
        too wide for the corner its unit leaves with the usual margin, stood beside it over Paris and Burgundy,
        where an army's arrow to Burgundy seemed to end in Picardy)."""
        ux, uy = p.unit
        box = self.outline(p.abbr).box
        # The second pass (names over dislodged spots) only where a dislodged spot lies in the way.
        passes = (True, False) if self.soft.hits(box) else (True,)
        smallest = self.r * 0.75 * self.label_scale
        texts = [(p.abbr.upper(), smallest)] if tight else self.texts(p)
        for strict in passes:
            for text, size in texts:
                w = text_width(text, size, True)
                up, down = size * LABEL_UP, size * LABEL_DOWN
                margin = 0.0 if tight else size * 0.12
                if w + 2 * margin > rows.widest:
                    continue
                best: tuple[float, float, float] | None = None
                stride = max(1, round(size * 0.2 / rows.dy))
                for k in range(0, len(rows.spans), stride):
                    y = rows.y0 + k * rows.dy
                    win = rows.window(y - up - margin, y + down + margin)
                    if not win:
                        continue
                    for lo, hi in win:
                        a, b = lo + w / 2 + margin, hi - w / 2 - margin
                        if a > b:
                            continue
                        for x in ((a + b) / 2, min(max(ux, a), b), a, b):
                            hc = min(x - w / 2 - lo, hi - x - w / 2)
                            score = min(hc / size, 1.5) - 0.12 * math.dist((x, y), (ux, uy)) / size
                            if best is not None and score + 1.0 <= best[0]:
                                continue  # vertical room adds at most 1.0: cannot win
                            box = (x - w / 2, y - up, x + w / 2, y + down)
                            if not self._free(box, size, strict, seen):
                                continue
                            vc = rows.room_v(box[0], box[2], box[1], box[3], size)
                            score += min(vc / size, 1.0)
                            if best is None or score > best[0]:
                                best = (score, x, y)
                if best is not None:
                    return Label(p.abbr, text, size, best[1], best[2])
        return None

    def beside(self, p: ProvinceShape, *, off_land: bool = False, seen: bool = False) -> Label | None:
        """The abbreviation just outside a province too small for it, with a leader line into it: the
        nearest free spot, over the sea rather than over another province's land. Measured from the place
        itself (for a unit standing beside its place, ``unit_leader``, not the unit's spot).

        ``off_land``: only spots where at most half the name lies on one other province's land (where it
        would read as that province's name)."""
        r = self.r
        shape = self.outline(p.abbr)
        ux, uy = self.home(p)
        abbr = p.abbr.upper()
        smallest = r * 0.75 * self.label_scale
        middle = (r * 1.3 * self.label_scale + smallest) / 2
        extent = max(shape.box[2] - shape.box[0], shape.box[3] - shape.box[1])
        for strict in (True, False):
            for size in (middle, smallest):
                w = text_width(abbr, size, True)
                up, down = size * LABEL_UP, size * LABEL_DOWN
                best: tuple[float, float, float] | None = None
                for ex, ey in _AROUND:
                    out = max(shape.reach((ux, uy), (ex, ey), extent, max(r * 0.2, 0.4)), r * 1.3)
                    half = abs(ex) * w / 2 + abs(ey) * (up + down) / 2
                    for gap in (size * 0.5, size * 1.3, size * 2.4, size * 3.8):
                        d = out + gap + half
                        x, y = ux + ex * d, uy + ey * d - (down - up) / 2
                        box = (x - w / 2, y - up, x + w / 2, y + down)
                        if not self._free(box, size, strict, seen):
                            continue
                        if shape.inside((x, y)):
                            continue  # that would be the inside, where it did not fit
                        if off_land and self.land_share(box, p.abbr) > 0.5:
                            continue
                        start = _box_exit(box, (x, y), (ux, uy), size * 0.12)
                        if not self.line_clear(start, _inward(shape, start, (ux, uy), r * 0.35), p.abbr):
                            continue  # its leader line would run under another's unit or name
                        score = d / size + (0.0 if self._over_sea((x, y)) else 1.5)
                        if best is None or score < best[0]:
                            best = (score, x, y)
                        break
                if best is not None:
                    _, x, y = best
                    box = (x - w / 2, y - up, x + w / 2, y + down)
                    start = _box_exit(box, (x, y), (ux, uy), size * 0.12)
                    end = _inward(shape, start, (ux, uy), r * 0.35)
                    return Label(p.abbr, abbr, size, x, y, (start, end))
        return None

    def _at(self, pt: Point) -> str | None:
        """The province whose shape holds ``pt`` (None: open water or off the board's provinces)."""
        if not self._by_box:
            self._by_box = [(self.outline(a).box, a) for a in self.geo.provinces]
        for b, a in self._by_box:
            if b[0] <= pt[0] <= b[2] and b[1] <= pt[1] <= b[3] and self.outline(a).inside(pt):
                return a
        return None

    def _over_sea(self, pt: Point) -> bool:
        a = self._at(pt)
        return a is None or self.geo.provinces[a].kind == "sea"

    def land_share(self, box: Box, own: str) -> float:
        """The largest share of ``box`` lying on one land province other than ``own`` (a grid of points, as
        :func:`dippouch.render.audit.land_share` measures a drawn name)."""
        got: dict[str, int] = {}
        for pt in _grid(box):
            a = self._at(pt)
            if a is not None and a != own and self.geo.provinces[a].kind != "sea":
                got[a] = got.get(a, 0) + 1
        return max(got.values(), default=0) / GRID_POINTS

    def labels(self) -> list[Label]:
        out: list[Label] = []
        left: list[ProvinceShape] = []
        order = sorted(self.geo.provinces.values(), key=lambda p: (p.area_km2, p.abbr))
        for p in order:
            got = self.inside(p, _Rows(self.outline(p.abbr), self._rough(p)), seen=bool(self.view))
            if got is None:
                left.append(p)
                continue
            self._take(got)
            out.append(got)
        # The names that did not fit, in rounds, each round over every one of them (smallest first) before the
        # next, so a name put beside its province does not take the room a neighbour's own name needed: inside
        # at the smallest size, closer to the outline; beside, off other provinces' land; beside wherever there
        # is room (over another province's land, where it reads as that province's name: the audit counts it,
        # unless the province is too small to hold the name at all).
        tries: list[Callable[[ProvinceShape], Label | None]] = [
            lambda p: self.inside(p, _Rows(self.outline(p.abbr), self._fine(p)), tight=True),
            lambda p: self.beside(p, off_land=True),
            self.beside,
        ]
        if self.view:
            # Where the page's viewer shows every name (a tall map drawn larger for the page's frame): first
            # wherever the viewer will show the name (clear of units and names as it measures them, enlarged
            # to a readable size), inside, then beside off others' land; then as any map.
            seen = [
                lambda p: self.inside(p, _Rows(self.outline(p.abbr), self._fine(p)), tight=True, seen=True),
                lambda p: self.beside(p, off_land=True, seen=True),
                lambda p: self.inside(p, _Rows(self.outline(p.abbr), self._rough(p))),
            ]
            tries = seen + tries
        for attempt in tries:
            still: list[ProvinceShape] = []
            for p in left:
                got = attempt(p)
                if got is None:
                    still.append(p)
                    continue
                self._take(got)
                out.append(got)
            left = still
        return out

    def _rough(self, p: ProvinceShape) -> float:
        """The rows of the first try inside."""
        shape = self.outline(p.abbr)
        return max(self.r * 0.2, (shape.box[3] - shape.box[1]) / 100, 0.3)

    def _fine(self, p: ProvinceShape) -> float:
        """Rows half as far apart as the first try's, for the tries close to the outline."""
        shape = self.outline(p.abbr)
        return max(self.r * 0.1, (shape.box[3] - shape.box[1]) / 200, 0.2)

    def _take(self, label: Label) -> None:
        w = text_width(label.text, label.size, True)
        box = (label.x - w / 2, label.mid - label.size * LABEL_UP, label.x + w / 2, label.mid + label.size * LABEL_DOWN)
        self.named.add(box)
        self.name_boxes.add(box)
        if self.view:
            self.names_seen.add(self._seen(box, label.size))
        if label.leader is not None:
            self._add_line(*label.leader)


def place(
    geo: Geometry,
    names: Mapping[str, str],
    r: float,
    *,
    mode: str = "auto",
    label_scale: float = 1.0,
    towns: Mapping[str, Point] | None = None,
    labels: bool = True,
    view: float | None = None,
) -> Placement:
    """Centre markers, dislodged spots and (with ``labels``) names for a map whose units have radius ``r``.

    ``names`` gives each province's full name by abbreviation; ``mode`` is ``auto``, ``full`` or ``abbr``
    (:class:`dippouch.render.svg.RenderOptions`); ``towns`` the centre markers' towns in picture units; ``view``
    the px a unit the game page shows the map at, where its names are first placed where the page's viewer
    shows them there (:func:`shown_box`), else None."""
    placer = _Placer(geo, names, r, mode, label_scale, towns or {}, labels, view)
    sc = placer.markers()
    dislodged = placer.dislodged(sc)
    return Placement(placer.labels() if labels else [], sc, dislodged, placer.anchors)
