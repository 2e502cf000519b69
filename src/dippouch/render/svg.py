"""The board as SVG: provinces by owner, units, orders and their results, labels, legend.

Everything here is a pure function of the variant, its built geometry (:mod:`dippouch.render.geometry`,
read once and cached) and the position: no database, no files, no clock. The web pages, the mail and the
command line therefore draw the same picture, and a drawing can be cached by what it shows.

The picture is embedded in pages whose Content-Security-Policy allows no inline style, so every colour and
width is a presentation attribute; the page's own stylesheet adds the ``picked``/``target`` highlights.
Element ids follow the geometry contract: ``r-ABBR`` (shape, with ``data-province``), ``unit-ABBR`` and
``dislodged-ABBR`` (with ``data-unit``), ``label-ABBR``, ``sc-ABBR``.

Layers, bottom to top: water and off-board land, provinces (a castle or city with a unit in it drawn again
as a ``place-ring`` disc wider than the unit), sea-area outlines and connectors, centre
markers, names, order lines, units, then the marks that must stay visible (arrowheads stop short of the
unit they point at; the cross of a failed order sits on top of everything).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from dippouch import compiled
from dippouch.core.calendar import PhaseKind
from dippouch.core.errors import DippouchError
from dippouch.core.lookup import ORDER_KINDS, UNIT_BADGES, Drawing, drawing_of
from dippouch.core.mapdata import ProvinceKind
from dippouch.core.notation import parse_order
from dippouch.core.orders import Build, Disband, Hold, Order
from dippouch.core.position import Position
from dippouch.core.variant import Variant, content_hash
from dippouch.i18n import translations
from dippouch.names import phase_words
from dippouch.render.atlas import drawing_boxes
from dippouch.render.colours import Rgb, hex_colour, ink_on, mix, parse_colour
from dippouch.render.geometry import Geometry, load_geometry, path_rings, project, unit_radius
from dippouch.render.ids import own_ids, phase_suffix
from dippouch.render.placement import PLACE_RING, READABLE_PX, Label, Marker, place
from dippouch.render.text import BASELINE, text_width

_text_width = text_width  # the name the tests and older callers use

__all__ = ["Layers", "RenderOptions", "draft_order_svg", "draw_svg", "layers", "render_phase_svg", "render_svg"]

I18N_DOMAIN = "games"
"""The catalogue of the map's own words (the legend's counts, the key's labels), as the game pages show it."""

Point = tuple[float, float]

PAPER = "#fbfaf6"
WATER = "#b9d3e3"
PRIMARY_SEA = "#a7c6dc"
LOCAL_SEA = "#cfe2ee"
OFFBOARD = "#e3e0d8"
OFFBOARD_WATER = "#d3dbe0"  # water off the board: greyed, so it reads as out of play
NEUTRAL_LAND = "#f1e9d6"
IMPASSABLE = "#bdb7ab"
FOG_LAND = "#c9c6c0"
FOG_SEA = "#9fb1bd"
"""Provinces a fog-of-war reader does not see (:attr:`RenderOptions.seen`): greyed, so an empty province out of
sight is not read as empty."""
BORDER = "#6b6558"
SEA_BORDER = "#8fb0c6"
CASING = "#1d1d1d"
ILLEGAL = "#8c8c8c"
WHITE: Rgb = (1.0, 1.0, 1.0)
TINT = 0.3
"""How far a power's owned land is lightened towards white (units keep the full colour)."""
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"

_FAILED = frozenset({"fails", "cut", "disrupted", "dislodged", "invalid"})
"""Orders that did not work: a bounce, a cut support, a disrupted convoy, and (DATC's "invalid") a support or
convoy the supported unit did not match."""
_ILLEGAL = frozenset({"illegal"})
"""Orders the rules refused."""


@dataclass(frozen=True, slots=True)
class RenderOptions:
    """How a map is drawn; the default suits the web page and the mail alike."""

    title: str | None = None
    """The game's name (or any heading) shown above the map with the phase; None shows the variant's title."""
    phase_name: str | None = None
    """The phase shown in the heading; None names the position's phase."""
    names: str = "auto"
    """``auto``: full names where they fit, abbreviations elsewhere; ``abbr``: abbreviations only; ``full``:
    full names wherever they fit at the smallest readable size."""
    legend: bool = True
    """The powers with their colours, centre and unit counts, under the map."""
    header: bool = True
    """The title band (game and phase) above the map."""
    labels: bool = True
    unit_scale: float = 1.0
    """Units (and order lines with them) drawn this much larger or smaller than the map's natural size."""
    label_scale: float = 1.0
    coasts: bool = True
    """Mark the coasts of provinces with split coasts."""
    lang: str = "en"
    """The language of the map's own words: the heading's phase name, the legend's counts and the key's labels
    (province and power names stay as the variant gives them)."""
    seen: frozenset[str] | None = None
    """Fog of war: the provinces (abbreviations) the reader sees; the others are drawn grey. None: all seen."""
    board: str | None = None
    """The address of the board's file (:func:`dippouch.render.board.board_svg`: the shapes, names, coasts and
    centre markers no phase changes): where given, the picture draws those by reference to it (``<use>``), and
    carries only what the phase changes (each province's colour, the units, the orders), so a page that shows
    many phases of one board sends the board once and the browser keeps it. None draws everything in the
    picture (a file of its own: PNG, PDF, mail)."""


@dataclass(slots=True)
class _Layers:
    lines: list[str] = field(default_factory=list)
    under: list[str] = field(default_factory=list)
    units: list[str] = field(default_factory=list)
    top: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _f(v: float) -> str:
    """A coordinate with one decimal, without trailing zeros (short SVG, stable output)."""
    s = f"{v:.1f}"
    return s[:-2] if s.endswith(".0") else s


# --------------------------------------------------------------------------------------------------
# Static parts of a map (cached per geometry and options): sizes, province classes, labels


@dataclass(frozen=True, slots=True)
class _Static:
    r: float
    """Unit radius."""
    font: float
    """Base font size for the heading."""
    legend_font: float
    """Base font size for the legend and the key: a tall board's larger (:func:`lettering`)."""
    labels: tuple[Label, ...]
    """The names as placed (drawn whole in ``label_svg``, or by reference to the board's file)."""
    label_svg: str
    coast_svg: str
    extra_svg: str
    sea_fill: Mapping[str, str]
    impassable: frozenset[str]
    names: Mapping[str, str]
    sc: Mapping[str, Marker]
    """Centre markers at their towns, clear of the unit spot (beside a place too small, with a leader)."""
    dislodged: Mapping[str, Point]
    """Dislodged units' spots, moved clear of the unit spot likewise."""
    anchors: Mapping[str, Point]
    """Where the leader lines of a place whose unit stands beside it end (clear of its neighbours' units)."""
    regions: Mapping[str, tuple[str, str]]
    """Each region's words that are the same in every picture: its id, name and class up to its kind, and its
    middle (the name's place, inside it: where the web page puts a finger's reach about a province drawn small).
    Written afresh they were a fifth of a phase's picture (thousands of escapes and numbers), drawn about thirty
    times a second at a thousand games."""
    offboard_svg: str
    """What lies off the board (:func:`_offboard_svg`), the same in every picture."""
    centres_svg: str
    """The supply centres' markers (:func:`_centres_svg`), the same in every picture."""
    by_board: dict[str, _ByBoard] = field(default_factory=dict, compare=False)
    """The parts of a picture drawn by reference to a board file, by that file's address (:func:`_by_board`)."""


@dataclass(frozen=True, slots=True)
class _ByBoard:
    """What every picture drawn over one board file (an address) says alike: each region's ``<use>`` up to its
    own attributes, and the names' layers. Made afresh they were a third of such a picture, which every game page
    now carries."""

    regions: Mapping[str, str]
    labels: str


def _by_board(geo: Geometry, st: _Static, board: str) -> _ByBoard:
    """:attr:`_Static.by_board`'s parts for ``board``, made once (a dictionary's get and set are atomic: two
    threads may make them once each)."""
    got = st.by_board.get(board)
    if got is None:
        regions = {abbr: f"<use href={quoteattr(f'{board}#r-{abbr}')} {head}" for abbr, (head, _) in st.regions.items()}
        got = _ByBoard(regions, _labels_used(geo, st, board) if st.labels else "")
        if len(st.by_board) >= 8:  # a variant's board file and a few games' own (their copies drawn otherwise)
            st.by_board.clear()
        st.by_board[board] = got
    return got


def _static(variant: Variant, geo: Geometry, options: RenderOptions) -> _Static:
    """The parts of a picture that depend only on the map and the options, made once per variant, geometry and
    options and kept on the variant (``variant.derived``), so they go when the variant goes.

    The web app draws from several threads: a dictionary's get and set are atomic, the making is not locked;
    two threads may make the same part once each. The geometry is kept beside its parts, so the ``id()`` in the
    key stays its own.
    """
    kept: dict[tuple[Any, ...], tuple[Geometry, _Static]] | None = variant.derived.get("render.static")
    if kept is None:
        kept = variant.derived.setdefault("render.static", {})
    key = (id(geo), options.names, options.labels, options.unit_scale, options.label_scale, options.coasts)
    hit = kept.get(key)
    if hit is not None and hit[0] is geo:
        return hit[1]
    st = _static_from_disk(variant, geo, options)
    if len(kept) >= 16:  # a few option sets per variant are used; more is a caller trying every scale
        kept.clear()
    kept[key] = (geo, st)
    return st


def _static_from_disk(variant: Variant, geo: Geometry, options: RenderOptions) -> _Static:
    """The parts made once per installation rather than once per process: placing a map's names takes 60-460 ms
    of pure Python (W3K 415 ms), which a web process paid for each variant's first picture while every other
    request waited for the interpreter lock (benchmarks/README.md, issue 52); read back from the disk cache
    (:mod:`dippouch.compiled`) it is a few milliseconds. Keyed by the variant's data and options, the geometry
    file's digest, the options and the drawing code's files, so a change to any of them makes the parts again."""
    if not geo.digest:
        return _make_static(variant, geo, options)
    key = "\n".join(
        (
            "render.static",
            content_hash(dict(variant.data)),
            repr(sorted((str(k), repr(v)) for k, v in variant.options.items())),
            geo.digest,
            repr((options.names, options.labels, options.unit_scale, options.label_scale, options.coasts)),
            _drawing_code_stamp(),
        )
    )
    kept = compiled.fetch(key)
    if isinstance(kept, _Static):
        return kept
    st = _make_static(variant, geo, options)
    compiled.keep(key, st)
    return st


@lru_cache(maxsize=1)
def _drawing_code_stamp() -> str:
    """Changes whenever the code that makes the static parts may have changed."""
    return compiled.files_stamp(sorted(Path(__file__).resolve().parent.glob("*.py")))


def _unit_radius(geo: Geometry) -> float:
    areas = [p.area_km2 for p in geo.provinces.values() if p.kind != "sea" and not p.nested and p.area_km2 > 0]
    return unit_radius(areas, geo.km_per_unit, geo.width, geo.height)


FRAME_PX = (776.0, 624.0)
"""The frame the game page shows its map in at a desktop's size, 1280 by 800: the map's column, and at most 78% of
the window's height. A picture shaped taller than that is fitted by its height, and comes out smaller on the page
than a wide one (:func:`lettering`)."""
FRAME_ASPECT = FRAME_PX[0] / FRAME_PX[1]


def lettering(geo: Geometry, r: float) -> float:
    """How much larger than a wide map's a tall map's names and legend are drawn. A picture 1200 units wide
    fitted by its height in a page's frame (:data:`FRAME_ASPECT`) is shown smaller by its height's excess, so its
    names and legend are drawn that much larger, to read on the page as a wide map's do: the Hundred's board,
    1200 by 1604, was shown at 0.37 px a unit on a desktop's game page (the standard map at 0.65), its legend at
    6 px and its names at 3.5 to 6 px, which the viewer enlarged onto the units beside them and so hid (eight of
    the twelve home centres' names). No larger than the provinces hold: no further than the unit radius the
    provinces' sizes give before its cap (``width / 95``), so a crowded board (1000 AD, W3K) is drawn as it was.
    The heading keeps its size (the page names the game and the phase above the map): a taller picture is a
    taller frame on a phone, where the map is fitted by its width, and the player's units opened below the fold."""
    tall = max(1.0, FRAME_ASPECT * geo.height / geo.width)
    areas = [p.area_km2 for p in geo.provinces.values() if p.kind != "sea" and not p.nested and p.area_km2 > 0]
    sides = sorted(math.sqrt(a) / max(geo.km_per_unit, 1e-9) for a in areas)
    room = 0.24 * sides[len(sides) // 4] / r if sides and r > 0 else 1.0
    return min(tall, max(1.0, room))


def _view(geo: Geometry, biggest: float) -> float | None:
    """How many px a unit the game page shows the map at on a desktop (:data:`FRAME_PX`; the heading and the
    legend add about a tenth to the board's height), where the map's
    biggest names (``biggest`` units) read there without zooming (the Hundred's): its names are then placed
    where the page's viewer shows them (:func:`dippouch.render.placement.place`). None where they do not (the
    standard map's, at 7 px): the viewer hides most of a board's names until it is zoomed in anyway."""
    view = min(FRAME_PX[0] / geo.width, FRAME_PX[1] / (geo.height * 1.1))
    return view if biggest * view >= READABLE_PX else None


def _make_static(variant: Variant, geo: Geometry, options: RenderOptions) -> _Static:
    r = _unit_radius(geo) * options.unit_scale
    larger = lettering(geo, _unit_radius(geo))
    font = max(geo.width / 75, r * 1.1)
    gmap = variant.map
    names = {p.abbr: p.name for p in gmap.provinces}
    impassable = frozenset(p.abbr for p in gmap.provinces if p.kind == ProvinceKind.IMPASSABLE)
    sea_fill: dict[str, str] = {}
    areas = variant.data.get("sea_areas")
    primaries = (
        {str(a.get("primary")) for a in areas.values() if isinstance(a, Mapping)}
        if isinstance(areas, Mapping)
        else set()
    )
    pdata = variant.data.get("provinces", {})
    for abbr, shape in geo.provinces.items():
        if shape.kind != "sea":
            continue
        entry = pdata.get(abbr, {}) if isinstance(pdata, Mapping) else {}
        if abbr in primaries:
            sea_fill[abbr] = PRIMARY_SEA
        elif isinstance(entry, Mapping) and entry.get("area"):
            sea_fill[abbr] = LOCAL_SEA
        else:
            sea_fill[abbr] = WATER
    towns = _towns(variant, geo)
    placed = place(
        geo,
        names,
        r,
        mode=options.names,
        label_scale=options.label_scale * larger,
        towns=towns,
        labels=options.labels,
        view=_view(geo, r * 1.3 * options.label_scale * larger),
    )
    label_svg = _labels_svg(geo, placed.labels, r) if options.labels else ""
    coast_svg = _coast_marks(geo, r) if options.coasts else ""
    extra: list[str] = []
    if geo.sea_areas:
        extra.append(f'<g class="sea-areas" fill="none" stroke="#4d7591" stroke-width="{_f(r * 0.16)}">')
        for a in geo.sea_areas.values():
            extra.append(f'<path class="sea-area" data-area={quoteattr(a.key)} d="{a.d}"/>')
        extra.append("</g>")
    if geo.connectors:
        extra.append(
            f'<g class="connectors" fill="none" stroke="#5b6f7d" stroke-width="{_f(r * 0.16)}" opacity="0.8" '
            f'stroke-dasharray="{_f(r * 0.45)} {_f(r * 0.35)}" stroke-linecap="round">'
        )
        for c in geo.connectors:
            extra.append(f'<path class="connector" data-a="{escape(c.a)}" data-b="{escape(c.b)}" d="{c.d}"/>')
        extra.append("</g>")
    st = _Static(
        r,
        font,
        font * larger,
        tuple(placed.labels) if options.labels else (),
        label_svg,
        coast_svg,
        "".join(extra),
        sea_fill,
        impassable,
        names,
        placed.sc,
        placed.dislodged,
        placed.anchors,
        {
            abbr: (
                f'id="r-{escape(abbr)}" data-province="{escape(abbr)}" data-name={quoteattr(names.get(abbr, abbr))}'
                f' class="region {shape.kind}',
                f' data-at="{_f(shape.label[0])} {_f(shape.label[1])}"',
            )
            for abbr, shape in geo.provinces.items()
        },
        _offboard_svg(geo, r),
        "",
    )
    return replace(st, centres_svg=_centres_svg(st))


def _towns(variant: Variant, geo: Geometry) -> dict[str, Point]:
    """Where each supply centre's town is in picture units: ``[drawing.towns]``, else the province's own
    point (for most maps the town itself); nothing on a geometry without a recorded projection."""
    drawing = variant.data.get("drawing")
    given = drawing.get("towns") if isinstance(drawing, Mapping) else None
    given = given if isinstance(given, Mapping) else {}
    out: dict[str, Point] = {}
    for p in variant.map.provinces:
        if not p.supply_centre:
            continue
        lonlat = given.get(p.abbr) or p.point
        if lonlat is None:
            continue
        pt = project(geo, float(lonlat[0]), float(lonlat[1]))
        if pt is None:
            return {}
        out[p.abbr] = pt
    return out


def _label_parts(geo: Geometry, lab: Label, r: float) -> tuple[str, str, str | None]:
    """A name's text attributes (place and size), its ink and its leader's path (a name standing beside its
    province), as every way of drawing the names writes them."""
    size = lab.size
    attrs = f'x="{_f(lab.x)}" y="{_f(lab.mid + size * BASELINE)}" font-size="{_f(size)}"'
    sea = geo.provinces[lab.abbr].kind == "sea"
    if sea:
        attrs += ' font-style="italic"'
    leader = None
    if lab.leader is not None:
        (x0, y0), (x1, y1) = lab.leader
        leader = f"M{_f(x0)} {_f(y0)}L{_f(x1)} {_f(y1)}"
    return attrs, "#1f4a66" if sea else "#222222", leader


def _leader_marks(lab: Label, d: str, fill: str, r: float, mine: str, ident: str) -> str:
    """A leader line with its white casing and the dot at its end, inside the province."""
    x1, y1 = lab.leader[1] if lab.leader is not None else (0.0, 0.0)
    return (
        f'<path {mine}d="{d}" stroke="#ffffff" stroke-width="{_f(r * 0.24)}" opacity="0.8"/>'
        f'<path {ident}d="{d}" {mine}stroke="{fill}" stroke-width="{_f(r * 0.09)}"/>'
        f'<circle {mine}cx="{_f(x1)}" cy="{_f(y1)}" r="{_f(r * 0.16)}" fill="{fill}"/>'
    )


def _label_layers(r: float, leaders: Sequence[str], halo: Sequence[str], ink: Sequence[str]) -> str:
    """The names' three layers: leader lines, then every name's white halo, then every name's ink (a halo never
    covers another name's ink)."""
    return (
        f'<g class="leaders" fill="none" stroke-linecap="round">{"".join(leaders)}</g>'
        f'<g class="labels" font-weight="bold" text-anchor="middle">'
        f'<g class="halo" fill="#ffffff" stroke="#ffffff" stroke-width="{_f(r * 0.22)}" stroke-linejoin="round" '
        f'opacity="0.8">{"".join(halo)}</g>{"".join(ink)}</g>'
    )


def _labels_svg(geo: Geometry, labels: Sequence[Label], r: float) -> str:
    """The names with a white halo, and the leader lines of names standing beside their province."""
    halo: list[str] = []
    ink: list[str] = []
    leaders: list[str] = []
    for lab in sorted(labels, key=lambda lab: lab.abbr):
        attrs, fill, leader = _label_parts(geo, lab, r)
        t = escape(lab.text)
        # data-for ties a name's halo and leader to it (the web viewer hides names too small to read).
        mine = f'data-for="{escape(lab.abbr)}" '
        halo.append(f"<text {mine}{attrs}>{t}</text>")
        ink.append(f'<text id="label-{escape(lab.abbr)}" class="label" fill="{fill}" {attrs}>{t}</text>')
        if leader is not None:
            leaders.append(_leader_marks(lab, leader, fill, r, mine, f'id="leader-{escape(lab.abbr)}" class="leader" '))
    return _label_layers(r, leaders, halo, ink)


def _labels_used(geo: Geometry, st: _Static, board: str) -> str:
    """The names drawn by reference to the board's file (:func:`dippouch.render.board.board_svg`): its text
    ``t-ABBR`` used twice, as the halo (the layer's white) and as the ink (the name's colour), and its leader
    ``leader-ABBR``; the same layers, ids and ``data-for`` as :func:`_labels_svg`, so the web viewer reads
    them alike (``data-size`` gives a name's size, ``data-sc`` marks a supply centre's)."""
    halo: list[str] = []
    ink: list[str] = []
    leaders: list[str] = []
    for lab in sorted(st.labels, key=lambda lab: lab.abbr):
        _, fill, leader = _label_parts(geo, lab, st.r)
        a = escape(lab.abbr)
        text = quoteattr(f"{board}#t-{lab.abbr}")
        halo.append(f'<use href={text} data-for="{a}"/>')
        sc = " data-sc" if lab.abbr in st.sc else ""
        ink.append(f'<use href={text} id="label-{a}" class="label" fill="{fill}" data-size="{_f(lab.size)}"{sc}/>')
        if leader is not None:
            leaders.append(f'<use href={quoteattr(f"{board}#leader-{lab.abbr}")} id="leader-{a}" data-for="{a}"/>')
    return _label_layers(st.r, leaders, halo, ink)


def _coast_marks(geo: Geometry, r: float) -> str:
    if not geo.coasts:
        return ""
    out = [f'<g class="coasts" font-size="{_f(r * 0.8)}" font-style="italic" text-anchor="middle" fill="#1f4a66">']
    for key, (x, y) in sorted(geo.coasts.items()):
        coast = key.partition("/")[2]
        out.append(
            _ring((x, y), r * 0.75, "#1f4a66", r * 0.09, dash=f"{_f(r * 0.25)} {_f(r * 0.2)}", attrs='class="coast" ')
            + f'<text x="{_f(x)}" y="{_f(y + r * 1.55)}">{escape(coast)}</text>'
        )
    out.append("</g>")
    return "".join(out)


# --------------------------------------------------------------------------------------------------
# Orders


@dataclass(frozen=True, slots=True)
class _Drawn:
    power: str
    order: Order
    status: str
    """``ok`` (succeeded, or not yet judged), ``failed`` or ``illegal``."""
    text: str
    dislodged: bool = False
    number: int = 0


def _status(result: str | None) -> str:
    if result in _ILLEGAL:
        return "illegal"
    if result in _FAILED:
        return "failed"
    return "ok"


def _read_orders(
    variant: Variant,
    kind: PhaseKind,
    orders: Mapping[str, Sequence[str]] | None,
    results: Sequence[Mapping[str, Any]] | None,
) -> list[_Drawn]:
    """The orders to draw: the results when the phase is judged (they name each order's fate, automatic
    removals included), else the orders as sent. Automatic holds are not drawn (judge maps leave an
    unordered unit plain), and a text that no longer reads is skipped rather than breaking the picture."""
    out: list[_Drawn] = []
    if results:
        for r in results:
            text = str(r.get("order", ""))
            try:
                o = parse_order(variant, text, phase_kind=kind)
            except (DippouchError, KeyError, ValueError):
                continue
            if r.get("automatic") and isinstance(o, Hold):
                continue
            out.append(_Drawn(str(r.get("power", "")), o, _status(r.get("result")), text, bool(r.get("dislodged"))))
        return out
    for power, texts in (orders or {}).items():
        for text in texts:
            try:
                o = parse_order(variant, str(text), phase_kind=kind)
            except (DippouchError, KeyError, ValueError):
                continue
            out.append(_Drawn(power, o, "ok", str(text)))
    return out


def _unit_point(variant: Variant, geo: Geometry, loc: int) -> Point | None:
    loc_ = variant.map.locations[loc]
    if loc_.coast is not None:
        pt = geo.coasts.get(loc_.abbr)
        if pt is not None:
            return pt
    shape = geo.provinces.get(variant.map.provinces[loc_.province].abbr)
    return shape.unit if shape is not None else None


MOVE_CROSS_AT = 0.85
"""Where along a failed move's curve its cross sits (0 at the unit, 1 at the arrow's tip)."""
SUPPORT_GOAL_AT = 0.5
"""Where along a supported move's curve the support's arrow ends."""


def _toward(a: Point, b: Point, dist: float) -> Point:
    dx, dy = b[0] - a[0], b[1] - a[1]
    n = math.hypot(dx, dy) or 1.0
    return (a[0] + dx / n * dist, a[1] + dy / n * dist)


def _curve(a: Point, b: Point, start_gap: float, end_gap: float) -> tuple[Point, Point, Point] | None:
    """A gently bent path from ``a`` to ``b`` (bent to its left, so two opposite moves are two arcs), cut
    back at both ends by the gaps; None when the ends are too close to draw an arrow."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = math.hypot(dx, dy)
    if length < start_gap + end_gap + 1e-6:
        return None
    bend = 0.12 * length
    c = ((a[0] + b[0]) / 2 + dy / length * bend, (a[1] + b[1]) / 2 - dx / length * bend)
    return (_toward(a, c, start_gap), c, _toward(b, c, end_gap))


def _at(curve: tuple[Point, Point, Point], t: float) -> Point:
    (x0, y0), (cx, cy), (x1, y1) = curve
    u = 1 - t
    return (u * u * x0 + 2 * u * t * cx + t * t * x1, u * u * y0 + 2 * u * t * cy + t * t * y1)


def _head(tip: Point, frm: Point, length: float, width: float) -> str:
    """The points of an arrowhead at ``tip`` pointing away from ``frm``."""
    dx, dy = tip[0] - frm[0], tip[1] - frm[1]
    n = math.hypot(dx, dy) or 1.0
    ux, uy = dx / n, dy / n
    bx, by = tip[0] - ux * length, tip[1] - uy * length
    px, py = -uy * width / 2, ux * width / 2
    return f"{_f(tip[0])},{_f(tip[1])} {_f(bx + px)},{_f(by + py)} {_f(bx - px)},{_f(by - py)}"


class _Pen:
    """Draws order marks in one power's colour, with a dark casing so a line reads on any background."""

    def __init__(self, r: float, colour: str, status: str) -> None:
        self.r = r
        self.colour = ILLEGAL if status == "illegal" else colour
        self.status = status

    def path(self, d: str, width: float, dash: str | None = None, inner: bool = False) -> str:
        r = self.r
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        out = (
            f'<path d="{d}" fill="none" stroke="{CASING}" stroke-width="{_f(width + r * 0.18)}"'
            f' stroke-linecap="round" stroke-linejoin="round"{dash_attr}/>'
            f'<path d="{d}" fill="none" stroke="{self.colour}" stroke-width="{_f(width)}" stroke-linecap="round"'
            f' stroke-linejoin="round"{dash_attr}/>'
        )
        if inner:
            out += (
                f'<path d="{d}" fill="none" stroke="#ffffff" stroke-width="{_f(width * 0.35)}" stroke-linecap="round"/>'
            )
        return out

    def head(self, tip: Point, frm: Point, size: float) -> str:
        """An arrowhead, its casing's corners mitred (a triangle 0.1 radius wide: rounded, they are the same to
        the eye; and Cairo, replaying the drawing for an atlas's sheet, turned the whole of one sheet of the
        Hundred's atlas into a picture for one head's rounded corners, its names no longer text)."""
        pts = _head(tip, frm, size, size * 0.9)
        return f'<polygon points="{pts}" fill="{self.colour}" stroke="{CASING}" stroke-width="{_f(self.r * 0.1)}"/>'


def _cross(at: Point, size: float, colour: str = "#d7191c") -> str:
    x, y = at
    s = size / 2
    d = f"M{_f(x - s)} {_f(y - s)}L{_f(x + s)} {_f(y + s)}M{_f(x - s)} {_f(y + s)}L{_f(x + s)} {_f(y - s)}"
    return (
        f'<path d="{d}" stroke="#ffffff" stroke-width="{_f(size * 0.42)}" stroke-linecap="round"/>'
        f'<path d="{d}" stroke="{colour}" stroke-width="{_f(size * 0.22)}" stroke-linecap="round"/>'
    )


FATE_OPACITY = 0.55
"""How opaque the marks of a failed or refused order are: paler than the orders that worked (their cross,
drawn apart, stays at full strength)."""


def _group(cls: str, d: _Drawn, body: str) -> str:
    """One order's marks, named ``order-N`` (N its place among the orders drawn) with the power that gave it;
    paler when the order failed or was refused."""
    pale = f' opacity="{FATE_OPACITY}"' if d.status != "ok" else ""
    return (
        f'<g id="order-{d.number}" data-power={quoteattr(d.power)} class="order {cls} {d.status}"'
        f" data-order={quoteattr(d.text)}{pale}>{body}</g>"
    )


def _qd(c: tuple[Point, Point, Point]) -> str:
    (x0, y0), (cx, cy), (x1, y1) = c
    return f"M{_f(x0)} {_f(y0)}Q{_f(cx)} {_f(cy)} {_f(x1)} {_f(y1)}"


# --------------------------------------------------------------------------------------------------
# Units


def _unit_shape(kind: str, x: float, y: float, r: float, fill: str, stroke: str, sw: float) -> str:
    common = f'fill="{fill}" stroke="{stroke}" stroke-width="{_f(sw)}" stroke-linejoin="round"'
    if kind == "F":
        pts = [(-1.2, -0.5), (1.2, -0.5), (0.8, 0.65), (-0.8, 0.65)]
        p = " ".join(f"{_f(x + a * r)},{_f(y + b * r)}" for a, b in pts)
        mast = f"M{_f(x)} {_f(y - 0.5 * r)}L{_f(x)} {_f(y - 1.15 * r)}L{_f(x + 0.6 * r)} {_f(y - 0.75 * r)}Z"
        return f'<path d="{mast}" {common}/><polygon points="{p}" {common}/>'
    if kind == "A":
        return f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(r)}" {common}/>'
    # Other kinds (1000 AD's defensive army "D"): a square with an inner frame, a fort.
    s = r * 0.95
    inner = s * 0.72
    return (
        f'<rect x="{_f(x - s)}" y="{_f(y - s)}" width="{_f(2 * s)}" height="{_f(2 * s)}" {common}/>'
        f'<rect x="{_f(x - inner)}" y="{_f(y - inner)}" width="{_f(2 * inner)}" height="{_f(2 * inner)}" fill="none"'
        f' stroke="{stroke}" stroke-width="{_f(sw * 0.6)}"/>'
    )


def _ring(
    at: Point,
    radius: float,
    stroke: str,
    width: float,
    *,
    fill: str = "none",
    fill_opacity: str | None = None,
    dash: str | None = None,
    attrs: str = "",
) -> str:
    """A circle round a spot: every ring the map draws (round a unit holding, supported, converting, handed
    over, built, dislodged or removed; a place drawn again round its unit) is one of these, so they differ
    only in what is passed here. ``attrs`` go first (class, data), ``dash`` is a stroke-dasharray."""
    dashes = f' stroke-dasharray="{dash}"' if dash else ""
    see = f' fill-opacity="{fill_opacity}"' if fill_opacity else ""
    return (
        f'<circle {attrs}cx="{_f(at[0])}" cy="{_f(at[1])}" r="{_f(radius)}" fill="{fill}"{see} stroke="{stroke}"'
        f' stroke-width="{_f(width)}"{dashes}/>'
    )


def _place_ring(geo: Geometry, abbr: str, at: Point, r: float, fill: str) -> str:
    """A castle or city drawn as a small circle (W3K's nested places) drawn again round the unit standing
    there: the place's own shape is smaller than the unit and would be hidden under it, so it is drawn as a
    disc wider than the unit, as the place is drawn (its owner's tint, a dark edge) and unlike the coloured
    rings of a conversion. The unit keeps its full size (the printed atlas's 4 mm)."""
    shape = geo.provinces.get(abbr)
    if shape is None or not shape.nested:
        return ""
    pts = [p for ring in path_rings(shape.d) for p in ring]
    if pts:
        half = min(max(p[0] for p in pts) - min(p[0] for p in pts), max(p[1] for p in pts) - min(p[1] for p in pts)) / 2
        if half >= r * PLACE_RING:
            return ""  # the place is large enough to show round the unit by itself
    # Only a picture of the place: a click or tap goes through it to the province shapes beneath, so the
    # unit standing there and the neighbour it overlaps keep the hit-testing players rely on.
    return _place_disc(abbr, at, r, fill, 'class="place-ring" pointer-events="none" ')


def _place_disc(abbr: str, at: Point, r: float, fill: str, attrs: str) -> str:
    """The place drawn again as a disc round its unit (in the place, or beside it): its tint, a dark edge."""
    return _ring(at, r * PLACE_RING, CASING, r * 0.18, fill=fill, attrs=f'{attrs}data-place="{escape(abbr)}" ')


def _unit_callout(abbr: str, at: Point, to: Point, r: float, fill: str) -> str:
    """A unit standing beside a place too small for it (``[drawing] unit_spots``): the place drawn again
    round the unit as a disc of its tint, which takes clicks for the place (``data-province``), and a leader
    line from the disc to the place itself."""
    a = escape(abbr)
    sx, sy = _toward(at, to, r * PLACE_RING)
    d = f"M{_f(sx)} {_f(sy)}L{_f(to[0])} {_f(to[1])}"
    return (
        f'<path class="leader unit-leader" data-unit-leader="{a}" d="{d}" stroke="{CASING}"'
        f' stroke-width="{_f(r * 0.14)}" stroke-linecap="round"/>'
        f'<circle cx="{_f(to[0])}" cy="{_f(to[1])}" r="{_f(r * 0.22)}" fill="{CASING}" pointer-events="none"/>'
        + _place_disc(abbr, at, r, fill, f'class="place-ring callout" data-province="{a}" ')
    )


def _unit_svg(
    kind: str,
    at: Point,
    r: float,
    colour: Rgb,
    letter: str,
    *,
    ident: str = "",
    cls: str = "unit",
    outline: str = CASING,
    extra: str = "",
) -> str:
    x, y = at
    fill = hex_colour(colour)
    ink = ink_on(colour)
    sw = r * (0.2 if outline != CASING else 0.13)
    ty = y + r * 0.38 if kind != "F" else y + r * 0.35
    fs = r * (1.05 if kind != "F" else 0.95)
    return (
        f'<g {ident}class="{cls} kind-{escape(kind)}">{_unit_shape(kind, x, y, r, fill, outline, sw)}'
        f'<text x="{_f(x)}" y="{_f(ty)}" font-size="{_f(fs)}" font-weight="bold" text-anchor="middle"'
        f' fill="{ink}">{escape(letter)}</text>{extra}</g>'
    )


def _centres_svg(st: _Static) -> str:
    """The supply centres' markers at their towns (with a leader where one stands beside its province)."""
    r = st.r
    scs: list[str] = []
    for abbr, m in st.sc.items():
        x, y = m.at
        lead = ""
        if m.leader is not None:
            (x0, y0), (x1, y1) = m.leader
            lead = (
                f'<path class="leader" d="M{_f(x0)} {_f(y0)}L{_f(x1)} {_f(y1)}" stroke="#222222"'
                f' stroke-width="{_f(r * 0.1)}" stroke-linecap="round"/>'
            )
        scs.append(
            f'<g id="sc-{escape(abbr)}" class="sc">{lead}<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(r * 0.42)}"'
            f' fill="#ffffff" stroke="#222222" stroke-width="{_f(r * 0.12)}"/><circle cx="{_f(x)}" cy="{_f(y)}"'
            f' r="{_f(r * 0.17)}" fill="#222222"/></g>'
        )
    return "".join(scs)


def _offboard_svg(geo: Geometry, r: float) -> str:
    """What lies off the board: land, and a sea no province's (1000 AD's Black Sea), greyed."""
    out = ""
    if geo.background_offboard:
        out += f'<path class="offboard-water" fill="{OFFBOARD_WATER}" d="{geo.background_offboard}"/>'
    if geo.background_land:
        out += (
            f'<path class="offboard" fill="{OFFBOARD}" stroke="#c9c4b8" stroke-width="{_f(r * 0.08)}"'
            f' d="{geo.background_land}"/>'
        )
    return out


def _used(board: str, ident: str, attrs: str = "") -> str:
    """A part of the board's file drawn by reference (``<use>``), with ``attrs`` of its own."""
    return f"<use href={quoteattr(f'{board}#{ident}')}{attrs}/>"


# --------------------------------------------------------------------------------------------------
# The picture


def render_svg(
    variant: Variant,
    position: Position,
    orders: Mapping[str, Sequence[str]] | None = None,
    results: Sequence[Mapping[str, Any]] | None = None,
    options: RenderOptions | None = None,
    *,
    geometry: Geometry | None = None,
) -> str:
    """The position as an SVG document, with ``orders`` (canonical texts per power) or the stored
    ``results`` of the phase drawn on it. Raises FileNotFoundError when the variant has no built geometry."""
    geo = geometry if geometry is not None else load_geometry(variant)
    return draw_svg(variant, geo, position, orders, results, options or RenderOptions())


def render_phase_svg(
    variant: Variant,
    record: Mapping[str, Any],
    *,
    after: bool = False,
    orders: bool = True,
    options: RenderOptions | None = None,
    geometry: Geometry | None = None,
) -> str:
    """A stored phase (``dippouch.store.history.phase_record``) with its orders and results, or (``after``) the position
    it led to."""
    from dippouch.core.jsonio import position_from_json

    data = record.get("next_position") if after and record.get("next_position") else record.get("position")
    position = position_from_json(variant, data or {})
    opts = options or RenderOptions()
    if opts.title is None and record.get("game"):
        opts = replace(opts, title=str(record["game"]))
    # A fog-of-war record (dippouch.render.fog) names the provinces its reader saw before and after the phase.
    seen = record.get("seen_after") if after and record.get("next_position") else record.get("seen")
    if seen is not None and opts.seen is None:
        opts = replace(opts, seen=frozenset(str(s) for s in seen))
    show = orders and not after
    svg = render_svg(
        variant,
        position,
        record.get("orders") if show else None,
        record.get("results") if show else None,
        opts,
        geometry=geometry,
    )
    if show and record.get("status") == "processed" and record.get("results") is not None:
        # A processed phase with its orders and results: the picture a player's page shows as its last turns,
        # beside the open phase's own map (drawn inline): its ids are its phase's own (:func:`own_ids`).
        svg = own_ids(svg, phase_suffix(position))
    return svg


def draw_svg(
    variant: Variant,
    geo: Geometry,
    position: Position,
    orders: Mapping[str, Sequence[str]] | None,
    results: Sequence[Mapping[str, Any]] | None,
    options: RenderOptions,
) -> str:
    st = _static(variant, geo, options)
    r = st.r
    board = options.board
    refs = _by_board(geo, st, board) if board else None
    gmap = variant.map
    powers = {p.name: p for p in variant.powers}
    colour: dict[str, Rgb] = {p.name: parse_colour(p.colour) for p in variant.powers}
    tint = {name: hex_colour(mix(c, WHITE, TINT)) for name, c in colour.items()}
    faint = {name: hex_colour(mix(c, WHITE, 0.75)) for name, c in colour.items()}
    kind = variant.calendar.kind(position.phase)

    # -- provinces
    owner: dict[str, str] = {gmap.provinces[p].abbr: pw for p, pw in position.centres.items()}
    occupant: dict[str, str] = {gmap.provinces[p].abbr: u.power for p, u in position.units.items()}
    shapes: list[str] = []
    nested: list[str] = []
    fills: dict[str, str] = {}
    for abbr, shape in geo.provinces.items():
        if shape.kind == "sea":
            fill = st.sea_fill.get(abbr, WATER)
            stroke = SEA_BORDER
        elif abbr in st.impassable:
            fill, stroke = IMPASSABLE, BORDER
        elif abbr in owner and owner[abbr] in tint:
            fill, stroke = tint[owner[abbr]], BORDER
        elif abbr in occupant and occupant[abbr] in faint:
            fill, stroke = faint[occupant[abbr]], BORDER
        else:
            fill, stroke = NEUTRAL_LAND, BORDER
        fogged = options.seen is not None and abbr not in options.seen
        if fogged:
            fill = FOG_SEA if shape.kind == "sea" else FOG_LAND
        fills[abbr] = fill
        head, at = st.regions[abbr]
        own = f'{" fogged" if fogged else ""}" fill="{fill}" stroke="{stroke}"'
        el = f"{refs.regions[abbr]}{own}{at}/>" if refs is not None else f'<path {head}{own} d="{shape.d}"/>'
        (nested if shape.nested else shapes).append(el)

    # -- orders
    layers = _Layers()
    drawn = _read_orders(variant, kind, orders, results) if (orders or results) else []
    builds: list[str] = []
    for i, d in enumerate(drawn):
        d = replace(d, number=i)
        _draw_order(variant, geo, position, d, r, colour, powers, layers, builds, st.dislodged)

    # -- units
    badges: dict[str, tuple[str, str]] = {}
    for badge in UNIT_BADGES:  # marks a variant's state asks for beside units (a conversion under way)
        badges.update(badge(variant, position))
    unit_svg: list[str] = []
    rings: list[str] = []
    for prov, u in position.units.items():
        pt = _unit_point(variant, geo, u.loc)
        if pt is None:
            continue
        abbr = gmap.provinces[prov].abbr
        here = geo.provinces.get(abbr)
        if here is not None and here.unit_leader is not None and pt == here.unit:
            to = st.anchors.get(abbr, here.unit_leader)
            rings.append(_unit_callout(abbr, pt, to, r, fills.get(abbr, NEUTRAL_LAND)))
        else:
            rings.append(_place_ring(geo, abbr, pt, r, fills.get(abbr, NEUTRAL_LAND)))
        extra = ""
        if abbr in badges:
            css, letter = badges[abbr]
            bx, by = pt[0] + r * 1.0, pt[1] - r * 0.95
            extra = (
                f'<g class="{escape(css)}"><circle cx="{_f(bx)}" cy="{_f(by)}" r="{_f(r * 0.55)}" fill="#ffffff"'
                f' stroke="{CASING}" stroke-width="{_f(r * 0.1)}"/><text x="{_f(bx)}" y="{_f(by + r * 0.27)}"'
                f' font-size="{_f(r * 0.75)}" font-weight="bold" text-anchor="middle" fill="#000000">{escape(letter)}</text></g>'
            )
        unit_svg.append(
            _unit_svg(
                u.kind,
                pt,
                r,
                colour.get(u.power, (0.5, 0.5, 0.5)),
                powers[u.power].letter if u.power in powers else u.power[:1],
                ident=f'id="unit-{escape(abbr)}" data-unit="{escape(abbr)}" data-power={quoteattr(u.power)} ',
                extra=extra,
            )
        )
    for prov, dl in position.dislodged.items():
        abbr = gmap.provinces[prov].abbr
        spot = st.dislodged.get(abbr)
        if spot is None:
            continue
        u = dl.unit
        unit_svg.append(
            _unit_svg(
                u.kind,
                spot,
                r * 0.9,
                colour.get(u.power, (0.5, 0.5, 0.5)),
                powers[u.power].letter if u.power in powers else u.power[:1],
                ident=f'id="dislodged-{escape(abbr)}" data-unit="{escape(abbr)}" data-power={quoteattr(u.power)} ',
                cls="unit dislodged",
                outline="#d7191c",
            )
        )

    # -- assemble
    top = st.font * 2.3 if options.header else 0.0
    legend_rows, legend_h = (
        _legend(
            variant,
            position,
            st,
            geo.width,
            colour,
            layers.notes,
            bool(drawn),
            _unit_changes(kind, drawn, results),
            lang=options.lang,
            fog=options.seen is not None,
        )
        if options.legend
        else ([], 0.0)
    )
    width, height = geo.width, geo.height + top + legend_h
    heading = _heading(variant, position, options, st, width) if options.header else ""
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_f(width)} {_f(height)}" width="{_f(width)}"'
        f' height="{_f(height)}" class="dippouch-map" font-family="{FONT}" role="img"'
        # Read back by the printed atlas (render/atlas.py): where the board is and how big a unit is.
        f' data-board="0 {_f(top)} {_f(geo.width)} {_f(geo.height)}" data-unit-radius="{r:.2f}">',
        f"<title>{escape(_title_text(variant, position, options))}</title>",
        f'<rect class="paper" x="0" y="0" width="{_f(width)}" height="{_f(height)}" fill="{PAPER}"/>',
        heading,
        f'<g class="board" transform="translate(0 {_f(top)})">',
        f'<rect class="water" x="0" y="0" width="{_f(geo.width)}" height="{_f(geo.height)}" fill="{WATER}"/>',
    ]
    if st.offboard_svg:
        parts.append(_used(board, "offboard") if board else st.offboard_svg)
    parts.append(f'<g class="regions" stroke-width="{_f(r * 0.09)}" stroke-linejoin="round">')
    parts.extend(shapes)
    parts.extend(nested)
    parts.extend(rings)
    parts.append("</g>")
    parts.append(NAMES_MARK)
    if board and refs is not None:
        parts.extend(_used(board, part) for part, svg in (("extra", st.extra_svg), ("coasts", st.coast_svg)) if svg)
        parts.append(_used(board, "centres", ' class="centres"'))
        parts.append(refs.labels)
    else:
        parts.append(st.extra_svg)
        parts.append(st.coast_svg)
        parts.append(f'<g class="centres">{st.centres_svg}</g>')
        parts.append(st.label_svg)
    parts.append(OVER_MARK)
    parts.append(f'<g class="orders">{"".join(layers.under)}{"".join(layers.lines)}</g>')
    parts.append(f'<g class="units">{"".join(unit_svg)}{"".join(builds)}</g>')
    parts.append(f'<g class="marks">{"".join(layers.top)}</g>')
    parts.append("</g>")
    if legend_rows:
        parts.append(f'<g class="legend" transform="translate(0 {_f(top + geo.height)})">{"".join(legend_rows)}</g>')
    parts.append("</svg>")
    return "".join(parts)


NAMES_MARK = "<!--layer:names-->"
"""Where a picture's parts that no phase changes begin (the coasts, centre markers and names, drawn over the
provinces' colours and under the orders): :func:`layers` cuts there."""
OVER_MARK = "<!--layer:over-->"
"""Where they end, and the phase's orders, units and legend begin."""
_ROOT_SIZE = re.compile(r'(viewBox="[-\d.]+ [-\d.]+ [\d.]+ )[\d.]+("[^>]*? height=")[\d.]+(")')
"""The root's height as its ``viewBox`` and its ``height`` give it, in the order :func:`draw_svg` writes them."""
_BOARD_OPEN = re.compile(r'<g class="board"[^>]*>')
_CUT_BELOW = 8.0
"""How far below the board's foot its layers reach, in the picture's units (a few strokes' widths)."""
_PAPER_RECT = re.compile(r'<rect class="paper" [^>]*/>')


@dataclass(frozen=True)
class Layers:
    """A picture drawn by :func:`draw_svg` as three pictures that, laid one over the other, are the whole."""

    under: str
    """The paper, the heading and the board's colours, cut at the board's foot: the same for the board after a
    phase and the next phase's orders, whatever each one's legend."""
    names: str
    """The coasts, centre markers and names, cut at the board's foot: the same in every phase of a game."""
    over: str
    """The phase's orders, units and legend, the picture's whole height, transparent elsewhere: laid on
    :data:`PAPER` (what shows under the legend) with the other two at its top."""


def layers(svg: str) -> Layers | None:
    """``svg`` cut into :class:`Layers`; ``None`` for an SVG not drawn by :func:`draw_svg`.

    A replay rasterises hundreds of one game's pictures, and Cairo spends half of a W3K map's time on its names
    and centre markers and a third on the board's colours (:mod:`dippouch.render.animation`): cut so, the names are
    drawn once a replay and the colours once for each position."""
    names_at, over_at = svg.find(NAMES_MARK), svg.find(OVER_MARK)
    board = _BOARD_OPEN.search(svg)
    boxes = drawing_boxes(svg) if svg.startswith("<svg") else None
    if boxes is None or board is None or not board.end() <= names_at < over_at:
        return None
    (_, _, width, height), (_, board_top, _, board_height) = boxes
    whole = svg[: svg.index(">") + 1]
    # Cut a little below the board's foot: the water's edge and the strokes of the provinces along it reach
    # past it (half a stroke), and the legend is drawn over what is there.
    foot = _f(min(board_top + board_height + _CUT_BELOW, height))
    cut, found = _ROOT_SIZE.subn(rf"\g<1>{foot}\g<2>{foot}\g<3>", whole, 1)
    if not found:
        return None
    # The paper is as tall as the picture, which the legend's rows decide: cut at the foot with the rest.
    under = _PAPER_RECT.sub(
        f'<rect class="paper" x="0" y="0" width="{_f(width)}" height="{foot}" fill="{PAPER}"/>',
        svg[len(whole) : names_at],
        1,
    )
    return Layers(
        cut + under + "</g></svg>",
        cut + board.group(0) + svg[names_at:over_at] + "</g></svg>",
        whole + board.group(0) + svg[over_at:],
    )


DRAFT_CASING = "#ffffff"
"""The casing of an order drawn while it is typed, before it is sent: white where a sent order's is dark."""
DRAFT_OPACITY = 0.85
_SENT_GROUP = re.compile(
    r"""<g id="order--1" data-power=(?:"[^"]*"|'[^']*') class="order ([^"]*) ok" data-order=(?:"[^"]*"|'[^']*')>"""
)


def draft_order_svg(
    variant: Variant, position: Position, power: str, text: str, *, geometry: Geometry | None = None
) -> str | None:
    """One order as the player's page draws it while it is typed, before it is sent: the very marks of a
    sent order (one drawing of each kind of order), with a white casing and a little transparency so a
    draft is not mistaken for what was sent, in a ``g`` of class ``draft`` and the order's kind, saying the
    provinces it names (``data-unit``, ``data-target``, ``data-dest``: abbreviations, empty when the order
    names none) so the page and its tests can tell where it goes. Coordinates are the board's (the ``g``
    of class ``board`` of a map drawn with the default options). ``None`` when the text does not read as an
    order or has no mark on the map (a W3K supply transfer is a line under the legend)."""
    geo = geometry if geometry is not None else load_geometry(variant)
    st = _static(variant, geo, RenderOptions())
    try:
        order = parse_order(variant, text, phase_kind=variant.calendar.kind(position.phase))
    except (DippouchError, KeyError, ValueError):
        return None
    desc = drawing_of(order)
    if desc is None or desc.shape == "note":
        return None
    colour = {p.name: parse_colour(p.colour) for p in variant.powers}
    powers = {p.name: p for p in variant.powers}
    layers = _Layers()
    builds: list[str] = []
    d = _Drawn(power, order, "ok", text, number=-1)
    _draw_order(variant, geo, position, d, st.r, colour, powers, layers, builds, st.dislodged)
    body = "".join(layers.under + layers.lines + builds + layers.top)
    if not body:
        return None
    # The inner groups lose what names a sent order (its id, class ``order``, data-order), so pages and
    # tools counting the orders drawn never count a draft.
    body = _SENT_GROUP.sub(r'<g class="\1">', body).replace(f'stroke="{CASING}"', f'stroke="{DRAFT_CASING}"')
    gmap = variant.map

    def abbr(loc: int | None) -> str:
        return "" if loc is None else escape(gmap.provinces[gmap.province_of(loc)].abbr)

    return (
        f'<g class="draft {escape(desc.css)}" data-order={quoteattr(text)} data-power={quoteattr(power)}'
        f' data-unit="{abbr(desc.unit)}" data-target="{abbr(desc.target)}" data-dest="{abbr(desc.dest)}"'
        f' opacity="{DRAFT_OPACITY}">{body}</g>'
    )


def _phase_name(variant: Variant, position: Position, options: RenderOptions) -> str:
    """The heading's phase: as given, else the position's, in the map's language."""
    phase = options.phase_name or variant.calendar.name(position.phase)
    return phase if options.lang == "en" else phase_words(phase, options.lang)


def _title_text(variant: Variant, position: Position, options: RenderOptions) -> str:
    phase = _phase_name(variant, position, options)
    return f"{options.title or variant.title}: {phase}"


def _heading(variant: Variant, position: Position, options: RenderOptions, st: _Static, width: float) -> str:
    fs = st.font * 1.2
    phase = _phase_name(variant, position, options)
    name = options.title or variant.title
    y = st.font * 1.6
    right = escape(variant.title) if options.title else ""
    return (
        f'<g class="heading"><text x="{_f(st.font * 0.6)}" y="{_f(y)}" font-size="{_f(fs)}" fill="#222222">'
        f'<tspan font-weight="bold">{escape(name)}</tspan> · {escape(phase)}</text>'
        f'<text x="{_f(width - st.font * 0.6)}" y="{_f(y)}" font-size="{_f(st.font)}" fill="#555555"'
        f' text-anchor="end">{right}</text></g>'
    )


def _legend(
    variant: Variant,
    position: Position,
    st: _Static,
    width: float,
    colour: Mapping[str, Rgb],
    notes: Sequence[str],
    key: bool = False,
    changes: Mapping[str, int] | None = None,
    *,
    lang: str = "en",
    fog: bool = False,
) -> tuple[list[str], float]:
    fs = st.legend_font
    r = fs * 0.55
    counts_c: dict[str, int] = {}
    counts_u: dict[str, int] = {}
    for pw in position.centres.values():
        counts_c[pw] = counts_c.get(pw, 0) + 1
    for u in position.units.values():
        counts_u[u.power] = counts_u.get(u.power, 0) + 1
    for power, change in (changes or {}).items():
        counts_u[power] = counts_u.get(power, 0) + change
    entries = [
        (p, f"{p.name}", _counts(counts_c.get(p.name, 0), counts_u.get(p.name, 0), lang, fog=fog))
        for p in variant.powers
    ]
    longest = max((_text_width(n, fs, True) + _text_width(c, fs * 0.85) for _, n, c in entries), default=fs * 10)
    col_w = longest * 0.62 + r * 3 + fs
    cols = max(1, min(len(entries), int((width - fs) // max(col_w, 1.0))))
    row_h = fs * 2.6
    rows = math.ceil(len(entries) / cols)
    out: list[str] = [f'<line x1="0" y1="0" x2="{_f(width)}" y2="0" stroke="#999999" stroke-width="{_f(fs * 0.06)}"/>']
    col_w = (width - fs) / cols
    for i, (p, name, counts) in enumerate(entries):
        cx = fs * 0.5 + (i % cols) * col_w + r * 1.4
        cy = fs * 0.55 + (i // cols) * row_h + row_h / 2
        c = colour.get(p.name, (0.5, 0.5, 0.5))
        out.append(
            f'<g class="legend-power" data-power={quoteattr(p.name)}>'
            f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="{_f(r * 1.15)}" fill="{hex_colour(c)}" stroke="{CASING}"'
            f' stroke-width="{_f(r * 0.12)}"/><text x="{_f(cx)}" y="{_f(cy + r * 0.42)}" font-size="{_f(r * 1.2)}"'
            f' font-weight="bold" text-anchor="middle" fill="{ink_on(c)}">{escape(p.letter)}</text>'
            f'<text x="{_f(cx + r * 1.8)}" y="{_f(cy - fs * 0.12)}" font-size="{_f(fs)}" font-weight="bold"'
            f' fill="#222222">{escape(name)}</text>'
            f'<text x="{_f(cx + r * 1.8)}" y="{_f(cy + fs * 0.9)}" font-size="{_f(fs * 0.85)}" fill="#444444">'
            f"{escape(counts)}</text></g>"
        )
    h = fs * 0.55 + rows * row_h + fs * 0.3
    if notes:
        for j, note in enumerate(notes):
            out.append(
                f'<text class="note" x="{_f(fs * 0.6)}" y="{_f(h + fs * (1.0 + 1.3 * j))}" font-size="{_f(fs * 0.9)}"'
                f' fill="#222222">{escape(note)}</text>'
            )
        h += fs * (1.3 * len(notes) + 0.6)
    kinds = _extra_kinds(variant)
    if key or kinds:
        rows_svg, kh = _key(st, width, h, orders=key, kinds=kinds, extra=_key_samples(variant), lang=lang)
        out.append(rows_svg)
        h += kh
    return out, h


def _unit_changes(
    kind: PhaseKind, drawn: Sequence[_Drawn], results: Sequence[Mapping[str, Any]] | None
) -> dict[str, int]:
    """How the adjudicated adjustments change each power's unit count: the legend of a Winter drawn with its
    results counts the units the phase left (the board a Winter's results promise), not those it began with.
    Only what succeeded counts; orders drawn without results (not yet judged) change nothing."""
    if kind != PhaseKind.ADJUSTMENTS or not results:
        return {}
    out: dict[str, int] = {}
    for d in drawn:
        if d.status != "ok":
            continue
        if isinstance(d.order, Build):
            out[d.power] = out.get(d.power, 0) + 1
        elif isinstance(d.order, Disband):
            out[d.power] = out.get(d.power, 0) - 1
    return out


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _counts(centres: int, units: int, lang: str, *, fog: bool = False) -> str:
    """A power's line in the legend: ``3 centres, 3 units``, in ``lang``. Under fog of war the counts are of
    what the reader sees (``in sight: 0 centres, 0 units``), never read as a power's whole."""
    if lang == "en":
        counts = f"{_count(centres, 'centre')}, {_count(units, 'unit')}"
        return f"in sight: {counts}" if fog else counts
    t = translations(lang)
    counts = (
        t.ngettext("%(num)d centre", "%(num)d centres", centres) % {"num": centres}
        + ", "
        + t.ngettext("%(num)d unit", "%(num)d units", units) % {"num": units}
    )
    return str(t.pgettext("map legend", "in sight: %(counts)s")) % {"counts": counts} if fog else counts


def _key_words(lang: str) -> dict[str, str]:
    """The key's labels in ``lang`` (a variant's own order kinds and unit names stay as it writes them)."""
    if lang == "en":
        return {}
    t = translations(lang)
    return {
        "move": str(t.pgettext("map key", "move")),
        "support": str(t.pgettext("map key", "support")),
        "convoy": str(t.pgettext("map key", "convoy")),
        "hold": str(t.pgettext("map key", "hold")),
        "failed": str(t.pgettext("map key", "failed")),
        "refused": str(t.pgettext("map key", "refused")),
        "dislodged": str(t.pgettext("map key", "dislodged")),
        "build": str(t.pgettext("map key", "build")),
        "removed": str(t.pgettext("map key", "removed")),
        "army": str(t.pgettext("map key", "army")),
        "fleet": str(t.pgettext("map key", "fleet")),
    }


def _extra_kinds(variant: Variant) -> list[tuple[str, str]]:
    """Unit kinds beyond armies and fleets (1000 AD's defensive army), with the name the key gives them:
    read from the variant's ``moves_as`` and ``unit_names`` rules, so any variant's kinds are explained."""
    rules = variant.data.get("rules")
    if not isinstance(rules, Mapping):
        return []
    moves = rules.get("moves_as")
    names = rules.get("unit_names")
    kinds = set(moves) if isinstance(moves, Mapping) else set()
    kinds |= set(names) if isinstance(names, Mapping) else set()
    out: list[tuple[str, str]] = []
    for k in sorted(str(k).upper() for k in kinds if str(k).upper() not in ("A", "F")):
        given = names.get(k) if isinstance(names, Mapping) else None
        words = [str(w) for w in given] if isinstance(given, list) else []
        # The first name of more than one word ("defensive army"), not a short form ("3d").
        out.append((k, next((w for w in words if " " in w), words[0]) if words else f"unit {k}"))
    return out


def _key_samples(variant: Variant) -> list[tuple[str, str]]:
    """(label, shape) of the key's samples for the order kinds a variant's rules bring in (W3K's convert and
    proxy), as their modules registered them (:func:`dippouch.core.lookup.register_order_kind`)."""
    rules = variant.data.get("rules")
    if not isinstance(rules, Mapping):
        return []
    return [k.key for k in ORDER_KINDS.values() if k.key is not None and k.rule is not None and rules.get(k.rule)]


def _key(
    st: _Static,
    width: float,
    top: float,
    *,
    orders: bool = True,
    kinds: Sequence[tuple[str, str]] = (),
    extra: Sequence[tuple[str, str]] = (),
    lang: str = "en",
) -> tuple[str, float]:
    """A line of samples saying how orders and their fates are drawn, under the powers: the unit kinds
    first when a variant has more than armies and fleets, the marks of a variant's own order kinds
    (``extra``: label and shape) when its orders exist."""
    fs = st.legend_font * 0.85
    r = fs * 0.45
    pen = _Pen(r, "#6b6b6b", "ok")
    grey = _Pen(r, ILLEGAL, "illegal")
    sw = 2.6 * fs  # width of a sample
    mid = (sw / 2, 0.0)

    def line(p: _Pen, dash: str | None = None, head: bool = True, width: float = r * 0.34) -> str:
        a, b = (0.0, 0.0), (sw, 0.0)
        base = (sw - r * 0.9, 0.0)
        d = f"M0 0L{_f(base[0] if head else sw)} 0"
        return p.path(d, width, dash) + (p.head(b, a, r * 1.1) if head else "")

    samples: list[tuple[str, str]] = [
        ("move", line(pen)),
        ("support", line(pen, f"{_f(r * 0.55)} {_f(r * 0.35)}", width=r * 0.2)),
        ("convoy", line(pen, f"{_f(r * 0.05)} {_f(r * 0.45)}", width=r * 0.26)),
        ("hold", _ring(mid, r * 1.3, "#6b6b6b", r * 0.3)),
        ("failed", line(pen) + _cross((sw / 2, 0.0), r * 1.4)),
        ("refused", line(grey) + _cross((sw / 2, 0.0), r * 1.4, "#444444")),
        ("dislodged", _ring(mid, r, "#d7191c", r * 0.25, fill="#bbbbbb")),
        (
            "build",
            _ring(mid, r * 1.4, CASING, r * 0.14, dash=f"{_f(r * 0.4)} {_f(r * 0.25)}")
            + f'<circle cx="{_f(sw / 2)}" cy="0" r="{_f(r * 0.9)}" fill="#bbbbbb" stroke="#1d1d1d"/>',
        ),
        ("removed", _removal((sw / 2, 0.0), r * 2.2)),
    ]
    ring = r * 1.3
    shape_samples = {
        "ring": _ring(
            mid, ring, "#6b6b6b", r * 0.3, dash=f"{_f(ring * 0.6)} {_f(ring * 0.2)} {_f(ring * 0.1)} {_f(ring * 0.2)}"
        ),
        "hand_over": _ring(mid, ring, "#6b6b6b", r * 0.35)
        + (
            f'<rect x="{_f(sw / 2 - ring * 1.6)}" y="{_f(-ring * 1.3)}"'
            f' width="{_f(ring * 0.9)}" height="{_f(ring * 0.9)}" rx="{_f(ring * 0.15)}" fill="#6b6b6b"'
            f' stroke="{CASING}" stroke-width="{_f(r * 0.1)}"/>'
        ),
    }
    samples += [(label, shape_samples[shape]) for label, shape in extra if shape in shape_samples]
    if not orders:
        samples = []
    if kinds:
        stone: Rgb = (0.62, 0.62, 0.62)
        units = [
            ("army", _unit_svg("A", (sw / 2, 0.0), r * 1.1, stone, "")),
            ("fleet", _unit_svg("F", (sw / 2, 0.0), r * 1.1, stone, "")),
        ]
        units += [(name, _unit_svg(k, (sw / 2, 0.0), r * 1.1, stone, "")) for k, name in kinds]
        samples = units + samples
    out = [f'<g class="key" font-size="{_f(fs)}" fill="#333333">']
    x, y = st.legend_font * 0.6, top + fs * 1.1
    words = _key_words(lang)
    for label, art in ((words.get(label, label), art) for label, art in samples):
        w = sw + fs * 0.4 + _text_width(label, fs) + fs * 1.2
        if x + w > width and x > st.legend_font:
            x, y = st.legend_font * 0.6, y + fs * 1.9
        out.append(
            f'<g transform="translate({_f(x)} {_f(y)})">{art}</g>'
            f'<text x="{_f(x + sw + fs * 0.4)}" y="{_f(y + fs * 0.35)}">{escape(label)}</text>'
        )
        x += w
    out.append("</g>")
    return "".join(out), (y - top) + fs * 1.3


def _removal(at: Point, size: float) -> str:
    """A removed or disbanded unit: a red ring with a bar through it, unlike the small cross of a failure."""
    x, y = at
    rr = size / 2
    d = f"M{_f(x - rr * 0.7)} {_f(y + rr * 0.7)}L{_f(x + rr * 0.7)} {_f(y - rr * 0.7)}"
    return (
        _ring(at, rr, "#ffffff", size * 0.2)
        + f'<path d="{d}" stroke="#ffffff" stroke-width="{_f(size * 0.2)}" stroke-linecap="round"/>'
        + _ring(at, rr, "#b2182b", size * 0.1)
        + f'<path d="{d}" stroke="#b2182b" stroke-width="{_f(size * 0.1)}" stroke-linecap="round"/>'
    )


class _Order:
    """One order being drawn: what a shape's drawing function needs, and where its units stand."""

    __slots__ = (
        "builds",
        "colour",
        "d",
        "desc",
        "geo",
        "layers",
        "pc",
        "pen",
        "position",
        "powers",
        "r",
        "retreats",
        "spots",
        "variant",
    )

    def __init__(
        self,
        variant: Variant,
        geo: Geometry,
        position: Position,
        d: _Drawn,
        desc: Drawing,
        r: float,
        colour: Mapping[str, Rgb],
        powers: Mapping[str, Any],
        layers: _Layers,
        builds: list[str],
        spots: Mapping[str, Point],
    ) -> None:
        self.variant = variant
        self.geo = geo
        self.position = position
        self.d = d
        self.desc = desc
        self.r = r
        self.colour = colour
        self.powers = powers
        self.layers = layers
        self.builds = builds
        self.spots = spots
        # An order for another power's unit (or the power's own proxy) is drawn in the colour of the power
        # that sent it: the line says who gave the order.
        self.pc: Rgb = colour.get(d.power, (0.5, 0.5, 0.5))
        self.pen = _Pen(r, hex_colour(self.pc), d.status)
        self.retreats = variant.calendar.kind(position.phase) == PhaseKind.RETREATS

    def at(self, loc: int | None) -> Point | None:
        return None if loc is None else _unit_point(self.variant, self.geo, loc)

    def unit_at(self, loc: int | None) -> Point | None:
        """Where the ordered unit is drawn: its spot, or for a dislodged unit its spot beside the province."""
        if loc is None:
            return None
        gmap = self.variant.map
        prov = gmap.province_of(loc)
        if prov in self.position.dislodged and self.desc.dislodged and self.retreats:
            return self.spots.get(gmap.provinces[prov].abbr)
        u = self.position.units.get(prov)
        return self.at(u.loc) if u is not None else self.at(loc)

    def beside(self, a: Point) -> Point:
        """Where a failure's cross goes beside a unit's mark."""
        r = self.r
        return (a[0] + r * 1.3, a[1] - r * 1.3)


def _draw_order(
    variant: Variant,
    geo: Geometry,
    position: Position,
    d: _Drawn,
    r: float,
    colour: Mapping[str, Rgb],
    powers: Mapping[str, Any],
    layers: _Layers,
    builds: list[str],
    spots: Mapping[str, Point],
) -> None:
    """Draw one order by the shape its kind registered (:func:`dippouch.core.lookup.drawing_of`): the
    renderer knows shapes, never a variant's order classes."""
    desc = drawing_of(d.order)
    draw = _SHAPES.get(desc.shape) if desc is not None else None
    if desc is None or draw is None:
        return
    o = _Order(variant, geo, position, d, desc, r, colour, powers, layers, builds, spots)
    mark_failed = draw(o)
    if mark_failed is None:
        return  # a place of the order has no spot on this map: nothing drawn
    for pt in mark_failed:
        layers.top.append(
            f'<g class="fail-mark {d.status}">{_cross(pt, r * 1.1, "#d7191c" if d.status == "failed" else "#444444")}</g>'
        )
    if d.dislodged:
        a = o.unit_at(d.order.unit_loc)
        if a is not None:
            dash = f"{_f(r * 0.35)} {_f(r * 0.2)}"
            layers.top.append(_ring(a, r * 1.25, "#d7191c", r * 0.18, dash=dash, attrs='class="dislodged-mark" '))


# Each shape's drawing: the marks go into the layers; returns where failure crosses go (an empty list when
# the order succeeded), or None when a place it names has no spot on the map (then nothing is drawn).


def _draw_arrow(o: _Order) -> list[Point] | None:
    """A move or a retreat (``"move"``, ``"retreat"``): a curved arrow, dashed for a move by convoy."""
    r, d, desc, pen = o.r, o.d, o.desc, o.pen
    w = r * 0.34
    a, b = o.unit_at(desc.unit), o.at(desc.dest)
    if a is None or b is None:
        return None
    c = _curve(a, b, r * 1.15, r * 1.3)
    head = r * 1.05
    if c is None:
        # Unit spots too close for the usual gaps (tiny neighbours): a short arrow between them.
        span = math.dist(a, b)
        if span < 1e-6:
            return None
        c = _curve(a, b, span * 0.2, span * 0.2)
        head = min(head, span * 0.3)
        if c is None:
            return None
    tip = c[2]
    base = _toward(tip, c[1], head * 0.8)
    retreat = desc.shape == "retreat"
    body = pen.path(_qd((c[0], c[1], base)), w, inner=retreat) + pen.head(tip, c[1], head)
    if desc.dashed:
        body = pen.path(_qd((c[0], c[1], base)), w, dash=f"{_f(r * 1.2)} {_f(r * 0.4)}") + pen.head(tip, c[1], head)
    o.layers.lines.append(_group(desc.css, d, body))
    # Near the head, where the move stopped: the middle is where supports of the move end, and a cross there
    # would say the support failed.
    return [_at(c, MOVE_CROSS_AT)] if d.status != "ok" else []


def _draw_support(o: _Order) -> list[Point] | None:
    """A support to hold (a short arrow and a ring round the supported unit) or to move (an arrow to the move)."""
    r, d, desc, pen = o.r, o.d, o.desc, o.pen
    a = o.unit_at(desc.unit)
    tgt = o.at(desc.target)
    if a is None or tgt is None:
        return None
    dash = f"{_f(r * 0.55)} {_f(r * 0.35)}"
    if desc.dest is None:
        end = _toward(tgt, a, r * 1.5)
        s = _toward(a, tgt, r * 1.15)
        if math.dist(a, tgt) < r * 3.0:
            # Supporter and supported stand close: a short stub between them, still pointing the right way.
            span = math.dist(a, tgt)
            s, end = _toward(a, tgt, span * 0.2), _toward(tgt, a, span * 0.2)
        base = _toward(end, s, min(r * 0.5, math.dist(s, end) * 0.4))
        ring = _ring(tgt, r * 1.5, pen.colour, r * 0.14, dash=dash)
        body = pen.path(f"M{_f(s[0])} {_f(s[1])}L{_f(base[0])} {_f(base[1])}", r * 0.2, dash) + pen.head(
            end, s, r * 0.7
        )
        o.layers.under.append(_group(desc.css, d, body + ring))
        return [((s[0] + end[0]) / 2, (s[1] + end[1]) / 2)] if d.status != "ok" else []
    dst = o.at(desc.dest)
    if dst is None:
        return None
    mc = _curve(tgt, dst, r * 1.15, r * 1.3)
    goal = _at(mc, SUPPORT_GOAL_AT) if mc is not None else ((tgt[0] + dst[0]) / 2, (tgt[1] + dst[1]) / 2)
    s = _toward(a, goal, r * 1.15)
    if math.dist(a, goal) < r * 1.9 and mc is not None:
        # The supporter stands by the middle of the move it supports: aim further along the move.
        here: Point = a
        goal = max((_at(mc, t) for t in (0.2, 0.8)), key=lambda p: math.dist(here, p))
        s = _toward(a, goal, min(r * 1.15, math.dist(a, goal) * 0.4))
    base = _toward(goal, s, min(r * 0.5, math.dist(s, goal) * 0.4))
    body = pen.path(f"M{_f(s[0])} {_f(s[1])}L{_f(base[0])} {_f(base[1])}", r * 0.2, dash) + pen.head(goal, s, r * 0.7)
    o.layers.under.append(_group(desc.css, d, body))
    return [((s[0] + goal[0]) / 2, (s[1] + goal[1]) / 2)] if d.status != "ok" else []


def _draw_convoy(o: _Order) -> list[Point] | None:
    """A convoy: a dotted line from the army through the fleet to where it lands."""
    r, d, desc, pen = o.r, o.d, o.desc, o.pen
    f, army, dst = o.unit_at(desc.unit), o.at(desc.target), o.at(desc.dest)
    if f is None or army is None or dst is None:
        return None
    s = _toward(army, f, r * 1.15)
    e = _toward(dst, f, r * 1.3)
    base = _toward(e, f, r * 0.5)
    dash = f"{_f(r * 0.05)} {_f(r * 0.45)}"
    d_path = f"M{_f(s[0])} {_f(s[1])}L{_f(f[0])} {_f(f[1])}L{_f(base[0])} {_f(base[1])}"
    body = pen.path(d_path, r * 0.26, dash) + pen.head(e, f, r * 0.7)
    o.layers.under.append(_group(desc.css, d, body))
    return [f] if d.status != "ok" else []


def _draw_hold(o: _Order) -> list[Point] | None:
    """A hold: a ring round the unit."""
    r, d, a = o.r, o.d, o.unit_at(o.desc.unit)
    if a is None:
        return None
    body = _ring(a, r * 1.45, CASING, r * 0.36) + _ring(a, r * 1.45, o.pen.colour, r * 0.22)
    o.layers.lines.append(_group(o.desc.css, d, body))
    return [o.beside(a)] if d.status != "ok" else []


def _draw_remove(o: _Order) -> list[Point] | None:
    """A disbanded (retreat phase) or removed unit: a barred ring."""
    r, d, a = o.r, o.d, o.unit_at(o.desc.unit)
    if a is None:
        return None
    cls = "disband" if o.retreats else o.desc.css
    if d.status == "ok":
        o.layers.top.append(_group(cls, d, _removal(a, r * 2.6)))
        return []
    # A removal the adjudicator did not carry out leaves the unit on the board: no barred ring (that says
    # "gone"), only the failure's cross beside the unit, in the paler group of a failed order.
    o.layers.top.append(_group(cls, d, ""))
    return [o.beside(a)]


def _draw_build(o: _Order) -> list[Point] | None:
    """A build: the new unit, paler, in a dashed ring."""
    r, d, desc, pc = o.r, o.d, o.desc, o.pc
    a = o.at(desc.unit)
    if a is None:
        return None
    letter = o.powers[d.power].letter if d.power in o.powers else d.power[:1]
    ring = _ring(
        a, r * 1.6, CASING, r * 0.14, fill="#ffffff", fill_opacity="0.55", dash=f"{_f(r * 0.4)} {_f(r * 0.25)}"
    )
    kind = desc.kind or "A"
    unit = _unit_svg(kind, a, r, pc if d.status == "ok" else mix(pc, WHITE, 0.6), letter, cls="unit built")
    o.builds.append(_group(desc.css, d, ring + unit))
    return [a] if d.status != "ok" else []


def _draw_ring(o: _Order) -> list[Point] | None:
    """A dash-dotted ring round the unit (a unit changing, as W3K's conversion)."""
    r, d, a = o.r, o.d, o.unit_at(o.desc.unit)
    if a is None:
        return None
    arc = _ring(a, r * 1.5, o.pen.colour, r * 0.22, dash=f"{_f(r * 0.9)} {_f(r * 0.3)} {_f(r * 0.15)} {_f(r * 0.3)}")
    o.layers.lines.append(_group(o.desc.css, d, arc))
    return [o.beside(a)] if d.status != "ok" else []


def _draw_hand_over(o: _Order) -> list[Point] | None:
    """A unit handed to another power: a ring in that power's colour and a tag with its letter."""
    r, d, a = o.r, o.d, o.unit_at(o.desc.unit)
    if a is None:
        return None
    power = o.desc.power or ""
    to = o.colour.get(power, (0.5, 0.5, 0.5))
    letter = o.powers[power].letter if power in o.powers else power[:1]
    tx, ty = a[0] - r * 1.25, a[1] - r * 1.1
    body = _ring(a, r * 1.5, hex_colour(to), r * 0.3) + (
        f'<g class="proxy-tag"><rect x="{_f(tx - r * 0.6)}" y="{_f(ty - r * 0.6)}"'
        f' width="{_f(r * 1.2)}" height="{_f(r * 1.2)}" rx="{_f(r * 0.2)}" fill="{hex_colour(to)}" stroke="{CASING}"'
        f' stroke-width="{_f(r * 0.1)}"/><text x="{_f(tx)}" y="{_f(ty + r * 0.3)}" font-size="{_f(r * 0.85)}"'
        f' font-weight="bold" text-anchor="middle" fill="{ink_on(to)}">{escape(letter)}</text></g>'
    )
    o.layers.top.append(_group(o.desc.css, d, body))
    return [a] if d.status != "ok" else []


def _draw_note(o: _Order) -> list[Point] | None:
    """No mark on the map: a line under the legend, with the ordering power's name and the order's fate."""
    d = o.d
    mark = "" if d.status == "ok" else " (failed)" if d.status == "failed" else " (illegal)"
    o.layers.notes.append(f"{d.power} {o.desc.text}{mark}")
    o.layers.top.append(_group(o.desc.css, d, ""))
    return []


_SHAPES: dict[str, Callable[[_Order], list[Point] | None]] = {
    "move": _draw_arrow,
    "retreat": _draw_arrow,
    "support": _draw_support,
    "convoy": _draw_convoy,
    "hold": _draw_hold,
    "remove": _draw_remove,
    "build": _draw_build,
    "ring": _draw_ring,
    "hand_over": _draw_hand_over,
    "note": _draw_note,
}
"""The renderer's vocabulary of shapes (:class:`dippouch.core.lookup.Drawing`): shape -> its drawing."""
