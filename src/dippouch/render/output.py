"""The map as PNG and PDF (cairosvg), the printable results (map page plus the report's text) and the
attachment the mail sends with a phase's results.

cairosvg and its Cairo library are imported only when a picture is converted, so the SVG drawing works on
a machine without them. Converting is told never to fetch anything (``unsafe=False``, the default): our
SVG has no external references, and a stray one must not become a network request.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from xml.sax.saxutils import escape, unescape

from dippouch.render.atlas import MM_PER_PT, PAPERS, Box, Window, atlas_layout, map_page, page_size, whole_drawing

if TYPE_CHECKING:
    from PIL.Image import Image as Picture

    from dippouch.core.variant import Variant

__all__ = [
    "PAGE_SIZES",
    "atlas_pdf",
    "map_pdf",
    "pdf_pages",
    "phase_map_file",
    "preview_png",
    "results_pdf",
    "svg_to_image",
    "svg_to_pdf",
    "svg_to_png",
]

PAGE_SIZES: dict[str, tuple[float, float]] = {name: (h, w) for name, (w, h) in PAPERS.items()}
"""Landscape page sizes in millimetres (the results text's pages)."""

_PX_PER_MM = 96 / 25.4


def _cairosvg() -> Any:
    try:
        import cairosvg
    except (ImportError, OSError) as e:  # OSError: the Cairo library itself is missing
        raise ImportError(
            f"PNG and PDF maps need cairosvg and the Cairo library ({e}); "
            "install them with scripts/setup (apt-get install libcairo2)"
        ) from None
    return cairosvg


def svg_to_png(svg: str, scale: float = 1.0, *, width: int | None = None, compress: int = 1) -> bytes:
    """The SVG as a PNG, ``scale`` times its own size in pixels (or ``width`` pixels wide).

    Cairo draws into memory and Pillow writes the file: Cairo's own PNG writer compresses at zlib's default
    level, which took a third of the time of a W3K map; ``compress`` (0-9) trades size for speed."""
    out = io.BytesIO()
    # The map is opaque (a paper rectangle under everything).
    svg_to_image(svg, scale, width=width).convert("RGB").save(
        out, format="PNG", compress_level=max(0, min(9, compress))
    )
    return out.getvalue()


def svg_to_image(svg: str, scale: float = 1.0, *, width: int | None = None) -> Picture:
    """The SVG drawn by Cairo as a Pillow picture with its transparency (``RGBA``), ``scale`` times its own size
    in pixels (or ``width`` pixels wide): what is not drawn on stays transparent, so pictures drawn apart can be
    laid one over the other (:mod:`dippouch.render.animation`)."""
    cs = _cairosvg()
    tree = cs.parser.Tree(bytestring=svg.encode("utf-8"))
    if width is not None:
        surface = cs.surface.PNGSurface(tree, None, 96, output_width=width)
    else:
        surface = cs.surface.PNGSurface(tree, None, 96, scale=scale)
    image = surface.cairo
    image.flush()
    from PIL import Image

    w, h = image.get_width(), image.get_height()
    # Cairo's ARGB32 is premultiplied BGRA in memory: Pillow's "RGBa" is premultiplied RGBA.
    pic = Image.frombuffer("RGBa", (w, h), bytes(image.get_data()), "raw", "BGRa", image.get_stride(), 1)
    return pic.convert("RGBA")


PREVIEW_SIZE = (1200, 630)
"""A link preview's picture: the 1.91:1 that Open Graph readers (Discord, Slack, mail programs) show whole."""
_SVG_BOX = re.compile(r'<svg\b[^>]*?viewBox="[-\d.]+ [-\d.]+ ([\d.]+) ([\d.]+)"')


def preview_png(svg: str, size: tuple[int, int] = PREVIEW_SIZE) -> bytes:
    """The map as a link's preview: the whole board fitted into ``size`` (Open Graph's 1200x630), centred on
    the colour of the map's own paper, so a portrait board (W3K) shows whole rather than cropped."""
    m = _SVG_BOX.search(svg)
    w, h = (float(m.group(1)), float(m.group(2))) if m else (float(size[0]), float(size[1]))
    scale = min(size[0] / w, size[1] / h) if w > 0 and h > 0 else 1.0
    from PIL import Image

    pic = Image.open(io.BytesIO(svg_to_png(svg, width=max(1, round(w * scale))))).convert("RGB")
    pic.thumbnail(size)  # a drawing a pixel too tall for the box after rounding
    canvas = Image.new("RGB", size, pic.getpixel((0, 0)))
    canvas.paste(pic, ((size[0] - pic.width) // 2, (size[1] - pic.height) // 2))
    out = io.BytesIO()
    canvas.save(out, format="PNG", optimize=True)
    return out.getvalue()


def svg_to_pdf(svg: str) -> bytes:
    """The SVG as a one-page PDF of its own size."""
    cs = _cairosvg()
    return bytes(cs.svg2pdf(bytestring=svg.encode("utf-8")))


def map_pdf(svg: str, title: str | None = None, paper: str = "a4") -> bytes:
    """The map on one page of ``paper`` (a4, a3 or letter; portrait or landscape, whichever shows it
    larger), scaled to fit within margins, under ``title`` (default: the drawing's own ``<title>``)."""
    if title is None:
        m = re.search(r"<title>([^<]*)</title>", svg)
        title = unescape(m.group(1)) if m else ""
    return pdf_pages([map_page(svg, title, paper)])


def atlas_pdf(variant: Variant, svg: str, title: str, paper: str = "a4", lang: str = "en") -> bytes:
    """The map as an atlas on ``paper``: the overview with the sheets' outlines, then each regional sheet at
    a scale where names and units are readable (:mod:`dippouch.render.atlas`); one page for a small board.
    The atlas's own words (its pages' titles, the overview's note) in ``lang``, as the drawing's are."""
    return pdf_pages(atlas_layout(variant, svg, title, paper, lang), svg)


def pdf_pages(
    pages: Sequence[str | Window], drawing: str | None = None, *, drawings: Sequence[str | None] | None = None
) -> bytes:
    """Several SVG documents as one PDF, a page each (each page its own document's size); a
    :class:`~dippouch.render.atlas.Window` page shows ``drawing`` through its window, or, with ``drawings``
    (one a page), the drawing named for that page: a game book's sheets are windows onto a different map in
    every phase.

    cairosvg draws one document per surface; here every page is drawn onto one shared Cairo PDF surface,
    which is simpler and sturdier than joining finished PDF files (and needs no other library). The drawing
    behind the windows is drawn once, into a Cairo recording, and each window replays it cut to its box:
    drawing it for every page was nine tenths of the time of W3K's atlas."""
    if not pages:
        raise ValueError("a PDF needs at least one page")
    cs = _cairosvg()
    import cairocffi

    out = io.BytesIO()
    shared: list[Any] = []

    class _Page(cs.surface.PDFSurface):  # type: ignore[misc,name-defined]
        def _create_surface(self, width: float, height: float) -> tuple[Any, float, float]:
            if not shared:
                shared.append(cairocffi.PDFSurface(out, width, height))
            else:
                shared[0].set_size(width, height)  # pages may differ: portrait sheets, landscape text
            return shared[0], width, height

    if drawings is not None and len(drawings) != len(pages):
        raise ValueError("one drawing (or None) a page")
    # Every recording is kept until the PDF is finished: Cairo writes what a window showed only then, and a
    # recording freed before leaves its pages blank.
    recorded: list[tuple[str, Any]] = []
    for i, page in enumerate(pages):
        text = page if isinstance(page, str) else page.page
        surface = _Page(cs.parser.Tree(bytestring=text.encode("utf-8")), None, 96)
        if isinstance(page, Window):
            shown = drawings[i] if drawings is not None else drawing
            if shown is None:
                raise ValueError("a window page needs the drawing it shows")
            if not recorded or recorded[-1][0] is not shown:  # one recording while its pages follow each other
                recorded.append((shown, _recording(cs, cairocffi, shown)))
            _show(cairocffi.Context(shared[0]), recorded[-1][1], page)
        surface.context.show_page()
    shared[0].finish()
    return out.getvalue()


_PT_PER_MM = 1 / MM_PER_PT  # cairo draws PDF pages in points


def _recording(cs: Any, cairocffi: Any, svg: str) -> tuple[Any, Box, float]:
    """``svg`` drawn once into an unbounded Cairo recording: (the recording, the drawing's box, points per
    drawing unit in it)."""
    whole, box = whole_drawing(svg)

    class _Recording(cs.surface.PDFSurface):  # type: ignore[misc]
        def _create_surface(self, width: float, height: float) -> tuple[Any, float, float]:
            return cairocffi.RecordingSurface(cairocffi.CONTENT_COLOR_ALPHA, None), width, height

    surface = _Recording(cs.parser.Tree(bytestring=whole.encode("utf-8")), None, 96)
    return surface.cairo, box, surface.device_units_per_user_units


def _show(ctx: Any, recorded: tuple[Any, Box, float], window: Window) -> None:
    """The recording replayed in ``window``'s box on the page: its view fills the box in proportion,
    centred and cut to it (as an SVG viewport with ``xMidYMid meet`` and ``overflow: hidden``)."""
    rec, (dx, dy, _dw, _dh), pt_per_unit = recorded
    vx, vy, vw, vh = window.view
    ax, ay, aw, ah = window.at
    k = min(aw / vw, ah / vh)  # mm per drawing unit
    x0, y0 = ax + (aw - vw * k) / 2, ay + (ah - vh * k) / 2
    ctx.rectangle(ax * _PT_PER_MM, ay * _PT_PER_MM, aw * _PT_PER_MM, ah * _PT_PER_MM)
    ctx.clip()
    ctx.translate((x0 + (dx - vx) * k) * _PT_PER_MM, (y0 + (dy - vy) * k) * _PT_PER_MM)
    ctx.scale(k * _PT_PER_MM / pt_per_unit, k * _PT_PER_MM / pt_per_unit)
    ctx.set_source_surface(rec, 0, 0)
    ctx.paint()


def _page(width: float, height: float, body: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width / _PX_PER_MM:.2f}mm" height="{height / _PX_PER_MM:.2f}mm"'
        f' viewBox="0 0 {width:.1f} {height:.1f}" font-family="DejaVu Sans, Verdana, sans-serif">'
        f'<rect x="0" y="0" width="{width:.1f}" height="{height:.1f}" fill="#ffffff"/>{body}</svg>'
    )


def _wrap(lines: Sequence[str], width: int) -> list[str]:
    out: list[str] = []
    for line in lines:
        line = line.rstrip().expandtabs(4)
        while len(line) > width:
            cut = line.rfind(" ", 0, width)
            if cut <= width // 3:
                cut = width
            out.append(line[:cut])
            line = "    " + line[cut:].lstrip()
        out.append(line)
    return out


def results_pdf(
    map_svg: str | None, title: str, text: str, *, paper: str = "a4", variant: Variant | None = None
) -> bytes:
    """A printable PDF: the map (with ``variant``, as its atlas: the overview and the regional sheets; else
    the map on one page), each page turned to fit it best, then the results text in two columns on
    landscape pages. ``map_svg`` None (a variant whose map was never built): the text alone.

    ``paper`` is ``a4``, ``a3`` or ``letter``."""
    page_size(paper)
    mm_w, mm_h = PAGE_SIZES[paper.lower()]
    if map_svg is None:
        maps: list[str | Window] = []
    elif variant is not None:
        maps = atlas_layout(variant, map_svg, title, paper)
    else:
        maps = [map_page(map_svg, title, paper)]
    pw, ph = mm_w * _PX_PER_MM, mm_h * _PX_PER_MM
    margin = 12 * _PX_PER_MM
    gap = 8 * _PX_PER_MM
    top = margin + 22
    fs = 9.5
    line_h = fs * 1.3
    box_h = ph - margin - top
    col_w = (pw - 2 * margin - gap) / 2
    columns = [(margin, col_w), (margin + col_w + gap, col_w)]
    per_col = max(5, int(box_h / line_h))
    lines = _wrap(text.splitlines(), max(20, int(col_w / (fs * 0.602))))

    def column(x: float, chunk: Sequence[str]) -> str:
        return "".join(
            f'<text x="{x:.1f}" y="{top + row * line_h:.1f}" font-size="{fs}" font-family="DejaVu Sans Mono, monospace"'
            f' xml:space="preserve" fill="#000000">{escape(line)}</text>'
            for row, line in enumerate(chunk)
            if line.strip()
        )

    def heading(words: str) -> str:
        return (
            f'<text x="{margin:.1f}" y="{margin + 6:.1f}" font-size="14" font-weight="bold" fill="#000000">'
            f"{escape(words)}</text>"
        )

    pages = list(maps)
    while lines:
        body = heading(f"{title}: results")
        for x, _w in columns:
            body += column(x, lines[:per_col])
            lines = lines[per_col:]
        pages.append(_page(pw, ph, body))
    return pdf_pages(pages, map_svg)


def phase_map_file(variant: Variant, record: dict[str, Any], fmt: str) -> tuple[str, str, bytes]:
    """The map of a processed phase (its record, as the store keeps it) for a mail attachment: (file name,
    content type, bytes).

    The picture shows the phase's orders and results on the position it was played from (builds drawn as
    the new units, removals crossed out), which is the updated board a Winter's results promise. A PDF is
    the printable atlas on A4 (:func:`atlas_pdf`): the Coordinator prints and posts it."""
    from dippouch.render.svg import render_phase_svg

    fmt = fmt.lower()
    if fmt not in ("pdf", "png"):
        raise ValueError(f"unknown map format {fmt!r}; use pdf or png")
    svg = render_phase_svg(variant, record, orders=True)
    stem = re.sub(r"[^A-Za-z0-9]+", "-", f"{record['game']} {record['name']}").strip("-").lower() or "map"
    if fmt == "pdf":
        title = f"{record['game']}: {record['name']}"
        return f"{stem}.pdf", "application/pdf", atlas_pdf(variant, svg, title)
    return f"{stem}.png", "image/png", svg_to_png(svg, width=1600)
