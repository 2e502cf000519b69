"""The coach's analyses as stored (migration 0030; the table in :mod:`dippouch.store.learning.models`): one row a
processed movement phase, kept whole as JSON and keyed by the phase it derives from. What an analysis means is
:mod:`dippouch.play.coach`'s; this module only finds the phases that wait for one and keeps what it is handed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from dippouch.game import as_utc
from dippouch.store.db import Database
from dippouch.store.learning.models import CoachPhaseRow
from dippouch.store.models import GameRow, PhaseRow

__all__ = ["ToAnalyse", "analysed_phases", "game_status", "phases_to_analyse", "save_analysis"]


@dataclass(frozen=True)
class ToAnalyse:
    """A processed movement phase that waits for the coach: its game, the position and the orders played."""

    game: str
    game_id: int
    phase_id: int
    position: Mapping[str, Any]
    orders: Mapping[str, list[str]]


def _practice(settings: Any) -> bool:
    return isinstance(settings, Mapping) and bool(settings.get("practice"))


def phases_to_analyse(db: Database, *, limit: int) -> list[ToAnalyse]:
    """At most ``limit`` processed movement phases (of a line of play: none a rollback abandoned) not analysed
    yet, of finished games and running practice games, the oldest game's first, each game's in its order."""
    with db.read_session() as s:
        # Practice games are few (capped), finished ones many: those are chosen by the join, not listed here.
        practice = [
            str(name)
            for name, settings in s.execute(sa.select(GameRow.name, GameRow.settings).where(GameRow.status == "active"))
            if _practice(settings)
        ]
        chosen = GameRow.status == "finished"
        if practice:
            chosen = sa.or_(chosen, GameRow.name.in_(practice))
        done = sa.select(CoachPhaseRow.phase_id).where(CoachPhaseRow.phase_id == PhaseRow.id).exists()
        rows = s.execute(
            sa.select(PhaseRow.id, PhaseRow.game_id, GameRow.name, PhaseRow.position, PhaseRow.orders)
            .join(GameRow, GameRow.id == PhaseRow.game_id)
            .where(
                chosen,
                PhaseRow.status == "processed",
                PhaseRow.kind == "movement",
                PhaseRow.next_position.is_not(None),
                ~done,
            )
            .order_by(PhaseRow.game_id, PhaseRow.seq)
            .limit(limit)
        ).all()
    return [
        ToAnalyse(
            str(game),
            int(gid),
            int(pid),
            position,
            {str(p): [str(o) for o in texts] for p, texts in (orders or {}).items() if isinstance(texts, list)},
        )
        for pid, gid, game, position, orders in rows
        if isinstance(position, Mapping)
    ]


def save_analysis(db: Database, game_id: int, phase_id: int, data: Mapping[str, Any], *, now: datetime) -> bool:
    """Keep a phase's analysis; False when one was kept meanwhile (two workers analysed it: the first stays)."""
    with db.session() as s:
        if s.get(CoachPhaseRow, phase_id) is not None:
            return False
        s.add(CoachPhaseRow(phase_id=phase_id, game_id=game_id, data=dict(data), made_at=as_utc(now)))
        try:
            s.commit()
        except IntegrityError:
            s.rollback()
            return False
    return True


def analysed_phases(db: Database, game: str) -> dict[int, dict[str, Any]]:
    """Phase id -> its stored analysis, for every analysed phase of ``game`` (abandoned ones too: the reader
    keeps those of the line of play)."""
    with db.session() as s:
        rows = s.execute(
            sa.select(CoachPhaseRow.phase_id, CoachPhaseRow.data)
            .join(GameRow, GameRow.id == CoachPhaseRow.game_id)
            .where(GameRow.name == game)
        ).all()
    return {int(pid): dict(data) for pid, data in rows}


def game_status(db: Database, game: str) -> str | None:
    """The game's status (``active``, ``paused``, ``finished`` ...); None for no such game."""
    with db.session() as s:
        found = s.scalar(sa.select(GameRow.status).where(GameRow.name == game))
    return None if found is None else str(found)
