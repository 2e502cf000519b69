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

import math
import re
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


def path_points(d: str) -> list[tuple[float, float]]:
    """The end points of an SVG path's segments (absolute and relative commands), enough for its middle."""
    pts: list[tuple[float, float]] = []
    x = y = 0.0
    start = (0.0, 0.0)
    cmd = "M"
    nums: list[float] = []

    def flush() -> None:
        nonlocal x, y, start, cmd
        low = cmd.lower()
        n = _ARGS[low]
        if n == 0:
            x, y = start
            return
        while len(nums) >= n:
            a = nums[:n]
            del nums[:n]
            rel = cmd.islower()
            if low == "h":
                x = x + a[0] if rel else a[0]
            elif low == "v":
                y = y + a[0] if rel else a[0]
            else:
                nx, ny = a[-2], a[-1]
                x, y = (x + nx, y + ny) if rel else (nx, ny)
            pts.append((x, y))
            if low == "m":
                start = (x, y)
                cmd = "l" if rel else "L"  # further pairs after a move are lines

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
    return pts


def read_godip_svg(path: Path) -> dict[str, tuple[float, float]]:
    """The middle (of the bounding box) of each province's outline, by lower-case id (y downwards), from a
    godip map SVG, whose provinces are paths with the province's abbreviation as their id."""
    text = path.read_text(encoding="utf-8", errors="replace")
    spots: dict[str, tuple[float, float]] = {}
    for m in re.finditer(r"<(path|polygon|polyline)\b([^>]*)>", text):
        attrs = m.group(2)
        pid = re.search(r'\bid="([^"]+)"', attrs)
        if not pid:
            continue
        if m.group(1) == "path":
            d = re.search(r'\bd="([^"]+)"', attrs)
            pts = path_points(d.group(1)) if d else []
        else:
            got = re.search(r'\bpoints="([^"]+)"', attrs)
            nums = (
                [float(v) for v in re.findall(r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?", got.group(1))] if got else []
            )
            pts = list(zip(nums[0::2], nums[1::2], strict=False))
        shift = re.search(r'\btransform="translate\(\s*([-\d.eE]+)[\s,]+([-\d.eE]+)\s*\)"', attrs)
        if "transform=" in attrs and not shift:
            continue  # a rotation or a matrix: its spot would be misplaced; the province goes among its neighbours
        dx, dy = (float(shift.group(1)), float(shift.group(2))) if shift else (0.0, 0.0)
        if len(pts) < 3:
            continue
        xs = [p[0] + dx for p in pts]
        ys = [p[1] + dy for p in pts]
        spots.setdefault(pid.group(1).lower(), ((min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2))
    return spots


def to_degrees(points: Mapping[str, tuple[float, float]], *, y_up: bool) -> dict[str, list[float]]:
    """Picture spots as ``[lon, lat]`` about 0°N 0°E, the longer side ``SPAN_DEGREES`` long."""
    xs = [p[0] for p in points.values()]
    ys = [p[1] for p in points.values()]
    cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    span = max(max(xs) - min(xs), max(ys) - min(ys)) or 1.0
    k = SPAN_DEGREES / span
    sign = 1.0 if y_up else -1.0
    return {a: [round((x - cx) * k, 3), round(sign * (y - cy) * k, 3)] for a, (x, y) in points.items()}


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
) -> None:
    """Give every province a ``point``: its spot in the source's picture (``spots``, by abbreviation), or,
    without a picture, a layout of the border graph; a province the picture leaves out goes to the middle
    of its placed neighbours. Says in ``report`` where the points came from."""
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
    if len(placed) < 3:
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
        report.append(
            f"{len(missing)} province(s) without a spot in the picture placed among their neighbours: "
            f"{' '.join(missing[:12])}{' ...' if len(missing) > 12 else ''}"
        )
    degrees = to_degrees(placed, y_up=y_up)
    for a, p in provinces.items():
        if a in degrees:
            p["point"] = degrees[a]
    if lost:
        report.append(f"no point for {' '.join(lost)} (no neighbour placed either): add `point` by hand")
