"""The table of puzzles (migration 0029): positions from recorded games with one winning set of orders, as
:mod:`dippouch.play.puzzles` found them (:mod:`dippouch.store.puzzles` reads and writes it)."""

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from dippouch.store.models import Base


class PuzzleRow(Base):
    """One puzzle: where it comes from, the board, whose turn and goal, and its one answer."""

    __tablename__ = "puzzles"

    id: Mapped[int] = mapped_column(primary_key=True)
    key: Mapped[str] = mapped_column(sa.String(32), unique=True)
    """A digest of the position, the power and the goal: the same puzzle found again is not stored twice."""
    variant: Mapped[str] = mapped_column(sa.String(100))
    source: Mapped[str] = mapped_column(sa.Text)
    """The game (and phase) it comes from, or the corpus line."""
    phase: Mapped[str] = mapped_column(sa.String(100))
    power: Mapped[str] = mapped_column(sa.String(100))
    goal: Mapped[str] = mapped_column(sa.String(10))
    target: Mapped[str] = mapped_column(sa.String(20))
    difficulty: Mapped[int] = mapped_column(index=True)
    data: Mapped[dict[str, Any]] = mapped_column(sa.JSON)
    """The whole puzzle as :meth:`dippouch.play.puzzles.Puzzle.as_json` writes it (the board, the units, the
    answer, the counts): read back whole, never queried inside."""
    created_at: Mapped[datetime]
