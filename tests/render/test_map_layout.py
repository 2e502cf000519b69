"""Where the drawn map puts names, centre markers and units, read back from the SVG (render.audit), and the
marks of orders' fates and the legend's key.

Measured on the old placement (names "above the unit, else just outside"; markers beside the shape's
middle), the audit counted names outside their province without a leader line: standard and 1897 12 of 76,
hundred3 and hundred 1 of 41, 1000 AD 31 of 143, W3K 64 of 258; centre markers outside their province:
W3K 13 of 109, 1000 AD 1 (Gotland's); names running together: 1000 AD 1 (SCH-OBO), W3K 1 (BWK-MRS). The
same with every ``--names`` choice.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dippouch.catalog import load_variant
from dippouch.cli import app, register_commands
from dippouch.core.legal_orders import legal_orders
from dippouch.core.notation import format_order
from dippouch.mapcheck import check_drawing
from dippouch.render import RenderOptions, render_svg
from dippouch.render.audit import audit_svg, inside, leader_lines
from dippouch.render.geometry import load_geometry, path_rings, project
from dippouch.render.svg import MOVE_CROSS_AT, SUPPORT_GOAL_AT, _static
from helpers import board
from test_shelf_sample import heavy_variants

# dippouch's own variants and one of the shelf (tests/test_shelf_sample.py): this for every shelf variant would
# multiply the file's time; tests/variants/test_shelf.py checks the whole shelf at once.
VARIANTS = heavy_variants("chromatic")

NS = "{http://www.w3.org/2000/svg}"


@pytest.mark.parametrize("names", ["auto", "full", "abbr"])
@pytest.mark.parametrize("name", VARIANTS)
def test_every_name_and_centre_marker_is_in_its_own_province(name: str, names: str) -> None:
    rep = check_drawing(load_variant(name), names=names)
    assert rep.names_astray == [], rep.summary()
    assert rep.markers_astray == [] and rep.units_astray == [] and rep.bad_leaders == [], rep.summary()
    assert rep.overlaps == [] and rep.run_together == [], rep.summary()
    assert rep.names_on_marks == [], rep.summary()
    assert rep.unnamed == [], rep.summary()
    assert rep.misplaced == 0
    assert rep.markers == len(load_variant(name).map.supply_centres)


# -- the audit can fail: a drawn map with one thing moved


def _standard_svg() -> str:
    v = load_variant("standard")
    return render_svg(v, v.start)


def _move_attrs(svg: str, ident: str, **attrs: float) -> str:
    """The SVG with the element ``id=ident`` (or the first circle inside it) given new coordinates."""
    start = svg.index(f'id="{ident}"')
    head = svg.rfind("<", 0, start)
    end = svg.index(">", start) if not ident.startswith("sc-") else svg.index("/>", svg.index("<circle", start))
    piece = svg[head:end]
    for k, val in attrs.items():
        piece = re.sub(rf'\b{k}="[-\d.]+"', f'{k}="{val}"', piece)
    return svg[:head] + piece + svg[end:]


def test_audit_finds_a_name_in_another_province() -> None:
    svg = _standard_svg()
    assert audit_svg(svg).misplaced == 0
    geo = load_geometry(load_variant("standard"))
    mx, my = geo.provinces["mun"].unit
    # Burgundy's name on Munich, under Munich's unit spot: astray, and over another's mark.
    moved = _move_attrs(svg, "label-bur", x=mx, y=my)
    rep = audit_svg(moved)
    assert rep.names_astray == ["bur"] and rep.units_on_names == [("mun", "bur")] and rep.misplaced == 2
    assert ("bur", "mun") in rep.names_on_marks


def test_audit_finds_a_marker_in_another_province_and_overlapping_names() -> None:
    svg = _standard_svg()
    geo = load_geometry(load_variant("standard"))
    x, y = geo.provinces["nth"].unit
    rep = audit_svg(_move_attrs(svg, "sc-lon", cx=x + 30, cy=y))
    assert rep.markers_astray == ["lon"]
    root = ET.fromstring(svg)
    mos = next(e for e in root.iter(f"{NS}text") if e.get("id") == "label-mos")
    rep = audit_svg(_move_attrs(svg, "label-ukr", x=float(mos.get("x", "0")) + 3, y=float(mos.get("y", "0"))))
    assert ("mos", "ukr") in rep.overlaps or ("ukr", "mos") in rep.overlaps


def test_audit_finds_a_leader_line_ending_outside_its_province() -> None:
    svg = _standard_svg()
    root = ET.fromstring(svg)
    leaders = [e for e in root.iter(f"{NS}path") if (e.get("id") or "").startswith("leader-")]
    assert leaders, "the standard map has provinces too small for their names"
    abbr = (leaders[0].get("id") or "").removeprefix("leader-")
    d = leaders[0].get("d") or ""
    start = d.split("L")[0]
    broken = svg.replace(
        f'id="leader-{abbr}" class="leader" d="{d}"', f'id="leader-{abbr}" class="leader" d="{start}L1 1"'
    )
    assert audit_svg(broken).bad_leaders == [abbr]


def test_names_beside_a_small_province_have_a_leader_into_it() -> None:
    """W3K's cities and castles are smaller than a unit: their names stand beside them, each with a leader."""
    v = load_variant("w3k")
    root = ET.fromstring(render_svg(v, v.start))
    found = {e.get("id"): e for e in root.iter() if e.get("id")}
    for abbr in ("lon", "dub", "dep"):
        assert f"leader-{abbr}" in found and f"label-{abbr}" in found


def test_centre_markers_stand_at_their_towns() -> None:
    """A marker is at its town where a unit leaves room: Bergen's on the west coast, far from Oslo's."""
    v = load_variant("1000ad")
    geo = load_geometry(v)
    st = _static(v, geo, RenderOptions())
    bergen = project(geo, 5.32, 60.39)
    oslo = project(geo, 10.75, 59.91)
    assert bergen is not None and oslo is not None
    assert math.dist(st.sc["ber"].at, bergen) < st.r * 2.5
    assert math.dist(st.sc["osl"].at, oslo) < st.r * 2.5
    assert math.dist(st.sc["ber"].at, st.sc["osl"].at) > st.r * 6


def test_a_town_given_in_the_drawing_table_moves_the_marker(tmp_path: Path) -> None:
    """``[drawing.towns]`` overrides the province's point; the marker goes there (the shapes are not rebuilt:
    the town is drawing, read when the map is drawn)."""
    v = load_variant("standard")
    geo = load_geometry(v)
    st = _static(v, geo, RenderOptions())
    before = st.sc["nwy"].at
    data = dict(v.data)
    drawing = dict(data.get("drawing", {}))
    drawing["towns"] = {**drawing.get("towns", {}), "nwy": [5.32, 60.39]}  # Bergen instead
    data["drawing"] = drawing
    from dataclasses import replace

    moved = replace(v, data=data)
    st2 = _static(moved, geo, RenderOptions())
    bergen = project(geo, 5.32, 60.39)
    assert bergen is not None
    assert math.dist(st2.sc["nwy"].at, bergen) < math.dist(before, bergen)
    assert math.dist(st2.sc["nwy"].at, bergen) < st.r * 2.5


# -- orders' fates and the key


def test_failed_orders_are_paler_than_orders_that_worked() -> None:
    v = load_variant("standard")
    pos = board(v, "Spring 1901 Movement", {"France": ["A bur", "A mar"], "Germany": ["A mun"]})
    results = [
        {"power": "France", "order": "A bur - mun", "result": "fails", "automatic": False, "dislodged": False},
        {
            "power": "France",
            "order": "A mar S A bur - mun",
            "result": "succeeds",
            "automatic": False,
            "dislodged": False,
        },
        {"power": "Germany", "order": "A mun H", "result": "succeeds", "automatic": False, "dislodged": False},
    ]
    root = ET.fromstring(render_svg(v, pos, results=results))
    groups = {e.get("data-order"): e for e in root.iter(f"{NS}g") if "order" in (e.get("class") or "").split()}
    assert float(groups["A bur - mun"].get("opacity", "1")) < 0.8
    assert groups["A mar S A bur - mun"].get("opacity") is None
    assert groups["A mun H"].get("opacity") is None


def test_a_failed_supported_move_does_not_mark_its_successful_support() -> None:
    """The cross of a bounced move sits near its head, not where the support's arrow ends."""
    v = load_variant("standard")
    pos = board(v, "Spring 1901 Movement", {"France": ["A bur", "A mar"], "Germany": ["A mun"]})
    results = [
        {"power": "France", "order": "A bur - mun", "result": "fails", "automatic": False, "dislodged": False},
        {
            "power": "France",
            "order": "A mar S A bur - mun",
            "result": "succeeds",
            "automatic": False,
            "dislodged": False,
        },
    ]
    svg = render_svg(v, pos, results=results)
    root = ET.fromstring(svg)
    st = _static(v, load_geometry(v), RenderOptions())
    support = next(e for e in root.iter(f"{NS}g") if e.get("data-order") == "A mar S A bur - mun")
    tip = tuple(map(float, (support.find(f"{NS}polygon").get("points") or "").split()[0].split(",")))  # type: ignore[union-attr]
    crosses = [e for e in root.iter(f"{NS}g") if "fail-mark" in (e.get("class") or "").split()]
    assert len(crosses) == 1
    d = crosses[0].find(f"{NS}path").get("d") or ""  # type: ignore[union-attr]
    nums = list(map(float, re.findall(r"-?\d+(?:\.\d+)?", d)))
    centre = ((nums[0] + nums[2]) / 2, (nums[1] + nums[3]) / 2)
    assert math.dist(centre, tip) > st.r * 1.2
    assert MOVE_CROSS_AT > SUPPORT_GOAL_AT + 0.2


def test_the_key_explains_convert_proxy_and_the_defensive_army() -> None:
    def key_words(name: str) -> list[str]:
        v = load_variant(name)
        kind = v.calendar.kind(v.start.phase)
        power = next(p for p in v.power_names if legal_orders(v, v.start, p))
        first = next(iter(legal_orders(v, v.start, power).values()))[0]
        root = ET.fromstring(render_svg(v, v.start, {power: [format_order(v, first, phase_kind=kind)]}))
        key = next(e for e in root.iter(f"{NS}g") if e.get("class") == "key")
        return [e.text or "" for e in key.iter(f"{NS}text") if e.text]

    w3k = key_words("w3k")
    assert "convert" in w3k and "proxy" in w3k
    ad = key_words("1000ad")
    assert "defensive army" in ad and "army" in ad and "fleet" in ad
    std = key_words("standard")
    assert "convert" not in std and "defensive army" not in std


def test_one_units_supply_is_singular() -> None:
    from dippouch.core.calendar import PhaseKind
    from dippouch.core.notation import format_order
    from dippouch.core.rules.w3k import SendSupply

    v = load_variant("w3k")
    winter = v.start.with_(phase=v.calendar.parse("Winter 1642 Adjustments"))
    texts = [format_order(v, SendSupply(n, v.power_names[1]), phase_kind=PhaseKind.ADJUSTMENTS) for n in (1, 2)]
    notes = []
    for t in texts:
        root = ET.fromstring(render_svg(v, winter, {v.power_names[0]: [t]}))
        notes += [e.text or "" for e in root.iter(f"{NS}text") if e.get("class") == "note"]
    assert notes[0].endswith(f"sends 1 unit's supply to {v.power_names[1]}")
    assert f"sends 2 units' supply to {v.power_names[1]}" in notes[1]


# -- dippouch mapcheck


def test_mapcheck_counts_misplaced_names_and_refuses_an_unknown_names_choice() -> None:
    register_commands()
    runner = CliRunner()
    ok = runner.invoke(app, ["mapcheck", "hundred3", "--strict-geometry"])
    assert ok.exit_code == 0, ok.output
    assert "drawing check (auto names" in ok.output and "misplaced: 0" in ok.output
    bad = runner.invoke(app, ["mapcheck", "hundred3", "--names", "short"])
    assert bad.exit_code == 2
    assert "must be auto, full or abbr, not 'short'" in bad.output


def test_audit_finds_a_marker_leader_ending_outside_its_place() -> None:
    """London's marker stands outside its small circle with a leader into it; a leader ending in
    Middlesex instead leaves the marker astray."""
    v = load_variant("w3k")
    svg = render_svg(v, v.start)
    assert audit_svg(svg).markers_astray == []
    start = svg.index('id="sc-lon"')
    path_at = svg.index('class="leader" d="', start)
    d_start = path_at + len('class="leader" d="')
    d_end = svg.index('"', d_start)
    first = svg[d_start:d_end].split("L")[0]
    x, y = load_geometry(v).provinces["mdx"].unit
    broken = svg[:d_start] + f"{first}L{x} {y}" + svg[d_end:]
    assert audit_svg(broken).markers_astray == ["lon"]


# -- units over each other


@pytest.mark.parametrize("name", VARIANTS)
def test_no_unit_is_drawn_over_another_or_over_a_name(name: str) -> None:
    """Every kind of unit each province can hold, at its spot (an army, a fleet on each coast), against
    every other province's and every name: no two marks overlap (W3K's London and Deptford, Lewis and
    Stornoway did; the standard map's Apulia and Naples, Clyde and Edinburgh fleets touched)."""
    from dippouch.mapcheck import check_crowding

    rep = check_crowding(load_variant(name))
    assert rep.units_crowded == [], rep.units_crowded
    assert rep.units_on_names == [], rep.units_on_names
    # Nor a leader line under another province's unit, place disc or name (before: W3K's Deptford, all three
    # of its lines under London's unit; the standard map's Picardy, its line through Belgium's name).
    assert rep.leaders_covered == [], rep.leaders_covered


def test_deptfords_lines_show_with_london_held() -> None:
    """Deptford's name, centre marker and unit each have a leader line into Deptford; with units in London
    and Deptford, every line ends at a point of Deptford clear of London's unit and the disc round it, and
    no line runs under them (they ended under London's disc, hidden whenever London was held)."""
    v = load_variant("w3k")
    pos = board(v, "Summer 1642 Movement", {"Crown": ["A lon", "A dep"]})
    svg = render_svg(v, pos)
    rep = audit_svg(svg)
    assert rep.leaders_covered == [] and rep.misplaced == 0, rep.summary()
    root = ET.fromstring(svg)
    lines = {tag: m for tag, m in leader_lines(root) if tag.startswith("dep ")}
    assert set(lines) == {"dep name", "dep centre", "dep unit"}
    disc = next(e for e in root.iter(f"{NS}circle") if e.get("data-place") == "lon")
    cx, cy, r = (float(disc.get(k, "0")) for k in ("cx", "cy", "r"))
    dep = load_geometry(v).provinces["dep"]
    for tag, (polys, _) in lines.items():
        end = polys[0][-1]
        assert inside(path_rings(dep.d), end), tag
        assert math.dist(end, (cx, cy)) > r * 1.1, (tag, end)


def test_the_audit_finds_a_leader_line_under_another_unit() -> None:
    """Deptford's name line, moved to run under London's unit, is counted as covered."""
    v = load_variant("w3k")
    pos = board(v, "Summer 1642 Movement", {"Crown": ["A lon", "A dep"]})
    svg = render_svg(v, pos)
    x, y = load_geometry(v).provinces["lon"].unit
    start = svg.index('<path id="leader-dep"')
    d0 = svg.index(' d="', start) + 4
    d1 = svg.index('"', d0)
    end = svg[d0:d1].split("L")[1]
    broken = svg[:d0] + f"M{x - 12} {y}L{end}" + svg[d1:]
    rep = audit_svg(broken)
    assert ("dep name", "lon unit") in rep.leaders_covered, rep.leaders_covered
    assert rep.misplaced >= 1


def test_the_audit_finds_a_unit_drawn_over_another() -> None:
    svg = _standard_svg()
    assert audit_svg(svg).units_crowded == []
    v = load_variant("standard")
    ex, ey = load_geometry(v).provinces["edi"].unit
    start = svg.index('id="unit-lvp"')
    end = svg.index("</g>", start)
    piece = re.sub(r'cx="[-\d.]+" cy="[-\d.]+"', f'cx="{ex + 9}" cy="{ey + 3}"', svg[start:end], count=1)
    rep = audit_svg(svg[:start] + piece + svg[end:])
    assert rep.units_crowded == [("edi", "lvp")], rep.units_crowded
    assert rep.misplaced >= 1


def test_deptfords_unit_stands_beside_it_with_a_leader_line_and_a_disc_that_takes_clicks() -> None:
    """Deptford (5 km from London, where a unit is 17 km across) has its unit drawn south of it, clear of
    London's: a disc of Deptford's colour round it, with ``data-province`` (a click there means Deptford),
    and a leader line ending inside Deptford's shape. Without the line the audit calls the unit astray."""
    v = load_variant("w3k")
    pos = board(v, "Summer 1642 Movement", {"Crown": ["A lon", "A dep"]})
    svg = render_svg(v, pos)
    rep = audit_svg(svg)
    assert rep.units_astray == [] and rep.units_crowded == [], rep.summary()
    root = ET.fromstring(svg)
    ring = next(e for e in root.iter(f"{NS}circle") if e.get("data-province") == "dep")
    assert "callout" in (ring.get("class") or "") and ring.get("pointer-events") is None
    leader = next(e for e in root.iter(f"{NS}path") if e.get("data-unit-leader") == "dep")
    assert leader.get("d")
    without = re.sub(r'<path class="leader unit-leader"[^>]*/>', "", svg)
    assert audit_svg(without).units_astray == ["dep"]
