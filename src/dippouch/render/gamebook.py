"""A game book: one PDF of a game's line of play, for reading and printing once the game is over (or as it
stands): a title page with the contents, then for every phase its map with the orders and results drawn
(a big board as its atlas: the overview and the regional sheets where names are readable), and its results in
the Judge's words with the press written in that phase; last, the board the game ended on.

Made of what the printable results already use (:mod:`dippouch.render.output`, :mod:`dippouch.render.atlas`):
the same map pages and the same two-column text pages, on one Cairo PDF surface. What goes in the book (which
phases, which press) is the caller's question; here it is only laid out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from xml.sax.saxutils import escape

from dippouch.render.atlas import Window, atlas_layout, map_page, page_size
from dippouch.render.output import _PX_PER_MM, PAGE_SIZES, _page, _wrap, pdf_pages

if TYPE_CHECKING:
    from dippouch.core.variant import Variant

__all__ = ["BookPhase", "BookPress", "book_pdf"]


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
    results as the Judge reports them, and the press written while it was open."""

    name: str
    svg: str | None
    results: str
    press: Sequence[BookPress] = field(default_factory=tuple)


_FS = 9.5
_LINE = _FS * 1.3


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


def _press_lines(press: Sequence[BookPress]) -> list[str]:
    out: list[str] = []
    for m in press:
        out.append(f"{m.sender} to {m.to}" + (f" ({m.when})" if m.when else "") + ":")
        out.extend("  " + line for line in (m.text.splitlines() or [""]))
        out.append("")
    return out


def _map_pages(variant: Variant | None, svg: str, title: str, paper: str) -> list[str | Window]:
    return atlas_layout(variant, svg, title, paper) if variant is not None else [map_page(svg, title, paper)]


def book_pdf(
    title: str,
    about: Sequence[str],
    phases: Sequence[BookPhase],
    *,
    final: tuple[str, str | None] | None = None,
    after_end: Sequence[BookPress] = (),
    variant: Variant | None = None,
    paper: str = "a4",
) -> bytes:
    """The game book as one PDF: a title page (``title``, the lines of ``about``, the contents with page
    numbers), then for each phase its map pages (with ``variant``, its atlas) and its text pages (the results,
    then "Press" and the phase's letters), then ``final`` (a caption and the board's SVG) and the press written
    after the end (``after_end``).

    So a phase on a board that reads whole on one page, with results and press that fit one page, takes two
    pages: a book of N such phases and a final board has 2N + 2 pages."""
    page_size(paper)
    parts: list[tuple[str, list[tuple[str | Window, str | None]]]] = []
    for ph in phases:
        pages: list[tuple[str | Window, str | None]] = []
        if ph.svg is not None:
            pages += [(p, ph.svg) for p in _map_pages(variant, ph.svg, f"{title}: {ph.name}", paper)]
        lines = ph.results.splitlines()
        if ph.press:
            lines += ["", "Press", "-----", "", *_press_lines(ph.press)]
        pages += [(p, None) for p in _text_pages(f"{title}: {ph.name}: results", lines, paper)]
        parts.append((ph.name, pages))
    caption, board = final if final is not None else ("", None)
    if board is not None:
        parts.append((caption, [(p, board) for p in _map_pages(variant, board, f"{title}: {caption}", paper)]))
    if after_end:
        parts.append(
            ("Press after the end", [(p, None) for p in _text_pages(f"{title}: press", _press_lines(after_end), paper)])
        )
    contents: list[str] = []
    at = 2
    for name, pages in parts:
        contents.append(f"{name:<52} {at:>4}")
        at += len(pages)
    cover = _text_pages(title, [*about, "", "Contents", "--------", "", *contents], paper)
    if len(cover) > 1:  # a long game's contents run on: the page numbers move with them
        contents = [line[:-4] + f"{int(line[-4:]) + len(cover) - 1:>4}" for line in contents]
        cover = _text_pages(title, [*about, "", "Contents", "--------", "", *contents], paper)
    return _pdf([*((p, None) for p in cover), *(p for _, pages in parts for p in pages)])


def _pdf(pages: Sequence[tuple[str | Window, str | None]]) -> bytes:
    """The book's pages as one PDF, each window page showing the drawing named beside it."""
    return pdf_pages([page for page, _ in pages], drawings=[drawing for _, drawing in pages])
