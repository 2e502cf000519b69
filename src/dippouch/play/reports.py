"""A stored phase's report in the Judge's plain-text layout (:func:`dippouch.report.phase_report`) and its map
as a file (:func:`dippouch.render.output.phase_map_file`), from the record read from the store. Here, above
them, so that the store stores, the report writes and the renderer draws, and none imports another."""

from __future__ import annotations

from collections.abc import Iterable

from dippouch.game import in_fog
from dippouch.report import phase_report
from dippouch.store.db import Database
from dippouch.store.history import phase_record
from dippouch.store.variant_copy import variant_of

__all__ = ["phase_map_file", "stored_report"]


def stored_report(
    db: Database,
    name: str,
    phase: str | None = None,
    phase_id: int | None = None,
    *,
    full: bool = True,
    sight: Iterable[str] | None = None,
    lang: str | None = None,
) -> str:
    """A phase's report (the latest by default): full names, or abbreviations if not ``full``. ``sight``: the
    powers whose reader it is for; in a fog-of-war game still running it tells only what they saw
    (:func:`dippouch.render.fog.fog_record`; a reader of no power, nothing of the board). Its words in ``lang``,
    by default the game's language (:func:`dippouch.report.phase_report`)."""
    # With the submissions: a report names the lines a power sent that were not accepted (never the others).
    rec = phase_record(db, name, phase, phase_id)
    v = variant_of(db, name)
    if sight is not None and in_fog(rec):
        from dippouch.render.fog import fog_record  # the renderer is imported only when a fog asks for it

        rec = fog_record(v, rec, sight)
    return phase_report(v, rec, full=full, lang=lang)


def phase_map_file(db: Database, game: str, phase_id: int, fmt: str) -> tuple[str, str, bytes]:
    """The map of the processed phase ``phase_id`` of ``game`` for a mail attachment: (file name, content type,
    bytes); ``fmt`` is ``pdf`` or ``png``."""
    # Imported when a map is asked for: the renderer is not small, and the report alone needs none of it.
    from dippouch.render.output import phase_map_file as draw_map_file

    return draw_map_file(variant_of(db, game), phase_record(db, game, phase_id=phase_id), fmt)
