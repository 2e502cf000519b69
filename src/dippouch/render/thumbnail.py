"""A variant's map as a small picture for a list of variants (the new-game page): the opening position with
neither names, heading nor legend, fitted into one fixed box on the map's own paper colour.

Names at this size are specks and a legend would take more room than the board, so the picture shows what
tells one variant from another at a glance: the board's shape, its powers' colours and where their units
start. Every picture has the same size whatever the board's proportions (W3K is tall, Hundred wide), so the
page reserves the room before the picture arrives and the list does not jump as they load.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from dippouch.render.output import preview_png
from dippouch.render.svg import RenderOptions, render_svg

if TYPE_CHECKING:
    from dippouch.core.variant import Variant
    from dippouch.render.geometry import Geometry

__all__ = ["THUMBNAIL_SIZE", "THUMBNAIL_VERSION", "thumbnail_png", "thumbnail_svg"]

THUMBNAIL_SIZE = (240, 180)
"""Pixels drawn: shown at half that on a page, so a phone's screen of two pixels a point draws it sharp."""

THUMBNAIL_VERSION = "1"
"""Changes when the drawing here changes, so pictures kept from before are made again."""


def thumbnail_svg(variant: Variant, *, geometry: Geometry | None = None) -> str:
    """The opening position without names, heading or legend. Raises FileNotFoundError when the variant has
    no built geometry."""
    options = RenderOptions(header=False, legend=False, labels=False, coasts=False)
    return render_svg(variant, variant.start, options=options, geometry=geometry)


def thumbnail_png(variant: Variant, *, geometry: Geometry | None = None) -> bytes:
    """:func:`thumbnail_svg` fitted into :data:`THUMBNAIL_SIZE` and stored with a palette: a map of flat colours
    loses nothing to 256 of them, and the file is a third of the size."""
    from PIL import Image

    png = preview_png(thumbnail_svg(variant, geometry=geometry), THUMBNAIL_SIZE)
    pic = Image.open(io.BytesIO(png)).convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    out = io.BytesIO()
    pic.save(out, format="PNG", optimize=True)
    return out.getvalue()
