"""The table of the guided first game's progress (migration 0024): which lessons a signed-in person has passed
(:mod:`dippouch.store.lessons` reads and writes it; a visitor's progress is kept in their browser)."""

from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from dippouch.store.models import Base


class LessonPassedRow(Base):
    """One lesson a person passed, and when first."""

    __tablename__ = "lessons_passed"

    person_id: Mapped[int] = mapped_column(sa.ForeignKey("people.id"), primary_key=True)
    lesson: Mapped[str] = mapped_column(sa.String(40), primary_key=True)
    """The lesson's slug (:data:`dippouch.play.lessons_data.LESSONS`)."""
    passed_at: Mapped[datetime]
