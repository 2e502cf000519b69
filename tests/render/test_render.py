"""The map renderer (dippouch.render): what is drawn, its ids, PNG and PDF output, colours.

Most tests draw on a synthetic geometry (every province a square in a grid, made here) so they test the
drawing, not the builder's shapes; ``test_render_variants.py`` draws every variant on its real geometry.
"""

from __future__ import annotations

import io
import math
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from dippouch.catalog import load_variant
from dippouch.core.calendar import PhaseKind
from dippouch.core.legal_orders import legal_orders
from dippouch.core.notation import format_order
from dippouch.core.position import Unit
from dippouch.core.rules.w3k import Convert, Proxy, SendSupply
from dippouch.core.variant import Variant
from dippouch.render import RenderOptions, render_phase_svg, render_svg, results_pdf, svg_to_pdf, svg_to_png
from dippouch.render.colours import closest_pairs, deuteranopia, hex_colour, mix, parse_colour
from dippouch.render.geometry import Geometry, parse_geometry
from dippouch.render.sample import SamplePhase, sample_phases
from dippouch.render.svg import TINT, _text_width
from test_shelf_sample import heavy_variants

# dippouch's own variants and one of the shelf (tests/test_shelf_sample.py): this for every shelf variant would
# multiply the file's time; tests/variants/test_shelf.py checks the whole shelf at once.
VARIANTS = heavy_variants("sailho")

NS = "{http://www.w3.org/2000/svg}"


def grid_geometry(variant: Variant, cell: float = 60.0) -> Geometry:
    """Every province a square, in a grid ordered by latitude: enough to draw anything on."""
    provs = sorted(variant.map.provinces, key=lambda p: ((p.point or (0.0, 0.0))[1], p.abbr))
    cols = math.ceil(math.sqrt(len(provs) * 1.4))
    rows = math.ceil(len(provs) / cols)
    shapes: dict[str, Any] = {}
    coasts: dict[str, Any] = {}
    for i, p in enumerate(provs):
        x, y = (i % cols) * cell, (i // cols) * cell
        kind = {"sea": "sea", "coast": "coast"}.get(p.kind.value, "land")
        shapes[p.abbr] = {
            "kind": kind,
            "d": f"M{x} {y}L{x + cell} {y}L{x + cell} {y + cell}L{x} {y + cell}Z",
            "label": [x + cell / 2, y + cell * 0.2],
            "label_size": 11.0,
            "unit": [x + cell / 2, y + cell * 0.55],
            "dislodged": [x + cell * 0.8, y + cell * 0.8],
            "sc": [x + cell * 0.18, y + cell * 0.82] if p.supply_centre else None,
            "nested": False,
            "area_km2": cell * cell,
        }
        for j, c in enumerate(p.coasts):
            coasts[variant.map.locations[c].abbr] = {"unit": [x + cell * (0.25 + 0.5 * j), y + cell * 0.5]}
    return parse_geometry(
        {
            "format": "dippouch-geometry",
            "version": 1,
            "variant": variant.name,
            "map_hash": "grid",
            "width": cols * cell,
            "height": rows * cell,
            "km_per_unit": 1.0,
            "projection": {},
            "background": {"land": ""},
            "provinces": shapes,
            "coasts": coasts,
            "connectors": [],
            "sea_areas": {},
        }
    )


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def ids(root: ET.Element) -> dict[str, ET.Element]:
    return {e.get("id", ""): e for e in root.iter() if e.get("id")}


def classes(e: ET.Element) -> set[str]:
    return set((e.get("class") or "").split())


def orders_drawn(root: ET.Element) -> list[ET.Element]:
    return [e for e in root.iter(f"{NS}g") if "order" in classes(e)]


def drawable(phase: SamplePhase) -> list[Mapping[str, Any]]:
    """Results the map must show: every order except automatic holds (an unordered unit stays plain) and waives."""
    return [r for r in phase.results if not (r["automatic"] and r["order"].endswith(" H")) and r["order"] != "Waive"]


@pytest.fixture(scope="module")
def standard() -> Variant:
    return load_variant("standard")


@pytest.fixture(scope="module")
def game(standard: Variant) -> list[SamplePhase]:
    return sample_phases(standard, seed=1, phases=10)


def _first(phases: list[SamplePhase], v: Variant, kind: PhaseKind) -> SamplePhase:
    for ph in phases:
        if v.calendar.kind(ph.position.phase) == kind and drawable(ph):
            return ph
    raise AssertionError(f"the sample game has no {kind} phase with orders")


@pytest.mark.parametrize("kind", [PhaseKind.MOVEMENT, PhaseKind.RETREATS, PhaseKind.ADJUSTMENTS])
def test_every_unit_and_every_order_is_drawn(standard: Variant, game: list[SamplePhase], kind: PhaseKind) -> None:
    ph = _first(game, standard, kind)
    geo = grid_geometry(standard)
    svg = render_svg(standard, ph.position, ph.orders, ph.results, geometry=geo)
    root = parse(svg)
    found = ids(root)
    gmap = standard.map
    for prov, u in ph.position.units.items():
        e = found[f"unit-{gmap.provinces[prov].abbr}"]
        assert e.get("data-unit") == gmap.provinces[prov].abbr and e.get("data-power") == u.power
    for prov in ph.position.dislodged:
        assert found[f"dislodged-{gmap.provinces[prov].abbr}"].get("data-unit") == gmap.provinces[prov].abbr
    assert sum(1 for k in found if k.startswith("unit-")) == len(ph.position.units)
    assert sum(1 for k in found if k.startswith("dislodged-")) == len(ph.position.dislodged)
    drawn = orders_drawn(root)
    want = Counter((r["power"], r["order"]) for r in drawable(ph))
    got = Counter((e.get("data-power"), e.get("data-order")) for e in drawn)
    assert got == want
    # Each drawn order carries its fate.
    fates = {"succeeds": "ok", "given": "ok", "available": "ok", "stands": "ok", "fails": "failed", "cut": "failed"}
    for r, e in zip(
        sorted(drawable(ph), key=lambda r: (r["power"], r["order"])),
        sorted(drawn, key=lambda e: (e.get("data-power"), e.get("data-order"))),
        strict=True,
    ):
        if r["result"] in fates:
            assert fates[r["result"]] in classes(e), (r, e.attrib)
        if r["result"] == "illegal":
            assert "illegal" in classes(e)
        if r["result"] == "invalid":
            assert "failed" in classes(e)


def test_orders_are_drawn_when_units_stand_close_together(standard: Variant, game: list[SamplePhase]) -> None:
    """Tiny neighbours (W3K's counties, castles): unit spots closer than a unit's size still get every order."""
    from dataclasses import replace

    geo = grid_geometry(standard)
    cx, cy = geo.width / 2, geo.height / 2

    def squeeze(p: tuple[float, float]) -> tuple[float, float]:
        return (cx + (p[0] - cx) * 0.04, cy + (p[1] - cy) * 0.04)

    crowded = replace(
        geo,
        provinces={
            k: replace(p, unit=squeeze(p.unit), dislodged=squeeze(p.dislodged)) for k, p in geo.provinces.items()
        },
        coasts={k: squeeze(p) for k, p in geo.coasts.items()},
    )
    for ph in game[:3]:
        root = parse(render_svg(standard, ph.position, ph.orders, ph.results, geometry=crowded))
        assert len(orders_drawn(root)) == len(drawable(ph))


def test_orders_without_results_are_drawn_as_sent(standard: Variant, game: list[SamplePhase]) -> None:
    ph = game[0]
    svg = render_svg(standard, ph.position, ph.orders, geometry=grid_geometry(standard))
    drawn = orders_drawn(parse(svg))
    assert len(drawn) == sum(len(t) for t in ph.orders.values())
    assert all("ok" in classes(e) for e in drawn)


def test_kinds_of_orders_have_their_own_marks(standard: Variant, game: list[SamplePhase]) -> None:
    """Moves, supports (to a hold and to a move), convoys, holds, failed and illegal orders, retreats,
    builds and removals: each drawn with its own class, all present over the sample game."""
    geo = grid_geometry(standard)
    seen: set[str] = set()
    for ph in game:
        root = parse(render_svg(standard, ph.position, ph.orders, ph.results, geometry=geo))
        for e in orders_drawn(root):
            seen |= classes(e)
    need = {"move", "support-move", "support-hold", "hold", "failed", "illegal", "retreat", "build"}
    assert need <= seen, need - seen


def test_removals_disbands_and_a_convoy(standard: Variant) -> None:
    """Positions made for the purpose: a convoy, a removal in Winter, a disband in a retreat phase."""
    from helpers import board

    geo = grid_geometry(standard)
    pos = board(standard, "Spring 1901 Movement", {"England": ["A lon", "F nth"], "France": ["A bre"]})
    orders = {"England": ["F nth C A lon - bel", "A lon - bel via convoy"], "France": ["A bre H"]}
    root = parse(render_svg(standard, pos, orders, geometry=geo))
    kinds = Counter(c for e in orders_drawn(root) for c in classes(e) if c in ("convoy", "move", "hold"))
    assert kinds == Counter({"convoy": 1, "move": 1, "hold": 1})
    winter = board(standard, "Winter 1901 Adjustments", {"England": ["A lon", "F nth"]}, centres={"England": ["lon"]})
    root = parse(render_svg(standard, winter, {"England": ["Remove F nth"]}, geometry=geo))
    assert [classes(e) & {"remove"} for e in orders_drawn(root)] == [{"remove"}]


def test_ids_follow_the_geometry_contract(standard: Variant) -> None:
    geo = grid_geometry(standard)
    root = parse(render_svg(standard, standard.start, geometry=geo))
    found = ids(root)
    for abbr, shape in geo.provinces.items():
        e = found[f"r-{abbr}"]
        assert e.tag == f"{NS}path" and e.get("data-province") == abbr
        assert (f"sc-{abbr}" in found) == (shape.sc is not None)
    labels = [k for k in found if k.startswith("label-")]
    assert len(labels) >= 0.9 * len(geo.provinces)
    assert all(k.removeprefix("label-") in geo.provinces for k in labels)


def test_labels_never_overlap(standard: Variant) -> None:
    """Crowded on purpose: full names in small squares. Whatever is drawn must not overlap."""
    geo = grid_geometry(standard, cell=34.0)
    root = parse(render_svg(standard, standard.start, options=RenderOptions(names="full"), geometry=geo))
    boxes = []
    for e in root.iter(f"{NS}text"):
        if not (e.get("id") or "").startswith("label-"):
            continue
        size = float(e.get("font-size", "0"))
        w = _text_width(e.text or "", size, True)
        x, y = float(e.get("x", "0")), float(e.get("y", "0")) - size * 0.35
        boxes.append((x - w / 2, y - size * 0.4, x + w / 2, y + size * 0.55, e.get("id")))
    assert len(boxes) > 30
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            assert not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]), (a, b)


def test_arrowheads_stop_short_of_units(standard: Variant, game: list[SamplePhase]) -> None:
    """A move's arrowhead must not be hidden under the unit standing where it points."""
    ph = _first(game, standard, PhaseKind.MOVEMENT)
    geo = grid_geometry(standard)
    root = parse(render_svg(standard, ph.position, ph.orders, ph.results, geometry=geo))
    centres = []
    for e in root.iter(f"{NS}g"):
        if (e.get("id") or "").startswith("unit-"):
            shape = geo.provinces[e.get("data-unit", "")]
            centres.append(shape.unit)
    r = None
    tips = 0
    for e in orders_drawn(root):
        if "move" not in classes(e):
            continue
        poly = e.find(f"{NS}polygon")
        assert poly is not None
        tip = tuple(float(v) for v in poly.get("points", "").split()[0].split(","))
        tips += 1
        for c in centres:
            r = r or float(next(root.iter(f"{NS}circle")).get("r", "1"))
            assert math.dist(tip, c) > 6.0, (e.get("data-order"), tip, c)
    assert tips > 5


def test_drawing_is_pure(standard: Variant, game: list[SamplePhase], monkeypatch: pytest.MonkeyPatch) -> None:
    """No I/O while drawing: the same picture twice, and no file opened when the geometry is given."""
    ph = game[1]
    geo = grid_geometry(standard)
    first = render_svg(standard, ph.position, ph.orders, ph.results, geometry=geo)

    def no_io(*a: object, **k: object) -> None:
        raise AssertionError("the renderer opened a file")

    monkeypatch.setattr("builtins.open", no_io)
    monkeypatch.setattr("io.open", no_io)
    second = render_svg(standard, ph.position, ph.orders, ph.results, geometry=geo)
    assert first == second


def test_phase_record_before_and_after(standard: Variant, game: list[SamplePhase]) -> None:
    from dippouch.core.jsonio import position_to_json

    ph = _first(game, standard, PhaseKind.MOVEMENT)
    geo = grid_geometry(standard)
    rec = {
        "game": "Demo & <friends>",
        "name": standard.calendar.name(ph.position.phase),
        "status": "processed",
        "position": position_to_json(standard, ph.position),
        "next_position": position_to_json(standard, ph.after),
        "orders": ph.orders,
        "results": ph.results,
    }
    before = parse(render_phase_svg(standard, rec, geometry=geo))
    assert len(orders_drawn(before)) == len(drawable(ph))
    title = before.find(f"{NS}title")
    assert title is not None and title.text == f"Demo & <friends>: {rec['name']}"
    after = parse(render_phase_svg(standard, rec, after=True, geometry=geo))
    assert orders_drawn(after) == []
    assert sum(1 for k in ids(after) if k.startswith("unit-")) == len(ph.after.units)
    assert len(ids(after)) > 0 and "Demo" in "".join(after.itertext())


def test_svg_is_safe_to_inline(standard: Variant, game: list[SamplePhase]) -> None:
    """The pages' CSP allows no script, no inline style and nothing fetched from elsewhere."""
    svg = render_svg(standard, game[0].position, game[0].orders, game[0].results, geometry=grid_geometry(standard))
    root = parse(svg)
    for e in root.iter():
        assert e.tag not in (f"{NS}script", f"{NS}style", f"{NS}image", f"{NS}foreignObject")
        for k in e.attrib:
            assert not k.lower().startswith("on") and k != "style" and "href" not in k, (e.tag, k)
    assert "url(" not in svg and "javascript:" not in svg


# -- W3K and 1000 AD units and orders


def test_w3k_convert_proxy_supply_and_a_unit_under_conversion() -> None:
    v = load_variant("w3k")
    geo = grid_geometry(v)
    pos = v.start
    texts: dict[str, list[str]] = {}
    want = {"convert": 0, "proxy": 0}
    for power in v.power_names:
        for _loc, opts in legal_orders(v, pos, power).items():
            for o in opts:
                kind = "convert" if isinstance(o, Convert) else "proxy" if isinstance(o, Proxy) else None
                if kind and want[kind] < 2 and not texts.get(power):
                    texts[power] = [format_order(v, o, phase_kind=PhaseKind.MOVEMENT)]
                    want[kind] += 1
    assert want == {"convert": 2, "proxy": 2}
    converting_abbr = v.map.provinces[next(iter(pos.units))].abbr
    pos2 = pos.with_(state={**pos.state, "w3k_converting": {converting_abbr: pos.units[next(iter(pos.units))].kind}})
    root = parse(render_svg(v, pos2, texts, geometry=geo))
    cls = Counter(c for e in orders_drawn(root) for c in classes(e))
    assert cls["convert"] == 2 and cls["proxy"] == 2
    badge = [e for e in root.iter(f"{NS}g") if "converting" in classes(e)]
    assert len(badge) == 1
    # Winter: a supply transfer is written under the legend.
    winter_phase = v.calendar.parse("Winter 1642 Adjustments")
    winter = pos.with_(phase=winter_phase)
    sends = [
        o
        for p in v.power_names
        for opts in legal_orders(v, winter, p).values()
        for o in opts
        if isinstance(o, SendSupply)
    ]
    if not sends:  # nobody has builds to give at the start: say so rather than pass silently
        sends = [SendSupply(1, v.power_names[1])]
    text = format_order(v, sends[0], phase_kind=PhaseKind.ADJUSTMENTS)
    root = parse(render_svg(v, winter, {v.power_names[0]: [text]}, geometry=geo))
    notes = [e.text for e in root.iter(f"{NS}text") if "note" in classes(e)]
    assert len(notes) == 1 and "supply" in (notes[0] or "")
    assert [c for e in orders_drawn(root) for c in classes(e) if c == "supply"] == ["supply"]


def test_1000ad_defensive_army_has_its_own_shape() -> None:
    v = load_variant("1000ad")
    land = [p for p in v.map.provinces if p.kind.value in ("land", "coast")][:2]
    power = v.power_names[0]
    units = {land[0].id: Unit(power, "D", land[0].id), land[1].id: Unit(power, "A", land[1].id)}
    root = parse(render_svg(v, v.start.with_(units=units), geometry=grid_geometry(v)))
    found = ids(root)
    d, a = found[f"unit-{land[0].abbr}"], found[f"unit-{land[1].abbr}"]
    assert "kind-D" in classes(d) and d.find(f"{NS}rect") is not None and d.find(f"{NS}circle") is None
    assert "kind-A" in classes(a) and a.find(f"{NS}circle") is not None


# -- PNG and PDF


def _near(px: tuple[int, int, int], c: tuple[float, float, float], tol: int = 12) -> bool:
    return all(abs(px[i] - round(c[i] * 255)) <= tol for i in range(3))


def test_png_has_its_size_and_every_power_colour(standard: Variant) -> None:
    from PIL import Image

    geo = grid_geometry(standard)
    svg = render_svg(standard, standard.start, geometry=geo)
    png = svg_to_png(svg, scale=1.0)
    img = Image.open(io.BytesIO(png)).convert("RGB")
    m = re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', svg)
    assert m is not None
    assert abs(img.size[0] - float(m.group(1))) <= 1 and abs(img.size[1] - float(m.group(2))) <= 1
    counts: dict[Any, int] = {px: n for n, px in img.getcolors(1 << 24) or []}
    for p in standard.powers:
        c = parse_colour(p.colour)
        hits = sum(n for px, n in counts.items() if _near(px, c))
        assert hits > 30, f"{p.name}'s colour {p.colour} hardly appears ({hits} pixels)"
    water = sum(
        n for px, n in counts.items() if _near(px, parse_colour("#b9d3e3"), 6) or _near(px, parse_colour("#a7c6dc"), 6)
    )
    assert water > 0.05 * img.size[0] * img.size[1]
    big = Image.open(io.BytesIO(svg_to_png(svg, scale=2.0)))
    assert abs(big.size[0] - 2 * img.size[0]) <= 1 and abs(big.size[1] - 2 * img.size[1]) <= 1


needs_poppler = pytest.mark.skipif(
    shutil.which("pdfinfo") is None, reason="poppler-utils not installed (scripts/setup)"
)


@needs_poppler
def test_pdf_opens_in_poppler(standard: Variant, tmp_path: Path) -> None:
    svg = render_svg(standard, standard.start, geometry=grid_geometry(standard))
    path = tmp_path / "map.pdf"
    path.write_bytes(svg_to_pdf(svg))
    info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True).stdout
    assert re.search(r"^Pages:\s+1$", info, re.M)


@needs_poppler
@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_results_pdf_is_a_landscape_map_page_then_the_text(
    standard: Variant, game: list[SamplePhase], tmp_path: Path, paper: str
) -> None:
    ph = game[0]
    svg = render_svg(standard, ph.position, ph.orders, ph.results, geometry=grid_geometry(standard))
    report = "\n".join(f"{r['power']}: {r['order']} ({r['result']})" for r in ph.results) * 3
    report += "\nThe last line of the report.\n"
    path = tmp_path / "r.pdf"
    path.write_bytes(results_pdf(svg, "Demo: Spring 1901 Movement", report, paper=paper))
    info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True).stdout
    pages = int(re.search(r"^Pages:\s+(\d+)$", info, re.M).group(1))  # type: ignore[union-attr]
    assert pages >= 2
    w, h = (float(x) for x in re.search(r"Page size:\s+([\d.]+) x ([\d.]+) pts", info).groups())  # type: ignore[union-attr]
    want = {"a4": (841.9, 595.3), "letter": (792.0, 612.0)}[paper]
    assert abs(w - want[0]) < 2 and abs(h - want[1]) < 2
    text = subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True).stdout
    assert "The last line of the report." in text
    assert ph.results[0]["order"] in text
    assert "Demo: Spring 1901 Movement" in text


def test_results_pdf_refuses_unknown_paper(standard: Variant) -> None:
    with pytest.raises(ValueError, match="unknown paper size 'a5'"):
        results_pdf("<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 1 1'/>", "t", "x", paper="a5")


# -- colours


MIN_NORMAL = 20.0
MIN_DEUTERANOPIA = 15.0


@pytest.mark.parametrize("name", VARIANTS)
def test_power_colours_stay_apart_for_colour_blind_players(name: str) -> None:
    """Every pair of power colours differs clearly (CIE76 >= 20) and still differs under simulated
    deuteranopia (Machado 2009; >= 15), and so do the lighter tints owned land is filled with (>= 14 and
    >= 10). Units also carry their power's letter, so colour is never the only sign."""
    v = load_variant(name)
    colours = {p.name: p.colour for p in v.powers}
    tints = {k: hex_colour(mix(parse_colour(c), (1.0, 1.0, 1.0), TINT)) for k, c in colours.items()}
    for cols, normal, deut in ((colours, MIN_NORMAL, MIN_DEUTERANOPIA), (tints, 14.0, 10.0)):
        worst = closest_pairs(cols)[:1]
        assert not worst or worst[0][0] >= normal, worst
        worst = closest_pairs(cols, simulate=True)[:1]
        assert not worst or worst[0][0] >= deut, ("deuteranopia", worst)


def test_the_simulation_confuses_red_and_green() -> None:
    """The check can fail: deuteranopia makes a red and a green close that are far apart to others."""
    red, green = "#d03a2a", "#6a8a2a"
    assert closest_pairs({"r": red, "g": green})[0][0] > 40
    assert closest_pairs({"r": red, "g": green}, simulate=True)[0][0] < 12
    assert deuteranopia((1.0, 1.0, 1.0)) == pytest.approx((1.0, 1.0, 1.0), abs=0.01)
