"""What a drawn map actually shows: names and centre markers read back from the SVG and checked against the
province shapes drawn beside them.

A placement rule can look right and still put a name in the neighbour's province (a small province whose
name did not fit went "just outside", over its neighbour, with nothing saying whose it was). So the check
reads the picture a player sees, not the placer's intentions: the shapes (``r-ABBR``), the names
(``label-ABBR``), the leader lines of names drawn beside a small province (``leader-ABBR``, from the name to a
point inside the province), the centre markers (``sc-ABBR``) and the units (``unit-ABBR``). Pure Python, no
shapely: ``dippouch mapcheck`` and the tests run it on every variant.

What is counted:

- a name is *astray* when the middle of its text lies outside its own province's shape and no leader line
  ends inside that shape;
- a name is *elsewhere* when more than half its text box lies on one other province's land, though its own
  province's shape could hold the box (leader line or not): it reads as that province's name (Picardy's name,
  beside it with a short leader line, stood over Paris and Burgundy, and an army's arrow to Burgundy seemed to
  end in Picardy). Over the sea, where a coastal province's name may stand beside it, it reads as no sea's
  name (those are blue and slanted); a place too small for its name (W3K's castles) has it beside, wherever;
- a centre marker is astray when its middle lies outside its own province's shape and no leader line (a
  ``path`` of class ``leader`` in the marker's group) runs from it to a point inside that shape;
- a unit is astray when its middle lies outside its own province's shape and no leader line (a ``path``
  with ``data-unit-leader``, drawn for a unit standing beside a place too small for it) ends inside it;
- two names *overlap* when their text boxes do, and *run together* when they stand on one line with less
  than a third of a letter between them (they read as one word: "SCHOBO");
- a name is *on a mark* when its box covers another province's unit spot or centre marker;
- two units are *crowded* when their marks (an army's disc, a fleet's hull and mast, a fort's square, as
  drawn) overlap, and a unit is *on a name* when its mark overlaps a name's box: a name half under a unit
  cannot be read, nor two units one over the other (``dippouch mapcheck`` draws every spot of the board
  occupied to find them, :func:`dippouch.mapcheck.check_crowding`);
- a leader line (a name's, a centre marker's or a unit's beside its place) is *covered* when another
  province's unit, the disc drawn round a unit in a castle or city, or another name (whose white halo is drawn
  over the lines) lies over any part of it: a line that vanishes under London's unit no longer says which
  place the name beside it belongs to.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from dippouch.render.geometry import path_rings
from dippouch.render.ids import plain_ids
from dippouch.render.text import BASELINE, LABEL_DOWN, LABEL_UP, text_width

__all__ = [
    "Box",
    "Cover",
    "LayoutReport",
    "Leader",
    "Mark",
    "Shape",
    "audit_svg",
    "covered",
    "disc_mark",
    "holds",
    "inside",
    "label_box",
    "land_share",
    "leader_lines",
    "mark_box",
    "marks_touch",
    "shape_of",
    "unit_marks",
]

NS = "{http://www.w3.org/2000/svg}"

Point = tuple[float, float]
Box = tuple[float, float, float, float]


def label_box(text: str, x: float, mid_y: float, size: float) -> Box:
    """The box a name drawn centred on ``(x, mid_y)`` covers (bold lettering, as the map draws names)."""
    w = text_width(text, size, True)
    return (x - w / 2, mid_y - size * LABEL_UP, x + w / 2, mid_y + size * LABEL_DOWN)


def inside(rings: Sequence[Sequence[Point]], pt: Point) -> bool:
    """Whether ``pt`` lies inside the shape (even-odd rule over all rings, so a hole cut for a nested place
    is outside)."""
    x, y = pt
    hit = False
    for ring in rings:
        n = len(ring)
        j = n - 1
        for i in range(n):
            xi, yi = ring[i]
            xj, yj = ring[j]
            if (yi > y) != (yj > y) and x < (xj - xi) * (y - yi) / (yj - yi) + xi:
                hit = not hit
            j = i
    return hit


@dataclass(slots=True)
class LayoutReport:
    """What :func:`audit_svg` found; every list names provinces by abbreviation."""

    provinces: int = 0
    names: int = 0
    leaders: int = 0
    markers: int = 0
    names_astray: list[str] = field(default_factory=list)
    names_elsewhere: list[str] = field(default_factory=list)
    """Names standing mostly on one other province's land though their own province could hold them."""
    markers_astray: list[str] = field(default_factory=list)
    units_astray: list[str] = field(default_factory=list)
    overlaps: list[tuple[str, str]] = field(default_factory=list)
    run_together: list[tuple[str, str]] = field(default_factory=list)
    names_on_marks: list[tuple[str, str]] = field(default_factory=list)
    """(name, mark): the name of the first covers the unit spot or centre marker of the second."""
    unnamed: list[str] = field(default_factory=list)
    bad_leaders: list[str] = field(default_factory=list)
    """Leader lines that do not start at their name or do not end inside their province."""
    units_crowded: list[tuple[str, str]] = field(default_factory=list)
    """Pairs of units whose marks overlap."""
    units_on_names: list[tuple[str, str]] = field(default_factory=list)
    """(unit, name): the unit's mark overlaps the name's box."""
    leaders_covered: list[tuple[str, str]] = field(default_factory=list)
    """(leader, what covers it): ``("dep name", "lon unit")``, the leader line of Deptford's name runs under
    London's unit (or its place's disc); the second may be ``"NAME name"``, another name's box."""

    @property
    def misplaced(self) -> int:
        """Names and markers away from their province, and names over each other: what must be zero."""
        return (
            len(self.names_astray)
            + len(self.names_elsewhere)
            + len(self.markers_astray)
            + len(self.overlaps)
            + len(self.bad_leaders)
            + len(self.units_astray)
            + len(self.units_crowded)
            + len(self.units_on_names)
            + len(self.leaders_covered)
        )

    def summary(self) -> str:
        def some(items: Iterable[object]) -> str:
            shown = [("-".join(i) if isinstance(i, tuple) else str(i)) for i in items]
            return (": " + " ".join(shown[:40]) + (" ..." if len(shown) > 40 else "")) if shown else ""

        return "\n".join(
            [
                f"names {self.names} of {self.provinces} provinces ({self.leaders} with leader lines), "
                f"centre markers {self.markers}",
                f"  names outside their province {len(self.names_astray)}{some(self.names_astray)}",
                f"  names on another province's land {len(self.names_elsewhere)}{some(self.names_elsewhere)}",
                f"  centre markers outside their province {len(self.markers_astray)}{some(self.markers_astray)}",
                f"  units outside their province {len(self.units_astray)}{some(self.units_astray)}",
                f"  names overlapping {len(self.overlaps)}{some(self.overlaps)}",
                f"  leader lines astray {len(self.bad_leaders)}{some(self.bad_leaders)}",
                f"  names running together {len(self.run_together)}{some(self.run_together)}",
                f"  names over another's unit or centre {len(self.names_on_marks)}{some(self.names_on_marks)}",
                f"  provinces without a name {len(self.unnamed)}{some(self.unnamed)}",
                f"  units over each other {len(self.units_crowded)}{some(self.units_crowded)}",
                f"  units over names {len(self.units_on_names)}{some(self.units_on_names)}",
                f"  leader lines covered {len(self.leaders_covered)}{some(self.leaders_covered)}",
            ]
        )


GRID = 8
"""A name's box is measured at the middles of GRID by GRID cells (as the placer measures it)."""


Shape = tuple[Box, list[list[Point]]]
"""A province's shape as drawn: the box round it and its rings."""


def shape_of(d: str) -> Shape:
    rings = path_rings(d)
    pts = [p for ring in rings for p in ring] or [(0.0, 0.0)]
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return (min(xs), min(ys), max(xs), max(ys)), rings


def land_share(box: Box, land: Mapping[str, Shape], own: str) -> float:
    """The largest share of ``box`` lying on one province of ``land`` other than ``own``, measured at the middles
    of a grid of its cells."""
    near = [rings for a, (b, rings) in land.items() if a != own and _overlap(box, b)]
    got: dict[int, int] = {}
    for i in range(GRID):
        for j in range(GRID):
            pt = (box[0] + (box[2] - box[0]) * (i + 0.5) / GRID, box[1] + (box[3] - box[1]) * (j + 0.5) / GRID)
            k = next((k for k, rings in enumerate(near) if inside(rings, pt)), None)
            if k is not None:
                got[k] = got.get(k, 0) + 1
    return max(got.values(), default=0) / (GRID * GRID)


def _spans(rings: Sequence[Sequence[Point]], y: float) -> list[tuple[float, float]]:
    """The inside stretches of the horizontal line at ``y`` (even-odd rule)."""
    cuts: list[float] = []
    for ring in rings:
        n = len(ring)
        for i in range(n):
            (x0, y0), (x1, y1) = ring[i - 1], ring[i]
            if (y0 <= y) != (y1 <= y):
                cuts.append(x0 + (y - y0) * (x1 - x0) / (y1 - y0))
    cuts.sort()
    return [(cuts[i], cuts[i + 1]) for i in range(0, len(cuts) - 1, 2)]


def holds(rings: Sequence[Sequence[Point]], w: float, h: float) -> bool:
    """Whether a box ``w`` by ``h`` fits somewhere inside the shape (rows an eighth of ``h`` apart)."""
    pts = [p for ring in rings for p in ring]
    if not pts or w <= 0 or h <= 0:
        return False
    y0, y1 = min(p[1] for p in pts), max(p[1] for p in pts)
    dy = h / 8
    rows = [_spans(rings, y0 + dy * (k + 0.5)) for k in range(int((y1 - y0) / dy))]
    for top in range(len(rows) - 8):
        win = rows[top]
        for row in rows[top + 1 : top + 9]:
            win = [(max(a, c), min(b, d)) for a, b in win for c, d in row if max(a, c) < min(b, d)]
            if not win:
                break
        if any(b - a >= w for a, b in win):
            return True
    return False


def _num(e: ET.Element, attr: str) -> float:
    return float(e.get(attr, "0"))


def _unit_middle(g: ET.Element) -> Point | None:
    """The middle of a unit's mark: the box round its body (disc, hull or fort), mast and letter left out."""
    for e in g:
        if e.tag == f"{NS}circle":
            return (_num(e, "cx"), _num(e, "cy"))
        if e.tag == f"{NS}rect":
            return (_num(e, "x") + _num(e, "width") / 2, _num(e, "y") + _num(e, "height") / 2)
        if e.tag == f"{NS}polygon":
            pts = [tuple(map(float, p.split(","))) for p in (e.get("points") or "").split()]
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            # The hull reaches 0.5 radius above the spot and 0.65 below it.
            return ((min(xs) + max(xs)) / 2, min(ys) + (max(ys) - min(ys)) * 0.5 / 1.15)
    return None


Poly = list[Point]
Mark = tuple[list[Poly], float]
"""A unit's mark as drawn: its convex outlines and half the width of their outline (:func:`unit_marks`)."""


def unit_marks(g: ET.Element) -> Mark:
    """A unit's mark as drawn, as convex outlines (an army's disc as a 24-gon, a fleet's hull and its mast,
    a fort's square) and half the width of their outline; the letter lies inside, and the badges and leader
    lines beside it are left out."""
    polys: list[Poly] = []
    pad = 0.0
    for e in g:
        if e.tag == f"{NS}circle":
            cx, cy, r = _num(e, "cx"), _num(e, "cy"), _num(e, "r")
            polys.append(
                [(cx + r * math.cos(i * math.pi / 12), cy + r * math.sin(i * math.pi / 12)) for i in range(24)]
            )
        elif e.tag == f"{NS}rect":
            x, y, w, h = _num(e, "x"), _num(e, "y"), _num(e, "width"), _num(e, "height")
            polys.append([(x, y), (x + w, y), (x + w, y + h), (x, y + h)])
        elif e.tag == f"{NS}polygon":
            polys.append([(float(p.split(",")[0]), float(p.split(",")[1])) for p in (e.get("points") or "").split()])
        elif e.tag == f"{NS}path" and "leader" not in (e.get("class") or "").split():
            polys += [list(ring) for ring in path_rings(e.get("d") or "") if len(ring) >= 3]
        else:
            continue
        pad = max(pad, _num(e, "stroke-width") / 2)
    return polys, pad


def _seg_dist(p: Point, a: Point, b: Point) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    n = dx * dx + dy * dy
    t = 0.0 if n == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / n))
    return math.dist(p, (a[0] + t * dx, a[1] + t * dy))


def _apart(a: Poly, b: Poly) -> bool:
    """Whether two convex outlines are separated by a line (they do not overlap)."""
    for poly in (a, b):
        for i in range(len(poly)):
            (x0, y0), (x1, y1) = poly[i], poly[(i + 1) % len(poly)]
            nx, ny = y0 - y1, x1 - x0
            pa = [nx * x + ny * y for x, y in a]
            pb = [nx * x + ny * y for x, y in b]
            if max(pa) < min(pb) or max(pb) < min(pa):
                return True
    return False


def marks_touch(a: Mark, b: Mark) -> bool:
    """Whether two units' marks, outlines included, overlap."""
    gap = a[1] + b[1]
    for pa in a[0]:
        for pb in b[0]:
            if not _apart(pa, pb):
                return True
            d = min(
                min(_seg_dist(p, q[i], q[(i + 1) % len(q)]) for p in s for i in range(len(q)))
                for s, q in ((pa, pb), (pb, pa))
            )
            if d < gap:
                return True
    return False


def disc_mark(cx: float, cy: float, r: float, stroke: float) -> Mark:
    """A drawn circle (a place's disc round its unit) as a mark: a 24-gon and half its outline's width."""
    return (
        [[(cx + r * math.cos(i * math.pi / 12), cy + r * math.sin(i * math.pi / 12)) for i in range(24)]],
        stroke / 2,
    )


Leader = tuple[str, Mark]
"""A leader line as ``("dep name", mark)``: whose line it is and what for, and the line as a mark (its two
ends and half its width)."""
Cover = tuple[str, str, Mark]
"""Something drawn over leader lines: its province, what it is (``"lon unit"``) and its mark."""


def leader_lines(root: ET.Element) -> list[Leader]:
    """Every leader line of a drawn map: names' (``leader-ABBR``), centre markers' (in ``sc-ABBR``) and units'
    standing beside their place (``data-unit-leader``)."""
    out: list[Leader] = []

    def add(tag: str, e: ET.Element) -> None:
        for ring in path_rings(e.get("d") or ""):
            if len(ring) >= 2:
                out.append((tag, ([[ring[0], ring[-1]]], _num(e, "stroke-width") / 2)))

    for abbr, e in _ids(root, "leader-").items():
        add(f"{abbr} name", e)
    for abbr, g in _ids(root, "sc-").items():
        for e in g:
            if e.tag == f"{NS}path" and "leader" in (e.get("class") or "").split():
                add(f"{abbr} centre", e)
    for e in root.iter(f"{NS}path"):
        if e.get("data-unit-leader"):
            add(f"{e.get('data-unit-leader')} unit", e)
    return out


def covered(leaders: Sequence[Leader], covers: Sequence[Cover]) -> list[tuple[str, str]]:
    """(leader, cover) for every leader line another province's unit, place disc or name lies over."""
    boxes = [(a, what, m, mark_box(m)) for a, what, m in covers]
    out: set[tuple[str, str]] = set()
    for tag, lm in leaders:
        own = tag.split(" ", 1)[0]
        lb = mark_box(lm)
        if lb is None:
            continue
        for a, what, m, b in boxes:
            if a != own and b is not None and _overlap(lb, b) and marks_touch(lm, m):
                out.add((tag, what))
    return sorted(out)


def mark_box(mark: Mark) -> Box | None:
    pts = [p for poly in mark[0] for p in poly]
    if not pts:
        return None
    pad = mark[1]
    return (
        min(p[0] for p in pts) - pad,
        min(p[1] for p in pts) - pad,
        max(p[0] for p in pts) + pad,
        max(p[1] for p in pts) + pad,
    )


def _unit_r(g: ET.Element) -> float:
    """About a unit's radius: half the width of its mark."""
    box = mark_box(unit_marks(g))
    return 0.0 if box is None else (box[2] - box[0]) / 2


def _ids(root: ET.Element, prefix: str) -> dict[str, ET.Element]:
    return {(e.get("id") or "")[len(prefix) :]: e for e in root.iter() if (e.get("id") or "").startswith(prefix)}


def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def audit_svg(svg: str) -> LayoutReport:
    """Read a drawn map back and check where its names, centre markers and units are (see the module's doc)."""
    root = ET.fromstring(plain_ids(svg))
    rep = LayoutReport()
    regions = _ids(root, "r-")
    shapes = {k: path_rings(e.get("d") or "") for k, e in regions.items()}
    land = {k: shape_of(e.get("d") or "") for k, e in regions.items() if "sea" not in (e.get("class") or "").split()}
    rep.provinces = len(shapes)
    labels = _ids(root, "label-")
    leaders = _ids(root, "leader-")
    rep.names, rep.leaders = len(labels), len(leaders)
    rep.unnamed = sorted(set(shapes) - set(labels))
    boxes: dict[str, tuple[Box, float, float]] = {}
    for abbr, e in labels.items():
        size = _num(e, "font-size")
        x, mid = _num(e, "x"), _num(e, "y") - size * BASELINE
        box = label_box(e.text or "", x, mid, size)
        boxes[abbr] = (box, size, mid)
        rings = shapes.get(abbr, [])
        lead = leaders.get(abbr)
        if lead is not None:
            pts = [p for ring in path_rings(lead.get("d") or "") for p in ring]
            pad = size * 0.6
            near = bool(pts) and (
                box[0] - pad <= pts[0][0] <= box[2] + pad and box[1] - pad <= pts[0][1] <= box[3] + pad
            )
            if not pts or not near or not inside(rings, pts[-1]):
                rep.bad_leaders.append(abbr)
        elif not inside(rings, (x, mid)):
            rep.names_astray.append(abbr)
            continue
        if land_share(box, land, abbr) > 0.5 and holds(rings, box[2] - box[0], box[3] - box[1]):
            rep.names_elsewhere.append(abbr)
    scs = _ids(root, "sc-")
    rep.markers = len(scs)
    marks: list[tuple[str, Point]] = []
    for abbr, g in scs.items():
        c = next((e for e in g if e.tag == f"{NS}circle"), None)
        if c is None:
            continue
        pt = (_num(c, "cx"), _num(c, "cy"))
        marks.append((abbr, pt))
        lead = next((e for e in g if e.tag == f"{NS}path" and "leader" in (e.get("class") or "").split()), None)
        if lead is not None:
            pts = [p for ring in path_rings(lead.get("d") or "") for p in ring]
            near = bool(pts) and math.dist(pts[0], pt) <= _num(c, "r") * 2.5
            if not near or not inside(shapes.get(abbr, []), pts[-1]):
                rep.markers_astray.append(abbr)
        elif not inside(shapes.get(abbr, []), pt):
            rep.markers_astray.append(abbr)
    unit_leaders = {e.get("data-unit-leader") or "": e for e in root.iter(f"{NS}path") if e.get("data-unit-leader")}
    drawn_units: list[tuple[str, tuple[list[Poly], float], Box]] = []
    for abbr, g in _ids(root, "unit-").items():
        um = unit_marks(g)
        ub = mark_box(um)
        if ub is not None:
            drawn_units.append((abbr, um, ub))
        mid_pt = _unit_middle(g)
        if mid_pt is None:
            continue
        marks.append((abbr, mid_pt))
        tie = unit_leaders.get(abbr)
        if tie is not None:
            pts = [p for ring in path_rings(tie.get("d") or "") for p in ring]
            if not pts or not inside(shapes.get(abbr, []), pts[-1]) or math.dist(pts[0], mid_pt) > 3 * _unit_r(g):
                rep.units_astray.append(abbr)
        elif not inside(shapes.get(abbr, []), mid_pt):
            rep.units_astray.append(abbr)
    items = sorted(boxes.items())
    for i, (a, (ba, sa, ma)) in enumerate(items):
        for b, (bb, sb, mb) in items[i + 1 :]:
            if _overlap(ba, bb):
                rep.overlaps.append((a, b))
                continue
            # On one line (middles within half a letter) with under a third of a letter between them.
            gap = max(bb[0] - ba[2], ba[0] - bb[2])
            if abs(ma - mb) < min(sa, sb) * 0.5 and gap < min(sa, sb) * 0.33:
                rep.run_together.append((a, b))
        for m, pt in marks:
            if m != a and ba[0] < pt[0] < ba[2] and ba[1] < pt[1] < ba[3]:
                rep.names_on_marks.append((a, m))
    drawn_units.sort(key=lambda u: u[0])
    box_poly = [[(nb[0], nb[1]), (nb[2], nb[1]), (nb[2], nb[3]), (nb[0], nb[3])] for _, (nb, _, _) in items]
    for i, (ua, uma, uba) in enumerate(drawn_units):
        rep.units_crowded += [
            (ua, ub) for ub, umb, ubb in drawn_units[i + 1 :] if _overlap(uba, ubb) and marks_touch(uma, umb)
        ]
        rep.units_on_names += [
            (ua, n)
            for (n, (nb, _, _)), poly in zip(items, box_poly, strict=True)
            if _overlap(uba, nb) and marks_touch(uma, ([poly], 0.0))
        ]
    covers: list[Cover] = [(a, f"{a} unit", m) for a, m, _ in drawn_units]
    for e in root.iter(f"{NS}circle"):
        place = e.get("data-place")
        if place and "place-ring" in (e.get("class") or "").split():
            covers.append(
                (place, f"{place} unit", disc_mark(_num(e, "cx"), _num(e, "cy"), _num(e, "r"), _num(e, "stroke-width")))
            )
    covers += [(n, f"{n} name", ([poly], 0.0)) for (n, _), poly in zip(items, box_poly, strict=True)]
    rep.leaders_covered = covered(leader_lines(root), covers)
    for lst in (rep.names_astray, rep.names_elsewhere, rep.markers_astray, rep.units_astray, rep.bad_leaders):
        lst.sort()
    return rep
