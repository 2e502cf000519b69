"""Maps: a position, with its orders and results, drawn as SVG (PNG and PDF beside it).

Drawing is a pure function of the variant, its built geometry and a position, in the manner of
``chess.svg``: no I/O, no database, so the web pages, the mail and the command line all draw the same picture.

- :func:`render_svg` draws a position with orders (canonical texts per power) or stored results;
  :func:`render_phase_svg` draws a stored phase (``dippouch.store.history.phase_record``), or the position it led to.
- :func:`draft_order_svg` draws one order as it is typed, before it is sent (the player's page).
- :func:`dippouch.render.board.board_svg` makes the board's file: the parts no phase changes, which a picture
  drawn with ``RenderOptions.board`` uses by reference (the player's page, which the browser then keeps).
- :class:`RenderOptions` says how: heading, names or abbreviations, legend, sizes.
- :func:`svg_to_png`, :func:`svg_to_pdf` and :func:`results_pdf` (map page plus the results text) convert
  with cairosvg, imported only when called.
- :func:`map_pdf` puts a map on one page of a standard paper size; :func:`atlas_pdf` prints a big board as
  an overview plus regional sheets where names and units are readable (:mod:`dippouch.render.atlas`).
- :func:`phase_map_file` is the mail's attachment of a processed phase.

The shapes come from :mod:`dippouch.render.geometry` (built by ``dippouch mapgen``).
"""

from __future__ import annotations

from dippouch.render.output import (
    atlas_pdf,
    map_pdf,
    pdf_pages,
    phase_map_file,
    preview_png,
    results_pdf,
    svg_to_pdf,
    svg_to_png,
)
from dippouch.render.svg import RenderOptions, draft_order_svg, draw_svg, render_phase_svg, render_svg

__all__ = [
    "RenderOptions",
    "atlas_pdf",
    "draft_order_svg",
    "draw_svg",
    "map_pdf",
    "pdf_pages",
    "phase_map_file",
    "preview_png",
    "render_phase_svg",
    "render_svg",
    "results_pdf",
    "svg_to_pdf",
    "svg_to_png",
]
