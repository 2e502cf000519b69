"""The committed coastline clip: Natural Earth 10m land, cut to the part of the world the variants use.

``make_clip`` is run by hand, once, from the npm package ``world-atlas`` (see render/data/SOURCE.md); it is
the only code that reads the original data. ``load_land`` reads the committed clip, which is all a build
needs, so a fresh checkout builds maps without downloading anything.

Clip format (``land.json.gz``, gzip of compact JSON, written byte-for-byte reproducibly): ``{"format":
"dippouch-land", "unit": 0.005, "bbox": [...], "polygons": [[ring, ...], ...]}`` where each ring is a flat
list of integers, the first point in units of ``unit`` degrees and every later one as a difference from the
one before (rings are closed implicitly). Differences keep the file small.
"""

from __future__ import annotations

import gzip
import hashlib
import itertools
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import shapely
from shapely.geometry import Polygon, box

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
LAND_CLIP = DATA_DIR / "land.json.gz"

#: Longitude/latitude box of the clip: every variant's board with a margin.
CLIP_BBOX = (-60.0, 24.0, 85.0, 80.0)
UNIT = 0.005
#: Islands smaller than this (square degrees, about 0.3 km² at 55°N) are dropped.
MIN_AREA = 0.00005

#: The world coastline, for boards the clip does not cover (East Asia, the Americas): Natural Earth 1:50m,
#: simplified by 0.03° (about 3 km), islands under 0.01 square degrees dropped, rounded to 0.01°.
WORLD = DATA_DIR / "world.json.gz"
WORLD_UNIT = 0.01
WORLD_SIMPLIFY = 0.03
WORLD_MIN_AREA = 0.01


def _decode_topojson(data: dict[str, Any], name: str = "land") -> list[Polygon]:
    """Polygons of a TopoJSON object: arcs are delta-encoded quantized points; a negative arc index ~i means
    arc i reversed; consecutive arcs of a ring share their joining point."""
    sx, sy = data["transform"]["scale"]
    tx, ty = data["transform"]["translate"]
    arcs: list[list[tuple[float, float]]] = []
    for arc in data["arcs"]:
        x = y = 0
        pts = []
        for dx, dy in arc:
            x += dx
            y += dy
            pts.append((x * sx + tx, y * sy + ty))
        arcs.append(pts)

    def ring(indices: list[int]) -> list[tuple[float, float]]:
        out: list[tuple[float, float]] = []
        for i in indices:
            pts = arcs[i] if i >= 0 else arcs[~i][::-1]
            out.extend(pts if not out else pts[1:])
        return out

    polys: list[Polygon] = []
    for geom in data["objects"][name]["geometries"]:
        parts = geom["arcs"] if geom["type"] == "MultiPolygon" else [geom["arcs"]]
        for part in parts:
            rings = [ring(r) for r in part]
            if max(x for x, _ in rings[0]) - min(x for x, _ in rings[0]) > 300:
                # A landmass cut at the antimeridian (Eurasia's Chukotka): put its far-east end past +180
                # so the ring is one plane polygon.
                rings = [[(x + 360 if x < -150 else x, y) for x, y in r] for r in rings]
            if len(rings[0]) >= 4:
                polys.append(Polygon(rings[0], [r for r in rings[1:] if len(r) >= 4]))
    return polys


def polygons_of(geom: Any) -> list[Polygon]:
    """The polygons in any shapely geometry (collections flattened, lines and points dropped)."""
    if isinstance(geom, Polygon):
        return [] if geom.is_empty else [geom]
    return [p for g in getattr(geom, "geoms", []) for p in polygons_of(g)]


def valid_parts(polys: list[Polygon]) -> list[Polygon]:
    """Each polygon made valid on its own (the clip's polygons never overlap one another, so the whole
    needs no repair, which is far slower)."""
    arr = np.array(polys, dtype=object)
    bad = ~shapely.is_valid(arr)
    if bad.any():
        arr[bad] = shapely.make_valid(arr[bad])
    return [p for g in arr for p in polygons_of(g)]


def make_clip(topojson: Path, out: Path = LAND_CLIP) -> str:
    """Write the clip from world-atlas's ``land-10m.json``; returns its SHA-256."""
    clip = box(*CLIP_BBOX)
    pieces = []
    for p in _decode_topojson(json.loads(topojson.read_text(encoding="utf-8"))):
        if p.intersects(clip):
            pieces.extend(polygons_of(shapely.make_valid(p).intersection(clip)))
    land = shapely.union_all(pieces)
    land = shapely.simplify(land, UNIT * 0.6, preserve_topology=True)
    parts = [p for p in polygons_of(land) if p.area >= MIN_AREA]
    blob = _encode(parts, UNIT, CLIP_BBOX)
    out.write_bytes(blob)
    return hashlib.sha256(blob).hexdigest()


def _encode(parts: list[Polygon], unit: float, bbox: tuple[float, float, float, float]) -> bytes:
    """The clip format's bytes (gzip time stamp 0, so they are reproducible)."""
    parts = sorted(parts, key=lambda p: (round(p.bounds[0], 4), round(p.bounds[1], 4), -p.area))
    encoded = []
    for p in parts:
        rings = []
        for r in [p.exterior, *p.interiors]:
            q = [(round(x / unit), round(y / unit)) for x, y in r.coords[:-1]]
            dedup = [pt for i, pt in enumerate(q) if i == 0 or pt != q[i - 1]]
            if len(dedup) < 3:
                continue
            flat = [dedup[0][0], dedup[0][1]]
            for (x0, y0), (x1, y1) in itertools.pairwise(dedup):
                flat += [x1 - x0, y1 - y0]
            rings.append(flat)
        if rings:
            encoded.append(rings)
    doc = {"format": "dippouch-land", "unit": unit, "bbox": list(bbox), "polygons": encoded}
    raw = json.dumps(doc, separators=(",", ":")).encode("ascii")
    return gzip.compress(raw, compresslevel=9, mtime=0)


def make_world(topojson: Path, out: Path | None = None) -> str:
    """Write the world coastline from world-atlas's ``land-50m.json``: the whole globe, simplified by
    ``WORLD_SIMPLIFY`` degrees (topology kept), islands under ``WORLD_MIN_AREA`` square degrees dropped,
    rounded to ``WORLD_UNIT``; returns its SHA-256."""
    parts = []
    for p in _decode_topojson(json.loads(topojson.read_text(encoding="utf-8"))):
        g = shapely.simplify(shapely.make_valid(p), WORLD_SIMPLIFY, preserve_topology=True)
        parts += [q for q in polygons_of(g) if q.area >= WORLD_MIN_AREA]
    blob = _encode(parts, WORLD_UNIT, (-180.0, -90.0, 180.0, 90.0))
    (out or WORLD).write_bytes(blob)
    return hashlib.sha256(blob).hexdigest()


def clip_hash() -> str:
    """SHA-256 of the committed clip, part of every map's hash (new coastline data, new maps)."""
    return hashlib.sha256(LAND_CLIP.read_bytes()).hexdigest()


@lru_cache(maxsize=1)
def load_land() -> tuple[Polygon, ...]:
    """The committed land clip's polygons (each valid; neighbours may touch after rounding) in
    longitude/latitude."""
    return _decode(LAND_CLIP)


def world_hash() -> str | None:
    """SHA-256 of the committed world coastline, or None when it is missing."""
    return hashlib.sha256(WORLD.read_bytes()).hexdigest() if WORLD.is_file() else None


@lru_cache(maxsize=1)
def load_world() -> tuple[Polygon, ...]:
    """The committed world coastline's polygons in longitude/latitude (empty when the file is missing or
    unreadable: the builder then draws land from the provinces and says so)."""
    try:
        return _decode(WORLD)
    except (OSError, ValueError, KeyError, IndexError, EOFError):
        return ()


def _decode(path: Path) -> tuple[Polygon, ...]:
    doc = json.loads(gzip.decompress(path.read_bytes()))
    unit = float(doc["unit"])
    polys = []
    for rings in doc["polygons"]:
        shells = []
        for flat in rings:
            x, y = flat[0], flat[1]
            pts = [(x * unit, y * unit)]
            for i in range(2, len(flat), 2):
                x += flat[i]
                y += flat[i + 1]
                pts.append((x * unit, y * unit))
            shells.append(pts)
        polys.append(Polygon(shells[0], shells[1:]))
    return tuple(valid_parts(polys))


if __name__ == "__main__":  # pragma: no cover - run by hand to remake the clip
    import sys

    if len(sys.argv) > 2 and sys.argv[1] == "--world":
        print(make_world(Path(sys.argv[2])))
    else:
        print(make_clip(Path(sys.argv[1])))
