"""The board picture on the web pages: one small module between the pages and the map renderer.

The renderer (:mod:`dippouch.render`) draws a position, or a stored phase with its orders
and results, as SVG. Where a variant has no geometry built (a user variant never run through `dippouch
mapgen`) or a stale one, these functions answer ``None`` and the pages show a plain "map not yet available" panel and the board in words; nothing
else in the web app knows how maps are drawn. Pictures are cached: a processed phase never changes, and
an open phase is drawn from its position only (orders stay sealed until processing), so a key naming the
game, the phase and the view always means the same picture.

Click entry (``static/app.js``) finds provinces and units by the renderer's element ids: ``r-ABBR`` for a
province's shape, ``unit-ABBR`` / ``dislodged-ABBR`` for units, ``label-ABBR`` for names.

A page that carries its picture inline (the player's page, on every visit) draws the board's fixed parts by
reference to the board's file (:func:`board_file`, :mod:`dippouch.render.board`), whose address names its
content's hash: the browser keeps it a year and each visit sends only what the phase changes.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any, cast
from xml.sax.saxutils import unescape

from cachetools import LRUCache

from dippouch.core.errors import DippouchError
from dippouch.core.messages import msg
from dippouch.core.position import Position
from dippouch.core.variant import Variant
from dippouch.web.http.encoded import compressed, keep_within

__all__ = [
    "NO_MAP",
    "MapCache",
    "board_file",
    "draft_svg",
    "map_available",
    "opening_svg",
    "pdf_of",
    "phase_drawing",
    "preview_of",
    "variant_board",
]

log = logging.getLogger("dippouch.web.views.maps")

I18N_DOMAIN = "site"
"""The catalogue of the refusal said here (the JSON API gives its English, a page its reader's words)."""

NO_MAP = msg("no map can be drawn for this game yet (the map renderer or this variant's geometry is missing)")
"""The refusal of a map, a board file or a picture that cannot be drawn (said in the reader's language where it is
shown, as every refusal is)."""

_DRAWING = threading.Lock()
"""One drawing at a time: drawing is pure Python (the GIL lets no two run at once anyway), and a server
that starts under load would otherwise have every thread draw the same first map, and each make the
renderer's map-wide parts (a third of a second) for itself, at once."""

#: The keys of a stored phase record the renderer reads; submissions are never passed (they are sealed).
_RECORD_KEYS = ("game", "name", "status", "position", "next_position", "orders", "results", "seen", "seen_after")

_OPENING = "dippouch.web.views.maps.opening"
"""The name under which a variant keeps its opening picture (:attr:`Variant.derived`)."""

_BOARD = "dippouch.web.views.maps.board"
"""The name under which a variant keeps its board's file and that file's hash (:func:`board_file`)."""


def map_available(variant: Variant) -> bool:
    """Whether a map of ``variant`` can be drawn: its geometry has been built and is of this format."""
    from dippouch.render.geometry import load_geometry

    try:
        load_geometry(variant)
    except (FileNotFoundError, ValueError):
        return False
    return True


def _draw(draw: Callable[[], str | None]) -> str | None:
    try:
        return draw()
    except ImportError as e:  # the renderer, or one of its libraries, is not installed
        log.info("no map: %s", e)
    except FileNotFoundError as e:  # no geometry built for this variant yet
        log.info("no map: %s", e)
    except ValueError as e:  # a geometry file of another format or version: rebuild it (dippouch mapgen)
        log.warning("no map: %s", e)
    return None


def _drawn(
    record: Mapping[str, Any], orders: bool, draft: Mapping[str, list[str]] | None = None
) -> tuple[dict[str, Any], bool]:
    """The record as the renderer gets it (never its submissions) and whether orders are drawn on it."""
    rec = {k: record.get(k) for k in _RECORD_KEYS}
    if draft:
        rec["orders"], rec["results"] = dict(draft), None
        return rec, True
    return rec, orders and rec.get("status") != "open" and bool(rec.get("results") or rec.get("orders"))


def _phase_drawing(
    variant: Variant, rec: Mapping[str, Any], after: bool, show: bool, board: str | None, lang: str = "en"
) -> str:
    from dippouch.render import RenderOptions, render_phase_svg

    options = RenderOptions(board=board, lang=lang)
    return str(render_phase_svg(variant, rec, after=after, orders=show, options=options))


def phase_drawing(
    variant: Variant, record: Mapping[str, Any], *, after: bool = False, orders: bool = True, lang: str = "en"
) -> str | None:
    """:meth:`MapCache.phase_svg`'s picture, drawn here and not kept: for a drawing made in the work pool's
    processes (a replay's frames, a game book's maps: :mod:`dippouch.web.http.jobs`); its words (the heading,
    the legend) in ``lang``."""
    rec, show = _drawn(record, orders)
    return _draw(lambda: _phase_drawing(variant, rec, after, show, None, lang))


def pdf_of(svg: str, variant: Variant | None = None, lang: str = "en") -> bytes | None:
    """:meth:`MapCache.phase_pdf`'s PDF, made here and not kept (for the work pool's processes); an atlas's own
    words in ``lang``, the drawing's."""
    try:
        from dippouch.render import atlas_pdf, map_pdf
    except ImportError:
        return None
    if variant is not None:
        m = re.search(r"<title>([^<]*)</title>", svg)
        return bytes(atlas_pdf(variant, svg, unescape(m.group(1)) if m else variant.title, lang=lang))
    return bytes(map_pdf(svg))


def preview_of(svg: str) -> bytes | None:
    """:meth:`MapCache.preview`'s picture, made here and not kept (for the work pool's processes)."""
    try:
        from dippouch.render import preview_png

        return bytes(preview_png(svg))
    except ImportError:
        return None


def draft_svg(variant: Variant, position: Position, power: str, order: str) -> str | None:
    """One accepted line of the order box as the map draws it while it is typed, before it is sent
    (:func:`dippouch.render.draft_order_svg`); the page's script only places it on the map. ``None`` where
    the variant has no drawn map."""

    def draw() -> str | None:
        from dippouch.render import draft_order_svg

        return draft_order_svg(variant, position, power, order)

    return _draw(draw)


class MapCache:
    """The pictures of one game database's phases, and their PDFs, kept by the web app that reads it.

    A key names a game, one of its phases and the view, which always means the same picture in that
    database: a processed phase never changes, and an open phase is drawn from its position only (orders stay
    sealed until processing). Kept with the app (not in the module): another database in the same process has
    its own game of the same name and phase of the same id, and dropping the app frees its pictures.
    """

    SIZE = 256
    """Pictures kept (the least recently used go first)."""

    PDF_BYTES = 64_000_000
    """The PDF cache's bound, in bytes (a W3K map's PDF is a few hundred KB): the least recently used go first."""

    ENCODED_BYTES = 32_000_000
    """The bound of the pictures kept compressed (:meth:`encoded`), in bytes: a standard map is some 65 KB in
    brotli, so about 500 of them (the least recently used go first)."""

    def __init__(self) -> None:
        self._encoded: LRUCache[tuple[Any, ...], bytes] = LRUCache(self.ENCODED_BYTES, getsizeof=len)
        self._svgs: LRUCache[tuple[Any, ...], str | None] = LRUCache(self.SIZE)
        self._pdfs: LRUCache[str, bytes] = LRUCache(self.PDF_BYTES, getsizeof=len)
        self._previews: LRUCache[str, bytes] = LRUCache(self.PREVIEW_BYTES, getsizeof=len)
        self._lock = threading.Lock()
        """The caches' own order of use changes on every read, so reads take it too."""

    def _cached(self, key: tuple[Any, ...], draw: Callable[[], str | None]) -> str | None:
        with self._lock:
            if key in self._svgs:
                return self._svgs[key]
        with _DRAWING:
            with self._lock:
                if key in self._svgs:  # drawn by the thread this one waited for
                    return self._svgs[key]
            svg = _draw(draw)
            with self._lock:
                self._svgs[key] = svg
            return svg

    def drawing(self, key: tuple[Any, ...], draw: Callable[[], str | None]) -> str | None:
        """The picture ``draw`` makes, kept under ``key`` (which must name one picture for ever: a sandbox's id
        and the time it was kept, say); drawn once however many ask at once."""
        return self._cached(key, draw)

    def phase_svg(
        self,
        variant: Variant,
        key: tuple[Any, ...],
        record: Mapping[str, Any],
        *,
        after: bool = False,
        orders: bool = True,
        draft: Mapping[str, list[str]] | None = None,
        board: str | None = None,
        lang: str = "en",
    ) -> str | None:
        """A stored phase (``dippouch.store.history.phase_record`` shape) drawn with its orders and results, or the position
        it led to (``after``); None when no map can be drawn. An open phase is drawn without orders, except
        ``draft``: one power's own orders (canonical texts), for that power's eyes only. With ``board`` (the
        address of :func:`board_file`'s file), the board's fixed parts are drawn by reference to it. The map's own
        words (the heading's phase, the legend) in ``lang``, the reader's."""
        rec, show = _drawn(record, orders, draft)
        draw = partial(_phase_drawing, variant, rec, after, show, board, lang)
        return self._cached((*key, after, show, board, lang), draw)

    def encoded(self, key: tuple[Any, ...], coding: str, draw: Callable[[], str]) -> bytes:
        """The picture ``draw`` makes (``key`` must name one picture for ever, as :meth:`phase_svg`'s do) in
        ``coding`` (:data:`dippouch.web.http.encoded.OFFERED`), compressed once and served to every reader after
        without being compressed again. Kept apart from the pictures' text (a third of its size), so a picture
        served from here is not drawn again when its text has left that cache."""
        key = (*key, coding)
        with self._lock:
            got = self._encoded.get(key)
            if got is not None:
                return got
        got = compressed(draw().encode(), coding)
        with self._lock:
            keep_within(self._encoded, key, got)
        return got

    @staticmethod
    def _pdf_key(svg: str) -> str:
        return hashlib.sha256(svg.encode()).hexdigest()

    def cached_pdf(self, svg: str) -> bytes | None:
        """The PDF of ``svg`` if it was made before (cheap: no drawing)."""
        with self._lock:
            return self._pdfs.get(self._pdf_key(svg))

    def phase_pdf(self, svg: str, variant: Variant | None = None) -> bytes | None:
        """The map on A4 (cairosvg, through the renderer: the paper size every map PDF is printed on), or
        None where it cannot be made: with ``variant``, its atlas (:func:`atlas_pdf`: one page where the map
        reads whole, else the overview and regional sheets where no name is under 6 pt; W3K's whole map
        on one page printed them at 2.3 pt, the standard map's at 3.3 pt), else the map on one page.

        Cached by the picture's own text: a PDF is a pure function of its SVG (and the variant's sheets,
        which do not change while it is loaded), which is itself the cached picture of one phase and view,
        so every visitor after the first gets the same bytes without a second of drawing.
        """
        pdf = self.cached_pdf(svg)
        if pdf is not None:
            return pdf
        return self.keep_pdf(svg, pdf_of(svg, variant))

    def keep_pdf(self, svg: str, pdf: bytes | None) -> bytes | None:
        """Keep ``pdf``, the PDF of ``svg`` made elsewhere (:func:`pdf_of`); None is not kept."""
        if pdf is None:
            return None
        with self._lock:
            keep_within(self._pdfs, self._pdf_key(svg), pdf)
        return pdf

    PREVIEW_BYTES = 32_000_000
    """The link previews' cache bound, in bytes (a preview is some 100-300 KB)."""

    def cached_preview(self, svg: str) -> bytes | None:
        """The link preview of ``svg`` if it was made before (cheap: no drawing)."""
        with self._lock:
            return self._previews.get(self._pdf_key(svg))

    def preview(self, svg: str) -> bytes | None:
        """The map as a link's preview picture (PNG, 1200x630), or None where the renderer is missing; cached by
        the picture's own text, as the PDFs are."""
        png = self.cached_preview(svg)
        if png is not None:
            return png
        return self.keep_preview(svg, preview_of(svg))

    def keep_preview(self, svg: str, png: bytes | None) -> bytes | None:
        """Keep ``png``, the preview of ``svg`` made elsewhere (:func:`preview_of`); None is not kept."""
        if png is None:
            return None
        with self._lock:
            keep_within(self._previews, self._pdf_key(svg), png)
        return png


def opening_svg(variant: Variant, lang: str = "en") -> str | None:
    """The variant's opening position with no orders, its heading (the variant's title and the phase) in
    ``lang``; None when no map can be drawn. Kept on the variant (:attr:`Variant.derived`), one a language, so
    it goes when the variant goes, and a variant loaded afresh (its file edited) is drawn afresh."""
    kept = variant.derived
    key = f"{_OPENING}.{lang}"
    if key in kept:
        return cast("str | None", kept[key])

    def draw() -> str | None:
        from dippouch.render import RenderOptions, render_svg

        return str(render_svg(variant, variant.start, options=RenderOptions(lang=lang)))

    with _DRAWING:
        if key not in kept:
            kept[key] = _draw(draw)
        return cast("str | None", kept[key])


def variant_board(name: str) -> str | None:
    """The hash of the board file of the variant ``name`` as its file on disk reads now (None: no such variant, or
    no map to draw): what a game's board is compared with to be named by the variant's address."""
    from dippouch.catalog import load_variant, variant_names

    if name not in variant_names():
        return None
    try:
        made = board_file(load_variant(name))
    except DippouchError:
        return None
    return None if made is None else made[0]


def board_file(variant: Variant) -> tuple[str, str] | None:
    """The board's file (:func:`dippouch.render.board.board_svg`, drawn with the pages' options) and the hash of
    its content that its address names, or None when no map can be drawn; kept on the variant, as its opening
    picture is."""
    kept = variant.derived
    if _BOARD in kept:
        return cast("tuple[str, str] | None", kept[_BOARD])

    def draw() -> str | None:
        from dippouch.render.board import board_svg

        return board_svg(variant)

    with _DRAWING:
        if _BOARD not in kept:
            svg = _draw(draw)
            kept[_BOARD] = None if svg is None else (hashlib.sha256(svg.encode()).hexdigest()[:16], svg)
        return cast("tuple[str, str] | None", kept[_BOARD])
