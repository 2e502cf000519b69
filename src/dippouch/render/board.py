"""The board's fixed parts as a file of their own, for pictures that draw them by reference.

What no phase changes (the provinces' shapes, the names and their leaders, the coasts' marks, the supply
centres' markers, the land and sea off the board) is most of a picture: W3K's whole opening picture is 91 KB
compressed, and 14 KB drawn by reference to this file. A picture drawn with :attr:`RenderOptions.board` naming
this file's address draws each of those parts as a ``<use>`` of its element here, with the phase's own
attributes on the ``<use>`` (a province's colour by its owner, its id and name for the page's script), so a page
showing phase after phase of one board sends the board once and the browser keeps it. The ``<use>`` elements
are drawn by the browser itself: the picture needs no script, and it looks as the whole picture does (the same
layers in the same order).

Every element here is in ``<defs>``: the file is a sheet of parts, not a picture. Its ids: ``r-ABBR`` a
province's shape (no colour of its own: a ``<use>`` gives it, and the page's highlights recolour it),
``t-ABBR`` a name's text (no colour: used once in the white halo's layer and once in the name's ink),
``leader-ABBR`` a name's leader line, and ``offboard``, ``extra`` (sea areas, connectors), ``coasts`` and
``centres``.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from dippouch.core.variant import Variant
from dippouch.render.geometry import Geometry, load_geometry
from dippouch.render.svg import (
    FONT,
    RenderOptions,
    _f,
    _label_parts,
    _leader_marks,
    _static,
)

__all__ = ["board_svg"]


def board_svg(variant: Variant, options: RenderOptions | None = None, *, geometry: Geometry | None = None) -> str:
    """The board's fixed parts as an SVG file of parts (module docstring), made with the same ``options`` as the
    pictures that use it (names, sizes: they place the names). Raises FileNotFoundError when the variant has no
    built geometry."""
    geo = geometry if geometry is not None else load_geometry(variant)
    st = _static(variant, geo, options or RenderOptions())
    r = st.r
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_f(geo.width)} {_f(geo.height)}"'
        f' width="{_f(geo.width)}" height="{_f(geo.height)}" font-family="{FONT}"><defs>'
    ]
    if st.offboard_svg:
        parts.append(f'<g id="offboard">{st.offboard_svg}</g>')
    parts.extend(f'<path id="r-{escape(abbr)}" d="{shape.d}"/>' for abbr, shape in geo.provinces.items())
    if st.extra_svg:
        parts.append(f'<g id="extra">{st.extra_svg}</g>')
    if st.coast_svg:
        parts.append(f'<g id="coasts">{st.coast_svg}</g>')
    parts.append(f'<g id="centres">{st.centres_svg}</g>')
    for lab in sorted(st.labels, key=lambda lab: lab.abbr):
        attrs, fill, leader = _label_parts(geo, lab, r)
        a = escape(lab.abbr)
        parts.append(f'<text id="t-{a}" {attrs}>{escape(lab.text)}</text>')
        if leader is not None:
            parts.append(f'<g id="leader-{a}">{_leader_marks(lab, leader, fill, r, "", "")}</g>')
    parts.append("</defs></svg>")
    return "".join(parts)
