"""A map drawn about some of its places: the move browser's territory and every place it goes.

The move browser drew the whole opening map (heading and legend included) and its viewer then showed the
territory's neighbourhood, framed about the places' box: near the board's edge the view ran past the picture,
so a tall board (1000 AD) stood in part of its frame beside empty space, its legend cut at the view's edge
("Polotjans and Dregov"), and the standard map's St Petersburg showed a strip of the heading above the board
("...nt" of "Movement"). Here the picture is the board alone (no heading, no legend), and its ``viewBox`` is the
places' box with a margin, shaped like the page's frame and moved (or cut) to lie inside the board: the viewer
treats the ``viewBox`` as the whole picture, fits its frame to it, and a view at least that large is the box
itself, so the frame is filled with the board and nothing else.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace

from dippouch.core.position import Position
from dippouch.core.variant import Variant
from dippouch.render.geometry import load_geometry, path_rings
from dippouch.render.svg import FRAME_ASPECT, RenderOptions, render_svg

__all__ = ["MARGIN", "places_box", "places_svg"]

Box = tuple[float, float, float, float]

MARGIN = 0.08
"""The room round the places' box, in parts of its longer side: less than the viewer's own (app.js's
``mapShow``, 0.15), so the view it makes about the places covers the box, and is the box."""
LEAST = 0.25
"""The box is at least this part of the board's width (and as tall, by :data:`FRAME_ASPECT`): a castle and its
two neighbours are not drawn with names an inch high."""


def places_box(variant: Variant, places: Iterable[str], *, aspect: float = FRAME_ASPECT) -> Box | None:
    """``(x, y, width, height)`` in picture units: the box round the places' shapes (abbreviations; a coast counts
    as its province) with a :data:`MARGIN`, at least :data:`LEAST` of the board wide, widened or heightened
    towards ``aspect`` (width over height), about the same middle, as far as the board reaches on each side.
    None when none of the places is drawn (FileNotFoundError without a built map).

    Its middle is the places' own, as the viewer's view about the places has it: were the box moved to stay on
    the board, the viewer's view, about the places, would run off the board by as much."""
    geo = load_geometry(variant)
    pts = [
        pt
        for p in places
        if (shape := geo.provinces.get(p.split("/")[0])) is not None
        for ring in path_rings(shape.d)
        for pt in ring
    ]
    if not pts:
        return None
    x0, y0 = min(p[0] for p in pts), min(p[1] for p in pts)
    x1, y1 = max(p[0] for p in pts), max(p[1] for p in pts)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    pad = MARGIN * max(x1 - x0, y1 - y0)
    hw = max((x1 - x0) / 2 + pad, geo.width * LEAST / 2)
    hh = max((y1 - y0) / 2 + pad, hw / aspect)
    hw = max(hw, hh * aspect)
    # As far as the board reaches on each side of the middle (the places' shapes lie on the board, so the box
    # still holds them).
    hw = min(hw, cx, geo.width - cx)
    hh = min(hh, cy, geo.height - cy)
    return (round(cx - hw, 2), round(cy - hh, 2), round(2 * hw, 2), round(2 * hh, 2))


def places_svg(
    variant: Variant, position: Position, places: Iterable[str], options: RenderOptions | None = None
) -> str:
    """The board alone (``options`` with no heading and no legend) with its ``viewBox`` on the places
    (:func:`places_box`); the whole board where none is drawn."""
    svg = render_svg(variant, position, options=replace(options or RenderOptions(), header=False, legend=False))
    box = places_box(variant, places)
    if box is None:
        return svg
    x, y, w, h = (f"{v:g}" for v in box)
    head, sep, rest = svg.partition(">")
    head = _ROOT.sub(f'viewBox="{x} {y} {w} {h}" width="{w}" height="{h}"', head, count=1)
    return head + sep + rest


_ROOT = re.compile(r'viewBox="[^"]*" width="[^"]*" height="[^"]*"')
