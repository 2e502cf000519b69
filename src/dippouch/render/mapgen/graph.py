"""Which province shapes must meet, read from a compiled variant: the graph the drawing has to show.

Land borders are army edges between land provinces plus fleet edges along a shore (coast to coast); sea
borders are fleet edges with a sea at one end. W3K's sea regions reach far by rule (a primary region reaches
every coast of its Sea Area), so where a sea province lists the regions it ``borders`` directly, that list
is the geometric truth, not its fleet moves. Declared connectors (``[drawing] connectors``) cross water by
rule and are drawn as connectors instead of shared borders.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dippouch.core.variant import Variant


@dataclass(frozen=True, slots=True)
class BorderGraph:
    kinds: Mapping[str, str]
    """abbr -> land | coast | sea | impassable."""
    land: frozenset[tuple[str, str]]
    """Sorted pairs of non-sea provinces that must share a land border."""
    sea: frozenset[tuple[str, str]]
    """Sorted pairs with at least one sea that must meet (sea-sea, or coast-sea along a shore)."""
    connectors: frozenset[tuple[str, str]]
    """Declared links across water (drawn as connectors; never counted as missing borders)."""
    nested: Mapping[str, float]
    """Nested round places: abbr -> radius in km."""


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


def drawing_table(variant: Variant) -> Mapping[str, Any]:
    d = variant.data.get("drawing", {})
    return d if isinstance(d, Mapping) else {}


def coast_seas(variant: Variant, loc: int) -> list[str]:
    """The seas along a coast (a location id), where its fleet's unit is drawn: the seas its fleets reach,
    less a sea that lists the coasts it ``borders`` without this one. W3K's primary sea regions reach every
    coast of their Sea Area by rule, so Lewis's east coast reaches the Hebrides region west of the island;
    drawn by the seas it reaches, its fleet stood on the west side."""
    gmap = variant.map
    raw = variant.data.get("provinces", {})
    name = gmap.locations[loc].abbr.lower()
    out: list[str] = []
    for q in gmap.fleet_reach[loc]:
        sea = gmap.provinces[q]
        if sea.kind.value != "sea":
            continue
        data = raw.get(sea.abbr)
        if isinstance(data, Mapping) and "borders" in data and name not in {str(b).lower() for b in data["borders"]}:
            continue
        out.append(sea.abbr)
    return out


def border_graph(variant: Variant) -> BorderGraph:
    gmap = variant.map
    provs = gmap.provinces
    kinds = {p.abbr: str(p.kind.value) for p in provs}
    raw = variant.data.get("provinces", {})
    drawing = drawing_table(variant)
    connectors = frozenset(_pair(str(a).lower(), str(b).lower()) for a, b in drawing.get("connectors", []))
    default_r = float(drawing.get("nested_km", 0) or 0)
    nested: dict[str, float] = {}
    for item in drawing.get("nested", []):
        nested[str(item).lower()] = default_r
    land: set[tuple[str, str]] = set()
    sea: set[tuple[str, str]] = set()
    for p in provs:
        if kinds[p.abbr] == "sea":
            continue
        for q in gmap.army_adj[p.id]:
            if kinds[provs[q].abbr] != "sea":
                land.add(_pair(p.abbr, provs[q].abbr))
    for loc in gmap.locations:
        a = provs[loc.province]
        for q in gmap.fleet_reach[loc.id]:
            b = provs[q]
            if kinds[a.abbr] != "sea" and kinds[b.abbr] != "sea":
                land.add(_pair(a.abbr, b.abbr))
            elif kinds[a.abbr] == "sea" and "borders" in raw.get(a.abbr, {}):
                continue  # W3K: the sea's own `borders` list says what it touches
            elif kinds[b.abbr] == "sea" and "borders" in raw.get(b.abbr, {}):
                continue
            else:
                sea.add(_pair(a.abbr, b.abbr))
    for abbr, pdata in raw.items():
        if isinstance(pdata, Mapping) and "borders" in pdata:
            for b in pdata["borders"]:
                name = str(b).split("/")[0].lower()
                if name in kinds:
                    sea.add(_pair(abbr, name))
    land -= connectors
    sea -= connectors
    return BorderGraph(kinds, frozenset(land), frozenset(sea), connectors, nested)


#: What the importer writes at the top of a variant file whose points come from a layout of its borders.
_IMPORT_NOTE = "points come from a layout of its borders"


def drawn_from_borders(variant: Variant) -> bool:
    """Whether the variant's map is laid out from its borders rather than drawn at its points: a file the
    importer wrote from a source without a picture, whose report at the top of the file says its points come
    from a layout of the borders (such points place nothing, and drawn at them the board was unreadable).

    The report is read because the file format has no key for it (``[drawing]`` keys are checked by the
    schema); a map written by hand is drawn at its points, and one without points is refused by name.
    """
    drawing = drawing_table(variant)
    if drawing.get("outlines") or any(p.point is None for p in variant.map.provinces):
        return False
    if drawing.get("coastline") != "provinces" or variant.source is None:
        return False
    path = Path(variant.source)
    if path.suffix != ".toml":
        return False
    try:
        with path.open(encoding="utf-8") as f:
            head = [line for _, line in zip(range(60), f, strict=False)]
    except OSError:
        return False
    comments = [line for line in head if line.startswith("#")]
    return any(_IMPORT_NOTE in line for line in comments)
