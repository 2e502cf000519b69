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
    parts.sort(key=lambda p: (round(p.bounds[0], 4), round(p.bounds[1], 4), -p.area))
    encoded = []
    for p in parts:
        rings = []
        for r in [p.exterior, *p.interiors]:
            q = [(round(x / UNIT), round(y / UNIT)) for x, y in r.coords[:-1]]
            dedup = [pt for i, pt in enumerate(q) if i == 0 or pt != q[i - 1]]
            if len(dedup) < 3:
                continue
            flat = [dedup[0][0], dedup[0][1]]
            for (x0, y0), (x1, y1) in itertools.pairwise(dedup):
                flat += [x1 - x0, y1 - y0]
            rings.append(flat)
        if rings:
            encoded.append(rings)
    doc = {"format": "dippouch-land", "unit": UNIT, "bbox": list(CLIP_BBOX), "polygons": encoded}
    raw = json.dumps(doc, separators=(",", ":")).encode("ascii")
    blob = gzip.compress(raw, compresslevel=9, mtime=0)
    out.write_bytes(blob)
    return hashlib.sha256(blob).hexdigest()


def clip_hash() -> str:
    """SHA-256 of the committed clip, part of every map's hash (new coastline data, new maps)."""
    return hashlib.sha256(LAND_CLIP.read_bytes()).hexdigest()


@lru_cache(maxsize=1)
def load_land() -> tuple[Polygon, ...]:
    """The committed land clip's polygons (each valid; neighbours may touch after rounding) in
    longitude/latitude."""
    doc = json.loads(gzip.decompress(LAND_CLIP.read_bytes()))
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

    print(make_clip(Path(sys.argv[1])))
