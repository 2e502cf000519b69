"""Where an imported map's provinces lie, from the source's own picture or, failing one, a graph layout.

Another judge's map has no geography we could use: DPjudge draws from a PostScript file whose ``% INFO``
comment lists each location's spot (``%  311  155 ADR    Adriatic Sea``, y upwards) and whose
``VisitColors``/``VisitPowers`` procedures name each power's colour; MILA's SVG maps give each province a
``jdipNS:PROVINCE`` element with a ``jdipNS:UNIT`` spot (y downwards). These are read as facts of a
format; nothing of those projects' code is used. The spots are in the picture's own plane, so they are
scaled onto a small patch of the globe about 0°N 0°E (no real coastline: ``[drawing] coastline =
"provinces"`` draws land and sea from the provinces' kinds), keeping the picture's layout. A map with no
picture at all is laid out from its borders (a force-directed layout, deterministic).
"""

from __future__ import annotations

import itertools
import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping
from pathlib import Path

__all__ = ["PALETTE", "graph_layout", "place_provinces", "read_godip_svg", "read_mila_svg", "read_ps", "to_degrees"]

#: Span of the longer side of an imported picture, in degrees about 0°N 0°E (about 2200 km): small enough
#: that the projection keeps the picture's shapes, large enough for the builder's kilometre thresholds.
SPAN_DEGREES = 20.0

#: Distinct colours for powers the source gives none (12, then repeated darker).
PALETTE = (
    "#e6194b",
    "#4363d8",
    "#3cb44b",
    "#ffe119",
    "#f58231",
    "#911eb4",
    "#42d4f4",
    "#f032e6",
    "#9a6324",
    "#469990",
    "#800000",
    "#808000",
)

_INFO = re.compile(r"^%\s+(-?\d+(?:\.\d+)?)\s+(-?\d+(?:\.\d+)?)\s+([A-Za-z0-9_]+(?:/[A-Za-z]+)?)\b")
_COLOUR = re.compile(r"^\s*/(\w+)\s+([\d.]+)\s+(?:([\d.]+)\s+([\d.]+)\s+)?([rg])\s*$")
_POWER = re.compile(r"^\s*/(\S+)\s+\((.)\)\s+/(\w+)\s+/(\w+)\s+p\s*$")


def _hex(r: float, g: float, b: float) -> str:
    return "#" + "".join(f"{max(0, min(255, round(c * 255))):02x}" for c in (r, g, b))


def read_ps(path: Path) -> tuple[dict[str, tuple[float, float]], dict[str, str]]:
    """Spots by lower-case location (y upwards) and colours by upper-case power name, from a DPjudge .ps."""
    text = path.read_text(encoding="latin-1")
    points: dict[str, tuple[float, float]] = {}
    in_info = False
    colours: dict[str, str] = {}
    power_colour: dict[str, str] = {}
    section = ""
    for line in text.splitlines():
        if line.startswith("% INFO"):
            in_info = True
            continue
        if in_info:
            m = _INFO.match(line)
            if m:
                points.setdefault(m.group(3).lower(), (float(m.group(1)), float(m.group(2))))
                continue
            if not line.startswith("%"):
                in_info = False
        if line.startswith("/VisitColors"):
            section = "colours"
        elif line.startswith("/VisitPowers"):
            section = "powers"
        elif line.startswith("} def") or line.startswith("} bd"):
            section = ""
        elif section == "colours":
            m = _COLOUR.match(line)
            if m:
                name, a, g, b, kind = m.groups()
                colours[name] = (
                    _hex(float(a), float(a), float(a)) if kind == "g" else _hex(float(a), float(g), float(b))
                )
        elif section == "powers":
            m = _POWER.match(line)
            if m:
                power_colour[re.sub(r"[^A-Z0-9]", "", m.group(1).upper())] = m.group(3)
    return points, {p: colours[c] for p, c in power_colour.items() if c in colours}


def read_mila_svg(path: Path) -> dict[str, tuple[float, float]]:
    """Unit spots by lower-case location (y downwards) from a MILA (jDip-style) SVG map."""
    text = path.read_text(encoding="utf-8", errors="replace")
    points: dict[str, tuple[float, float]] = {}
    pat = r'<jdipNS:PROVINCE\s+name="([^"]+)"\s*>\s*<jdipNS:UNIT\s+x="([-\d.]+)"\s+y="([-\d.]+)"'
    for m in re.finditer(pat, text):
        points.setdefault(m.group(1).lower().replace("-", "/"), (float(m.group(2)), float(m.group(3))))
    return points


_PATH_TOKEN = re.compile(r"[MmLlHhVvCcSsQqTtAaZz]|-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_ARGS = {"m": 2, "l": 2, "h": 1, "v": 1, "c": 6, "s": 4, "q": 4, "t": 2, "a": 7, "z": 0}
_NUMBER = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")

Ring = list[tuple[float, float]]
Affine = tuple[float, float, float, float, float, float]
_IDENTITY: Affine = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


def path_rings(d: str, steps: int = 4) -> list[Ring]:
    """The subpaths of an SVG path as rings of points (absolute and relative commands); a curve is cut into
    ``steps`` straight pieces, an arc drawn as a straight line to its end (rare in map pictures)."""
    rings: list[Ring] = []
    ring: Ring = []
    x = y = 0.0
    start = (0.0, 0.0)
    ctrl: tuple[float, float] | None = None  # the last curve's second control point, for S and T
    cmd = "M"
    nums: list[float] = []

    def bezier(pts: list[tuple[float, float]]) -> None:
        for i in range(1, steps + 1):
            t = i / steps
            q = list(pts)
            while len(q) > 1:
                q = [((1 - t) * a[0] + t * b[0], (1 - t) * a[1] + t * b[1]) for a, b in itertools.pairwise(q)]
            ring.append(q[0])

    def flush() -> None:
        nonlocal x, y, start, cmd, ring, ctrl
        low = cmd.lower()
        n = _ARGS[low]
        if n == 0:
            x, y = start
            if len(ring) >= 3:
                rings.append(ring)
            ring = []
            ctrl = None
            return
        while len(nums) >= n:
            a = nums[:n]
            del nums[:n]
            ox, oy = (x, y) if cmd.islower() else (0.0, 0.0)
            if low == "h":
                x = ox + a[0]
                ring.append((x, y))
                ctrl = None
            elif low == "v":
                y = oy + a[0]
                ring.append((x, y))
                ctrl = None
            elif low in ("c", "s", "q", "t"):
                given = [(ox + a[i], oy + a[i + 1]) for i in range(0, n, 2)]
                if low in ("s", "t"):
                    mirror = (2 * x - ctrl[0], 2 * y - ctrl[1]) if ctrl else (x, y)
                    given = [mirror, *given]
                bezier([(x, y), *given])
                ctrl = given[-2]
                x, y = given[-1]
            else:
                x, y = ox + a[-2], oy + a[-1]
                if low == "m":
                    if len(ring) >= 3:
                        rings.append(ring)
                    ring = []
                    start = (x, y)
                    cmd = "l" if cmd.islower() else "L"  # further pairs after a move are lines
                ring.append((x, y))
                ctrl = None

    for tok in _PATH_TOKEN.findall(d):
        if tok.isalpha():
            flush()
            nums.clear()
            cmd = tok
            if tok in "Zz":
                flush()
        else:
            nums.append(float(tok))
            if len(nums) >= _ARGS[cmd.lower()] > 0:
                flush()
    if len(ring) >= 3:
        rings.append(ring)
    return rings


def _affine(transform: str | None) -> Affine:
    """An SVG ``transform`` attribute as an affine matrix (a b c d e f); unknown parts count as none."""
    out = _IDENTITY
    for name, args in re.findall(r"(\w+)\s*\(([^)]*)\)", transform or ""):
        v = [float(n) for n in _NUMBER.findall(args)]
        m: Affine = _IDENTITY
        if name == "translate" and v:
            m = (1, 0, 0, 1, v[0], v[1] if len(v) > 1 else 0.0)
        elif name == "scale" and v:
            m = (v[0], 0, 0, v[1] if len(v) > 1 else v[0], 0, 0)
        elif name == "matrix" and len(v) == 6:
            m = (v[0], v[1], v[2], v[3], v[4], v[5])
        elif name == "rotate" and v:
            c, s = math.cos(math.radians(v[0])), math.sin(math.radians(v[0]))
            cx, cy = (v[1], v[2]) if len(v) == 3 else (0.0, 0.0)
            m = (c, s, -s, c, cx - c * cx + s * cy, cy - s * cx - c * cy)
        out = _compose(out, m)
    return out


def _compose(p: Affine, q: Affine) -> Affine:
    """``p`` applied after ``q`` (a parent's transform, then its child's)."""
    a, b, c, d, e, f = p
    a2, b2, c2, d2, e2, f2 = q
    return (
        a * a2 + c * b2,
        b * a2 + d * b2,
        a * c2 + c * d2,
        b * c2 + d * d2,
        a * e2 + c * f2 + e,
        b * e2 + d * f2 + f,
    )


def _shape_rings(el: ET.Element) -> list[Ring]:
    tag = el.tag.rsplit("}", 1)[-1]
    if tag == "path":
        return path_rings(el.get("d") or "")
    if tag in ("polygon", "polyline"):
        nums = [float(v) for v in _NUMBER.findall(el.get("points") or "")]
        pts = list(zip(nums[0::2], nums[1::2], strict=False))
        return [pts] if len(pts) >= 3 else []
    if tag in ("circle", "ellipse", "rect"):  # godip's Pure draws its provinces as circles
        try:
            if tag == "rect":
                x, y = float(el.get("x") or 0), float(el.get("y") or 0)
                w, h = float(el.get("width") or 0), float(el.get("height") or 0)
                return [[(x, y), (x + w, y), (x + w, y + h), (x, y + h)]] if w > 0 and h > 0 else []
            cx, cy = float(el.get("cx") or 0), float(el.get("cy") or 0)
            rx = float(el.get("r") or el.get("rx") or 0)
            ry = float(el.get("r") or el.get("ry") or 0)
        except ValueError:
            return []
        n = 32
        return (
            [[(cx + rx * math.cos(2 * math.pi * i / n), cy + ry * math.sin(2 * math.pi * i / n)) for i in range(n)]]
            if rx > 0 and ry > 0
            else []
        )
    return []


def read_outlines(path: Path, layer: str | None) -> dict[str, list[Ring]]:
    """Each province's outline (rings, in the picture's own frame, y downwards) by lower-case id, from the
    group ``layer`` of an SVG map: every path, polygon or polyline in it belongs to the nearest id on it or
    above it in the group (MILA's ``_ank``, godip's ``ank``; a leading underscore is dropped; no ``layer``:
    the whole picture). Transforms
    (translate, scale, rotate, matrix) of the element and its groups are applied."""
    try:
        root = ET.parse(path).getroot()
    except (ET.ParseError, OSError) as e:
        raise ValueError(f"{path.name} is not readable SVG: {e}") from None
    out: dict[str, list[Ring]] = {}

    def walk(el: ET.Element, m: Affine, owner: str | None, inside: bool) -> None:
        m = _compose(m, _affine(el.get("transform")))
        ident = el.get("id")
        if inside and ident:
            owner = ident.lower().lstrip("_")
        if not inside and ident == layer:
            inside = True
        if inside and owner:
            for ring in _shape_rings(el):
                a, b, c, d, e, f = m
                out.setdefault(owner, []).append([(a * x + c * y + e, b * x + d * y + f) for x, y in ring])
        for child in el:
            walk(child, m, owner, inside)

    walk(root, _IDENTITY, None, layer is None)
    return out


def _inside(ring: Ring, x: float, y: float) -> bool:
    hit = False
    for (x0, y0), (x1, y1) in zip(ring, [*ring[1:], ring[0]], strict=True):
        if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
            hit = not hit
    return hit


def _ring_area(ring: Ring) -> float:
    return abs(sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(ring, [*ring[1:], ring[0]], strict=True))) / 2


def inner_spot(rings: list[Ring]) -> tuple[float, float]:
    """A spot well inside the largest ring of an outline: of a grid over it, the point inside farthest
    from the ring's corners (the middle of its box when that is inside), so a C-shaped province's spot
    is still on it."""
    ring = max(rings, key=_ring_area)
    xs = [p[0] for p in ring]
    ys = [p[1] for p in ring]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    mid = ((x0 + x1) / 2, (y0 + y1) / 2)
    if _inside(ring, *mid):
        return mid
    best, best_d = mid, -1.0
    for i in range(1, 12):
        for j in range(1, 12):
            x, y = x0 + (x1 - x0) * i / 12, y0 + (y1 - y0) * j / 12
            if _inside(ring, x, y):
                d = min((x - px) ** 2 + (y - py) ** 2 for px, py in ring)
                if d > best_d:
                    best, best_d = (x, y), d
    return best


def read_godip_svg(path: Path) -> tuple[dict[str, tuple[float, float]], dict[str, list[Ring]]]:
    """Spots and outlines by lower-case id (y downwards) from a godip map SVG, whose provinces are the
    paths of its ``provinces`` group with the province's abbreviation as their id (a file with no such
    group: every identified path of it)."""
    outlines = read_outlines(path, "provinces") or read_outlines(path, None)
    return {k: inner_spot(v) for k, v in outlines.items()}, outlines


def _simplify(ring: list[list[float]], tol: float) -> list[list[float]]:
    """A ring with the corners that lie within ``tol`` of the line through their kept neighbours dropped
    (Ramer, Douglas and Peucker's method, from the ring's first corner and its farthest one)."""
    if len(ring) < 5:
        return ring
    far = max(range(len(ring)), key=lambda i: (ring[i][0] - ring[0][0]) ** 2 + (ring[i][1] - ring[0][1]) ** 2)
    keep = {0, far}
    stack = [(0, far), (far, len(ring))]
    while stack:
        i, j = stack.pop()
        a, b = ring[i], ring[j % len(ring)]
        dx, dy = b[0] - a[0], b[1] - a[1]
        norm = math.hypot(dx, dy) or 1e-12
        best, best_d = -1, tol
        for k in range(i + 1, j):
            p = ring[k]
            d = abs(dy * (p[0] - a[0]) - dx * (p[1] - a[1])) / norm if norm > 1e-12 else math.dist(p, a)
            if d > best_d:
                best, best_d = k, d
        if best >= 0:
            keep.add(best)
            stack += [(i, best), (best, j)]
    return [ring[i] for i in sorted(keep)]


def to_degrees(
    points: Mapping[str, tuple[float, float]],
    *,
    y_up: bool,
    outlines: Mapping[str, list[Ring]] | None = None,
) -> tuple[dict[str, list[float]], dict[str, list[list[list[float]]]]]:
    """Picture spots as ``[lon, lat]`` about 0°N 0°E, the longer side of their box ``SPAN_DEGREES`` long,
    and the outlines carried by the same scaling (so shapes and spots stay in one plane), rounded to
    0.01° (under a pixel of the source) with repeated corners dropped."""
    xs = [p[0] for p in points.values()]
    ys = [p[1] for p in points.values()]
    cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    span = max(max(xs) - min(xs), max(ys) - min(ys)) or 1.0
    k = SPAN_DEGREES / span
    sign = 1.0 if y_up else -1.0
    spots = {a: [round((x - cx) * k, 3), round(sign * (y - cy) * k, 3)] for a, (x, y) in points.items()}
    shapes: dict[str, list[list[list[float]]]] = {}
    for a, rings in (outlines or {}).items():
        out = []
        for ring in rings:
            pts: list[list[float]] = []
            for x, y in ring:
                q = [round((x - cx) * k, 2), round(sign * (y - cy) * k, 2)]
                if not pts or q != pts[-1]:
                    pts.append(q)
            if len(pts) > 3 and pts[0] == pts[-1]:
                pts.pop()
            pts = _simplify(pts, 0.012)
            if len(pts) >= 3:
                out.append(pts)
        if out:
            shapes[a] = out
    return spots, shapes


def graph_layout(nodes: Iterable[str], edges: Iterable[tuple[str, str]]) -> dict[str, tuple[float, float]]:
    """A force-directed layout (Fruchterman and Reingold's) of a map's border graph, y upwards.

    Deterministic: nodes start on a circle in sorted order. Neighbours pull, every pair pushes, so
    provinces that border each other end up side by side and the drawing's borders come near the graph's.
    """
    names = sorted(set(nodes))
    n = len(names)
    if n == 0:
        return {}
    idx = {a: i for i, a in enumerate(names)}
    links = sorted({(min(idx[a], idx[b]), max(idx[a], idx[b])) for a, b in edges if a in idx and b in idx and a != b})
    pos = [[math.cos(2 * math.pi * i / n) * n, math.sin(2 * math.pi * i / n) * n] for i in range(n)]
    k = 1.0 * math.sqrt(max(n, 1))
    temp = n / 2
    for _ in range(300):
        disp = [[0.0, 0.0] for _ in range(n)]
        for i in range(n):
            xi, yi = pos[i]
            for j in range(i + 1, n):
                dx, dy = xi - pos[j][0], yi - pos[j][1]
                d2 = dx * dx + dy * dy or 1e-6
                f = k * k / d2
                disp[i][0] += dx * f
                disp[i][1] += dy * f
                disp[j][0] -= dx * f
                disp[j][1] -= dy * f
        for i, j in links:
            dx, dy = pos[i][0] - pos[j][0], pos[i][1] - pos[j][1]
            d = math.hypot(dx, dy) or 1e-6
            f = d / k
            disp[i][0] -= dx * f
            disp[i][1] -= dy * f
            disp[j][0] += dx * f
            disp[j][1] += dy * f
        for i in range(n):
            dx, dy = disp[i]
            d = math.hypot(dx, dy) or 1e-6
            step = min(d, temp)
            pos[i][0] += dx / d * step
            pos[i][1] += dy / d * step
        temp = max(temp * 0.97, 0.01)
    return {a: (pos[i][0], pos[i][1]) for a, i in idx.items()}


def place_provinces(
    provinces: dict[str, dict[str, object]],
    spots: Mapping[str, tuple[float, float]] | None,
    *,
    y_up: bool,
    source: str,
    report: list[str],
    outlines: Mapping[str, list[Ring]] | None = None,
) -> dict[str, list[list[list[float]]]]:
    """Give every province a ``point``: its spot in the source's picture (``spots``, by abbreviation), or,
    without a picture, a layout of the border graph; a province the picture leaves out goes to the middle
    of its placed neighbours. Says in ``report`` where the points came from. Returns the provinces'
    ``outlines`` (by abbreviation, in the picture's frame like the spots) in the same plane, for
    ``[drawing] outlines``; empty when the points come from a layout."""
    edges = [
        (a, str(b).split("/")[0])
        for a, p in provinces.items()
        for key in ("army", "fleet")
        for b in p.get(key, []) or []  # type: ignore[attr-defined]
    ]
    for a, p in provinces.items():
        for c in (p.get("coasts") or {}).values():  # type: ignore[attr-defined]
            edges += [(a, str(b).split("/")[0]) for b in c.get("fleet", [])]
    placed = {a: s for a, s in (spots or {}).items() if a in provinces}
    shapes = {a: r for a, r in (outlines or {}).items() if a in provinces}
    if len(placed) < 3:
        shapes = {}
        placed = graph_layout(provinces, edges)
        y_up = True
        report.append(
            "the map's points come from a layout of its borders (the source has no picture to take them from): "
            "the drawing shows who borders whom, not the source's geography"
        )
    else:
        report.append(
            f"the map's points are the spots of {source}, scaled about 0°N 0°E (not real longitude and latitude); "
            'land and sea are drawn from the provinces\' kinds ([drawing] coastline = "provinces")'
        )
    missing = sorted(set(provinces) - set(placed))
    neighbours: dict[str, set[str]] = {}
    for a, b in edges:
        neighbours.setdefault(a, set()).add(b)
        neighbours.setdefault(b, set()).add(a)
    for _ in range(len(missing) + 1):
        for a in missing:
            if a in placed:
                continue
            near = [placed[b] for b in sorted(neighbours.get(a, ())) if b in placed]
            if near:
                x = sum(p[0] for p in near) / len(near)
                y = sum(p[1] for p in near) / len(near)
                placed[a] = (x + 0.01 * len(placed), y)
    lost = [a for a in missing if a not in placed]
    if missing:
        noun = "province" if len(missing) == 1 else "provinces"  # the import's report is English only
        report.append(
            f"{len(missing)} {noun} without a spot in the picture placed among their neighbours: "
            f"{' '.join(missing[:12])}{' ...' if len(missing) > 12 else ''}"
        )
    degrees, drawn = to_degrees(placed, y_up=y_up, outlines=shapes)
    for a, p in provinces.items():
        if a in degrees:
            p["point"] = degrees[a]
    if lost:
        report.append(f"no point for {' '.join(lost)} (no neighbour placed either): add `point` by hand")
    if drawn:
        unshaped = sorted(a for a, p in provinces.items() if a not in drawn and p.get("type") != "impassable")
        report.append(
            f"province outlines taken from {source} for {len(drawn)} of {len(provinces)} provinces "
            "([drawing] outlines, in the same plane as the points)"
            + (
                f"; {len(unshaped)} without one are drawn round their points: {' '.join(unshaped[:12])}"
                f"{' ...' if len(unshaped) > 12 else ''}"
                if unshaped
                else ""
            )
        )
    return drawn
