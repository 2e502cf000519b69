"""The few reads the web app makes that no other part of the program needs: small, cheap lookups by game name
that a busy page asks before (or instead of) the fuller reads of :class:`GameStore`.

Each takes the store to read through (the web reads through :meth:`GameStore.reader`, which never takes
SQLite's write lock), so the web app itself speaks no SQL.
"""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa

from dippouch.store.db import Database
from dippouch.store.models import GameRow, PhaseRow
from dippouch.store.records import StoredPhase
from dippouch.store.sealing import is_sealed

__all__ = ["game_exists", "game_phase", "open_phase_id", "open_phase_sealed", "phase_by_id"]


def game_exists(store: Database, name: str) -> bool:
    with store.session() as s:
        return s.scalar(sa.select(GameRow.id).where(GameRow.name == name)) is not None


def open_phase_id(store: Database, name: str) -> int | None:
    """The id of the game's open phase (None when it is over, not started, or there is no such game): one
    narrow query, so a caller that keeps parsed positions by phase reads the phase's row only when it must."""
    with store.session() as s:
        row = s.execute(
            sa.select(PhaseRow.id)
            .join(GameRow, GameRow.id == PhaseRow.game_id)
            .where(GameRow.name == name, PhaseRow.status == "open")
        ).first()
    return None if row is None else int(row[0])


def phase_by_id(store: Database, phase_id: int) -> StoredPhase | None:
    with store.session() as s:
        row = s.get(PhaseRow, phase_id)
        return StoredPhase.of(row) if row is not None else None


def game_phase(store: Database, name: str, phase_id: int) -> StoredPhase | None:
    """Phase ``phase_id`` if it belongs to game ``name`` (an address naming another game's phase finds none)."""
    with store.session() as s:
        row = s.scalars(
            sa.select(PhaseRow)
            .join(GameRow, GameRow.id == PhaseRow.game_id)
            .where(GameRow.name == name, PhaseRow.id == phase_id)
        ).first()
        return StoredPhase.of(row) if row is not None else None


def open_phase_sealed(store: Database, name: str, now: datetime) -> bool:
    """Is the game's open phase sealed at ``now`` (before its deadline, or paused)? False without one."""
    with store.session() as s:
        row = s.execute(
            sa.select(PhaseRow.status, PhaseRow.deadline)
            .join(GameRow, GameRow.id == PhaseRow.game_id)
            .where(GameRow.name == name, PhaseRow.status == "open")
        ).first()
    return row is not None and is_sealed(row[0], row[1], now)
