"""A game's maps compressed once for every web process (migration 0038): the first process asked for a phase's
picture draws and compresses it, or the worker that processed the phase does ahead of its readers, and every other
process sends the bytes kept here rather than drawing and compressing the same picture for itself (at a thousand
games turning every 30 s nearly every map asked was a new one, and the maps were most of the web's CPU).

One row per game, kind of picture and coding, replaced as the phase moves on: the version names the phase and its
status, which name the picture for ever, so a row of another version is simply not this picture.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from dippouch.store.db import Database
from dippouch.store.models_pages import SharedMapRow

__all__ = ["keep_map", "kept_map"]

_MAPS = cast(sa.Table, SharedMapRow.__table__)

_KEPT = sa.select(_MAPS.c.body).where(
    _MAPS.c.game_id == sa.bindparam("game_id"),
    _MAPS.c.key == sa.bindparam("key"),
    _MAPS.c.coding == sa.bindparam("coding"),
    _MAPS.c.version == sa.bindparam("version"),
)


def kept_map(db: Database, game_id: int, key: str, coding: str, version: str) -> bytes | None:
    """The map of ``key`` in ``coding`` kept for ``version`` (None: none kept for it). One statement, outside a
    transaction where the database allows it."""
    with db.one_read.connect() as conn:
        body = conn.execute(
            _KEPT, {"game_id": game_id, "key": key, "coding": coding, "version": version}
        ).scalar_one_or_none()
        conn.rollback()
    return None if body is None else bytes(body)


def _keep(insert: Any) -> Any:
    new = insert(_MAPS).values(
        {c: sa.bindparam(c, type_=_MAPS.c[c].type) for c in ("game_id", "key", "coding", "version", "body", "made_at")}
    )
    return new.on_conflict_do_update(
        index_elements=[_MAPS.c.game_id, _MAPS.c.key, _MAPS.c.coding],
        set_={c: new.excluded[c] for c in ("version", "body", "made_at")},
    )


_KEEP = {"postgresql": _keep(pg_insert), "sqlite": _keep(sqlite_insert)}


def keep_map(db: Database, game_id: int, key: str, coding: str, version: str, body: bytes, now: datetime) -> None:
    """Keep ``body``, the map of ``key`` in ``coding`` for ``version``, replacing the one kept before. Made again
    when lost, so its commit does not wait for the disk (:meth:`Database.derived_writes`); two processes making it
    at once both write the same bytes."""
    with db.derived_writes() as conn:
        conn.execute(
            _KEEP[db.engine.dialect.name],
            {"game_id": game_id, "key": key, "coding": coding, "version": version, "body": body, "made_at": now},
        )
