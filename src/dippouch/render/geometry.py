"""A variant's built map geometry: province shapes, label and unit spots, connectors, sea areas.

The shapes are made once per variant by ``dippouch mapgen`` (which needs shapely and the coastline clip) and
committed as JSON beside the variant files; drawing only reads that file. This module therefore imports no
shapely or numpy, so a web process or a mail run loads a map in milliseconds and never needs the builder's
dependencies. The file format is described in docs/maps-geometry.md.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from dippouch.catalog import PACKAGE_VARIANTS, builtin_names, variant_files
from dippouch.core.variant import Variant

__all__ = [
    "FORMAT",
    "GEOMETRY_DIR",
    "VERSION",
    "Connector",
    "Geometry",
    "ProvinceShape",
    "SeaArea",
    "geometry_path",
    "load_geometry",
    "parse_geometry",
    "project",
]

FORMAT = "dippouch-geometry"
VERSION = 1
GEOMETRY_DIR = PACKAGE_VARIANTS / "geometry"

Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class ProvinceShape:
    abbr: str
    kind: str
    d: str
    label: Point
    label_size: float
    unit: Point
    dislodged: Point
    sc: Point | None
    nested: bool
    area_km2: float
    unit_leader: Point | None = None
    """Where the leader line of a unit standing beside its place ends, inside the place (``[drawing]
    unit_spots`` put the unit's spot outside a place too small for it); None for a unit on its place."""


@dataclass(frozen=True, slots=True)
class Connector:
    a: str
    b: str
    d: str


@dataclass(frozen=True, slots=True)
class SeaArea:
    key: str
    name: str
    d: str
    label: Point


@dataclass(frozen=True, slots=True)
class Geometry:
    variant: str
    map_hash: str
    width: float
    height: float
    km_per_unit: float
    background_land: str
    provinces: Mapping[str, ProvinceShape]
    coasts: Mapping[str, Point]
    connectors: tuple[Connector, ...]
    sea_areas: Mapping[str, SeaArea]
    projection: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """How longitude/latitude became picture units (the builder's; the checks place points with it)."""
    background_offboard: str = ""
    """Off-board parts of the frame (a sea not in play and the land round it): drawn neutral."""
    digest: str = field(default="", compare=False)
    """The file's content digest (:func:`load_geometry`'s; empty when built in memory): what the drawing's parts
    kept on disk are keyed by (dippouch.render.svg)."""


def unit_radius(land_areas_km2: Sequence[float], km_per_unit: float, width: float, height: float) -> float:
    """A unit's radius in picture units: about a quarter of a small land province's side (the lower
    quartile), kept between width/220 and width/95. One rule for the renderer and the builder (which keeps
    units of neighbouring places apart)."""
    sides = sorted(math.sqrt(max(a, 1.0)) / max(km_per_unit, 1e-9) for a in land_areas_km2)
    side = sides[len(sides) // 4] if sides else min(width, height) / 20
    return max(min(0.24 * side, width / 95), width / 220)


def _user_file(variant: Variant) -> Path | None:
    """The user's variant file ``variant`` was read from; ``None`` for a built-in and for a game's stored copy
    (which names no file). Built-ins are named by their bare file name ("w3k.toml"); any other file is a
    user's, named as it was given, relative to the current folder or not ("1898.toml", "~/variants/1898.toml")."""
    src = Path(variant.source) if variant.source else None
    if src is None or src.suffix != ".toml":
        return None
    if (src.parent == Path(".") and variant.name in builtin_names()) or src.resolve().is_relative_to(PACKAGE_VARIANTS):
        return None
    return src


def geometry_path(variant: Variant) -> Path:
    """The geometry file of a variant: built-in variants' in the package, a user variant's in a
    ``geometry`` folder beside its TOML file (``variant.source`` is the file's path for user files)."""
    src = _user_file(variant)
    if src is not None:
        return (src.parent / "geometry" / f"{variant.name}.json").resolve()
    stored_copy = not variant.source or Path(variant.source).suffix != ".toml"
    if stored_copy and variant.name not in builtin_names():
        # A game's stored copy of a user variant names no file: its map is drawn from the geometry built
        # beside the variant's file as found by name now (the shapes are drawing, not rules).
        for f in variant_files():
            if f.name == variant.name and f.status == "used":
                return f.path.parent / "geometry" / f"{variant.name}.json"
    return GEOMETRY_DIR / f"{variant.name}.json"


def _mapgen_argument(variant: Variant) -> str:
    """What to give ``dippouch mapgen`` for this variant: its name where the name finds it (a built-in, or a
    file in a folder on the variant path), else its file's path."""
    src = _user_file(variant)
    if src is None:
        return variant.name
    if variant.name in builtin_names():
        return str(src)  # a user's file named as a built-in: the name finds the built-in, not this file
    on_path = any(
        f.name == variant.name and f.status == "used" and f.path.resolve() == src.resolve() for f in variant_files()
    )
    return variant.name if on_path else str(src)


def load_geometry(variant: Variant) -> Geometry:
    """The variant's geometry, read once per file version (kept while the file is unchanged on disk).

    Raises FileNotFoundError naming the missing file and the command that builds it.
    """
    path = geometry_path(variant)
    try:
        st = path.stat()
    except OSError:
        raise FileNotFoundError(
            f"no map geometry for variant {variant.name!r}: {path} does not exist; "
            f"build it with `dippouch mapgen {_mapgen_argument(variant)}`"
        ) from None
    stamp = (st.st_mtime_ns, st.st_size)
    key = str(path)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    raw = path.read_bytes()
    geometry = replace(parse_geometry(json.loads(raw), where=str(path)), digest=hashlib.sha256(raw).hexdigest()[:32])
    if len(_CACHE) >= 32:
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[key] = (stamp, geometry)
    return geometry


_CACHE: dict[str, tuple[tuple[int, int], Geometry]] = {}


_PATH_TOKEN = re.compile(r"[MLZmlz]|-?\d+(?:\.\d+)?(?:[eE]-?\d+)?")


def path_rings(d: str) -> list[list[Point]]:
    """The rings of a shape's path (``d``: M/L/Z commands, absolute or relative, as the builder writes them:
    a ring's first point absolute, the rest as steps), for the renderer's name placement and the builder's
    checks alike: a ring starts at each M and ends at Z. A point reached by steps is rounded to 6 decimals, so
    the float error of adding tenths does not tell apart two provinces' shared corner."""
    rings: list[list[Point]] = []
    ring: list[Point] = []
    cmd = "M"
    x = y = start_x = start_y = 0.0
    first: float | None = None
    for tok in _PATH_TOKEN.findall(d):
        if tok in _COMMANDS:
            if tok in "Zz":
                if ring:
                    rings.append(ring)
                    ring = []
                x, y = start_x, start_y  # after Z the pen is back at the ring's start
            cmd = tok
            continue
        if first is None:
            first = float(tok)
            continue
        px, py = first, float(tok)
        first = None
        if cmd in "ml":
            px, py = round(x + px, 6), round(y + py, 6)
        if cmd in "Mm":
            if ring:
                rings.append(ring)
            ring = []
            start_x, start_y = px, py
            cmd = "L" if cmd == "M" else "l"  # more points after a move are lines, as SVG reads them
        ring.append((px, py))
        x, y = px, py
    if ring:
        rings.append(ring)
    return rings


_COMMANDS = frozenset("MmLlZz")


_R_KM = 6371.0088


def project(geo: Geometry, lon: float, lat: float) -> Point | None:
    """A ``(longitude, latitude)`` point in the picture's units, by the projection the builder recorded
    (Lambert azimuthal equal-area, as ``render/mapgen/project.py``; written out here so drawing needs no
    numpy); None when the geometry records no projection (a hand-made geometry)."""
    pr = geo.projection
    try:
        lon0, lat0 = float(pr["lon0"]), float(pr["lat0"])
        x0, y0, scale = float(pr["x0"]), float(pr["y0"]), float(pr["scale"])
    except (KeyError, TypeError, ValueError):
        return None
    lam = math.radians(lon - lon0)
    phi, phi0 = math.radians(lat), math.radians(lat0)
    cosc = math.sin(phi0) * math.sin(phi) + math.cos(phi0) * math.cos(phi) * math.cos(lam)
    if cosc <= -1.0:
        return None
    k = math.sqrt(2.0 / (1.0 + cosc))
    x = _R_KM * k * math.cos(phi) * math.sin(lam)
    y = _R_KM * k * (math.cos(phi0) * math.sin(phi) - math.sin(phi0) * math.cos(phi) * math.cos(lam))
    return ((x - x0) * scale, (y0 - y) * scale)


def _pt(value: Any) -> Point:
    return (float(value[0]), float(value[1]))


def parse_geometry(data: Mapping[str, Any], where: str = "geometry") -> Geometry:
    """A :class:`Geometry` from the decoded JSON; a file of another format or version is refused by name,
    so a stale file is never drawn as if it were current."""
    if data.get("format") != FORMAT or data.get("version") != VERSION:
        raise ValueError(
            f"{where}: not a {FORMAT} file of version {VERSION} "
            f"(found format={data.get('format')!r}, version={data.get('version')!r}); rebuild it with dippouch mapgen"
        )
    provinces = {}
    for abbr, p in data["provinces"].items():
        provinces[abbr] = ProvinceShape(
            abbr=abbr,
            kind=str(p["kind"]),
            d=str(p["d"]),
            label=_pt(p["label"]),
            label_size=float(p["label_size"]),
            unit=_pt(p["unit"]),
            dislodged=_pt(p["dislodged"]),
            sc=None if p.get("sc") is None else _pt(p["sc"]),
            nested=bool(p.get("nested", False)),
            area_km2=float(p.get("area_km2", 0.0)),
            unit_leader=None if p.get("unit_leader") is None else _pt(p["unit_leader"]),
        )
    coasts = {k: _pt(v["unit"]) for k, v in data.get("coasts", {}).items()}
    connectors = tuple(Connector(str(c["a"]), str(c["b"]), str(c["d"])) for c in data.get("connectors", []))
    seas = {
        k: SeaArea(k, str(s.get("name", k)), str(s["d"]), _pt(s["label"])) for k, s in data.get("sea_areas", {}).items()
    }
    return Geometry(
        variant=str(data["variant"]),
        map_hash=str(data.get("map_hash", "")),
        width=float(data["width"]),
        height=float(data["height"]),
        km_per_unit=float(data["km_per_unit"]),
        background_land=str(data.get("background", {}).get("land", "")),
        background_offboard=str(data.get("background", {}).get("offboard", "")),
        provinces=MappingProxyType(provinces),
        coasts=MappingProxyType(coasts),
        connectors=connectors,
        sea_areas=MappingProxyType(seas),
        projection=MappingProxyType(dict(data.get("projection", {}))),
    )
