"""Tables of what people learn the game with: puzzles (migration 0029; :mod:`.puzzles`), the guided first game's
progress (migration 0027; :mod:`.lessons`: which lessons a signed-in person has passed, a visitor's progress is
kept in their browser) and the coach's analyses (migration 0030; :mod:`.coach`: one row a movement phase of a
finished or practice game, as :mod:`dippouch.play.coach` made it).

Kept apart from the game tables: only the pages and commands that teach map them.
"""

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from dippouch.store.models import Base

__all__ = ["CoachPhaseRow", "LessonPassedRow", "PuzzleRow"]


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


class LessonPassedRow(Base):
    """One lesson a person passed, and when first."""

    __tablename__ = "lessons_passed"

    person_id: Mapped[int] = mapped_column(sa.ForeignKey("people.id"), primary_key=True)
    lesson: Mapped[str] = mapped_column(sa.String(40), primary_key=True)
    """The lesson's slug (:data:`dippouch.play.lessons_data.LESSONS`)."""
    passed_at: Mapped[datetime]


class CoachPhaseRow(Base):
    """The coach's look at one phase: kept by the phase it derives from (a processed phase never changes)."""

    __tablename__ = "coach_phases"

    phase_id: Mapped[int] = mapped_column(sa.ForeignKey("phases.id", ondelete="CASCADE"), primary_key=True)
    game_id: Mapped[int] = mapped_column(sa.ForeignKey("games.id", ondelete="CASCADE"), index=True)
    data: Mapped[dict[str, Any]] = mapped_column(sa.JSON)
    """The look as :meth:`dippouch.play.coach.PhaseLook.as_json` writes it: read back whole, never queried inside."""
    made_at: Mapped[datetime]
