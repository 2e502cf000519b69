"""A game book: one PDF of a game's line of play, for reading and printing once the game is over (or as it
stands): a title page with the contents, then for every phase its map with the orders and results drawn
(a big board as its atlas: the overview and the regional sheets where names are readable), and its results in
the Judge's words with the press written in that phase; last, the board the game ended on.

Made of what the printable results already use (:mod:`dippouch.render.output`, :mod:`dippouch.render.atlas`):
the same map pages and the same two-column text pages. What goes in the book (which phases, which press) is
the caller's question; here it is only laid out, and written.

Written phase by phase, so making a book holds one phase whatever the game's length: each phase's pages are
a PDF of their own, finished and copied into the book (:class:`~dippouch.render.pdfjoin.PdfJoin`) before the
next phase's map is drawn; the title page, whose contents need every phase's page count, is made last and
put first. (On one Cairo surface a 40-year W3K book held every phase's drawing to the end: 1.1 GB.)

What the pages repeat is written once:

- a phase's map is drawn once, in layers (the board's parts: regions, seas, names, orders, units...), and its
  overview and every sheet show those layers through their windows; the overview's own drawing differs from
  the sheets' only in the names too small to print on it, so only those layers are drawn again for it;
- a layer that is the same in every phase (the seas, the coasts, the names) is the same PDF object in every
  phase's part, and the copy writes it once; for the names to be the same object their fonts must be, so
  each part first draws every character a page may use in each of the pages' faces, on a page left out of the
  book: every part then embeds the same font subsets (:data:`PRIMED`).
"""

from __future__ import annotations

import functools
import io
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, BinaryIO
from xml.sax.saxutils import escape

from dippouch.i18n import translations
from dippouch.render.atlas import (
    Box,
    Window,
    overview,
    overview_title,
    page_size,
    sheet_title,
    sheet_window,
    sheets_for,
    titled,
    whole_drawing,
)
from dippouch.render.output import _PX_PER_MM, PAGE_SIZES, _cairosvg, _page, _wrap
from dippouch.render.pdfjoin import PdfJoin

if TYPE_CHECKING:
    from dippouch.core.variant import Variant

__all__ = ["PRIMED", "BookPhase", "BookPress", "book_pdf", "write_book"]

I18N_DOMAIN = "games"
"""The catalogue of the book's own words (its headings and pages' titles), said in the book's language."""


@dataclass(frozen=True)
class BookPress:
    """One letter as the book prints it: who wrote it, to whom (``all`` for the public channel), and when."""

    sender: str
    to: str
    text: str
    when: str = ""


@dataclass(frozen=True)
class BookPhase:
    """One phase of the book: its name, its map with orders and results (None: no map can be drawn), its
    results as the Judge reports them, and the press written while it was open.

    The map and the results may be given as what makes them, called when the phase's turn comes: a long
    game's maps are then never all held at once."""

    name: str
    svg: str | Callable[[], str | None] | None
    results: str | Callable[[], str]
    press: Sequence[BookPress] = field(default_factory=tuple)


_PT_PER_MM = 72 / 25.4
"""Cairo draws PDF pages in points; the pages are laid out in millimetres."""
_PT_PER_PX = 0.75
"""cairosvg's pages are 96 px to the inch, Cairo's PDF surfaces 72 points."""

_FS = 9.5
_LINE = _FS * 1.3

PRIMED: tuple[tuple[str, str, str], ...] = (
    ("DejaVu Sans", "normal", "normal"),
    ("DejaVu Sans", "bold", "normal"),
    ("DejaVu Sans", "normal", "italic"),
    ("DejaVu Sans", "bold", "italic"),
    ("DejaVu Sans Mono", "normal", "normal"),
)
"""The faces (family, weight, style) the pages are drawn in (the maps' and titles' first family, the text
pages' monospaced one), each drawn with every character of Windows-1252 on the page each part starts with
and the book leaves out. Cairo embeds a face's characters of that set as one subset, the code its place, so
every part's subset of each face is then the same, and so are the layers drawn with it (see the module)."""

_PRIMER_TEXT = "".join(
    c for c in bytes(range(0x21, 0x100)).decode("cp1252", errors="ignore") if c.isprintable() and not c.isspace()
)


def _primer(width: float, height: float) -> str:
    """The page each part starts with and the book leaves out (:data:`PRIMED`), ``width`` x ``height`` px."""
    lines = "".join(
        f'<text x="10" y="{20 + 12 * i}" font-size="4" font-family="{family}" font-weight="{weight}"'
        f' font-style="{style}" xml:space="preserve" fill="#000000">{escape(_PRIMER_TEXT)}</text>'
        for i, (family, weight, style) in enumerate(PRIMED)
    )
    return _page(width, height, lines)


def _text_pages(title: str, lines: Sequence[str], paper: str) -> list[str]:
    """``lines`` in two monospaced columns on landscape pages under ``title`` (the results PDF's layout), at
    least one page even for no lines."""
    mm_w, mm_h = PAGE_SIZES[paper.lower()]
    pw, ph = mm_w * _PX_PER_MM, mm_h * _PX_PER_MM
    margin = 12 * _PX_PER_MM
    gap = 8 * _PX_PER_MM
    top = margin + 22
    col_w = (pw - 2 * margin - gap) / 2
    per_col = max(5, int((ph - margin - top) / _LINE))
    rest = _wrap(lines, max(20, int(col_w / (_FS * 0.602))))
    pages: list[str] = []
    while rest or not pages:
        body = (
            f'<text x="{margin:.1f}" y="{margin + 6:.1f}" font-size="14" font-weight="bold" fill="#000000">'
            f"{escape(title)}</text>"
        )
        for x in (margin, margin + col_w + gap):
            chunk, rest = rest[:per_col], rest[per_col:]
            body += "".join(
                f'<text x="{x:.1f}" y="{top + row * _LINE:.1f}" font-size="{_FS}"'
                f' font-family="DejaVu Sans Mono, monospace" xml:space="preserve" fill="#000000">{escape(line)}</text>'
                for row, line in enumerate(chunk)
                if line.strip()
            )
        pages.append(_page(pw, ph, body))
    return pages


def _press_lines(press: Sequence[BookPress], lang: str = "en") -> list[str]:
    out: list[str] = []
    words = translations(lang)
    for m in press:
        heading = str(words.pgettext("game book", "%(sender)s to %(to)s")) % {"sender": m.sender, "to": m.to}
        # The colon that opens the letter as the language sets it (French: a space before it).
        if m.when:
            said = str(words.pgettext("game book", "%(letter)s (%(when)s):")) % {"letter": heading, "when": m.when}
        else:
            said = str(words.pgettext("game book", "%(letter)s:")) % {"letter": heading}
        out.append(said)
        out.extend("  " + line for line in (m.text.splitlines() or [""]))
        out.append("")
    return out


@dataclass(frozen=True)
class _MapPage:
    """A map page: the page (its title, any note) and the window on it that shows ``drawing``, with
    ``marks`` drawn over the drawing in its coordinates (the overview's sheet outlines)."""

    window: Window
    drawing: str
    marks: str = ""


def _map_pages(variant: Variant | None, svg: str, title: str, paper: str, lang: str = "en") -> list[_MapPage]:
    """The map's pages as :func:`dippouch.render.atlas.atlas_layout` lays them out (without a variant, the
    whole map on one page, as :func:`dippouch.render.atlas.map_page`), each a window onto the drawing; the
    atlas's own words in ``lang``."""
    sheets = sheets_for(variant, svg, paper) if variant is not None else []
    top = overview(svg, overview_title(title, sheets, lang), paper, sheets, lang)
    pages = [_MapPage(top.window, top.drawing, top.marks)]
    for i, sh in enumerate(sheets):
        pages.append(_MapPage(sheet_window(svg, sh, sheet_title(title, i, sh, lang), paper), svg))
    return pages


_TAG = re.compile(
    r"<!--.*?-->|<!\[CDATA\[.*?\]\]>|<\?.*?\?>"
    r"|<(/?)([A-Za-z][\w:.-]*)((?:\s+[^\s=/>]+\s*=\s*(?:\"[^\"]*\"|'[^']*'))*)\s*(/?)>",
    re.S,
)
_BY_REFERENCE = re.compile(
    r"<(?:defs|style|use|symbol|clipPath|mask|pattern|linearGradient|radialGradient|filter|marker)\b|url\(#|href="
)
_GROUP_EFFECTS = re.compile(r"\b(?:opacity|filter|mask|clip-path|style|mix-blend-mode|isolation)\s*=")


def _elements(body: str) -> list[tuple[int, int, str, str, int, int]] | None:
    """The elements at the top of ``body``: (start, end, tag, attributes, where their content starts and
    ends); None where anything but elements, blanks and comments is there, or the tags do not balance."""
    out: list[tuple[int, int, str, str, int, int]] = []
    depth, start, inner, last = 0, 0, 0, 0
    name, attrs = "", ""
    for m in _TAG.finditer(body):
        if m.group(2) is None:  # a comment, CDATA or instruction: between elements, as a blank is
            if depth == 0:
                if body[last : m.start()].strip():
                    return None
                last = m.end()
            continue
        if depth == 0 and body[last : m.start()].strip():
            return None
        closing, tag, self_closing = m.group(1), m.group(2), m.group(4)
        if closing:
            depth -= 1
            if depth < 0:
                return None
            if depth == 0:
                out.append((start, m.end(), name, attrs, inner, m.start()))
                last = m.end()
        elif self_closing:
            if depth == 0:
                out.append((m.start(), m.end(), tag, m.group(3), m.end(), m.end()))
                last = m.end()
        else:
            if depth == 0:
                start, inner, name, attrs = m.start(), m.end(), tag, m.group(3)
            depth += 1
    return out if depth == 0 and not body[last:].strip() else None


_VIEW_BOX = re.compile(r'viewBox="([-\d.]+) ([-\d.]+) ([\d.]+) ([\d.]+)"')


def _framed(root: str) -> str:
    """A drawing's root element framing a whole number of its widths in height: a layer the same in two
    phases whose drawings differ in height (a longer legend) is then the same drawing, its box included.
    Only the frame grows, below the drawing; what is drawn stays where it was."""
    m = _VIEW_BOX.search(root)
    if m is None:
        return root
    w, h = float(m.group(3)), float(m.group(4))
    if w <= 0:
        return root
    high = w * math.ceil(h / w - 1e-9)
    return root[: m.start()] + f'viewBox="{m.group(1)} {m.group(2)} {m.group(3)} {high:g}"' + root[m.end() :]


def _layers(drawing: str) -> list[str]:
    """``drawing`` as drawings of its parts, each a document of the same frame, that drawn one over the
    other in order make it: each element of the drawing, and each part of its board (the largest group, if
    it holds most of the drawing). One layer where the drawing refers to parts of itself (a definition, a
    clip, a mask) or its board is a group drawn as one (an opacity, a filter): drawn apart, it would not
    look the same."""
    head_end = drawing.index(">", drawing.index("<svg")) + 1
    end = drawing.rindex("</svg>")
    root, body = _framed(drawing[:head_end]), drawing[head_end:end]
    top = _elements(body) if not _BY_REFERENCE.search(body) else None
    if not top:
        return [drawing]
    parts = [body[e[0] : e[1]] for e in top]
    board = max(top, key=lambda e: e[1] - e[0])
    if board[2] == "g" and not _GROUP_EFFECTS.search(board[3]) and board[1] - board[0] > len(body) / 2:
        inside = body[board[4] : board[5]]
        children = _elements(inside)
        if children:
            at = top.index(board)
            parts[at : at + 1] = [f"<g{board[3]}>{inside[c[0] : c[1]]}</g>" for c in children]
    return [root + part + "</svg>" for part in parts]


class _Target:
    """The PDF surface a part's pages are drawn on (made with the first page), and where it writes."""

    def __init__(self) -> None:
        self.out = io.BytesIO()
        self.surface: Any = None


@functools.cache
def _surfaces() -> tuple[type, type]:
    """cairosvg's PDF surface made to draw (a) a page onto a part's one surface (the :class:`_Target`
    handed to it as its output) and (b) a layer into a Cairo recording of the drawing's own size.

    Bounded, because Cairo 1.16 keeps what a PDF showed of an unbounded recording after both are gone
    (about 4 MB for a W3K map, every time): a bounded one it lets go. A bounded recording is written cut to
    its first showing (see :class:`_Part`), and boxed by its bounds (see :func:`_framed`)."""
    cs = _cairosvg()
    import cairocffi

    class OnPart(cs.surface.PDFSurface):  # type: ignore[misc,name-defined]
        def _create_surface(self, width: float, height: float) -> tuple[Any, float, float]:
            target: _Target = self.output
            if target.surface is None:
                target.surface = cairocffi.PDFSurface(target.out, width, height)
                # PDF 1.4: a classic cross-reference table, which the book's copy reads (Cairo 1.18 puts
                # the objects of a newer version in compressed object streams).
                target.surface.restrict_to_version(cairocffi.PDF_VERSION_1_4)
            else:
                target.surface.set_size(width, height)  # pages may differ: portrait sheets, landscape text
            return target.surface, width, height

    class Recorded(cs.surface.PDFSurface):  # type: ignore[misc,name-defined]
        def _create_surface(self, width: float, height: float) -> tuple[Any, float, float]:
            extents = (0, 0, width, height)
            return cairocffi.RecordingSurface(cairocffi.CONTENT_COLOR_ALPHA, extents), width, height

    return OnPart, Recorded


def _recorded(whole: str, box: Box) -> tuple[Any, Box, float]:
    """A layer as :func:`~dippouch.render.atlas.whole_drawing` made it (``whole``, its box ``box``) drawn once
    into a Cairo recording of its own size: (the recording, the drawing's box, points per drawing unit in it),
    as :func:`dippouch.render.output.pdf_pages` shows a window's drawing."""
    surface = _surfaces()[1](_cairosvg().parser.Tree(bytestring=whole.encode("utf-8")), None, 96)
    return surface.cairo, box, surface.device_units_per_user_units


class _Part:
    """One part of the book (a phase's pages) as a PDF of its own, on a Cairo surface of its own.

    Its first page, which the book leaves out, primes the fonts (:data:`PRIMED`) and shows every layer of
    the part's maps whole: Cairo writes a bounded recording once for all its pages, cut to what its first
    page showed of it, so a sheet's window must not be the first. Every recording is kept until the part
    is finished (Cairo writes them only then), and no longer."""

    def __init__(
        self, pages: Sequence[str | _MapPage], paper: str, before: Mapping[str, tuple[Any, Box, float]] | None = None
    ) -> None:
        import cairocffi

        self.cs = _cairosvg()
        self.cairo: Any = cairocffi
        self.pages = pages
        self.target = _Target()
        self.layers: dict[str, list[str]] = {}
        self.recorded: dict[str, tuple[Any, Box, float]] = {}
        self.drawings: dict[str, tuple[Any, Box, float]] = {}
        """The recordings by the drawing recorded (a layer's :func:`whole_drawing`: two layers that differ only
        in their frame's height are one drawing)."""
        for page in pages:
            if isinstance(page, _MapPage):
                for layer in self._layers_of(page):
                    if layer not in self.recorded:
                        whole, box = whole_drawing(layer)
                        # A layer the part before recorded (the names, the seas, the centres: most of a phase's
                        # map is the phase before's) is not drawn again: a recording is a source any surface can
                        # show.
                        got = self.drawings.get(whole) or (before.get(whole) if before is not None else None)
                        self.recorded[layer] = self.drawings[whole] = got or _recorded(whole, box)
        mm_w, mm_h = PAGE_SIZES[paper.lower()]
        bounds = [rec.get_extents() for rec, _, _ in self.recorded.values()]
        w = max([mm_w * _PX_PER_MM, *(b[2] / _PT_PER_PX for b in bounds)])
        h = max([mm_h * _PX_PER_MM, *(b[3] / _PT_PER_PX for b in bounds)])
        first = self._drawn(_primer(w, h))
        for rec, _, _ in self.recorded.values():
            context = self.cairo.Context(self.target.surface)
            context.set_source_surface(rec, 0, 0)
            context.paint()
        first.context.show_page()

    def _layers_of(self, page: _MapPage) -> list[str]:
        layers = self.layers.get(page.drawing)
        if layers is None:
            layers = self.layers[page.drawing] = _layers(page.drawing)
        if page.marks:
            frame = _framed(page.drawing[: page.drawing.index(">", page.drawing.index("<svg")) + 1])
            layers = [*layers, frame + page.marks + "</svg>"]
        return layers

    def _drawn(self, page: str) -> Any:
        return _surfaces()[0](self.cs.parser.Tree(bytestring=page.encode("utf-8")), self.target, 96)

    def pdf(self) -> bytes:
        """The part's pages after its first, as a finished PDF; its drawings are let go with it (but for those
        the caller keeps from :attr:`drawings` for the next part)."""
        for page in self.pages:
            drawn = self._drawn(page if isinstance(page, str) else page.window.page)
            if isinstance(page, _MapPage):
                shown = [self.recorded[layer] for layer in self._layers_of(page)]
                _through(
                    self.cairo.Context(self.target.surface), [r for r in shown if _in_view(r, page.window)], page.window
                )
            drawn.context.show_page()
        self.target.surface.finish()
        return self.target.out.getvalue()


def _through(ctx: Any, layers: Sequence[tuple[Any, Box, float]], window: Window) -> None:
    """The layers drawn one over the other, as one picture, through ``window`` (as
    :func:`dippouch.render.output._show` shows a drawing): cut to the window once, so its edge is drawn as
    the drawing's edge, not each layer's."""
    if not layers:
        return
    _, (dx, dy, _dw, _dh), pt_per_unit = layers[0]
    vx, vy, vw, vh = window.view
    ax, ay, aw, ah = window.at
    k = min(aw / vw, ah / vh)  # mm per drawing unit
    x0, y0 = ax + (aw - vw * k) / 2, ay + (ah - vh * k) / 2
    ctx.push_group()
    ctx.translate((x0 + (dx - vx) * k) * _PT_PER_MM, (y0 + (dy - vy) * k) * _PT_PER_MM)
    ctx.scale(k * _PT_PER_MM / pt_per_unit, k * _PT_PER_MM / pt_per_unit)
    for rec, _, _ in layers:
        ctx.set_source_surface(rec, 0, 0)
        ctx.paint()
    ctx.pop_group_to_source()
    ctx.identity_matrix()
    ctx.rectangle(ax * _PT_PER_MM, ay * _PT_PER_MM, aw * _PT_PER_MM, ah * _PT_PER_MM)
    ctx.clip()
    ctx.paint()


def _in_view(recorded: tuple[Any, Box, float], window: Window) -> bool:
    """Whether anything of a recorded layer shows in ``window``: one that does not (the heading on a sheet
    of the board's middle) is left off its page, where it would only be cut away."""
    rec, (dx, dy, _dw, _dh), pt_per_unit = recorded
    x, y, w, h = (float(v) for v in rec.ink_extents())
    if w <= 0 or h <= 0:
        return False
    vx, vy, vw, vh = window.view
    _ax, _ay, aw, ah = window.at
    k = min(aw / vw, ah / vh)
    spare_x, spare_y = (aw / k - vw) / 2, (ah / k - vh) / 2  # the window's view, widened to fill its box
    x0, y0 = dx + x / pt_per_unit, dy + y / pt_per_unit
    x1, y1 = x0 + w / pt_per_unit, y0 + h / pt_per_unit
    return x1 > vx - spare_x and x0 < vx + vw + spare_x and y1 > vy - spare_y and y0 < vy + vh + spare_y


def _part(pages: Sequence[str | _MapPage], paper: str, kept: dict[str, tuple[Any, Box, float]] | None = None) -> bytes:
    """``pages`` as a PDF of their own, after the page that primes it and the book leaves out (:class:`_Part`).
    ``kept``: the part before's recordings (:attr:`_Part.drawings`), replaced by this part's (so no more than two
    parts' are held)."""
    part = _Part(pages, paper, kept)
    made = part.pdf()
    if kept is not None:
        kept.clear()
        kept.update(part.drawings)
    return made


def _made(value: str | Callable[[], str | None] | None) -> str | None:
    return value() if callable(value) else value


def write_book(
    out: BinaryIO,
    title: str,
    about: Sequence[str],
    phases: Iterable[BookPhase],
    *,
    final: tuple[str, str | Callable[[], str | None] | None] | None = None,
    after_end: Sequence[BookPress] = (),
    variant: Variant | None = None,
    paper: str = "a4",
    lang: str = "en",
) -> int:
    """Writes the game book to ``out`` as one PDF, phase by phase; returns its page count. A title page
    (``title``, the lines of ``about``, the contents with page numbers), then for each phase its map pages
    (with ``variant``, its atlas) and its text pages (the results, then "Press" and the phase's letters), then
    ``final`` (a caption and the board's SVG) and the press written after the end (``after_end``). The book's
    own words (its headings, its pages' titles) in ``lang``; what it is given (the phases' names, their
    results, the about lines) it prints as given, said in that language by the caller.

    So a phase on a board that reads whole on one page, with results and press that fit one page, takes two
    pages: a book of N such phases and a final board has 2N + 2 pages."""
    page_size(paper)
    words = translations(lang)  # the book's own words, told apart from the site's by their context
    book = PdfJoin(out)
    contents: list[tuple[str, int]] = []  # each part's name and where it starts after the title pages
    at = 0
    kept: dict[str, tuple[Any, Box, float]] = {}  # the last part's recordings, for the next one

    def add(name: str, pages: Sequence[str | _MapPage]) -> None:
        nonlocal at
        contents.append((name, at))
        at += len(book.add(_part(pages, paper, kept), skip=1))

    for ph in phases:
        svg = _made(ph.svg)
        maps = _map_pages(variant, svg, titled(title, ph.name, lang), paper, lang) if svg is not None else []
        results = ph.results() if callable(ph.results) else ph.results
        lines = results.splitlines()
        if ph.press:
            lines += ["", *_heading(str(words.pgettext("game book", "Press"))), *_press_lines(ph.press, lang)]
        results_title = str(words.pgettext("game book", "%(title)s: %(phase)s: results")) % {
            "title": title,
            "phase": ph.name,
        }
        add(ph.name, [*maps, *_text_pages(results_title, lines, paper)])
        del svg, maps
    caption, board = final if final is not None else ("", None)
    drawn = _made(board)
    if drawn is not None:
        add(caption, _map_pages(variant, drawn, titled(title, caption, lang), paper, lang))
    del drawn
    if after_end:
        press_title = str(words.pgettext("game book", "%(title)s: press")) % {"title": title}
        add(
            str(words.pgettext("game book", "Press after the end")),
            _text_pages(press_title, _press_lines(after_end, lang), paper),
        )
    body = list(book.pages)

    def cover(first: int) -> list[str]:
        listed = [f"{name:<52} {first + start:>4}" for name, start in contents]
        return _text_pages(title, [*about, "", *_heading(str(words.pgettext("game book", "Contents"))), *listed], paper)

    pages = cover(2)
    if len(pages) > 1:  # a long game's contents run on: the page numbers move with them
        pages = cover(1 + len(pages))
    first = book.add(_part(pages, paper), skip=1)
    book.finish([*first, *body])
    return len(first) + len(body)


def book_pdf(
    title: str,
    about: Sequence[str],
    phases: Iterable[BookPhase],
    *,
    final: tuple[str, str | Callable[[], str | None] | None] | None = None,
    after_end: Sequence[BookPress] = (),
    variant: Variant | None = None,
    paper: str = "a4",
    lang: str = "en",
) -> bytes:
    """The game book (:func:`write_book`) as bytes."""
    out = io.BytesIO()
    write_book(out, title, about, phases, final=final, after_end=after_end, variant=variant, paper=paper, lang=lang)
    return out.getvalue()


def _heading(word: str) -> list[str]:
    """A heading of the text pages, underlined to its length, and the blank line under it."""
    return [word, "-" * len(word), ""]
