"""Maps on paper, measured from the PDF itself: standard page sizes (pdfinfo), the atlas's sheets with names
of at least 6 pt (pdftohtml's font sizes) and units of at least 4 mm (the page's scale), and a judged Winter
drawn as adjudicated (a failed removal is not drawn as removed; the legend counts the units it left)."""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
from pathlib import Path
from xml.sax.saxutils import unescape

import pytest

from dippouch.catalog import load_variant
from dippouch.core.adjudicator import adjudicate
from dippouch.core.calendar import PhaseKind
from dippouch.core.jsonio import result_to_json
from dippouch.core.legal_orders import legal_orders
from dippouch.core.rules.w3k import SendSupply
from dippouch.core.variant import Variant
from dippouch.render import atlas_pdf, map_pdf, render_svg, results_pdf
from dippouch.render.atlas import (
    MIN_NAME_PT,
    MIN_UNIT_MM,
    Window,
    atlas_layout,
    atlas_pages,
    print_check,
    scale_of,
    sheets_for,
)
from dippouch.render.output import pdf_pages
from dippouch.render.sample import sample_phases
from dippouch.render.shots import busiest_phase
from helpers import board, prov
from test_shelf_sample import heavy_variants

pytestmark = pytest.mark.skipif(
    shutil.which("pdfinfo") is None or shutil.which("pdftohtml") is None,
    reason="poppler-utils not installed (scripts/setup)",
)

# dippouch's own variants and one of the shelf (tests/test_shelf_sample.py): this for every shelf variant would
# multiply the file's time; tests/variants/test_shelf.py checks the whole shelf at once.
VARIANTS = heavy_variants("canton")

A4 = (595.3, 841.9)
A3 = (841.9, 1190.6)


@pytest.fixture(scope="module")
def w3k() -> Variant:
    return load_variant("w3k")


@pytest.fixture(scope="module")
def busy_svg(w3k: Variant) -> str:
    """W3K's busiest sample phase (70 units, every one ordered), as the benchmark draws it."""
    phase = sample_phases(w3k, seed=2, phases=1)[0]
    return render_svg(w3k, phase.position, phase.orders, phase.results)


def page_sizes(path: Path) -> list[tuple[float, float]]:
    info = subprocess.run(
        ["pdfinfo", "-f", "1", "-l", "99", str(path)], capture_output=True, text=True, check=True
    ).stdout
    return [(float(w), float(h)) for w, h in re.findall(r"Page +\d+ size: +([\d.]+) x ([\d.]+) pts", info)]


def is_paper(size: tuple[float, float], paper: tuple[float, float]) -> bool:
    w, h = size
    return any(abs(w - a) < 1 and abs(h - b) < 1 for a, b in (paper, paper[::-1]))


def text_sizes(path: Path, page: int) -> list[tuple[float, str]]:
    """(font size in points, text) of every text on a page, as poppler reads the PDF: pdftohtml's sizes are
    whole numbers at its largest zoom, 3, so each is known to 1/6 pt."""
    xml = subprocess.run(
        ["pdftohtml", "-xml", "-stdout", "-i", "-zoom", "3", "-f", str(page), "-l", str(page), str(path)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    height = float(re.search(r'<page number="\d+"[^>]* height="(\d+)"', xml).group(1))  # type: ignore[union-attr]
    # The page's own height (a landscape page's is its short side: measured against the long one, as this
    # did, every size on a landscape page read 1.41 times too big, 3.3 pt names as 4.7).
    pts = page_sizes(path)[page - 1][1]
    zoom = height / pts if height > 0 else 3.0
    fonts = {m[0]: int(m[1]) for m in re.findall(r'<fontspec id="(\d+)" size="(\d+)"', xml)}
    return [
        (fonts[f] / zoom, re.sub(r"<[^>]+>", "", t))
        for f, t in re.findall(r'<text [^>]*font="(\d+)"[^>]*>(.*?)</text>', xml)
        if re.sub(r"<[^>]+>", "", t).strip()
    ]


def test_a_map_pdf_is_on_a4_or_a3_turned_to_fit(w3k: Variant, tmp_path: Path) -> None:
    standard = load_variant("standard")
    for variant, paper, want, portrait in (
        (w3k, "a4", A4, True),
        (w3k, "a3", A3, True),
        (standard, "a4", A4, False),
    ):
        path = tmp_path / f"{variant.name}-{paper}.pdf"
        path.write_bytes(map_pdf(render_svg(variant, variant.start), "t", paper))
        (size,) = page_sizes(path)
        assert is_paper(size, want), (variant.name, paper, size)
        assert (size[0] < size[1]) is portrait, (variant.name, size)


def test_w3k_results_pdf_is_an_atlas_with_readable_sheets(w3k: Variant, busy_svg: str, tmp_path: Path) -> None:
    path = tmp_path / "r.pdf"
    path.write_bytes(results_pdf(busy_svg, "g: Summer 1642 Movement", "results\n" * 30, variant=w3k))
    sizes = page_sizes(path)
    sheets = sheets_for(w3k, busy_svg)
    # The W3K file's seven regions, each on one page; the overview first and the text last.
    assert [s.name for s in sheets] == [
        "Scotland",
        "The Atlantic",
        "The North Sea",
        "Ireland",
        "The North",
        "Wales and the Midlands",
        "The Low Countries",
        "The South",
        "The Western Approaches",
        "The Channel and Brittany",
    ]
    assert len(sizes) == 1 + len(sheets) + 1
    assert all(is_paper(s, A4) for s in sizes), sizes
    # The whole map on A4 would print every name under 6 pt (2.3 pt): the overview leaves them all off
    # and says where they are.
    assert small_names(path, 1, busy_svg) == []
    assert any("are on the sheets that follow (258 of them)" in t for _, t in text_sizes(path, 1))
    pages = atlas_pages(w3k, busy_svg, "g: Summer 1642 Movement")
    radius = float(re.search(r'data-unit-radius="([\d.]+)"', busy_svg).group(1))  # type: ignore[union-attr]
    for n in range(2, 2 + len(sheets)):
        texts = [(size, text) for size, text in text_sizes(path, n) if not text.startswith("g:")]
        assert len(texts) > 5, n  # the names are there as text (The North Sea: six seas and their units)
        smallest = min(texts)
        # pdftohtml knows a size to 1/6 pt.
        assert smallest[0] >= MIN_NAME_PT - 1 / 6, (n, smallest)
        assert 2 * radius * scale_of(pages[n - 1]) >= MIN_UNIT_MM, n


def unit_widths(svg: str) -> list[tuple[str, float, float, float]]:
    """(id, x, y, width across in drawing units) of every unit drawn, by its body: an army's disc, a fleet's
    hull (2.4 radii wide, so counted at 2/2.4 of it), a fort's square; where it sits on the board."""
    import xml.etree.ElementTree as ET

    ns = "{http://www.w3.org/2000/svg}"
    root = ET.fromstring(svg)
    top = float(root.get("data-board", "0 0").split()[1])
    out = []
    for g in root.iter(f"{ns}g"):
        ident = g.get("id") or ""
        if not ident.startswith(("unit-", "dislodged-")):
            continue
        body = next(e for e in g if e.tag in (f"{ns}circle", f"{ns}polygon", f"{ns}rect"))
        if body.tag == f"{ns}circle":
            x, y, w = float(body.get("cx", 0)), float(body.get("cy", 0)), 2 * float(body.get("r", 0))
        elif body.tag == f"{ns}rect":
            w = float(body.get("width", 0)) / 0.95
            x, y = float(body.get("x", 0)) + w / 2, float(body.get("y", 0)) + w / 2
        else:
            pts = [tuple(map(float, p.split(","))) for p in (body.get("points") or "").split()]
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            x, y, w = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2, (max(xs) - min(xs)) / 1.2
        out.append((ident, x, y + top, w))
    return out


def small_names(path: Path, page: int, svg: str) -> list[tuple[float, str]]:
    """The texts on a page printed under 6 pt that hold one of the map's names as whole words (poppler may
    read two names on one line as one text; a unit's letter is not a name)."""
    names = {unescape(t) for t in re.findall(r'class="label"[^>]*>([^<]+)<', svg) if len(t) > 1}
    pattern = re.compile(r"(?:^|\s)(?:" + "|".join(re.escape(n) for n in sorted(names, key=len)[::-1]) + r")(?:\s|$)")
    return [(size, t) for size, t in text_sizes(path, page) if size < MIN_NAME_PT - 1 / 6 and pattern.search(t)]


@pytest.mark.parametrize("name", VARIANTS)
def test_no_name_prints_under_6_pt_and_every_name_prints_somewhere(name: str, tmp_path: Path) -> None:
    """Each variant's map as the post sends it (the atlas on A4; Letter too), read back from the PDF: no
    province name on any page under 6 pt (before, every overview printed them so: W3K's 604 texts at
    2.3 pt, the standard map's at 3.3 pt), and by the page-by-page measure every name on some page at
    6 pt or more (12 of W3K's seas and provinces lay outside all its sheets)."""
    v = load_variant(name)
    ph = busiest_phase(v)
    svg = render_svg(v, ph.position, ph.orders, ph.results)
    for paper in ("a4", "letter"):
        path = tmp_path / f"{paper}.pdf"
        path.write_bytes(atlas_pdf(v, svg, "t", paper))
        pages = len(page_sizes(path))
        small = [(n, got) for n in range(1, pages + 1) for got in small_names(path, n, svg)]
        assert small == [], (paper, small[:10])
        rep = print_check(v, svg, paper)
        assert rep.unreadable == [] and rep.small == 0, (paper, rep)
        assert len(rep.pages) == pages


def test_every_unit_on_the_atlas_sheets_is_at_least_4_mm(w3k: Variant, busy_svg: str) -> None:
    """Every unit as drawn (not the map's usual size: a unit in a castle or city too), on each A4 sheet it
    appears on, by the scale at which that page prints the drawing."""
    pages = atlas_pages(w3k, busy_svg, "g")
    sheets = sheets_for(w3k, busy_svg)
    units = unit_widths(busy_svg)
    assert len(units) >= 60
    seen: set[str] = set()
    small = []
    for sheet, page in zip(sheets, pages[1:], strict=True):  # the overview (page 1) is not a sheet
        s = scale_of(page)
        # The part of the drawing the page shows (the sheet's box widened to fill the page).
        view = re.search(r'<svg x="[-\d.]+" y="[-\d.]+" width="[\d.]+" height="[\d.]+" viewBox="([-\d. ]+)"', page)
        assert view is not None, sheet.name
        bx, by, bw, bh = map(float, view.group(1).split())
        for ident, x, y, w in units:
            if bx <= x <= bx + bw and by <= y <= by + bh:
                seen.add(ident)
                if w * s < MIN_UNIT_MM - 0.01:
                    small.append((sheet.name, ident, round(w * s, 2)))
    assert small == []
    assert len(seen) == len(units)  # every unit is on some sheet


def test_a_variant_without_sheets_gets_tiles_only_when_its_names_would_be_too_small(tmp_path: Path) -> None:
    standard = load_variant("standard")
    svg = render_svg(standard, standard.start)
    tiles = sheets_for(standard, svg, "a4")
    assert tiles and all(t.name.startswith("Sheet") for t in tiles)
    # Every part of the board is on some tile.
    board_w, board_h = 1200.0, 873.4
    for x in range(0, int(board_w), 50):
        for y in range(40, int(board_h), 50):
            assert any(t.box[0] <= x <= t.box[0] + t.box[2] and t.box[1] <= y <= t.box[1] + t.box[3] for t in tiles)
    path = tmp_path / "s.pdf"
    path.write_bytes(atlas_pdf(standard, svg, "standard", "a4"))
    for n in range(2, 2 + len(tiles)):
        assert min(size for size, _ in text_sizes(path, n)) >= MIN_NAME_PT - 1 / 6
    # Bigger paper, fewer tiles; a map whose names read whole on the page gets none (hundred3 on A3).
    assert len(sheets_for(standard, svg, "a3")) < len(tiles)
    hundred3 = load_variant("hundred3")
    assert sheets_for(hundred3, render_svg(hundred3, hundred3.start), "a3") == []


def test_a_map_pdf_is_titled_from_the_drawing_by_default(w3k: Variant, tmp_path: Path) -> None:
    path = tmp_path / "t.pdf"
    path.write_bytes(map_pdf(render_svg(w3k, w3k.start)))
    text = subprocess.run(["pdftotext", "-l", "1", str(path), "-"], capture_output=True, text=True, check=True)
    assert "Wars of the Three Kingdoms: Summer 1642 Movement" in text.stdout


def test_unknown_paper_is_refused_with_the_sizes_there_are(w3k: Variant) -> None:
    with pytest.raises(ValueError, match=r"unknown paper size 'a5'; use one of: a4, a3, letter"):
        map_pdf(render_svg(w3k, w3k.start), "t", "a5")


def winter_with_failed_removals(v: Variant) -> tuple[object, list[dict[str, object]], object]:
    """The Crown owes two removals (one centre, three units) and lists both; Argyll sends two units' supply,
    which covers them, so both fail ("no removal needed") and the units stay."""
    pos = board(
        v,
        "Winter 1643",
        {"Argyll": ["A edi", "F kis"], "Crown": ["A oxf", "A wor", "A lon"]},
        {"Argyll": ["edi", "kis", "ftw", "gla", "ipo", "inv"], "Crown": ["oxf"]},
        homes={p: frozenset() for p in v.power_names},
    )
    removals = [legal_orders(v, pos, "Crown")[prov(v, c)][0] for c in ("lon", "wor")]
    res = adjudicate(v, pos, {"Argyll": [SendSupply(2, "Crown")], "Crown": removals})
    results = [result_to_json(v, r, PhaseKind.ADJUSTMENTS) for r in res.results]
    return pos, results, res.next


def test_a_failed_removal_is_not_drawn_as_removed_and_the_legend_counts_after(w3k: Variant) -> None:
    pos, results, nxt = winter_with_failed_removals(w3k)
    crown = [r for r in results if r["power"] == "Crown"]
    assert sorted(str(r["result"]) for r in crown) == ["fails", "fails"]
    svg = render_svg(w3k, pos, results=results)  # type: ignore[arg-type]
    removals = re.findall(r'<g id="order-\d+" data-power="Crown" class="order remove (\w+)"[^>]*>(.*?)</g>', svg)
    assert [fate for fate, _ in removals] == ["failed", "failed"]
    # The barred ring of a removal (stroke #b2182b) is drawn for neither.
    assert all("#b2182b" not in body for _, body in removals)
    assert svg.count('class="fail-mark failed"') == 2
    legend = re.search(r'data-power="Crown">.*?(\d+) centres?, (\d+) units?', svg)
    assert legend is not None
    assert int(legend.group(2)) == len(nxt.units_of("Crown")) == 3  # type: ignore[attr-defined]


def test_a_carried_out_removal_is_drawn_and_counted(w3k: Variant) -> None:
    pos = board(
        w3k,
        "Winter 1643",
        {"Crown": ["A oxf", "A wor", "A lon"]},
        {"Crown": ["oxf"]},
        homes={p: frozenset() for p in w3k.power_names},
    )
    removals = [legal_orders(w3k, pos, "Crown")[prov(w3k, c)][0] for c in ("lon", "wor")]
    res = adjudicate(w3k, pos, {"Crown": removals})
    results = [result_to_json(w3k, r, PhaseKind.ADJUSTMENTS) for r in res.results]
    svg = render_svg(w3k, pos, results=results)
    removed = re.findall(r'class="order remove ok"[^>]*>(.*?)</g>', svg)
    assert len(removed) == 2 and all("#b2182b" in body for body in removed)
    legend = re.search(r'data-power="Crown">.*?(\d+) centres?, (\d+) units?', svg)
    assert legend is not None and int(legend.group(2)) == 1 == len(res.next.units_of("Crown"))


def with_sheets(v: Variant, sheets: dict[str, object]) -> Variant:
    data = dict(v.data)
    data["drawing"] = {**dict(v.data.get("drawing") or {}), "sheets": sheets}
    return dataclasses.replace(v, data=data)


def test_sheets_by_provinces_cover_those_provinces(w3k: Variant) -> None:
    svg = render_svg(w3k, w3k.start)
    (sheet,) = sheets_for(with_sheets(w3k, {"Kent": {"provinces": ["cty", "sus"]}}), svg)
    assert sheet.name == "Kent"
    label = re.search(r'id="label-cty"[^>]* x="([\d.]+)" y="([\d.]+)"', svg)
    assert label is not None
    top = float(re.search(r'data-board="0 ([\d.]+)', svg).group(1))  # type: ignore[union-attr]
    x, y = float(label.group(1)), float(label.group(2)) + top
    assert sheet.box[0] < x < sheet.box[0] + sheet.box[2] and sheet.box[1] < y < sheet.box[1] + sheet.box[3]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"box": [1, 2, 3]}, "'Bad': box needs four numbers [x0, y0, x1, y1], not [1, 2, 3]"),
        ({"provinces": ["atlantis"]}, "'Bad' needs a box [x0, y0, x1, y1] or provinces that are on the map"),
        ({}, "'Bad' needs a box"),
    ],
)
def test_a_bad_sheet_is_refused_by_name(w3k: Variant, spec: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        sheets_for(with_sheets(w3k, {"Bad": spec}), render_svg(w3k, w3k.start))


def words(path: Path) -> list[tuple[int, str, tuple[float, ...]]]:
    """(page, word, its box) of every word as poppler reads the PDF."""
    html = subprocess.run(["pdftotext", "-bbox", str(path), "-"], capture_output=True, text=True, check=True).stdout
    return [
        (n, word, tuple(float(v) for v in re.findall(r'"([-\d.]+)"', box)))
        for n, page in enumerate(html.split("<page ")[1:], start=1)
        for box, word in re.findall(r'<word (xMin="[^>]+)>([^<]+)</word>', page)
    ]


def test_the_sheets_drawn_once_print_as_the_sheets_drawn_page_by_page(tmp_path: Path) -> None:
    """The atlas draws the map once and shows it through each sheet's window (five times faster for W3K);
    read back from the PDF, every name on every page stands where the page drawn whole puts it, to 0.05 pt
    (an unhinted layout: hinted in the recording, "Devon" printed 1.5 pt wider), and no more than 1% of a
    page's pixels differ (edges smoothed differently)."""
    v = load_variant("hundred")
    ph = busiest_phase(v)
    svg = render_svg(v, ph.position, ph.orders, ph.results)
    once, whole = tmp_path / "once.pdf", tmp_path / "whole.pdf"
    once.write_bytes(atlas_pdf(v, svg, "t", "a4"))
    whole.write_bytes(pdf_pages(atlas_pages(v, svg, "t", "a4")))
    assert page_sizes(once) == page_sizes(whole) and len(page_sizes(once)) > 1
    got, want = words(once), words(whole)
    assert len(want) > 100
    # Every word of either stands in the other where it stands in this one, to 0.05 pt; but a word cut by a
    # window's edge may keep a letter more or less (Cairo culls clipped text by rough extents).
    windows = {n: p.at for n, p in enumerate(atlas_layout(v, svg, "t", "a4"), start=1) if isinstance(p, Window)}
    pt = 72 / 25.4

    def inside(page: int, box: tuple[float, ...]) -> bool:
        x, y, w, h = (c * pt for c in windows.get(page, (0.0, 0.0, 1e6, 1e6)))
        return x <= box[0] and box[2] <= x + w and y <= box[1] and box[3] <= y + h

    def found(word: tuple[int, str, tuple[float, ...]], among: list[tuple[int, str, tuple[float, ...]]]) -> bool:
        """The word in ``among`` at its place, or cut at an edge: the one's text and box within the other's."""
        n, text, (x0, y0, x1, y1) = word
        for m, other, (a0, b0, a1, b1) in among:
            if m != n or abs(b0 - y0) > 0.05 or abs(b1 - y1) > 0.05:
                continue
            if other == text and abs(a0 - x0) <= 0.05 and abs(a1 - x1) <= 0.05:
                return True
            short, long_ = sorted(((x0, x1, text), (a0, a1, other)), key=lambda t: len(t[2]))
            if short[2] in long_[2] and long_[0] - 0.05 <= short[0] and short[1] <= long_[1] + 0.05:
                return True
        return False

    lost = [w for w in want if inside(w[0], w[2]) and not found(w, got)]
    added = [w for w in got if inside(w[0], w[2]) and not found(w, want)]
    assert lost == [] and added == []
    from PIL import Image, ImageChops

    for pdf in (once, whole):
        subprocess.run(["pdftoppm", "-r", "40", "-png", str(pdf), str(tmp_path / pdf.stem)], check=True)
    for page in sorted(tmp_path.glob("once-*.png")):
        a = Image.open(page).convert("L")
        b = Image.open(tmp_path / page.name.replace("once", "whole")).convert("L")
        assert a.size == b.size
        differ = sum(ImageChops.difference(a, b).histogram()[40:])
        assert differ / (a.size[0] * a.size[1]) < 0.01, page.name


@pytest.mark.parametrize("name", ["standard", "w3k"])
def test_an_atlas_says_its_own_words_in_the_maps_language(name: str) -> None:
    """The overview's title, the sheets' titles and the note of names left to the sheets in the map's language
    (a German atlas said "overview" and "Sheet (1 of 4)"); a variant's own region names as it writes them."""
    from dippouch.render import RenderOptions

    v = load_variant(name)
    pages = {}
    for lang in ("en", "de", "fr"):
        svg = str(render_svg(v, v.start, options=RenderOptions(lang=lang)))
        layout = atlas_layout(v, svg, "g", lang=lang)
        pages[lang] = [p if isinstance(p, str) else p.whole(svg) for p in layout]
        assert len(pages[lang]) == len(pages["en"]) > 1
    sheets = sheets_for(v, str(render_svg(v, v.start)))
    first = {lang: unescape(p[0]) for lang, p in pages.items()}
    # French sets a space before the colon, as its typography (and the book's results pages) has it.
    assert "g: overview" in first["en"] and "g: Übersicht" in first["de"] and "g : vue d’ensemble" in first["fr"]
    for lang, sheet_word, of, colon in (("de", "Blatt", "von", ":"), ("fr", "Feuille", "sur", " :")):
        assert "overview" not in first[lang] and "Sheet (" not in first[lang]
        for i, sh in enumerate(sheets):
            said = sh.said(lang)
            assert f"{i + 2}. {said}" in first[lang] and f"g{colon} {i + 2}. {said}" in unescape(pages[lang][i + 1])
            if sh.region:  # the variant's name for it, as the variant writes it
                assert said.startswith(sh.region)
            else:
                assert said.startswith(sheet_word)
            if sh.parts:
                assert f"({sh.part} {of} {sh.parts})" in said
        if "Names too small" in first["en"]:
            assert "Names too small" not in first[lang]
            assert ("Namen, die auf dieser Seite" if lang == "de" else "Les noms trop petits") in first[lang]
