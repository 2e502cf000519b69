"""A map's vital signs, for authors of reconstructed maps (1000 AD, W3K) and for tests that pin them.

The loader already rejects broken files (one-way edges, unknown names). This check looks for what a
loader cannot call wrong but a map author usually did not mean: a coastal province no fleet can reach
from the sea, a piece of the board cut off from the rest, a home centre outside its homeland, and edges
far longer than their neighbours (two provinces joined across a gap on the printed map). A long edge can
be right (rule 10 of 1000 AD joins Corsica and Sardinia), so a variant may explain each one under
``[mapcheck.long_edges]``; ``dippouch mapcheck`` then lists it as justified instead of unexplained.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from dippouch.core.lookup import closest
from dippouch.core.mapdata import GameMap, ProvinceKind
from dippouch.core.variant import Variant

if TYPE_CHECKING:  # the renderer and the builder are imported when a check runs, not with this module
    from dippouch.render.atlas import PrintReport
    from dippouch.render.audit import Box, LayoutReport, Mark
    from dippouch.render.mapgen.checks import GeoReport

__all__ = [
    "READABLE_PX",
    "SPREAD_LIMIT",
    "LongEdge",
    "MapReport",
    "Readability",
    "check_crowding",
    "check_drawing",
    "check_geometry",
    "check_map",
    "check_print",
    "check_readability",
    "edge_key",
    "format_report",
    "great_circle_km",
]

EARTH_RADIUS_KM = 6371.0


def great_circle_km(a: tuple[float, float], b: tuple[float, float]) -> float:
    """Haversine distance between two ``(longitude, latitude)`` points in kilometres."""
    lon1, lat1, lon2, lat2 = map(math.radians, (a[0], a[1], b[0], b[1]))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * EARTH_RADIUS_KM * math.asin(min(1.0, math.sqrt(h)))


def edge_key(a: str, b: str) -> str:
    """The name of an undirected edge in ``[mapcheck.long_edges]``: the two abbreviations sorted, ``"cor-sar"``."""
    x, y = sorted((a.lower(), b.lower()))
    return f"{x}-{y}"


@dataclass(frozen=True, slots=True)
class LongEdge:
    a: str
    b: str
    kinds: str
    """``"army"``, ``"fleet"`` or ``"army+fleet"``: who may cross it."""
    km: float
    ratio: float
    """Length divided by the larger of the median lengths of the other edges at its two ends."""
    justification: str | None


@dataclass(slots=True)
class MapReport:
    variant: str
    counts: dict[str, int] = field(default_factory=dict)
    powers: dict[str, dict[str, int]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    """Things that are almost certainly mistakes; ``dippouch mapcheck`` exits non-zero when any exist."""
    notes: list[str] = field(default_factory=list)
    """Things worth a look that can be right (islands without land neighbours, stale justifications)."""
    long_edges: list[LongEdge] = field(default_factory=list)
    median_km: dict[str, float] = field(default_factory=dict)
    start_centres: dict[str, list[str]] = field(default_factory=dict)
    """Power -> the centres it owns at the start (abbreviations), and ``"neutral"`` -> the unowned ones."""

    @property
    def unexplained(self) -> list[LongEdge]:
        return [e for e in self.long_edges if e.justification is None]


def _components(nodes: Iterable[int], adj: Mapping[int, set[int]]) -> list[list[int]]:
    left = set(nodes)
    out: list[list[int]] = []
    while left:
        start = min(left)
        comp = {start}
        stack = [start]
        while stack:
            x = stack.pop()
            for y in adj.get(x, ()):
                if y in left and y not in comp:
                    comp.add(y)
                    stack.append(y)
        left -= comp
        out.append(sorted(comp))
    return out


def _median_without(values: list[float], one: float) -> float | None:
    rest = list(values)
    rest.remove(one)
    return statistics.median(rest) if rest else None


def _edges(m: GameMap) -> dict[tuple[int, int], set[str]]:
    """Undirected province-level edges with who may cross them (coasts folded into their province)."""
    edges: dict[tuple[int, int], set[str]] = {}
    for a, targets in enumerate(m.army_adj):
        for b in targets:
            edges.setdefault((min(a, b), max(a, b)), set()).add("army")
    for lid, reach in enumerate(m.fleet_reach):
        a = m.province_of(lid)
        for b in reach:
            edges.setdefault((min(a, b), max(a, b)), set()).add("fleet")
    return edges


def check_map(variant: Variant, *, factor: float = 1.6, min_km: float = 0.0) -> MapReport:
    """Measure ``variant``'s map.

    An edge is *long* when it is more than ``factor`` times the median length of the other edges at
    each of its ends, and more than ``min_km``; on the standard map only three edges pass 1.6 (Albania-Trieste,
    Apulia-Venice, Eastern Med-Ionian), each a province reaching past a neighbour along a coast.
    """
    m = variant.map
    rep = MapReport(variant.name)
    passable = [p for p in m.provinces if p.kind != ProvinceKind.IMPASSABLE]
    by_kind = {k: sum(1 for p in m.provinces if p.kind == k) for k in ProvinceKind}
    homes_all = set().union(*variant.start.homes.values()) if variant.start.homes else set()
    rep.counts = {
        "provinces": len(passable),
        "land": by_kind[ProvinceKind.LAND],
        "coast": by_kind[ProvinceKind.COAST],
        "sea": by_kind[ProvinceKind.SEA],
        "impassable": by_kind[ProvinceKind.IMPASSABLE],
        "split_coasts": sum(1 for p in m.provinces if p.coasts),
        "centres": len(m.supply_centres),
        "home_centres": len(homes_all),
        "neutral_centres": len(m.supply_centres) - len(homes_all),
        "army_edges": m.army_edge_count(),
        "fleet_edges": m.fleet_edge_count(),
        "start_units": len(variant.start.units),
    }

    # Coasts must touch a sea (else the coast type is wrong or a fleet edge is missing); seas need a coast.
    for p in m.provinces:
        locs = m.fleet_locations(p.id)
        if p.kind == ProvinceKind.COAST:
            for loc in locs:
                if any(m.provinces[q].kind == ProvinceKind.SEA for q in m.fleet_reach[loc]):
                    continue
                if m.fleet_reach[loc]:
                    # A river or lake shore: fleets move along it from coast to coast (Empire's Mississippi,
                    # Ancient Med's Nile), as the source maps have it. Worth a look, not an error.
                    rep.notes.append(
                        f"coastal {m.locations[loc].abbr} ({p.name}) has no sea neighbour, only coasts (a river?)"
                    )
                else:
                    rep.problems.append(f"coastal {m.locations[loc].abbr} ({p.name}) has no sea neighbour")
        elif p.kind == ProvinceKind.SEA and not any(
            m.provinces[q].kind == ProvinceKind.COAST for q in m.fleet_reach[p.id]
        ):
            rep.notes.append(f"sea {p.abbr} ({p.name}) touches no coast")
        if p.kind in (ProvinceKind.LAND, ProvinceKind.COAST) and not m.army_adj[p.id]:
            rep.notes.append(f"{p.abbr} ({p.name}) has no army neighbour (an island?)")
        if p.kind != ProvinceKind.IMPASSABLE and p.point is None:
            rep.problems.append(f"{p.abbr} ({p.name}) has no point [longitude, latitude]")

    # Connectedness of the whole board, and of the land for armies (islands show up as extra pieces).
    edges = _edges(m)
    adj: dict[int, set[int]] = {}
    land_adj: dict[int, set[int]] = {}
    for (a, b), kinds in edges.items():
        adj.setdefault(a, set()).add(b)
        adj.setdefault(b, set()).add(a)
        if "army" in kinds:
            land_adj.setdefault(a, set()).add(b)
            land_adj.setdefault(b, set()).add(a)
    comps = _components((p.id for p in passable), adj)
    rep.counts["components"] = len(comps)
    if len(comps) > 1:
        for comp in comps[1:]:
            names = " ".join(m.provinces[i].abbr for i in comp)
            rep.problems.append(f"cut off from the rest of the board: {names}")
    land = [p.id for p in passable if p.kind != ProvinceKind.SEA]
    land_comps = _components(land, land_adj)
    rep.counts["land_masses"] = len(land_comps)

    # Powers: homes inside homelands, homelands connected, fleets possible.
    for power in variant.powers:
        homes = variant.start.homes.get(power.name, frozenset())
        homeland = variant.homelands.get(power.name)
        owned = sorted(m.provinces[c].abbr for c in variant.start.centres_of(power.name))
        rep.start_centres[power.name] = owned
        info = {
            "home_centres": len(homes),
            "start_centres": len(owned),
            "start_units": len(variant.start.units_of(power.name)),
        }
        if homeland is not None:
            info["homeland"] = len(homeland)
            info["homeland_coasts"] = sum(1 for h in homeland if m.provinces[h].kind == ProvinceKind.COAST)
            outside = sorted(m.provinces[h].abbr for h in homes - homeland)
            if outside:
                rep.problems.append(f"{power.name}: home centres outside the homeland: {' '.join(outside)}")
            seas = sorted(m.provinces[h].abbr for h in homeland if m.provinces[h].kind == ProvinceKind.SEA)
            if seas:
                rep.problems.append(f"{power.name}: sea provinces in the homeland: {' '.join(seas)}")
            pieces = _components(homeland, adj)
            info["homeland_pieces"] = len(pieces)
            if len(pieces) > 1:
                rep.notes.append(
                    f"{power.name}: homeland in {len(pieces)} pieces: "
                    + " | ".join(" ".join(m.provinces[i].abbr for i in c) for c in pieces)
                )
        rep.powers[power.name] = info

    rep.start_centres["neutral"] = sorted(
        m.provinces[c].abbr for c in m.supply_centres if c not in variant.start.centres
    )

    # Long edges: measured against the usual length of the edges at both ends, because a big province
    # (an ocean, the Russian plain) has long edges to all its neighbours and that is not a mistake.
    justified_raw = variant.data.get("mapcheck", {}).get("long_edges", {})
    justified = {edge_key(*k.split("-", 1)): str(v) for k, v in justified_raw.items() if "-" in k}
    measured: list[tuple[float, int, int, set[str]]] = []
    at: dict[int, list[float]] = {}
    by_class: dict[str, list[float]] = {"land": [], "sea": []}
    for (a, b), kinds in edges.items():
        pa, pb = m.provinces[a], m.provinces[b]
        if pa.point is None or pb.point is None:
            continue
        km = great_circle_km(pa.point, pb.point)
        measured.append((km, a, b, kinds))
        at.setdefault(a, []).append(km)
        at.setdefault(b, []).append(km)
        by_class["sea" if ProvinceKind.SEA in (pa.kind, pb.kind) else "land"].append(km)
    rep.median_km = {k: round(statistics.median(v), 1) for k, v in by_class.items() if v}
    overall = statistics.median(km for km, _, _, _ in measured) if measured else 1.0
    seen_keys: set[str] = set()
    for km, a, b, kinds in measured:
        # The usual length at an end is the median of its *other* edges, so one wrong edge cannot set its
        # own yardstick; an end with no other edge has no yardstick and the board's median stands in.
        scales = [_median_without(at[x], km) for x in (a, b)]
        known = [x for x in scales if x is not None]
        ratio = km / (max(known) if known else overall)
        if ratio > factor and km > min_km:
            key = edge_key(m.provinces[a].abbr, m.provinces[b].abbr)
            seen_keys.add(key)
            who = "+".join(k for k in ("army", "fleet") if k in kinds)
            rep.long_edges.append(
                LongEdge(m.provinces[a].abbr, m.provinces[b].abbr, who, round(km), round(ratio, 2), justified.get(key))
            )
    rep.long_edges.sort(key=lambda e: -e.ratio)
    abbrs = {p.abbr for p in m.provinces}
    for key in sorted(justified):
        x, y = key.split("-", 1)
        if x not in abbrs or y not in abbrs:
            rep.problems.append(f"[mapcheck.long_edges] names an unknown province: {key}")
        elif (min(m.loc(x), m.loc(y)), max(m.loc(x), m.loc(y))) not in edges:
            rep.problems.append(f"[mapcheck.long_edges] justifies {key}, which is not an edge")
        elif key not in seen_keys:
            rep.notes.append(f"[mapcheck.long_edges] justifies {key}, which is no longer counted as long")

    # Towns place centre markers only: one for an unknown province would be ignored without a word.
    drawing = variant.data.get("drawing")
    towns = drawing.get("towns") if isinstance(drawing, Mapping) else None
    centres = {m.provinces[c].abbr for c in m.supply_centres}
    for key in sorted(towns if isinstance(towns, Mapping) else {}):
        if key not in abbrs:
            near = closest(key, sorted(abbrs))
            hint = f" (did you mean {near}?)" if near else ""
            rep.problems.append(f"[drawing.towns] names an unknown province: {key}{hint}")
        elif key not in centres:
            rep.notes.append(f"[drawing.towns] {key} is not a supply centre: no marker is drawn for its town")
    return rep


def check_geometry(variant: Variant) -> GeoReport:
    """The geometric checks on the variant's built map (drawn borders against the border graph, shores,
    points on the wrong side of the coast, shapes too small to click), as a
    :class:`dippouch.render.mapgen.checks.GeoReport`. Needs the builder's dependencies (shapely);
    FileNotFoundError when no geometry was built (``dippouch mapgen VARIANT``)."""
    from dippouch.render.mapgen.checks import check_geometry as run

    return run(variant)


def check_drawing(variant: Variant, *, names: str = "auto") -> LayoutReport:
    """Where the drawn map puts names, centre markers and units, read back from the SVG itself (a
    :class:`dippouch.render.audit.LayoutReport`): the busiest phase of the seeded sample game that
    ``scripts/mapshots`` draws, with names as ``names`` (``auto``, ``full`` or ``abbr``). Needs no shapely;
    FileNotFoundError when no geometry was built."""
    from dippouch.render import RenderOptions, render_svg
    from dippouch.render.audit import audit_svg
    from dippouch.render.shots import busiest_phase

    ph = busiest_phase(variant)
    svg = render_svg(variant, ph.position, ph.orders, ph.results, RenderOptions(names=names))
    return audit_svg(svg)


def check_print(
    variant: Variant, *, names: str = "auto", papers: Iterable[str] = ("a4", "letter")
) -> list[PrintReport]:
    """The map on paper as the post sends it (the atlas: the overview and the sheets), measured page by page
    for each of ``papers``: names printed under 6 pt, and names on no page at 6 pt or more
    (:func:`dippouch.render.atlas.print_check`); the busiest phase of the sample game, as
    :func:`check_drawing` draws it. FileNotFoundError when no geometry was built."""
    from dippouch.render import RenderOptions, render_svg
    from dippouch.render.atlas import print_check
    from dippouch.render.shots import busiest_phase

    ph = busiest_phase(variant)
    svg = render_svg(variant, ph.position, ph.orders, ph.results, RenderOptions(names=names))
    return [print_check(variant, svg, paper) for paper in papers]


#: A board drawn without a picture is readable when no province is more than this many times the median
#: province's area ("a few times": the layout's cells are even, the fitting step's cuts make some larger).
SPREAD_LIMIT = 6.0
#: The smallest name a reader reads without zooming: the map viewer enlarges names below 9 px (app.js).
READABLE_PX = 9.0


@dataclass(frozen=True, slots=True)
class Readability:
    """Whether a board reads at its default view: the picture at its own size, one unit a pixel, as the map
    page's PNG and the SVG's ``width`` give it."""

    variant: str
    laid_out: bool
    """Drawn without a picture, from a layout of its borders (the boards these measures judge)."""
    spread: float
    """The largest province's area over the median province's (nested places left out)."""
    largest: str
    names: int
    small_names: tuple[str, ...]
    """Provinces whose name is drawn under :data:`READABLE_PX` pixels."""
    smallest: float = 0.0
    """The smallest name's size in pixels (0 when no name is drawn)."""
    unnamed: tuple[str, ...] = ()
    """Provinces drawn with no name at all (a name left out reads no better than one too small)."""
    least: float = 0.0
    """The smallest province's area over the median's: shown, not judged (the issue's measure is the
    largest; slivers the fitting step leaves are reported here so they are seen)."""

    @property
    def unreadable(self) -> bool:
        """A board drawn without a picture whose areas spread too far or with a name too small. Boards
        drawn from geography or a source's picture are measured but not judged: their provinces' sizes are
        the source's (the Atlantic is larger than Belgium)."""
        return self.laid_out and (self.spread > SPREAD_LIMIT or bool(self.small_names) or bool(self.unnamed))

    def summary(self) -> str:
        verdict = "UNREADABLE" if self.unreadable else "readable" if self.laid_out else "not judged (drawn from "
        verdict += "geography or a picture)" if not self.laid_out else ""
        small = f": {' '.join(self.small_names[:12])}{' ...' if len(self.small_names) > 12 else ''}"
        return (
            f"readability ({'laid out from its borders' if self.laid_out else 'drawn at its points'}): "
            f"area spread x{self.spread:.1f} ({self.largest}; limit x{SPREAD_LIMIT:g}; smallest x{self.least:.2f}), "
            f"names under {READABLE_PX:g} px {len(self.small_names)} of {self.names}"
            f"{small if self.small_names else ''}, smallest {self.smallest:.1f} px"
            + (f", without a name {len(self.unnamed)}: {' '.join(self.unnamed[:12])}" if self.unnamed else "")
            + f"; {verdict}"
        )


def check_readability(variant: Variant) -> Readability:
    """Area spread and names under 9 px of the built map (the empty board at the start, names as the map
    page draws them). Needs no shapely; FileNotFoundError when no geometry was built."""
    import re

    from dippouch.render import RenderOptions, render_svg
    from dippouch.render.geometry import load_geometry
    from dippouch.render.mapgen.graph import drawn_from_borders

    geo = load_geometry(variant)
    areas = {k: p.area_km2 for k, p in geo.provinces.items() if not p.nested and p.area_km2 > 0}
    med = statistics.median(areas.values()) if areas else 0.0
    largest = max(sorted(areas), key=lambda k: areas[k]) if areas else ""
    spread = areas[largest] / med if med > 0 else 0.0
    svg = render_svg(variant, variant.start, {}, [], RenderOptions())
    sizes = {
        m.group(1): float(m.group(2))
        for m in re.finditer(r'<text id="label-([^"]+)" class="label"[^>]*? font-size="([\d.]+)"', svg)
    }
    return Readability(
        variant=variant.name,
        laid_out=drawn_from_borders(variant),
        spread=round(spread, 2),
        largest=largest,
        names=len(sizes),
        small_names=tuple(sorted(k for k, v in sizes.items() if v < READABLE_PX)),
        smallest=min(sizes.values(), default=0.0),
        least=round(min(areas.values()) / med, 3) if med > 0 else 0.0,
        unnamed=tuple(sorted(k for k in geo.provinces if k not in sizes)),
    )


def check_crowding(variant: Variant, *, names: str = "auto") -> LayoutReport:
    """Units over each other or over names, wherever they may stand: every kind of unit a province can hold
    (an army, a fleet on each of its coasts), drawn at its spot as the map draws it, against every such
    unit of every other province and every name of the empty board. A :class:`LayoutReport` with
    ``units_crowded`` (pairs of provinces), ``units_on_names`` ((province, name)) and ``leaders_covered``
    (leader lines under another province's unit, place disc or name: :func:`dippouch.render.audit.covered`)
    filled in, each pair once. FileNotFoundError when no geometry was built."""
    import xml.etree.ElementTree as ET

    from dippouch.render import RenderOptions, render_svg
    from dippouch.render.audit import (
        Cover,
        LayoutReport,
        covered,
        disc_mark,
        label_box,
        leader_lines,
        mark_box,
        marks_touch,
        unit_marks,
    )
    from dippouch.render.geometry import load_geometry
    from dippouch.render.svg import _place_ring, _static, _unit_callout, _unit_point, _unit_svg
    from dippouch.render.text import BASELINE

    geo = load_geometry(variant)
    opts = RenderOptions(names=names)
    st = _static(variant, geo, opts)
    r = st.r
    gmap = variant.map
    kinds = ["A", "F", *sorted({u.kind for u in variant.start.units.values()} - {"A", "F"})]
    marks: list[tuple[str, Mark, Box]] = []
    # What a unit in a castle or city adds round it (the place's disc; a unit beside its place, the disc and
    # the leader line to the place), as the map draws it round any unit standing there.
    rings = ET.Element("g")
    for abbr, shape in geo.provinces.items():
        if shape.unit_leader is not None:
            extra = _unit_callout(abbr, shape.unit, st.anchors.get(abbr, shape.unit_leader), r, "#ffffff")
        else:
            extra = _place_ring(geo, abbr, shape.unit, r, "#ffffff")
        if extra:
            rings.extend(ET.fromstring(f'<g xmlns="http://www.w3.org/2000/svg">{extra}</g>'))
    for p in gmap.provinces:
        for loc in [p.id, *p.coasts]:
            for kind in kinds:
                if not gmap.can_hold("A" if kind not in ("A", "F") else kind, loc):
                    continue
                pt = _unit_point(variant, geo, loc)
                if pt is None:
                    continue
                el = ET.fromstring(
                    _unit_svg(kind, pt, r, (0.5, 0.5, 0.5), "X").replace(
                        "<g ", '<g xmlns="http://www.w3.org/2000/svg" ', 1
                    )
                )
                m = unit_marks(el)
                box = mark_box(m)
                if box is not None:
                    marks.append((p.abbr, m, box))
    crowded: set[tuple[str, str]] = set()
    for i, (a, ma, ba) in enumerate(marks):
        for b, mb, bb in marks[i + 1 :]:
            if (
                a != b
                and (min(a, b), max(a, b)) not in crowded
                and ba[0] < bb[2]
                and bb[0] < ba[2]
                and ba[1] < bb[3]
                and bb[1] < ba[3]
            ) and marks_touch(ma, mb):
                crowded.add((min(a, b), max(a, b)))
    board = replace(variant.start, units={}, dislodged={})
    root = ET.fromstring(render_svg(variant, board, options=RenderOptions(names=names, header=False, legend=False)))
    on_names: set[tuple[str, str]] = set()
    covers: list[Cover] = [(a, f"{a} unit", m) for a, m, _ in marks]
    for e in rings.iter("{http://www.w3.org/2000/svg}circle"):
        place = e.get("data-place")
        if place:
            covers.append(
                (place, f"{place} unit", disc_mark(*(float(e.get(k, "0")) for k in ("cx", "cy", "r", "stroke-width"))))
            )
    for e in root.iter("{http://www.w3.org/2000/svg}text"):
        ident = e.get("id") or ""
        if not ident.startswith("label-"):
            continue
        size = float(e.get("font-size", "0"))
        nb = label_box(e.text or "", float(e.get("x", "0")), float(e.get("y", "0")) - size * BASELINE, size)
        poly = [(nb[0], nb[1]), (nb[2], nb[1]), (nb[2], nb[3]), (nb[0], nb[3])]
        covers.append((ident[6:], f"{ident[6:]} name", ([poly], 0.0)))
        for a, m, box in marks:
            if (
                box[0] < nb[2]
                and nb[0] < box[2]
                and box[1] < nb[3]
                and nb[1] < box[3]
                and marks_touch(m, ([poly], 0.0))
            ):
                on_names.add((a, ident[6:]))
    leaders = leader_lines(root) + leader_lines(rings)
    return LayoutReport(
        units_crowded=sorted(crowded), units_on_names=sorted(on_names), leaders_covered=covered(leaders, covers)
    )


def format_report(rep: MapReport) -> str:
    """Plain text, one fact per line, so a diff of two runs shows what a map edit changed."""
    c = rep.counts
    lines = [
        f"map check: {rep.variant}",
        f"provinces {c['provinces']} (land {c['land']}, coast {c['coast']}, sea {c['sea']}); "
        f"impassable {c['impassable']}; split coasts {c['split_coasts']}",
        f"centres {c['centres']} (home {c['home_centres']}, neutral {c['neutral_centres']}); "
        f"start units {c['start_units']}",
        f"edges: army {c['army_edges']}, fleet {c['fleet_edges']}; "
        f"board pieces {c['components']}, land masses {c['land_masses']}",
        "median edge km: " + ", ".join(f"{k} {v}" for k, v in sorted(rep.median_km.items())),
        "powers:",
    ]
    for name, info in rep.powers.items():
        lines.append("  " + name + ": " + ", ".join(f"{k} {v}" for k, v in info.items()))
    lines.append("centres at the start:")
    for name, owned in rep.start_centres.items():
        lines.append(f"  {name}: {' '.join(owned) or '(none)'}")
    lines.append(f"long edges ({len(rep.long_edges)}, {len(rep.unexplained)} unexplained):")
    for e in rep.long_edges:
        why = e.justification if e.justification is not None else "UNEXPLAINED"
        lines.append(f"  {e.a}-{e.b} [{e.kinds}] {e.km:.0f} km (x{e.ratio}): {why}")
    lines.append(f"notes ({len(rep.notes)}):")
    lines.extend(f"  {n}" for n in rep.notes)
    lines.append(f"problems ({len(rep.problems)}):")
    lines.extend(f"  {p}" for p in rep.problems)
    return "\n".join(lines)
