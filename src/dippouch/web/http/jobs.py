"""The web's drawings that take seconds to minutes, as jobs of the work pool (:mod:`dippouch.web.http.pool`): a game's
replay as one animated picture and its book (a map as PDF and as a link's preview are
:func:`dippouch.web.views.maps.pdf_of` and :func:`~dippouch.web.views.maps.preview_of`).

Each is a pure function of what the request gathered from the store (the phases as the renderer reads them, the
press, the picture's SVG), so it runs in a worker process; the route asks who may see what, and keeps what is
made. Each picture is the one the game's pages show (:func:`dippouch.web.views.maps.phase_drawing` is
:meth:`~dippouch.web.views.maps.MapCache.phase_svg`'s drawing), so an export shows what its pages show.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from dippouch.core.messages import msg
from dippouch.core.variant import Variant
from dippouch.play.gamebook import BookPage, BookPlan, book_of
from dippouch.play.replays import Frame, export_replay
from dippouch.report import phase_report
from dippouch.store.press.messages import Message
from dippouch.web.http.security import WebNotFound
from dippouch.web.views.games import view_drawn
from dippouch.web.views.maps import NO_MAP, phase_drawing

I18N_DOMAIN = "site"
"""The catalogue of the refusals said here (the JSON API gives their English, a page its reader's words)."""

__all__ = ["Pictures", "animated_replay", "book_pdf", "ready"]

Pictures = Mapping[tuple[int, str], Mapping[str, Any]]
"""The pictures a drawing needs, by phase id and map view: the phase as the renderer reads it
(:func:`dippouch.web.views.games.phase_map_record`)."""


def _picture(variant: Variant, pictures: Pictures, phase_id: int, view: str, lang: str) -> str:
    after, orders = view_drawn(view)
    svg = phase_drawing(variant, pictures[(phase_id, view)], after=after, orders=orders, lang=lang)
    if svg is None:
        raise WebNotFound(NO_MAP)
    return svg


def animated_replay(
    variant: Variant, frames: Sequence[Frame], pictures: Pictures, fmt: str, captions: Sequence[str], lang: str
) -> bytes:
    """The replay as one animated picture in ``fmt`` (:func:`dippouch.play.replays.export_replay`), its frames
    under ``captions`` and their maps' words in the asker's language ``lang``."""
    try:
        return export_replay(frames, lambda f: _picture(variant, pictures, f.phase_id, f.view, lang), fmt, captions)
    except ImportError as e:  # cairosvg or the Cairo library is not installed
        raise WebNotFound(msg("animated replays need the map renderer: %(reason)s", reason=str(e))) from None


def book_pdf(
    variant: Variant,
    name: str,
    plan: BookPlan,
    press: Sequence[Message],
    records: Mapping[int, Mapping[str, Any]],
    pictures: Pictures | None,
    about: Sequence[str],
    lang: str,
) -> bytes:
    """The game book (:func:`dippouch.play.gamebook.book_of`): each phase's results written from ``records`` (its
    id -> the phase as the store records it, with the versions sent: the report names the lines not accepted),
    its maps drawn from ``pictures`` (None: no map can be drawn for the variant); its words, the results' and
    the maps' in ``lang`` (the asker's language: ``about`` comes said in it)."""

    def svg_of(page: BookPage) -> str | None:
        return None if pictures is None else _picture(variant, pictures, page.phase_id, page.view, lang)

    def results_of(phase_id: int) -> str:
        return phase_report(variant, records[phase_id], lang=lang)

    try:
        return book_of(variant, name, plan, press, svg_of, results_of, about=about, lang=lang)
    except ImportError as e:  # cairosvg or the Cairo library is not installed
        raise WebNotFound(msg("game books need the map renderer: %(reason)s", reason=str(e))) from None


NEEDED = ("dippouch.web.http.needed", __name__)
"""The jobs' modules and what they import, for the fork server to import once (:func:`ready` imports the same)."""


def ready() -> int:
    """A worker's first job (:meth:`dippouch.web.http.pool.WorkPool.warm`): import what the jobs need before a
    request waits for it (nothing left to do in a process forked from the fork server). Its process id."""
    import os

    import dippouch.web.http.needed  # noqa: F401  (imported for what importing it costs, paid now)

    return os.getpid()
