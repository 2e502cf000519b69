"""Maps on paper: one page of a standard size, or for a board too big to read on one page an atlas (an
overview page plus regional sheets, each a crop of the same drawing).

Why an atlas: W3K's map printed whole on A4 has names of about 1.7 pt and units of 1.6 mm. A sheet is a
window (the SVG's viewBox) onto the very same drawing, scaled so the smallest name is at least
:data:`MIN_NAME_PT` and a unit at least :data:`MIN_UNIT_MM` across. The regions are data: the variant's
optional ``[drawing.sheets]`` table (a name with the provinces it shows or a box in map coordinates); a
variant without sheets whose overview would print names under the minimum gets a grid of tiles. A sheet
too big to print at that scale is cut into parts, so every sheet meets the minimum whatever the data says.

The overview of an atlas leaves off the names that would print under :data:`MIN_NAME_PT` there (W3K's, at
2.3 pt on A4, were specks): each is on a sheet at a readable size, and the page says so. :func:`print_check`
measures every page as printed (``dippouch mapcheck`` and the tests run it on every variant).

Pages are SVG documents in millimetres (``viewBox`` = the paper in mm), converted by
:func:`dippouch.render.output.pdf_pages`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING
from xml.sax.saxutils import escape

from dippouch.i18n import translations

if TYPE_CHECKING:
    from dippouch.core.variant import Variant
    from dippouch.render.geometry import Geometry

__all__ = [
    "MIN_NAME_PT",
    "MIN_UNIT_MM",
    "PAPERS",
    "MapPageParts",
    "PagePrint",
    "PrintReport",
    "Sheet",
    "Window",
    "atlas_layout",
    "atlas_pages",
    "drawing_boxes",
    "map_page",
    "overview",
    "overview_title",
    "page_size",
    "print_check",
    "sheet_title",
    "sheet_window",
    "sheets_for",
    "smallest_name_pt",
    "titled",
    "whole_drawing",
]

I18N_DOMAIN = "games"
"""The catalogue of an atlas's own words (its pages' titles, the overview's note), said in the map's language."""

PAPERS: dict[str, tuple[float, float]] = {"a4": (210.0, 297.0), "a3": (297.0, 420.0), "letter": (215.9, 279.4)}
"""Portrait paper sizes in millimetres; a page is turned to landscape where the map fits it better."""

MIN_NAME_PT = 6.0
"""The smallest name on a sheet, in points (a printed map's small print)."""
MIN_UNIT_MM = 4.0
"""The smallest unit on a sheet, in millimetres across."""
MARGIN_MM = 10.0
TITLE_MM = 9.0
"""The band above a page's map for its title."""
TITLE_PT = 13.0
MM_PER_PT = 25.4 / 72
"""A printer's point (1/72 inch) in millimetres: sheets are laid out in millimetres, text sized in points."""
_FONT = "DejaVu Sans, Verdana, sans-serif"

_VIEWBOX = re.compile(r'viewBox="([-\d.]+) ([-\d.]+) ([-\d.]+) ([-\d.]+)"')
_LABEL_SIZE = re.compile(r'class="label"[^>]*font-size="([\d.]+)"')
_BOARD = re.compile(r'data-board="([-\d.]+) ([-\d.]+) ([-\d.]+) ([-\d.]+)"')
_RADIUS = re.compile(r'data-unit-radius="([\d.]+)"')
_NAME = re.compile(r'<text id="label-([^"]+)" class="label"[^>]*? x="([-\d.]+)" y="([-\d.]+)" font-size="([\d.]+)"')
_NAME_PARTS = re.compile(
    r'<text (?:id="label-|data-for=")([^"]+)"[^>]*>[^<]*</text>|<(?:path|circle) [^>]*?data-for="([^"]+)"[^>]*/>'
)

Box = tuple[float, float, float, float]
"""x, y, width, height in the drawing's own coordinates."""


@dataclass(frozen=True, slots=True)
class Sheet:
    """One regional sheet: its title and the part of the drawing it shows (document coordinates)."""

    name: str
    box: Box
    region: str = ""
    """The variant's name for the sheet's region (said as the variant writes it), or empty for the atlas's own
    grid of tiles; a region cut into ``parts`` equal sheets names the ``part``-th of them."""
    part: int = 0
    parts: int = 0

    def said(self, lang: str) -> str:
        """The sheet's title in ``lang`` (:attr:`name` is the English)."""
        t = translations(lang)
        region = self.region or str(t.pgettext("map atlas", "Sheet"))
        if not self.parts:
            return region
        return str(t.pgettext("map atlas", "%(region)s (%(part)s of %(parts)s)")) % {
            "region": region,
            "part": self.part,
            "parts": self.parts,
        }


def page_size(paper: str) -> tuple[float, float]:
    """The portrait size of ``paper`` in mm; a ValueError naming the sizes there are otherwise."""
    try:
        return PAPERS[paper.lower()]
    except KeyError:
        raise ValueError(f"unknown paper size {paper!r}; use one of: {', '.join(PAPERS)}") from None


def _fit(paper: str, w: float, h: float) -> tuple[float, float, float]:
    """The page (width, height in mm, portrait or landscape) on which a ``w`` x ``h`` drawing prints
    largest under a title band, and that scale in mm per drawing unit."""
    pw, ph = page_size(paper)
    best: tuple[float, float, float] | None = None
    for a, b in ((pw, ph), (ph, pw)):
        s = min((a - 2 * MARGIN_MM) / w, (b - 2 * MARGIN_MM - TITLE_MM) / h)
        if best is None or s > best[2] + 1e-9:
            best = (a, b, s)
    assert best is not None
    return best


def drawing_boxes(svg: str) -> tuple[Box, Box] | None:
    """(the whole document's box, the board's box) of a drawing of :func:`dippouch.render.svg.draw_svg`, read
    from its root element (the board's is the document's where the root does not name it); ``None`` without a
    ``viewBox``."""
    head = svg[: svg.index(">", svg.index("<svg")) + 1]
    m = _VIEWBOX.search(head)
    if m is None:
        return None
    doc: Box = (float(m.group(1)), float(m.group(2)), float(m.group(3)), float(m.group(4)))
    b = _BOARD.search(head)
    return doc, (float(b.group(1)), float(b.group(2)), float(b.group(3)), float(b.group(4))) if b else doc


def _measures(svg: str) -> tuple[Box, Box, float, float]:
    """(the whole document's box, the board's box, the smallest name's size, the unit radius), read from a
    drawing of :func:`dippouch.render.svg.draw_svg`."""
    boxes = drawing_boxes(svg)
    if boxes is None:
        raise ValueError("the map has no viewBox to crop")
    doc, board = boxes
    head = svg[: svg.index(">", svg.index("<svg")) + 1]
    rm = _RADIUS.search(head)
    r = float(rm.group(1)) if rm else doc[2] / 150
    sizes = [float(x) for x in _LABEL_SIZE.findall(svg)]
    return doc, board, min(sizes) if sizes else r, r


def _min_scale(name_size: float, r: float) -> float:
    """mm per drawing unit at which the smallest name is MIN_NAME_PT and a unit MIN_UNIT_MM across."""
    return max(MIN_NAME_PT * MM_PER_PT / name_size, MIN_UNIT_MM / (2 * r))


def _province_boxes(geo: Geometry) -> dict[str, Box]:
    from dippouch.render.geometry import path_rings

    out: dict[str, Box] = {}
    for abbr, shape in geo.provinces.items():
        pts = [p for ring in path_rings(shape.d) for p in ring]
        if pts:
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            out[abbr] = (min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))
    return out


def _split(name: str, box: Box, paper: str, scale: float, pad: float, *, region: bool = True) -> list[Sheet]:
    """``box`` as one sheet if it prints at ``scale`` on a page, else cut into the fewest equal parts that do
    (each widened by ``pad`` so a place on a cut is whole on one of them). ``name``: a variant's region's
    (``region``), else the atlas's own English word for its tiles (said in the map's language)."""
    x, y, w, h = box
    best: tuple[int, int] | None = None
    for nx in range(1, 12):
        for ny in range(1, 12):
            s = _fit(paper, w / nx + 2 * pad, h / ny + 2 * pad)[2]
            if s >= scale and (best is None or nx * ny < best[0] * best[1]):
                best = (nx, ny)
    nx, ny = best or (12, 12)
    own = name if region else ""
    if nx * ny == 1:
        return [Sheet(name, box, own)]
    out = []
    for j in range(ny):
        for i in range(nx):
            # Overlapping its neighbours by ``pad``, never reaching past the box (the heading, the paper).
            x0, y0 = max(x, x + i * w / nx - pad), max(y, y + j * h / ny - pad)
            x1, y1 = min(x + w, x + (i + 1) * w / nx + pad), min(y + h, y + (j + 1) * h / ny + pad)
            part = (x0, y0, x1 - x0, y1 - y0)
            n = j * nx + i + 1
            out.append(Sheet(f"{name} ({n} of {nx * ny})", part, own, n, nx * ny))
    return out


def sheets_for(variant: Variant, svg: str, paper: str = "a4", geometry: Geometry | None = None) -> list[Sheet]:
    """The regional sheets of the atlas for a drawing of ``variant``: its ``[drawing.sheets]``, else a grid
    of tiles where the whole map would print names under :data:`MIN_NAME_PT` or units under
    :data:`MIN_UNIT_MM`, else none (the overview is readable by itself)."""
    doc, board, name_size, r = _measures(svg)
    need = _min_scale(name_size, r)
    pad = r * 2.5
    drawing = variant.data.get("drawing")
    table = drawing.get("sheets") if isinstance(drawing, Mapping) else None
    out: list[Sheet] = []
    if isinstance(table, Mapping) and table:
        boxes: dict[str, Box] | None = None
        for name, spec in table.items():
            spec = spec if isinstance(spec, Mapping) else {}
            if spec.get("box"):
                if len(spec["box"]) != 4:
                    raise ValueError(
                        f"[drawing.sheets] {name!r}: box needs four numbers [x0, y0, x1, y1], not {spec['box']!r}"
                    )
                x0, y0, x1, y1 = (float(v) for v in spec["box"])
                box = (min(x0, x1), min(y0, y1), abs(x1 - x0), abs(y1 - y0))
            else:
                if boxes is None:
                    from dippouch.render.geometry import load_geometry

                    boxes = _province_boxes(geometry or load_geometry(variant))
                got = [boxes[str(p).lower()] for p in spec.get("provinces", []) if str(p).lower() in boxes]
                if not got:
                    raise ValueError(
                        f"[drawing.sheets] {name!r} needs a box [x0, y0, x1, y1] or provinces that are on the map"
                    )
                x0, y0 = min(b[0] for b in got) - pad, min(b[1] for b in got) - pad
                x1, y1 = max(b[0] + b[2] for b in got) + pad, max(b[1] + b[3] for b in got) + pad
                box = (x0, y0, x1 - x0, y1 - y0)
            out += _split(str(name), (box[0] + board[0], box[1] + board[1], box[2], box[3]), paper, need, 0.0)
        return out
    if _fit(paper, doc[2], doc[3])[2] >= need:
        return []
    tiles = _split("Sheet", board, paper, need, pad, region=False)
    return tiles


def _body(svg: str) -> str:
    """What a drawing's root ``<svg>`` holds, without the root itself."""
    return svg[svg.index(">", svg.index("<svg")) + 1 : svg.rindex("</svg>")]


def _nested(svg: str, view: Box, x: float, y: float, w: float, h: float, extra: str = "") -> str:
    """The drawing as a nested ``<svg>`` showing ``view`` (its own coordinates) in the page's box, clipped
    to the box (a crop), kept in proportion."""
    body = _body(svg)
    vb = " ".join(f"{v:.2f}" for v in view)
    return (
        f'<svg x="{x:.2f}" y="{y:.2f}" width="{w:.2f}" height="{h:.2f}" viewBox="{vb}" overflow="hidden"'
        f' preserveAspectRatio="xMidYMid meet" font-family="{_FONT}">{body}{extra}</svg>'
    )


def _page(w: float, h: float, title: str, body: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w:.1f}mm" height="{h:.1f}mm" viewBox="0 0 {w:.1f} {h:.1f}"'
        f' font-family="{_FONT}"><rect x="0" y="0" width="{w:.1f}" height="{h:.1f}" fill="#ffffff"/>'
        f'<text class="page-title" x="{MARGIN_MM:.1f}" y="{MARGIN_MM + TITLE_MM * 0.6:.1f}"'
        f' font-size="{TITLE_PT * MM_PER_PT:.3f}" font-weight="bold" fill="#000000">{escape(title)}</text>'
        f"{body}</svg>"
    )


def map_page(svg: str, title: str, paper: str = "a4", sheets: Sequence[Sheet] = (), lang: str = "en") -> str:
    """The whole drawing on one page of ``paper`` (turned to fit it best, with margins), with the outlines
    and names of ``sheets`` drawn over it (the atlas's overview), its own words in ``lang``."""
    pw, ph, doc, (x, y, w, h), drawing, marks, note = _overview_parts(svg, title, paper, sheets, lang)
    return _page(pw, ph, title, _nested(drawing, doc, x, y, w, h, marks) + note)


@dataclass(frozen=True, slots=True)
class MapPageParts:
    """:func:`map_page` in parts: the page (its title, its note) as a :class:`Window` onto the whole drawing,
    the drawing it shows there (with sheets, without the names too small to print on it), and the sheets'
    outlines drawn over that drawing, in its coordinates.

    Why apart: a game book draws a phase's drawing once for its overview and all its sheets (most of the
    overview's drawing is the sheets' drawing), where :func:`map_page` makes a document of its own."""

    window: Window
    drawing: str
    marks: str


def overview(svg: str, title: str, paper: str = "a4", sheets: Sequence[Sheet] = (), lang: str = "en") -> MapPageParts:
    """The page :func:`map_page` makes, in its parts (:class:`MapPageParts`)."""
    pw, ph, doc, at, drawing, marks, note = _overview_parts(svg, title, paper, sheets, lang)
    return MapPageParts(Window(_page(pw, ph, title, note), doc, at), drawing, marks)


def _overview_parts(
    svg: str, title: str, paper: str, sheets: Sequence[Sheet], lang: str = "en"
) -> tuple[float, float, Box, Box, str, str, str]:
    """(page width and height in mm, the drawing's box, where it goes on the page, the drawing shown, the
    sheets' outlines over it, the note under it, in ``lang``) for :func:`map_page`."""
    doc, _, _, _ = _measures(svg)
    pw, ph, s = _fit(paper, doc[2], doc[3])
    w, h = doc[2] * s, doc[3] * s
    x = (pw - w) / 2
    y = MARGIN_MM + TITLE_MM
    marks = ""
    note = ""
    if sheets:
        svg, dropped = _without_small_names(svg, s)
        if dropped:
            words = translations(lang).gettext(
                "Names too small to print on this page are on the sheets that follow (%(num)s of them)."
            ) % {"num": dropped}
            note = (
                f'<text class="page-note" x="{MARGIN_MM:.1f}" y="{ph - MARGIN_MM / 2:.1f}" font-size="{8 * MM_PER_PT:.3f}"'
                f' fill="#000000">{escape(words)}</text>'
            )
        line = 0.5 / s  # half a millimetre on paper, in drawing units
        fs = 3.2 / s  # 9 pt
        parts = []
        for i, sh in enumerate(sheets):
            bx, by, bw, bh = sh.box
            parts.append(
                f'<rect x="{bx:.1f}" y="{by:.1f}" width="{bw:.1f}" height="{bh:.1f}" fill="none" stroke="#b2182b"'
                f' stroke-width="{line:.2f}" stroke-dasharray="{line * 6:.1f} {line * 3:.1f}"/>'
                f'<text x="{bx + line * 2:.1f}" y="{by + fs * 1.05:.1f}" font-size="{fs:.1f}" font-weight="bold"'
                f' fill="#ffffff" stroke="#ffffff" stroke-width="{fs * 0.25:.2f}" stroke-linejoin="round">'
                f"{i + 2}. {escape(sh.said(lang))}</text>"
                f'<text x="{bx + line * 2:.1f}" y="{by + fs * 1.05:.1f}" font-size="{fs:.1f}" font-weight="bold"'
                f' fill="#b2182b">{i + 2}. {escape(sh.said(lang))}</text>'
            )
        marks = f'<g class="sheet-outlines">{"".join(parts)}</g>'
    return pw, ph, doc, (x, y, w, h), svg, marks, note


def _without_small_names(svg: str, scale: float) -> tuple[str, int]:
    """The drawing without the names (their halos, leader lines and dots) that print under
    :data:`MIN_NAME_PT` at ``scale`` mm per drawing unit, and how many were left off."""
    small = {m[0] for m in _NAME.findall(svg) if float(m[3]) * scale / MM_PER_PT < MIN_NAME_PT}
    if not small:
        return svg, 0

    def keep(m: re.Match[str]) -> str:
        return "" if (m.group(1) or m.group(2)) in small else m.group(0)

    return _NAME_PARTS.sub(keep, svg), len(small)


@dataclass(frozen=True, slots=True)
class Window:
    """A page that shows part of a drawing: the page itself (paper, title) and where the drawing goes on it.

    Why apart: an atlas's sheets are windows onto one drawing, and a PDF can draw that drawing once and show
    it through every window (W3K's eleven pages took 10 s drawn one by one, the drawing parsed and drawn
    eleven times); :meth:`whole` is the page as one SVG document, which the checks measure."""

    page: str
    """The page without the drawing (an SVG document in mm)."""
    view: Box
    """The part of the drawing shown (drawing coordinates)."""
    at: Box
    """Where on the page (mm): the drawing fills it in proportion, centred, cut to it."""

    def whole(self, svg: str) -> str:
        """The page with ``svg`` in its window, as one SVG document."""
        end = self.page.rindex("</svg>")
        return self.page[:end] + _nested(svg, self.view, *self.at) + self.page[end:]


def whole_drawing(svg: str) -> tuple[str, Box]:
    """The drawing as a document of its own box, a drawing unit to a pixel, in the pages' font (what a PDF
    draws once and shows through every :class:`Window`), and that box.

    Its text is laid out unhinted (``geometricPrecision``), as on a page: drawn apart from any page, Cairo
    rounded each letter's advance to the drawing's small units, and "Devon" printed 1.5 pt wider."""
    x, y, w, h = box = _measures(svg)[0]
    body = _body(svg)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="{x} {y} {w} {h}"'
        f' font-family="{_FONT}" text-rendering="geometricPrecision">{body}</svg>'
    ), box


def sheet_window(svg: str, sheet: Sheet, title: str, paper: str = "a4") -> Window:
    """One sheet on its page: the sheet's box as large as the page allows (never under the atlas's scale,
    which :func:`sheets_for` made sure of), widened to fill the page round it, on the board's side of its
    edges where the board allows (not a strip of the legend or the heading under a sheet at the board's
    foot: W3K's Western Approaches showed two of the ten powers' entries)."""
    bx, by, bw, bh = sheet.box
    pw, ph, s = _fit(paper, bw, bh)
    aw, ah = pw - 2 * MARGIN_MM, ph - 2 * MARGIN_MM - TITLE_MM
    vw, vh = aw / s, ah / s
    _, board, _, _ = _measures(svg)
    vx, vy = bx + bw / 2 - vw / 2, by + bh / 2 - vh / 2
    vx = _inside(vx, vw, board[0], board[2], bx, bw)
    vy = _inside(vy, vh, board[1], board[3], by, bh)
    return Window(_page(pw, ph, title, ""), (vx, vy, vw, vh), (MARGIN_MM, MARGIN_MM + TITLE_MM, aw, ah))


def _inside(v: float, size: float, lo: float, span: float, box: float, box_size: float) -> float:
    """A view's start along one axis moved so the view stays within [lo, lo + span] where it fits, and
    always still shows the sheet's box [box, box + box_size]."""
    if size <= span:
        v = min(max(v, lo), lo + span - size)
    return min(max(v, box + box_size - size), box)


def atlas_layout(variant: Variant, svg: str, title: str, paper: str = "a4", lang: str = "en") -> list[str | Window]:
    """The overview page (its own drawing: small names left off, the sheets outlined) then a window per
    sheet (:func:`sheets_for`); one page where the map reads whole. The pages' own words in ``lang``."""
    sheets = sheets_for(variant, svg, paper)
    pages: list[str | Window] = [map_page(svg, overview_title(title, sheets, lang), paper, sheets, lang)]
    for i, sh in enumerate(sheets):
        pages.append(sheet_window(svg, sh, sheet_title(title, i, sh, lang), paper))
    return pages


def titled(title: str, part: str, lang: str = "en") -> str:
    """``title`` and the ``part`` of it a page shows, joined as ``lang`` writes it (French puts a space before
    the colon, as the book's results pages already said)."""
    return str(translations(lang).pgettext("map atlas", "%(title)s: %(part)s")) % {"title": title, "part": part}


def overview_title(title: str, sheets: Sequence[Sheet], lang: str = "en") -> str:
    """The overview page's title: ``title``, named the overview in ``lang`` where sheets follow it."""
    return titled(title, str(translations(lang).pgettext("map atlas", "overview")), lang) if sheets else title


def sheet_title(title: str, index: int, sheet: Sheet, lang: str = "en") -> str:
    """The title of the page of ``sheet``, the atlas's ``index``-th (from 0; the overview is page 1)."""
    return titled(title, f"{index + 2}. {sheet.said(lang)}", lang)


def atlas_pages(variant: Variant, svg: str, title: str, paper: str = "a4") -> list[str]:
    """The pages of :func:`atlas_layout`, each as one SVG document."""
    return [p if isinstance(p, str) else p.whole(svg) for p in atlas_layout(variant, svg, title, paper)]


def scale_of(page_svg: str) -> float:
    """mm on paper per drawing unit of a page made here (the nested drawing's width over its view's)."""
    m = re.search(r'<svg x="[-\d.]+" y="[-\d.]+" width="([\d.]+)" height="[\d.]+" viewBox="([-\d. ]+)"', page_svg)
    if not m:
        raise ValueError("not a page of the atlas")
    return float(m.group(1)) / float(m.group(2).split()[2])


@dataclass(frozen=True, slots=True)
class PagePrint:
    """One page of a map as printed: its title, the names on it and how many print under the minimum."""

    title: str
    names: int
    small: int
    smallest_pt: float
    """The smallest name on the page in points (0 when none is there)."""


@dataclass(frozen=True, slots=True)
class PrintReport:
    """A map printed on ``paper`` as the post sends it (:func:`atlas_pages`), measured page by page."""

    paper: str
    pages: list[PagePrint]
    unreadable: list[str]
    """Provinces whose name is on no page at :data:`MIN_NAME_PT` or more."""

    @property
    def small(self) -> int:
        return sum(p.small for p in self.pages)


def _page_names(page: str, top: float) -> tuple[list[tuple[str, float]], float]:
    """(province, size in points) of every name a page shows, and the page's scale; ``top`` is where the
    board starts in the drawing (names are placed on the board)."""
    m = re.search(r'<svg x="[-\d.]+" y="[-\d.]+" width="([\d.]+)" height="([\d.]+)" viewBox="([-\d. ]+)"', page)
    if not m:
        raise ValueError("not a page of the atlas")
    vx, vy, vw, vh = (float(v) for v in m.group(3).split())
    s = min(float(m.group(1)) / vw, float(m.group(2)) / vh)
    out = []
    for abbr, x, y, size in _NAME.findall(page):
        px, py = float(x), float(y) + top
        if vx <= px <= vx + vw and vy <= py <= vy + vh:
            out.append((abbr, float(size) * s / MM_PER_PT))
    return out, s


def print_check(variant: Variant, svg: str, paper: str = "a4") -> PrintReport:
    """Every page of the atlas of ``svg`` on ``paper`` (or its one page), measured as printed: the names on
    each page and those under :data:`MIN_NAME_PT`, and the names readable on no page at all."""
    titles = ["overview"] + [sh.name for sh in sheets_for(variant, svg, paper)]
    pages = atlas_pages(variant, svg, "", paper)
    top = _measures(svg)[1][1]
    out: list[PagePrint] = []
    readable: set[str] = set()
    for t, page in zip(titles, pages, strict=True):
        names, _ = _page_names(page, top)
        sizes = [pt for _, pt in names]
        small = sum(1 for pt in sizes if pt < MIN_NAME_PT - 1e-6)
        readable |= {a for a, pt in names if pt >= MIN_NAME_PT - 1e-6}
        out.append(PagePrint(t, len(names), small, round(min(sizes), 2) if sizes else 0.0))
    everyone = {m[0] for m in _NAME.findall(svg)}
    return PrintReport(paper, out, sorted(everyone - readable))


def smallest_name_pt(svg: str, paper: str = "a4") -> float:
    """The smallest name of the whole drawing on one page of ``paper`` (:func:`map_page`), in points; 0
    for a drawing without names."""
    names, _ = _page_names(map_page(svg, "", paper), _measures(svg)[1][1])
    return min((pt for _, pt in names), default=0.0)
