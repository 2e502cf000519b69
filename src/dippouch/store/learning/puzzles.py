"""Puzzles as stored (migration 0029; the table in :mod:`dippouch.store.learning.models`): each kept whole as
JSON beside the columns the list is sorted and chosen by. The puzzles themselves are
:mod:`dippouch.play.puzzles`'s; this module knows nothing of what they mean.

Also the positions puzzles are looked for in: the movement phases of the installation's finished games.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any

import sqlalchemy as sa

from dippouch.store.db import Database
from dippouch.store.learning.models import PuzzleRow
from dippouch.store.models import GameRow, PhaseRow
from dippouch.store.models_web import GameWebRow

__all__ = ["StoredPuzzle", "add_puzzles", "finished_positions", "puzzle", "puzzle_count", "puzzles"]


class StoredPuzzle:
    """A stored puzzle: its id (the page's address) and the puzzle's JSON."""

    __slots__ = ("data", "id")

    def __init__(self, id: int, data: Mapping[str, Any]) -> None:
        self.id = id
        self.data = data


def add_puzzles(db: Database, found: Sequence[Mapping[str, Any]], *, now: datetime) -> int:
    """Store the puzzles not stored before (by their key); how many were new."""
    if not found:
        return 0
    with db.session() as s:
        known = set(s.scalars(sa.select(PuzzleRow.key).where(PuzzleRow.key.in_([str(p["key"]) for p in found]))))
        added = 0
        for p in found:
            if p["key"] in known:
                continue
            known.add(str(p["key"]))
            s.add(
                PuzzleRow(
                    key=str(p["key"]),
                    variant=str(p["variant"]),
                    source=str(p["source"]),
                    phase=str(p["phase"]),
                    power=str(p["power"]),
                    goal=str(p["goal"]),
                    target=str(p["target"]),
                    difficulty=int(p["difficulty"]),
                    data=dict(p),
                    created_at=now,
                )
            )
            added += 1
        s.commit()
    return added


def puzzles(db: Database, *, difficulty: int | None = None) -> list[StoredPuzzle]:
    """Every stored puzzle (of one difficulty when given), in the order they were stored."""
    q = sa.select(PuzzleRow.id, PuzzleRow.data).order_by(PuzzleRow.id)
    if difficulty is not None:
        q = q.where(PuzzleRow.difficulty == difficulty)
    with db.session() as s:
        return [StoredPuzzle(int(i), d) for i, d in s.execute(q)]


def puzzle_count(db: Database) -> int:
    with db.session() as s:
        return int(s.scalar(sa.select(sa.func.count()).select_from(PuzzleRow)) or 0)


def puzzle(db: Database, puzzle_id: int | None = None, *, nth: int | None = None) -> StoredPuzzle | None:
    """The puzzle of id ``puzzle_id``, or the ``nth`` (from 0) in the order they were stored; None if none."""
    q = sa.select(PuzzleRow.id, PuzzleRow.data)
    if puzzle_id is not None:
        q = q.where(PuzzleRow.id == puzzle_id)
    else:
        q = q.order_by(PuzzleRow.id).offset(nth or 0).limit(1)
    with db.session() as s:
        row = s.execute(q).first()
    return StoredPuzzle(int(row[0]), row[1]) if row else None


def finished_positions(db: Database) -> Iterator[tuple[str, str, str, Mapping[str, Any]]]:
    """(game, variant, phase, position) of every movement phase of every finished game, in the games' order:
    the positions the generator looks for puzzles in. Public games only: a puzzle names its game, and an
    unlisted or private game's name is not for everyone (as the opening explorer reads them). Phases a
    rollback abandoned are not the game's."""
    q = (
        sa.select(GameRow.name, GameRow.variant, PhaseRow.name, PhaseRow.position)
        .join(PhaseRow, PhaseRow.game_id == GameRow.id)
        .outerjoin(GameWebRow, GameWebRow.game_id == GameRow.id)
        .where(
            GameRow.status == "finished",
            sa.func.coalesce(GameWebRow.visibility, "public") == "public",
            PhaseRow.kind == "movement",
            PhaseRow.status != "abandoned",
        )
        .order_by(GameRow.id, PhaseRow.seq)
    )
    with db.session() as s:
        rows = s.execute(q).all()
    for game, variant, phase, position in rows:
        if isinstance(position, Mapping):
            yield str(game), str(variant), str(phase), position
