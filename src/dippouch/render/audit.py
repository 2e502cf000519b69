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
- a centre marker is astray when its middle lies outside its own province's shape and no leader line (a
  ``path`` of class ``leader`` in the marker's group) runs from it to a point inside that shape;
- a unit is astray when its middle lies outside its own province's shape;
- two names *overlap* when their text boxes do, and *run together* when they stand on one line with less
  than a third of a letter between them (they read as one word: "SCHOBO");
- a name is *on a mark* when its box covers another province's unit spot or centre marker.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from dippouch.render.geometry import path_rings
from dippouch.render.text import BASELINE, LABEL_DOWN, LABEL_UP, text_width

__all__ = ["LayoutReport", "audit_svg", "inside", "label_box"]

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
    markers_astray: list[str] = field(default_factory=list)
    units_astray: list[str] = field(default_factory=list)
    overlaps: list[tuple[str, str]] = field(default_factory=list)
    run_together: list[tuple[str, str]] = field(default_factory=list)
    names_on_marks: list[tuple[str, str]] = field(default_factory=list)
    """(name, mark): the name of the first covers the unit spot or centre marker of the second."""
    unnamed: list[str] = field(default_factory=list)
    bad_leaders: list[str] = field(default_factory=list)
    """Leader lines that do not start at their name or do not end inside their province."""

    @property
    def misplaced(self) -> int:
        """Names and markers away from their province, and names over each other: what must be zero."""
        return (
            len(self.names_astray)
            + len(self.markers_astray)
            + len(self.overlaps)
            + len(self.bad_leaders)
            + len(self.units_astray)
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
                f"  centre markers outside their province {len(self.markers_astray)}{some(self.markers_astray)}",
                f"  units outside their province {len(self.units_astray)}{some(self.units_astray)}",
                f"  names overlapping {len(self.overlaps)}{some(self.overlaps)}",
                f"  leader lines astray {len(self.bad_leaders)}{some(self.bad_leaders)}",
                f"  names running together {len(self.run_together)}{some(self.run_together)}",
                f"  names over another's unit or centre {len(self.names_on_marks)}{some(self.names_on_marks)}",
                f"  provinces without a name {len(self.unnamed)}{some(self.unnamed)}",
            ]
        )


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


def _ids(root: ET.Element, prefix: str) -> dict[str, ET.Element]:
    return {(e.get("id") or "")[len(prefix) :]: e for e in root.iter() if (e.get("id") or "").startswith(prefix)}


def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def audit_svg(svg: str) -> LayoutReport:
    """Read a drawn map back and check where its names, centre markers and units are (see the module's doc)."""
    root = ET.fromstring(svg)
    rep = LayoutReport()
    shapes = {k: path_rings(e.get("d") or "") for k, e in _ids(root, "r-").items()}
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
    for abbr, g in _ids(root, "unit-").items():
        mid_pt = _unit_middle(g)
        if mid_pt is None:
            continue
        marks.append((abbr, mid_pt))
        if not inside(shapes.get(abbr, []), mid_pt):
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
    for lst in (rep.names_astray, rep.markers_astray, rep.units_astray, rep.bad_leaders):
        lst.sort()
    return rep
